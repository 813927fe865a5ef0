//! Linux's TSO deferral, `[tcp] tso_defer` (John Heffner's "TSO Nagle",
//! `tcp_tso_should_defer` in net/ipv4/tcp_output.c, as in Linux 6.18): when the window has
//! room for less than one GSO packet and the ACK of the oldest outstanding segment is due
//! within a millisecond, the sender waits for that ACK and then sends one larger burst.
//!
//! On the test bed this shapes every burst a bulk sender makes. In slow start an ACK that
//! covers one segment leaves room for two, less than the size goal, so the kernel sends
//! nothing and four at the next ACK (docs/kernel.md, "The sender's TSO deferral"); in
//! congestion avoidance a room of one waits for the next ACK, so bursts come in pairs.
//!
//! Everything here counts segments. The rule reads the state through [`DeferView`] so that
//! it is a pure function of it and the tests can work cases by hand.

use crate::sim::Time;

/// Linux's `sysctl_tcp_tso_win_divisor` default: a third of the window is "some fraction of
/// a window", worth sending at once.
pub const WIN_DIVISOR: u32 = 3;

/// A sender that sent nothing for this long sends at once (Linux: "allow defer only if the
/// last write was recent (1 ms)").
pub const RECENT_WRITE: Time = Time::from_millis(1);

/// The longest the sender waits for the expected ACK: min(this, SRTT / 2) (Linux 6.18,
/// commit "tcp: fix tcp_tso_should_defer() vs large RTT", 2025).
pub const MAX_WAIT: Time = Time::from_millis(1);

/// What the deferral rule reads at one transmission opportunity.
#[derive(Clone, Copy, Debug)]
pub struct DeferView {
    /// In fast recovery or after a timeout (Linux `icsk_ca_state >= TCP_CA_Recovery`).
    pub recovering: bool,
    /// Time since the last segment left (Linux `tcp_wstamp_ns`).
    pub since_last_send: Time,
    /// Segments the congestion and receive windows let out now.
    pub room: u32,
    /// The GSO size goal (`tcp_tso_autosize`, sender.rs `gso_segs`).
    pub max_segs: u32,
    /// New segments the application has queued and not yet sent.
    pub unsent: u32,
    /// Segments of one skb in the write queue: a bulk writer's skbs are 64 KB
    /// (`tcp_xmit_size_goal`), so the queue's head is rarely its tail.
    pub skb_segs: u32,
    /// Segments left in the queue's head skb (the rest of one partly sent).
    pub head_segs: u32,
    /// Half the congestion window: the most one GSO packet may take (`tcp_cwnd_test`).
    pub half_cwnd: u32,
    /// min(receive window, cwnd) in segments: the window whose third is sent at once.
    pub window: u32,
    /// When the oldest outstanding segment's ACK is due: its send time plus SRTT, if a
    /// segment is outstanding.
    pub head_ack_due: Option<Time>,
    /// The present time.
    pub now: Time,
    /// Smoothed RTT (none yet: nothing is deferred).
    pub srtt: Time,
    /// The queued data ends the transfer (its last skb carries FIN and is never held).
    pub ends_transfer: bool,
}

/// How many of the `room` new segments go out now: in GSO packets of at most `max_segs`,
/// half the window and what is left of the head skb, each decided by [`should_defer`] on the
/// room left (after the first packet the last write is recent by definition).
pub fn allowance(v: &DeferView) -> u32 {
    let mut view = *v;
    view.head_segs = view.head_segs.clamp(1, view.skb_segs.max(1));
    let mut sent = 0;
    while view.room > 0 && view.unsent > 0 {
        if should_defer(&view) {
            break;
        }
        let packet = view
            .room
            .min(view.max_segs.max(1))
            .min(view.half_cwnd.max(1))
            .min(view.head_segs)
            .min(view.unsent);
        sent += packet;
        view.room -= packet;
        view.unsent -= packet;
        view.head_segs -= packet;
        if view.head_segs == 0 {
            view.head_segs = view.skb_segs.max(1);
        }
        view.since_last_send = Time::ZERO;
    }
    sent
}

/// Whether the next new data waits (Linux `tcp_tso_should_defer`, condition by condition).
pub fn should_defer(v: &DeferView) -> bool {
    // A single-segment skb is Nagle's business, not deferral's (`tso_segs == 1`).
    let head = v.head_segs.min(v.unsent);
    if head <= 1 || v.recovering || v.since_last_send > RECENT_WRITE || v.srtt == Time::ZERO {
        return false;
    }
    // A full GSO packet can go.
    if v.room >= v.max_segs {
        return false;
    }
    // An skb in the middle of the queue gets no more data: send it if it fits.
    let head_is_tail = v.unsent <= v.head_segs;
    if !head_is_tail && v.room >= head {
        return false;
    }
    // At least a third of the window is free: use it.
    if v.room * WIN_DIVISOR >= v.window {
        return false;
    }
    let Some(due) = v.head_ack_due else {
        return false;
    };
    // The ACK is due later than min(1 ms, SRTT / 2): do not wait for it.
    let threshold = MAX_WAIT.min(Time(v.srtt.0 / 2));
    if due > v.now + threshold {
        return false;
    }
    // Deferring: the window is no larger than the head skb. Only the transfer's last skb
    // (FIN) goes at once, and only when it fits strictly.
    !(head_is_tail && v.ends_transfer && v.room > head)
}

/// Whether holding back new data at this opportunity leaves the flow limited by its
/// congestion window: cwnd, not the receiver's window, is the smaller (Linux sets
/// `is_cwnd_limited` when it defers for that reason, so window growth goes on).
pub fn held_by_cwnd(allowed: u32, room: u32, cwnd_room: u32, rwnd_room: u32) -> bool {
    allowed < room && cwnd_room < rwnd_room
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(v: u64) -> Time {
        Time::from_micros(v)
    }

    /// Slow start on the test bed: cwnd 100, size goal 4, the oldest segment's ACK due now.
    fn slow_start(room: u32) -> DeferView {
        DeferView {
            recovering: false,
            since_last_send: us(850),
            room,
            max_segs: 4,
            unsent: 128,
            skb_segs: 64,
            head_segs: 64,
            half_cwnd: 50,
            window: 100,
            head_ack_due: Some(us(10_000)),
            now: us(10_000),
            srtt: Time::from_millis(45),
            ends_transfer: false,
        }
    }

    #[test]
    fn room_for_less_than_a_gso_packet_waits_for_the_next_ack() {
        // An ACK of one segment in slow start frees two: nothing goes; the next frees four.
        assert_eq!(allowance(&slow_start(2)), 0);
        assert_eq!(allowance(&slow_start(4)), 4);
    }

    #[test]
    fn what_is_left_after_whole_gso_packets_waits() {
        assert_eq!(allowance(&slow_start(6)), 4);
        assert_eq!(allowance(&slow_start(9)), 8);
    }

    #[test]
    fn each_exception_sends_at_once() {
        let idle = DeferView {
            since_last_send: us(1_001),
            ..slow_start(2)
        };
        assert_eq!(allowance(&idle), 2, "nothing sent for over 1 ms");
        let recovering = DeferView {
            recovering: true,
            ..slow_start(2)
        };
        assert_eq!(allowance(&recovering), 2, "in recovery");
        let third = DeferView {
            window: 6,
            ..slow_start(2)
        };
        assert_eq!(allowance(&third), 2, "a third of the window is free");
        let late = DeferView {
            head_ack_due: Some(us(11_001)),
            ..slow_start(2)
        };
        assert_eq!(allowance(&late), 2, "the ACK is due in over 1 ms");
        let nothing_out = DeferView {
            head_ack_due: None,
            ..slow_start(2)
        };
        assert_eq!(allowance(&nothing_out), 2, "no ACK to wait for");
        let one = DeferView {
            unsent: 1,
            ..slow_start(2)
        };
        assert_eq!(allowance(&one), 1, "a single segment is not deferred");
        let last = DeferView {
            unsent: 2,
            ends_transfer: true,
            ..slow_start(3)
        };
        assert_eq!(
            allowance(&last),
            2,
            "the transfer's last skb goes when it fits"
        );
        let no_srtt = DeferView {
            srtt: Time::ZERO,
            ..slow_start(2)
        };
        assert_eq!(allowance(&no_srtt), 2, "no RTT measured yet");
    }

    #[test]
    fn the_transfers_last_skb_waits_like_any_other_unless_it_fits() {
        // Linux defers when the window is no larger than the skb, FIN or not.
        let last = DeferView {
            unsent: 3,
            ends_transfer: true,
            ..slow_start(2)
        };
        assert_eq!(allowance(&last), 0);
        let bulk = DeferView {
            unsent: 2,
            ..slow_start(3)
        };
        assert_eq!(
            allowance(&bulk),
            0,
            "without FIN the tail waits even when it fits"
        );
    }

    #[test]
    fn the_rest_of_a_partly_sent_skb_is_its_own_packet() {
        // One segment left of the head skb: a single segment is never deferred.
        let one_left = DeferView {
            head_segs: 1,
            ..slow_start(2)
        };
        assert_eq!(
            allowance(&one_left),
            1,
            "then the next skb's pair waits for room"
        );
        // Three left: a middle skb that fits goes whole.
        let three_left = DeferView {
            head_segs: 3,
            ..slow_start(3)
        };
        assert_eq!(allowance(&three_left), 3);
    }

    #[test]
    fn a_gso_packet_takes_at_most_half_the_window() {
        // Room 4 >= the size goal of 4, in packets of 2 (half a window of 5), both at once.
        let small = DeferView {
            half_cwnd: 2,
            window: 5,
            ..slow_start(4)
        };
        assert_eq!(allowance(&small), 4);
    }

    #[test]
    fn holding_back_counts_as_cwnd_limited_only_when_cwnd_is_the_smaller_window() {
        assert!(held_by_cwnd(0, 2, 2, 50));
        assert!(!held_by_cwnd(0, 2, 50, 2), "the receiver's window held it");
        assert!(!held_by_cwnd(2, 2, 2, 50), "nothing held back");
    }

    #[test]
    fn the_wait_is_at_most_half_the_srtt() {
        // SRTT 1.2 ms: the threshold is 0.6 ms, so an ACK due in 0.8 ms is not waited for.
        let short = DeferView {
            srtt: us(1_200),
            head_ack_due: Some(us(10_800)),
            ..slow_start(2)
        };
        assert_eq!(allowance(&short), 2);
        let overdue = DeferView {
            head_ack_due: Some(us(9_000)),
            ..slow_start(2)
        };
        assert_eq!(allowance(&overdue), 0, "an overdue ACK is waited for");
    }

    #[test]
    fn a_tail_skb_that_fits_still_waits_unless_it_ends_the_transfer() {
        // Linux only sends a fitting skb at once when it is not the queue's tail.
        let tail = DeferView {
            unsent: 3,
            ..slow_start(3)
        };
        assert_eq!(allowance(&tail), 0);
        let middle = DeferView {
            skb_segs: 2,
            head_segs: 2,
            ..slow_start(3)
        };
        // A whole middle skb of 2 fits and goes; the room of 1 left then waits.
        assert_eq!(allowance(&middle), 2);
    }
}
