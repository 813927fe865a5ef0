//! The sender's record of every segment between `snd_una` and `snd_max`: when it was last
//! sent, whether it was ever retransmitted, and (with SACK) whether the receiver holds it,
//! whether it is deemed lost and whether a retransmission of it is in flight.
//!
//! The counters follow Linux's `sacked_out`, `lost_out` and `retrans_out`, so that the
//! data in flight is RFC 6675's pipe as Linux computes it (`tcp_packets_in_flight`):
//! outstanding segments, less those SACKed or lost, plus retransmissions in flight.

use crate::sim::Time;
use std::collections::VecDeque;

/// Sent more than once (Karn's rule: no RTT sample from its ACK).
pub const EVER_RETRANS: u8 = 1;
/// The receiver reported it in a SACK block.
pub const SACKED: u8 = 2;
/// Deemed lost (RFC 6675 IsLost, RACK or a timeout), until acknowledged.
pub const LOST: u8 = 4;
/// A retransmission of it is in flight (Linux `TCPCB_SACKED_RETRANS`).
pub const RETRANS: u8 = 8;
/// It carries PSH (its retransmissions do too, as Linux's skb keeps its flags).
pub const PUSHED: u8 = 16;
/// What a segment keeps when SACKs or a timeout reset its state.
const KEPT: u8 = EVER_RETRANS | PUSHED;

#[derive(Clone, Copy, Debug)]
pub struct SegInfo {
    /// Time of the latest transmission.
    pub sent_at: Time,
    pub flags: u8,
}

impl SegInfo {
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// What a cumulative ACK removed from the scoreboard.
#[derive(Clone, Copy, Debug, Default)]
pub struct Acked {
    /// Segments acknowledged for the first time (not SACKed before).
    pub newly: u32,
    /// Some acknowledged segment had been retransmitted (Linux `FLAG_RETRANS_DATA_ACKED`).
    pub retransmitted: bool,
    /// Send times of the oldest and newest segments acknowledged for the first time and
    /// never retransmitted (Linux `first_ackt`, `last_ackt`).
    pub first_sent: Option<Time>,
    pub last_sent: Option<Time>,
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<SegInfo>,
    /// Segment number of `segs[0]` (the sender's `snd_una`).
    base: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    /// One past the highest segment SACKed (0 when none).
    pub high_sacked: u32,
    /// Outstanding segments sent more than once: with this and the three counters above
    /// at zero a cumulative ACK needs no look at the segments it covers (the common case).
    ever_retrans: u32,
}

impl Scoreboard {
    pub fn with_capacity(n: usize) -> Self {
        Scoreboard {
            segs: VecDeque::with_capacity(n),
            ..Scoreboard::default()
        }
    }

    pub fn base(&self) -> u32 {
        self.base
    }

    /// Segments outstanding (Linux `packets_out`).
    pub fn len(&self) -> u32 {
        self.segs.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// RFC 6675's pipe as Linux counts it: `packets_out - (sacked_out + lost_out) +
    /// retrans_out`.
    pub fn in_flight(&self) -> u32 {
        (self.len() + self.retrans).saturating_sub(self.sacked + self.lost)
    }

    pub fn get(&self, seq: u32) -> Option<&SegInfo> {
        self.segs.get(seq.wrapping_sub(self.base) as usize)
    }

    fn get_mut(&mut self, seq: u32) -> Option<&mut SegInfo> {
        self.segs.get_mut(seq.wrapping_sub(self.base) as usize)
    }

    /// The first transmission of the next new segment.
    pub fn push(&mut self, now: Time) {
        self.segs.push_back(SegInfo {
            sent_at: now,
            flags: 0,
        });
    }

    /// Marks the outstanding segment `seq` as carrying PSH.
    pub fn mark_pushed(&mut self, seq: u32) {
        if let Some(s) = self.get_mut(seq) {
            s.flags |= PUSHED;
        }
    }

    /// A retransmission of `seq`, sent now.
    pub fn retransmitted(&mut self, seq: u32, now: Time) {
        let Some(s) = self.get_mut(seq) else {
            return;
        };
        let before = *s;
        s.sent_at = now;
        s.flags |= EVER_RETRANS | RETRANS;
        self.retrans += u32::from(!before.has(RETRANS) && !before.has(SACKED));
        self.ever_retrans += u32::from(!before.has(EVER_RETRANS));
    }

    /// The receiver SACKed `seq`; returns the segment as it was if this is news.
    pub fn sack(&mut self, seq: u32) -> Option<SegInfo> {
        let s = self.get_mut(seq)?;
        if s.has(SACKED) {
            return None;
        }
        let before = *s;
        s.flags = (s.flags & KEPT) | SACKED;
        self.sacked += 1;
        if before.has(LOST) {
            self.lost -= 1;
        }
        if before.has(RETRANS) {
            self.retrans -= 1;
        }
        self.high_sacked = self.high_sacked.max(seq + 1);
        Some(before)
    }

    /// Deems `seq` lost (again, if its retransmission is in flight); returns whether this
    /// changed anything.
    pub fn mark_lost(&mut self, seq: u32) -> bool {
        let Some(s) = self.get_mut(seq) else {
            return false;
        };
        if s.has(SACKED) || (s.has(LOST) && !s.has(RETRANS)) {
            return false;
        }
        let before = *s;
        s.flags = (s.flags | LOST) & !RETRANS;
        if before.has(RETRANS) {
            self.retrans -= 1;
        }
        if !before.has(LOST) {
            self.lost += 1;
        }
        true
    }

    /// Everything outstanding and not SACKed is deemed lost, no retransmission in flight
    /// (Linux `tcp_enter_loss`; `keep_sacked` false forgets SACKs as after reneging).
    /// Returns how many segments were marked: those not lost before, and those whose
    /// retransmission was in flight (as [`mark_lost`](Self::mark_lost) counts).
    pub fn mark_all_lost(&mut self, keep_sacked: bool) -> u32 {
        let mut marked = 0;
        for s in &mut self.segs {
            if keep_sacked && s.has(SACKED) {
                continue;
            }
            marked += u32::from(!s.has(LOST) || s.has(RETRANS));
            s.flags = (s.flags & KEPT) | LOST;
        }
        if !keep_sacked {
            self.sacked = 0;
            self.high_sacked = 0;
        }
        self.retrans = 0;
        self.lost = self.len() - self.sacked;
        marked
    }

    /// The first segment at or after `from` that is lost and not being retransmitted.
    pub fn next_lost(&self, from: u32) -> Option<u32> {
        if self.lost == 0 {
            return None;
        }
        let start = from.saturating_sub(self.base) as usize;
        self.segs
            .range(start.min(self.segs.len())..)
            .position(|s| s.has(LOST) && !s.has(RETRANS))
            .map(|i| self.base + (start + i) as u32)
    }

    /// RFC 6675 section 4 IsLost: a segment with at least `dupthresh` SACKed segments
    /// above it. Marks them and returns how many were newly marked. A retransmitted
    /// segment is not marked again by this rule (RFC 6675 section 5 retransmits each
    /// hole once per recovery; a lost retransmission is left to RACK or the RTO).
    pub fn mark_lost_by_dupthresh(&mut self, dupthresh: u32) -> u32 {
        if self.sacked < dupthresh {
            return 0;
        }
        let mut above = 0;
        let mut marked = 0;
        let top = self.high_sacked.saturating_sub(self.base) as usize;
        for i in (0..top.min(self.segs.len())).rev() {
            let s = self.segs[i];
            if s.has(SACKED) {
                above += 1;
            } else if above >= dupthresh && !s.has(LOST) && !s.has(EVER_RETRANS) {
                marked += u32::from(self.mark_lost(self.base + i as u32));
            }
        }
        marked
    }

    /// A cumulative ACK up to `ack` (exclusive). (Inlined: the common case, segments sent
    /// once, is a few instructions; the others go out of line.)
    #[inline]
    pub fn advance(&mut self, ack: u32) -> Acked {
        let n = ack.saturating_sub(self.base).min(self.len());
        if n > 0 && self.sacked + self.lost + self.retrans + self.ever_retrans == 0 {
            // Every covered segment was sent once and holds no SACK state: only the
            // oldest and newest send times matter.
            let out = Acked {
                newly: n,
                retransmitted: false,
                first_sent: Some(self.segs[0].sent_at),
                last_sent: Some(self.segs[n as usize - 1].sent_at),
            };
            // (Popped one by one: usually one or two, where a drain's drop was a call.)
            for _ in 0..n {
                self.segs.pop_front();
            }
            self.base += n;
            return out;
        }
        self.advance_with_state(ack)
    }

    /// [`advance`](Self::advance) over segments with SACK, loss or retransmission state.
    #[inline(never)]
    fn advance_with_state(&mut self, ack: u32) -> Acked {
        self.advance_visiting(ack, |_, _| {})
    }

    /// As [`advance`](Self::advance), showing `visit` each segment acknowledged for the
    /// first time (not SACKed before) with its number, in one pass.
    pub fn advance_visiting(&mut self, ack: u32, mut visit: impl FnMut(u32, &SegInfo)) -> Acked {
        let mut out = Acked::default();
        let n = ack.saturating_sub(self.base).min(self.len());
        let base = self.base;
        for (i, s) in self.segs.drain(..n as usize).enumerate() {
            if s.has(SACKED) {
                self.sacked -= 1;
            } else {
                visit(base + i as u32, &s);
                out.newly += 1;
                if !s.has(EVER_RETRANS) {
                    out.first_sent.get_or_insert(s.sent_at);
                    out.last_sent = Some(s.sent_at);
                }
            }
            if s.has(LOST) {
                self.lost -= 1;
            }
            if s.has(RETRANS) {
                self.retrans -= 1;
            }
            out.retransmitted |= s.has(EVER_RETRANS);
            self.ever_retrans -= u32::from(s.has(EVER_RETRANS));
        }
        self.base += n;
        if self.high_sacked <= self.base {
            self.high_sacked = 0;
        }
        out
    }

    pub fn front(&self) -> Option<&SegInfo> {
        self.segs.front()
    }

    pub fn back(&self) -> Option<&SegInfo> {
        self.segs.back()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u32) -> Scoreboard {
        let mut b = Scoreboard::default();
        for i in 0..n {
            b.push(Time(i as u64));
        }
        b
    }

    #[test]
    fn pipe_counts_sacked_lost_and_retransmitted() {
        let mut b = board(10);
        assert_eq!(b.in_flight(), 10);
        for q in [3, 4, 5] {
            b.sack(q);
        }
        assert_eq!(b.in_flight(), 7);
        assert_eq!(b.mark_lost_by_dupthresh(3), 3); // 0, 1, 2
        assert_eq!(b.in_flight(), 4);
        assert_eq!(b.next_lost(0), Some(0));
        b.retransmitted(0, Time(100));
        assert_eq!(b.in_flight(), 5);
        assert_eq!(b.next_lost(0), Some(1));
        // The retransmission is lost too.
        assert!(b.mark_lost(0));
        assert_eq!(b.in_flight(), 4);
        let a = b.advance(6);
        assert_eq!(a.newly, 3);
        assert!(a.retransmitted);
        assert_eq!((b.sacked, b.lost, b.retrans), (0, 0, 0));
        assert_eq!(b.in_flight(), 4);
    }

    #[test]
    fn sack_of_a_retransmitted_segment_leaves_the_pipe() {
        let mut b = board(4);
        b.mark_lost(1);
        b.retransmitted(1, Time(9));
        assert_eq!(b.in_flight(), 4);
        assert!(b.sack(1).is_some());
        assert!(b.sack(1).is_none());
        assert_eq!(b.in_flight(), 3);
    }

    #[test]
    fn timeout_marks_everything_not_sacked() {
        let mut b = board(5);
        b.sack(2);
        b.mark_all_lost(true);
        assert_eq!(b.lost, 4);
        assert_eq!(b.in_flight(), 0);
        b.mark_all_lost(false);
        assert_eq!((b.lost, b.sacked), (5, 0));
    }

    /// The shortcut for segments sent once agrees with the full walk, before and after a
    /// retransmitted segment is acknowledged.
    #[test]
    fn plain_acks_agree_with_the_full_walk() {
        let walk = |b: &mut Scoreboard, ack| b.advance_visiting(ack, |_, _| {});
        let (mut fast, mut slow) = (board(12), board(12));
        for b in [&mut fast, &mut slow] {
            b.retransmitted(5, Time(50));
        }
        for ack in [3, 4, 7, 12] {
            let (a, w) = (fast.advance(ack), walk(&mut slow, ack));
            assert_eq!(
                (a.newly, a.retransmitted, a.first_sent, a.last_sent),
                (w.newly, w.retransmitted, w.first_sent, w.last_sent),
                "ack {ack}"
            );
            assert_eq!(fast.ever_retrans, slow.ever_retrans);
        }
        assert_eq!(fast.ever_retrans, 0);
        assert!(fast.is_empty() && fast.base() == 12);
        assert_eq!(fast.advance(12).newly, 0);
    }
}
