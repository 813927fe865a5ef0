//! What a scenario may name only once: a pair of nodes joined by a link, a flow name.
//! A second link between the same two nodes would never carry a packet (routes take the
//! first), and two flows of one name would share a record row name and a random stream.

use super::flows::FlowSpec;
use super::schema::CustomLink;
use super::ConfigError;
use std::collections::HashMap;

/// Refuses a link between two nodes that an earlier link already joins (either way round).
pub fn unique_links(links: &[CustomLink]) -> Result<(), ConfigError> {
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, l) in links.iter().enumerate() {
        let [a, b] = &l.between;
        let pair = if a <= b {
            (a.as_str(), b.as_str())
        } else {
            (b.as_str(), a.as_str())
        };
        if let Some(first) = seen.insert(pair, i) {
            return Err(ConfigError::new(
                format!("topology.links[{i}].between"),
                format!(
                    "{a:?} and {b:?} are already joined by topology.links[{first}]; give one \
                     link per pair of nodes (`reverse = {{ ... }}` sets the other direction)"
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses two flows of one name, names as the flows get them ([`FlowSpec::flow_name`]),
/// without listing every flow of an entry with a large `count`.
pub fn unique_flow_names(flows: &[FlowSpec]) -> Result<(), ConfigError> {
    // An entry of count > 1 names its flows "<base>.<k>"; the integer k has no dot, so two
    // such entries clash exactly when their bases are equal, and a single flow "x" clashes
    // with one when x is "<base>.<k>" for a k below its count.
    let mut bases: HashMap<String, (usize, u32)> = HashMap::new();
    let mut singles: HashMap<String, usize> = HashMap::new();
    let mut clash: Option<(usize, usize, String)> = None;
    let mut note = |a: usize, b: usize, name: String| {
        let (first, second) = (a.min(b), a.max(b));
        if clash.as_ref().is_none_or(|(_, s, _)| second < *s) {
            clash = Some((first, second, name));
        }
    };
    for (i, f) in flows.iter().enumerate() {
        let base = f.base_name(i);
        if f.count > 1 {
            if let Some(&(j, _)) = bases.get(&base) {
                note(j, i, format!("{base}.0"));
            } else {
                bases.insert(base, (i, f.count));
            }
        } else if let Some(&j) = singles.get(&base) {
            note(j, i, base);
        } else {
            singles.insert(base, i);
        }
    }
    for (name, &i) in &singles {
        let Some((base, k)) = name.rsplit_once('.') else {
            continue;
        };
        let Ok(k) = k.parse::<u32>() else { continue };
        if let Some(&(j, count)) = bases.get(base) {
            if k < count && k.to_string() == name[base.len() + 1..] {
                note(j, i, name.clone());
            }
        }
    }
    match clash {
        None => Ok(()),
        Some((first, second, name)) => Err(ConfigError::new(
            format!("flows[{second}].name"),
            format!(
                "{name:?} is also the name of a flow of flows[{first}]; flow names must be \
                 unique (an entry with count = n names its flows \"<name>.0\" to \
                 \"<name>.<n-1>\", and an entry without a name is \"flow<index>\")"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::config::parse_scenario;

    fn scenario(links: &str, flows: &[&str]) -> String {
        let mut doc = format!(
            "[simulation]\nduration = 1\n[topology]\nkind = \"custom\"\n\
             nodes = [\"a\", \"b\", \"c\"]\nlinks = [{links}]\n"
        );
        for f in flows {
            let cc = if f.contains("cbr") {
                ""
            } else {
                "cc = \"reno\"\n"
            };
            doc += &format!("[[flows]]\nsrc = \"a\"\ndst = \"c\"\n{cc}{f}\n");
        }
        doc
    }

    const CHAIN: &str = "{ between = [\"a\", \"b\"], rate = 1e6, delay = 0.01 }, \
                         { between = [\"b\", \"c\"], rate = 1e6, delay = 0.01 }";

    fn error(links: &str, flows: &[&str]) -> Option<(String, String)> {
        parse_scenario(&scenario(links, flows))
            .err()
            .map(|e| (e.field, e.message))
    }

    #[test]
    fn a_second_link_between_the_same_nodes_is_refused() {
        let twice = format!("{CHAIN}, {{ between = [\"c\", \"b\"], rate = 2e6, delay = 0.02 }}");
        let (field, message) = error(&twice, &[""]).unwrap();
        assert_eq!(field, "topology.links[2].between");
        assert!(
            message.contains("already joined by topology.links[1]"),
            "{message}"
        );
        assert_eq!(error(CHAIN, &[""]), None);
    }

    #[test]
    fn flow_names_are_unique_as_the_flows_get_them() {
        let clash = |flows: &[&str]| error(CHAIN, flows);
        let refused = |flows: &[&str], field: &str, first: &str| {
            let (f, m) = clash(flows).unwrap_or_else(|| panic!("{flows:?} accepted"));
            assert_eq!(f, field, "{flows:?}: {m}");
            assert!(m.contains(&format!("flows[{first}]")), "{flows:?}: {m}");
        };
        refused(&["name = \"x\"", "name = \"x\""], "flows[1].name", "0");
        refused(
            &["name = \"x\"\ncount = 3", "name = \"x.2\""],
            "flows[1].name",
            "0",
        );
        refused(
            &["name = \"x.0\"", "name = \"x\"\ncount = 2"],
            "flows[1].name",
            "0",
        );
        refused(
            &["name = \"x\"\ncount = 2", "name = \"x\"\ncount = 5"],
            "flows[1].name",
            "0",
        );
        refused(&["", "name = \"flow0\""], "flows[1].name", "0");
        refused(
            &[
                "",
                "",
                "name = \"u\"\nkind = \"cbr\"\nrate = 1e5",
                "name = \"u\"",
            ],
            "flows[3].name",
            "2",
        );
        assert_eq!(clash(&["", ""]), None);
        assert_eq!(clash(&["name = \"x\"\ncount = 3", "name = \"x.3\""]), None);
        assert_eq!(clash(&["name = \"x\"\ncount = 3", "name = \"x.02\""]), None);
        assert_eq!(clash(&["name = \"x\"\ncount = 3", "name = \"x\""]), None);
        assert_eq!(
            clash(&["name = \"x.1\"\ncount = 2", "name = \"x\"\ncount = 2"]),
            None
        );
    }
}
