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

/// The rate units, bits before bytes: an SI prefix (none, k, M, G, T), `b` for bits or `B`
/// for bytes, then `ps` or `/s`.
const RATE_PREFIXES: [(&str, f64); 5] =
    [("", 1.0), ("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12)];
const RATE_SIZES: [(char, f64); 2] = [('b', 1.0), ('B', 8.0)];
const RATE_UNITS: &str =
    "use bps, kbps, Mbps, Gbps or Tbps for bits/s, or Bps, kBps, MBps, GBps or TBps for \
     bytes/s (\"/s\" may replace \"ps\"; K is also kilo)";

/// Bits per second in one unit of a rate, or None. Case matters: "MBps" is megabytes and
/// "mbps" would be millibits, so the second is not read as the first.
fn rate_unit(unit: &str) -> Option<f64> {
    let per_second = unit
        .strip_suffix("ps")
        .or_else(|| unit.strip_suffix("/s"))?;
    let mut chars = per_second.chars();
    let size = chars.next_back()?;
    let prefix = match chars.as_str() {
        "K" => "k",
        p => p,
    };
    let (_, bits) = RATE_SIZES.iter().find(|(c, _)| *c == size)?;
    let (_, scale) = RATE_PREFIXES.iter().find(|(p, _)| *p == prefix)?;
    Some(bits * scale)
}

/// The accepted unit the user probably meant (the same letters in another case, or with
/// "bps" or "ps" left off: "10mbps", "10M", "10Mb"), with why theirs was not read.
fn rate_unit_hint(unit: &str) -> Option<String> {
    let tries = [
        unit.replace("/s", "ps"),
        format!("{unit}ps"),
        format!("{unit}bps"),
    ];
    // Of the units equal but for case, the one with the most letters in the same case.
    let same_case = |a: &str, b: &str| a.chars().zip(b.chars()).filter(|(x, y)| x == y).count();
    let (meant, _) = RATE_PREFIXES
        .iter()
        .flat_map(|(p, _)| RATE_SIZES.iter().map(move |(c, _)| format!("{p}{c}ps")))
        .filter_map(|c| {
            let n = tries
                .iter()
                .find(|t| t.eq_ignore_ascii_case(&c))
                .map(|t| same_case(t, &c))?;
            Some((c, n))
        })
        .rev() // max_by_key keeps the last maximum: reversed, bits come before bytes
        .max_by_key(|(_, n)| *n)?;
    let why = if tries.contains(&meant) {
        "a rate unit says bits (b) or bytes (B) per second"
    } else {
        "units are case-sensitive: M is mega, m would be milli; b is bits, B is bytes"
    };
    Some(format!(" (did you mean {meant:?}? {why})"))
}

impl Rate {
    /// Parses a number of bits/s with an optional unit: "10Mbps", "1.5 Mb/s", "500kbps",
    /// "1Gbps", "64000bps", "10MBps" (megabytes: 80 Mb/s) or "64000".
    pub fn parse(s: &str) -> Result<Rate, String> {
        let (v, unit) = split_number(s).ok_or_else(|| format!("{s:?} is not a rate"))?;
        if unit.is_empty() {
            return Ok(Rate(v));
        }
        match rate_unit(unit) {
            Some(mult) => Ok(Rate(v * mult)),
            None => {
                let hint = rate_unit_hint(unit).unwrap_or_default();
                Err(format!(
                    "{s:?} has an unknown rate unit {unit:?}{hint}; {RATE_UNITS}"
                ))
            }
        }
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
    fn rate_units_are_case_correct() {
        let bps = |s: &str| Rate::parse(s).unwrap().0;
        assert_eq!(bps("10MBps"), 80e6);
        assert_eq!(bps("10 MB/s"), 80e6);
        assert_eq!(bps("1kBps"), 8e3);
        assert_eq!(bps("1KBps"), 8e3);
        assert_eq!(bps("5 Kbps"), 5e3);
        assert_eq!(bps("2Tbps"), 2e12);
        assert_eq!(bps("100Bps"), 800.0);
        assert_eq!(bps("100b/s"), 100.0);
        for (bad, meant, why) in [
            ("10mbps", "Mbps", "case-sensitive"),
            ("10MBPS", "MBps", "case-sensitive"),
            ("10gbps", "Gbps", "case-sensitive"),
            ("10mBps", "MBps", "case-sensitive"),
            ("3 mb/s", "Mbps", "case-sensitive"),
            ("10m", "Mbps", "case-sensitive"),
            ("10M", "Mbps", "bits (b) or bytes (B) per second"),
            ("10Mb", "Mbps", "bits (b) or bytes (B) per second"),
            ("10KB", "kBps", "case-sensitive"),
        ] {
            let e = Rate::parse(bad).unwrap_err();
            assert!(
                e.contains(&format!("did you mean {meant:?}? ")),
                "{bad}: {e}"
            );
            assert!(e.contains(why), "{bad}: {e}");
        }
        for bad in [
            "10 Mibps", "10µbps", "10 bits", "10Mbit/s", "10 ps", "10 /s", "1e3e",
        ] {
            let e = Rate::parse(bad).unwrap_err();
            assert!(
                e.contains("use bps, kbps, Mbps") || e.contains("not a rate"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn parses_durations() {
        assert!((Seconds::parse("23ms").unwrap().0 - 0.023).abs() < 1e-15);
        assert_eq!(Seconds::parse("2min").unwrap().0, 120.0);
        assert_eq!(Seconds::parse("1.5").unwrap().0, 1.5);
        assert!(Seconds::parse("3 fortnights").is_err());
    }
}
