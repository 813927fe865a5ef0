//! Path loss and capture: what a receiver hears of each transmitter, and which of two
//! overlapping frames survives.
//!
//! Path loss is the log-distance model anchored at Friis free-space loss at 1 m,
//! PL(d) = 20 log10(4 pi d0 f / c) + 10 n log10(d / d0) with d0 = 1 m. With n = 2 it is
//! Friis at every distance, which is also what NS-2's TwoRayGround model gives below its
//! crossover distance (hundreds of metres at 5 GHz), the regime of 004's 1-10 m stations.
//! Capture follows NS-2's capture threshold (CPThresh_, 10 dB): a frame survives overlap
//! while its power exceeds the interference (plus noise) by the threshold.

/// A point on the floor, metres. The access point stands at the origin.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Position {
    pub x: f64,
    pub y: f64,
}

impl Position {
    /// `distance` metres from the origin, at `angle` radians.
    pub fn polar(distance: f64, angle: f64) -> Position {
        Position {
            x: distance * angle.cos(),
            y: distance * angle.sin(),
        }
    }

    pub fn distance_to(&self, other: &Position) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }
}

/// Speed of light, m/s.
const C: f64 = 299_792_458.0;
/// Distances below this are treated as this (the far-field model breaks down near 0).
const MIN_DISTANCE: f64 = 0.01;

/// Radio parameters shared by every interface of a BSS: the scenario's `topology.radio`
/// table (config/wlan.rs, with its defaults).
pub type Radio = crate::config::RadioSpec;

impl Radio {
    /// Path loss at `d` metres, dB.
    pub fn path_loss_db(&self, d: f64) -> f64 {
        let d = d.max(MIN_DISTANCE);
        let at_1m = 20.0 * (4.0 * std::f64::consts::PI * self.frequency_hz / C).log10();
        at_1m + 10.0 * self.path_loss_exponent * d.log10()
    }

    /// Received power at `d` metres from a transmitter, dBm.
    pub fn rx_power_dbm(&self, d: f64) -> f64 {
        self.tx_power_dbm - self.path_loss_db(d)
    }

    pub fn capture_ratio(&self) -> f64 {
        db_to_ratio(self.capture_threshold_db)
    }
}

pub fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

pub fn db_to_ratio(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// Whether a frame received at `signal_mw` survives `interference_mw` of overlapping
/// frames plus `noise_mw` (all at the receiver), for a capture power ratio `ratio`.
pub fn survives(signal_mw: f64, interference_mw: f64, noise_mw: f64, ratio: f64) -> bool {
    signal_mw >= ratio * (interference_mw + noise_mw)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn radio() -> Radio {
        Radio::default()
    }

    #[test]
    fn friis_loss_at_5ghz() {
        let r = radio();
        // 20 log10(4 pi f / c) at 5.2 GHz is about 46.8 dB.
        assert!((r.path_loss_db(1.0) - 46.77).abs() < 0.05);
        // Tenfold distance: 20 dB more with exponent 2.
        assert!((r.path_loss_db(10.0) - r.path_loss_db(1.0) - 20.0).abs() < 1e-9);
    }

    #[test]
    fn near_station_captures_over_far_one() {
        let r = radio();
        let near = dbm_to_mw(r.rx_power_dbm(1.0));
        let far = dbm_to_mw(r.rx_power_dbm(10.0));
        let noise = dbm_to_mw(r.noise_dbm);
        let k = r.capture_ratio();
        assert!(survives(near, far, noise, k));
        assert!(!survives(far, near, noise, k));
        // Two stations at the same distance destroy each other.
        assert!(!survives(near, near, noise, k));
    }

    #[test]
    fn positions_and_distances() {
        let a = Position::polar(4.0, 0.0);
        let b = Position::polar(4.0, std::f64::consts::PI);
        assert!((a.distance_to(&b) - 8.0).abs() < 1e-12);
        assert!((a.distance_to(&Position::default()) - 4.0).abs() < 1e-12);
    }
}
