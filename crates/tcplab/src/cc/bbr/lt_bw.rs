//! Long-term bandwidth sampling: detecting a token-bucket policer (Linux tcp_bbr.c's
//! `lt_bw`, "long-term" sampling; not in draft-cardwell-iccrg-bbr-congestion-control-00).
//!
//! A policer lets bursts through and then drops everything above its rate, so BBR's
//! max filter overestimates the path. From the first loss on, BBR measures the delivery
//! rate over intervals of 4 to 16 round trips that end in a loss; if two consecutive
//! intervals have a loss rate of at least 20 % and rates within 12.5 % (or 4 kbit/s) of
//! each other, the flow is policed: BBR uses their mean as its bandwidth, with a pacing
//! gain of 1, for 48 round trips, then probes again.

use crate::sim::Time;

/// Shortest and longest sampling intervals, round trips (Linux `bbr_lt_intvl_min_rtts`,
/// and four times that).
const MIN_ROUNDS: u32 = 4;
const MAX_ROUNDS: u32 = 4 * MIN_ROUNDS;
/// Loss rate that ends an interval: 50/256, about 20 % (`bbr_lt_loss_thresh`).
const LOSS_THRESH: f64 = 50.0 / 256.0;
/// Two intervals agree within 1/8 of the first's rate (`bbr_lt_bw_ratio`) ...
const RATIO: f64 = 1.0 / 8.0;
/// ... or within 4 kbit/s (`bbr_lt_bw_diff`, bytes per second).
const DIFF_BYTES: f64 = 4000.0 / 8.0;
/// Round trips the policed rate is used for (`bbr_lt_bw_max_rtts`).
pub const MAX_USE_ROUNDS: u32 = 48;

/// What the sampler reads of the connection at each step.
#[derive(Clone, Copy, Debug)]
pub struct Counters {
    pub delivered: u64,
    pub lost: u64,
    pub delivered_time: Time,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct LongTermBw {
    /// The policed rate, segments per second (0: none yet).
    pub bw: f64,
    /// The flow is taken to be policed: BBR uses `bw`.
    pub in_use: bool,
    sampling: bool,
    /// Round trips in the current interval, or since `in_use` began.
    pub rounds: u32,
    /// The interval's start: whole milliseconds of the delivery clock, as Linux keeps it.
    start_ms: u64,
    start_delivered: u64,
    start_lost: u64,
}

/// One step of the sampler, per valid rate sample (or a timeout, as one loss).
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub round_start: bool,
    pub losses: u32,
    pub app_limited: bool,
    /// BBR is in PROBE_BW (the policed rate is given up only there).
    pub probe_bw: bool,
    /// Segment payload, bytes, to compare rates in bytes per second.
    pub mss: u32,
}

/// What BBR must do after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Continue,
    /// The policed rate has been used long enough: restart the PROBE_BW gain cycle.
    StopUsing,
}

impl LongTermBw {
    /// Starts a new interval at the connection's present counters.
    fn restart_interval(&mut self, c: Counters) {
        self.start_ms = c.delivered_time.nanos() / 1_000_000;
        self.start_delivered = c.delivered;
        self.start_lost = c.lost;
        self.rounds = 0;
    }

    /// Forgets everything (Linux `bbr_reset_lt_bw_sampling`).
    pub fn reset(&mut self, c: Counters) {
        self.bw = 0.0;
        self.in_use = false;
        self.sampling = false;
        self.restart_interval(c);
    }

    /// One step (Linux `bbr_lt_bw_sampling`).
    pub fn step(&mut self, s: Step, c: Counters) -> Verdict {
        if self.in_use {
            if s.probe_bw && s.round_start {
                self.rounds += 1;
                if self.rounds >= MAX_USE_ROUNDS {
                    self.reset(c);
                    return Verdict::StopUsing;
                }
            }
            return Verdict::Continue;
        }
        // Sampling starts at the first loss, once a policer has used up its tokens.
        if !self.sampling {
            if s.losses == 0 {
                return Verdict::Continue;
            }
            self.restart_interval(c);
            self.sampling = true;
        }
        // Running out of data would make the rate an underestimate.
        if s.app_limited {
            self.reset(c);
            return Verdict::Continue;
        }
        if s.round_start {
            self.rounds += 1;
        }
        if self.rounds < MIN_ROUNDS {
            return Verdict::Continue;
        }
        if self.rounds > MAX_ROUNDS {
            self.reset(c);
            return Verdict::Continue;
        }
        // The interval ends with a loss, when the tokens are surely exhausted ...
        if s.losses == 0 {
            return Verdict::Continue;
        }
        // ... and a loss rate of at least 20 %.
        let lost = c.lost - self.start_lost;
        let delivered = c.delivered - self.start_delivered;
        if delivered == 0 || (lost as f64) < LOSS_THRESH * delivered as f64 {
            return Verdict::Continue;
        }
        let ms = (c.delivered_time.nanos() / 1_000_000).saturating_sub(self.start_ms);
        if ms < 1 {
            return Verdict::Continue;
        }
        self.interval_done(delivered as f64 * 1000.0 / ms as f64, s.mss, c);
        Verdict::Continue
    }

    /// An interval measured `bw`: policed if it agrees with the previous one (Linux
    /// `bbr_lt_bw_interval_done`).
    fn interval_done(&mut self, bw: f64, mss: u32, c: Counters) {
        if self.bw > 0.0 {
            let diff = (bw - self.bw).abs();
            if diff <= RATIO * self.bw || super::rate_bytes(diff, 1.0, mss) <= DIFF_BYTES {
                self.bw = (bw + self.bw) / 2.0;
                self.in_use = true;
                self.rounds = 0;
                return;
            }
        }
        self.bw = bw;
        self.restart_interval(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(delivered: u64, lost: u64, ms: u64) -> Counters {
        Counters {
            delivered,
            lost,
            delivered_time: Time::from_millis(ms),
        }
    }

    fn step(round_start: bool, losses: u32) -> Step {
        Step {
            round_start,
            losses,
            app_limited: false,
            probe_bw: true,
            mss: 1000,
        }
    }

    /// A hand-worked policer: 100 segments per 100 ms round pass, 25 are dropped. Two
    /// intervals of 4 rounds measure 1000 segments per second each, so the flow is
    /// policed at that rate; 48 round trips later BBR probes again.
    #[test]
    fn two_agreeing_lossy_intervals_mean_a_policer() {
        let mut lt = LongTermBw::default();
        lt.reset(counters(0, 0, 0));
        // No loss yet: nothing is sampled.
        assert_eq!(
            lt.step(step(true, 0), counters(100, 0, 100)),
            Verdict::Continue
        );
        assert!(!lt.sampling);
        // The first loss starts the first interval at 100 delivered, 25 lost, 100 ms.
        lt.step(step(false, 25), counters(100, 25, 100));
        assert!(lt.sampling);
        let mut bw_seen = Vec::new();
        for round in 1..=8u64 {
            let c = counters(100 + 100 * round, 25 + 25 * round, 100 + 100 * round);
            lt.step(step(true, 25), c);
            bw_seen.push((lt.bw, lt.in_use));
        }
        // Round 4 ends the first interval: 400 delivered in 400 ms.
        assert_eq!(bw_seen[3], (1000.0, false));
        // Round 8 ends the second, which agrees: policed.
        assert_eq!(bw_seen[7], (1000.0, true));
        for _ in 0..MAX_USE_ROUNDS - 1 {
            assert_eq!(lt.step(step(true, 0), counters(0, 0, 0)), Verdict::Continue);
        }
        assert_eq!(
            lt.step(step(true, 0), counters(0, 0, 0)),
            Verdict::StopUsing
        );
        assert!(!lt.in_use && lt.bw == 0.0);
    }

    /// Light losses (below 20 %) never end an interval, and after 16 round trips the
    /// interval is abandoned.
    #[test]
    fn light_losses_are_not_a_policer() {
        let mut lt = LongTermBw::default();
        lt.reset(counters(0, 0, 0));
        for round in 1..=20u64 {
            lt.step(step(true, 1), counters(100 * round, round, 100 * round));
            assert_eq!(lt.bw, 0.0);
        }
        assert!(lt.rounds <= MAX_ROUNDS);
    }

    /// Application-limited samples restart sampling from scratch.
    #[test]
    fn app_limited_resets() {
        let mut lt = LongTermBw::default();
        lt.reset(counters(0, 0, 0));
        lt.step(step(true, 5), counters(10, 5, 10));
        assert!(lt.sampling);
        let mut s = step(true, 0);
        s.app_limited = true;
        lt.step(s, counters(20, 5, 20));
        assert!(!lt.sampling);
    }
}
