//! Pacing: spacing a flow's segments at its pacing rate.
//!
//! The semantics are Linux's internal pacing (`tcp_pacing_check`, `tcp_update_skb_after_send`):
//! a transmission may leave once the previous one's slot has passed, and each moves the
//! next slot `len / rate` later. What one transmission is depends on the unit
//! (`pacing_unit`):
//! - `gso` (Linux): a GSO packet of up to the size goal the sender gives, whose segments
//!   leave back to back at one instant, the next packet waiting for the whole packet's slot
//!   (`tcp_write_xmit` checks the pacing per skb). In any interval `dt` a flow sends at most
//!   `rate * dt + goal * mss` bytes, for the largest goal in the interval.
//! - `segment`: each segment waits for the previous one's slot; the configured quantum lets
//!   up to that many segments leave back to back after a pause (the credit a pause earns is
//!   capped at quantum - 1 segments), so in any interval `dt` a flow sends at most
//!   `rate * dt + quantum * mss` bytes.
//!
//! Linux's allowance for timer lateness (up to half a slot) is left out: simulated timers
//! are never late.
//!
//! The pacer asks for at most one wake-up at a time, at its next slot, and only when the
//! window would let a segment go: a paced flow costs at most one timer event per
//! transmission.

use crate::cc::CcState;
use crate::config::PacingUnit;
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
    unit: PacingUnit,
    /// The open GSO packet: when its first segment left and how many more may join it
    /// (only at that instant: a later event opens a packet of its own).
    packet: Option<(Time, u32)>,
}

impl Pacer {
    /// A pacer of `unit`s; in segment units, letting `quantum` segments of `mss` bytes go
    /// back to back at most.
    pub fn new(unit: PacingUnit, quantum: u32, mss: u32) -> Self {
        Pacer {
            next_send: Time::ZERO,
            burst_bytes: quantum.saturating_sub(1).saturating_mul(mss),
            wakeup: None,
            unit,
            packet: None,
        }
    }

    /// Whether a segment may leave at `now`: its slot has come, or it joins the GSO packet
    /// opened at this instant.
    pub fn may_send(&self, now: Time) -> bool {
        now >= self.next_send || self.joins_packet(now)
    }

    /// Whether a segment sent at `now` joins the open GSO packet.
    fn joins_packet(&self, now: Time) -> bool {
        matches!(self.packet, Some((at, more)) if at == now && more > 0)
    }

    /// Whether a segment sent at `now` opens a GSO packet, whose size goal
    /// [`on_send`](Self::on_send) then needs.
    pub fn opens_packet(&self, now: Time) -> bool {
        self.unit == PacingUnit::Gso && !self.joins_packet(now)
    }

    /// The earliest time the next segment may leave.
    pub fn next_send(&self) -> Time {
        self.next_send
    }

    /// A segment of `bytes` left at `now` while the pacing rate was `rate` bytes per second;
    /// `goal`: the size goal, in segments, of the GSO packet it opens (see
    /// [`opens_packet`](Self::opens_packet); ignored otherwise). The next slot is one
    /// transmission time after this one's. A segment that opens a packet (or, in segment
    /// units, any segment) takes its slot no earlier than `now`, less the credit of the
    /// quantum in segment units; one that joins the open packet adds its time to the
    /// packet's.
    pub fn on_send(&mut self, now: Time, bytes: u32, rate: f64, goal: u32) {
        if !(rate > 0.0 && rate.is_finite()) {
            return; // no pacing (Linux: a rate of 0 or ~0)
        }
        // The credit is rounded down and the slot up, so rounding never speeds a flow up.
        let slot = Time((bytes as f64 * 1e9 / rate).ceil() as u64);
        let start = match self.unit {
            PacingUnit::Gso if self.joins_packet(now) => {
                self.packet = self.packet.map(|(at, more)| (at, more - 1));
                self.next_send
            }
            PacingUnit::Gso => {
                self.packet = Some((now, goal.saturating_sub(1)));
                self.next_send.max(now)
            }
            PacingUnit::Segment => {
                let credit = Time((self.burst_bytes as f64 * 1e9 / rate).floor() as u64);
                self.next_send.max(now.saturating_sub(credit))
            }
        };
        self.next_send = start + slot;
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
        let mut p = Pacer::new(PacingUnit::Segment, 1, 1000);
        assert!(p.may_send(Time::ZERO));
        p.on_send(Time::ZERO, 1000, 1e6, 0);
        assert_eq!(p.next_send(), us(1000));
        assert!(!p.may_send(us(999)));
        assert!(p.may_send(us(1000)));
        // Sent late, after an idle period: the next slot counts from the send.
        p.on_send(us(5000), 1000, 1e6, 0);
        assert_eq!(p.next_send(), us(6000));
    }

    #[test]
    fn a_pause_earns_at_most_the_quantum() {
        let mut p = Pacer::new(PacingUnit::Segment, 3, 1000);
        p.on_send(Time::ZERO, 1000, 1e6, 0);
        // After a long pause three segments may go back to back, not more.
        let t = us(100_000);
        let mut burst = 0;
        while p.may_send(t) {
            p.on_send(t, 1000, 1e6, 0);
            burst += 1;
        }
        assert_eq!(burst, 3);
    }

    /// Linux's unit: a GSO packet of the goal leaves at once and the next waits for the
    /// whole packet's slot; a pause earns nothing beyond the packet itself.
    #[test]
    fn gso_packets_leave_whole_and_take_their_whole_slot() {
        let mut p = Pacer::new(PacingUnit::Gso, 2, 1000);
        assert!(p.opens_packet(Time::ZERO));
        p.on_send(Time::ZERO, 1000, 1e6, 2);
        assert!(
            !p.opens_packet(Time::ZERO) && p.may_send(Time::ZERO),
            "the second joins"
        );
        p.on_send(Time::ZERO, 1000, 1e6, 0);
        assert!(!p.may_send(Time::ZERO), "the packet is whole");
        assert_eq!(p.next_send(), us(2000), "two segments' slot");
        // Sent late, after a pause: a packet of three, then the next slot three later.
        let t = us(100_000);
        let mut burst = 0;
        while p.may_send(t) {
            let goal = if p.opens_packet(t) { 3 } else { 0 };
            p.on_send(t, 1000, 1e6, goal);
            burst += 1;
        }
        assert_eq!(burst, 3);
        assert_eq!(p.next_send(), us(103_000));
    }

    /// A packet the window cut short stays short: a later event opens a packet of its own
    /// at the next slot, however many segments the first left unused.
    #[test]
    fn a_gso_packet_is_joined_only_at_its_instant() {
        let mut p = Pacer::new(PacingUnit::Gso, 2, 1000);
        p.on_send(Time::ZERO, 1000, 1e6, 4);
        assert!(
            !p.may_send(us(1)),
            "an ACK a microsecond later waits for the slot"
        );
        assert!(p.may_send(us(1000)) && p.opens_packet(us(1000)));
    }

    #[test]
    fn infinite_rate_does_not_pace() {
        let mut p = Pacer::new(PacingUnit::Segment, 1, 1000);
        p.on_send(Time::ZERO, 1000, f64::INFINITY, 0);
        assert!(p.may_send(Time::ZERO));
    }

    #[test]
    fn one_wakeup_pending_at_a_time() {
        let mut p = Pacer::new(PacingUnit::Segment, 1, 1000);
        p.on_send(Time::ZERO, 1000, 1e6, 0);
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

    /// The sender's attempts, each (gap before it in ns, segment length, GSO goal), met
    /// by `p` with as many segments as it lets go; returns (time, length) of each.
    fn sends(p: &mut Pacer, rate: f64, attempts: &[(u64, u32, u32)]) -> Vec<(Time, u32)> {
        let mut now = Time::ZERO;
        let mut sent = Vec::new();
        for &(gap, len, goal) in attempts {
            now += Time(gap);
            while p.may_send(now) {
                let goal = if p.opens_packet(now) { goal } else { 0 };
                p.on_send(now, len, rate, goal);
                sent.push((now, len));
            }
        }
        sent
    }

    /// Whether no stretch between two of `sent`'s transmissions carries more than
    /// `rate * dt + burst` bytes.
    fn within_rate_plus(sent: &[(Time, u32)], rate: f64, burst: f64) -> Result<(), String> {
        for i in 0..sent.len() {
            let mut bytes = 0.0;
            for &(t, len) in &sent[i..] {
                bytes += len as f64;
                let allowed = rate * (t - sent[i].0).as_secs_f64() + burst;
                if bytes > allowed + 1e-6 {
                    return Err(format!(
                        "{bytes} bytes from {:?} to {t:?}, {allowed} allowed",
                        sent[i].0
                    ));
                }
            }
        }
        Ok(())
    }

    proptest! {
        /// In any stretch between two transmissions, a segment pacer never lets more than
        /// `rate * dt + quantum * mss` bytes go, whatever the segment sizes and however the
        /// sender's attempts are spaced.
        #[test]
        fn never_faster_than_rate_plus_quantum(
            rate in 1e4f64..1e9,
            quantum in 1u32..5,
            attempts in proptest::collection::vec((0u64..3_000_000, 1u32..=1448, 0u32..1), 1..100),
        ) {
            let mss = 1448;
            let mut p = Pacer::new(PacingUnit::Segment, quantum, mss);
            let sent = sends(&mut p, rate, &attempts);
            prop_assert!(within_rate_plus(&sent, rate, (quantum * mss) as f64).is_ok());
        }

        /// A GSO pacer never lets more than `rate * dt + goal * mss` bytes go, for the
        /// largest size goal the sender gave, and each packet is whole at one instant.
        #[test]
        fn gso_never_faster_than_rate_plus_one_packet(
            rate in 1e4f64..1e9,
            attempts in proptest::collection::vec((0u64..3_000_000, 1u32..=1448, 1u32..8), 1..100),
        ) {
            let mss = 1448;
            let mut p = Pacer::new(PacingUnit::Gso, 2, mss);
            let sent = sends(&mut p, rate, &attempts);
            let largest = attempts.iter().map(|a| a.2).max().unwrap_or(1);
            prop_assert!(within_rate_plus(&sent, rate, (largest * mss) as f64).is_ok());
        }
    }
}
