//! Retransmission timeout estimation (RFC 6298, or Linux's `tcp_rtt_estimator`) with
//! exponential backoff: the sender's timer, and Vegas's fine-grained one (so it sits below
//! both `tcp` and `cc`).

use crate::config::RtoEstimatorKind;
use crate::sim::Time;

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    kind: RtoEstimatorKind,
    srtt: Option<u64>,
    rttvar: u64,
    /// Linux: the mean deviation (`mdev_us / 4`) and its largest value this round
    /// (`mdev_max_us / 4`).
    mdev: u64,
    mdev_max: u64,
    backoff: u32,
    /// The timeout as of the last change ([`RtoEstimator::rto`]; read twice per ACK, so
    /// kept rather than recomputed).
    rto: u64,
    min_rto: u64,
    max_rto: u64,
    initial_rto: u64,
    granularity: u64,
}

impl RtoEstimator {
    pub fn new(min_rto: Time, max_rto: Time, initial_rto: Time, granularity: Time) -> Self {
        let mut e = RtoEstimator {
            kind: RtoEstimatorKind::Rfc6298,
            srtt: None,
            rttvar: 0,
            mdev: 0,
            mdev_max: 0,
            backoff: 0,
            rto: 0,
            min_rto: min_rto.nanos(),
            max_rto: max_rto.nanos(),
            initial_rto: initial_rto.nanos(),
            granularity: granularity.nanos(),
        };
        e.update_rto();
        e
    }

    pub fn with_kind(mut self, kind: RtoEstimatorKind) -> Self {
        self.kind = kind;
        self.update_rto();
        self
    }

    /// RFC 6298 section 2.2 (first sample) and 2.3 (later samples, alpha 1/8, beta 1/4).
    /// A valid sample also ends any backoff (section 5.7 with Karn's rule, section 3).
    /// `round_ended`: the ACK acknowledged data sent after the previous round's end
    /// (Linux's `rtt_seq`), when the Linux estimator lets its variance term decay.
    pub fn sample(&mut self, rtt: Time, round_ended: bool) {
        if self.kind == RtoEstimatorKind::Linux {
            self.sample_linux(rtt.nanos(), round_ended);
            self.backoff = 0;
            self.update_rto();
            return;
        }
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
        self.update_rto();
    }

    /// Linux `tcp_rtt_estimator`: SRTT with gain 1/8; the mean deviation with gain 1/4, or
    /// 1/32 when the sample is below SRTT (so falling RTTs do not inflate it); RTTVAR is the
    /// largest deviation of the round, never below the minimum RTO, and decays by 1/4 per
    /// round towards it. RTO = SRTT + RTTVAR (`__tcp_set_rto`), so at least SRTT + min_rto.
    fn sample_linux(&mut self, m: u64, round_ended: bool) {
        let Some(srtt) = self.srtt else {
            self.srtt = Some(m);
            self.mdev = m / 2;
            self.rttvar = (2 * m).max(self.min_rto);
            self.mdev_max = self.rttvar;
            return;
        };
        let err = m as i128 - srtt as i128;
        self.srtt = Some((srtt as i128 + err / 8).max(1) as u64);
        let abs = err.unsigned_abs() as u64;
        // mdev += (|err| - mdev) / 4, or / 32 for a sample below SRTT that exceeds mdev.
        let d = abs as i128 - self.mdev as i128;
        let step = if err < 0 && d > 0 { d / 32 } else { d / 4 };
        self.mdev = (self.mdev as i128 + step).max(0) as u64;
        if 4 * self.mdev > self.mdev_max {
            self.mdev_max = 4 * self.mdev;
            self.rttvar = self.rttvar.max(self.mdev_max);
        }
        if round_ended {
            if self.mdev_max < self.rttvar {
                self.rttvar -= (self.rttvar - self.mdev_max) / 4;
            }
            self.mdev_max = self.min_rto;
        }
    }

    /// RFC 6298 section 5.5: double the timeout after an expiry.
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
        self.update_rto();
    }

    /// RTO = SRTT + max(G, 4 RTTVAR), at least the minimum (2.4), at most the maximum (2.5),
    /// times 2^backoff.
    pub fn rto(&self) -> Time {
        Time(self.rto)
    }

    /// Computes [`RtoEstimator::rto`] after a change of the estimate or the backoff.
    fn update_rto(&mut self) {
        let base = match (self.srtt, self.kind) {
            (None, _) => self.initial_rto,
            (Some(s), RtoEstimatorKind::Rfc6298) => {
                (s + self.granularity.max(4 * self.rttvar)).max(self.min_rto)
            }
            (Some(s), RtoEstimatorKind::Linux) => s + self.rttvar,
        };
        let backed = base.saturating_mul(1u64 << self.backoff.min(30));
        self.rto = backed.min(self.max_rto.max(self.min_rto));
    }

    pub fn srtt(&self) -> Time {
        Time(self.srtt.unwrap_or(0))
    }

    pub fn rttvar(&self) -> Time {
        Time(self.rttvar)
    }

    /// The backoff exponent (0 after a valid sample).
    pub fn backoff(&self) -> u32 {
        self.backoff
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
        e.sample(Time::from_millis(100), false);
        // SRTT 100 ms, RTTVAR 50 ms: RTO = 100 + 200 = 300 ms.
        assert_eq!(e.rto(), Time::from_millis(300));
        e.sample(Time::from_millis(100), false);
        // RTTVAR = 3/4*50 + 1/4*0 = 37.5 ms; SRTT 100: RTO 250 ms.
        assert_eq!(e.rto(), Time::from_micros(250_000));
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = est();
        e.sample(Time::from_millis(100), false);
        e.back_off();
        assert_eq!(e.rto(), Time::from_millis(600));
        for _ in 0..40 {
            e.back_off();
        }
        assert_eq!(e.rto(), Time::from_secs_f64(60.0));
        e.sample(Time::from_millis(100), false);
        assert!(
            e.rto() < Time::from_secs_f64(1.0),
            "a valid sample clears the backoff"
        );
    }

    #[test]
    fn linux_estimator_keeps_srtt_plus_min_rto() {
        let mut e = est().with_kind(RtoEstimatorKind::Linux);
        e.sample(Time::from_millis(100), false);
        // First sample: RTTVAR = max(2 * 100 ms, 200 ms): RTO 300 ms.
        assert_eq!(e.rto(), Time::from_millis(300));
        for _ in 0..50 {
            e.sample(Time::from_millis(100), true);
        }
        // A steady RTT decays RTTVAR to its floor, the minimum RTO.
        assert_eq!(e.rto(), Time::from_millis(300));
        e.sample(Time::from_millis(20), true);
        assert!(e.rto() >= e.srtt() + Time::from_millis(200));
    }

    #[test]
    fn minimum_rto_applies() {
        let mut e = est();
        for _ in 0..50 {
            e.sample(Time::from_millis(10), false);
        }
        assert_eq!(e.rto(), Time::from_millis(200));
    }
}
