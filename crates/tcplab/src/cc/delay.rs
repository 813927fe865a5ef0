//! Machinery shared by the delay-based family (Vegas and its variants, Veno): the
//! minimum RTT ("BaseRTT") and Vegas's Expected/Actual/Diff. Rounds are in
//! [`super::round`].
//!
//! Sources: 000 section 2.2.1 eq. (1), 002 section 2, 001 section II-A. The papers define
//! Expected = cwnd / BaseRTT, Actual = cwnd / RTT and the backlog
//! Delta (Vegas) = N (Veno) = (Expected - Actual) * BaseRTT, in packets.

use super::params::CcSpec;
use crate::sim::Time;

/// The smallest RTT seen since the last reset (Vegas's and Veno's BaseRTT).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BaseRtt(Option<Time>);

impl BaseRtt {
    pub fn observe(&mut self, rtt: Time) {
        if rtt > Time::ZERO {
            self.0 = Some(self.0.map_or(rtt, |b| b.min(rtt)));
        }
    }

    /// Forgets the minimum; the next sample becomes the new BaseRTT (Veno, 001 section II-A).
    pub fn reset(&mut self) {
        self.0 = None;
    }

    pub fn get(self) -> Option<Time> {
        self.0
    }
}

/// Vegas's comparison of the expected and the actual rate for one window (000 eq. (1)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// cwnd / BaseRTT, packets per second.
    pub expected: f64,
    /// cwnd / RTT, packets per second.
    pub actual: f64,
    /// (Expected - Actual) * BaseRTT: the packets this flow keeps queued (Vegas's Delta,
    /// Veno's N), never negative.
    pub diff: f64,
}

impl Estimate {
    pub fn new(cwnd: f64, base_rtt: Time, rtt: Time) -> Estimate {
        let base = base_rtt.as_secs_f64();
        let rtt = rtt.as_secs_f64().max(base);
        if base <= 0.0 {
            return Estimate {
                expected: 0.0,
                actual: 0.0,
                diff: 0.0,
            };
        }
        let expected = cwnd / base;
        let actual = cwnd / rtt;
        Estimate {
            expected,
            actual,
            diff: ((expected - actual) * base).max(0.0),
        }
    }
}

/// Splits a parameter table into the keys an algorithm owns and the rest, so that a
/// variant can add its own options to a shared options struct while both still reject
/// unknown keys.
pub fn split_params(spec: &CcSpec, own: &[&str]) -> (CcSpec, CcSpec) {
    let mut rest = spec.clone();
    let mut mine = CcSpec::named(&spec.name);
    for key in own {
        if let Some(v) = rest.params.remove(*key) {
            mine.params.insert((*key).to_string(), v);
        }
    }
    (rest, mine)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    #[test]
    fn diff_is_the_queued_backlog() {
        // 20 packets, BaseRTT 100 ms, RTT 125 ms: 4 packets sit in the queue.
        let e = Estimate::new(20.0, ms(100), ms(125));
        assert!((e.expected - 200.0).abs() < 1e-9);
        assert!((e.actual - 160.0).abs() < 1e-9);
        assert!((e.diff - 4.0).abs() < 1e-9);
        assert_eq!(Estimate::new(20.0, ms(100), ms(90)).diff, 0.0);
    }

    #[test]
    fn base_rtt_resets() {
        let mut b = BaseRtt::default();
        b.observe(ms(30));
        b.observe(ms(20));
        b.observe(ms(25));
        assert_eq!(b.get(), Some(ms(20)));
        b.reset();
        assert_eq!(b.get(), None);
        b.observe(ms(25));
        assert_eq!(b.get(), Some(ms(25)));
    }
}
