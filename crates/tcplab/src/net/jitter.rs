//! Jitter on a link direction: a random extra delay per transmission that never reorders.
//!
//! A packet that finishes serialising at `done` would arrive at `done + delay`; with
//! jitter it arrives at `max(done + delay + X, previous arrival)`, where `X` is drawn
//! from the link's distribution on [0, max] (config/jitter.rs) and the previous arrival
//! is that of the packet sent before it on this link. So arrivals keep the order of
//! transmissions, as on a real wire (or a test bed's delay element, which releases
//! packets in order), and a packet is delayed by at most `max` plus what the packet
//! ahead of it was. Draws come from the link's own random stream (`jitter:<link>`), one
//! per packet that survives the loss model, in transmission order.

use crate::config::JitterSpec;
use crate::sim::{RngStream, Time};

/// The distribution of the extra delay, in nanoseconds.
#[derive(Clone, Debug, PartialEq)]
enum Dist {
    /// Uniform on the integers 0..=max.
    Uniform { max: u64 },
    /// Exponential of mean `mean` conditioned on [0, max]: by inverting its CDF,
    /// `x = -mean ln(1 - u (1 - e^(-max/mean)))`; `mass` is `1 - e^(-max/mean)`.
    Exponential { mean: f64, max: f64, mass: f64 },
    /// Normal conditioned on [0, max]: draws outside are drawn again.
    Normal { mean: f64, std: f64, max: f64 },
    /// Piecewise linear between quantiles at equally spaced probabilities (the inverse of
    /// the measured CDF, interpolated).
    Empirical { quantiles: Vec<f64> },
}

/// A link direction's jitter: its distribution, stream and last arrival.
#[derive(Clone, Debug)]
pub struct Jitter {
    dist: Dist,
    rng: RngStream,
    /// Arrival time of the last packet scheduled across the link.
    last_arrival: Time,
}

fn nanos(s: f64) -> f64 {
    (s * 1e9).round()
}

impl Jitter {
    /// The jitter of a (validated) spec, drawing from `rng`.
    pub fn new(spec: &JitterSpec, rng: RngStream) -> Self {
        let dist = match spec {
            JitterSpec::Uniform(u) => Dist::Uniform {
                max: nanos(u.max.0) as u64,
            },
            JitterSpec::Exponential(e) => {
                let (mean, max) = (nanos(e.mean.0), nanos(e.max.0));
                Dist::Exponential {
                    mean,
                    max,
                    mass: -(-max / mean).exp_m1(),
                }
            }
            JitterSpec::Normal(n) => Dist::Normal {
                mean: nanos(n.mean.0),
                std: nanos(n.std.0),
                max: nanos(n.max.0),
            },
            JitterSpec::Empirical(e) => Dist::Empirical {
                quantiles: e.quantiles.iter().map(|q| nanos(q.0)).collect(),
            },
        };
        Jitter {
            dist,
            rng,
            last_arrival: Time::ZERO,
        }
    }

    /// Draws from `rng` from now on (a component's own stream, given once the world knows
    /// its name).
    pub fn set_stream(&mut self, rng: RngStream) {
        self.rng = rng;
    }

    /// One extra delay.
    pub fn draw(&mut self) -> Time {
        let ns = match &self.dist {
            &Dist::Uniform { max } => return Time::from_nanos(self.rng.below(max + 1)),
            &Dist::Exponential { mean, max, mass } => {
                (-mean * (-self.rng.uniform() * mass).ln_1p()).min(max)
            }
            Dist::Empirical { quantiles } => {
                // Inverse transform: u in [0, 1) falls between two quantiles.
                let at = self.rng.uniform() * (quantiles.len() - 1) as f64;
                let i = (at as usize).min(quantiles.len() - 2);
                let (lo, hi) = (quantiles[i], quantiles[i + 1]);
                lo + (at - i as f64) * (hi - lo)
            }
            &Dist::Normal { mean, std, max } => loop {
                // Box-Muller, one of the pair; 1 - u is in (0, 1], so its log is finite.
                let r = (-2.0 * (1.0 - self.rng.uniform()).ln()).sqrt();
                let x = mean + std * r * (std::f64::consts::TAU * self.rng.uniform()).cos();
                if (0.0..=max).contains(&x) {
                    break x;
                }
            },
        };
        Time::from_nanos(ns.round() as u64)
    }

    /// When a packet that would arrive at `base` without jitter arrives: `base` plus a
    /// draw, but not before the packet sent ahead of it on this link.
    #[inline]
    pub fn arrival(&mut self, base: Time) -> Time {
        let at = (base + self.draw()).max(self.last_arrival);
        self.last_arrival = at;
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::jitter::{EmpiricalJitter, ExponentialJitter, NormalJitter, UniformJitter};
    use crate::config::Seconds;

    fn jitter(spec: JitterSpec) -> Jitter {
        Jitter::new(&spec, RngStream::new(1, "jitter:test"))
    }

    fn stats(j: &mut Jitter, n: usize) -> (f64, f64, u64, u64) {
        let draws: Vec<u64> = (0..n).map(|_| j.draw().nanos()).collect();
        let mean = draws.iter().sum::<u64>() as f64 / n as f64;
        let var = draws
            .iter()
            .map(|&d| (d as f64 - mean).powi(2))
            .sum::<f64>()
            / n as f64;
        let (lo, hi) = (*draws.iter().min().unwrap(), *draws.iter().max().unwrap());
        (mean, var.sqrt(), lo, hi)
    }

    #[test]
    fn uniform_covers_zero_to_max() {
        let mut j = jitter(JitterSpec::Uniform(UniformJitter {
            max: Seconds(300e-6),
        }));
        let (mean, _, lo, hi) = stats(&mut j, 200_000);
        assert!(hi <= 300_000 && hi > 299_000, "{hi}");
        assert!(lo < 1_000, "{lo}");
        assert!((mean - 150_000.0).abs() < 1_500.0, "{mean}");
        let mut zero = jitter(JitterSpec::Uniform(UniformJitter { max: Seconds(0.0) }));
        assert!((0..100).all(|_| zero.draw() == Time::ZERO));
    }

    #[test]
    fn empirical_follows_its_quantiles_tail_included() {
        // Quantiles at 0, 1/3, 2/3, 1: a third of the draws below 0.1 ms, a third between
        // 0.2 ms and a 2 ms tail, the mean the average of the three segments' midpoints.
        let us = |x: f64| Seconds(x * 1e-6);
        let mut j = jitter(JitterSpec::Empirical(EmpiricalJitter {
            quantiles: vec![us(0.0), us(100.0), us(200.0), us(2000.0)],
        }));
        let draws: Vec<u64> = (0..300_000).map(|_| j.draw().nanos()).collect();
        let share = |limit: u64| draws.iter().filter(|&&d| d <= limit).count() as f64 / 3e5;
        assert!(
            (share(100_000) - 1.0 / 3.0).abs() < 0.005,
            "{}",
            share(100_000)
        );
        assert!(
            (share(200_000) - 2.0 / 3.0).abs() < 0.005,
            "{}",
            share(200_000)
        );
        assert!(
            (share(1_100_000) - 5.0 / 6.0).abs() < 0.005,
            "{}",
            share(1_100_000)
        );
        assert!(*draws.iter().max().unwrap() <= 2_000_000);
        let mean = draws.iter().sum::<u64>() as f64 / 3e5;
        assert!((mean - (50e3 + 150e3 + 1100e3) / 3.0).abs() < 5e3, "{mean}");
        // A constant extra delay: every quantile the same.
        let mut fixed = jitter(JitterSpec::Empirical(EmpiricalJitter {
            quantiles: vec![us(70.0), us(70.0)],
        }));
        assert!((0..100).all(|_| fixed.draw() == Time::from_nanos(70_000)));
    }

    #[test]
    fn exponential_is_truncated_at_max() {
        // Mean 0.1 ms on [0, 1 ms]: the truncated mean is
        // m - M e^(-M/m) / (1 - e^(-M/m)) = 0.1 - 1 * 4.54e-5 / 0.99995 ms.
        let mut j = jitter(JitterSpec::Exponential(ExponentialJitter {
            mean: Seconds(100e-6),
            max: Seconds(1e-3),
        }));
        let (mean, std, _, hi) = stats(&mut j, 200_000);
        assert!(hi <= 1_000_000, "{hi}");
        assert!((mean - 99_955.0).abs() < 1_000.0, "{mean}");
        assert!((std - 99_500.0).abs() < 2_000.0, "{std}");
        // A bound below the mean: nearly uniform, and never above it.
        let mut tight = jitter(JitterSpec::Exponential(ExponentialJitter {
            mean: Seconds(1e-3),
            max: Seconds(50e-6),
        }));
        let (mean, _, _, hi) = stats(&mut tight, 100_000);
        assert!(hi <= 50_000);
        assert!((mean - 25_000.0).abs() < 1_000.0, "{mean}");
    }

    #[test]
    fn normal_is_truncated_to_zero_and_max() {
        let mut j = jitter(JitterSpec::Normal(NormalJitter {
            mean: Seconds(200e-6),
            std: Seconds(50e-6),
            max: Seconds(500e-6),
        }));
        let (mean, std, _, hi) = stats(&mut j, 200_000);
        assert!(hi <= 500_000);
        assert!((mean - 200_000.0).abs() < 1_000.0, "{mean}");
        assert!((std - 50_000.0).abs() < 1_000.0, "{std}");
        // Mean at 0: only the upper half, never negative.
        let mut half = jitter(JitterSpec::Normal(NormalJitter {
            mean: Seconds(0.0),
            std: Seconds(100e-6),
            max: Seconds(100e-6),
        }));
        let (_, _, lo, hi) = stats(&mut half, 50_000);
        assert!(lo < 1_000 && hi <= 100_000);
    }

    #[test]
    fn arrivals_never_go_back() {
        let mut j = jitter(JitterSpec::Uniform(UniformJitter { max: Seconds(1e-3) }));
        let mut last = Time::ZERO;
        // Packets 1 us apart with up to 1 ms of jitter: most are held behind others.
        for k in 0..10_000u64 {
            let base = Time::from_micros(k);
            let at = j.arrival(base);
            assert!(at >= last && at >= base);
            assert!(at <= (base + Time::from_millis(1)).max(last));
            last = at;
        }
    }
}
