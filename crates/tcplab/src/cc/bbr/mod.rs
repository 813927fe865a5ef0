//! BBR v1 ("BBR Congestion Control", draft-cardwell-iccrg-bbr-congestion-control-00,
//! "the draft" below), behaving as Linux's net/ipv4/tcp_bbr.c does: its constants in its
//! fixed point, its order of updates per ACK, and the parts Linux added after the draft
//! (long-term bandwidth sampling for policers, lt_bw.rs; ACK aggregation,
//! aggregation.rs). Written from the draft and the kernel's documented behaviour, not
//! from its source.
//!
//! Rules and where they come from (each again at its function):
//! - Path model (section 4.1): BtlBw, the windowed maximum of delivery-rate samples
//!   over 10 round trips, application-limited samples only if they raise it (4.1.1.4,
//!   4.1.1.5); RTprop, the minimum RTT over 10 s (4.1.2.3) (filters.rs).
//! - Round trips are counted by delivered data (4.1.1.3): one ends when a segment sent
//!   after the previous one ended is delivered.
//! - STARTUP (4.3.2): pacing and cwnd gain 2/ln 2 (Linux 739/256); the pipe is full when
//!   three rounds in a row, not application-limited, raised BtlBw by less than 25 %
//!   (4.3.2.2).
//! - DRAIN (4.3.3): pacing gain ln 2/2 (Linux 88/256), cwnd gain 2/ln 2, until the data
//!   in flight is at most one BDP.
//! - PROBE_BW (4.3.4): pacing gains cycling [5/4, 3/4, 1, 1, 1, 1, 1, 1], cwnd gain 2;
//!   a phase lasts RTprop, the 5/4 phase longer until the data in flight reaches 5/4 BDP
//!   or a loss, the 3/4 phase shorter once it falls to one BDP (4.3.4.3); the cycle
//!   starts at a random phase other than 3/4 (4.3.4.2; Linux draws one of 7).
//! - PROBE_RTT (4.3.5): when RTprop has not been refreshed for 10 s, cwnd 4 for 200 ms
//!   and at least one round trip once the flight is that low, then back to PROBE_BW (or
//!   STARTUP if the pipe was never full) with the cwnd from before; samples meanwhile
//!   are application-limited (Linux).
//! - Pacing rate (4.2.1): pacing gain x bandwidth, less Linux's 1 % margin
//!   (`bbr_pacing_margin_percent`); never lowered in STARTUP; before the first RTT sample
//!   cwnd per SRTT (1 ms without one) at the STARTUP gain.
//! - cwnd (4.2.3): target cwnd gain x BDP (10 segments before an RTT sample, 4.2.3.1),
//!   plus the ACK-aggregation allowance once the pipe is full, plus 3 pacing quanta (4.2.2;
//!   Linux `bbr_quantization_budget`), rounded up to even, 2 more in the 5/4 phase;
//!   cwnd grows by the segments each ACK delivers towards it, and is cut to it only once
//!   the pipe is full (4.2.3.6); at least 4 segments (4.2.3.3); 4 at most in PROBE_RTT
//!   (4.2.3.5).
//! - Loss recovery (4.2.3.4): losses come off cwnd; the first round trip of recovery
//!   conserves packets (cwnd = flight + delivered); leaving recovery restores the cwnd
//!   from before it. A timeout ends the round and restarts full-pipe detection (Linux).
//! - Restart from idle (4.3.4.4): an application-limited flow that starts sending again
//!   paces at BtlBw in PROBE_BW, and may leave PROBE_RTT.
//! - A spurious loss response undone resets full-pipe detection and long-term sampling
//!   (Linux `bbr_undo_cwnd`).
//!
//! Simplifications: an ACK is never taken to be delayed (Linux marks a lone ACK of a
//! short segment so, for the RTprop filter); the TSO quantum is the flow's
//! `pacing_quantum`, where Linux derives it from the pacing rate (2 segments from 1.2
//! to about 23 Mb/s).

mod aggregation;
pub mod filters;
mod lt_bw;
#[cfg(test)]
mod tests;

use super::params::ParamStruct;
use super::registry::Algorithm;
use super::{
    parse_params, CaEvent, CaState, CcSpec, CcState, CongestionControl, LossInfo, RateSample,
    Recovery,
};
use crate::config::ConfigError;
use crate::sim::{RngStream, Time};
use aggregation::AckAggregation;
use filters::{MinRtt, WindowedMax};
use lt_bw::{Counters, LongTermBw, Step, Verdict};
use serde::Deserialize;

/// Linux's fixed-point unit of gains (`BBR_UNIT`); its gains are kept exactly.
const UNIT: f64 = 256.0;
/// 2/ln 2 as Linux rounds it (`bbr_high_gain` = 256 * 2885 / 1000 + 1).
pub const HIGH_GAIN: f64 = 739.0 / UNIT;
/// ln 2/2 as Linux rounds it (`bbr_drain_gain` = 256 * 1000 / 2885).
pub const DRAIN_GAIN: f64 = 88.0 / UNIT;
/// cwnd gain in PROBE_BW (draft 4.3.4).
pub const CWND_GAIN: f64 = 2.0;
/// The PROBE_BW gain cycle (draft 4.3.4.1).
pub const PACING_GAINS: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// The cycle starts at one of this many phases (`bbr_cycle_rand`).
const CYCLE_RAND: u64 = 7;
/// BtlBw window, round trips: the cycle and two more (`bbr_bw_rtts`).
const BW_WINDOW_ROUNDS: u64 = PACING_GAINS.len() as u64 + 2;
/// RTprop window (`bbr_min_rtt_win_sec`).
const MIN_RTT_WINDOW: Time = Time::from_millis(10_000);
/// Time at the minimum cwnd in PROBE_RTT (`bbr_probe_rtt_mode_ms`).
const PROBE_RTT_TIME: Time = Time::from_millis(200);
/// The smallest cwnd, and PROBE_RTT's (`bbr_cwnd_min_target`).
const MIN_CWND: f64 = 4.0;
/// STARTUP ends after this many rounds without 25 % growth (`bbr_full_bw_thresh`,
/// `bbr_full_bw_cnt`).
const FULL_BW_GROWTH: f64 = 1.25;
const FULL_BW_ROUNDS: u32 = 3;
/// Pacing 1 % below the estimate (`bbr_pacing_margin_percent`).
const PACING_MARGIN: f64 = 0.99;
/// The BDP before an RTT sample, and the delivered data below which STARTUP grows cwnd
/// regardless (Linux `TCP_INIT_CWND`).
const INIT_CWND: f64 = 10.0;
/// Linux `TCP_INFINITE_SSTHRESH`, as the sender's "unlimited".
const INFINITE_SSTHRESH: f64 = 1e9;

/// BBR in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "bbr",
    build: |spec, field| Ok(Box::new(Bbr::from_spec(spec, field)?)),
    params: &[ParamStruct::of::<BbrParams>],
    source: include_str!("mod.rs"),
};

/// BBR's parameters: none yet; the table only names it (`cc = { name = "bbr" }`).
#[derive(Clone, Debug, Default, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct BbrParams {}

/// The state machine (draft 3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    /// The number plotted for the mode (the `mode` variable).
    pub fn index(self) -> f64 {
        match self {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0,
            Mode::ProbeRtt => 3.0,
        }
    }
}

/// Bytes per second of `bw` segments per second at `gain`, less the pacing margin
/// (Linux `bbr_rate_bytes_per_sec`).
fn rate_bytes(bw: f64, gain: f64, mss: u32) -> f64 {
    bw * mss as f64 * gain * PACING_MARGIN
}

/// A whole number of segments at least `x` (tolerating the last bits of rounding).
fn ceil_segments(x: f64) -> f64 {
    (x - 1e-9).ceil().max(0.0)
}

pub struct Bbr {
    mode: Mode,
    rng: RngStream,
    mss: u32,
    /// BtlBw, segments per second.
    bw: WindowedMax,
    min_rtt: MinRtt,
    round_count: u64,
    /// `delivered` when the current round ends (Linux `next_rtt_delivered`).
    next_round_delivered: u64,
    round_start: bool,
    full_bw: f64,
    full_bw_rounds: u32,
    full_bw_reached: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    cycle_idx: usize,
    /// When the current gain-cycle phase began, on the delivery clock.
    cycle_stamp: Time,
    /// When PROBE_RTT may end, once the flight is down to the minimum cwnd.
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    prev_ca_state: CaState,
    packet_conservation: bool,
    /// cwnd before recovery or PROBE_RTT, to restore after.
    prior_cwnd: f64,
    /// Restarting from idle: no PROBE_RTT until data is delivered again.
    idle_restart: bool,
    has_seen_rtt: bool,
    lt: LongTermBw,
    aggregation: AckAggregation,
}

impl Bbr {
    pub fn new() -> Self {
        Bbr {
            mode: Mode::Startup,
            rng: RngStream::new(0, "bbr"),
            mss: 1,
            bw: WindowedMax::new(BW_WINDOW_ROUNDS),
            min_rtt: MinRtt::new(MIN_RTT_WINDOW, Time::MAX, Time::ZERO),
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            full_bw: 0.0,
            full_bw_rounds: 0,
            full_bw_reached: false,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            cycle_idx: 0,
            cycle_stamp: Time::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            prior_cwnd: 0.0,
            idle_restart: false,
            has_seen_rtt: false,
            lt: LongTermBw::default(),
            aggregation: AckAggregation::default(),
        }
    }

    pub fn from_spec(spec: &CcSpec, field: &str) -> Result<Self, ConfigError> {
        let _: BbrParams = parse_params(spec, field)?;
        Ok(Bbr::new())
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }

    /// BtlBw, segments per second.
    pub fn max_bw(&self) -> f64 {
        self.bw.get()
    }

    /// The bandwidth BBR uses: the policed rate if it found one, else BtlBw.
    pub fn bw(&self) -> f64 {
        if self.lt.in_use {
            self.lt.bw
        } else {
            self.max_bw()
        }
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    fn counters(st: &CcState) -> Counters {
        Counters {
            delivered: st.delivered,
            lost: st.lost,
            delivered_time: st.delivered_time,
        }
    }

    /// gain x BDP, whole segments; 10 before an RTT sample (draft 4.2.3.1-2, Linux `bbr_bdp`).
    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        if !self.min_rtt.is_known() {
            return INIT_CWND;
        }
        ceil_segments(bw * self.min_rtt.rtt.as_secs_f64() * gain)
    }

    /// Room for the segments the pacer and the receiver's ACKs batch (draft 4.2.2; Linux
    /// `bbr_quantization_budget`): 3 quanta, rounded up to even, and 2 more while probing.
    fn quantization_budget(&self, cwnd: f64, st: &CcState) -> f64 {
        let with_quanta = cwnd as u64 + 3 * st.pacing_quantum as u64;
        let even = (with_quanta + 1) & !1;
        let probing = self.mode == Mode::ProbeBw && self.cycle_idx == 0;
        even as f64 + if probing { 2.0 } else { 0.0 }
    }

    /// The data in flight that fills gain x BDP (Linux `bbr_inflight`).
    fn inflight(&self, bw: f64, gain: f64, st: &CcState) -> f64 {
        self.quantization_budget(self.bdp(bw, gain), st)
    }

    /// The data in flight when the next segment leaves (Linux
    /// `bbr_packets_in_net_at_edt`): what the bandwidth delivers until the pacer's next
    /// slot comes off; while probing the segment about to leave counts too.
    fn in_flight_at_next_send(&self, st: &CcState, in_flight: u32) -> f64 {
        let wait = st.pacing_next.saturating_sub(st.now).as_secs_f64();
        let delivered_meanwhile = (self.bw() * wait).floor();
        let mut at_send = in_flight as f64;
        if self.pacing_gain > 1.0 {
            at_send += st.pacing_quantum as f64;
        }
        (at_send - delivered_meanwhile).max(0.0)
    }

    /// Pacing rate from cwnd per SRTT at the STARTUP gain (Linux
    /// `bbr_init_pacing_rate_from_rtt`; 1 ms before an RTT sample).
    fn init_pacing_rate(&mut self, st: &mut CcState) {
        let rtt = if st.srtt > Time::ZERO {
            self.has_seen_rtt = true;
            st.srtt
        } else {
            Time::from_millis(1)
        };
        let bw = st.cwnd / rtt.as_secs_f64();
        st.pacing_rate = rate_bytes(bw, HIGH_GAIN, st.mss);
    }

    /// Draft 4.2.1 (Linux `bbr_set_pacing_rate`): gain x bandwidth, never lower while
    /// STARTUP has not filled the pipe.
    fn set_pacing_rate(&mut self, st: &mut CcState, bw: f64, gain: f64) {
        let rate = rate_bytes(bw, gain, st.mss);
        if !self.has_seen_rtt && st.srtt > Time::ZERO {
            self.init_pacing_rate(st);
        }
        if self.full_bw_reached || rate > st.pacing_rate {
            st.pacing_rate = rate;
        }
    }

    /// Remembers cwnd to restore after recovery or PROBE_RTT (Linux `bbr_save_cwnd`):
    /// the present one, unless already in recovery or PROBE_RTT, where the larger.
    fn save_cwnd(&mut self, st: &CcState) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = st.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(st.cwnd);
        }
    }

    /// Draft 4.3.4.2: PROBE_BW starts at a random phase other than the 3/4 one, so
    /// flows do not probe in step and a new one never starts by draining.
    fn enter_probe_bw(&mut self, st: &CcState) {
        self.mode = Mode::ProbeBw;
        let last = PACING_GAINS.len() - 1;
        self.cycle_idx = last - self.rng.below(CYCLE_RAND) as usize;
        self.advance_cycle_phase(st);
    }

    fn advance_cycle_phase(&mut self, st: &CcState) {
        self.cycle_idx = (self.cycle_idx + 1) % PACING_GAINS.len();
        self.cycle_stamp = st.delivered_time;
    }

    /// Back to STARTUP if the pipe was never filled, else PROBE_BW (Linux `bbr_reset_mode`).
    fn leave_probe_rtt(&mut self, st: &CcState) {
        if self.full_bw_reached {
            self.enter_probe_bw(st);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Draft 4.3.4.3 (Linux `bbr_is_next_cycle_phase`): a phase lasts RTprop on the
    /// delivery clock; the 5/4 phase until the flight reaches 5/4 BDP or a loss shows it
    /// will not fit; the 3/4 phase ends early once the flight is down to one BDP.
    fn phase_done(&self, st: &CcState, rs: &RateSample) -> bool {
        let full_length = st.delivered_time.saturating_sub(self.cycle_stamp) > self.min_rtt.rtt;
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let in_flight = self.in_flight_at_next_send(st, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > 1.0 {
            return full_length
                && (rs.losses > 0 || in_flight >= self.inflight(bw, self.pacing_gain, st));
        }
        full_length || in_flight <= self.inflight(bw, 1.0, st)
    }

    /// Draft 4.1.1.3-5 (Linux `bbr_update_bw`): round counting and the BtlBw filter, from
    /// valid samples only.
    fn update_bw(&mut self, st: &mut CcState, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.rate() else {
            return;
        };
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = st.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.sample_long_term(st, rs.losses, rs.is_app_limited);
        // An application-limited sample says little, unless it is faster still.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(self.round_count, bw);
        }
    }

    /// One step of policer detection (lt_bw.rs); giving up the policed rate restarts
    /// the gain cycle.
    fn sample_long_term(&mut self, st: &CcState, losses: u32, app_limited: bool) {
        let step = Step {
            round_start: self.round_start,
            losses,
            app_limited,
            probe_bw: self.mode == Mode::ProbeBw,
            mss: st.mss,
        };
        if self.lt.step(step, Self::counters(st)) == Verdict::StopUsing {
            self.enter_probe_bw(st);
        }
    }

    /// Linux `bbr_update_ack_aggregation`, from valid samples that delivered data.
    fn update_ack_aggregation(&mut self, st: &CcState, rs: &RateSample) {
        if rs.acked_sacked == 0 || rs.rate().is_none() {
            return;
        }
        let bw = self.bw();
        self.aggregation.update(
            self.round_start,
            rs.acked_sacked,
            st.delivered_time,
            bw,
            st.cwnd,
        );
    }

    /// The cwnd allowance for ACK aggregation, once the pipe is full, at most 100 ms of
    /// bandwidth (Linux `bbr_ack_aggregation_cwnd`).
    fn ack_aggregation_cwnd(&self) -> f64 {
        if !self.full_bw_reached {
            return 0.0;
        }
        let cap = (self.bw() * aggregation::MAX_EXTRA_TIME.as_secs_f64()).floor();
        (self.aggregation.extra_acked() as f64).min(cap)
    }

    /// Draft 4.3.2.2 (Linux `bbr_check_full_bw_reached`): once per round trip that is not
    /// application-limited, a BtlBw 25 % above the last plateau starts a new one; three
    /// rounds on a plateau fill the pipe.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * FULL_BW_GROWTH {
            self.full_bw = self.max_bw();
            self.full_bw_rounds = 0;
            return;
        }
        self.full_bw_rounds += 1;
        self.full_bw_reached = self.full_bw_rounds >= FULL_BW_ROUNDS;
    }

    /// Draft 4.3.3 (Linux `bbr_check_drain`): a full pipe ends STARTUP (ssthresh then
    /// records one BDP); DRAIN ends once the flight is down to one BDP.
    fn check_drain(&mut self, st: &mut CcState) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            st.ssthresh = self.inflight(self.max_bw(), 1.0, st);
        }
        if self.mode == Mode::Drain
            && self.in_flight_at_next_send(st, st.in_flight)
                <= self.inflight(self.max_bw(), 1.0, st)
        {
            self.enter_probe_bw(st);
        }
    }

    /// Draft 4.1.2.3 and 4.3.5 (Linux `bbr_update_min_rtt`): the RTprop filter, entering
    /// PROBE_RTT when it expired, and leaving PROBE_RTT after 200 ms and a round trip
    /// at the minimum flight.
    fn update_min_rtt(&mut self, st: &mut CcState, rs: &RateSample) {
        let expired = self.min_rtt.update(st.now, rs.rtt, false);
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(st);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            // The low flight would make every sample look slow: mark them app-limited.
            st.app_limited = (st.delivered + st.in_flight as u64).max(1);
            match self.probe_rtt_done {
                None if st.in_flight as f64 <= MIN_CWND => {
                    self.probe_rtt_done = Some(st.now + PROBE_RTT_TIME);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = st.delivered;
                }
                Some(_) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done {
                        self.check_probe_rtt_done(st);
                    }
                }
                None => {}
            }
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    /// Ends PROBE_RTT once its time has passed: RTprop's window restarts and cwnd comes
    /// back (Linux `bbr_check_probe_rtt_done`).
    fn check_probe_rtt_done(&mut self, st: &mut CcState) {
        if self.probe_rtt_done.is_none_or(|done| st.now <= done) {
            return;
        }
        self.min_rtt.stamp = st.now;
        st.cwnd = st.cwnd.max(self.prior_cwnd);
        self.leave_probe_rtt(st);
    }

    /// The gains of the mode (Linux `bbr_update_gains`); a policed flow paces at 1.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw if self.lt.in_use => (1.0, CWND_GAIN),
            Mode::ProbeBw => (PACING_GAINS[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Draft 4.2.3.4 (Linux `bbr_set_cwnd_to_recover_or_restore`): losses come off cwnd;
    /// the first round of recovery conserves packets; leaving recovery restores the
    /// cwnd from before. Returns cwnd and whether packet conservation decides it.
    fn recover_or_restore(&mut self, st: &mut CcState, rs: &RateSample, acked: u32) -> (f64, bool) {
        let state = st.ca_state;
        let mut cwnd = st.cwnd;
        if rs.losses > 0 {
            cwnd = (cwnd - rs.losses as f64).max(1.0);
        }
        let in_flight = st.in_flight as f64;
        if state == CaState::Recovery && self.prev_ca_state != CaState::Recovery {
            self.packet_conservation = true;
            self.next_round_delivered = st.delivered; // the round starts now
            cwnd = in_flight + acked as f64;
        } else if self.prev_ca_state >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(in_flight + acked as f64), true);
        }
        (cwnd, false)
    }

    /// Draft 4.2.3.6 (Linux `bbr_set_cwnd`).
    fn set_cwnd(&mut self, st: &mut CcState, rs: &RateSample, bw: f64, gain: f64) {
        let acked = rs.acked_sacked;
        if acked > 0 {
            let (mut cwnd, conserving) = self.recover_or_restore(st, rs, acked);
            if !conserving {
                let target = self.bdp(bw, gain) + self.ack_aggregation_cwnd();
                let target = self.quantization_budget(target, st);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked as f64).min(target);
                } else if cwnd < target || st.delivered < INIT_CWND as u64 {
                    cwnd += acked as f64;
                }
                cwnd = cwnd.max(MIN_CWND);
            }
            st.cwnd = cwnd;
        }
        if self.mode == Mode::ProbeRtt {
            st.cwnd = st.cwnd.min(MIN_CWND);
        }
    }
}

impl Default for Bbr {
    fn default() -> Self {
        Bbr::new()
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// Linux recovers with its scoreboard (SACK, RACK), whose PRR BBR replaces.
    fn default_recovery(&self) -> Recovery {
        Recovery::Prr
    }

    fn controls_rate(&self) -> bool {
        true
    }

    fn set_random_stream(&mut self, rng: RngStream) {
        self.rng = rng;
    }

    /// Draft 4.3.1 (Linux `bbr_init`).
    fn init(&mut self, st: &mut CcState) {
        let rng = std::mem::replace(&mut self.rng, RngStream::new(0, "bbr"));
        *self = Bbr::new();
        self.rng = rng;
        self.mss = st.mss;
        st.ssthresh = INFINITE_SSTHRESH;
        self.next_round_delivered = st.delivered;
        self.min_rtt = MinRtt::new(MIN_RTT_WINDOW, st.min_rtt, st.now);
        self.init_pacing_rate(st);
        self.lt.reset(Self::counters(st));
        self.aggregation.restart_epoch(st.now);
    }

    /// Linux `bbr_ssthresh`: BBR keeps ssthresh; it only notes cwnd for after recovery.
    fn ssthresh(&mut self, st: &CcState, _loss: &LossInfo) -> f64 {
        self.save_cwnd(st);
        st.ssthresh
    }

    /// Never called: the sender calls `cong_control` instead.
    fn cong_avoid(&mut self, _st: &mut CcState, _acked: u32) {}

    /// Linux `bbr_main`: update the model and the state machine, then pace and size cwnd.
    fn cong_control(&mut self, st: &mut CcState, rs: &RateSample) {
        self.update_bw(st, rs);
        self.update_ack_aggregation(st, rs);
        if self.mode == Mode::ProbeBw && self.phase_done(st, rs) {
            self.advance_cycle_phase(st);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(st);
        self.update_min_rtt(st, rs);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(st, bw, self.pacing_gain);
        self.set_cwnd(st, rs, bw, self.cwnd_gain);
    }

    /// Linux `bbr_set_state`: a timeout ends the round, restarts full-pipe detection and
    /// counts as a loss for policer detection.
    fn set_state(&mut self, st: &mut CcState, new: CaState) {
        if new == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0.0;
            self.round_start = true;
            self.sample_long_term(st, 1, false);
        }
    }

    /// Draft 4.3.4.4 (Linux `bbr_cwnd_event`): restarting from idle while
    /// application-limited paces at the estimate rather than above it.
    fn cwnd_event(&mut self, st: &mut CcState, event: CaEvent) {
        if event != CaEvent::TxStart || st.app_limited == 0 {
            return;
        }
        self.idle_restart = true;
        self.aggregation.restart_epoch(st.now);
        match self.mode {
            Mode::ProbeBw => {
                let bw = self.bw();
                self.set_pacing_rate(st, bw, 1.0);
            }
            Mode::ProbeRtt => self.check_probe_rtt_done(st),
            _ => {}
        }
    }

    /// Linux `bbr_undo_cwnd`: the loss was spurious; the pipe may not be full after all.
    fn undo_cwnd(&mut self, st: &CcState, _prior_cwnd: f64) -> f64 {
        self.full_bw = 0.0;
        self.full_bw_rounds = 0;
        self.lt.reset(Self::counters(st));
        st.cwnd
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        let mss = self.mss as f64;
        out.push(("mode", self.mode.index()));
        out.push(("bw", self.bw() * mss));
        out.push(("max_bw", self.max_bw() * mss));
        if self.min_rtt.is_known() {
            out.push(("min_rtt", self.min_rtt.rtt.as_secs_f64()));
        }
        out.push(("pacing_gain", self.pacing_gain));
        out.push(("cwnd_gain", self.cwnd_gain));
        out.push(("cycle_idx", self.cycle_idx as f64));
        out.push(("full_bw_reached", f64::from(u8::from(self.full_bw_reached))));
        out.push(("lt_use_bw", f64::from(u8::from(self.lt.in_use))));
        out.push(("extra_acked", self.aggregation.extra_acked() as f64));
    }
}
