//! Linux's SACK compression (`[tcp] sack_compress`; Linux 4.18+, `__tcp_ack_snd_check` and
//! `tcp_compressed_ack_kick`, with the 6.x defaults of `tcp_comp_sack_nr`,
//! `tcp_comp_sack_delay_ns` and `tcp_comp_sack_slack_ns`).
//!
//! While out-of-order data is queued, a Linux receiver sends the first three ACKs for the
//! same cumulative point at once (the duplicate ACKs fast retransmit needs), and holds the
//! later ones: a timer of min(1 ms, RTT / 20) with 100 us of slack sends one ACK for all that
//! arrived meanwhile, and 44 held ACKs send at once. Any ACK sent cancels the hold, and a
//! segment that would spread the SACK blocks over a third sends the held ACK first
//! (`tcp_sack_new_ofo_skb`, 5.8+; receiver.rs). The defaults are those up to 6.18 (6.19 adds
//! `tcp_comp_sack_rtt_percent` and a 10 us slack).
//!
//! Measured on the test bed (Linux 6.18, docs/kernel.md, "The receiver's ACK latency"): in
//! Reno's and CUBIC's recoveries the SACKs of the latest segment leave 216-306 us after it
//! (p10-p90) where in-order ACKs leave 50-80 us after theirs: segments 853 us apart, a
//! timer started at the one before fires about 1.1 ms later. Without it the simulated
//! receiver answered every out-of-order segment at once, and the simulated CUBIC lost a
//! second segment one RTT into half of its recoveries, which the kernel does not.

use crate::sim::Time;

/// `tcp_comp_sack_nr`: held ACKs that make the next one go at once.
const MOST_HELD: u32 = 44;
/// `tcp_comp_sack_delay_ns`: the longest hold.
const DELAY: Time = Time::from_micros(1000);
/// `tcp_comp_sack_slack_ns`: the timer's slack; on the bed the held ACK leaves at its end.
const SLACK: Time = Time::from_micros(100);
/// `TCP_FASTRETRANS_THRESH`: ACKs sent at once for each cumulative point.
const AT_ONCE: u32 = 3;

/// What to do with the ACK an out-of-order segment calls for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackAck {
    /// Send it now.
    Now,
    /// Hold it; start the timer for this time (None: it runs already).
    Hold(Option<Time>),
}

#[derive(Clone, Debug, Default)]
pub struct SackCompressor {
    /// The cumulative point the count below is for (`compressed_ack_rcv_nxt`).
    point: u32,
    /// ACKs sent at once for it (`dup_ack_counter`).
    at_once: u32,
    /// ACKs held since the last one sent (`compressed_ack`); the timer runs while any is.
    held: u32,
}

impl SackCompressor {
    /// An out-of-order segment arrived at `now` with the cumulative point at `point`;
    /// `rtt`: the receiver's RTT estimate, if it has one.
    pub fn on_out_of_order(&mut self, now: Time, point: u32, rtt: Option<Time>) -> SackAck {
        if self.held >= MOST_HELD {
            return SackAck::Now;
        }
        if self.point != point {
            self.point = point;
            self.at_once = 0;
        }
        if self.at_once < AT_ONCE {
            self.at_once += 1;
            return SackAck::Now;
        }
        self.held += 1;
        if self.held > 1 {
            return SackAck::Hold(None); // the timer runs since the first
        }
        // 5 % of the RTT, but no more than the delay.
        let delay = rtt.map_or(DELAY, |r| DELAY.min(Time(r.0 / 20)));
        SackAck::Hold(Some(now + delay + SLACK))
    }

    /// An ACK for out-of-order data went at once for the new cumulative point `point`: a
    /// retransmission filled one segment of a hole and others remain (Linux takes the
    /// compression path there, where the new point resets the count and this is its first).
    pub fn sent_at_once(&mut self, point: u32) {
        self.point = point;
        self.at_once = 1;
    }

    /// Whether an ACK is held.
    pub fn holding(&self) -> bool {
        self.held > 0
    }

    /// An ACK left: nothing is held (`tcp_event_ack_sent` cancels the timer).
    pub fn on_ack_sent(&mut self) {
        self.held = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(v: u64) -> Time {
        Time::from_micros(v)
    }

    /// Segments 853 us apart behind a hole at 100: three ACKs at once, then one held for
    /// 1.1 ms, which covers the next segment too.
    #[test]
    fn three_duplicate_acks_go_at_once_and_later_ones_wait_for_the_timer() {
        let mut c = SackCompressor::default();
        let rtt = Some(Time::from_millis(40));
        let got: Vec<_> = (0..5)
            .map(|i| c.on_out_of_order(us(853 * i), 100, rtt))
            .collect();
        assert_eq!(
            got,
            [
                SackAck::Now,
                SackAck::Now,
                SackAck::Now,
                SackAck::Hold(Some(us(853 * 3 + 1100))),
                SackAck::Hold(None)
            ]
        );
        assert!(c.holding());
        c.on_ack_sent();
        assert!(!c.holding());
        assert_eq!(
            c.on_out_of_order(us(5000), 100, rtt),
            SackAck::Hold(Some(us(6100))),
            "the same point: still past its three"
        );
    }

    #[test]
    fn a_new_cumulative_point_gets_its_own_three() {
        let mut c = SackCompressor::default();
        for _ in 0..3 {
            assert_eq!(c.on_out_of_order(us(0), 100, None), SackAck::Now);
        }
        assert_eq!(c.on_out_of_order(us(0), 101, None), SackAck::Now);
    }

    /// Short paths hold for 5 % of the RTT; 44 held ACKs send the next at once.
    #[test]
    fn the_hold_is_a_twentieth_of_the_rtt_and_at_most_44_acks() {
        let mut c = SackCompressor::default();
        for _ in 0..3 {
            c.on_out_of_order(us(0), 7, None);
        }
        assert_eq!(
            c.on_out_of_order(us(0), 7, Some(Time::from_millis(4))),
            SackAck::Hold(Some(us(200 + 100)))
        );
        for _ in 1..MOST_HELD {
            assert_eq!(c.on_out_of_order(us(1), 7, None), SackAck::Hold(None));
        }
        assert_eq!(c.on_out_of_order(us(2), 7, None), SackAck::Now);
    }
}
