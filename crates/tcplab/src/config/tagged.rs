//! Internally tagged enums (`kind = "dumbbell"`, `model = "bernoulli"`) that keep error paths.
//!
//! serde's derived internally tagged enums buffer their content, so an error inside a
//! variant loses its field path ("topology: invalid type" instead of "topology.pairs:
//! invalid type"). Here the tag is read first and the rest deserialized straight into the
//! variant's struct under `serde_path_to_error`; the inner path travels to the outer one in
//! the error message, between two [`PATH_MARK`]s, and [`split_path`] joins them.

use serde::de::{DeserializeOwned, Error};
use serde::{Deserialize, Deserializer};

/// Brackets an inner path inside an error message.
pub const PATH_MARK: char = '\u{1}';

/// Splits a message produced by [`variant`] into (inner path, message).
pub fn split_path(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix(PATH_MARK)?;
    rest.split_once(PATH_MARK)
}

/// Joins an outer path and the inner path carried by `message`, if any.
pub fn join_path(outer: &str, message: &str) -> (String, String) {
    match split_path(message) {
        Some((inner, msg)) if outer.is_empty() || outer == "." => {
            (inner.to_string(), msg.to_string())
        }
        Some((inner, msg)) => (format!("{outer}.{inner}"), msg.to_string()),
        None => (
            if outer == "." {
                String::new()
            } else {
                outer.to_string()
            },
            message.to_string(),
        ),
    }
}

/// Reads a table and removes its tag; errors if the tag is missing or unknown.
pub fn split_tag<'de, D: Deserializer<'de>>(
    d: D,
    tag: &str,
    allowed: &[&str],
) -> Result<(String, toml::Value), D::Error> {
    let mut table = toml::Table::deserialize(d)?;
    let kind = match table.remove(tag) {
        Some(toml::Value::String(s)) => s,
        Some(other) => {
            return Err(D::Error::custom(format!(
                "`{tag}` must be a string, one of {}; got {other}",
                allowed.join(", ")
            )))
        }
        None => {
            return Err(D::Error::custom(format!(
                "missing `{tag}`; one of {}",
                allowed.join(", ")
            )))
        }
    };
    if !allowed.contains(&kind.as_str()) {
        return Err(D::Error::custom(format!(
            "unknown {tag} {kind:?}; one of {}",
            allowed.join(", ")
        )));
    }
    Ok((kind, toml::Value::Table(table)))
}

/// An error message about the key at `path` below the value being read, which
/// [`join_path`] joins to the outer path.
pub fn at_path(path: &str, message: &str) -> String {
    if path.is_empty() {
        message.to_string()
    } else {
        format!("{PATH_MARK}{path}{PATH_MARK}{message}")
    }
}

/// Deserializes a variant's struct, carrying the path of any error in the message.
pub fn variant<T: DeserializeOwned, E: Error>(value: toml::Value) -> Result<T, E> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let outer = e.path().to_string();
        let (path, msg) = join_path(&outer, e.inner().message());
        E::custom(at_path(&path, &msg))
    })
}

/// Implements `Deserialize` for an enum of newtype variants tagged by `$tag`.
macro_rules! tagged_enum {
    ($ty:ident, $tag:literal, { $($name:literal => $variant:ident),+ $(,)? }) => {
        impl $ty {
            /// The tag values this enum accepts.
            pub const KINDS: &'static [&'static str] = &[$($name),+];

            /// This value's tag (one of [`Self::KINDS`]).
            pub fn kind(&self) -> &'static str {
                match self {
                    $($ty::$variant(_) => $name,)+
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let (kind, rest) = $crate::config::tagged::split_tag(d, $tag, Self::KINDS)?;
                $(if kind == $name {
                    return $crate::config::tagged::variant(rest).map($ty::$variant);
                })+
                unreachable!("split_tag accepts only the listed names")
            }
        }
    };
}
pub(crate) use tagged_enum;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_paths() {
        let msg = format!("{PATH_MARK}pairs{PATH_MARK}invalid type");
        assert_eq!(
            join_path("topology", &msg),
            ("topology.pairs".into(), "invalid type".into())
        );
        assert_eq!(join_path(".", "plain"), (String::new(), "plain".into()));
    }
}
