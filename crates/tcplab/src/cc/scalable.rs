//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area
//! networks", ACM CCR 33(2), 2003).
//!
//! Rules and where they come from (Kelly section 2):
//! - Congestion avoidance: `cwnd += a` per ACK, a = 0.01 (multiplicative increase: about
//!   1% per round trip).
//! - Loss: `cwnd -= b cwnd`, b = 0.125 (cwnd x 0.875).
//! - Legacy region: below `legacy_window` (Kelly's lwnd, 16 packets) the traditional Reno
//!   rules apply for both increase and decrease. Linux's tcp_scalable.c instead grows as
//!   Reno below 100 packets (TCP_SCALABLE_AI_CNT) and always decreases by 1/8; set
//!   `legacy_window = 100` for its increase.
//! - Slow start is unchanged (RFC 5681).

use super::params::ParamStruct;
use super::registry::Algorithm;
use super::reno::reno_increase;
use super::{params::check_range, parse_params, CcSpec, CcState, CongestionControl, LossInfo};
use crate::config::ConfigError;
use serde::{Deserialize, Serialize};

/// Scalable TCP in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "scalable",
    build: |spec, field| Ok(Box::new(Scalable::from_spec(spec, field)?)),
    params: &[ParamStruct::of::<ScalableParams>],
    source: include_str!("scalable.rs"),
};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScalableParams {
    /// Increase per ACK, packets (0.01).
    pub a: f64,
    /// Fraction of the window given up on a loss (0.125).
    pub b: f64,
    /// Window below which Reno's rules apply, packets (16).
    pub legacy_window: f64,
}

impl Default for ScalableParams {
    fn default() -> Self {
        ScalableParams {
            a: 0.01,
            b: 0.125,
            legacy_window: 16.0,
        }
    }
}

pub struct Scalable {
    p: ScalableParams,
}

impl Scalable {
    pub fn new(p: ScalableParams) -> Self {
        Scalable { p }
    }

    pub fn from_spec(spec: &CcSpec, field: &str) -> Result<Self, ConfigError> {
        let p: ScalableParams = parse_params(spec, field)?;
        check_range(field, "a", p.a, 1e-6, 1.0)?;
        check_range(field, "b", p.b, 0.01, 0.99)?;
        check_range(field, "legacy_window", p.legacy_window, 0.0, 1e6)?;
        Ok(Scalable::new(p))
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn ssthresh(&mut self, st: &CcState, _loss: &LossInfo) -> f64 {
        let w = st.effective_window();
        let kept = if w < self.p.legacy_window {
            0.5
        } else {
            1.0 - self.p.b
        };
        (w * kept).max(2.0)
    }

    fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        if st.in_slow_start() || st.cwnd < self.p.legacy_window {
            reno_increase(st, acked);
        } else if st.cwnd_limited {
            st.cwnd += self.p.a * acked as f64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::scripted::{fresh_loss, Script};
    use crate::cc::LossKind;
    use crate::sim::Time;

    #[test]
    fn kelly_constants() {
        let mut cc = Scalable::new(ScalableParams::default());
        let mut pipe = Script::new(200.0, 100.0);
        pipe.start(&mut cc);
        pipe.ack(&mut cc, Some(Time::from_millis(100)));
        assert!((pipe.st.cwnd - 200.01).abs() < 1e-12, "+0.01 per ACK");
        // A round of about 200 ACKs multiplies the window by about 1.01^... = +2 packets.
        let before = pipe.st.cwnd;
        pipe.round_trip(&mut cc, Time::from_millis(100));
        assert!((pipe.st.cwnd / before - 1.01).abs() < 0.001);
        pipe.st.cwnd = 200.0;
        assert_eq!(
            cc.ssthresh(&pipe.st, &fresh_loss(LossKind::FastRetransmit)),
            175.0,
            "x0.875 on loss"
        );
    }

    #[test]
    fn reno_below_the_legacy_window() {
        let mut cc = Scalable::new(ScalableParams::default());
        let mut pipe = Script::new(10.0, 5.0);
        pipe.start(&mut cc);
        pipe.ack(&mut cc, Some(Time::from_millis(100)));
        assert!((pipe.st.cwnd - 10.1).abs() < 1e-12, "1/cwnd per ACK");
        pipe.st.cwnd = 10.0;
        assert_eq!(
            cc.ssthresh(&pipe.st, &fresh_loss(LossKind::FastRetransmit)),
            5.0
        );
    }
}
