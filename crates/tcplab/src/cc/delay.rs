//! Machinery shared by the delay-based family (Vegas and its variants, Veno): the
//! minimum RTT ("BaseRTT"), per-round RTT bookkeeping and Vegas's Expected/Actual/Diff.
//!
//! Sources: 000 section 2.2.1 eq. (1), 002 section 2, 001 section II-A. The papers define
//! Expected = cwnd / BaseRTT, Actual = cwnd / RTT and the backlog
//! Delta (Vegas) = N (Veno) = (Expected - Actual) * BaseRTT, in packets.

use super::params::CcSpec;
use crate::sim::Time;
use serde::Deserialize;

/// Which RTT of a round feeds the once-per-round computation. Sources differ, so each
/// algorithm names its paper's choice as the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RttChoice {
    /// The sample of the ACK that ends the round, i.e. of the round's distinguished
    /// segment (Brakmo & Peterson 1995 section 3.2, summarised in 002 section 2 as "the
    /// actual round trip time of a packet"; NewVegas's "round-trip delay of the target
    /// packet", 000 section 2.4).
    Last,
    /// The smallest sample of the round (Linux `tcp_vegas.c`; CODE, 000 section 4.5:
    /// "the minimum of the RTTs measured within the last window"; 004 section II).
    Min,
    /// The mean of the round's samples (NS-2 `tcp-vegas.cc`).
    Mean,
    /// The sender's smoothed RTT when the round ends (000 section 2.2.1's "newly
    /// measured smoothed RTT"; Veno, 001 section II-A).
    Smoothed,
}

impl RttChoice {
    pub fn name(self) -> &'static str {
        match self {
            RttChoice::Last => "last",
            RttChoice::Min => "min",
            RttChoice::Mean => "mean",
            RttChoice::Smoothed => "smoothed",
        }
    }
}

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

/// The RTT samples of one round, a round being the time from sending a distinguished
/// segment to receiving its ACK (000 section 3.3; Brakmo & Peterson section 3.2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Round {
    pub min: Time,
    pub mean: Time,
    pub last: Time,
    pub samples: u32,
}

impl Round {
    /// The round's RTT under `choice`, with `srtt` standing for [`RttChoice::Smoothed`].
    pub fn rtt(&self, choice: RttChoice, srtt: Time) -> Time {
        match choice {
            RttChoice::Last => self.last,
            RttChoice::Min => self.min,
            RttChoice::Mean => self.mean,
            RttChoice::Smoothed if srtt > Time::ZERO => srtt,
            RttChoice::Smoothed => self.last,
        }
    }
}

/// Splits the ACK stream into rounds. A round starts when the previous one ends and its
/// distinguished segment is the next new segment sent (`snd_nxt` at that moment); the
/// round ends with the first ACK that covers it.
#[derive(Clone, Debug, Default)]
pub struct RoundTracker {
    /// The round ends when the cumulative ACK exceeds this segment number.
    beg_snd_nxt: u32,
    min: Option<Time>,
    sum_ns: u128,
    count: u32,
    last: Option<Time>,
}

impl RoundTracker {
    /// Starts a fresh round now, discarding the samples collected so far (after a loss,
    /// when samples of the old window say nothing about the new one).
    pub fn restart(&mut self, snd_nxt: u32) {
        *self = RoundTracker {
            beg_snd_nxt: snd_nxt,
            ..RoundTracker::default()
        };
    }

    /// Records an ACK of new data. Returns the finished round if this ACK ended one that
    /// had at least one RTT sample (a round without samples, all of whose segments were
    /// retransmitted, ends silently: Karn's rule leaves nothing to measure).
    pub fn on_ack(&mut self, ack: u32, snd_nxt: u32, rtt: Option<Time>) -> Option<Round> {
        if let Some(r) = rtt {
            self.min = Some(self.min.map_or(r, |m| m.min(r)));
            self.sum_ns += r.nanos() as u128;
            self.count += 1;
            self.last = Some(r);
        }
        if ack <= self.beg_snd_nxt {
            return None;
        }
        let round = match (self.min, self.last) {
            (Some(min), Some(last)) => Some(Round {
                min,
                mean: Time((self.sum_ns / self.count as u128) as u64),
                last,
                samples: self.count,
            }),
            _ => None,
        };
        self.restart(snd_nxt);
        round
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
    fn rounds_end_when_the_distinguished_segment_is_acked() {
        let mut t = RoundTracker::default();
        t.restart(10);
        // Segments 0..9 were outstanding when the round began; segment 10 is distinguished.
        for ack in 1..=10 {
            assert_eq!(t.on_ack(ack, 20, Some(ms(50 + ack as u64))), None);
        }
        let r = t
            .on_ack(11, 21, Some(ms(40)))
            .expect("ACK of segment 10 ends the round");
        assert_eq!(r.samples, 11);
        assert_eq!(r.min, ms(40));
        assert_eq!(r.last, ms(40));
        assert_eq!(
            r.mean,
            Time(595_000_000 / 11),
            "(51 + ... + 60 + 40) ms / 11"
        );
        // The next round's distinguished segment is 21.
        assert_eq!(t.on_ack(21, 30, Some(ms(50))), None);
        assert!(t.on_ack(22, 30, None).is_some());
    }

    #[test]
    fn a_round_without_samples_yields_nothing() {
        let mut t = RoundTracker::default();
        t.restart(0);
        assert_eq!(t.on_ack(1, 5, None), None);
        assert!(t.on_ack(6, 9, Some(ms(10))).is_some());
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
