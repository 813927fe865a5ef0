//! Simulated time: integer nanoseconds, so runs are bit-identical on every machine.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in (or span of) simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Time {
        Time(ns)
    }
    pub const fn from_micros(us: u64) -> Time {
        Time(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * 1_000_000)
    }
    /// Seconds (as written in scenario documents) rounded to the nearest nanosecond.
    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * 1e9).round().max(0.0) as u64)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub const fn nanos(self) -> u64 {
        self.0
    }
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    /// Time to serialize `bytes` onto a link of `rate_bps`, rounded up to a whole nanosecond.
    pub fn transmission(bytes: u32, rate_bps: u64) -> Time {
        // 64-bit division when the product fits (any packet below 2 GB): the 128-bit one
        // is a library call that showed up in profiles.
        match (bytes as u64).checked_mul(8_000_000_000) {
            Some(bit_ns) => Time(bit_ns.div_ceil(rate_bps)),
            None => {
                let bits = bytes as u128 * 8 * 1_000_000_000;
                Time(bits.div_ceil(rate_bps as u128) as u64)
            }
        }
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}

impl Sub for Time {
    type Output = Time;
    fn sub(self, rhs: Time) -> Time {
        Time(self.0 - rhs.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_rounds_up() {
        // 1000 bytes at 10 Mb/s = 800 us exactly.
        assert_eq!(Time::transmission(1000, 10_000_000), Time::from_micros(800));
        // 1 byte at 3 b/s = 2.666.. s, rounded up.
        assert_eq!(Time::transmission(1, 3), Time(2_666_666_667));
    }

    proptest::proptest! {
        /// The 64-bit path gives the exact 128-bit result, on both sides of its limit.
        #[test]
        fn transmission_is_exact(bytes in proptest::prop_oneof![0u32..100_000, 2_000_000_000u32..=u32::MAX], rate in 1u64..1_000_000_000_000) {
            let exact = (bytes as u128 * 8_000_000_000).div_ceil(rate as u128) as u64;
            proptest::prop_assert_eq!(Time::transmission(bytes, rate), Time(exact));
        }
    }

    #[test]
    fn seconds_round_trip() {
        assert_eq!(Time::from_secs_f64(0.0235), Time::from_micros(23_500));
        assert!((Time::from_millis(1500).as_secs_f64() - 1.5).abs() < 1e-12);
    }
}
