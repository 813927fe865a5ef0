//! Random streams, one per component.
//!
//! Each stream is seeded from (scenario seed, component name) through a stable hash, so
//! adding a flow or a link never shifts the draws of any other component.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A component's private random stream.
#[derive(Clone, Debug)]
pub struct RngStream(Xoshiro256PlusPlus);

/// FNV-1a: a stable, dependency-free hash of the component name (not for security).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// SplitMix64 finaliser, to spread the combined seed over all 64 bits.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl RngStream {
    /// The stream of component `name` under scenario seed `seed`.
    pub fn new(seed: u64, name: &str) -> Self {
        let s = splitmix(seed ^ splitmix(fnv1a(name.as_bytes())));
        RngStream(Xoshiro256PlusPlus::seed_from_u64(s))
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform_range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((self.0.next_u64() as u128 * n as u128) >> 64) as u64
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_independent_and_reproducible() {
        let a1: Vec<u64> = (0..4)
            .map({
                let mut r = RngStream::new(7, "link:a");
                move |_| r.next_u64()
            })
            .collect();
        let a2: Vec<u64> = (0..4)
            .map({
                let mut r = RngStream::new(7, "link:a");
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = RngStream::new(7, "link:b");
                move |_| r.next_u64()
            })
            .collect();
        let a_other_seed: Vec<u64> = (0..4)
            .map({
                let mut r = RngStream::new(8, "link:a");
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, a_other_seed);
    }

    #[test]
    fn uniform_mean_is_half() {
        let mut r = RngStream::new(1, "x");
        let n = 100_000;
        let mean: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.01, "mean {mean}");
    }
}
