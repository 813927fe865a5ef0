//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-00; the behaviour
//! of Linux's tcp_rate.c, written afresh here).
//!
//! Every transmission takes a snapshot of the connection's delivery counters (draft
//! section 3.2). When an ACK delivers segments, the snapshot of the most recently sent of
//! them starts the sample (section 3.3): the segments delivered since that snapshot,
//! over the longer of the send phase (that segment's send time less the send time of the
//! segment delivered just before it was sent) and the ACK phase (now less the delivery
//! time at the snapshot), which guards against ACK compression. Samples shorter than the
//! minimum RTT are discarded (Linux `tcp_rate_gen`). A sample is application-limited if its
//! segment was sent while the application left the window unused (section 3.4).

use crate::cc::RateSample;
use crate::sim::Time;
use std::collections::VecDeque;

/// The counters at one transmission (draft section 3.2; Linux `tcp_skb_cb.tx`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct TxSnapshot {
    delivered: u64,
    delivered_time: Time,
    first_tx_time: Time,
    sent_at: Time,
    app_limited: bool,
    retransmit: bool,
}

/// The sample being gathered while one ACK is processed.
#[derive(Clone, Copy, Debug, Default)]
struct Gathering {
    /// Snapshot of the most recently sent segment delivered so far, and its number.
    newest: Option<(TxSnapshot, u32)>,
    acked_sacked: u32,
    losses: u32,
}

/// A flow's delivery-rate estimator.
#[derive(Clone, Debug, Default)]
pub struct RateEstimator {
    /// Snapshots of segments `base..`, in sequence order, in step with the scoreboard.
    snaps: VecDeque<TxSnapshot>,
    base: u32,
    /// Segments delivered so far (Linux `tp->delivered`).
    pub delivered: u64,
    /// When `delivered` last grew (Linux `delivered_mstamp`).
    pub delivered_time: Time,
    /// Send time of the segment the latest sample was taken from: the start of the next
    /// send phase (Linux `first_tx_mstamp`).
    first_tx_time: Time,
    /// Nonzero while samples are application-limited: until `delivered` passes it
    /// (Linux `tp->app_limited`).
    pub app_limited: u64,
    /// Segments marked lost so far (Linux `tp->lost`).
    pub lost: u64,
    gathering: Gathering,
    /// The sample reported as the flow's delivery rate: the latest one, unless it is
    /// application-limited and slower than the one before (Linux `rate_delivered`,
    /// `rate_interval_us`, what `tcp_info` shows).
    reported: Option<(u32, Time)>,
}

impl RateEstimator {
    /// Segment `seq` is (re)transmitted at `now`; `idle` when nothing was outstanding, which
    /// starts a new send phase and a new ACK phase (draft section 3.2).
    pub fn on_send(&mut self, seq: u32, now: Time, retransmit: bool, idle: bool) {
        if idle {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        let snap = TxSnapshot {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_tx_time: self.first_tx_time,
            sent_at: now,
            app_limited: self.app_limited != 0,
            retransmit,
        };
        let i = seq.wrapping_sub(self.base) as usize;
        if let Some(s) = self.snaps.get_mut(i) {
            *s = snap;
        } else {
            debug_assert_eq!(i, self.snaps.len(), "segments are sent in order");
            self.snaps.push_back(snap);
        }
    }

    /// Segment `seq` was delivered (newly acknowledged or SACKed) by the ACK being processed
    /// (draft section 3.3, UpdateRateSample).
    pub fn on_delivered(&mut self, seq: u32) {
        self.delivered += 1;
        self.gathering.acked_sacked += 1;
        let Some(&snap) = self.snaps.get(seq.wrapping_sub(self.base) as usize) else {
            return;
        };
        let newer = self.gathering.newest.is_none_or(|(n, q)| {
            snap.sent_at > n.sent_at || (snap.sent_at == n.sent_at && seq > q)
        });
        if newer {
            self.gathering.newest = Some((snap, seq));
            self.first_tx_time = snap.sent_at;
        }
    }

    /// The cumulative ACK moved to `ack`: the snapshots below it are no longer needed.
    pub fn trim(&mut self, ack: u32) {
        let n = (ack.saturating_sub(self.base) as usize).min(self.snaps.len());
        self.snaps.drain(..n);
        self.base = self.base.max(ack);
    }

    /// `n` segments were marked lost.
    pub fn on_lost(&mut self, n: u32) {
        self.lost += n as u64;
        self.gathering.losses += n;
    }

    /// The application has no more data to send and the window is not full: samples are
    /// application-limited until what is in flight now has been delivered (draft section
    /// 3.4; Linux `tcp_rate_check_app_limited`).
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        self.app_limited = (self.delivered + in_flight as u64).max(1);
    }

    /// Ends the ACK being processed and returns its sample (draft section 3.3,
    /// GenerateRateSample; Linux `tcp_rate_gen`). `min_rtt` bounds the interval from
    /// below, `rtt` and `prior_in_flight` are passed through.
    pub fn sample(
        &mut self,
        now: Time,
        min_rtt: Time,
        rtt: Option<Time>,
        prior_in_flight: u32,
    ) -> RateSample {
        let g = std::mem::take(&mut self.gathering);
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0; // the bubble has been delivered
        }
        if g.acked_sacked > 0 {
            self.delivered_time = now;
        }
        let mut rs = RateSample {
            acked_sacked: g.acked_sacked,
            losses: g.losses,
            rtt,
            prior_in_flight,
            ..RateSample::default()
        };
        let Some((snap, _)) = g.newest else {
            return rs;
        };
        rs.prior_delivered = snap.delivered;
        rs.is_app_limited = snap.app_limited;
        rs.is_retrans = snap.retransmit;
        let delivered = (self.delivered - snap.delivered) as u32;
        rs.delivered = Some(delivered);
        let send_phase = snap.sent_at - snap.first_tx_time;
        let ack_phase = now - snap.delivered_time;
        let interval = send_phase.max(ack_phase);
        if interval < min_rtt {
            return rs; // too short to be trusted (Linux's `rs->interval_us = -1`)
        }
        rs.interval = Some(interval);
        let keep = match self.reported {
            None => true,
            // Linux keeps an application-limited sample only if it is faster.
            Some((d, i)) => {
                !snap.app_limited
                    || delivered as f64 * i.as_secs_f64() >= d as f64 * interval.as_secs_f64()
            }
        };
        if keep {
            self.reported = Some((delivered, interval));
        }
        rs
    }

    /// The flow's delivery rate, bytes of payload per second (as Linux's `tcp_info`
    /// `delivery_rate`), once a valid sample has been taken.
    pub fn delivery_rate(&self, mss: u32) -> Option<f64> {
        let (d, i) = self.reported?;
        (i > Time::ZERO).then(|| d as f64 * mss as f64 / i.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    /// Ten segments sent 1 ms apart from idle; the path delivers one per millisecond
    /// after 50 ms. The ACK of segment 9 at 59 ms samples the ten deliveries since the
    /// snapshot of segment 9 (delivered 0 at its send): the send phase is 9 ms (segment 9
    /// at 9 ms, the phase began at 0), the ACK phase 59 ms (delivered_time 0 at the
    /// snapshot), so 10 segments over 59 ms.
    #[test]
    fn first_round_rate_uses_the_longer_phase() {
        let mut r = RateEstimator::default();
        for q in 0..10 {
            r.on_send(q, ms(q as u64), false, q == 0);
        }
        for q in 0..10u32 {
            let now = ms(50 + q as u64);
            r.on_delivered(q);
            r.trim(q + 1);
            let rs = r.sample(now, ms(50), Some(ms(50)), 10 - q);
            assert_eq!(rs.delivered, Some(q + 1));
            assert_eq!(rs.acked_sacked, 1);
            assert_eq!(rs.interval, Some(now), "ACK phase from 0");
        }
        assert_eq!(r.delivered, 10);
        assert_eq!(r.delivered_time, ms(59));
        let rate = r.delivery_rate(1000).unwrap();
        assert!((rate - 10_000.0 / 0.059).abs() < 1e-6, "{rate}");
    }

    /// In steady state a segment sent when segment k was just delivered is sampled
    /// one RTT later over exactly the deliveries in between.
    #[test]
    fn steady_state_rate_is_the_delivery_rate() {
        let mut r = RateEstimator::default();
        // One segment per ms, RTT 20 ms: segment q sent at q ms, acked at q + 20 ms.
        let mut last = RateSample::default();
        for t in 0..200u32 {
            let now = ms(t as u64);
            if t >= 20 {
                let q = t - 20;
                r.on_delivered(q);
                r.trim(q + 1);
                last = r.sample(now, ms(20), Some(ms(20)), 20);
            }
            r.on_send(t, now, false, t == 0);
        }
        // Segment 179 left at 179 ms, just after segment 159's delivery: its snapshot
        // counts 160 delivered (delivered_time 179 ms, send phase from segment 159's send
        // at 159 ms). Its ACK at 199 ms makes 180: 20 segments over 20 ms.
        assert_eq!(last.prior_delivered, 160);
        assert_eq!(last.delivered, Some(20));
        assert_eq!(last.interval, Some(ms(20)));
        assert_eq!(last.rate(), Some(1000.0));
    }

    #[test]
    fn samples_shorter_than_min_rtt_are_invalid() {
        let mut r = RateEstimator::default();
        r.on_send(0, ms(0), false, true);
        r.on_delivered(0);
        let rs = r.sample(ms(5), ms(10), None, 1);
        assert_eq!(rs.delivered, Some(1));
        assert_eq!(rs.interval, None);
        assert_eq!(rs.rate(), None);
        assert_eq!(r.delivery_rate(1000), None);
    }

    /// An ACK that delivers nothing carries no sample; losses are counted per ACK.
    #[test]
    fn duplicate_ack_has_no_sample_but_counts_losses() {
        let mut r = RateEstimator::default();
        r.on_send(0, ms(0), false, true);
        r.on_lost(2);
        let rs = r.sample(ms(30), ms(10), None, 1);
        assert_eq!((rs.delivered, rs.losses, rs.acked_sacked), (None, 2, 0));
        assert_eq!(r.lost, 2);
        assert_eq!(r.sample(ms(31), ms(10), None, 1).losses, 0);
    }

    /// Draft section 3.4: segments sent after the application ran dry carry the mark; it
    /// clears once the data in flight at that moment has been delivered.
    #[test]
    fn app_limited_marks_until_the_bubble_is_delivered() {
        let mut r = RateEstimator::default();
        r.on_send(0, ms(0), false, true);
        r.on_send(1, ms(0), false, false);
        r.mark_app_limited(2); // delivered 0 + 2 in flight
        r.on_send(2, ms(1), false, false);
        r.on_delivered(0);
        assert!(!r.sample(ms(20), ms(10), None, 3).is_app_limited);
        r.on_delivered(1);
        assert_eq!(r.app_limited, 2);
        r.on_delivered(2);
        let rs = r.sample(ms(21), ms(10), None, 2);
        assert!(
            rs.is_app_limited,
            "sampled from segment 2, sent app-limited"
        );
        assert_eq!(r.app_limited, 0, "3 delivered > mark 2");
    }

    /// A retransmission takes a new snapshot; the ACK that covers it samples from it.
    #[test]
    fn retransmission_overwrites_the_snapshot() {
        let mut r = RateEstimator::default();
        r.on_send(0, ms(0), false, true);
        r.on_send(1, ms(1), false, false);
        r.on_delivered(1); // SACKed
        r.sample(ms(21), ms(10), None, 2);
        r.on_send(0, ms(40), true, false);
        r.on_delivered(0);
        r.trim(2);
        let rs = r.sample(ms(60), ms(10), None, 1);
        assert!(rs.is_retrans);
        assert_eq!(rs.prior_delivered, 1);
        assert_eq!(rs.delivered, Some(1));
        // Send phase 40 - 1 (the phase began at segment 1's send), ACK phase 60 - 21.
        assert_eq!(rs.interval, Some(ms(39)));
    }
}
