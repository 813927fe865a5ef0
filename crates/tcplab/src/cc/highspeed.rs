//! HighSpeed TCP (Floyd, RFC 3649, "HighSpeed TCP for Large Congestion Windows").
//!
//! Rules and where they come from:
//! - Congestion avoidance, per ACK: `w += a(w) / w` per segment acknowledged; on loss
//!   `w -= b(w) w` (RFC 3649 section 4).
//! - At or below Low_Window (38) a(w) = 1 and b(w) = 0.5: standard TCP (section 4).
//! - Above it, `b(w) = (High_Decrease - 0.5) (log w - log Low_Window) /
//!   (log High_Window - log Low_Window) + 0.5` and `a(w) = w^2 p(w) 2 b(w) / (2 - b(w))`
//!   (section 5), with the response function `p(w) = 0.078 / w^1.2` (section 5's closed
//!   form of w = 0.12 / p^0.835, the one that reproduces the table of Appendix B).
//! - Windows above High_Window use the values at High_Window (Linux's table also ends
//!   there).
//! - a(w) is never below 1: just above Low_Window the closed form gives 0.955, and RFC 3649
//!   means HighSpeed TCP to be at least as aggressive as standard TCP (its table starts at
//!   a = 1).
//! - Slow start is standard (RFC 5681); RFC 3742's limited slow start is not applied.
//!
//! a(w) is computed from the formula for every window; Linux and NS-2 step through the
//! integer table of Appendix B instead.

use super::params::ParamStruct;
use super::registry::Algorithm;
use super::reno::reno_increase;
use super::{params::check_range, parse_params, CcSpec, CcState, CongestionControl, LossInfo};
use crate::config::ConfigError;
use serde::{Deserialize, Serialize};

/// HighSpeed TCP in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "highspeed",
    build: |spec, field| Ok(Box::new(HighSpeed::from_spec(spec, field)?)),
    params: &[ParamStruct::of::<HighSpeedParams>],
    source: include_str!("highspeed.rs"),
};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct HighSpeedParams {
    /// Low_Window, packets (38).
    pub low_window: f64,
    /// High_Window, packets (83000).
    pub high_window: f64,
    /// High_Decrease: b(High_Window) (0.1).
    pub high_decrease: f64,
}

impl Default for HighSpeedParams {
    fn default() -> Self {
        HighSpeedParams {
            low_window: 38.0,
            high_window: 83_000.0,
            high_decrease: 0.1,
        }
    }
}

impl HighSpeedParams {
    /// b(w): the fraction of the window given up on a loss.
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 0.5;
        }
        let w = w.min(self.high_window);
        (self.high_decrease - 0.5) * (w.ln() - self.low_window.ln())
            / (self.high_window.ln() - self.low_window.ln())
            + 0.5
    }

    /// a(w): packets added per round trip.
    pub fn a(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        let w = w.min(self.high_window);
        let p = 0.078 / w.powf(1.2);
        let b = self.b(w);
        (w * w * p * 2.0 * b / (2.0 - b)).max(1.0)
    }
}

pub struct HighSpeed {
    p: HighSpeedParams,
    last_a: f64,
    last_b: f64,
}

impl HighSpeed {
    pub fn new(p: HighSpeedParams) -> Self {
        HighSpeed {
            p,
            last_a: 1.0,
            last_b: 0.5,
        }
    }

    pub fn from_spec(spec: &CcSpec, field: &str) -> Result<Self, ConfigError> {
        let p: HighSpeedParams = parse_params(spec, field)?;
        check_range(field, "low_window", p.low_window, 1.0, 1e6)?;
        check_range(field, "high_window", p.high_window, p.low_window + 1.0, 1e9)?;
        check_range(field, "high_decrease", p.high_decrease, 0.01, 0.5)?;
        Ok(HighSpeed::new(p))
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn ssthresh(&mut self, st: &CcState, _loss: &LossInfo) -> f64 {
        let w = st.effective_window();
        self.last_b = self.p.b(w);
        ((1.0 - self.last_b) * w).max(2.0)
    }

    fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        if !st.cwnd_limited {
            return; // RFC 7661: no growth of an unused window
        }
        if st.in_slow_start() {
            reno_increase(st, acked);
            return;
        }
        self.last_a = self.p.a(st.cwnd);
        st.cwnd += self.last_a * acked as f64 / st.cwnd;
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("a", self.last_a));
        out.push(("b", self.last_b));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::scripted::{fresh_loss, Script};
    use crate::cc::LossKind;

    /// (w, a(w), b(w)) rows of RFC 3649 Appendix B.
    const RFC_TABLE: &[(f64, f64, f64)] = &[
        (38.0, 1.0, 0.50),
        (118.0, 2.0, 0.44),
        (221.0, 3.0, 0.41),
        (347.0, 4.0, 0.38),
        (495.0, 5.0, 0.37),
        (663.0, 6.0, 0.35),
        (851.0, 7.0, 0.34),
        (1058.0, 8.0, 0.33),
        (1284.0, 9.0, 0.32),
        (1529.0, 10.0, 0.31),
        (1793.0, 11.0, 0.30),
        (2076.0, 12.0, 0.29),
        (2378.0, 13.0, 0.28),
        (2699.0, 14.0, 0.28),
        (3039.0, 15.0, 0.27),
        (3399.0, 16.0, 0.27),
        (3778.0, 17.0, 0.26),
        (4177.0, 18.0, 0.26),
    ];

    #[test]
    fn response_function_matches_the_rfc_table() {
        let p = HighSpeedParams::default();
        for &(w, a, b) in RFC_TABLE {
            assert!((p.a(w) - a).abs() < 0.05, "a({w}) = {} vs {a}", p.a(w));
            // The table rounds b to two decimals.
            assert!((p.b(w) - b).abs() <= 0.0051, "b({w}) = {} vs {b}", p.b(w));
        }
        assert!((p.b(83_000.0) - 0.1).abs() < 1e-12);
        assert!(
            p.a(83_000.0) > 70.0 && p.a(83_000.0) < 72.0,
            "{}",
            p.a(83_000.0)
        );
        assert_eq!(p.a(20.0), 1.0);
        assert_eq!(p.b(20.0), 0.5);
    }

    #[test]
    fn per_ack_increase_and_loss_decrease_use_a_and_b() {
        let mut cc = HighSpeed::new(HighSpeedParams::default());
        let mut pipe = Script::new(1058.0, 100.0);
        pipe.start(&mut cc);
        let before = pipe.st.cwnd;
        pipe.ack(&mut cc, Some(crate::sim::Time::from_millis(100)));
        assert!((pipe.st.cwnd - before - 8.0 / 1058.0).abs() < 1e-4);
        let loss = fresh_loss(LossKind::FastRetransmit);
        pipe.st.cwnd = 1058.0;
        let ss = cc.ssthresh(&pipe.st, &loss);
        assert!((ss - 1058.0 * (1.0 - 0.327)).abs() < 0.5, "{ss}");
        pipe.st.cwnd = 30.0;
        assert_eq!(cc.ssthresh(&pipe.st, &loss), 15.0);
    }
}
