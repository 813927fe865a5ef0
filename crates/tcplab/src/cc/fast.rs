//! FAST TCP (Jin, Wei, Low, "FAST TCP: motivation, architecture, algorithms,
//! performance", INFOCOM 2004), with the parameters of 004 section II-A (alpha 20, gamma 0.5).
//!
//! Rules and where they come from:
//! - Window control (Jin et al., section 3, the window update equation): once per update
//!   period, `w <- min(2w, (1 - gamma) w + gamma (baseRTT/avgRTT * w + alpha))`
//!   ([`fast_window`]). Its fixed point is `w (1 - baseRTT/avgRTT) = alpha`: every flow
//!   keeps `alpha` packets queued at the bottleneck.
//! - Estimation (Jin et al., section 3, estimation component): baseRTT is the smallest RTT
//!   seen; avgRTT is an exponentially weighted moving average of every RTT sample with
//!   weight `eta = min(3/w, 1/4)` (the paper's weight as recalled; its text was not at
//!   hand to re-check). The NS-2 module (Cui and Andrew, tcp-fast.cc) caps the weight at
//!   1/256 instead: option `avg_weight_cap`.
//! - Update period: 004 section II says FAST updates once per RTT (default
//!   `update_period = 1`); the NS-2 module (since v1.1.3) and the Linux code update every
//!   other RTT (`update_period = 2`).
//! - No separate slow start: the `min(2w, ...)` cap doubles the window per period while
//!   there is no queue. The NS-2 module adds a multiplicative-increase phase below a
//!   queueing-delay threshold; it is not in the paper and is left out.
//! - Loss: FAST leaves loss recovery to the TCP stack, which halves the window as Reno
//!   (RFC 5681 eq. 4); option `beta`.
//! - The new window is applied at once; the NS-2 module paces an increase over the next
//!   RTT. The fixed point does not depend on this.

use super::params::ParamStruct;
use super::registry::Algorithm;
use super::round::RoundTracker;
use super::{
    params::check_range, parse_params, AckSample, CaEvent, CcSpec, CcState, CongestionControl,
    LossInfo,
};
use crate::config::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// FAST TCP in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "fast",
    build: |spec, field| Ok(Box::new(Fast::from_spec(spec, field)?)),
    params: &[ParamStruct::of::<FastParams>],
    source: include_str!("fast.rs"),
};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct FastParams {
    /// Packets each flow aims to keep queued in the network (004: 20).
    pub alpha: f64,
    /// Gain of the window update (004: 0.5).
    pub gamma: f64,
    /// RTT rounds between window updates (004: 1; NS-2 and Linux: 2).
    pub update_period: u32,
    /// Cap of the per-sample avgRTT weight `eta = min(3/w, cap)` (paper 1/4; NS-2 1/256).
    pub avg_weight_cap: f64,
    /// Loss response: ssthresh = beta * window (Reno's 0.5).
    pub beta: f64,
}

impl Default for FastParams {
    fn default() -> Self {
        FastParams {
            alpha: 20.0,
            gamma: 0.5,
            update_period: 1,
            avg_weight_cap: 0.25,
            beta: 0.5,
        }
    }
}

/// The FAST window update: `min(2w, (1 - gamma) w + gamma (base/avg * w + alpha))`.
pub fn fast_window(w: f64, base_rtt: f64, avg_rtt: f64, alpha: f64, gamma: f64) -> f64 {
    let target = base_rtt / avg_rtt * w + alpha;
    (2.0 * w).min((1.0 - gamma) * w + gamma * target)
}

pub struct Fast {
    p: FastParams,
    base_rtt: Option<Time>,
    /// avgRTT, seconds.
    avg_rtt: Option<f64>,
    round: RoundTracker,
    rounds_since_update: u32,
    update_due: bool,
}

impl Fast {
    pub fn new(p: FastParams) -> Self {
        Fast {
            p,
            base_rtt: None,
            avg_rtt: None,
            round: RoundTracker::default(),
            rounds_since_update: 0,
            update_due: false,
        }
    }

    pub fn from_spec(spec: &CcSpec, field: &str) -> Result<Self, ConfigError> {
        let p: FastParams = parse_params(spec, field)?;
        check_range(field, "alpha", p.alpha, 0.1, 1e5)?;
        check_range(field, "gamma", p.gamma, 0.01, 1.0)?;
        check_range(field, "update_period", p.update_period as f64, 1.0, 16.0)?;
        check_range(field, "avg_weight_cap", p.avg_weight_cap, 1e-4, 1.0)?;
        check_range(field, "beta", p.beta, 0.01, 0.99)?;
        Ok(Fast::new(p))
    }
}

impl CongestionControl for Fast {
    fn name(&self) -> &'static str {
        "fast"
    }

    fn ssthresh(&mut self, st: &CcState, _loss: &LossInfo) -> f64 {
        (st.effective_window() * self.p.beta).max(2.0)
    }

    fn init(&mut self, st: &mut CcState) {
        self.round.restart(st.snd_nxt);
    }

    fn pkts_acked(&mut self, st: &mut CcState, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
            let r = rtt.as_secs_f64();
            let eta = (3.0 / st.cwnd.max(1.0)).min(self.p.avg_weight_cap);
            self.avg_rtt = Some(self.avg_rtt.map_or(r, |a| (1.0 - eta) * a + eta * r));
        }
        if self
            .round
            .on_ack(st.snd_una, st.snd_nxt, sample.rtt)
            .is_some()
        {
            self.rounds_since_update += 1;
            if self.rounds_since_update >= self.p.update_period {
                self.rounds_since_update = 0;
                self.update_due = true;
            }
        }
    }

    fn cong_avoid(&mut self, st: &mut CcState, _acked: u32) {
        if !std::mem::take(&mut self.update_due) {
            return;
        }
        let (Some(base), Some(avg)) = (self.base_rtt, self.avg_rtt) else {
            return;
        };
        let w = st.cwnd;
        let next = fast_window(w, base.as_secs_f64(), avg, self.p.alpha, self.p.gamma);
        // RFC 7661: do not grow a window the sender is not using.
        if next > w && !st.cwnd_limited {
            return;
        }
        st.cwnd = next.max(2.0);
    }

    fn cwnd_event(&mut self, st: &mut CcState, event: CaEvent) {
        if event == CaEvent::Loss {
            // After a timeout the next segment sent is the retransmission of snd_una
            // (go-back-N), so the round starting now ends with the next new ACK.
            self.round.restart(st.snd_una);
            self.rounds_since_update = 0;
            self.update_due = false;
        }
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        let avg = self.avg_rtt.unwrap_or(f64::NAN);
        let base = self.base_rtt.map_or(f64::NAN, |b| b.as_secs_f64());
        out.push(("avg_rtt", avg));
        out.push(("base_rtt", base));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::scripted::{fresh_loss, Script};
    use crate::cc::LossKind;

    #[test]
    fn the_update_has_its_fixed_point_at_alpha_queued_packets() {
        // w = 100, baseRTT/avgRTT = 0.8: 20 packets queued, exactly alpha.
        assert!((fast_window(100.0, 0.1, 0.125, 20.0, 0.5) - 100.0).abs() < 1e-9);
        // Fewer queued: grow half-way to the target; more: shrink half-way.
        assert!((fast_window(100.0, 0.1, 0.11, 20.0, 0.5) - 105.454545).abs() < 1e-5);
        assert!((fast_window(100.0, 0.1, 0.2, 20.0, 0.5) - 85.0).abs() < 1e-9);
        // No queue and a small window: at most doubling.
        assert_eq!(fast_window(4.0, 0.1, 0.1, 20.0, 0.5), 8.0);
    }

    /// A fluid bottleneck: 50 packets fit in the pipe, the rest wait in a queue served at
    /// 500 packets/s, so RTT = 0.1 s + backlog / 500.
    fn fluid_rtt(w: f64) -> Time {
        Time::from_secs_f64(0.1 + (w - 50.0).max(0.0) / 500.0)
    }

    #[test]
    fn converges_to_alpha_packets_queued_through_its_hooks() {
        let mut cc = Fast::new(FastParams::default());
        let mut pipe = Script::new(2.0, 1e9);
        pipe.start(&mut cc);
        for _ in 0..200 {
            let rtt = fluid_rtt(pipe.st.cwnd);
            pipe.round_trip(&mut cc, rtt);
        }
        let queued = pipe.st.cwnd - 50.0;
        assert!(
            (queued - 20.0).abs() < 1.0,
            "backlog {queued} packets, cwnd {}",
            pipe.st.cwnd
        );
        assert!((Script::var(&cc, "base_rtt") - 0.1).abs() < 1e-9);
    }

    #[test]
    fn updates_once_per_period() {
        let mut cc = Fast::new(FastParams {
            update_period: 2,
            ..FastParams::default()
        });
        let mut pipe = Script::new(10.0, 1e9);
        pipe.start(&mut cc);
        let rtt = Time::from_millis(100);
        pipe.round_trip(&mut cc, rtt); // holds the first round, one ACK long
        let mut changes = 0;
        for _ in 0..8 {
            let before = pipe.st.cwnd;
            pipe.round_trip(&mut cc, rtt);
            if pipe.st.cwnd != before {
                changes += 1;
            }
        }
        assert_eq!(changes, 4, "eight rounds, an update every second one");
    }

    #[test]
    fn halves_on_loss() {
        let mut cc = Fast::new(FastParams::default());
        let pipe = Script::new(60.0, 1e9);
        let loss = fresh_loss(LossKind::FastRetransmit);
        assert_eq!(cc.ssthresh(&pipe.st, &loss), 30.0);
    }
}
