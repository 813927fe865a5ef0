//! Selective acknowledgements as the receiver reports them (RFC 2018, RFC 2883) and as
//! ACK packets carry them.
//!
//! A packet is a small `Copy` value, so an ACK does not hold its SACK blocks itself: the
//! receiver keeps the options of every ACK it sent in an [`AckOptionLog`], numbered from
//! 1, and the ACK carries that number. The sender reads the options of an ACK when it
//! arrives and then forgets every earlier one (ACKs of a flow never overtake each other;
//! the options of an ACK lost on the way are skipped).

use std::collections::VecDeque;

/// A half-open range of segment numbers `[start, end)`.
pub type Block = (u32, u32);

/// The SACK option of one ACK: up to four blocks, the first a D-SACK if `dsack`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckOptions {
    pub blocks: [Block; 4],
    pub len: u8,
    /// The first block reports a duplicate segment (RFC 2883 section 4).
    pub dsack: bool,
}

impl AckOptions {
    pub fn blocks(&self) -> &[Block] {
        &self.blocks[..self.len as usize]
    }

    fn push(&mut self, b: Block) {
        self.blocks[self.len as usize] = b;
        self.len += 1;
    }

    /// Bytes the option takes in the TCP header: kind and length, 8 per block, padded to
    /// a multiple of 4 (RFC 2018 section 3).
    pub fn wire_bytes(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            (2 + 8 * self.len as u32).next_multiple_of(4)
        }
    }
}

/// The receiver's out-of-order blocks, most recently changed first (RFC 2018 section 4:
/// the first block reports the most recent arrival, the others repeat recent blocks).
#[derive(Clone, Debug, Default)]
pub struct SackBlocks {
    blocks: Vec<Block>,
}

impl SackBlocks {
    /// Segment `seq`, above the cumulative point, arrived; returns whether it had
    /// arrived before (a duplicate, for D-SACK).
    pub fn insert(&mut self, seq: u32) -> bool {
        if let Some(i) = self.blocks.iter().position(|&(s, e)| s <= seq && seq < e) {
            // Move the containing block to the front: it holds the latest arrival.
            let b = self.blocks.remove(i);
            self.blocks.insert(0, b);
            return true;
        }
        let mut merged = (seq, seq + 1);
        self.blocks.retain(|&(s, e)| {
            let touches = s <= merged.1 && e >= merged.0;
            if touches {
                merged = (merged.0.min(s), merged.1.max(e));
            }
            !touches
        });
        self.blocks.insert(0, merged);
        false
    }

    /// Linux's (>= 5.8) test in `tcp_sack_new_ofo_skb` for sending an ACK held by SACK
    /// compression first: segment `seq` extends or lies in the third or a later block (most
    /// recent first), or opens a new one beside two or more (`TCP_SACK_BLOCKS_EXPECTED`).
    pub fn spreads(&self, seq: u32) -> bool {
        const EXPECTED: usize = 2;
        match self
            .blocks
            .iter()
            .position(|&(s, e)| s <= seq + 1 && e >= seq)
        {
            Some(i) => i >= EXPECTED,
            None => self.blocks.len() >= EXPECTED,
        }
    }

    /// The cumulative point moved to `rcv_nxt`: blocks below it are no longer reported.
    pub fn advance(&mut self, rcv_nxt: u32) {
        self.blocks.retain(|&(_, e)| e > rcv_nxt);
        for b in &mut self.blocks {
            b.0 = b.0.max(rcv_nxt);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The option of the next ACK: a D-SACK block first if `duplicate` is given (RFC 2883
    /// section 4: followed by the block containing it, if any), then the most recent
    /// blocks, at most `max` in all.
    pub fn options(&self, duplicate: Option<u32>, max: usize) -> AckOptions {
        let mut o = AckOptions::default();
        let max = max.min(4);
        if let Some(d) = duplicate {
            if max > 0 {
                o.push((d, d + 1));
                o.dsack = true;
            }
        }
        for &b in &self.blocks {
            if (o.len as usize) >= max {
                break;
            }
            o.push(b);
        }
        o
    }
}

/// The options of the ACKs a receiver sent and the sender has not yet read.
#[derive(Clone, Debug, Default)]
pub struct AckOptionLog {
    /// (ACK number in the log, its options), oldest first.
    entries: VecDeque<(u32, AckOptions)>,
    next_id: u32,
}

impl AckOptionLog {
    /// Keeps `o` and returns the number the ACK carries (never 0, which means "none").
    pub fn push(&mut self, o: AckOptions) -> u32 {
        self.next_id = self.next_id.wrapping_add(1).max(1);
        self.entries.push_back((self.next_id, o));
        self.next_id
    }

    /// The options of ACK `id`, without consuming them (pcap traces).
    pub fn peek(&self, id: u32) -> Option<&AckOptions> {
        self.entries.iter().find(|(i, _)| *i == id).map(|(_, o)| o)
    }

    /// The options of ACK `id`, forgetting it and every ACK sent before it.
    pub fn take(&mut self, id: u32) -> Option<AckOptions> {
        while let Some(&(i, o)) = self.entries.front() {
            self.entries.pop_front();
            if i == id {
                return Some(o);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_recent_block_first_and_merged() {
        let mut s = SackBlocks::default();
        assert!(!s.insert(5));
        assert!(!s.insert(9));
        assert!(!s.insert(6));
        assert_eq!(s.options(None, 4).blocks(), &[(5, 7), (9, 10)]);
        assert!(!s.insert(8));
        assert_eq!(s.options(None, 4).blocks(), &[(8, 10), (5, 7)]);
        assert!(!s.insert(7));
        assert_eq!(s.options(None, 4).blocks(), &[(5, 10)]);
        s.advance(7);
        assert_eq!(s.options(None, 4).blocks(), &[(7, 10)]);
        s.advance(10);
        assert!(s.is_empty());
    }

    #[test]
    fn dsack_block_comes_first() {
        let mut s = SackBlocks::default();
        s.insert(5);
        s.insert(6);
        assert!(s.insert(6));
        let o = s.options(Some(6), 3);
        assert!(o.dsack);
        assert_eq!(o.blocks(), &[(6, 7), (5, 7)]);
        assert_eq!(o.wire_bytes(), 20);
    }

    #[test]
    fn at_most_max_blocks() {
        let mut s = SackBlocks::default();
        for q in [2, 4, 6, 8, 10] {
            s.insert(q);
        }
        assert_eq!(s.options(None, 3).blocks(), &[(10, 11), (8, 9), (6, 7)]);
    }

    #[test]
    fn log_skips_lost_acks() {
        let mut l = AckOptionLog::default();
        let a = l.push(AckOptions::default());
        let mut o = AckOptions::default();
        o.push((3, 4));
        let b = l.push(o);
        assert!(l.peek(a).is_some());
        assert_eq!(l.take(b), Some(o));
        assert_eq!(l.take(a), None);
    }
}
