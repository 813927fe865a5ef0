//! Every algorithm's parameters with their defaults and meanings, for the documentation
//! (`tcplab algorithms --params` and the generated part of docs/scenario.md).
//!
//! Nothing here restates a parameter: the keys come from the parameter structs' serde
//! derives ([`crate::config::keys::names`]), the defaults from their `Default` (the Vegas
//! family's from each member's resolved settings), and the meanings from the doc comments
//! of the fields and of the named values, read from these source files themselves. What is
//! written by hand is which structs each algorithm accepts ([`catalog`]); a test checks it
//! against [`super::build`], key by key and value by value.

use super::ack_loss::{AckLossParams, KEY as ACK_LOSS_KEY};
use super::areno::ARenoParams;
use super::code::CodeParams;
use super::ctcp::CtcpParams;
use super::cubic::CubicParams;
use super::fast::FastParams;
use super::highspeed::HighSpeedParams;
use super::newvegas::ThresholdParams;
use super::reno::RenoParams;
use super::scalable::ScalableParams;
use super::vegas::{VegasConfig, VegasOptions};
use super::vegas_plus::VegasPlusParams;
use super::veno::VenoParams;
use super::CcSpec;
use crate::config::keys::names;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The source files whose doc comments describe the parameters and their values.
const SOURCES: &[&str] = &[
    include_str!("ack_loss.rs"),
    include_str!("areno.rs"),
    include_str!("code.rs"),
    include_str!("ctcp.rs"),
    include_str!("cubic.rs"),
    include_str!("fast.rs"),
    include_str!("highspeed.rs"),
    include_str!("newvegas.rs"),
    include_str!("reno.rs"),
    include_str!("round.rs"),
    include_str!("scalable.rs"),
    include_str!("vegas.rs"),
    include_str!("vegas_plus.rs"),
    include_str!("veno.rs"),
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

/// Every parameter set, in the order of [`super::ALGORITHMS`] of their first algorithm.
pub fn catalog() -> Vec<ParamSet> {
    let vegas_family = ["vegas", "vegas_a", "newvegas", "code", "vegas_plus"];
    vec![
        set::<RenoParams>(&["reno", "newreno", "tahoe"], ""),
        set::<FastParams>(&["fast"], ""),
        set::<CtcpParams>(&["ctcp"], ""),
        set::<ARenoParams>(&["areno"], ""),
        set::<HighSpeedParams>(&["highspeed"], ""),
        set::<ScalableParams>(&["scalable"], ""),
        set::<CubicParams>(&["cubic"], ""),
        vegas_options(&vegas_family),
        set::<ThresholdParams>(&["newvegas", "code"], ""),
        set::<CodeParams>(&["code"], ""),
        set::<VegasPlusParams>(&["vegas_plus"], ""),
        set::<VenoParams>(&["veno"], ""),
        set::<super::bbr::BbrParams>(&["bbr"], ""),
        set::<AckLossParams>(&[], &format!("{ACK_LOSS_KEY}.")),
    ]
}

/// A set whose defaults are its struct's `Default`, the same for every algorithm.
fn set<T: DeserializeOwned + Serialize + Default>(
    algorithms: &[&'static str],
    prefix: &str,
) -> ParamSet {
    let name = short_type_name::<T>();
    let defaults = toml::Table::try_from(T::default()).expect("parameter defaults are a table");
    let per_algorithm = algorithms.len().max(1);
    let params = names::<T>()
        .into_iter()
        .map(|key| {
            let default = defaults
                .get(key)
                .cloned()
                .expect("every parameter has a default");
            described(name, key, prefix, vec![default; per_algorithm])
        })
        .collect();
    ParamSet {
        name,
        algorithms: algorithms.to_vec(),
        params,
    }
}

/// The Vegas family's shared options; each member's defaults are the settings it resolves
/// from an empty parameter table (its paper's RTT choice, CODE's minimum).
fn vegas_options(members: &[&'static str]) -> ParamSet {
    let resolved: Vec<toml::Table> = members
        .iter()
        .map(|&m| vegas_defaults(&member_config(m)))
        .collect();
    let params = names::<VegasOptions>()
        .into_iter()
        .map(|key| {
            let defaults = resolved
                .iter()
                .map(|t| {
                    t.get(key)
                        .cloned()
                        .expect("every Vegas option has a resolved default")
                })
                .collect();
            described("VegasOptions", key, "", defaults)
        })
        .collect();
    ParamSet {
        name: "VegasOptions",
        algorithms: members.to_vec(),
        params,
    }
}

fn member_config(member: &str) -> VegasConfig {
    let spec = CcSpec::named(member);
    let cfg = match member {
        "vegas" => super::vegas::from_spec(&spec, "cc").map(|a| *a.config()),
        "vegas_a" => super::vegas_a::from_spec(&spec, "cc").map(|a| *a.config()),
        "newvegas" => super::newvegas::from_spec(&spec, "cc").map(|a| *a.config()),
        "code" => super::code::from_spec(&spec, "cc").map(|a| *a.config()),
        "vegas_plus" => super::vegas_plus::from_spec(&spec, "cc").map(|a| *a.config()),
        other => unreachable!("{other} is not a member of the Vegas family"),
    };
    cfg.expect("a Vegas family member builds from an empty table")
}

/// A member's resolved settings under the option keys that set them.
fn vegas_defaults(c: &VegasConfig) -> toml::Table {
    let mut t = toml::Table::new();
    t.insert("alpha".into(), c.alpha.into());
    t.insert("beta".into(), c.beta.into());
    t.insert("gamma".into(), c.gamma.into());
    t.insert("rtt".into(), c.rtt.name().into());
    t.insert(
        "fine_grained_retransmit".into(),
        c.fine_grained_retransmit.into(),
    );
    let response = toml::Value::try_from(c.loss_response).expect("a named value");
    t.insert("loss_response".into(), response);
    let variant = if c.kernel {
        "kernel"
    } else if c.linux {
        "linux"
    } else {
        "paper"
    };
    t.insert("variant".into(), variant.into());
    t.insert("loss_history".into(), c.loss_history.into());
    let rounding = toml::Value::try_from(c.diff_rounding).expect("a named value");
    t.insert("diff_rounding".into(), rounding);
    t
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

fn described(strukt: &str, key: &str, prefix: &str, defaults: Vec<toml::Value>) -> Param {
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
        defaults,
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
    SOURCES.iter().find_map(|source| {
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
    use crate::cc::{build, CongestionControl, ALGORITHMS};

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
        for &algorithm in ALGORITHMS {
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
        for &algorithm in ALGORITHMS {
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
