//! Compound TCP (Tan, Song, Zhang, Sridharan, "A compound TCP approach for high-speed and
//! long distance networks", PFLDnet 2006 / INFOCOM 2006; draft-sridharan-tcpm-ctcp-02),
//! with the parameters of 004 section II-A (alpha 0.125, gamma 2, zeta 1; beta 0.5, k 0.75).
//!
//! The sending window is `win = cwnd + dwnd`: a Reno-like loss-based part and a delay-based
//! part. Here `CcState::cwnd` holds `win` (what the sender may send) and the algorithm
//! keeps `dwnd`; the loss-based part is `win - dwnd`.
//!
//! Rules and where they come from (Tan et al. section 3):
//! - Loss-based part, per ACK: `cwnd += 1/(cwnd + dwnd)`, one packet per round in all.
//! - Delay-based part, once per round: `diff = (win/baseRTT - win/RTT) * baseRTT` packets,
//!   then `dwnd += (alpha win^k - 1)^+` if `diff < gamma`, else
//!   `dwnd = (dwnd - zeta diff)^+` ([`next_dwnd`]). RTT is the smallest sample of the round,
//!   as Linux's CTCP does (004 section II); baseRTT is the smallest sample ever.
//! - Loss: `cwnd = cwnd/2`, `dwnd = (win (1 - beta) - cwnd/2)^+` ([`loss_windows`]).
//! - Slow start is standard and dwnd stays 0 during it (draft-sridharan section 3).
//! - The delay-based part runs only while `win >= low_window`; 38 packets in
//!   draft-sridharan-tcpm-ctcp-02 (HighSpeed TCP's Low_Window). Below it dwnd is frozen.
//! - A retransmission timeout resets dwnd to 0 (choice: the window restarts from slow
//!   start, where dwnd is 0 by the draft's rule).
//!
//! gamma is 30 packets in Tan et al.; 004 uses 2, the default here.

use super::params::ParamStruct;
use super::registry::Algorithm;
use super::reno::reno_increase;
use super::round::{Round, RoundTracker};
use super::{
    params::check_range, parse_params, AckSample, CaEvent, CcSpec, CcState, CongestionControl,
    LossInfo,
};
use crate::config::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// Compound TCP in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "ctcp",
    build: |spec, field| Ok(Box::new(Ctcp::from_spec(spec, field)?)),
    params: &[ParamStruct::of::<CtcpParams>],
    source: include_str!("ctcp.rs"),
};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct CtcpParams {
    /// Scale of the delay-based increase `alpha win^k` (0.125).
    pub alpha: f64,
    /// Multiplicative decrease of the whole window on loss (0.5).
    pub beta: f64,
    /// Exponent of the delay-based increase (0.75, HighSpeed TCP's response function).
    pub k: f64,
    /// Backlog threshold, packets (004: 2; Tan et al.: 30).
    pub gamma: f64,
    /// Decrease gain of the delay-based part per packet of backlog (1).
    pub zeta: f64,
    /// Window below which the delay-based part is inactive, packets (38).
    pub low_window: f64,
}

impl Default for CtcpParams {
    fn default() -> Self {
        CtcpParams {
            alpha: 0.125,
            beta: 0.5,
            k: 0.75,
            gamma: 2.0,
            zeta: 1.0,
            low_window: 38.0,
        }
    }
}

/// Vegas-like backlog estimate: `(win/base - win/rtt) * base`, packets.
pub fn backlog(win: f64, base_rtt: f64, rtt: f64) -> f64 {
    win * (1.0 - base_rtt / rtt)
}

/// The once-per-round dwnd update of Tan et al. section 3.
pub fn next_dwnd(p: &CtcpParams, dwnd: f64, win: f64, diff: f64) -> f64 {
    if diff < p.gamma {
        dwnd + (p.alpha * win.powf(p.k) - 1.0).max(0.0)
    } else {
        (dwnd - p.zeta * diff).max(0.0)
    }
}

/// On loss: the halved loss-based part and the new dwnd, `(cwnd/2, (win(1-beta) - cwnd/2)^+)`.
pub fn loss_windows(p: &CtcpParams, win: f64, dwnd: f64) -> (f64, f64) {
    let cwnd = (win - dwnd).max(0.0);
    let half = cwnd / 2.0;
    (half, (win * (1.0 - p.beta) - half).max(0.0))
}

pub struct Ctcp {
    p: CtcpParams,
    dwnd: f64,
    base_rtt: Option<Time>,
    round: RoundTracker,
    finished_round: Option<Round>,
    last_diff: f64,
    /// The smallest RTT sample of the last finished round (s): the RTT of the delay-based
    /// rule, which 004's fig. 4(a) plots as minRTT.
    round_min_rtt: f64,
}

impl Ctcp {
    pub fn new(p: CtcpParams) -> Self {
        Ctcp {
            p,
            dwnd: 0.0,
            base_rtt: None,
            round: RoundTracker::default(),
            finished_round: None,
            last_diff: f64::NAN,
            round_min_rtt: f64::NAN,
        }
    }

    pub fn from_spec(spec: &CcSpec, field: &str) -> Result<Self, ConfigError> {
        let p: CtcpParams = parse_params(spec, field)?;
        check_range(field, "alpha", p.alpha, 0.0, 10.0)?;
        check_range(field, "beta", p.beta, 0.01, 0.99)?;
        check_range(field, "k", p.k, 0.0, 2.0)?;
        check_range(field, "gamma", p.gamma, 0.0, 1e4)?;
        check_range(field, "zeta", p.zeta, 0.0, 100.0)?;
        check_range(field, "low_window", p.low_window, 0.0, 1e6)?;
        Ok(Ctcp::new(p))
    }

    /// The delay-based update at the end of a round.
    fn end_of_round(&mut self, st: &mut CcState, round: Round) {
        let Some(base) = self.base_rtt else {
            return;
        };
        let rtt = round.min;
        let win = st.cwnd;
        if win < self.p.low_window {
            return;
        }
        let diff = backlog(win, base.as_secs_f64(), rtt.as_secs_f64());
        self.last_diff = diff;
        let next = next_dwnd(&self.p, self.dwnd, win, diff);
        if next > self.dwnd && !st.cwnd_limited {
            return; // RFC 7661: no growth of an unused window
        }
        st.cwnd = (st.cwnd + next - self.dwnd).max(1.0);
        self.dwnd = next;
    }
}

impl CongestionControl for Ctcp {
    fn name(&self) -> &'static str {
        "ctcp"
    }

    fn init(&mut self, st: &mut CcState) {
        self.round.restart(st.snd_nxt);
    }

    fn ssthresh(&mut self, st: &CcState, _loss: &LossInfo) -> f64 {
        let win = st.effective_window();
        let (cwnd, dwnd) = loss_windows(&self.p, win, self.dwnd.min(win));
        self.dwnd = dwnd;
        (cwnd + dwnd).max(2.0)
    }

    fn pkts_acked(&mut self, st: &mut CcState, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        }
        if let Some(done) = self.round.on_ack(st.snd_una, st.snd_nxt, sample.rtt) {
            self.round_min_rtt = done.min.as_secs_f64();
            self.finished_round = Some(done);
        }
    }

    fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        if st.in_slow_start() {
            // Standard slow start; the delay-based part is off (draft-sridharan section 3).
            self.finished_round = None;
            self.dwnd = 0.0;
            reno_increase(st, acked);
            return;
        }
        // cwnd += 1/(cwnd + dwnd) per segment: Reno's per-ACK step on the whole window.
        reno_increase(st, acked);
        if let Some(done) = self.finished_round.take() {
            self.end_of_round(st, done);
        }
    }

    fn cwnd_event(&mut self, st: &mut CcState, event: CaEvent) {
        if event == CaEvent::Loss {
            self.dwnd = 0.0;
            // After a timeout the next segment sent is the retransmission of snd_una
            // (go-back-N), so the round starting now ends with the next new ACK.
            self.round.restart(st.snd_una);
            self.finished_round = None;
        }
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("dwnd", self.dwnd));
        out.push(("diff", self.last_diff));
        out.push(("min_rtt", self.round_min_rtt));
        out.push((
            "base_rtt",
            self.base_rtt.map_or(f64::NAN, |b| b.as_secs_f64()),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::scripted::Script;

    #[test]
    fn update_rules_of_tan_et_al() {
        let p = CtcpParams::default();
        // No backlog: dwnd grows by alpha win^k - 1 = 0.125 * 81^0.75 - 1 = 2.375.
        assert!((next_dwnd(&p, 10.0, 81.0, 0.0) - 12.375).abs() < 1e-12);
        // Below the threshold the increase never goes negative.
        assert_eq!(next_dwnd(&p, 10.0, 4.0, 1.0), 10.0);
        // Backlog of 5 >= gamma 2: dwnd falls by zeta * diff, not below zero.
        assert_eq!(next_dwnd(&p, 10.0, 81.0, 5.0), 5.0);
        assert_eq!(next_dwnd(&p, 3.0, 81.0, 5.0), 0.0);
        // Loss at win 100 with dwnd 40: cwnd 60 -> 30; dwnd = 100 * 0.5 - 30 = 20.
        assert_eq!(loss_windows(&p, 100.0, 40.0), (30.0, 20.0));
        // A small dwnd cannot go negative: win 100, dwnd 0 -> (50, 0).
        assert_eq!(loss_windows(&p, 100.0, 0.0), (50.0, 0.0));
        // backlog: win 60, base 100 ms, round RTT 120 ms -> 10 packets queued.
        assert!((backlog(60.0, 0.1, 0.12) - 10.0).abs() < 1e-12);
    }

    #[test]
    fn min_rtt_is_the_smallest_sample_of_the_last_round() {
        let mut cc = Ctcp::new(CtcpParams::default());
        let mut pipe = Script::new(40.0, 20.0);
        pipe.start(&mut cc);
        pipe.round(&mut cc, Time::from_millis(100));
        let ms = [130, 110, 120];
        let acks = pipe.round_with(&mut cc, |i| Time::from_millis(ms[i as usize % 3]));
        assert!(acks >= 3, "the round holds every sample");
        assert!((Script::var(&cc, "min_rtt") - 0.110).abs() < 1e-9);
        assert!((Script::var(&cc, "base_rtt") - 0.100).abs() < 1e-9);
    }

    #[test]
    fn dwnd_grows_without_queueing_and_is_cut_by_backlog_and_loss() {
        let mut cc = Ctcp::new(CtcpParams::default());
        // In congestion avoidance above low_window.
        let mut pipe = Script::new(40.0, 20.0);
        pipe.start(&mut cc);
        let base = Time::from_millis(100);
        pipe.round_trip(&mut cc, base); // holds the first round, one ACK long
        let mut last = Script::var(&cc, "dwnd");
        for _ in 0..5 {
            let win_before = pipe.st.cwnd;
            pipe.round_trip(&mut cc, base);
            let d = Script::var(&cc, "dwnd");
            let step = d - last;
            // One delay-based step per round of about alpha win^k - 1 (win read at the
            // end of the round, a little above win_before).
            let lo = 0.125 * win_before.powf(0.75) - 1.0;
            let hi = 0.125 * (win_before + 2.0 * step + 2.0).powf(0.75) - 1.0;
            assert!(
                step >= lo - 1e-9 && step <= hi,
                "step {step} not in [{lo}, {hi}]"
            );
            assert_eq!(Script::var(&cc, "diff"), 0.0);
            // 004 fig. 4(a)'s minRTT: the round's smallest sample, exported.
            assert!((Script::var(&cc, "min_rtt") - 0.1).abs() < 1e-9);
            assert!((Script::var(&cc, "base_rtt") - 0.1).abs() < 1e-9);
            last = d;
        }
        assert!(last > 5.0, "dwnd {last}");
        // Rounds whose smallest RTT is 25% above the base: a backlog of win/5 >= gamma,
        // and each update takes zeta * diff off dwnd until it is gone.
        let mut prev = last;
        let mut cuts = 0;
        for _ in 0..400 {
            let win = pipe.st.cwnd;
            pipe.ack(&mut cc, Some(Time::from_millis(125)));
            let d = Script::var(&cc, "dwnd");
            if d != prev {
                let diff = Script::var(&cc, "diff");
                if diff < 2.0 {
                    // The round that straddles the change still holds base-RTT samples.
                    assert!(d > prev && cuts == 0, "growth only before the cuts");
                } else {
                    assert!((diff - win * 0.2).abs() < 0.5, "diff {diff} for win {win}");
                    assert!(
                        (d - (prev - diff).max(0.0)).abs() < 1e-9,
                        "{prev} - {diff} -> {d}"
                    );
                    cuts += 1;
                }
            }
            prev = d;
        }
        assert!(cuts >= 1);
        assert_eq!(prev, 0.0, "dwnd drained by the backlog");
        assert!((Script::var(&cc, "min_rtt") - 0.125).abs() < 1e-9);
        assert!(
            (Script::var(&cc, "base_rtt") - 0.1).abs() < 1e-9,
            "the smallest ever"
        );
        // Grow it again for the loss check.
        for _ in 0..4 {
            pipe.round_trip(&mut cc, base);
        }
        assert!(Script::var(&cc, "dwnd") > 0.0);
        // Loss: the whole window is halved (beta 0.5) and dwnd keeps what the halved
        // loss-based part does not cover.
        let win = pipe.st.cwnd;
        let dwnd = Script::var(&cc, "dwnd");
        let ss = pipe.fast_recovery(&mut cc);
        let expect_dwnd = (win * 0.5 - (win - dwnd) / 2.0).max(0.0);
        assert!((Script::var(&cc, "dwnd") - expect_dwnd).abs() < 1e-9);
        assert!((ss - ((win - dwnd) / 2.0 + expect_dwnd).max(2.0)).abs() < 1e-9);
    }

    #[test]
    fn no_delay_component_in_slow_start_or_below_low_window() {
        let mut cc = Ctcp::new(CtcpParams::default());
        let mut pipe = Script::new(2.0, 1e9);
        pipe.start(&mut cc);
        for _ in 0..5 {
            pipe.round_trip(&mut cc, Time::from_millis(100));
        }
        assert_eq!(Script::var(&cc, "dwnd"), 0.0, "slow start");
        let mut cc = Ctcp::new(CtcpParams::default());
        let mut pipe = Script::new(10.0, 5.0);
        pipe.start(&mut cc);
        for _ in 0..5 {
            pipe.round_trip(&mut cc, Time::from_millis(100));
        }
        assert_eq!(Script::var(&cc, "dwnd"), 0.0, "window below 38");
    }
}
