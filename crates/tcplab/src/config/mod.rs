//! Scenario documents: the TOML schema, parsing with field paths, and validation.
//!
//! A document has four parts: `[simulation]` (duration, seed, what to record),
//! `[topology]` (a preset or a list of nodes and links), `[tcp]` (defaults for every
//! flow) and `[[flows]]`. See `docs/scenario.md` for the full reference.

mod cc_spec;
mod error;
pub mod flows;
pub mod jitter;
pub mod keys;
pub mod queues;
pub mod schema;
pub(crate) mod shape;
pub(crate) mod tagged;
pub mod traces;
mod traffic;
mod unique;
pub mod units;
mod validate;
pub mod wlan;

pub use cc_spec::CcSpec;
pub use error::{name_list, ConfigError};
pub use flows::*;
pub use jitter::{DelaySpec, JitterSpec};
pub use queues::*;
pub use schema::*;
pub use traces::{PcapResolution, PcapSpec, TapPoint};
pub use units::{Rate, Seconds};
pub use wlan::{ApAccess, MacSpec, RadioSpec, WlanSpec};

/// Parses and validates a TOML scenario document.
pub fn parse_scenario(text: &str) -> Result<Scenario, ConfigError> {
    read_scenario(text).map_err(ConfigError::in_plain_words)
}

fn read_scenario(text: &str) -> Result<Scenario, ConfigError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        ConfigError::new(
            "",
            format!("not valid TOML: {}", e.message())
                .trim_end()
                .to_string()
                + &line_hint(text, e.span()),
        )
    })?;
    let input = toml::Value::Table(table);
    let scenario: Scenario = serde_path_to_error::deserialize(input.clone()).map_err(|e| {
        let outer = e.path().to_string();
        let (field, message) = tagged::join_path(&outer, e.inner().message());
        ConfigError::new(field, message)
    })?;
    if let Ok(canonical) = toml::Value::try_from(&scenario) {
        shape::tables_not_arrays(&input, &canonical)?;
    }
    validate::validate(&scenario)?;
    Ok(scenario)
}

fn line_hint(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    match span {
        Some(r) => {
            let line = text[..r.start.min(text.len())].matches('\n').count() + 1;
            format!(" (line {line})")
        }
        None => String::new(),
    }
}

impl Scenario {
    /// The scenario as a canonical TOML document (every default written out).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }
}
