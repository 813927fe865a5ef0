//! The `cc` key of a flow: an algorithm's name and its parameter table, which the
//! algorithm itself parses (cc/params.rs).

use serde::{Deserialize, Serialize};

/// An algorithm's name and its parameter table, as written in a scenario:
/// `cc = "vegas"` or `cc = { name = "vegas", alpha = 2, beta = 4 }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CcSpec {
    pub name: String,
    #[serde(flatten)]
    pub params: toml::Table,
}

impl CcSpec {
    pub fn named(name: &str) -> Self {
        CcSpec {
            name: name.to_string(),
            params: toml::Table::new(),
        }
    }
}

impl<'de> Deserialize<'de> for CcSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Name(String),
            Table(toml::Table),
        }
        match Raw::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "expected an algorithm name or a table { name = \"...\", <parameters> }",
            )
        })? {
            Raw::Name(name) => Ok(CcSpec::named(&name)),
            Raw::Table(mut t) => match t.remove("name") {
                Some(toml::Value::String(name)) => Ok(CcSpec { name, params: t }),
                Some(_) => Err(serde::de::Error::custom("`name` must be a string")),
                None => Err(serde::de::Error::custom(
                    "missing `name` of the congestion control",
                )),
            },
        }
    }
}
