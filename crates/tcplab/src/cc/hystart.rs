//! HyStart (Ha & Rhee, "Taming the elephants: New TCP slow start", Computer Networks 2011),
//! as Linux's CUBIC runs it (tcp_cubic.c `hystart_update`): slow start ends, by setting
//! ssthresh to cwnd, when either
//! - the ACK train of a round, ACKs at most 2 ms apart, lasts longer than half the minimum
//!   RTT plus the ACK delay allowance (the window already fills the path), or
//! - the minimum of the first 8 RTT samples of a round exceeds the connection's minimum by
//!   an eighth of it, clamped to 4..16 ms (a queue is building).
//!
//! It applies from a window of 16 segments, and once it has fired not again until a
//! timeout.

use super::CcState;
use crate::sim::Time;

/// Linux `hystart_low_window`.
const LOW_WINDOW: f64 = 16.0;
/// Linux `hystart_ack_delta_us`.
const ACK_DELTA: Time = Time::from_millis(2);
/// Linux `HYSTART_MIN_SAMPLES`.
const MIN_SAMPLES: u32 = 8;
/// Linux `HYSTART_DELAY_MIN` / `HYSTART_DELAY_MAX`.
const DELAY_MIN: Time = Time::from_millis(4);
const DELAY_MAX: Time = Time::from_millis(16);
/// Linux `hystart_ack_delay` without TSO deferral or pacing limits: at most 1 ms.
const ACK_DELAY: Time = Time::from_millis(1);

#[derive(Clone, Debug)]
pub struct HyStart {
    /// Slow start was ended by HyStart (Linux `found`).
    pub found: bool,
    round_start: Time,
    last_ack: Time,
    /// The round ends when this segment is acknowledged (Linux `end_seq`).
    end_seq: u32,
    /// The minimum RTT of this round's first samples, and how many were taken.
    curr_rtt: Time,
    samples: u32,
    /// The connection's minimum RTT (Linux `delay_min`).
    delay_min: Time,
}

impl Default for HyStart {
    fn default() -> Self {
        HyStart {
            found: false,
            round_start: Time::ZERO,
            last_ack: Time::ZERO,
            end_seq: 0,
            curr_rtt: Time::MAX,
            samples: 0,
            delay_min: Time::MAX,
        }
    }
}

impl HyStart {
    /// Linux `bictcp_hystart_reset`: a new round starts now and ends with what is sent.
    pub fn reset_round(&mut self, st: &CcState) {
        self.round_start = st.now;
        self.last_ack = st.now;
        self.end_seq = st.snd_nxt;
        self.curr_rtt = Time::MAX;
        self.samples = 0;
    }

    /// After a timeout slow start may be ended by HyStart again (Linux `bictcp_reset`).
    pub fn restart(&mut self, st: &CcState) {
        self.found = false;
        self.reset_round(st);
    }

    /// An RTT sample in slow start (Linux `cubictcp_acked` / `hystart_update`). The ACK
    /// that ends a round starts the next one before anything is measured (Linux 6.x resets
    /// the round here; older kernels did it in `cong_avoid`, after this sample, so the
    /// round's first ACK was measured against the previous round's start and a train of
    /// one RTT's length ended slow start as soon as the pipe was full).
    pub fn on_rtt(&mut self, st: &mut CcState, rtt: Time) {
        let rtt = rtt.max(Time(1));
        self.delay_min = self.delay_min.min(rtt);
        if self.found || !st.in_slow_start() {
            return;
        }
        if st.snd_una > self.end_seq {
            self.reset_round(st);
        }
        if st.cwnd < LOW_WINDOW {
            return;
        }
        if st.now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = st.now;
            let threshold = Time((self.delay_min.nanos() + ACK_DELAY.nanos()) / 2);
            if st.now.saturating_sub(self.round_start) > threshold {
                self.exit(st);
                return;
            }
        }
        self.curr_rtt = self.curr_rtt.min(rtt);
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else {
            let eighth = Time(self.delay_min.nanos() / 8).clamp(DELAY_MIN, DELAY_MAX);
            if self.curr_rtt > self.delay_min + eighth {
                self.exit(st);
            }
        }
    }

    fn exit(&mut self, st: &mut CcState) {
        self.found = true;
        st.ssthresh = st.cwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(cwnd: f64) -> CcState {
        CcState::new(cwnd, 1e9, 1000, 100_000)
    }

    #[test]
    fn delay_increase_ends_slow_start() {
        let mut h = HyStart::default();
        let mut st = state(32.0);
        let ms = Time::from_millis;
        h.reset_round(&st);
        // ACKs 5 ms apart (no ACK train); the first round sees 40 ms.
        for i in 0..10 {
            st.now = ms(100 + 5 * i);
            h.on_rtt(&mut st, ms(40));
        }
        assert!(!h.found);
        st.snd_una = 1;
        st.snd_nxt = 100;
        // The next round's samples are 40 + 6 ms: above 40 + max(5, 4) ms.
        for i in 0..9 {
            st.now = ms(200 + 5 * i);
            h.on_rtt(&mut st, ms(46));
        }
        assert!(h.found);
        assert_eq!(st.ssthresh, 32.0);
    }

    #[test]
    fn a_long_ack_train_ends_slow_start_and_small_windows_are_left_alone() {
        let mut h = HyStart::default();
        let ms = Time::from_millis;
        let mut small = state(8.0);
        h.reset_round(&small);
        for i in 0..40 {
            small.now = ms(i);
            h.on_rtt(&mut small, ms(40));
        }
        assert!(!h.found, "below 16 segments");
        let mut st = state(20.0);
        let mut h = HyStart::default();
        h.reset_round(&st);
        // ACKs 1 ms apart for longer than (40 + 1) / 2 ms.
        for i in 0..=21 {
            st.now = ms(i);
            h.on_rtt(&mut st, ms(40));
        }
        assert!(h.found);
    }

    #[test]
    fn the_ack_that_ends_a_round_starts_the_next_before_it_is_measured() {
        let mut h = HyStart::default();
        let ms = Time::from_millis;
        let mut st = state(40.0);
        st.snd_nxt = 40;
        h.reset_round(&st);
        // A round whose ACKs keep coming 1.7 ms apart (the pipe is full) but which ends
        // (snd_una passes end_seq) after 17 ms: no train of half an RTT inside it.
        for i in 0..10u64 {
            st.now = Time(ms(1).nanos() * 17 * i / 10);
            st.snd_una = 4 * i as u32;
            h.on_rtt(&mut st, ms(40));
        }
        st.now = ms(18);
        st.snd_una = 41;
        st.snd_nxt = 120;
        h.on_rtt(&mut st, ms(40));
        assert!(
            !h.found,
            "measured against the new round's start, not the old one's"
        );
        // The new round's train of 21 ms does end slow start.
        for i in 1..=13u64 {
            st.now = ms(18) + Time(ms(1).nanos() * 17 * i / 10);
            st.snd_una = 41 + i as u32;
            h.on_rtt(&mut st, ms(40));
        }
        assert!(h.found);
    }
}
