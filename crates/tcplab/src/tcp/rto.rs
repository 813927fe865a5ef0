//! Retransmission timeout estimation (RFC 6298) with exponential backoff.

use crate::sim::Time;

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    srtt: Option<u64>,
    rttvar: u64,
    backoff: u32,
    min_rto: u64,
    max_rto: u64,
    initial_rto: u64,
    granularity: u64,
}

impl RtoEstimator {
    pub fn new(min_rto: Time, max_rto: Time, initial_rto: Time, granularity: Time) -> Self {
        RtoEstimator {
            srtt: None,
            rttvar: 0,
            backoff: 0,
            min_rto: min_rto.nanos(),
            max_rto: max_rto.nanos(),
            initial_rto: initial_rto.nanos(),
            granularity: granularity.nanos(),
        }
    }

    /// RFC 6298 section 2.2 (first sample) and 2.3 (later samples, alpha 1/8, beta 1/4).
    /// A valid sample also ends any backoff (section 5.7 with Karn's rule, section 3).
    pub fn sample(&mut self, rtt: Time) {
        let r = rtt.nanos();
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                self.rttvar = (3 * self.rttvar + s.abs_diff(r)) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        self.backoff = 0;
    }

    /// RFC 6298 section 5.5: double the timeout after an expiry.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
    }

    /// RTO = SRTT + max(G, 4 RTTVAR), at least the minimum (2.4), at most the maximum (2.5),
    /// times 2^backoff.
    pub fn rto(&self) -> Time {
        let base = match self.srtt {
            None => self.initial_rto,
            Some(s) => (s + self.granularity.max(4 * self.rttvar)).max(self.min_rto),
        };
        let backed = base.saturating_mul(1u64 << self.backoff.min(30));
        Time(backed.min(self.max_rto.max(self.min_rto)))
    }

    pub fn srtt(&self) -> Time {
        Time(self.srtt.unwrap_or(0))
    }

    pub fn rttvar(&self) -> Time {
        Time(self.rttvar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RtoEstimator {
        RtoEstimator::new(
            Time::from_millis(200),
            Time::from_secs_f64(60.0),
            Time::from_secs_f64(1.0),
            Time::from_millis(1),
        )
    }

    #[test]
    fn follows_rfc6298() {
        let mut e = est();
        assert_eq!(e.rto(), Time::from_secs_f64(1.0));
        e.sample(Time::from_millis(100));
        // SRTT 100 ms, RTTVAR 50 ms: RTO = 100 + 200 = 300 ms.
        assert_eq!(e.rto(), Time::from_millis(300));
        e.sample(Time::from_millis(100));
        // RTTVAR = 3/4*50 + 1/4*0 = 37.5 ms; SRTT 100: RTO 250 ms.
        assert_eq!(e.rto(), Time::from_micros(250_000));
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = est();
        e.sample(Time::from_millis(100));
        e.back_off();
        assert_eq!(e.rto(), Time::from_millis(600));
        for _ in 0..40 {
            e.back_off();
        }
        assert_eq!(e.rto(), Time::from_secs_f64(60.0));
        e.sample(Time::from_millis(100));
        assert!(
            e.rto() < Time::from_secs_f64(1.0),
            "a valid sample clears the backoff"
        );
    }

    #[test]
    fn minimum_rto_applies() {
        let mut e = est();
        for _ in 0..50 {
            e.sample(Time::from_millis(10));
        }
        assert_eq!(e.rto(), Time::from_millis(200));
    }
}
