//! Every algorithm's parameters with their defaults and meanings, for the documentation
//! (`tcplab algorithms --params` and the generated part of docs/scenario.md).
//!
//! Nothing here restates a parameter: the keys come from the parameter structs' serde
//! derives ([`crate::config::keys::names`]), the defaults from their `Default` (the Vegas
//! family's from each member's resolved settings), and the meanings from the doc comments
//! of the fields and of the named values, read from the source files themselves. Which
//! structs each algorithm accepts is said once, in its registry entry
//! ([`super::registry::Algorithm::params`]); a test checks it against [`super::build`], key
//! by key and value by value.

use super::ack_loss::{AckLossParams, KEY as ACK_LOSS_KEY};
use super::params::ParamStruct;
use super::registry::ALGORITHMS;

/// The shared machinery whose doc comments describe parameters (the ACK-loss wrapper's,
/// the Vegas family's options and their RTT choices), beside each algorithm's own source.
const SHARED_SOURCES: &[&str] = &[
    include_str!("ack_loss.rs"),
    include_str!("round.rs"),
    include_str!("vegas.rs"),
];

/// One parameter of a set.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The key in `cc = { name = "...", <key> = ... }` (`ack_loss_reaction.<key>` for the
    /// wrapper's).
    pub key: String,
    /// The field's doc comment.
    pub doc: String,
    /// For a key whose value is one of a set of names: each name and its doc comment.
    pub values: Vec<(String, String)>,
    /// The default for each algorithm of the set, in the set's order.
    pub defaults: Vec<toml::Value>,
}

/// A parameter struct and the algorithms that accept its keys.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSet {
    /// The struct's name (`VegasOptions`).
    pub name: &'static str,
    /// The algorithms that accept these keys; empty: every algorithm (the ACK-loss
    /// reaction wraps any of them).
    pub algorithms: Vec<&'static str>,
    pub params: Vec<Param>,
}

/// Every parameter set, in the order of the registry's algorithms (each set where its first
/// algorithm is), then the ACK-loss wrapper's, which every algorithm takes.
pub fn catalog() -> Vec<ParamSet> {
    let mut sets: Vec<ParamSet> = Vec::new();
    for algorithm in ALGORITHMS {
        for describe in algorithm.params {
            let own = describe();
            let at = match sets.iter().position(|s| s.name == own.name) {
                Some(at) => at,
                None => {
                    sets.push(described_set(&own, ""));
                    sets.len() - 1
                }
            };
            let set = &mut sets[at];
            set.algorithms.push(algorithm.name);
            for param in &mut set.params {
                let default = own.defaults.get(&param.key).cloned();
                param
                    .defaults
                    .push(default.expect("every parameter has a default"));
            }
        }
    }
    let wrapper = ParamStruct::of::<AckLossParams>();
    let mut set = described_set(&wrapper, &format!("{ACK_LOSS_KEY}."));
    for (param, key) in set.params.iter_mut().zip(&wrapper.keys) {
        param.defaults.push(wrapper.defaults[*key].clone());
    }
    sets.push(set);
    sets
}

/// A set of `params`' keys with their doc comments, before any algorithm's defaults.
fn described_set(params: &ParamStruct, prefix: &str) -> ParamSet {
    ParamSet {
        name: params.name,
        algorithms: Vec::new(),
        params: (params.keys.iter())
            .map(|key| described(params.name, key, prefix))
            .collect(),
    }
}

fn described(strukt: &str, key: &str, prefix: &str) -> Param {
    let (doc, ty) = field_doc(strukt, key)
        .unwrap_or_else(|| panic!("{strukt}.{key} has no doc comment in the sources"));
    let values = enum_values(&ty);
    let doc = if values.is_empty() {
        doc
    } else {
        drop_see_also(&doc)
    };
    Param {
        key: format!("{prefix}{key}"),
        doc,
        values,
        defaults: Vec::new(),
    }
}

/// The doc comment and type of a struct's field, from the sources.
fn field_doc(strukt: &str, field: &str) -> Option<(String, String)> {
    documented(&format!("pub struct {strukt} {{"))?
        .into_iter()
        .find_map(|(doc, decl)| {
            let (name, ty) = decl.strip_prefix("pub ").unwrap_or(decl).split_once(':')?;
            let ty = ty.trim().trim_end_matches(',');
            (name.trim() == field).then(|| (doc, ty.to_string()))
        })
}

/// For a field of a unit-enum type defined in the sources: each value's serde name
/// (snake_case, as every one of them is renamed) and doc comment.
fn enum_values(ty: &str) -> Vec<(String, String)> {
    let ty = ty
        .strip_prefix("Option<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(ty);
    let declarations = documented(&format!("pub enum {ty} {{")).unwrap_or_default();
    declarations
        .into_iter()
        .filter_map(|(doc, decl)| Some((snake_case(decl.strip_suffix(',')?), doc)))
        .collect()
}

/// Each declaration (field or variant line) of an item with its doc comment; attributes
/// between the two are passed over.
fn documented(opening: &str) -> Option<Vec<(String, &'static str)>> {
    let mut out = Vec::new();
    let mut doc = Vec::new();
    for line in item_body(opening)? {
        if let Some(text) = line.strip_prefix("///") {
            doc.push(text.trim());
        } else if !line.starts_with("#[") {
            out.push((clean(&doc.join(" ")), line));
            doc.clear();
        }
    }
    Some(out)
}

/// The trimmed lines between an item's opening line and its closing brace.
fn item_body(opening: &str) -> Option<Vec<&'static str>> {
    let own = ALGORITHMS.iter().map(|a| a.source);
    own.chain(SHARED_SOURCES.iter().copied())
        .find_map(|source| {
            let mut lines = source.lines().skip_while(|l| l.trim() != opening);
            lines.next()?;
            Some(lines.map(str::trim).take_while(|l| *l != "}").collect())
        })
}

fn snake_case(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// Rustdoc links (``[`X`]``) as plain code spans.
fn clean(doc: &str) -> String {
    doc.replace("[`", "`").replace("`]", "`")
}

/// Drops a "(see `Type`)" pointer: the type's values are listed instead.
fn drop_see_also(doc: &str) -> String {
    match (doc.find(" (see `"), doc.rfind("`)")) {
        (Some(a), Some(b)) if b > a => format!("{}{}", &doc[..a], &doc[b + 2..]),
        _ => doc.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{build, CcSpec, CongestionControl};

    fn accepts(
        algorithm: &str,
        key: &str,
        value: &toml::Value,
    ) -> Result<Box<dyn CongestionControl>, String> {
        let mut spec = CcSpec::named(algorithm);
        match key.split_once('.') {
            Some((table, inner)) => {
                let mut t = toml::Table::new();
                t.insert(inner.to_string(), value.clone());
                spec.params.insert(table.to_string(), toml::Value::Table(t));
            }
            None => {
                spec.params.insert(key.to_string(), value.clone());
            }
        }
        build(&spec, "cc").map_err(|e| format!("{}: {}", e.field, e.message))
    }

    fn applies(set: &ParamSet, algorithm: &str) -> Option<usize> {
        if set.algorithms.is_empty() {
            return Some(0);
        }
        set.algorithms.iter().position(|a| *a == algorithm)
    }

    /// Every algorithm accepts each of its documented keys at its documented default and at
    /// each documented value, and rejects the keys documented only for other algorithms.
    #[test]
    fn the_catalog_matches_what_each_algorithm_accepts() {
        let sets = catalog();
        for algorithm in ALGORITHMS.iter().map(|a| a.name) {
            let mine: Vec<(&Param, usize)> = sets
                .iter()
                .filter_map(|s| applies(s, algorithm).map(|i| s.params.iter().map(move |p| (p, i))))
                .flatten()
                .collect();
            for (p, i) in &mine {
                accepts(algorithm, &p.key, &p.defaults[*i])
                    .unwrap_or_else(|e| panic!("{algorithm}: {e}"));
                for (value, _) in &p.values {
                    let v = toml::Value::String(value.clone());
                    accepts(algorithm, &p.key, &v).unwrap_or_else(|e| panic!("{algorithm}: {e}"));
                }
            }
            for s in &sets {
                for p in &s.params {
                    if mine.iter().any(|(m, _)| m.key == p.key) {
                        continue;
                    }
                    let e = accepts(algorithm, &p.key, &p.defaults[0]).err();
                    assert!(
                        e.is_some_and(|e| e.contains("unknown field")),
                        "{algorithm} takes {}",
                        p.key
                    );
                }
            }
        }
    }

    #[test]
    fn every_algorithm_and_parameter_is_described() {
        let sets = catalog();
        for algorithm in ALGORITHMS.iter().map(|a| a.name) {
            assert!(
                sets.iter().any(|s| s.algorithms.contains(&algorithm)),
                "{algorithm}"
            );
        }
        for s in &sets {
            for p in &s.params {
                assert!(p.doc.len() > 10, "{}.{}: {:?}", s.name, p.key, p.doc);
                assert!(
                    p.values.iter().all(|(_, doc)| !doc.is_empty()),
                    "{}.{}",
                    s.name,
                    p.key
                );
            }
        }
    }

    #[test]
    fn reads_defaults_docs_and_values_from_the_sources() {
        let sets = catalog();
        let veno = sets.iter().find(|s| s.name == "VenoParams").unwrap();
        let reset = veno
            .params
            .iter()
            .find(|p| p.key == "base_rtt_reset")
            .unwrap();
        assert_eq!(reset.defaults, vec![toml::Value::from("on_loss")]);
        let names: Vec<&str> = reset.values.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["on_loss", "never"]);
        let vegas = sets.iter().find(|s| s.name == "VegasOptions").unwrap();
        let rtt = vegas.params.iter().find(|p| p.key == "rtt").unwrap();
        let code = vegas.algorithms.iter().position(|a| *a == "code").unwrap();
        assert_eq!(rtt.defaults[code], toml::Value::from("min"));
        assert_eq!(rtt.values.len(), 4);
        let ack = sets.last().unwrap();
        assert!(
            ack.algorithms.is_empty() && ack.params[0].key == "ack_loss_reaction.thresh_ack_losses"
        );
    }
}
