//! Per-algorithm parameters, parsed from the scenario's `cc` table ([`CcSpec`]).

pub use crate::config::CcSpec;
use crate::config::ConfigError;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A parameter struct an algorithm accepts, as its documentation shows it: the struct's
/// name, its keys in order and their defaults for that algorithm (see `catalog`).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamStruct {
    pub name: &'static str,
    pub keys: Vec<&'static str>,
    pub defaults: toml::Table,
}

/// Describes one parameter struct of an algorithm: a function, so that the registry of
/// algorithms can be a constant.
pub type DescribeParams = fn() -> ParamStruct;

impl ParamStruct {
    /// `T`'s keys with the defaults of its `Default`.
    pub fn of<T: DeserializeOwned + Serialize + Default>() -> ParamStruct {
        let defaults = toml::Table::try_from(T::default()).expect("parameter defaults are a table");
        Self::resolved::<T>(defaults)
    }

    /// `T`'s keys with defaults an algorithm resolves itself (a Vegas family member's).
    pub fn resolved<T: DeserializeOwned>(defaults: toml::Table) -> ParamStruct {
        let full = std::any::type_name::<T>();
        ParamStruct {
            name: full.rsplit("::").next().unwrap_or(full),
            keys: crate::config::keys::names::<T>(),
            defaults,
        }
    }
}

/// Parses an algorithm's parameters into its options struct, naming the offending field
/// (`flows[0].cc.alpha`) on an unknown key or a wrong type. Options structs use
/// `#[serde(default, deny_unknown_fields)]` so every parameter is optional.
pub fn parse_params<T: DeserializeOwned + Serialize>(
    spec: &CcSpec,
    field: &str,
) -> Result<T, ConfigError> {
    let value = toml::Value::Table(spec.params.clone());
    let parsed: T = serde_path_to_error::deserialize(value.clone()).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let at = if path == "." {
            field.to_string()
        } else {
            format!("{field}.{path}")
        };
        ConfigError::new(
            at,
            format!("{} (parameters of {:?})", inner.message(), spec.name),
        )
    })?;
    // serde fills a struct from an array by position: refuse that as the scenario does.
    if let Ok(canonical) = toml::Value::try_from(&parsed) {
        crate::config::shape::tables_not_arrays(&value, &canonical)
            .map_err(|e| ConfigError::new(format!("{field}.{}", e.field), e.message.clone()))?;
    }
    Ok(parsed)
}

/// Checks a parameter against a range, for algorithms' `validate` functions.
pub fn check_range(
    field: &str,
    name: &str,
    value: f64,
    lo: f64,
    hi: f64,
) -> Result<(), ConfigError> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else {
        Err(ConfigError::new(
            format!("{field}.{name}"),
            format!("{value} is out of range; allowed: {lo} to {hi}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Default, Deserialize, Serialize)]
    #[serde(default, deny_unknown_fields)]
    struct Inner {
        a: u32,
        b: u32,
    }

    #[derive(Debug, Default, Deserialize, Serialize)]
    #[serde(default, deny_unknown_fields)]
    struct Outer {
        inner: Inner,
    }

    /// serde would fill `inner` from `[1, 2]` by position; parameters are named.
    #[test]
    fn a_table_given_as_an_array_is_refused() {
        let mut spec = CcSpec::named("x");
        spec.params
            .insert("inner".into(), toml::Value::Array(vec![1.into(), 2.into()]));
        let e = parse_params::<Outer>(&spec, "flows[0].cc").unwrap_err();
        assert_eq!(e.field, "flows[0].cc.inner");
        assert!(e.message.contains("not an array"), "{}", e.message);
        let mut spec = CcSpec::named("x");
        let mut t = toml::Table::new();
        t.insert("a".into(), 1.into());
        spec.params.insert("inner".into(), toml::Value::Table(t));
        assert_eq!(parse_params::<Outer>(&spec, "f").unwrap().inner.a, 1);
    }
}
