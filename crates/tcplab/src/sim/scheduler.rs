//! The event queue: a min-heap ordered by (time, insertion sequence).
//!
//! Ties at the same nanosecond are broken by insertion order, which makes every run
//! deterministic without depending on heap internals.
//!
//! Two things keep it fast when thousands of packets are in flight:
//! - FIFO lanes. Most events are packets arriving at the far end of a link after its
//!   propagation delay, and arrivals after the same delay are scheduled in time order.
//!   [`Scheduler::schedule_fifo`] queues such an event in its lane's ring buffer and keeps
//!   only the lane's head in the heap, so the heap holds about one entry per busy
//!   transmitter and timer rather than one per packet in flight.
//! - Small heap entries. The heap is 4-ary and holds 24-byte keys (time, sequence, slot);
//!   events wait in a slab or in their lane, so sifting moves keys, not packets.
//!
//! The pop order is exactly that of a plain heap of all events: every lane is sorted by
//! (time, sequence) and its smallest entry is always in the heap.

use super::Time;
use std::collections::VecDeque;

/// Children per heap node.
const ARITY: usize = 4;
/// Set in a key's slot for a lane head; the other bits are the lane number.
const LANE_BIT: u32 = 1 << 31;

/// A heap entry: when, tie-break, and where the event waits (slab index or lane).
#[derive(Clone, Copy, Debug)]
struct Key {
    at: Time,
    seq: u64,
    slot: u32,
}

impl Key {
    /// Whether `self` pops before `other` (sequence numbers are unique).
    #[inline]
    fn before(&self, other: &Key) -> bool {
        (self.at, self.seq) < (other.at, other.seq)
    }
}

/// One lane: its events in order (the first is the one whose key is in the heap).
struct Lane<E> {
    events: VecDeque<(Time, u64, E)>,
}

/// A deterministic discrete-event scheduler.
pub struct Scheduler<E> {
    heap: Vec<Key>,
    /// Events scheduled outside lanes, by slot; `free` lists the empty slots.
    slab: Vec<Option<E>>,
    free: Vec<u32>,
    lanes: Vec<Lane<E>>,
    next_seq: u64,
    popped: u64,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Scheduler<E> {
    pub fn new() -> Self {
        Scheduler {
            heap: Vec::with_capacity(1024),
            slab: Vec::new(),
            free: Vec::new(),
            lanes: Vec::new(),
            next_seq: 0,
            popped: 0,
        }
    }

    fn take_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    pub fn schedule(&mut self, at: Time, event: E) {
        let seq = self.take_seq();
        self.schedule_keyed(at, seq, event);
    }

    /// Takes the sequence number an event scheduled now would get, without scheduling one:
    /// a model that may or may not need a timer (one that usually turns out stale) keeps
    /// the tie order it would have had by scheduling it later with
    /// [`Scheduler::schedule_reserved`], or drops the number.
    pub fn reserve_seq(&mut self) -> u64 {
        self.take_seq()
    }

    /// Schedules `event` with a number from [`Scheduler::reserve_seq`]; it pops exactly
    /// where it would have had it been scheduled when the number was reserved. The caller
    /// must do this before any event ordered after (`at`, `seq`) has popped.
    pub fn schedule_reserved(&mut self, at: Time, seq: u64, event: E) {
        debug_assert!(seq < self.next_seq, "sequence number not reserved");
        self.schedule_keyed(at, seq, event);
    }

    fn schedule_keyed(&mut self, at: Time, seq: u64, event: E) {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slab[s as usize] = Some(event);
                s
            }
            None => {
                self.slab.push(Some(event));
                (self.slab.len() - 1) as u32
            }
        };
        assert!(slot < LANE_BIT, "more than 2^31 pending events");
        self.push_key(Key { at, seq, slot });
    }

    /// Schedules `event` in FIFO lane `lane` (a small integer chosen by the caller, e.g.
    /// one per propagation delay). Pops in the same order as [`Scheduler::schedule`];
    /// cheaper when a lane's events come in time order. An event earlier than its lane's
    /// last one goes to the heap directly.
    pub fn schedule_fifo(&mut self, lane: u32, at: Time, event: E) {
        assert!(lane < LANE_BIT, "lane number too large");
        let seq = self.take_seq();
        let i = lane as usize;
        if i >= self.lanes.len() {
            self.lanes.resize_with(i + 1, || Lane {
                events: VecDeque::new(),
            });
        }
        let l = &mut self.lanes[i];
        match l.events.back() {
            None => {
                l.events.push_back((at, seq, event));
                self.push_key(Key {
                    at,
                    seq,
                    slot: LANE_BIT | lane,
                });
            }
            Some(&(tail, _, _)) if at >= tail => l.events.push_back((at, seq, event)),
            Some(_) => self.schedule_keyed(at, seq, event),
        }
    }

    /// Removes and returns the earliest event, if any.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let top = *self.heap.first()?;
        self.popped += 1;
        if top.slot & LANE_BIT != 0 {
            let lane = &mut self.lanes[(top.slot & !LANE_BIT) as usize];
            let (at, _, event) = lane.events.pop_front().expect("a lane head has an event");
            match lane.events.front() {
                // The lane's next event takes the root's place: one sift instead of two.
                Some(&(next_at, next_seq, _)) => self.replace_top(Key {
                    at: next_at,
                    seq: next_seq,
                    slot: top.slot,
                }),
                None => self.remove_top(),
            }
            Some((at, event))
        } else {
            self.remove_top();
            let event = self.slab[top.slot as usize]
                .take()
                .expect("slot holds an event");
            self.free.push(top.slot);
            Some((top.at, event))
        }
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.first().map(|k| k.at)
    }

    pub fn len(&self) -> usize {
        self.slab.len() - self.free.len() + self.lanes.iter().map(|l| l.events.len()).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Number of events processed so far (for performance reports).
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// Iterates over pending events in no particular order (for end-of-run accounting).
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        self.slab.iter().flatten().chain(
            self.lanes
                .iter()
                .flat_map(|l| l.events.iter().map(|(_, _, e)| e)),
        )
    }

    fn push_key(&mut self, key: Key) {
        self.heap.push(key);
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if !key.before(&self.heap[parent]) {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = key;
    }

    fn remove_top(&mut self) {
        let last = self.heap.pop().expect("non-empty heap");
        if !self.heap.is_empty() {
            self.replace_top(last);
        }
    }

    /// Puts `key` at the root and sifts it down to its place.
    fn replace_top(&mut self, key: Key) {
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let first = i * ARITY + 1;
            if first >= n {
                break;
            }
            let children = &self.heap[first..(first + ARITY).min(n)];
            let mut min = 0;
            for (c, k) in children.iter().enumerate().skip(1) {
                if k.before(&children[min]) {
                    min = c;
                }
            }
            let child = children[min];
            if !child.before(&key) {
                break;
            }
            self.heap[i] = child;
            i = first + min;
        }
        self.heap[i] = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut s = Scheduler::new();
        s.schedule(Time(5), "c");
        s.schedule(Time(1), "a");
        s.schedule(Time(5), "d");
        s.schedule(Time(1), "b");
        let order: Vec<_> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!["a", "b", "c", "d"]);
        assert_eq!(s.events_processed(), 4);
    }

    #[test]
    fn pending_includes_lane_events() {
        let mut s = Scheduler::new();
        s.schedule_fifo(3, Time(1), 'a');
        s.schedule_fifo(3, Time(2), 'b');
        s.schedule(Time(0), 'c');
        let mut pending: Vec<char> = s.pending().copied().collect();
        pending.sort();
        assert_eq!(pending, vec!['a', 'b', 'c']);
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn reserved_events_pop_in_their_reserved_place() {
        let mut s = Scheduler::new();
        s.schedule(Time(5), "a");
        let seq = s.reserve_seq();
        s.schedule(Time(5), "c");
        s.schedule(Time(4), "first");
        s.schedule_reserved(Time(5), seq, "b");
        let order: Vec<_> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!["first", "a", "b", "c"]);
    }

    /// The reference: a list searched for its smallest (time, sequence) on every pop.
    #[derive(Default)]
    struct Reference {
        events: Vec<(Time, u64, usize)>,
        next_seq: u64,
    }

    impl Reference {
        fn schedule(&mut self, at: Time, id: usize) {
            self.events.push((at, self.next_seq, id));
            self.next_seq += 1;
        }
        fn pop(&mut self) -> Option<(Time, usize)> {
            let i = (0..self.events.len()).min_by_key(|&i| (self.events[i].0, self.events[i].1))?;
            let (at, _, id) = self.events.swap_remove(i);
            Some((at, id))
        }
    }

    proptest::proptest! {
        /// The heap and its lanes pop in (time, insertion) order, whatever the mix of lane
        /// and plain events, including lane events scheduled out of time order and events
        /// scheduled while popping.
        #[test]
        fn pops_like_a_sorted_list(
            ops in proptest::collection::vec((0u64..50, 0u32..4, proptest::bool::ANY, 0u8..3), 1..300)
        ) {
            let mut sched = Scheduler::new();
            let mut reference = Reference::default();
            let mut now = 0u64;
            for (i, &(dt, lane, fifo, pops)) in ops.iter().enumerate() {
                let at = Time(now + dt);
                if fifo {
                    sched.schedule_fifo(lane, at, i);
                } else {
                    sched.schedule(at, i);
                }
                reference.schedule(at, i);
                proptest::prop_assert_eq!(sched.len(), reference.events.len());
                for _ in 0..pops {
                    let got = sched.pop();
                    proptest::prop_assert_eq!(got, reference.pop());
                    if let Some((t, _)) = got {
                        now = t.0;
                    }
                }
            }
            let mut pending: Vec<usize> = sched.pending().copied().collect();
            let mut expected: Vec<usize> = reference.events.iter().map(|e| e.2).collect();
            pending.sort_unstable();
            expected.sort_unstable();
            proptest::prop_assert_eq!(pending, expected);
            while let Some(got) = sched.pop() {
                proptest::prop_assert_eq!(Some(got), reference.pop());
            }
            proptest::prop_assert!(reference.pop().is_none());
            proptest::prop_assert!(sched.is_empty());
        }
    }
}
