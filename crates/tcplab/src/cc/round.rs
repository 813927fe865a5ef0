//! RTT rounds for algorithms that update once per round trip (FAST, CTCP).
//!
//! A round ends when an ACK covers the first segment sent after the round began, the
//! `beg_snd_nxt` bookkeeping of Linux's tcp_vegas.c that Linux CTCP also uses; the RTT
//! samples taken during the round give its minimum RTT, which 004 section II says Linux's
//! Vegas and CTCP use in place of a single RTT sample.

use super::CcState;
use crate::sim::Time;

/// What a finished round measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundEnd {
    /// Smallest RTT sample of the round, `None` if Karn's rule left it without samples.
    pub min_rtt: Option<Time>,
    pub samples: u32,
}

/// Tracks the current round and its minimum RTT.
#[derive(Clone, Debug, Default)]
pub struct RttRound {
    /// `snd_nxt` when the current round began; `None` before the first ACK.
    end: Option<u32>,
    min_rtt: Option<Time>,
    samples: u32,
}

impl RttRound {
    /// Records an RTT sample. Call before [`RttRound::on_ack`] for the same ACK, so that
    /// the sample of the ACK that closes a round belongs to that round (as in Linux, where
    /// `pkts_acked` runs before `cong_avoid`).
    pub fn sample(&mut self, rtt: Time) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.samples += 1;
    }

    /// Call once per ACK of new data. Returns the summary of the round this ACK closes, if
    /// any, and starts the next round at the current `snd_nxt`.
    pub fn on_ack(&mut self, st: &CcState) -> Option<RoundEnd> {
        match self.end {
            Some(end) if st.snd_una < end => None,
            Some(_) => {
                let done = RoundEnd {
                    min_rtt: self.min_rtt.take(),
                    samples: std::mem::take(&mut self.samples),
                };
                self.end = Some(st.snd_nxt);
                Some(done)
            }
            None => {
                self.end = Some(st.snd_nxt);
                None
            }
        }
    }

    /// Forgets the current round (after a timeout, when the window restarts).
    pub fn reset(&mut self) {
        *self = RttRound::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_ends_when_the_first_segment_sent_after_its_start_is_acked() {
        let mut st = CcState::new(4.0, 1e9, 1000, 1000);
        let mut r = RttRound::default();
        st.snd_una = 1;
        st.snd_nxt = 5;
        r.sample(Time::from_millis(50));
        assert_eq!(r.on_ack(&st), None, "the first ACK only starts a round");
        for (una, rtt) in [(2, 40), (3, 45), (4, 60)] {
            st.snd_una = una;
            st.snd_nxt = una + 4;
            r.sample(Time::from_millis(rtt));
            assert_eq!(
                r.on_ack(&st),
                None,
                "segment {una} was sent before the round"
            );
        }
        st.snd_una = 5;
        st.snd_nxt = 9;
        r.sample(Time::from_millis(70));
        let done = r.on_ack(&st).expect("segment 4 was the last of the round");
        assert_eq!(done.min_rtt, Some(Time::from_millis(40)));
        assert_eq!(
            done.samples, 5,
            "the opening, three in-round and the closing sample"
        );
        st.snd_una = 8;
        assert_eq!(r.on_ack(&st), None, "the next round runs to segment 9");
        st.snd_una = 9;
        assert_eq!(
            r.on_ack(&st),
            Some(RoundEnd {
                min_rtt: None,
                samples: 0
            })
        );
    }
}
