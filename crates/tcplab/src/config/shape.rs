//! Arrays where tables belong. serde's derived structs also accept an array and fill
//! their fields by position, so `tcp = [1000]` or `bottleneck = ["10Mbps", "10ms", 50]`
//! would be read without a word, each value landing in whichever field comes first. The
//! parsed scenario written back as TOML has a table wherever a struct was filled; an array
//! in the document at that place means exactly this happened.

use super::ConfigError;

/// Refuses the first place (in document order) where `input` has an array and the
/// canonical form of what was parsed from it has a table.
pub fn tables_not_arrays(input: &toml::Value, canonical: &toml::Value) -> Result<(), ConfigError> {
    match find(input, canonical, String::new()) {
        None => Ok(()),
        Some(field) => Err(ConfigError::new(
            field,
            "expected a table { key = value, ... }, not an array; fields are named, not \
             given by position",
        )),
    }
}

fn find(input: &toml::Value, canonical: &toml::Value, field: String) -> Option<String> {
    use toml::Value::{Array, Table};
    match (input, canonical) {
        (Array(_), Table(_)) => Some(field),
        (Table(i), Table(c)) => i.iter().find_map(|(k, v)| {
            let sub = if field.is_empty() {
                k.clone()
            } else {
                format!("{field}.{k}")
            };
            c.get(k).and_then(|cv| find(v, cv, sub))
        }),
        (Array(i), Array(c)) => i
            .iter()
            .zip(c)
            .enumerate()
            .find_map(|(n, (v, cv))| find(v, cv, format!("{field}[{n}]"))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::config::parse_scenario;

    const DOC: &str = r#"
[simulation]
duration = 2
measure = [0.5, 2]

[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 50 }

[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
start = { uniform = [0, 0.1] }
"#;

    fn field_of(doc: &str) -> Option<String> {
        parse_scenario(doc).err().map(|e| e.field)
    }

    #[test]
    fn a_struct_given_as_an_array_is_refused_where_it_is() {
        assert_eq!(field_of(DOC), None);
        let bottleneck = r#"bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 50 }"#;
        let cases = [
            (format!("tcp = [1000]\n{DOC}"), "tcp"),
            (
                DOC.replace(bottleneck, r#"bottleneck = ["10Mbps", "10ms", 50]"#),
                "topology.bottleneck",
            ),
            (
                DOC.replace("cc = \"reno\"", "cc = \"reno\"\ntcp = [536]"),
                "flows[0].tcp",
            ),
            (
                DOC.replace("buffer = 50 }", "buffer = 50, reverse = [1e6] }"),
                "topology.bottleneck.reverse",
            ),
        ];
        for (doc, field) in cases {
            assert_eq!(field_of(&doc).as_deref(), Some(field), "{doc}");
        }
    }
}
