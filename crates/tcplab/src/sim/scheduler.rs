//! The event queue: events pop in order of (time, insertion sequence).
//!
//! Ties at the same nanosecond are broken by insertion order, which makes every run
//! deterministic without depending on heap internals.
//!
//! Three things keep it fast when thousands of packets are in flight:
//! - FIFO lanes. Most events are packets arriving at the far end of a link, and many
//!   arrivals are scheduled in time order, or nearly (all those a fixed time after their
//!   transmission starts, give or take a short wait for the transmitter).
//!   [`Scheduler::schedule_fifo`] queues such an event in its lane's ring buffer and keeps
//!   only the lane's head in a heap, so the heaps hold about one entry per lane, busy
//!   transmitter and timer rather than one per packet in flight.
//! - Three heaps: lane heads, other events, and timers ([`Scheduler::schedule_timer`]:
//!   one retransmission timer per flow, mostly far in the future). The next event is the
//!   smallest of the three tops, so the frequent events (arrivals, transmitter
//!   completions) sift through small heaps however many flows have a timer pending.
//! - Small heap entries (sim/heap.rs): keys of 24 bytes (time, sequence, slot) in 4-ary
//!   heaps; events wait in a slab or in their lane, so sifting moves keys, not packets.
//!
//! The pop order is exactly that of a single heap of all events: every lane is sorted by
//! (time, sequence) and its smallest entry is always in the lane-head heap.

use super::heap::{Key, KeyHeap};
use super::prefetch::prefetch;
use super::Time;
use std::collections::VecDeque;

/// How far ahead in a lane to prefetch on a pop. With thousands of flows a lane holds
/// megabytes of packets, written one round trip before they are read and evicted from
/// the caches since; the hardware prefetcher does not keep up with several lanes read
/// in interleaved order (14 % less CPU time at 10000 flows with it). Only lanes of at
/// least [`PREFETCH_FROM`] events are prefetched.
const PREFETCH_AHEAD: usize = 6;

/// The length from which a lane is prefetched for reading: shorter lanes stay cached, as
/// for writing ([`WRITE_AHEAD_FROM`]), and their prefetch was only its address
/// arithmetic, a fiftieth of the instructions of a small run's event loop.
const PREFETCH_FROM: usize = WRITE_AHEAD_FROM;
const _: () = assert!(PREFETCH_AHEAD < PREFETCH_FROM);

/// How far ahead in a lane [`Scheduler::pop_until_with`] shows the caller events it
/// will pop soon ([`Ahead`]), so that it can prefetch the state they will touch.
/// Closer than `PREFETCH_AHEAD`, so the events themselves have been loaded by then.
const FAR_AHEAD: usize = 5;
const NEAR_AHEAD: usize = 2;

/// Which of the two events ahead in a lane [`Scheduler::pop_until_with`] shows: a caller
/// whose state is reached through a table prefetches the table entry for the far one
/// and the state itself for the near one, once that entry has been loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ahead {
    Far,
    Near,
}

/// How far past a lane's end to prefetch the memory its next events will be written
/// to. A lane is a ring buffer of megabytes at thousands of flows: the slots being
/// written were last used a whole ring ago and are no longer cached, and the stores
/// that wait for them fill the CPU's store buffer and stall it.
const WRITE_AHEAD: usize = 8;
/// The length from which a lane is prefetched for writing: shorter lanes stay cached.
const WRITE_AHEAD_FROM: usize = 4096;

/// How far from its end an event may be inserted into a lane.
const LANE_INSERT: usize = 16;

/// One lane: its events in order (the first is the one whose key is in the heap).
struct Lane<E> {
    events: VecDeque<(Time, u64, E)>,
    /// The time of the last event, if the lane holds any: read on every scheduling, where
    /// finding the ring buffer's last entry took a wrap-around computation.
    last_at: Time,
}

/// Where the next event waits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    Lane,
    Events,
    Timers,
}

/// The next event, found by [`Scheduler::due`] and removed by [`Scheduler::take`].
#[derive(Clone, Copy)]
pub struct Due {
    source: Source,
    key: Key,
}

impl Due {
    /// When the event is due.
    pub fn at(&self) -> Time {
        self.key.at
    }
}

/// A deterministic discrete-event scheduler.
pub struct Scheduler<E> {
    /// The head of every non-empty lane; a key's slot is the lane number.
    lane_heads: KeyHeap,
    /// Events scheduled with [`Scheduler::schedule`]; a key's slot indexes `slab`.
    events: KeyHeap,
    /// Events scheduled with [`Scheduler::schedule_timer`]; slots index `slab` too.
    timers: KeyHeap,
    /// Events outside lanes, by slot; `free` lists the empty slots.
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
            lane_heads: KeyHeap::default(),
            events: KeyHeap::default(),
            timers: KeyHeap::default(),
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
        let key = self.store(at, seq, event);
        self.events.push(key);
    }

    /// As [`Scheduler::schedule`], for timers: events that are numerous (one per flow)
    /// and mostly far in the future. Same pop order; they wait in a heap of their own.
    pub fn schedule_timer(&mut self, at: Time, event: E) {
        let seq = self.take_seq();
        let key = self.store(at, seq, event);
        self.timers.push(key);
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
        let key = self.store(at, seq, event);
        self.events.push(key);
    }

    /// Puts `event` in the slab and returns its key.
    fn store(&mut self, at: Time, seq: u64, event: E) -> Key {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slab[s as usize] = Some(event);
                s
            }
            None => {
                self.slab.push(Some(event));
                u32::try_from(self.slab.len() - 1).expect("more than 2^32 pending events")
            }
        };
        Key { at, seq, slot }
    }

    /// Schedules `event` in FIFO lane `lane` (a small integer chosen by the caller, e.g.
    /// one per delay after the current time). Pops in the same order as
    /// [`Scheduler::schedule`]; cheaper when a lane's events come in time order, or
    /// nearly: an event earlier than its lane's last one is inserted among the lane's last
    /// `LANE_INSERT` events, or scheduled outside the lane if its place is further ahead
    /// (or at the head).
    #[inline]
    pub fn schedule_fifo(&mut self, lane: u32, at: Time, event: E) {
        let i = lane as usize;
        if i >= self.lanes.len() {
            self.lanes.resize_with(i + 1, || Lane {
                events: VecDeque::new(),
                last_at: Time::ZERO,
            });
        }
        let seq = self.take_seq();
        let l = &mut self.lanes[i];
        if l.events.is_empty() {
            l.events.push_back((at, seq, event));
            l.last_at = at;
            self.lane_heads.push(Key {
                at,
                seq,
                slot: lane,
            });
        } else if at < l.last_at {
            // Slightly out of order: inserted among the last few events, behind the head
            // (whose key is in the heap); otherwise outside the lane. (The last event
            // stays last.)
            let mut i = l.events.len() - 1;
            while i > 1 && l.events.len() - i < LANE_INSERT && l.events[i - 1].0 > at {
                i -= 1;
            }
            if i >= 1 && l.events[i - 1].0 <= at {
                l.events.insert(i, (at, seq, event));
            } else {
                let key = self.store(at, seq, event);
                self.events.push(key);
            }
        } else {
            l.events.push_back((at, seq, event));
            l.last_at = at;
            if l.events.len() >= WRITE_AHEAD_FROM {
                if let Some(last) = l.events.back() {
                    // Where the ring wraps this is past the buffer's end: a useless but
                    // harmless hint.
                    let ahead = (last as *const (Time, u64, E)).wrapping_add(WRITE_AHEAD);
                    super::prefetch::prefetch_addr(ahead as *const u8);
                }
            }
        }
    }

    /// Removes and returns the earliest event, if any.
    pub fn pop(&mut self) -> Option<(Time, E)>
    where
        E: Copy,
    {
        self.pop_until(Time::MAX)
    }

    /// Removes and returns the earliest event if it is due at or before `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)>
    where
        E: Copy,
    {
        self.pop_until_with(limit, None::<fn(&E, Ahead)>)
    }

    /// As [`Scheduler::pop_until`], showing `ahead` (if any) two events that wait a few
    /// places behind the popped one in its lane (when it came from a lane), for
    /// prefetching. The pop order does not depend on `ahead`.
    #[inline]
    pub fn pop_until_with(
        &mut self,
        limit: Time,
        ahead: Option<impl FnMut(&E, Ahead)>,
    ) -> Option<(Time, E)>
    where
        E: Copy,
    {
        let due = self.due(limit)?;
        Some((due.at(), self.take(due, ahead)))
    }

    /// The next event if it is due at or before `limit`, without removing it: with
    /// [`Scheduler::take`], a pop that hands the event over as a plain value. (An event
    /// returned inside an `Option` compiled to piecewise copies around the niche of its
    /// tag, which the CPU cannot forward from store to load: about a tenth of the event
    /// loop's time.)
    #[inline(always)]
    pub fn due(&self, limit: Time) -> Option<Due> {
        let (source, key) = self.next();
        (key.at <= limit && !key.is_pad()).then_some(Due { source, key })
    }

    /// Removes and returns the event that [`Scheduler::due`] found (nothing may be
    /// scheduled between the two calls), showing `ahead` (if any) two events that wait a
    /// few places behind it in its lane, for prefetching.
    #[inline(always)]
    pub fn take(&mut self, due: Due, ahead: Option<impl FnMut(&E, Ahead)>) -> E
    where
        E: Copy,
    {
        let top = due.key;
        self.popped += 1;
        match due.source {
            Source::Lane => {
                let lane = &mut self.lanes[top.slot as usize];
                if lane.events.len() >= PREFETCH_FROM {
                    prefetch(&lane.events[PREFETCH_AHEAD]);
                }
                if let Some(mut ahead) = ahead {
                    if let Some((_, _, event)) = lane.events.get(FAR_AHEAD) {
                        ahead(event, Ahead::Far);
                    }
                    if let Some((_, _, event)) = lane.events.get(NEAR_AHEAD) {
                        ahead(event, Ahead::Near);
                    }
                }
                // Copied out by reference, then popped, for the same reason as above.
                let &(_, _, event) = lane.events.front().expect("a lane head has an event");
                lane.events.pop_front();
                match lane.events.front() {
                    // The lane's next event takes the root's place: one sift instead of two.
                    Some(&(next_at, next_seq, _)) => self.lane_heads.replace_top(Key {
                        at: next_at,
                        seq: next_seq,
                        slot: top.slot,
                    }),
                    None => self.lane_heads.remove_top(),
                }
                event
            }
            Source::Events | Source::Timers => {
                if due.source == Source::Events {
                    self.events.remove_top();
                } else {
                    self.timers.remove_top();
                }
                let event = self.slab[top.slot as usize]
                    .take()
                    .expect("slot holds an event");
                self.free.push(top.slot);
                event
            }
        }
    }

    /// The heap whose top pops next, and that top (a padding key if all are empty).
    #[inline(always)]
    fn next(&self) -> (Source, Key) {
        let mut source = Source::Lane;
        let mut top = *self.lane_heads.top();
        if self.events.top().before(&top) {
            source = Source::Events;
            top = *self.events.top();
        }
        if self.timers.top().before(&top) {
            source = Source::Timers;
            top = *self.timers.top();
        }
        (source, top)
    }

    pub fn peek_time(&self) -> Option<Time> {
        let (_, top) = self.next();
        (!top.is_pad()).then_some(top.at)
    }

    pub fn len(&self) -> usize {
        self.slab.len() - self.free.len() + self.lanes.iter().map(|l| l.events.len()).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.lane_heads.len() + self.events.len() + self.timers.len() == 0
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
        /// The heaps and lanes pop in (time, insertion) order, whatever the mix of lane,
        /// timer and plain events, including lane events scheduled out of time order and events
        /// scheduled while popping.
        #[test]
        fn pops_like_a_sorted_list(
            ops in proptest::collection::vec((0u64..50, 0u32..4, 0u8..3, 0u8..3), 1..300)
        ) {
            let mut sched = Scheduler::new();
            let mut reference = Reference::default();
            let mut now = 0u64;
            for (i, &(dt, lane, how, pops)) in ops.iter().enumerate() {
                let at = Time(now + dt);
                match how {
                    0 => sched.schedule_fifo(lane, at, i),
                    1 => sched.schedule_timer(at, i),
                    _ => sched.schedule(at, i),
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
