//! One direction of a point-to-point link: a queue, a transmitter and a propagation delay.
//!
//! The transmitter keeps no packet: a packet's arrival at the far end is scheduled when
//! its transmission starts, and `busy_until` says when the transmitter is free again.
//! Two kinds of queue:
//! - A plain FIFO (DropTail, [`Queue::plain_fifo`]). Its packets leave in arrival order,
//!   one after the other, so a packet's transmission start is known when it arrives: the
//!   end of the transmissions ahead of it. The link keeps the start times (and sizes) of
//!   the packets still waiting, in a [`Backlog`], for the limits, the queue length and
//!   its integral; the boxed queue stays empty. The world schedules a waiting packet's
//!   arrival at once when that keeps its scheduler lane in order, and otherwise holds
//!   the packet in the backlog until its start (world/lanes.rs).
//! - Any other discipline (AQMs) sees every arrival and is asked for the next packet
//!   when the transmitter becomes free, by a `LinkDone` event while packets wait.

use crate::net::{DropCause, DropCounts, Jitter, LinkId, LossModel, NodeId, Packet};
use crate::queue::{FifoLimits, Queue};
use crate::sim::Time;
use std::collections::VecDeque;

/// Counters of a link direction. (`repr(C)`: the counters of every transmission first,
/// then those of a waiting packet, then the drops; see [`Link`].)
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct LinkStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub max_queue: u64,
    last_change: Time,
    /// Integral of queue length over time, packet-nanoseconds.
    queue_area: u128,
    pub drops: DropCounts,
}

/// The packets waiting at a plain-FIFO link, by transmission start time, in order.
/// Entries whose start has passed are removed lazily ([`Link::catch_up`]).
#[derive(Debug, Default)]
#[repr(C)]
pub struct Backlog {
    bytes: u64,
    starts: VecDeque<(Time, u32)>,
    /// The last waiting packets, if their arrivals are not scheduled yet: they are sent
    /// at their starts, by `LinkDone` events.
    pub held: VecDeque<Packet>,
}

impl Backlog {
    /// The start times, in order.
    pub fn starts(&self) -> impl Iterator<Item = Time> + '_ {
        self.starts.iter().map(|&(t, _)| t)
    }
}

/// One direction of a link. The fields read or written on every packet come first, in
/// the first three cache lines (`repr(C)`, aligned to a line): at thousands of flows the
/// links no longer fit the caches, and the event loop prefetches those lines of the
/// link a packet will enter ([`Link::HOT_BYTES`]); names, the queue discipline of other
/// links and the drop counters follow.
#[repr(C, align(64))]
pub struct Link {
    /// The queue's limits if it is a plain FIFO: the link then keeps `backlog` instead.
    pub fifo: Option<FifoLimits>,
    pub id: LinkId,
    /// A `LinkDone` event is scheduled at `busy_until`: packets wait in the queue (not
    /// for plain-FIFO links, which need none).
    pub done_pending: bool,
    /// The queue has not yet been asked for a packet at `busy_until`. The old design
    /// asked at the end of every transmission, and an AQM starts its idle period on an
    /// empty answer (RED's `q_time`); the question is now put off until the next arrival.
    pub idle_unseen: bool,
    pub monitor: bool,
    /// End of the current (or last) transmission: the transmitter is free from then on.
    /// The packet being serialised is not kept: its arrival at the far end is scheduled
    /// when its transmission starts. (With a token-bucket slack, the bucket's theoretical
    /// time of being full again: see [`Link::admit_fifo`].)
    pub busy_until: Time,
    /// Token-bucket slack of a plain-FIFO transmitter (zero: none).
    pub burst: Time,
    pub delay: Time,
    pub loss: Option<Box<LossModel>>,
    /// A random extra delay per packet (net/jitter.rs); its arrivals get lanes of their own.
    pub jitter: Option<Box<Jitter>>,
    pub backlog: Backlog,
    pub stats: LinkStats,
    pub queue: Box<dyn Queue>,
    pub rate_bps: u64,
    pub from: NodeId,
    pub to: NodeId,
    pub name: String,
}

impl Link {
    /// How many bytes from its start a link's per-packet fields take (through the
    /// transmission counters in `stats`).
    pub const HOT_BYTES: usize = std::mem::offset_of!(Link, stats) + 16;
}

// The per-packet fields stay within three cache lines, ahead of the cold ones.
const _: () = {
    assert!(Link::HOT_BYTES <= 3 * 64);
    assert!(std::mem::align_of::<Link>() == 64);
    assert!(std::mem::offset_of!(Link, queue) >= Link::HOT_BYTES);
};

impl Link {
    /// Packets waiting (not counting the one being serialised); for a plain-FIFO link,
    /// as of its last [`Link::catch_up`].
    pub fn queue_len(&self) -> usize {
        match self.fifo {
            Some(_) => self.backlog.starts.len(),
            None => self.queue.len(),
        }
    }

    /// Bytes waiting, as [`Link::queue_len`].
    pub fn queue_bytes(&self) -> u64 {
        match self.fifo {
            Some(_) => self.backlog.bytes,
            None => self.queue.bytes(),
        }
    }

    /// Plain-FIFO links: forgets the waiting packets whose transmission has started by
    /// `now`, adding the queue-length integral up to each start.
    #[inline]
    pub fn catch_up(&mut self, now: Time) {
        if self
            .backlog
            .starts
            .front()
            .is_some_and(|&(start, _)| start <= now)
        {
            self.forget_started(now);
        }
    }

    fn forget_started(&mut self, now: Time) {
        while let Some(&(start, size)) = self.backlog.starts.front() {
            if start > now {
                break;
            }
            self.account_queue(start);
            self.backlog.starts.pop_front();
            self.backlog.bytes -= size as u64;
        }
    }

    /// Plain-FIFO links (of these `limits`): admits `p`, which takes `tx` to serialise,
    /// arriving at `now`, and returns when its transmission starts (at once if the
    /// transmitter is free; the transmitter is then busy until its end), or drops it if
    /// the queue is full.
    ///
    /// With a token-bucket slack `burst` the link is a Linux TBF (a bucket of one packet
    /// plus `burst` of the rate) whose releases each take their own transmission time, as
    /// the test bed's delay element gives them: `busy_until` is the time the bucket would
    /// be full again (the generic cell rate algorithm), a packet starts once the bucket
    /// holds it, `busy_until - burst`, and never before the packet ahead of it. After an
    /// idle spell `burst` of the rate goes out back to back.
    #[inline]
    pub fn admit_fifo(
        &mut self,
        limits: FifoLimits,
        p: &Packet,
        tx: Time,
        now: Time,
    ) -> Result<Time, DropCause> {
        self.catch_up(now);
        if limits.overflows(self.backlog.starts.len(), self.backlog.bytes, p.size) {
            return Err(DropCause::BufferOverflow);
        }
        // (A token bucket's `busy_until` may lie after the start; a plain link's never.)
        let (start, free_at) = if self.burst > Time::ZERO {
            let start = self.bucket_start(now);
            (start, self.busy_until.max(start) + tx)
        } else {
            let start = self.busy_until.max(now);
            (start, start + tx)
        };
        if start > now {
            self.account_queue(now);
            self.backlog.starts.push_back((start, p.size));
            self.backlog.bytes += p.size as u64;
            self.note_queue_len();
        }
        self.busy_until = free_at;
        Ok(start)
    }

    /// A token bucket's start for a packet arriving at `now`: once the bucket holds it,
    /// and not before the packet ahead of it. (Out of line: plain links never come here.)
    #[inline(never)]
    fn bucket_start(&self, now: Time) -> Time {
        let start = self.busy_until.saturating_sub(self.burst).max(now);
        match self.backlog.starts.back() {
            Some(&(ahead, _)) => start.max(ahead),
            None => start,
        }
    }

    /// Adds the queue-length area up to `now`; call before every change of the queue.
    pub fn account_queue(&mut self, now: Time) {
        let dt = now.nanos().saturating_sub(self.stats.last_change.nanos()) as u128;
        self.stats.queue_area += dt * self.queue_len() as u128;
        self.stats.last_change = now;
    }

    /// Records the queue's new length after a change.
    pub fn note_queue_len(&mut self) {
        self.stats.max_queue = self.stats.max_queue.max(self.queue_len() as u64);
    }

    /// Queue-length integral up to `now`, packet-nanoseconds.
    pub fn queue_area(&mut self, now: Time) -> u128 {
        self.catch_up(now);
        self.account_queue(now);
        self.stats.queue_area
    }

    pub fn transmission_time(&self, pkt: &Packet) -> Time {
        Time::transmission(pkt.size, self.rate_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::tests::pkt;
    use crate::queue::DropTail;

    fn fifo_link(limit: usize) -> Link {
        let queue = Box::new(DropTail::new(limit, None));
        Link {
            id: 0,
            name: "l".into(),
            from: 0,
            to: 1,
            rate_bps: 8_000_000, // 1 byte per microsecond
            delay: Time::ZERO,
            fifo: queue.plain_fifo(),
            queue,
            backlog: Backlog::default(),
            loss: None,
            jitter: None,
            busy_until: Time::ZERO,
            burst: Time::ZERO,
            done_pending: false,
            idle_unseen: false,
            monitor: false,
            stats: LinkStats::default(),
        }
    }

    proptest::proptest! {
        /// With a token-bucket slack a plain-FIFO link starts packets as a token bucket of
        /// one packet plus `burst` of the rate releases them (Linux TBF): the reference
        /// keeps the tokens themselves.
        #[test]
        fn a_token_bucket_link_releases_packets_as_the_bucket_does(
            gaps in proptest::collection::vec(0u64..3000, 1..60),
            burst_us in 0u64..5000,
        ) {
            const SIZE: u32 = 1000; // 1000 us at 1 byte per microsecond
            let mut link = fifo_link(1000);
            link.burst = Time::from_micros(burst_us);
            let bucket = (SIZE as u64 + burst_us) as f64; // bytes
            let (mut tokens, mut filled_at, mut last_start) = (bucket, 0u64, 0u64);
            let mut now = Time::ZERO;
            for &gap in &gaps {
                now += Time::from_micros(gap);
                let limits = link.fifo.unwrap();
                let tx = link.transmission_time(&pkt(SIZE));
                let got = link.admit_fifo(limits, &pkt(SIZE), tx, now).unwrap();
                // Reference: the packet leaves after the one ahead, once the bucket holds it.
                let mut t = (now.nanos() / 1000).max(last_start);
                tokens = (tokens + (t - filled_at) as f64).min(bucket);
                if tokens < SIZE as f64 {
                    t += (SIZE as f64 - tokens) as u64;
                    tokens = SIZE as f64;
                }
                tokens -= SIZE as f64;
                filled_at = t;
                last_start = t;
                proptest::prop_assert_eq!(got, Time::from_micros(t));
            }
        }

        /// A plain-FIFO link admits, drops and starts packets as a queue that stores them
        /// and sends them one after the other would, with the same queue-length integral
        /// and maximum (the packet being serialised not counted).
        #[test]
        fn fifo_backlog_behaves_as_a_stored_queue(
            arrivals in proptest::collection::vec((0u64..3000, 1u32..2000), 1..60),
            limit in 0usize..6,
        ) {
            let mut link = fifo_link(limit);
            // Reference: (arrival, start) of every packet admitted so far.
            let mut admitted: Vec<(Time, Time)> = Vec::new();
            let mut busy_until = Time::ZERO;
            let mut now = Time::ZERO;
            for &(gap, size) in &arrivals {
                now += Time::from_nanos(gap * 1000);
                let waiting = admitted.iter().filter(|&&(_, s)| s > now).count();
                let limits = link.fifo.unwrap();
                let tx = link.transmission_time(&pkt(size));
                let got = link.admit_fifo(limits, &pkt(size), tx, now);
                if waiting >= limit {
                    proptest::prop_assert_eq!(got, Err(DropCause::BufferOverflow));
                    continue;
                }
                let start = busy_until.max(now);
                proptest::prop_assert_eq!(got, Ok(start));
                busy_until = start + tx;
                proptest::prop_assert_eq!(link.busy_until, busy_until);
                admitted.push((now, start));
            }
            // Each packet waits from its arrival to its start; the queue peaks on arrivals.
            let area: u128 = admitted.iter().map(|&(a, s)| (s - a).nanos() as u128).sum();
            let max = admitted
                .iter()
                .filter(|&&(a, s)| s > a)
                .map(|&(at, _)| admitted.iter().filter(|&&(a, s)| a <= at && s > at).count())
                .max()
                .unwrap_or(0) as u64;
            let end = busy_until + Time::from_nanos(1);
            proptest::prop_assert_eq!(link.queue_area(end), area);
            proptest::prop_assert_eq!(link.stats.max_queue, max);
            proptest::prop_assert_eq!((link.queue_len(), link.queue_bytes()), (0, 0));
        }
    }
}
