//! A 4-ary min-heap of scheduler keys, tuned for the event loop.
//!
//! Keys are 24 bytes (time, sequence, slot) and compare as one 128-bit number. The heap
//! is followed by [`ARITY`] padding keys that sort after every real key, so every
//! parent has a full set of children and the sift-down picks the smallest child by a
//! branch-free tournament, with no special case for the last parent; an empty heap's
//! top is a padding key, which loses every comparison.

use super::Time;

/// Children per heap node.
const ARITY: usize = 4;

/// A heap entry: when, tie-break, and where the event waits (the scheduler's slab index
/// or lane, as it encodes them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Key {
    pub at: Time,
    pub seq: u64,
    pub slot: u32,
}

/// The padding after the last key: later than any event (sequence numbers are taken
/// from a counter that never reaches `u64::MAX`).
pub(super) const PAD: Key = Key {
    at: Time::MAX,
    seq: u64::MAX,
    slot: 0,
};

impl Key {
    /// The pop order as one number: time, then sequence (unique per event). Comparing
    /// two of them compiles to a compare and a subtract-with-borrow.
    #[inline(always)]
    pub fn order(&self) -> u128 {
        (self.at.0 as u128) << 64 | self.seq as u128
    }

    #[inline(always)]
    pub fn before(&self, other: &Key) -> bool {
        self.order() < other.order()
    }

    pub fn is_pad(&self) -> bool {
        *self == PAD
    }
}

pub(super) struct KeyHeap {
    /// The heap in the first `len` entries, then `ARITY` copies of `PAD`.
    keys: Vec<Key>,
    len: usize,
}

impl Default for KeyHeap {
    fn default() -> Self {
        KeyHeap {
            keys: vec![PAD; ARITY],
            len: 0,
        }
    }
}

impl KeyHeap {
    pub fn len(&self) -> usize {
        self.len
    }

    /// The smallest key; `PAD` if the heap is empty.
    #[inline(always)]
    pub fn top(&self) -> &Key {
        &self.keys[0]
    }

    pub fn push(&mut self, key: Key) {
        let mut i = self.len;
        self.len += 1;
        self.keys.push(PAD);
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if !key.before(&self.keys[parent]) {
                break;
            }
            self.keys[i] = self.keys[parent];
            i = parent;
        }
        self.keys[i] = key;
    }

    /// Removes the smallest key (the heap must not be empty).
    pub fn remove_top(&mut self) {
        self.len -= 1;
        let last = std::mem::replace(&mut self.keys[self.len], PAD);
        self.keys.pop();
        if self.len > 0 {
            self.replace_top(last);
        } else {
            self.keys[0] = PAD;
        }
    }

    /// Replaces the smallest key by `key` (one sift instead of a removal and a push).
    #[inline(always)]
    pub fn replace_top(&mut self, key: Key) {
        if self.len > ARITY + 1 {
            return self.sift_down(key);
        }
        // A heap of the root and its children only (the scheduler's lane heads, mostly):
        // the smallest child and the new key trade places, inline.
        let c = &self.keys[1..=ARITY];
        let a = (c[1].order() < c[0].order()) as usize;
        let b = 2 + (c[3].order() < c[2].order()) as usize;
        let min = if c[b].order() < c[a].order() { b } else { a };
        let child = c[min];
        if child.before(&key) {
            self.keys[0] = child;
            self.keys[1 + min] = key;
        } else {
            self.keys[0] = key;
        }
    }

    /// Puts `key` at the root and sifts it down to its place.
    fn sift_down(&mut self, key: Key) {
        let n = self.len;
        let keys = &mut self.keys[..];
        let order = key.order();
        let mut i = 0;
        loop {
            let first = i * ARITY + 1;
            if first >= n {
                break;
            }
            // In bounds thanks to the padding. The smallest child by a tournament of
            // three comparisons, which compile to conditional moves.
            let c = &keys[first..first + ARITY];
            let a = (c[1].order() < c[0].order()) as usize;
            let b = 2 + (c[3].order() < c[2].order()) as usize;
            let min = if c[b].order() < c[a].order() { b } else { a };
            if c[min].order() >= order {
                break;
            }
            keys[i] = c[min];
            i = first + min;
        }
        keys[i] = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(at: u64, seq: u64) -> Key {
        Key {
            at: Time(at),
            seq,
            slot: seq as u32,
        }
    }

    proptest::proptest! {
        /// Pushes, removals and replacements of the top keep the smallest key on top, and
        /// an emptied heap shows the padding.
        #[test]
        fn keeps_the_smallest_on_top(ops in proptest::collection::vec((0u64..40, 0u8..3), 1..200)) {
            let mut heap = KeyHeap::default();
            let mut reference: Vec<Key> = Vec::new();
            for (seq, &(at, op)) in ops.iter().enumerate() {
                let k = key(at, seq as u64);
                match op {
                    0 => {
                        heap.push(k);
                        reference.push(k);
                    }
                    1 if !reference.is_empty() => {
                        heap.remove_top();
                        reference.remove(0);
                    }
                    _ if !reference.is_empty() => {
                        heap.replace_top(k);
                        reference.remove(0);
                        reference.push(k);
                    }
                    _ => {}
                }
                reference.sort_by_key(|k| k.order());
                proptest::prop_assert_eq!(heap.len(), reference.len());
                proptest::prop_assert_eq!(*heap.top(), reference.first().copied().unwrap_or(PAD));
            }
        }
    }
}
