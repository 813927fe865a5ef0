//! Link jitter: a random extra delay per transmission (net/jitter.rs), tagged by `kind`.
//!
//! `jitter = { kind = "uniform", max = "0.3ms" }`,
//! `jitter = { kind = "exponential", mean = "0.1ms", max = "1ms" }` or
//! `jitter = { kind = "normal", mean = "0.2ms", std = "0.05ms", max = "0.5ms" }` or
//! `jitter = { kind = "empirical", quantiles = ["0us", "0.1ms", "0.2ms", "1.5ms"] }`.
//! Every distribution lies on [0, max]; the exponential and normal ones are truncated
//! there (drawn from the distribution conditioned on the interval, not clamped). The
//! empirical one is a measured distribution (a test bed's delay element, a trace) given by
//! its quantiles at equally spaced probabilities, so its tail is kept as measured.

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
    /// A measured distribution: its quantiles at probabilities 0, 1/(n-1), ..., 1.
    Empirical(EmpiricalJitter),
}

tagged_enum!(JitterSpec, "kind", {
    "uniform" => Uniform,
    "exponential" => Exponential,
    "normal" => Normal,
    "empirical" => Empirical,
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

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EmpiricalJitter {
    /// Non-decreasing; the first is the smallest extra delay, the last the largest.
    pub quantiles: Vec<Seconds>,
}

/// The most quantiles an empirical distribution may list (a percentile table has 101).
const MAX_QUANTILES: usize = 10_001;

impl JitterSpec {
    /// The upper bound of the extra delay, seconds.
    pub fn max(&self) -> Seconds {
        match self {
            JitterSpec::Uniform(u) => u.max,
            JitterSpec::Exponential(e) => e.max,
            JitterSpec::Normal(n) => n.max,
            JitterSpec::Empirical(e) => e.quantiles.last().copied().unwrap_or(Seconds(0.0)),
        }
    }
}

fn validate_quantiles(field: &str, q: &[Seconds]) -> Result<(), ConfigError> {
    if !(2..=MAX_QUANTILES).contains(&q.len()) {
        return Err(ConfigError::new(
            format!("{field}.quantiles"),
            format!(
                "{} values are not allowed; list 2 to {MAX_QUANTILES} quantiles at equally \
                 spaced probabilities (the first at 0, the last at 1)",
                q.len()
            ),
        ));
    }
    for (i, v) in q.iter().enumerate() {
        check(
            field,
            &format!("quantiles[{i}]"),
            *v,
            0.0,
            MAX_JITTER,
            "each quantile must be between 0 and 100 s",
        )?;
        if i > 0 && v.0 < q[i - 1].0 {
            return Err(ConfigError::new(
                format!("{field}.quantiles[{i}]"),
                format!(
                    "{} s is below the quantile before it ({} s); quantiles must not decrease",
                    v.0,
                    q[i - 1].0
                ),
            ));
        }
    }
    Ok(())
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
    if let JitterSpec::Empirical(e) = j {
        return validate_quantiles(field, &e.quantiles);
    }
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
        JitterSpec::Uniform(_) | JitterSpec::Empirical(_) => Ok(()),
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

/// A delay either fixed (`"75us"`, a number of seconds) or drawn anew for each use from
/// one of the jitter distributions (`{ kind = "empirical", quantiles = [...] }`): a host's
/// reaction time, which varies from one packet to the next (`[tcp] ack_latency`).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum DelaySpec {
    Fixed(Seconds),
    Drawn(JitterSpec),
}

impl<'de> Deserialize<'de> for DelaySpec {
    /// A table is a distribution (its errors keep their paths), anything else a time.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = toml::Value::deserialize(d)?;
        if value.is_table() {
            JitterSpec::deserialize(value)
                .map(DelaySpec::Drawn)
                .map_err(|e| D::Error::custom(e.message()))
        } else {
            Seconds::deserialize(value)
                .map(DelaySpec::Fixed)
                .map_err(|e| D::Error::custom(e.message()))
        }
    }
}

impl DelaySpec {
    /// The longest delay it gives, seconds.
    pub fn max(&self) -> Seconds {
        match self {
            DelaySpec::Fixed(s) => *s,
            DelaySpec::Drawn(j) => j.max(),
        }
    }
}

/// Ranges of a delay at `field`: a fixed one, or a distribution's, within [0, `most`] s.
pub fn validate_delay(field: &str, d: &DelaySpec, most: f64) -> Result<(), ConfigError> {
    if let DelaySpec::Drawn(j) = d {
        validate_jitter(field, j)?;
    }
    let max = d.max();
    if max.0.is_finite() && (0.0..=most).contains(&max.0) {
        Ok(())
    } else {
        let what = match d {
            DelaySpec::Fixed(_) => "",
            DelaySpec::Drawn(_) => "its largest value ",
        };
        Err(ConfigError::new(
            field.to_string(),
            format!(
                "{what}{} s is not allowed; it must be between 0 and {most} s",
                max.0
            ),
        ))
    }
}
