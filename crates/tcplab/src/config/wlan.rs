//! The `wlan` topology preset (004 fig. 1): stations `w0..` on an IEEE 802.11a BSS with
//! the access point `ap`, which reaches the wired host `h0` over one wired link.

use super::error::ConfigError;
use super::schema::{LinkSpec, QueueSpec};
use super::units::{Rate, Seconds};
use serde::{Deserialize, Serialize};

/// How the access point accesses the medium.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ApAccess {
    /// Like every station: DIFS, then backoff.
    #[default]
    Difs,
    /// PIFS instead of DIFS (004 section III-B, its ref. [12], Fukuda and Oie 2005).
    Pifs,
}

/// An infrastructure WLAN. Defaults are 004's set-up (section II-A, table I).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WlanSpec {
    /// Number of stations, named `w0`, `w1`, ...
    pub stations: u32,
    /// Distance of every station from the AP, metres (004: 4 m).
    #[serde(default = "default_distance")]
    pub distance: f64,
    /// Per-station distances, metres, overriding `distance` (one per station).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub distances: Vec<f64>,
    /// The AP's queue for every frame it sends (downlink data and uplink flows' ACKs),
    /// packets, excluding the frame in service (004: 100).
    #[serde(default = "default_ap_buffer")]
    pub ap_buffer: u32,
    /// Discipline of the AP's queue (any queue a link can have).
    #[serde(default)]
    pub ap_queue: QueueSpec,
    /// Each station's interface queue, packets (004: large enough not to limit).
    #[serde(default = "default_station_buffer")]
    pub station_buffer: u32,
    /// The link between the AP and `h0` (004: 100 Mb/s, 100 ms one way).
    #[serde(default = "default_wired")]
    pub wired: LinkSpec,
    #[serde(default)]
    pub ap_access: ApAccess,
    /// Whether the AP draws random backoffs. With `false` (and `ap_access = "pifs"`) the
    /// AP takes the medium PIFS after every busy period, a stronger reading of 004's
    /// ref. [12]; default true: 004 describes [12] as changing only the IFS.
    #[serde(default = "default_true")]
    pub ap_backoff: bool,
    /// RTS/CTS before every DATA frame (default basic access, as 004).
    #[serde(default)]
    pub rts_cts: bool,
    #[serde(default)]
    pub mac: MacSpec,
    #[serde(default)]
    pub radio: RadioSpec,
    /// Record the wireless delay of every acknowledged frame (large).
    #[serde(default)]
    pub frame_log: bool,
}

fn default_distance() -> f64 {
    4.0
}
fn default_ap_buffer() -> u32 {
    100
}
fn default_station_buffer() -> u32 {
    10_000
}
fn default_wired() -> LinkSpec {
    LinkSpec::new(100e6, 0.1, 1000)
}
fn default_true() -> bool {
    true
}

/// DCF and 802.11a PHY parameters (004 table I).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MacSpec {
    /// DATA rate, one of 6, 9, 12, 18, 24, 36, 48, 54 Mb/s (004: 54).
    pub rate: Rate,
    /// Rate of ACK, CTS and RTS frames (a basic rate; default 24 Mb/s, the highest
    /// mandatory rate not above 54, 802.11 9.6).
    pub basic_rate: Rate,
    pub slot: Seconds,
    pub sifs: Seconds,
    pub difs: Seconds,
    pub cw_min: u32,
    pub cw_max: u32,
    /// dot11ShortRetryLimit: attempts per frame (or per RTS) before it is dropped.
    pub retry_limit: u32,
    /// dot11LongRetryLimit: attempts of a DATA frame after RTS/CTS.
    pub long_retry_limit: u32,
    /// Time to sense a carrier (802.11a 17.3.10.5: 4 us).
    pub cca_time: Seconds,
    /// EIFS after an undecodable frame (802.11 9.2.3.4); false uses DIFS throughout.
    pub eifs: bool,
}

impl Default for MacSpec {
    fn default() -> Self {
        MacSpec {
            rate: Rate(54e6),
            basic_rate: Rate(24e6),
            slot: Seconds(9e-6),
            sifs: Seconds(16e-6),
            difs: Seconds(34e-6),
            cw_min: 15,
            cw_max: 1023,
            retry_limit: 7,
            long_retry_limit: 4,
            cca_time: Seconds(4e-6),
            eifs: true,
        }
    }
}

/// Propagation and reception (`topology.radio`, every key optional, defaults below): the
/// parameters the engine's radio (`wifi::propagation`) computes with.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RadioSpec {
    pub tx_power_dbm: f64,
    pub frequency_hz: f64,
    /// 2 is free space (Friis).
    pub path_loss_exponent: f64,
    /// A frame is decoded through overlap only if it is this many dB above the rest.
    pub capture_threshold_db: f64,
    /// Carrier sense (CCA) threshold: weaker frames neither busy the medium nor are decoded.
    pub cs_threshold_dbm: f64,
    pub noise_dbm: f64,
}

impl Default for RadioSpec {
    /// 100 mW at 5.2 GHz, free-space loss, NS-2's 10 dB capture threshold, the -82 dBm CCA
    /// sensitivity of 802.11a (17.3.10.5) and a -96 dBm noise floor (thermal noise in
    /// 20 MHz plus a 5 dB noise figure).
    fn default() -> Self {
        RadioSpec {
            tx_power_dbm: 20.0,
            frequency_hz: 5.2e9,
            path_loss_exponent: 2.0,
            capture_threshold_db: 10.0,
            cs_threshold_dbm: -82.0,
            noise_dbm: -96.0,
        }
    }
}

impl WlanSpec {
    /// Distance of station `i` from the AP, metres.
    pub fn distance_of(&self, i: usize) -> f64 {
        self.distances.get(i).copied().unwrap_or(self.distance)
    }
}

type Check = Result<(), ConfigError>;

fn in_range(field: &str, v: f64, lo: f64, hi: f64, what: &str) -> Check {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ConfigError::new(
            field,
            format!("{v} is not allowed; {what}"),
        ))
    }
}

/// Checks a `wlan` topology; `link` validates the wired link like any other.
pub(super) fn validate_wlan(w: &WlanSpec, link: impl Fn(&str, &LinkSpec) -> Check) -> Check {
    let f = "topology";
    in_range(
        &format!("{f}.stations"),
        w.stations as f64,
        1.0,
        1000.0,
        "a BSS has 1 to 1000 stations",
    )?;
    let dist = "a distance must be above 0 and at most 100000 m";
    if w.distance <= 0.0 || !w.distance.is_finite() {
        return Err(ConfigError::new(
            format!("{f}.distance"),
            format!("{} is not allowed; {dist}", w.distance),
        ));
    }
    in_range(&format!("{f}.distance"), w.distance, 0.0, 1e5, dist)?;
    if !w.distances.is_empty() && w.distances.len() != w.stations as usize {
        return Err(ConfigError::new(
            format!("{f}.distances"),
            format!(
                "{} entries for {} stations; give one per station or omit it",
                w.distances.len(),
                w.stations
            ),
        ));
    }
    for (i, &d) in w.distances.iter().enumerate() {
        let field = format!("{f}.distances[{i}]");
        if d <= 0.0 || !d.is_finite() {
            return Err(ConfigError::new(
                field,
                format!("{d} is not allowed; {dist}"),
            ));
        }
        in_range(&field, d, 0.0, 1e5, dist)?;
    }
    for (name, v) in [
        ("ap_buffer", w.ap_buffer),
        ("station_buffer", w.station_buffer),
    ] {
        if v == 0 {
            return Err(ConfigError::new(
                format!("{f}.{name}"),
                "0 is not allowed; a queue holds at least 1 packet",
            ));
        }
    }
    link(&format!("{f}.wired"), &w.wired)?;

    let m = &w.mac;
    let mf = format!("{f}.mac");
    for (name, v) in [("slot", m.slot), ("sifs", m.sifs), ("difs", m.difs)] {
        in_range(
            &format!("{mf}.{name}"),
            v.0,
            1e-9,
            0.01,
            "must be between 1 ns and 10 ms",
        )?;
    }
    if m.difs.0 <= m.sifs.0 {
        return Err(ConfigError::new(
            format!("{mf}.difs"),
            format!(
                "{} s is not above SIFS ({} s); DIFS must exceed SIFS so responses go first",
                m.difs.0, m.sifs.0
            ),
        ));
    }
    in_range(
        &format!("{mf}.cca_time"),
        m.cca_time.0,
        0.0,
        m.slot.0,
        "must be between 0 and the slot time",
    )?;
    in_range(
        &format!("{mf}.cw_min"),
        m.cw_min as f64,
        1.0,
        65535.0,
        "must be 1 to 65535",
    )?;
    in_range(
        &format!("{mf}.cw_max"),
        m.cw_max as f64,
        m.cw_min as f64,
        65535.0,
        "must be between cw_min and 65535",
    )?;
    for (name, v) in [
        ("retry_limit", m.retry_limit),
        ("long_retry_limit", m.long_retry_limit),
    ] {
        in_range(
            &format!("{mf}.{name}"),
            v as f64,
            1.0,
            255.0,
            "must be 1 to 255 attempts",
        )?;
    }

    let r = &w.radio;
    let rf = format!("{f}.radio");
    in_range(
        &format!("{rf}.tx_power_dbm"),
        r.tx_power_dbm,
        -50.0,
        50.0,
        "must be -50 to 50 dBm",
    )?;
    in_range(
        &format!("{rf}.frequency_hz"),
        r.frequency_hz,
        1e8,
        1e11,
        "must be 100 MHz to 100 GHz",
    )?;
    in_range(
        &format!("{rf}.path_loss_exponent"),
        r.path_loss_exponent,
        1.0,
        8.0,
        "must be 1 to 8 (2 is free space)",
    )?;
    in_range(
        &format!("{rf}.capture_threshold_db"),
        r.capture_threshold_db,
        0.0,
        60.0,
        "must be 0 to 60 dB",
    )?;
    in_range(
        &format!("{rf}.cs_threshold_dbm"),
        r.cs_threshold_dbm,
        -150.0,
        0.0,
        "must be -150 to 0 dBm",
    )?;
    in_range(
        &format!("{rf}.noise_dbm"),
        r.noise_dbm,
        -200.0,
        0.0,
        "must be -200 to 0 dBm",
    )
}
