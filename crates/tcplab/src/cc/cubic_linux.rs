//! The rules of Linux's `net/ipv4/tcp_cubic.c`, for CUBIC's `variant = "linux"`.
//!
//! Written from reading the kernel source, rule by rule; each function's comment names the
//! Linux behaviour it follows. Where RFC 9438 and the module agree in shape they differ in
//! arithmetic, and at the small windows of a lossy path the arithmetic is what shows:
//! - The window is whole segments, grown by `tcp_cong_avoid_ai`: one segment per `cnt`
//!   acknowledged, `cnt = cwnd / (target - cwnd)` in integers, at least 2, at most 20
//!   before the first loss, `100 cwnd` when the target is not above the window.
//! - Time is in jiffies (`HZ`, 250 on the test bed's kernel), and the target is the cubic
//!   function one *minimum* RTT ahead (`delay_min`, not the smoothed RTT); `cnt` is
//!   recomputed at most once per jiffy, and while the window is unchanged at most every
//!   `HZ / 32` jiffies.
//! - The Reno-friendly estimate `tcp_cwnd` counts whole segments, one per
//!   `cwnd * beta_scale / 8` acknowledged; the window follows it through `cnt`, an RTT
//!   behind, instead of jumping to it.
//! - `ssthresh = cwnd * beta / 1024` truncated (beta 717), `W_max` likewise.
//! - RTT samples in the first second of an epoch do not update `delay_min`; a timeout
//!   (`TCP_CA_Loss`) forgets everything, `delay_min` and `W_max` included.
//!
//! - After an idle spell (`CA_EVENT_TX_START`) the epoch moves forward by the idle time.
//!
//! The one step not in the kernel's integers: K is the exact integer cube root, where the
//! kernel's table-and-Newton `cubic_root` differs by 1-3 units of 2^-10 s for most inputs
//! (`cnt` then differs in about 0.5 % of updates). And where an epoch ages past about 6
//! minutes the kernel's 64-bit cube wraps; this module saturates instead.

use super::hystart::HyStart;
use super::linux_window::{after_slow_start, cwnd_of, AiCredit};
use super::{AckSample, CaEvent, CaState, CcState, CongestionControl, LossInfo};
use crate::sim::Time;

/// `BICTCP_BETA_SCALE`.
const BETA_SCALE: u64 = 1024;
/// `BICTCP_HZ`: the cubic function's time unit is 2^-10 s.
const BIC_HZ: u32 = 10;

/// The module parameters, in the kernel's integers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinuxCubicParams {
    /// `beta` (717 = 0.7 * 1024).
    pub beta: u32,
    /// `bic_scale` (41: C = 41 * 10 / 1024 = 0.4004).
    pub bic_scale: u32,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
    /// The kernel's timer frequency `HZ`.
    pub hz: u32,
}

impl LinuxCubicParams {
    /// The kernel's integers for CUBIC's C and beta: `bic_scale = round(C * 1024 / 10)`,
    /// `beta = round(beta * 1024)`.
    pub fn from_real(c: f64, beta: f64, fast_convergence: bool, friendly: bool, hz: u32) -> Self {
        LinuxCubicParams {
            beta: (beta * BETA_SCALE as f64).round() as u32,
            bic_scale: (c * BETA_SCALE as f64 / 10.0).round().max(1.0) as u32,
            fast_convergence,
            tcp_friendliness: friendly,
            hz,
        }
    }

    /// `cube_rtt_scale`: C scaled by 1024.
    fn cube_rtt_scale(&self) -> u64 {
        self.bic_scale as u64 * 10
    }

    /// `cube_factor`: 2^40 / (C * 1024), so that K = cbrt(cube_factor * (W_max - cwnd)) in
    /// units of 2^-10 s.
    fn cube_factor(&self) -> u64 {
        (1u64 << (10 + 3 * BIC_HZ)) / self.cube_rtt_scale()
    }

    /// `beta_scale`: the Reno-friendly estimate grows one segment per
    /// `cwnd * beta_scale / 8` acknowledged (3 (1 - beta) / (1 + beta) per round).
    fn beta_scale(&self) -> u64 {
        let b = self.beta as u64;
        8 * (BETA_SCALE + b) / 3 / (BETA_SCALE - b)
    }
}

/// Linux's `struct bictcp`, its HyStart state, and `snd_cwnd_cnt`.
#[derive(Clone, Debug)]
pub struct LinuxCubic {
    p: LinuxCubicParams,
    /// `cnt`: grow by one segment per this many acknowledged.
    cnt: u32,
    last_max_cwnd: u64,
    last_cwnd: u64,
    /// Jiffies of the last recomputation of `cnt`.
    last_time: u64,
    origin_point: u64,
    /// K in units of 2^-10 s.
    k: u64,
    /// Minimum RTT in microseconds (0: none yet).
    delay_min: u64,
    /// Jiffies at the start of the epoch; `None` (Linux: 0) until the first increase
    /// after a reduction.
    epoch_start: Option<u64>,
    ack_cnt: u64,
    tcp_cwnd: u64,
    hystart: Option<HyStart>,
    credit: AiCredit,
}

impl LinuxCubic {
    pub fn new(p: LinuxCubicParams, hystart: bool) -> Self {
        LinuxCubic {
            p,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin_point: 0,
            k: 0,
            delay_min: 0,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            hystart: hystart.then(HyStart::default),
            credit: AiCredit::default(),
        }
    }

    /// `tcp_jiffies32` at `now`.
    fn jiffies(&self, now: Time) -> u64 {
        (now.nanos() as u128 * self.p.hz as u128 / 1_000_000_000) as u64
    }

    /// `usecs_to_jiffies`, rounding up.
    fn usecs_to_jiffies(&self, us: u64) -> u64 {
        (us * self.p.hz as u64).div_ceil(1_000_000)
    }

    /// `cubictcp_init` (HyStart's first round).
    fn start_hystart_round(&mut self, st: &CcState) {
        if let Some(h) = &mut self.hystart {
            h.reset_round(st);
        }
    }

    /// `cubictcp_cwnd_event` on `CA_EVENT_TX_START` (the first send after an idle spell):
    /// the epoch moves forward by the idle time in jiffies (since the last send,
    /// `lsndtime`), never past now, so the cubic curve resumes where it stopped.
    pub fn tx_start(&mut self, st: &CcState) {
        let now = self.jiffies(st.now);
        let idle = now.saturating_sub(self.jiffies(st.last_send));
        if let Some(start) = &mut self.epoch_start {
            if idle > 0 {
                *start = (*start + idle).min(now);
            }
        }
    }

    /// `cubictcp_state` on entering `TCP_CA_Loss` (a timeout): `bictcp_reset` forgets
    /// every variable, and HyStart starts afresh.
    pub fn enter_loss(&mut self, st: &CcState) {
        *self = LinuxCubic::new(self.p, self.hystart.is_some());
        self.start_hystart_round(st);
    }

    /// `cubictcp_recalc_ssthresh`: the epoch ends; W_max with fast convergence; the
    /// window kept is `cwnd * beta / 1024`, at least 2. (`tcp_init_cwnd_reduction` and
    /// `tcp_enter_loss`, which call it, clear `snd_cwnd_cnt`.)
    pub fn recalc_ssthresh(&mut self, st: &CcState) -> f64 {
        let cwnd = cwnd_of(st);
        let beta = self.p.beta as u64;
        self.epoch_start = None;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.p.fast_convergence {
            cwnd * (BETA_SCALE + beta) / (2 * BETA_SCALE)
        } else {
            cwnd
        };
        self.credit = AiCredit::default();
        (cwnd * beta / BETA_SCALE).max(2) as f64
    }

    /// `cubictcp_acked`: an RTT sample. Samples within a second of the epoch's start
    /// (just after recovery) are discarded; the rest update `delay_min` and, in slow
    /// start, HyStart.
    pub fn acked_rtt(&mut self, st: &mut CcState, rtt: Option<Time>) {
        let Some(rtt) = rtt else {
            return;
        };
        if let Some(start) = self.epoch_start {
            if self.jiffies(st.now).saturating_sub(start) < self.p.hz as u64 {
                return;
            }
        }
        let delay = (rtt.nanos() / 1000).max(1);
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
        if let Some(h) = &mut self.hystart {
            h.on_rtt(st, Time::from_micros(delay));
        }
    }

    /// `cubictcp_cong_avoid`: nothing unless the window is the limit; slow start, then
    /// `bictcp_update` and `tcp_cong_avoid_ai` with its `cnt`.
    pub fn grow_window(&mut self, st: &mut CcState, acked: u32) {
        let Some(acked) = after_slow_start(st, acked) else {
            return;
        };
        self.update(cwnd_of(st), acked, self.jiffies(st.now));
        self.credit.grow(st, self.cnt, acked);
    }

    /// `bictcp_update`: recomputes `cnt` for window `cwnd` at jiffy `now`.
    fn update(&mut self, cwnd: u64, acked: u32, now: u64) {
        self.ack_cnt += acked as u64;
        // Unchanged window: recompute at most every HZ/32 jiffies.
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= self.p.hz as u64 / 32 {
            return;
        }
        // At most once per jiffy (a reduction clears the epoch, forcing a recomputation).
        if !(self.epoch_start.is_some() && now == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now;
            self.cubic_cnt(cwnd, acked, now);
        }
        if self.p.tcp_friendliness {
            self.friendliness(cwnd);
        }
        // At most one segment per two acknowledged: 1.5 cwnd per round.
        self.cnt = self.cnt.max(2);
    }

    /// The cubic function's `cnt` (RFC 9438 eq. 1 in the kernel's integers).
    fn cubic_cnt(&mut self, cwnd: u64, acked: u32, now: u64) {
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.epoch_start = Some(now);
                self.ack_cnt = acked as u64;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0;
                    self.origin_point = cwnd;
                } else {
                    self.k = cube_root(self.p.cube_factor() * (self.last_max_cwnd - cwnd));
                    self.origin_point = self.last_max_cwnd;
                }
                now
            }
        };
        // Time since the epoch began, plus the minimum RTT, in 2^-10 s.
        let t_jiffies = now - start + self.usecs_to_jiffies(self.delay_min);
        let t = (t_jiffies << BIC_HZ) / self.p.hz as u64;
        let offs = t.abs_diff(self.k) as u128;
        let delta = (self.p.cube_rtt_scale() as u128 * offs * offs * offs) >> (10 + 3 * BIC_HZ);
        let delta = delta.min(u32::MAX as u128) as u64;
        let target = if t < self.k {
            self.origin_point.saturating_sub(delta)
        } else {
            self.origin_point + delta
        };
        let cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100 * cwnd // a very small increase
        };
        // Before the first loss the available bandwidth is unknown: at least 5 % a round.
        let cnt = if self.last_max_cwnd == 0 {
            cnt.min(20)
        } else {
            cnt
        };
        self.cnt = cnt.min(u32::MAX as u64) as u32;
    }

    /// `tcp_friendliness`: the Reno-friendly estimate `tcp_cwnd`; where it is ahead of
    /// the window, `cnt` is at most `cwnd / (tcp_cwnd - cwnd)`.
    fn friendliness(&mut self, cwnd: u64) {
        // One segment for every whole step the count *exceeds* (Linux's loop runs while
        // `ack_cnt > step`, so a count of exactly one step waits). (Linux loops forever at a
        // zero step, which its beta range never gives.)
        let step = ((cwnd * self.p.beta_scale()) >> 3).max(1);
        let gained = self.ack_cnt.saturating_sub(1) / step;
        self.tcp_cwnd += gained;
        self.ack_cnt -= gained * step;
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            self.cnt = self.cnt.min(max_cnt.min(u32::MAX as u64) as u32);
        }
    }

    /// For `variables`: K in seconds, W_max, the Reno-friendly estimate.
    fn state_variables(&self) -> (f64, f64, f64) {
        let epoch = self.epoch_start.is_some();
        (
            if epoch {
                self.k as f64 / 1024.0
            } else {
                f64::NAN
            },
            self.last_max_cwnd as f64,
            if epoch {
                self.tcp_cwnd as f64
            } else {
                f64::NAN
            },
        )
    }
}

/// Linux's `struct tcp_congestion_ops cubictcp`: the hooks the kernel calls, each to the
/// rule above that the module's function of that hook follows.
impl CongestionControl for LinuxCubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn init(&mut self, st: &mut CcState) {
        self.start_hystart_round(st);
    }

    fn ssthresh(&mut self, st: &CcState, _loss: &LossInfo) -> f64 {
        self.recalc_ssthresh(st)
    }

    fn pkts_acked(&mut self, st: &mut CcState, sample: &AckSample) {
        self.acked_rtt(st, sample.rtt);
    }

    fn set_state(&mut self, st: &mut CcState, new: CaState) {
        if new == CaState::Loss {
            self.enter_loss(st);
        }
    }

    fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        self.grow_window(st, acked);
    }

    fn cwnd_event(&mut self, st: &mut CcState, event: CaEvent) {
        if event == CaEvent::TxStart {
            self.tx_start(st);
        }
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        let (k, w_max, w_est) = self.state_variables();
        out.push(("k", k));
        out.push(("w_max", w_max));
        out.push(("w_est", w_est));
    }
}

/// The integer cube root, rounded down.
fn cube_root(a: u64) -> u64 {
    let mut x = (a as f64).cbrt().round() as u64;
    while x > 0 && x.checked_pow(3).is_none_or(|c| c > a) {
        x -= 1;
    }
    while (x + 1).checked_pow(3).is_some_and(|c| c <= a) {
        x += 1;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> LinuxCubicParams {
        LinuxCubicParams::from_real(0.4, 0.7, true, true, 250)
    }

    fn state(cwnd: f64, now_ms: u64) -> CcState {
        let mut st = CcState::new(cwnd, 2.0, 1000, 1_000_000);
        st.cwnd_limited = true;
        st.now = Time::from_millis(now_ms);
        st
    }

    #[test]
    fn kernel_constants() {
        let p = params();
        assert_eq!((p.beta, p.bic_scale), (717, 41));
        assert_eq!(p.beta_scale(), 15);
        assert_eq!(p.cube_factor(), (1u64 << 40) / 410);
        assert_eq!(cube_root(27), 3);
        assert_eq!(cube_root(26), 2);
        assert_eq!(cube_root(u64::MAX), 2_642_245);
    }

    #[test]
    fn reduction_truncates_and_fast_convergence_lowers_w_max() {
        let mut c = LinuxCubic::new(params(), false);
        // 100 * 717 / 1024 = 70.02 -> 70; W_max = 100.
        assert_eq!(c.recalc_ssthresh(&state(100.9, 0)), 70.0);
        assert_eq!(c.last_max_cwnd, 100);
        // Below W_max: W_max = 90 * 1741 / 2048 = 76 (76.5 truncated).
        assert_eq!(c.recalc_ssthresh(&state(90.0, 0)), 63.0);
        assert_eq!(c.last_max_cwnd, 76);
        assert_eq!(c.recalc_ssthresh(&state(2.0, 0)), 2.0, "at least 2");
    }

    #[test]
    fn k_is_the_time_back_to_w_max_in_units_of_1024ths_of_a_second() {
        let mut c = LinuxCubic::new(params(), false);
        c.recalc_ssthresh(&state(100.0, 0));
        let mut st = state(70.0, 1000);
        st.ssthresh = 70.0;
        c.grow_window(&mut st, 1);
        // K = cbrt(30 / 0.4004) s = 4.2155 s.
        let k = c.k as f64 / 1024.0;
        assert!((k - (30.0f64 / 0.400390625).cbrt()).abs() < 2e-3, "{k}");
        assert_eq!(c.origin_point, 100);
    }

    #[test]
    fn before_a_loss_growth_is_at_least_one_segment_in_20_acks() {
        let mut c = LinuxCubic::new(params(), false);
        let mut st = state(40.0, 1000);
        st.ssthresh = 40.0;
        c.grow_window(&mut st, 1);
        assert!(c.cnt <= 20, "cnt {}", c.cnt);
        let mut grown = 0;
        for i in 0..40 {
            st.now = Time::from_millis(1000 + i);
            let before = st.cwnd;
            c.grow_window(&mut st, 1);
            grown += (st.cwnd - before) as u32;
        }
        assert!(grown >= 2, "{grown}");
    }

    #[test]
    fn just_after_a_reduction_the_truncated_drop_rounds_the_target_up() {
        // W_max 10, cwnd 7: K = cbrt(3 / 0.4004) s, truncated to 1/1024 s, so C K^3 comes
        // out just under 3 and truncates to 2: the target is 8, not 7, and cnt = 7 / 1
        // (a segment per round, where RFC 9438's real arithmetic gives a fraction of one).
        let mut c = LinuxCubic::new(params(), false);
        c.recalc_ssthresh(&state(10.0, 0));
        let mut st = state(7.0, 1000);
        st.ssthresh = 7.0;
        c.grow_window(&mut st, 1);
        assert_eq!((c.origin_point, c.cnt), (10, 7));
    }

    #[test]
    fn the_reno_friendly_estimate_caps_cnt() {
        // cwnd 7: one segment of the estimate per 7 * 15 / 8 = 13 ACKs; 27 ACKs make two,
        // so the window must gain 2 in a round: cnt at most 7 / 2.
        let mut c = LinuxCubic::new(params(), false);
        c.cnt = 700;
        c.tcp_cwnd = 7;
        c.ack_cnt = 27;
        c.friendliness(7);
        assert_eq!((c.tcp_cwnd, c.ack_cnt, c.cnt), (9, 1, 3));
        // Exactly one step: Linux's loop (`ack_cnt > step`) leaves it for the next ACK.
        (c.tcp_cwnd, c.ack_cnt) = (7, 13);
        c.friendliness(7);
        assert_eq!((c.tcp_cwnd, c.ack_cnt), (7, 13));
        c.tcp_cwnd = 5;
        c.cnt = 700;
        c.friendliness(7);
        assert_eq!(c.cnt, 700, "an estimate behind the window leaves cnt alone");
    }

    #[test]
    fn no_growth_unless_the_window_is_the_limit_and_a_timeout_forgets() {
        let mut c = LinuxCubic::new(params(), true);
        let mut st = state(20.0, 1000);
        st.ssthresh = 10.0;
        st.cwnd_limited = false;
        c.grow_window(&mut st, 10);
        assert_eq!(st.cwnd, 20.0);
        c.recalc_ssthresh(&st);
        c.acked_rtt(&mut st, Some(Time::from_millis(50)));
        assert_eq!(c.delay_min, 50_000);
        c.enter_loss(&st);
        assert_eq!((c.delay_min, c.last_max_cwnd, c.epoch_start), (0, 0, None));
    }

    #[test]
    fn an_idle_spell_moves_the_epoch_forward_but_never_past_now() {
        let mut c = LinuxCubic::new(params(), false);
        c.recalc_ssthresh(&state(20.0, 0));
        let mut st = state(14.0, 1000);
        st.ssthresh = 14.0;
        c.grow_window(&mut st, 1); // the epoch starts at 1 s: jiffy 250
        assert_eq!(c.epoch_start, Some(250));
        // Last send at 1.2 s, sending resumes at 1.7 s: 125 jiffies idle.
        st.last_send = Time::from_millis(1200);
        st.now = Time::from_millis(1700);
        c.tx_start(&st);
        assert_eq!(c.epoch_start, Some(375));
        // Idle since before the epoch began: the epoch moves to now, not beyond.
        st.last_send = Time::ZERO;
        st.now = Time::from_millis(1800);
        c.tx_start(&st);
        assert_eq!(c.epoch_start, Some(450));
        // No epoch (just after a reduction): nothing to move.
        c.recalc_ssthresh(&st);
        c.tx_start(&st);
        assert_eq!(c.epoch_start, None);
    }

    #[test]
    fn samples_in_an_epochs_first_second_are_discarded() {
        let mut c = LinuxCubic::new(params(), false);
        c.recalc_ssthresh(&state(20.0, 0));
        let mut st = state(14.0, 1000);
        st.ssthresh = 14.0;
        c.grow_window(&mut st, 1); // the epoch starts at 1 s
        c.acked_rtt(&mut st, Some(Time::from_millis(40)));
        assert_eq!(c.delay_min, 0);
        st.now = Time::from_millis(2000);
        c.acked_rtt(&mut st, Some(Time::from_millis(40)));
        assert_eq!(c.delay_min, 40_000);
    }
}
