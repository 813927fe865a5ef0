//! ACK aggregation: extra cwnd for data acknowledged faster than the estimated bandwidth
//! would deliver it (Linux tcp_bbr.c's `extra_acked`, added after
//! draft-cardwell-iccrg-bbr-congestion-control-00; the draft's later versions call it
//! BBR.extra_acked). Wi-Fi, delayed and stretched ACKs deliver data in bursts; a cwnd of
//! exactly gain * BDP would then stall the sender between bursts.
//!
//! An epoch starts whenever the ACKs fall behind the estimated bandwidth; within it the
//! excess of segments acknowledged over `bw * elapsed` is a sample. The estimate is the
//! largest sample of the last 5 to 10 round trips (two alternating windows of 5).

use crate::sim::Time;

/// Round trips per window (`bbr_extra_acked_win_rtts`).
const WINDOW_ROUNDS: u32 = 5;
/// An epoch that acknowledged this many segments is restarted
/// (`bbr_ack_epoch_acked_reset_thresh`).
const EPOCH_RESET: u64 = 1 << 20;
/// The extra cwnd is at most the bandwidth times this (`bbr_extra_acked_max_us`).
pub const MAX_EXTRA_TIME: Time = Time::from_millis(100);

#[derive(Clone, Debug, Default, PartialEq)]
pub struct AckAggregation {
    epoch_start: Time,
    epoch_acked: u64,
    /// The largest excess of each window, segments.
    extra: [u64; 2],
    current: usize,
    window_rounds: u32,
}

impl AckAggregation {
    /// Starts a new epoch at `now` (at start-up, and when the flow restarts from idle).
    pub fn restart_epoch(&mut self, now: Time) {
        self.epoch_start = now;
        self.epoch_acked = 0;
    }

    /// The estimate: the larger of the two windows' maxima, segments.
    pub fn extra_acked(&self) -> u64 {
        self.extra[0].max(self.extra[1])
    }

    /// One ACK that acknowledged `acked` segments, with the delivery clock at `now`
    /// (Linux `bbr_update_ack_aggregation`): `bw` is BBR's bandwidth, segments per second,
    /// `cwnd` caps a sample.
    pub fn update(&mut self, round_start: bool, acked: u32, now: Time, bw: f64, cwnd: f64) {
        if round_start {
            self.window_rounds = (self.window_rounds + 1).min(0x1f);
            if self.window_rounds >= WINDOW_ROUNDS {
                self.window_rounds = 0;
                self.current ^= 1;
                self.extra[self.current] = 0;
            }
        }
        let elapsed = now.saturating_sub(self.epoch_start).as_secs_f64();
        let mut expected = (bw * elapsed).floor() as u64;
        // The ACKs have fallen behind the bandwidth (or the epoch is very old): restart.
        if self.epoch_acked <= expected || self.epoch_acked + acked as u64 >= EPOCH_RESET {
            self.restart_epoch(now);
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked as u64).min(0xfffff);
        let extra = (self.epoch_acked - expected.min(self.epoch_acked)).min(cwnd as u64);
        if extra > self.extra[self.current] {
            self.extra[self.current] = extra;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    /// At 1000 segments per second, ACKs of 20 segments every 20 ms match the bandwidth
    /// and leave no excess; a burst of 30 in 10 ms leaves 20 over.
    #[test]
    fn excess_over_the_bandwidth_is_measured() {
        let mut a = AckAggregation::default();
        a.restart_epoch(ms(0));
        for i in 1..=5 {
            a.update(false, 20, ms(20 * i), 1000.0, 100.0);
        }
        // Each ACK restarts the epoch (acked 20 <= expected 20) and counts 20 over a
        // zero expectation: the first sample of a fresh epoch is its whole ACK.
        assert_eq!(a.extra_acked(), 20);
        // 10 ms later, 30 more: expected 10 in the epoch started at 100 ms, 50 acked.
        a.update(false, 30, ms(110), 1000.0, 100.0);
        assert_eq!(a.extra_acked(), 40);
        // Capped by cwnd.
        a.update(false, 100, ms(111), 1000.0, 60.0);
        assert_eq!(a.extra_acked(), 60);
    }

    /// The maximum lives for 5 to 10 round trips.
    #[test]
    fn the_estimate_ages_out_over_two_windows() {
        let mut a = AckAggregation::default();
        // A fast path (10^6 segments per second): each ACK starts a new epoch.
        a.update(false, 50, ms(1), 1e6, 100.0);
        assert_eq!(a.extra_acked(), 50);
        for i in 0..5 {
            a.update(true, 1, ms(2 + i), 1e6, 100.0);
        }
        assert_eq!(a.extra_acked(), 50, "the other window is new");
        for i in 0..5 {
            a.update(true, 1, ms(10 + i), 1e6, 100.0);
        }
        assert_eq!(a.extra_acked(), 1);
    }
}
