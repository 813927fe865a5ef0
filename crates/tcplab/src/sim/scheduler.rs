//! The event queue: a binary heap ordered by (time, insertion sequence).
//!
//! Ties at the same nanosecond are broken by insertion order, which makes every run
//! deterministic without depending on heap internals.
//!
//! FIFO lanes keep the heap small. Most events are packets arriving at the far end of a
//! link, and on one link they are scheduled in time order (constant propagation delay
//! after transmissions that end in order). [`Scheduler::schedule_fifo`] queues such an
//! event behind the others of its lane in a ring buffer and keeps only the lane's head in
//! the heap, so the heap holds about one event per link and timer instead of one per
//! packet in flight. The pop order is exactly that of a single heap: every lane is sorted
//! by (time, sequence), and its smallest entry is always in the heap.

use super::Time;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// Marks a heap entry that belongs to no lane.
const NO_LANE: u32 = u32::MAX;

struct Entry<E> {
    at: Time,
    seq: u64,
    /// The lane this entry heads, or `NO_LANE`.
    lane: u32,
    event: E,
}

/// One lane: the entries behind its head, and the key of its last entry.
struct Lane<E> {
    waiting: VecDeque<Entry<E>>,
    /// Whether the lane's head is in the heap.
    active: bool,
    tail_at: Time,
}

impl<E> Default for Lane<E> {
    fn default() -> Self {
        Lane {
            waiting: VecDeque::new(),
            active: false,
            tail_at: Time::ZERO,
        }
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .at
            .cmp(&self.at)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// A deterministic discrete-event scheduler.
pub struct Scheduler<E> {
    heap: BinaryHeap<Entry<E>>,
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
            heap: BinaryHeap::with_capacity(1024),
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
        self.heap.push(Entry {
            at,
            seq,
            lane: NO_LANE,
            event,
        });
    }

    /// Schedules `event` in FIFO lane `lane` (any small integer, e.g. a link id). Pops in
    /// the same order as [`Scheduler::schedule`]; cheaper when a lane's events come in
    /// time order. An event earlier than the lane's last one goes to the heap directly.
    pub fn schedule_fifo(&mut self, lane: u32, at: Time, event: E) {
        let seq = self.take_seq();
        let i = lane as usize;
        if i >= self.lanes.len() {
            self.lanes.resize_with(i + 1, Lane::default);
        }
        let l = &mut self.lanes[i];
        let entry = Entry {
            at,
            seq,
            lane,
            event,
        };
        if !l.active {
            l.active = true;
            l.tail_at = at;
            self.heap.push(entry);
        } else if at >= l.tail_at {
            l.tail_at = at;
            l.waiting.push_back(entry);
        } else {
            self.heap.push(Entry {
                lane: NO_LANE,
                ..entry
            });
        }
    }

    /// Removes and returns the earliest event, if any.
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        if e.lane != NO_LANE {
            let l = &mut self.lanes[e.lane as usize];
            match l.waiting.pop_front() {
                Some(next) => self.heap.push(next),
                None => l.active = false,
            }
        }
        Some((e.at, e.event))
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.at)
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.lanes.iter().map(|l| l.waiting.len()).sum::<usize>()
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
        self.heap
            .iter()
            .chain(self.lanes.iter().flat_map(|l| l.waiting.iter()))
            .map(|e| &e.event)
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

    proptest::proptest! {
        /// Lanes change nothing about the pop order: the same operations on a scheduler
        /// that uses only the heap give the same sequence, including for lane events
        /// scheduled out of time order and events scheduled while popping.
        #[test]
        fn lanes_pop_in_heap_order(
            ops in proptest::collection::vec((0u64..50, 0u32..4, proptest::bool::ANY, 0u8..3), 1..200)
        ) {
            let mut with_lanes = Scheduler::new();
            let mut heap_only = Scheduler::new();
            let mut now = 0u64;
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for (i, &(dt, lane, fifo, pops)) in ops.iter().enumerate() {
                let at = Time(now + dt);
                if fifo {
                    with_lanes.schedule_fifo(lane, at, i);
                } else {
                    with_lanes.schedule(at, i);
                }
                heap_only.schedule(at, i);
                for _ in 0..pops {
                    let x = with_lanes.pop();
                    let y = heap_only.pop();
                    if let Some((t, _)) = x {
                        now = t.0;
                    }
                    a.push(x);
                    b.push(y);
                }
            }
            while let Some(x) = with_lanes.pop() {
                a.push(Some(x));
            }
            while let Some(y) = heap_only.pop() {
                b.push(Some(y));
            }
            proptest::prop_assert_eq!(a, b);
        }
    }
}
