//! The true cause of each loss a sender reacts to, for scoring loss classification
//! (001 table I): the latest drop of that segment before the response.
//!
//! Every loss response is about the sender's oldest unacknowledged segment (`snd_una`,
//! which never decreases), so a drop of an earlier segment can match no later response.
//! Each response is matched when the sender makes it, and drops of segments below
//! `snd_una` are forgotten from time to time: the log stays as small as the window
//! instead of growing with every drop of the run.

use crate::net::DropCause;
use crate::sim::Time;
use crate::tcp::sender::LossRecord;

#[derive(Debug, Default)]
pub struct DropLog {
    /// (time, segment, cause) of the data drops that may still be matched.
    drops: Vec<(Time, u32, DropCause)>,
    /// Length of `drops` after the last pruning.
    kept: usize,
}

impl DropLog {
    pub fn record(&mut self, at: Time, seq: u32, cause: DropCause) {
        self.drops.push((at, seq, cause));
    }

    /// The true cause of loss response `rec`, made now: the latest drop of its segment
    /// at or before it (`None`: the segment was not dropped).
    pub fn cause_of(&self, rec: &LossRecord) -> Option<DropCause> {
        self.drops
            .iter()
            .rev()
            .find(|&&(t, seq, _)| seq == rec.seq && t <= rec.time)
            .map(|&(_, _, c)| c)
    }

    /// Forgets the drops that no later response can match, those of segments below
    /// `snd_una` (when the log has doubled since it was last pruned). Call after matching
    /// the responses made so far.
    pub fn prune(&mut self, snd_una: u32) {
        if self.drops.len() >= 2 * self.kept + 64 {
            self.drops.retain(|&(_, seq, _)| seq >= snd_una);
            self.kept = self.drops.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::LossKind;

    fn loss(time: u64, seq: u32) -> LossRecord {
        LossRecord {
            time: Time(time),
            seq,
            kind: LossKind::FastRetransmit,
            cwnd_before: 1.0,
            ssthresh_after: 1.0,
            tag: None,
        }
    }

    proptest::proptest! {
        /// Matching each response when it is made, with pruning, gives the cause that
        /// searching the whole log at the end gives, as long as responses are about
        /// `snd_una` (non-decreasing).
        #[test]
        fn incremental_matching_with_pruning_equals_matching_at_the_end(
            steps in proptest::collection::vec((0u32..3, 0u32..6, 0u8..3), 1..400)
        ) {
            let mut log = DropLog::default();
            let (mut all_drops, mut losses, mut causes) = (Vec::new(), Vec::new(), Vec::new());
            let (mut now, mut una) = (0u64, 0u32);
            for &(advance, ahead, what) in &steps {
                now += 1;
                una += advance;
                match what {
                    // A drop of a segment in the window (or just below it: a late copy).
                    0 | 1 => {
                        let seq = (una + ahead).saturating_sub(1);
                        let cause = DropCause::ALL[what as usize];
                        log.record(Time(now), seq, cause);
                        all_drops.push((Time(now), seq, cause));
                    }
                    // A loss response about snd_una, matched when it is made.
                    _ => {
                        let rec = loss(now, una);
                        causes.push(log.cause_of(&rec));
                        losses.push(rec);
                    }
                }
                log.prune(una);
            }
            let at_the_end: Vec<Option<DropCause>> = losses
                .iter()
                .map(|r| {
                    all_drops
                        .iter()
                        .rev()
                        .find(|&&(t, seq, _)| seq == r.seq && t <= r.time)
                        .map(|&(_, _, c)| c)
                })
                .collect();
            proptest::prop_assert_eq!(causes, at_the_end);
        }
    }

    #[test]
    fn drops_below_snd_una_are_forgotten() {
        let mut log = DropLog::default();
        for seq in 0..1000 {
            log.record(Time(seq as u64), seq, DropCause::BufferOverflow);
            log.prune(seq);
        }
        assert!(log.drops.len() < 100, "{} drops kept", log.drops.len());
    }
}
