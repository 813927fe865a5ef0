//! BBR's two path estimates: the bottleneck bandwidth, a windowed maximum of delivery-rate
//! samples over the last 10 round trips (draft-cardwell-iccrg-bbr-congestion-control-00
//! section 4.1.1, "BBR.BtlBw"), and the round-trip propagation time, the minimum RTT of
//! the last 10 seconds (section 4.1.2, "BBR.RTprop").

use crate::sim::Time;

/// One candidate of the windowed maximum: a value and the round it was seen in.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Candidate {
    round: u64,
    value: f64,
}

/// A windowed maximum over `window` rounds that keeps three candidates, the best, the
/// best seen after it and the best seen after that (Kathleen Nichols' estimator, which
/// Linux uses for BBR's bandwidth: lib/minmax.c). When the best ages out of the window
/// the next candidate takes over; when it has not been beaten for a quarter (half) of
/// the window, a fresh sample becomes the second (third) candidate, so the ones behind
/// it are never older than they need to be.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowedMax {
    window: u64,
    best: [Candidate; 3],
}

impl WindowedMax {
    /// A filter over `window` rounds, holding 0 at round 0.
    pub fn new(window: u64) -> Self {
        let zero = Candidate {
            round: 0,
            value: 0.0,
        };
        WindowedMax {
            window,
            best: [zero; 3],
        }
    }

    /// The windowed maximum.
    pub fn get(&self) -> f64 {
        self.best[0].value
    }

    /// Forgets everything but `value`, seen in `round`.
    pub fn reset(&mut self, round: u64, value: f64) {
        self.best = [Candidate { round, value }; 3];
    }

    /// Takes `value` seen in `round` (rounds never go back) and returns the maximum.
    pub fn update(&mut self, round: u64, value: f64) -> f64 {
        let c = Candidate { round, value };
        let [first, second, third] = self.best;
        // A new best, or even the newest candidate has left the window: start over.
        if value >= first.value || round - third.round > self.window {
            self.reset(round, value);
            return value;
        }
        if value >= second.value {
            self.best[1] = c;
            self.best[2] = c;
        } else if value >= third.value {
            self.best[2] = c;
        }
        self.age(c)
    }

    /// Promotes candidates as the best ages (see the type's docs).
    fn age(&mut self, c: Candidate) -> f64 {
        let age = c.round - self.best[0].round;
        if age > self.window {
            self.best = [self.best[1], self.best[2], c];
            if c.round - self.best[0].round > self.window {
                self.best = [self.best[1], self.best[2], c];
            }
        } else if self.best[1].round == self.best[0].round && age > self.window / 4 {
            self.best[1] = c;
            self.best[2] = c;
        } else if self.best[2].round == self.best[1].round && age > self.window / 2 {
            self.best[2] = c;
        }
        self.best[0].value
    }
}

/// The minimum RTT of a window of wall-clock time (Linux `min_rtt_us`, `min_rtt_stamp`):
/// a lower sample replaces it at once; once it is older than the window any sample
/// replaces it, unless that sample's ACK may have been delayed.
#[derive(Clone, Debug, PartialEq)]
pub struct MinRtt {
    window: Time,
    /// The estimate, `Time::MAX` before the first sample.
    pub rtt: Time,
    /// When it was taken (or the window last restarted).
    pub stamp: Time,
}

impl MinRtt {
    pub fn new(window: Time, rtt: Time, now: Time) -> Self {
        MinRtt {
            window,
            rtt,
            stamp: now,
        }
    }

    /// Whether the estimate is older than the window at `now`.
    pub fn expired(&self, now: Time) -> bool {
        now > self.stamp + self.window
    }

    /// Takes an RTT sample (if the ACK gave one) at `now`; returns whether the estimate
    /// had expired before it (BBR then enters PROBE_RTT).
    pub fn update(&mut self, now: Time, sample: Option<Time>, ack_delayed: bool) -> bool {
        let expired = self.expired(now);
        if let Some(rtt) = sample {
            if rtt < self.rtt || (expired && !ack_delayed) {
                self.rtt = rtt;
                self.stamp = now;
            }
        }
        expired
    }

    /// The estimate is known, not just its initial `Time::MAX`.
    pub fn is_known(&self) -> bool {
        self.rtt != Time::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(round: u64, value: f64) -> Candidate {
        Candidate { round, value }
    }

    /// A hand-worked trace over a window of 10 rounds.
    #[test]
    fn windowed_max_trace() {
        let mut f = WindowedMax::new(10);
        assert_eq!(f.update(1, 100.0), 100.0);
        assert_eq!(f.best, [c(1, 100.0); 3]);
        // 80 beats no candidate, and 1 round is not a quarter of the window: ignored.
        assert_eq!(f.update(2, 80.0), 100.0);
        assert_eq!(f.best, [c(1, 100.0); 3]);
        // 3 rounds on (more than 10 / 4), it becomes the second and third candidate.
        f.update(4, 80.0);
        assert_eq!(f.best, [c(1, 100.0), c(4, 80.0), c(4, 80.0)]);
        // 4 rounds is not more than half the window: 60 is ignored; 6 rounds is.
        f.update(5, 60.0);
        assert_eq!(f.best, [c(1, 100.0), c(4, 80.0), c(4, 80.0)]);
        f.update(7, 60.0);
        assert_eq!(f.best, [c(1, 100.0), c(4, 80.0), c(7, 60.0)]);
        // 90 beats the second candidate: second and third.
        f.update(8, 90.0);
        assert_eq!(f.best, [c(1, 100.0), c(8, 90.0), c(8, 90.0)]);
        assert_eq!(f.update(11, 50.0), 100.0);
        assert_eq!(f.best, [c(1, 100.0), c(8, 90.0), c(11, 50.0)]);
        // 50 ties the third candidate, which takes the newer round; round 12 is more than
        // 10 rounds after round 1: 90 takes over.
        assert_eq!(f.update(12, 50.0), 90.0);
        assert_eq!(f.best, [c(8, 90.0), c(12, 50.0), c(12, 50.0)]);
        // A new best resets everything.
        assert_eq!(f.update(13, 95.0), 95.0);
        assert_eq!(f.best, [c(13, 95.0); 3]);
    }

    /// After a quarter of the window without a new second best, a fresh sample becomes
    /// the second and third candidate; after half, the third.
    #[test]
    fn candidates_refresh_in_quarters_and_halves() {
        let mut f = WindowedMax::new(10);
        f.update(0, 100.0);
        f.update(2, 10.0); // below every candidate, and 2 rounds is not above 10 / 4
        assert_eq!(
            f.best,
            [Candidate {
                round: 0,
                value: 100.0
            }; 3]
        );
        let mut g = WindowedMax::new(10);
        g.reset(0, 100.0);
        g.update(3, 10.0); // value below every candidate; age 3 > 10 / 4
        assert_eq!(
            g.best[1],
            Candidate {
                round: 3,
                value: 10.0
            }
        );
        assert_eq!(
            g.best[2],
            Candidate {
                round: 3,
                value: 10.0
            }
        );
        g.update(6, 5.0); // age 6 > 10 / 2 and the third is the second
        assert_eq!(
            g.best[2],
            Candidate {
                round: 6,
                value: 5.0
            }
        );
        assert_eq!(g.get(), 100.0);
        // Everything older than the window: the newest sample alone.
        assert_eq!(g.update(30, 1.0), 1.0);
    }

    #[test]
    fn min_rtt_expires_after_its_window() {
        let s = Time::from_secs_f64;
        let mut m = MinRtt::new(s(10.0), Time::MAX, Time::ZERO);
        assert!(!m.is_known());
        assert!(!m.update(s(1.0), Some(s(0.05)), false));
        assert_eq!((m.rtt, m.stamp), (s(0.05), s(1.0)));
        // A higher sample within the window is ignored.
        assert!(!m.update(s(5.0), Some(s(0.08)), false));
        assert_eq!(m.rtt, s(0.05));
        // At exactly 10 s the window has not yet passed.
        assert!(!m.update(s(11.0), Some(s(0.08)), false));
        // After it, any sample replaces the estimate, unless its ACK may have been delayed.
        assert!(m.update(s(11.5), Some(s(0.08)), true));
        assert_eq!(m.rtt, s(0.05));
        assert!(m.update(s(11.5), Some(s(0.08)), false));
        assert_eq!((m.rtt, m.stamp), (s(0.08), s(11.5)));
    }
}
