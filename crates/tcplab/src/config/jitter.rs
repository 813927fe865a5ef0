//! Link jitter: a random extra delay per transmission (net/jitter.rs), tagged by `kind`.
//!
//! `jitter = { kind = "uniform", max = "0.3ms" }`,
//! `jitter = { kind = "exponential", mean = "0.1ms", max = "1ms" }` or
//! `jitter = { kind = "normal", mean = "0.2ms", std = "0.05ms", max = "0.5ms" }`.
//! Every distribution lies on [0, max]; the exponential and normal ones are truncated
//! there (drawn from the distribution conditioned on the interval, not clamped).

use super::tagged::tagged_enum;
use super::units::Seconds;
use super::ConfigError;
use serde::{Deserialize, Serialize};

/// The largest jitter bound, seconds (as the largest propagation delay).
const MAX_JITTER: f64 = 100.0;

/// A link direction's extra delay distribution.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JitterSpec {
    /// Uniform on [0, max].
    Uniform(UniformJitter),
    /// Exponential with mean `mean`, truncated to [0, max].
    Exponential(ExponentialJitter),
    /// Normal with mean `mean` and standard deviation `std`, truncated to [0, max].
    Normal(NormalJitter),
}

tagged_enum!(JitterSpec, "kind", {
    "uniform" => Uniform,
    "exponential" => Exponential,
    "normal" => Normal,
});

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UniformJitter {
    pub max: Seconds,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExponentialJitter {
    pub mean: Seconds,
    pub max: Seconds,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NormalJitter {
    pub mean: Seconds,
    pub std: Seconds,
    pub max: Seconds,
}

impl JitterSpec {
    /// The upper bound of the extra delay, seconds.
    pub fn max(&self) -> Seconds {
        match self {
            JitterSpec::Uniform(u) => u.max,
            JitterSpec::Exponential(e) => e.max,
            JitterSpec::Normal(n) => n.max,
        }
    }
}

fn check(
    field: &str,
    name: &str,
    v: Seconds,
    lo: f64,
    hi: f64,
    what: &str,
) -> Result<(), ConfigError> {
    if v.0.is_finite() && v.0 >= lo && v.0 <= hi {
        Ok(())
    } else {
        Err(ConfigError::new(
            format!("{field}.{name}"),
            format!("{} s is not allowed; {what}", v.0),
        ))
    }
}

/// Ranges of a jitter spec at `field` (`topology.bottleneck.jitter`).
pub fn validate_jitter(field: &str, j: &JitterSpec) -> Result<(), ConfigError> {
    let max = j.max();
    check(
        field,
        "max",
        max,
        0.0,
        MAX_JITTER,
        "the largest extra delay must be between 0 and 100 s",
    )?;
    match j {
        JitterSpec::Uniform(_) => Ok(()),
        JitterSpec::Exponential(e) => check(
            field,
            "mean",
            e.mean,
            f64::MIN_POSITIVE,
            MAX_JITTER,
            "the mean must be positive (up to 100 s)",
        ),
        JitterSpec::Normal(n) => {
            check(
                field,
                "mean",
                n.mean,
                0.0,
                max.0,
                &format!("the mean must be between 0 and max ({} s)", max.0),
            )?;
            // Truncation resamples draws outside [0, max]; with std up to max at least a
            // third of them fall inside, so a draw takes a few tries at most on average.
            check(
                field,
                "std",
                n.std,
                f64::MIN_POSITIVE,
                max.0,
                &format!(
                    "the standard deviation must be positive and at most max ({} s); \
                     for a wider spread use kind = \"uniform\"",
                    max.0
                ),
            )
        }
    }
}
