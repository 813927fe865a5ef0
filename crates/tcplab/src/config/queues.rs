//! Parameters of the router queues (`queue = { kind = "...", ... }` on a link), their
//! documented defaults, and their validation. Each table is the one type of its queue's
//! parameters: the disciplines in `queue/` keep and read it as they are built with it.
//!
//! Thresholds are in packets. Every parameter is optional; the defaults are the papers':
//! RED takes NS-2's defaults as used by 002 (thresh 5, maxthresh 15, q_weight 0.002,
//! linterm 10), ZL-RED those of 003 section 6.2, SRED those of its paper.

use super::ConfigError;
use serde::{Deserialize, Serialize};

type Check = Result<(), ConfigError>;

fn range(field: &str, name: &str, v: f64, lo: f64, hi: f64, what: &str) -> Check {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ConfigError::new(
            format!("{field}.{name}"),
            format!("{v} is not allowed; {what}"),
        ))
    }
}

fn probability(field: &str, name: &str, v: f64) -> Check {
    range(
        field,
        name,
        v,
        0.0,
        1.0,
        "a probability must be between 0 and 1",
    )
}

fn weight(field: &str, name: &str, v: f64) -> Check {
    if v.is_finite() && v > 0.0 && v <= 1.0 {
        Ok(())
    } else {
        Err(ConfigError::new(
            format!("{field}.{name}"),
            format!("{v} is not allowed; an averaging weight must be in (0, 1]"),
        ))
    }
}

fn thresholds(field: &str, min_th: f64, max_th: Option<f64>) -> Check {
    range(
        field,
        "min_th",
        min_th,
        0.0,
        1e9,
        "a threshold is a number of packets, 0 or more",
    )?;
    if let Some(max_th) = max_th {
        if !(max_th.is_finite() && max_th > min_th) {
            return Err(ConfigError::new(
                format!("{field}.max_th"),
                format!("{max_th} is not allowed; max_th must be above min_th ({min_th})"),
            ));
        }
    }
    Ok(())
}

fn packet_size(field: &str, name: &str, v: u32) -> Check {
    range(
        field,
        name,
        v as f64,
        1.0,
        65_535.0,
        "a packet size must be 1 to 65535 bytes",
    )
}

/// How RED measures the queue (Floyd & Jacobson 1993 section 4, "byte mode").
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RedMode {
    /// The queue is counted in packets and every packet has the same drop probability
    /// (NS-2's default).
    #[default]
    Packets,
    /// The queue is counted in bytes, in units of `mean_packet_size` (so thresholds keep
    /// their meaning in packets of that size, as NS-2's queue-in-bytes), and a packet's
    /// drop probability is scaled by `size / max_packet_size`.
    Bytes,
}

/// Standard RED (Floyd & Jacobson 1993), `kind = "red"`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RedSpec {
    /// Average queue (packets) where early drops begin (default 5, NS-2 `thresh_`).
    pub min_th: f64,
    /// Average queue where `p_b` reaches `max_p` (default 15, NS-2 `maxthresh_`).
    pub max_th: f64,
    /// Drop probability at `max_th` (default 0.1 = 1 / NS-2 `linterm_` 10).
    pub max_p: f64,
    /// EWMA weight of the average queue (default 0.002, NS-2 `q_weight_`).
    pub w_q: f64,
    /// Ramp from `max_p` to 1 between `max_th` and `2 max_th` (default off, as the 1993
    /// paper and NS-2's `gentle_ false`).
    pub gentle: bool,
    /// NS-2's `wait_` spacing of drops (default off: the paper's `p_b / (1 - count p_b)`).
    pub wait: bool,
    /// packets (default) or bytes.
    pub mode: RedMode,
    /// Typical packet size, bytes: sets the idle-time correction and the byte-mode unit
    /// (default 500, NS-2 `mean_pktsize_`).
    pub mean_packet_size: u32,
    /// Byte mode's reference packet size, bytes (default 1500).
    pub max_packet_size: u32,
}

impl Default for RedSpec {
    fn default() -> Self {
        RedSpec {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: false,
            wait: false,
            mode: RedMode::Packets,
            mean_packet_size: 500,
            max_packet_size: 1500,
        }
    }
}

/// The constant-probability RED of 003's analysis (section 4.1.2), `kind = "red_const"`:
/// drop each arrival with probability `p` whenever RED's average queue is at or above
/// `min_th`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RedConstSpec {
    /// The drop probability (required; 003 uses 1/30 and 1/10).
    pub p: f64,
    /// Average queue (packets) from which arrivals are dropped (default 5).
    #[serde(default = "default_min_th")]
    pub min_th: f64,
    /// Optional: drop every arrival once the average reaches it (default: no such
    /// threshold; only a full buffer drops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_th: Option<f64>,
    /// EWMA weight of the average queue (default 0.002).
    #[serde(default = "default_w_q")]
    pub w_q: f64,
    /// Typical packet size for the idle-time correction (default 500 bytes).
    #[serde(default = "default_mean_packet_size")]
    pub mean_packet_size: u32,
}

fn default_min_th() -> f64 {
    5.0
}
fn default_w_q() -> f64 {
    0.002
}
fn default_mean_packet_size() -> u32 {
    500
}

/// SRED's drop function.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SredVariant {
    /// "Simple SRED": `p_zap = p_sred(q) * min(1, 1/(256 P(t))^2)`.
    Simple,
    /// "Full SRED" (default): simple SRED times `(1 + Hit(t)/P(t))`, so flows that hit
    /// often (misbehaving ones) lose more.
    #[default]
    Full,
}

/// SRED (Ott, Lakshman & Wong 1999), `kind = "sred"`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SredSpec {
    /// Zombie-list size M (default 1000).
    pub zombies: u32,
    /// Probability that a zombie is overwritten on a miss (default 0.25).
    pub replace_p: f64,
    /// Gain of the hit-frequency EWMA (default `replace_p / zombies`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// SRED's p_max (default 0.15).
    pub p_max: f64,
    /// full (default) or simple.
    pub variant: SredVariant,
}

impl Default for SredSpec {
    fn default() -> Self {
        SredSpec {
            zombies: 1000,
            replace_p: 0.25,
            alpha: None,
            p_max: 0.15,
            variant: SredVariant::Full,
        }
    }
}

/// ZL-RED (003 section 6), `kind = "zl_red"`. Defaults are section 6.2's, with
/// `hit_drop = 0.8` (fig. 13; fig. 11 uses 0, the first step alone).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ZlRedSpec {
    /// Zombie-list size (default 1000).
    pub zombies: u32,
    /// Zombie replacement probability on a miss (default 0.25, SRED's).
    pub replace_p: f64,
    /// Gain of the hit-frequency EWMA (default `replace_p / zombies`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Eq. (25) (default 1/50).
    pub p_min: f64,
    /// Eq. (25) (default 1/10).
    pub p_max: f64,
    /// Eq. (25), instantaneous queue in packets (default 5).
    pub min_th: f64,
    /// Eq. (25) (default 0.6 times the link's buffer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_th: Option<f64>,
    /// Eq. (28) (default 0.8).
    pub hit_drop: f64,
}

impl Default for ZlRedSpec {
    fn default() -> Self {
        ZlRedSpec {
            zombies: 1000,
            replace_p: 0.25,
            alpha: None,
            p_min: 1.0 / 50.0,
            p_max: 1.0 / 10.0,
            min_th: 5.0,
            max_th: None,
            hit_drop: 0.8,
        }
    }
}

impl ZlRedSpec {
    /// `max_th` for a buffer of `buffer` packets.
    pub fn max_th_for(&self, buffer: u32) -> f64 {
        self.max_th.unwrap_or(0.6 * buffer as f64)
    }
}

/// The split access-point buffer of 004's ref. [13], `kind = "split"`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SplitSpec {
    /// Buffer for data packets (default: half the link's `buffer`, rounded up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<u32>,
    /// Buffer for ACK packets (default: half the link's `buffer`, rounded down, at least 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acks: Option<u32>,
}

impl SplitSpec {
    /// (data, ack) limits for a link buffer of `buffer` packets.
    pub fn limits(&self, buffer: u32) -> (u32, u32) {
        (
            self.data.unwrap_or(buffer.div_ceil(2)),
            self.acks.unwrap_or((buffer / 2).max(1)),
        )
    }
}

fn zombie_list(field: &str, zombies: u32, replace_p: f64, alpha: Option<f64>) -> Check {
    range(
        field,
        "zombies",
        zombies as f64,
        1.0,
        10_000_000.0,
        "the zombie list holds 1 to 10000000 entries",
    )?;
    probability(field, "replace_p", replace_p)?;
    if let Some(a) = alpha {
        weight(field, "alpha", a)?;
    }
    Ok(())
}

fn validate_red(field: &str, s: &RedSpec) -> Check {
    thresholds(field, s.min_th, Some(s.max_th))?;
    probability(field, "max_p", s.max_p)?;
    weight(field, "w_q", s.w_q)?;
    packet_size(field, "mean_packet_size", s.mean_packet_size)?;
    packet_size(field, "max_packet_size", s.max_packet_size)
}

fn validate_red_const(field: &str, s: &RedConstSpec) -> Check {
    probability(field, "p", s.p)?;
    thresholds(field, s.min_th, s.max_th)?;
    weight(field, "w_q", s.w_q)?;
    packet_size(field, "mean_packet_size", s.mean_packet_size)
}

fn validate_sred(field: &str, s: &SredSpec) -> Check {
    zombie_list(field, s.zombies, s.replace_p, s.alpha)?;
    probability(field, "p_max", s.p_max)
}

fn validate_zl_red(field: &str, s: &ZlRedSpec, buffer: u32) -> Check {
    zombie_list(field, s.zombies, s.replace_p, s.alpha)?;
    probability(field, "p_min", s.p_min)?;
    probability(field, "p_max", s.p_max)?;
    probability(field, "hit_drop", s.hit_drop)?;
    range(
        field,
        "min_th",
        s.min_th,
        0.0,
        1e9,
        "a threshold is a number of packets, 0 or more",
    )?;
    let max_th = s.max_th_for(buffer);
    if !(max_th.is_finite() && max_th > s.min_th) {
        return Err(ConfigError::new(
            format!("{field}.max_th"),
            format!(
                "{max_th} (default 0.6 x buffer {buffer}) is not above min_th ({}); set max_th or lower min_th",
                s.min_th
            ),
        ));
    }
    Ok(())
}

fn validate_split(field: &str, s: &SplitSpec) -> Check {
    for (name, v) in [("data", s.data), ("acks", s.acks)] {
        if v == Some(0) {
            return Err(ConfigError::new(
                format!("{field}.{name}"),
                "0 is not allowed; each part of the buffer holds at least 1 packet",
            ));
        }
    }
    Ok(())
}

/// Checks a link direction's queue; `buffer` is that direction's buffer in packets.
pub(super) fn validate_queue(field: &str, q: &super::QueueSpec, buffer: u32) -> Check {
    use super::QueueSpec;
    match q {
        QueueSpec::Droptail(_) | QueueSpec::RoundRobin(_) => Ok(()),
        QueueSpec::Red(s) => validate_red(field, s),
        QueueSpec::RedConst(s) => validate_red_const(field, s),
        QueueSpec::Sred(s) => validate_sred(field, s),
        QueueSpec::ZlRed(s) => validate_zl_red(field, s, buffer),
        QueueSpec::Split(s) => validate_split(field, s),
    }
}
