//! Quantities with units, written as numbers (SI base units) or strings ("10Mbps", "23ms").

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A link rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Rate(pub f64);

/// A duration or instant in seconds.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Default)]
pub struct Seconds(pub f64);

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| {
            !(c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == 'E' || *c == '-' || *c == '+')
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "1e" followed by a unit letter: back off so "5e" is not read as an exponent.
    let (num, unit) = s.split_at(end);
    num.parse::<f64>().ok().map(|v| (v, unit.trim()))
}

impl Rate {
    /// Parses "10Mbps", "1.5 Mb/s", "500kbps", "1Gbps", "64000bps" or "64000".
    pub fn parse(s: &str) -> Result<Rate, String> {
        let (v, unit) = split_number(s).ok_or_else(|| format!("{s:?} is not a rate"))?;
        let unit = unit.to_ascii_lowercase().replace("/s", "ps");
        let mult = match unit.as_str() {
            "" | "bps" | "b" => 1.0,
            "kbps" | "kb" | "k" => 1e3,
            "mbps" | "mb" | "m" => 1e6,
            "gbps" | "gb" | "g" => 1e9,
            _ => {
                return Err(format!(
                    "{s:?} has an unknown rate unit; use bps, kbps, Mbps or Gbps"
                ))
            }
        };
        Ok(Rate(v * mult))
    }

    pub fn bps(self) -> f64 {
        self.0
    }
}

impl Seconds {
    /// Parses "23ms", "1.5s", "100us", "250ns", "2min" or a plain number of seconds.
    pub fn parse(s: &str) -> Result<Seconds, String> {
        let (v, unit) = split_number(s).ok_or_else(|| format!("{s:?} is not a duration"))?;
        let mult = match unit {
            "" | "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            "min" => 60.0,
            _ => {
                return Err(format!(
                    "{s:?} has an unknown time unit; use s, ms, us, ns or min"
                ))
            }
        };
        Ok(Seconds(v * mult))
    }

    pub fn secs(self) -> f64 {
        self.0
    }
}

/// Accepts a number or a string with a unit.
#[derive(Deserialize)]
#[serde(untagged)]
enum NumOrStr {
    Int(i64),
    Float(f64),
    Str(String),
}

/// A missing required field keeps serde's "missing field `name`" message (which names the
/// key); any other error says what a quantity looks like.
fn keep_missing<E: serde::de::Error>(e: E, expected: &str) -> E {
    if e.to_string().starts_with("missing field") {
        e
    } else {
        E::custom(expected)
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrStr::deserialize(d).map_err(|e| {
            keep_missing(
                e,
                "expected a rate: bits/s as a number, or a string like \"10Mbps\"",
            )
        })? {
            NumOrStr::Int(v) => Ok(Rate(v as f64)),
            NumOrStr::Float(v) => Ok(Rate(v)),
            NumOrStr::Str(s) => Rate::parse(&s).map_err(serde::de::Error::custom),
        }
    }
}

impl<'de> Deserialize<'de> for Seconds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match NumOrStr::deserialize(d).map_err(|e| {
            keep_missing(
                e,
                "expected a time: seconds as a number, or a string like \"23ms\"",
            )
        })? {
            NumOrStr::Int(v) => Ok(Seconds(v as f64)),
            NumOrStr::Float(v) => Ok(Seconds(v)),
            NumOrStr::Str(s) => Seconds::parse(&s).map_err(serde::de::Error::custom),
        }
    }
}

impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} b/s", self.0)
    }
}

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} s", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rates() {
        assert_eq!(Rate::parse("10Mbps").unwrap().0, 10e6);
        assert_eq!(Rate::parse("1.5 Mb/s").unwrap().0, 1.5e6);
        assert_eq!(Rate::parse("500kbps").unwrap().0, 500e3);
        assert_eq!(Rate::parse("64000").unwrap().0, 64000.0);
        assert!(Rate::parse("10 furlongs").is_err());
        assert!(Rate::parse("fast").is_err());
    }

    #[test]
    fn parses_durations() {
        assert!((Seconds::parse("23ms").unwrap().0 - 0.023).abs() < 1e-15);
        assert_eq!(Seconds::parse("2min").unwrap().0, 120.0);
        assert_eq!(Seconds::parse("1.5").unwrap().0, 1.5);
        assert!(Seconds::parse("3 fortnights").is_err());
    }
}
