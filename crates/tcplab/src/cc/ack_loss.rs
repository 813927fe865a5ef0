//! The reaction to lost ACKs proposed in 004 section III-A, as a wrapper around any
//! loss-based or hybrid algorithm.
//!
//! 004's rule: the sender infers lost ACKs from abnormal jumps of the cumulative ACK
//! number; when the lost ACKs counted within one window exceed `thresh_ack_losses` it
//! waits one RTT, to rule out reordered data, and then halves the window; after a data
//! loss it stops counting for one RTT.
//!
//! How each part is realised, and the choices where 004 is silent:
//! - Lost ACKs: an ACK that newly acknowledges `n` segments stands for `ceil(n / s)`
//!   ACKs, `s` the receiver's ACK stride (1, or 2 with delayed ACKs), so `ceil(n/s) - 1`
//!   were lost. The stride comes from the flow's TCP options (`CcState::ack_stride`),
//!   which the simulator knows; option `ack_stride` overrides it (a real sender would
//!   have to assume or infer one). With a stride of 2 a lone delayed ACK (n = 1) or a full
//!   one (n = 2) is normal; only n >= 3 counts.
//! - Reordering: every out-of-order segment makes the receiver send a duplicate ACK at
//!   once, so the `d` duplicate ACKs seen since the last new ACK account for `d` of the
//!   segments a jump covers; only `n - d` are judged. (Choice.)
//! - Window: one RTT round, from the ACK that opens it until snd_una passes the snd_nxt of
//!   that moment (as Vegas's rounds). The count restarts each round.
//! - The one-RTT wait: when the count first exceeds the threshold, a reduction is
//!   scheduled one smoothed RTT later and applied by the first ACK after that. A
//!   duplicate ACK or a data loss during the wait is evidence of disordered or lost data,
//!   not lost ACKs, and cancels it. (Choice: 004 says only that the wait avoids false
//!   detection due to reordering.)
//! - Halving: the reduction asks the wrapped algorithm for its loss response
//!   (`ssthresh` with [`LossKind::AckLoss`]) and sets cwnd and ssthresh to it, without a
//!   retransmission, then signals `CaEvent::CompleteCwr` (as Linux ends a CWR episode).
//!   For Reno that is exactly 004's halving; for CUBIC, CTCP and the others it is their
//!   own decrease, which keeps their internal state (W_max, dwnd, ...) consistent.
//!   (Choice: 004 applies the method to Reno only.)
//! - After a data loss (the sender asks for ssthresh) counting stops for one smoothed RTT
//!   and, with `pause_through_recovery` (default on), until loss recovery ends: NewReno
//!   repairs several losses in several RTTs and its partial ACKs jump by design. 004's
//!   one RTT covers a single-loss Reno recovery; `pause_through_recovery = false` gives
//!   the literal rule.
//!
//! Scenario use: `cc = { name = "reno", ack_loss_reaction = { thresh_ack_losses = 1 } }`
//! or `ack_loss_reaction = true` for the defaults; [`super::build`] takes the key out
//! before the wrapped algorithm parses its own parameters. The wrapper reports the
//! wrapped algorithm's name and adds three plotted variables: `ack_losses_inferred`,
//! `ack_loss_reductions` (both cumulative) and `ack_loss_last_ratio` (cwnd after / before
//! the last reduction).

use super::{
    parse_params, AckEvent, AckSample, CaEvent, CaState, CcSpec, CcState, CongestionControl,
    LossInfo, LossKind, LossTag, RetransmitProbe,
};
use crate::config::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// The scenario key that wraps an algorithm.
pub const KEY: &str = "ack_loss_reaction";

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct AckLossParams {
    /// React when more than this many lost ACKs are counted in one window (004: 1).
    pub thresh_ack_losses: u32,
    /// Segments per ACK in steady state; 0 takes the receiver's (2 with delayed ACKs).
    pub ack_stride: u32,
    /// Keep counting paused until loss recovery ends, not only for one RTT.
    pub pause_through_recovery: bool,
}

impl Default for AckLossParams {
    fn default() -> Self {
        AckLossParams {
            thresh_ack_losses: 1,
            ack_stride: 0,
            pause_through_recovery: true,
        }
    }
}

/// Infers lost ACKs and decides when to react; no window arithmetic of its own.
#[derive(Clone, Debug)]
pub struct AckLossDetector {
    p: AckLossParams,
    /// snd_nxt when the current counting window opened.
    window_end: Option<u32>,
    in_window: u32,
    dupacks: u32,
    paused_until: Time,
    pending: Option<Time>,
    pub inferred: u64,
    pub reductions: u64,
    pub cancelled: u64,
}

fn rtt_of(st: &CcState) -> Time {
    if st.srtt > Time::ZERO {
        st.srtt
    } else if st.latest_rtt > Time::ZERO {
        st.latest_rtt
    } else {
        st.rto
    }
}

impl AckLossDetector {
    pub fn new(p: AckLossParams) -> Self {
        AckLossDetector {
            p,
            window_end: None,
            in_window: 0,
            dupacks: 0,
            paused_until: Time::ZERO,
            pending: None,
            inferred: 0,
            reductions: 0,
            cancelled: 0,
        }
    }

    /// Lost ACKs counted in the current window.
    pub fn in_window(&self) -> u32 {
        self.in_window
    }

    /// When a scheduled reduction is due, if one is.
    pub fn pending(&self) -> Option<Time> {
        self.pending
    }

    fn stride(&self, st: &CcState) -> u32 {
        match self.p.ack_stride {
            0 => st.ack_stride.max(1),
            s => s,
        }
    }

    fn counting(&self, st: &CcState) -> bool {
        st.now >= self.paused_until
            && (!self.p.pause_through_recovery
                || matches!(st.ca_state, CaState::Open | CaState::Disorder))
    }

    /// Processes an ACK; returns true when the window must be reduced now.
    pub fn on_ack(&mut self, st: &CcState, ack: &AckEvent) -> bool {
        if ack.duplicate {
            self.dupacks += 1;
            if self.pending.take().is_some() {
                self.cancelled += 1;
            }
            return false;
        }
        if ack.newly_acked == 0 {
            return false;
        }
        let explained = std::mem::take(&mut self.dupacks);
        if self.counting(st) {
            let judged = ack.newly_acked.saturating_sub(explained);
            let lost = judged.div_ceil(self.stride(st)).saturating_sub(1);
            self.inferred += lost as u64;
            self.in_window += lost;
            if self.in_window > self.p.thresh_ack_losses && self.pending.is_none() {
                self.pending = Some(st.now + rtt_of(st));
            }
        }
        match self.window_end {
            Some(end) if st.snd_una < end => {}
            _ => {
                self.in_window = 0;
                self.window_end = Some(st.snd_nxt);
            }
        }
        match self.pending {
            Some(at) if st.now >= at => {
                self.pending = None;
                self.reductions += 1;
                self.in_window = 0;
                self.window_end = Some(st.snd_nxt);
                true
            }
            _ => false,
        }
    }

    /// A data loss was detected: stop counting for one RTT and drop any pending reduction.
    pub fn on_data_loss(&mut self, st: &CcState) {
        self.paused_until = st.now + rtt_of(st);
        if self.pending.take().is_some() {
            self.cancelled += 1;
        }
        self.in_window = 0;
        self.dupacks = 0;
    }
}

/// Any algorithm plus 004's reaction to lost ACKs. Every hook is forwarded.
pub struct AckLossReaction {
    inner: Box<dyn CongestionControl>,
    det: AckLossDetector,
    last_ratio: f64,
}

impl AckLossReaction {
    pub fn new(inner: Box<dyn CongestionControl>, p: AckLossParams) -> Self {
        AckLossReaction {
            inner,
            det: AckLossDetector::new(p),
            last_ratio: f64::NAN,
        }
    }

    /// Builds the wrapper and, with `build_inner` from the rest of `spec`, the wrapped
    /// algorithm.
    pub fn from_spec(
        spec: &CcSpec,
        field: &str,
        build_inner: super::registry::Build,
    ) -> Result<Box<dyn CongestionControl>, ConfigError> {
        let mut inner_spec = spec.clone();
        let at = format!("{field}.{KEY}");
        let p = match inner_spec.params.remove(KEY) {
            None | Some(toml::Value::Boolean(false)) => {
                return build_inner(&inner_spec, field);
            }
            Some(toml::Value::Boolean(true)) => AckLossParams::default(),
            Some(toml::Value::Table(t)) => {
                let own = CcSpec {
                    name: KEY.to_string(),
                    params: t,
                };
                parse_params::<AckLossParams>(&own, &at)?
            }
            Some(other) => {
                return Err(ConfigError::new(
                    at,
                    format!(
                        "{other} is not allowed; use true, false or a table \
                         {{ thresh_ack_losses = 1 }}"
                    ),
                ))
            }
        };
        super::params::check_range(
            &at,
            "thresh_ack_losses",
            p.thresh_ack_losses as f64,
            0.0,
            1e6,
        )?;
        super::params::check_range(&at, "ack_stride", p.ack_stride as f64, 0.0, 64.0)?;
        let inner = build_inner(&inner_spec, field)?;
        Ok(Box::new(AckLossReaction::new(inner, p)))
    }

    pub fn detector(&self) -> &AckLossDetector {
        &self.det
    }

    /// 004's halving, done by the wrapped algorithm's own loss response.
    fn reduce(&mut self, st: &mut CcState) {
        let before = st.cwnd;
        let info = LossInfo {
            kind: LossKind::AckLoss,
            seq: st.snd_una,
            already_retransmitted: false,
            // A fresh congestion signal: algorithms that reduce once per window reduce now.
            sent_at: st.now,
        };
        let ss = self.inner.ssthresh(st, &info).max(1.0);
        st.ssthresh = ss;
        st.cwnd = st.cwnd.min(ss).max(1.0);
        self.inner.cwnd_event(st, CaEvent::CompleteCwr);
        self.last_ratio = st.cwnd / before;
    }
}

impl CongestionControl for AckLossReaction {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn default_recovery(&self) -> super::Recovery {
        self.inner.default_recovery()
    }

    fn init(&mut self, st: &mut CcState) {
        self.inner.init(st);
    }

    fn ssthresh(&mut self, st: &CcState, loss: &LossInfo) -> f64 {
        self.det.on_data_loss(st);
        self.inner.ssthresh(st, loss)
    }

    fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        self.inner.cong_avoid(st, acked);
    }

    fn pkts_acked(&mut self, st: &mut CcState, sample: &AckSample) {
        self.inner.pkts_acked(st, sample);
    }

    fn in_ack_event(&mut self, st: &mut CcState, ack: &AckEvent) {
        self.inner.in_ack_event(st, ack);
        if self.det.on_ack(st, ack) {
            self.reduce(st);
        }
    }

    fn set_state(&mut self, st: &mut CcState, new: CaState) {
        self.inner.set_state(st, new);
    }

    fn cwnd_event(&mut self, st: &mut CcState, event: CaEvent) {
        self.inner.cwnd_event(st, event);
    }

    fn undo_cwnd(&mut self, st: &CcState, prior_cwnd: f64) -> f64 {
        self.inner.undo_cwnd(st, prior_cwnd)
    }

    fn cwnd_after_timeout(&self) -> f64 {
        self.inner.cwnd_after_timeout()
    }

    fn retransmit_check(&mut self, st: &CcState, probe: &RetransmitProbe) -> bool {
        self.inner.retransmit_check(st, probe)
    }

    fn loss_tag(&self) -> Option<LossTag> {
        self.inner.loss_tag()
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        self.inner.variables(out);
        out.push(("ack_losses_inferred", self.det.inferred as f64));
        out.push(("ack_loss_reductions", self.det.reductions as f64));
        out.push(("ack_loss_last_ratio", self.last_ratio));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::reno::Reno;
    use crate::cc::scripted::fresh_loss;
    use crate::cc::{ProbePoint, Recovery};
    use std::sync::{Arc, Mutex};

    /// A sender whose cumulative ACKs are scripted: `ack(k)` acknowledges up to segment k.
    struct Script {
        st: CcState,
        det: AckLossDetector,
    }

    impl Script {
        fn new(stride: u32, p: AckLossParams) -> Script {
            let mut st = CcState::new(20.0, 10.0, 1000, 1000);
            st.ack_stride = stride;
            st.srtt = Time::from_millis(100);
            st.snd_nxt = 20;
            Script {
                st,
                det: AckLossDetector::new(p),
            }
        }

        fn at(&mut self, ms: u64) -> &mut Self {
            self.st.now = Time::from_millis(ms);
            self
        }

        /// A new cumulative ACK up to `ack`; the sender keeps 20 segments in flight.
        fn ack(&mut self, ack: u32) -> bool {
            let newly = ack - self.st.snd_una;
            self.st.snd_una = ack;
            self.st.snd_nxt = ack + 20;
            let ev = AckEvent {
                ack,
                newly_acked: newly,
                duplicate: false,
            };
            self.det.on_ack(&self.st, &ev)
        }

        fn dupack(&mut self) -> bool {
            let ev = AckEvent {
                ack: self.st.snd_una,
                newly_acked: 0,
                duplicate: true,
            };
            self.det.on_ack(&self.st, &ev)
        }
    }

    #[test]
    fn no_false_alarm_with_delayed_acks() {
        let mut s = Script::new(2, AckLossParams::default());
        let mut ack = 0;
        // Full delayed ACKs (2 segments) with an occasional timer-driven one (1 segment).
        for i in 0..200u64 {
            ack += if i % 7 == 0 { 1 } else { 2 };
            assert!(!s.at(i).ack(ack));
        }
        assert_eq!(s.det.inferred, 0);
        assert_eq!(s.det.pending(), None);
        // The same ACK stream judged with a stride of 1 would be full of "losses": the
        // receiver's ACK policy matters.
        let mut wrong = Script::new(1, AckLossParams::default());
        let mut ack = 0;
        for i in 0..20u64 {
            ack += 2;
            wrong.at(i).ack(ack);
        }
        assert!(wrong.det.inferred >= 19);
    }

    #[test]
    fn one_lost_ack_is_counted() {
        let mut s = Script::new(1, AckLossParams::default());
        s.at(0).ack(1);
        s.at(1).ack(2);
        assert!(!s.at(2).ack(4), "the ACK for segment 3 was lost");
        assert_eq!(s.det.inferred, 1);
        assert_eq!(s.det.in_window(), 1);
        assert_eq!(
            s.det.pending(),
            None,
            "1 does not exceed thresh_ack_losses 1"
        );
        // With a delayed-ACK receiver a jump of 4 segments is one lost ACK.
        let mut d = Script::new(2, AckLossParams::default());
        d.at(0).ack(2);
        d.at(1).ack(6);
        assert_eq!(d.det.inferred, 1);
    }

    #[test]
    fn reduction_waits_one_rtt() {
        let mut s = Script::new(1, AckLossParams::default());
        s.at(0).ack(1);
        s.at(10).ack(3); // one lost
        assert!(!s.at(20).ack(5), "two lost: threshold exceeded, but wait");
        assert_eq!(s.det.pending(), Some(Time::from_millis(120)), "now + srtt");
        let mut ack = 5;
        for ms in (30..120).step_by(10) {
            ack += 1;
            assert!(!s.at(ms).ack(ack), "no reduction before one RTT at {ms} ms");
        }
        ack += 1;
        assert!(s.at(120).ack(ack), "reduced one RTT after detection");
        assert_eq!(s.det.reductions, 1);
        assert_eq!(s.det.in_window(), 0);
    }

    #[test]
    fn a_duplicate_ack_during_the_wait_cancels_the_reduction() {
        let mut s = Script::new(1, AckLossParams::default());
        s.at(0).ack(1);
        s.at(10).ack(4); // two lost
        assert!(s.det.pending().is_some());
        s.at(50).dupack();
        assert_eq!(s.det.pending(), None);
        assert!(!s.at(200).ack(5));
        assert_eq!(s.det.reductions, 0);
        assert_eq!(s.det.cancelled, 1);
    }

    #[test]
    fn jumps_after_duplicate_acks_are_reordering_not_ack_loss() {
        let mut s = Script::new(1, AckLossParams::default());
        s.at(0).ack(1);
        // Segment 1 is late: 2, 3, 4 arrive first and each is acknowledged at once with a
        // duplicate ACK; then 1 arrives and the ACK jumps to 5.
        for ms in 1..4 {
            s.at(ms).dupack();
        }
        s.at(5).ack(5);
        assert_eq!(s.det.inferred, 0);
    }

    #[test]
    fn counting_stops_for_one_rtt_after_a_data_loss() {
        let p = AckLossParams {
            pause_through_recovery: false,
            ..AckLossParams::default()
        };
        let mut s = Script::new(1, p);
        s.at(0).ack(1);
        s.at(10);
        s.det.on_data_loss(&s.st);
        s.at(50).ack(6); // jump of 5 within the RTT after the data loss: not counted
        s.at(109).ack(9);
        assert_eq!(s.det.inferred, 0);
        s.at(110).ack(11); // one RTT later counting resumes
        assert_eq!(s.det.inferred, 1);
    }

    #[test]
    fn counting_stays_off_through_recovery_by_default() {
        let mut s = Script::new(1, AckLossParams::default());
        s.at(0).ack(1);
        s.det.on_data_loss(&s.st);
        s.st.ca_state = CaState::Recovery;
        s.at(500).ack(8); // a partial ACK long after the loss
        assert_eq!(s.det.inferred, 0);
        s.st.ca_state = CaState::Open;
        s.at(510).ack(10);
        assert_eq!(s.det.inferred, 1);
    }

    #[test]
    fn the_count_is_per_window() {
        let mut s = Script::new(1, AckLossParams::default());
        s.at(0).ack(1); // opens a window ending at snd_nxt = 21
        s.at(1).ack(3); // one lost in this window
        s.at(2).ack(21); // a big jump closes the window: counted, then the window restarts
        let after_first = s.det.inferred;
        assert!(s.det.pending().is_some(), "19 lost in one window");
        // A new window (fresh detector state for clarity): single losses spread over two
        // windows do not add up.
        let mut t = Script::new(1, AckLossParams::default());
        t.at(0).ack(1);
        t.at(1).ack(3); // lost 1 in window 1 (ends at 21)
        let mut ack = 3;
        while ack < 21 {
            ack += 1;
            t.at(2).ack(ack);
        }
        t.at(3).ack(23); // lost 1 in window 2
        assert_eq!(t.det.inferred, 2);
        assert_eq!(t.det.pending(), None);
        assert!(after_first >= 18);
    }

    /// Records every hook call, to check that the wrapper forwards all of them.
    struct Recorder(Arc<Mutex<Vec<&'static str>>>);

    impl Recorder {
        fn log(&self, hook: &'static str) {
            self.0.lock().unwrap().push(hook);
        }
    }

    impl CongestionControl for Recorder {
        fn name(&self) -> &'static str {
            "recorder"
        }
        fn default_recovery(&self) -> Recovery {
            Recovery::Tahoe
        }
        fn init(&mut self, _st: &mut CcState) {
            self.log("init");
        }
        fn ssthresh(&mut self, _st: &CcState, _loss: &LossInfo) -> f64 {
            self.log("ssthresh");
            7.0
        }
        fn cong_avoid(&mut self, _st: &mut CcState, _acked: u32) {
            self.log("cong_avoid");
        }
        fn pkts_acked(&mut self, _st: &mut CcState, _s: &AckSample) {
            self.log("pkts_acked");
        }
        fn in_ack_event(&mut self, _st: &mut CcState, _a: &AckEvent) {
            self.log("in_ack_event");
        }
        fn set_state(&mut self, _st: &mut CcState, _n: CaState) {
            self.log("set_state");
        }
        fn cwnd_event(&mut self, _st: &mut CcState, _e: CaEvent) {
            self.log("cwnd_event");
        }
        fn undo_cwnd(&mut self, _st: &CcState, _p: f64) -> f64 {
            self.log("undo_cwnd");
            11.0
        }
        fn cwnd_after_timeout(&self) -> f64 {
            self.log("cwnd_after_timeout");
            2.0
        }
        fn retransmit_check(&mut self, _st: &CcState, _p: &RetransmitProbe) -> bool {
            self.log("retransmit_check");
            true
        }
        fn loss_tag(&self) -> Option<LossTag> {
            self.log("loss_tag");
            Some(LossTag {
                label: "x",
                value: 1.0,
            })
        }
        fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
            self.log("variables");
            out.push(("inner", 3.0));
        }
    }

    #[test]
    fn forwards_every_hook() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut w = AckLossReaction::new(Box::new(Recorder(log.clone())), AckLossParams::default());
        let mut st = CcState::new(10.0, 5.0, 1000, 1000);
        let loss = fresh_loss(LossKind::Timeout);
        let probe = RetransmitProbe {
            point: ProbePoint::DupAck(1),
            seq: 0,
            sent_at: Time::ZERO,
            already_retransmitted: false,
        };
        assert_eq!(w.name(), "recorder");
        assert_eq!(w.default_recovery(), Recovery::Tahoe);
        w.init(&mut st);
        assert_eq!(w.ssthresh(&st, &loss), 7.0);
        w.cong_avoid(&mut st, 1);
        w.pkts_acked(
            &mut st,
            &AckSample {
                acked: 1,
                rtt: None,
            },
        );
        w.in_ack_event(
            &mut st,
            &AckEvent {
                ack: 1,
                newly_acked: 1,
                duplicate: false,
            },
        );
        w.set_state(&mut st, CaState::Recovery);
        w.cwnd_event(&mut st, CaEvent::TxStart);
        assert_eq!(w.undo_cwnd(&st, 3.0), 11.0);
        assert_eq!(w.cwnd_after_timeout(), 2.0);
        assert!(w.retransmit_check(&st, &probe));
        assert_eq!(w.loss_tag().map(|t| t.label), Some("x"));
        let mut vars = Vec::new();
        w.variables(&mut vars);
        assert_eq!(vars[0], ("inner", 3.0));
        assert!(vars.iter().any(|(n, _)| *n == "ack_loss_reductions"));
        let calls = log.lock().unwrap().clone();
        for hook in [
            "init",
            "ssthresh",
            "cong_avoid",
            "pkts_acked",
            "in_ack_event",
            "set_state",
            "cwnd_event",
            "undo_cwnd",
            "cwnd_after_timeout",
            "retransmit_check",
            "loss_tag",
            "variables",
        ] {
            assert!(calls.contains(&hook), "{hook} not forwarded: {calls:?}");
        }
    }

    #[test]
    fn wrapped_reno_halves_through_its_own_loss_response() {
        let mut w = AckLossReaction::new(
            Box::new(Reno::new(Recovery::NewReno)),
            AckLossParams::default(),
        );
        let mut st = CcState::new(40.0, 1e9, 1000, 1000);
        st.srtt = Time::from_millis(100);
        st.snd_nxt = 40;
        let ack = |w: &mut AckLossReaction, st: &mut CcState, ms: u64, to: u32| {
            st.now = Time::from_millis(ms);
            let newly = to - st.snd_una;
            st.snd_una = to;
            st.snd_nxt = to + 40;
            w.in_ack_event(
                st,
                &AckEvent {
                    ack: to,
                    newly_acked: newly,
                    duplicate: false,
                },
            );
        };
        ack(&mut w, &mut st, 0, 1);
        ack(&mut w, &mut st, 10, 4); // two lost ACKs
        assert_eq!(st.cwnd, 40.0, "not before one RTT");
        ack(&mut w, &mut st, 110, 5);
        assert_eq!(st.cwnd, 20.0);
        assert_eq!(st.ssthresh, 20.0);
        let mut vars = Vec::new();
        w.variables(&mut vars);
        assert!(vars.contains(&("ack_loss_last_ratio", 0.5)));
        assert!(vars.contains(&("ack_loss_reductions", 1.0)));
    }

    #[test]
    fn scenario_key_parsing() {
        let spec = |t: &str| -> CcSpec {
            let doc: toml::Table = toml::from_str(&format!("cc = {t}")).unwrap();
            CcSpec::deserialize(doc["cc"].clone()).unwrap()
        };
        let ok = crate::cc::build(
            &spec(
                r#"{ name = "reno", beta = 0.5, ack_loss_reaction = { thresh_ack_losses = 2 } }"#,
            ),
            "flows[0].cc",
        )
        .expect("wrapped reno builds");
        assert_eq!(ok.name(), "reno");
        let mut vars = Vec::new();
        ok.variables(&mut vars);
        assert!(vars.iter().any(|(n, _)| *n == "ack_loss_reductions"));
        assert!(crate::cc::build(
            &spec(r#"{ name = "cubic", ack_loss_reaction = true }"#),
            "f"
        )
        .is_ok());
        let err = crate::cc::build(
            &spec(r#"{ name = "reno", ack_loss_reaction = { thresh = 1 } }"#),
            "flows[0].cc",
        )
        .err()
        .expect("unknown key rejected");
        assert!(
            err.field.starts_with("flows[0].cc.ack_loss_reaction"),
            "{err}"
        );
        assert!(err.message.contains("thresh"), "{err}");
        let err = crate::cc::build(
            &spec(r#"{ name = "reno", ack_loss_reaction = 3 }"#),
            "flows[0].cc",
        )
        .err()
        .expect("a number is rejected");
        assert_eq!(err.field, "flows[0].cc.ack_loss_reaction");
        let err = crate::cc::build(
            &spec(r#"{ name = "reno", bogus = 1, ack_loss_reaction = true }"#),
            "flows[0].cc",
        )
        .err()
        .expect("the wrapped algorithm still checks its own keys");
        assert!(err.field.starts_with("flows[0].cc"), "{err}");
        assert!(err.message.contains("bogus"), "{err}");
    }
}
