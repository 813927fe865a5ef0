//! The one error type for bad scenario input: which field, and what is wrong with it.

use std::fmt;

/// A scenario document problem. `field` is a path into the document
/// (`flows[2].start`, `topology.bottleneck.rate`), `message` says what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub field: String,
    pub message: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// serde's names for what it expected, in the words of a TOML document.
const PLAIN_WORDS: [(&str, &str); 9] = [
    ("expected u8", "expected a whole number from 0 to 255"),
    ("expected u16", "expected a whole number from 0 to 65535"),
    (
        "expected u32",
        "expected a whole number from 0 to 4294967295",
    ),
    ("expected u64", "expected a whole number, 0 or more"),
    ("expected i64", "expected a whole number"),
    ("expected f64", "expected a number"),
    ("expected a map", "expected a table"),
    ("expected a sequence", "expected an array"),
    ("invalid type: map", "invalid type: table"),
];

impl ConfigError {
    /// The message with serde's type names (`u32`, `map`, `struct Simulation`) replaced
    /// by what a scenario's author writes.
    pub fn in_plain_words(mut self) -> Self {
        for (serde, plain) in PLAIN_WORDS {
            self.message = self.message.replace(serde, plain);
        }
        self.message = self
            .message
            .replace("invalid type: sequence", "invalid type: array");
        if let Some(at) = self.message.find("expected struct ") {
            let end = self.message[at + 16..]
                .find(|c: char| !c.is_alphanumeric() && c != '_')
                .map_or(self.message.len(), |n| at + 16 + n);
            self.message.replace_range(at..end, "expected a table");
        }
        self
    }
}

/// Names for an error message: all of them, or the first twelve and how many there are.
pub fn name_list(names: &[String]) -> String {
    if names.len() <= 12 {
        names.join(", ")
    } else {
        format!("{}, ... ({} in all)", names[..12].join(", "), names.len())
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::ConfigError;

    #[test]
    fn serde_type_names_become_plain_words() {
        let plain = |m: &str| ConfigError::new("f", m).in_plain_words().message;
        assert_eq!(
            plain("invalid type: floating point `1.5`, expected u32"),
            "invalid type: floating point `1.5`, expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain("invalid type: integer `5`, expected struct Simulation"),
            "invalid type: integer `5`, expected a table"
        );
        assert_eq!(
            plain("invalid type: sequence, expected a map"),
            "invalid type: array, expected a table"
        );
        assert_eq!(plain("5 is not allowed"), "5 is not allowed");
    }
}
