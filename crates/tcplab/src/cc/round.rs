//! RTT rounds for algorithms that act once per round trip: the Vegas family, Veno, FAST
//! and CTCP.
//!
//! A round runs from sending a distinguished segment to receiving its ACK (000 section
//! 3.3; Brakmo & Peterson 1995 section 3.2). As in Linux's `tcp_vegas.c` (`beg_snd_nxt`),
//! the distinguished segment is the first one sent after the previous round ended, and
//! the round's RTT samples are kept so that each algorithm can take the one its source
//! names ([`RttChoice`]). 004 section II: Vegas, FAST and CTCP update once per RTT, and
//! Linux's Vegas and CTCP use the smallest RTT of each round.

use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// Which RTT of a round feeds the once-per-round computation. Sources differ, so each
/// algorithm names its paper's choice as the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
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
}
