//! Pacing: spacing a flow's segments at its pacing rate.
//!
//! The semantics are Linux's internal pacing (`tcp_pacing_check`, `tcp_update_skb_after_send`):
//! a segment may leave once the previous one's slot has passed, and each transmission moves
//! the next slot `len / rate` later. The configured quantum lets up to that many segments
//! leave back to back after a pause (the credit a pause earns is capped at quantum - 1
//! segments, as Linux's TSO/GSO burst of `tcp_min_tso_segs`), so in any interval `dt` a
//! flow sends at most `rate * dt + quantum * mss` bytes. Linux's allowance for timer
//! lateness (up to half a slot) is left out: simulated timers are never late.
//!
//! The pacer asks for at most one wake-up at a time, at its next slot, and only when the
//! window would let a segment go: a paced flow costs at most one timer event per segment.

use crate::cc::CcState;
use crate::sim::Time;

/// Linux's `sysctl_tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio` (percent): the default
/// pacing rate is this share of cwnd per SRTT, in slow start and after.
const SS_RATIO: f64 = 2.0;
const CA_RATIO: f64 = 1.2;

#[derive(Clone, Debug)]
pub struct Pacer {
    /// The earliest time the next segment may leave (Linux `tcp_wstamp_ns`).
    next_send: Time,
    /// Bytes of credit a pause may earn: (quantum - 1) segments.
    burst_bytes: u32,
    /// The pending wake-up, if one is scheduled.
    wakeup: Option<Time>,
}

impl Pacer {
    /// A pacer letting `quantum` segments of `mss` bytes go back to back at most.
    pub fn new(quantum: u32, mss: u32) -> Self {
        Pacer {
            next_send: Time::ZERO,
            burst_bytes: quantum.saturating_sub(1).saturating_mul(mss),
            wakeup: None,
        }
    }

    /// Whether a segment may leave at `now`.
    pub fn may_send(&self, now: Time) -> bool {
        now >= self.next_send
    }

    /// The earliest time the next segment may leave.
    pub fn next_send(&self) -> Time {
        self.next_send
    }

    /// A segment of `bytes` left at `now` while the pacing rate was `rate` bytes per second:
    /// the next slot is one transmission time after this one's, where this one's slot
    /// is never earlier than `now` less the credit of the quantum.
    pub fn on_send(&mut self, now: Time, bytes: u32, rate: f64) {
        if !(rate > 0.0 && rate.is_finite()) {
            return; // no pacing (Linux: a rate of 0 or ~0)
        }
        // The credit is rounded down and the slot up, so rounding never speeds a flow up.
        let credit = Time((self.burst_bytes as f64 * 1e9 / rate).floor() as u64);
        let slot = Time((bytes as f64 * 1e9 / rate).ceil() as u64);
        self.next_send = self.next_send.max(now.saturating_sub(credit)) + slot;
    }

    /// Asks for a wake-up at the next slot; returns the time to schedule an event at,
    /// unless one is already pending no later than that.
    pub fn request_wakeup(&mut self) -> Option<Time> {
        match self.wakeup {
            Some(at) if at <= self.next_send => None,
            _ => {
                self.wakeup = Some(self.next_send);
                Some(self.next_send)
            }
        }
    }

    /// A wake-up event scheduled for `at` fired; returns false if it is stale (a later
    /// request replaced it).
    pub fn on_wakeup(&mut self, at: Time) -> bool {
        if self.wakeup != Some(at) {
            return false;
        }
        self.wakeup = None;
        true
    }
}

/// The pacing rate Linux gives a flow whose algorithm does not set one
/// (`tcp_update_pacing_rate`): 200 % of cwnd per SRTT in slow start while cwnd is below
/// half of ssthresh, 120 % after, counting the larger of cwnd and the segments
/// outstanding; unlimited before the first RTT sample.
pub fn default_rate(st: &CcState, outstanding: u32) -> f64 {
    if st.srtt == Time::ZERO {
        return f64::INFINITY;
    }
    let ratio = if st.cwnd < st.ssthresh / 2.0 {
        SS_RATIO
    } else {
        CA_RATIO
    };
    let segments = st.cwnd.max(outstanding as f64);
    ratio * segments * st.mss as f64 / st.srtt.as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn us(v: u64) -> Time {
        Time::from_micros(v)
    }

    /// 1000 bytes at 1 MB/s: one segment per millisecond.
    #[test]
    fn each_segment_waits_for_the_previous_ones_slot() {
        let mut p = Pacer::new(1, 1000);
        assert!(p.may_send(Time::ZERO));
        p.on_send(Time::ZERO, 1000, 1e6);
        assert_eq!(p.next_send(), us(1000));
        assert!(!p.may_send(us(999)));
        assert!(p.may_send(us(1000)));
        // Sent late, after an idle period: the next slot counts from the send.
        p.on_send(us(5000), 1000, 1e6);
        assert_eq!(p.next_send(), us(6000));
    }

    #[test]
    fn a_pause_earns_at_most_the_quantum() {
        let mut p = Pacer::new(3, 1000);
        p.on_send(Time::ZERO, 1000, 1e6);
        // After a long pause three segments may go back to back, not more.
        let t = us(100_000);
        let mut burst = 0;
        while p.may_send(t) {
            p.on_send(t, 1000, 1e6);
            burst += 1;
        }
        assert_eq!(burst, 3);
    }

    #[test]
    fn infinite_rate_does_not_pace() {
        let mut p = Pacer::new(1, 1000);
        p.on_send(Time::ZERO, 1000, f64::INFINITY);
        assert!(p.may_send(Time::ZERO));
    }

    #[test]
    fn one_wakeup_pending_at_a_time() {
        let mut p = Pacer::new(1, 1000);
        p.on_send(Time::ZERO, 1000, 1e6);
        assert_eq!(p.request_wakeup(), Some(us(1000)));
        assert_eq!(p.request_wakeup(), None);
        assert!(!p.on_wakeup(us(7)), "not the pending one");
        assert!(p.on_wakeup(us(1000)));
        assert!(!p.on_wakeup(us(1000)), "already fired");
    }

    #[test]
    fn default_rate_follows_linux_ratios() {
        let mut st = CcState::new(10.0, 1e9, 1000, 1000);
        assert_eq!(default_rate(&st, 0), f64::INFINITY);
        st.srtt = Time::from_millis(100);
        assert!((default_rate(&st, 0) - 2.0 * 10.0 * 1000.0 / 0.1).abs() < 1e-6);
        st.ssthresh = 15.0;
        assert!((default_rate(&st, 12) - 1.2 * 12.0 * 1000.0 / 0.1).abs() < 1e-6);
    }

    proptest! {
        /// In any stretch between two transmissions, a pacer never lets more than
        /// `rate * dt + quantum * mss` bytes go, whatever the segment sizes and however the
        /// sender's attempts are spaced.
        #[test]
        fn never_faster_than_rate_plus_quantum(
            rate in 1e4f64..1e9,
            quantum in 1u32..5,
            attempts in proptest::collection::vec((0u64..3_000_000, 1u32..=1448), 1..100),
        ) {
            let mss = 1448;
            let mut p = Pacer::new(quantum, mss);
            let mut now = Time::ZERO;
            let mut sent: Vec<(Time, u32)> = Vec::new();
            for (gap, len) in attempts {
                now += Time(gap);
                while p.may_send(now) {
                    p.on_send(now, len, rate);
                    sent.push((now, len));
                }
            }
            for i in 0..sent.len() {
                let mut bytes = 0.0;
                for &(t, len) in &sent[i..] {
                    bytes += len as f64;
                    let allowed = rate * (t - sent[i].0).as_secs_f64() + (quantum * mss) as f64;
                    prop_assert!(bytes <= allowed + 1e-6, "{bytes} bytes, {allowed} allowed");
                }
            }
        }
    }
}
