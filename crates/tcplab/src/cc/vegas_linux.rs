//! The rules of Linux's `net/ipv4/tcp_vegas.c` (and the helpers of `tcp_cong.c` and
//! `tcp_input.c` it calls), for the Vegas family's `variant = "linux"`.
//!
//! Written from reading the kernel source, rule by rule; each function's comment names
//! the Linux behaviour it follows. Linux counts the window in whole segments (`u32
//! snd_cwnd`) and RTTs in whole microseconds, and computes Vegas's Diff in integer
//! arithmetic; so does this module (the window stays integral: every rule adds, removes
//! or truncates whole segments).
//!
//! Differences that remain, because they belong to the sender (crates/tcplab/src/tcp):
//! - The sender calls `cong_avoid` for the ACK that ends a Disorder or Loss state before
//!   `set_state(Open)`; Linux changes the state first (`tcp_fastretrans_alert` runs
//!   before `tcp_cong_control`). That ACK therefore grows the window as Reno rather than
//!   as the first ACK of a fresh Vegas round.
//! - `CA_EVENT_CWND_RESTART` (restart after an idle period longer than the RTO) is not
//!   signalled; `TxStart` (first send with nothing in flight) is, and both re-initialise
//!   Vegas in Linux.
//! - `snd_cwnd_clamp` is not modelled: Linux's default is `~0`, so only the floor of 2
//!   applies (the advertised window still limits the sender).

use super::delay::Estimate;
use super::linux_window::{
    after_slow_start, cwnd_of, slow_start, ssthresh_of, tcp_reno_ssthresh, AiCredit,
};
use super::vegas::{AvoidanceRule, RoundView};
use super::CcState;
use crate::sim::Time;

/// "Infinity" of `minRTT` and `baseRTT` (Linux initialises both to `0x7fffffff`).
const NO_RTT: u32 = 0x7fff_ffff;

/// Linux's `struct vegas`, plus `snd_cwnd_cnt` of `struct tcp_sock` (the credit of
/// `tcp_cong_avoid_ai`), which Linux resets on entering recovery or loss.
#[derive(Clone, Debug, PartialEq)]
pub struct LinuxVegas {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    /// `doing_vegas_now`: Vegas's once-per-RTT rule runs only in the Open state.
    doing_vegas_now: bool,
    /// `beg_snd_nxt`: the round ends with the ACK of a segment sent after this point.
    beg_snd_nxt: u32,
    /// `cntRTT`: RTT samples in the current round.
    cnt_rtt: u32,
    /// `minRTT`: the smallest sample of the current round, microseconds + 1.
    min_rtt: u32,
    /// `baseRTT`: the smallest sample since the last (re)initialisation, microseconds + 1.
    base_rtt: u32,
    /// `snd_cwnd_cnt`.
    cwnd_cnt: AiCredit,
}

fn us_time(us: u32) -> Time {
    Time::from_micros(us as u64)
}

impl LinuxVegas {
    pub fn new(alpha: f64, beta: f64, gamma: f64) -> Self {
        LinuxVegas {
            alpha,
            beta,
            gamma,
            doing_vegas_now: false,
            beg_snd_nxt: 0,
            cnt_rtt: 0,
            min_rtt: NO_RTT,
            base_rtt: NO_RTT,
            cwnd_cnt: AiCredit::default(),
        }
    }

    /// `tcp_vegas_init`: forget baseRTT and start Vegas (also on `CA_EVENT_TX_START`,
    /// `tcp_vegas_cwnd_event`).
    pub fn init(&mut self, st: &CcState) {
        self.base_rtt = NO_RTT;
        self.enable(st);
    }

    /// `vegas_enable`: Vegas samples from the next segment sent on; a fresh round.
    fn enable(&mut self, st: &CcState) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = st.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = NO_RTT;
    }

    /// `tcp_vegas_state`: entering Open enables Vegas (a fresh round); any other state
    /// (Disorder, Recovery, Loss) disables it, and the window then follows Reno.
    pub fn set_state(&mut self, st: &CcState, open: bool) {
        if open {
            self.enable(st);
        } else {
            self.doing_vegas_now = false;
        }
    }

    /// `tcp_vegas_pkts_acked`: a sample of `rtt` counts as `rtt_us + 1` (never zero);
    /// baseRTT is the minimum since initialisation, minRTT the minimum of the round.
    pub fn pkts_acked(&mut self, rtt: Option<Time>) {
        let Some(rtt) = rtt else {
            return; // Linux: rtt_us < 0, no sample (Karn)
        };
        let vrtt = u32::try_from(rtt.nanos() / 1000)
            .unwrap_or(u32::MAX)
            .saturating_add(1);
        self.base_rtt = self.base_rtt.min(vrtt);
        self.min_rtt = self.min_rtt.min(vrtt);
        self.cnt_rtt += 1;
    }

    /// `tcp_reno_ssthresh`, called on entering recovery or loss: half the window (integer
    /// shift), at least 2; `tcp_init_cwnd_reduction` and `tcp_enter_loss` clear
    /// `snd_cwnd_cnt`.
    pub fn loss_ssthresh(&mut self, st: &CcState) -> f64 {
        self.cwnd_cnt = AiCredit::default();
        tcp_reno_ssthresh(st) as f64
    }

    /// The base RTT (for `variables`).
    pub fn base_rtt(&self) -> Option<Time> {
        (self.base_rtt != NO_RTT).then(|| us_time(self.base_rtt))
    }

    /// `tcp_vegas_cong_avoid` for an ACK that acknowledged `acked` segments (the ACK
    /// number is `st.snd_una`). Returns the view of a round that ended with a Vegas
    /// decision, for the caller's bookkeeping.
    pub fn cong_avoid<R: AvoidanceRule>(
        &mut self,
        st: &mut CcState,
        acked: u32,
        rule: &mut R,
    ) -> Option<(RoundView, Estimate)> {
        if !self.doing_vegas_now {
            self.reno_cong_avoid(st, acked);
            return None;
        }
        if st.snd_una <= self.beg_snd_nxt {
            // Inside a round: only slow start grows the window, on every ACK.
            if st.in_slow_start() {
                slow_start(st, acked);
            } else {
                rule.grow_per_ack(st, acked);
            }
            return None;
        }
        // The once-per-RTT adjustment; the next round ends after what is sent by now.
        self.beg_snd_nxt = st.snd_nxt;
        let decided = if self.cnt_rtt <= 2 {
            // Two samples or fewer are likely all delayed ACKs: behave as Reno.
            self.reno_cong_avoid(st, acked);
            None
        } else {
            Some(self.decide(st, acked, rule))
        };
        self.cnt_rtt = 0;
        self.min_rtt = NO_RTT;
        decided
    }

    /// The Vegas decision at the end of a round with at least 3 samples, on the round's
    /// minimum RTT.
    fn decide<R: AvoidanceRule>(
        &mut self,
        st: &mut CcState,
        acked: u32,
        rule: &mut R,
    ) -> (RoundView, Estimate) {
        let (rtt, base) = (self.min_rtt as u64, self.base_rtt as u64);
        let cwnd = cwnd_of(st);
        // target_cwnd = cwnd * baseRTT / rtt in 64 bits, truncated; Diff = cwnd * (rtt -
        // baseRTT) / baseRTT in 32-bit unsigned arithmetic (the product wraps in Linux
        // too), truncated.
        let target = cwnd * base / rtt;
        let diff = ((cwnd as u32).wrapping_mul((rtt - base) as u32) / base as u32) as u64;
        let mut est = Estimate::new(cwnd as f64, us_time(base as u32), us_time(rtt as u32));
        est.diff = diff as f64;
        let view = RoundView {
            cwnd: cwnd as f64,
            rtt: us_time(rtt as u32),
            base_rtt: us_time(base as u32),
            est,
            in_slow_start: st.in_slow_start(),
        };
        if diff as f64 > self.gamma && view.in_slow_start {
            // Leave slow start at the window that matches the actual rate, plus one for
            // the truncation: cwnd = min(cwnd, target_cwnd + 1); ssthresh follows
            // (tcp_vegas_ssthresh: min(ssthresh, cwnd)), which ends slow start.
            st.cwnd = cwnd.min(target + 1) as f64;
            st.ssthresh = ssthresh_of(st).min(cwnd_of(st)) as f64;
        } else if view.in_slow_start {
            slow_start(st, acked);
        } else {
            // Congestion avoidance: the member's rule (plain Vegas: -1 if Diff > beta, +1
            // if Diff < alpha). A decrease pulls ssthresh down with the window
            // (tcp_vegas_ssthresh). Linux does not ask whether the window was the limit.
            let step = rule.on_round(&view);
            st.cwnd = (st.cwnd + step).max(0.0);
            if step < 0.0 {
                st.ssthresh = ssthresh_of(st).min(cwnd_of(st)) as f64;
            }
        }
        // Clamp to 2 .. snd_cwnd_clamp (~0 by default: no upper clamp).
        st.cwnd = st.cwnd.max(2.0);
        // tcp_current_ssthresh outside a window reduction: at least 3/4 of the window.
        let cwnd = cwnd_of(st);
        st.ssthresh = ssthresh_of(st).max((cwnd >> 1) + (cwnd >> 2)) as f64;
        rule.after_round(&view, st.cwnd);
        (view, est)
    }

    /// `tcp_reno_cong_avoid`: nothing unless the window is the limit; slow start, and
    /// the acknowledgements left over from it go to additive increase.
    fn reno_cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        let Some(acked) = after_slow_start(st, acked) else {
            return;
        };
        let w = cwnd_of(st) as u32;
        self.cwnd_cnt.grow(st, w, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cc::linux_window::limited_state as state;

    #[test]
    fn reno_growth_only_when_the_window_is_the_limit() {
        let mut v = LinuxVegas::new(2.0, 4.0, 1.0);
        let mut st = state(4.0, 4.0);
        v.reno_cong_avoid(&mut st, 4);
        assert_eq!(st.cwnd, 5.0);
        st.cwnd_limited = false;
        v.reno_cong_avoid(&mut st, 100);
        assert_eq!(st.cwnd, 5.0, "no growth unless cwnd-limited");
    }

    #[test]
    fn rtt_samples_are_whole_microseconds_plus_one() {
        let mut v = LinuxVegas::new(2.0, 4.0, 1.0);
        v.pkts_acked(Some(Time::from_nanos(100_999)));
        v.pkts_acked(None);
        assert_eq!((v.base_rtt, v.min_rtt, v.cnt_rtt), (101, 101, 1));
        v.pkts_acked(Some(Time::from_micros(150)));
        assert_eq!((v.base_rtt, v.min_rtt, v.cnt_rtt), (101, 101, 2));
    }
}
