//! The one table of the algorithms the engine knows, read by everything that needs them:
//! building a flow's algorithm (and so validating a scenario), the names the CLI lists
//! and error messages offer, and the parameter tables of the documentation (`catalog`).
//!
//! Each algorithm describes itself in its own file (an [`Algorithm`] constant: its name,
//! how it is built from its spec, its parameter structs and its source for their doc
//! comments), so adding one touches its file, its `pub mod` line and one line here.

use super::params::{CcSpec, DescribeParams};
use super::{
    ack_loss, areno, bbr, code, ctcp, cubic, fast, highspeed, newvegas, reno, scalable, vegas,
    vegas_a, vegas_plus, veno, CongestionControl,
};
use crate::config::ConfigError;

/// Builds an algorithm from its spec; `field` is the document path used in errors.
pub type Build = fn(&CcSpec, &str) -> Result<Box<dyn CongestionControl>, ConfigError>;

/// An algorithm as the registry knows it.
pub struct Algorithm {
    /// Its name in scenarios (`cc = "vegas"`).
    pub name: &'static str,
    pub build: Build,
    /// Its parameter structs, for the documentation.
    pub params: &'static [DescribeParams],
    /// Its source file, whose doc comments describe its parameters.
    pub source: &'static str,
}

/// Every algorithm, in the order help texts and the documentation list them.
pub const ALGORITHMS: &[Algorithm] = &[
    reno::RENO,
    reno::NEWRENO,
    reno::TAHOE,
    fast::ALGORITHM,
    ctcp::ALGORITHM,
    areno::ALGORITHM,
    highspeed::ALGORITHM,
    scalable::ALGORITHM,
    cubic::ALGORITHM,
    vegas::ALGORITHM,
    vegas_a::ALGORITHM,
    newvegas::ALGORITHM,
    code::ALGORITHM,
    vegas_plus::ALGORITHM,
    veno::ALGORITHM,
    bbr::ALGORITHM,
];

/// The names of every algorithm, in registry order.
pub fn names() -> Vec<&'static str> {
    ALGORITHMS.iter().map(|a| a.name).collect()
}

/// The algorithm of a name, if the registry has it.
pub fn find(name: &str) -> Option<&'static Algorithm> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

/// Builds the algorithm a scenario names. `field` is the document path used in errors.
/// An `ack_loss_reaction` key wraps any algorithm in [`ack_loss::AckLossReaction`].
pub fn build(spec: &CcSpec, field: &str) -> Result<Box<dyn CongestionControl>, ConfigError> {
    if spec.params.contains_key(ack_loss::KEY) {
        return ack_loss::AckLossReaction::from_spec(spec, field, build);
    }
    match find(&spec.name) {
        Some(algorithm) => (algorithm.build)(spec, field),
        None => Err(ConfigError::new(
            format!("{field}.name"),
            format!(
                "unknown congestion control {:?}; known: {}",
                spec.name,
                names().join(", ")
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every algorithm builds from its name alone and calls itself by that name, and no
    /// name is registered twice.
    #[test]
    fn each_algorithm_builds_under_its_name() {
        for a in ALGORITHMS {
            let cc = build(&CcSpec::named(a.name), "cc").unwrap();
            assert_eq!(cc.name(), a.name);
            assert_eq!(ALGORITHMS.iter().filter(|b| b.name == a.name).count(), 1);
            assert!(!a.params.is_empty(), "{}: describe its parameters", a.name);
        }
    }

    #[test]
    fn an_unknown_name_is_refused_with_the_known_ones() {
        let e = build(&CcSpec::named("westwood"), "flows[0].cc")
            .err()
            .unwrap();
        assert_eq!(e.field, "flows[0].cc.name");
        assert!(e.message.contains("\"westwood\"") && e.message.contains("vegas_plus, veno, bbr"));
    }
}
