//! Scheduler lanes for packets arriving at the far end of wired links, and the
//! transmission times that place them.
//!
//! A packet whose transmission starts at `now` arrives at `now + offset`, where `offset`
//! is its serialisation time plus the link's propagation delay. `now` never decreases, so
//! arrivals with the same offset are scheduled in time order, whichever link they cross:
//! one FIFO lane per distinct offset ([`Scheduler::schedule_fifo`]) keeps the heap down
//! to a few lane heads however many links and packets there are. The choice of lane
//! affects speed only: the scheduler pops in (time, insertion) order whatever the lanes.
//!
//! A packet that waits at a plain-FIFO link starts later than now, when the packets
//! ahead of it are sent (world/link.rs). If only its link uses its lane (a bottleneck, whose
//! rate and delay are its own), its arrival is scheduled at once: that link's
//! transmissions follow one another, so its lane stays in order. In a lane that other
//! links use (identical access links) it would be out of order: the lane takes an early
//! arrival by inserting it a few places from its end, but a packet held back for long
//! would push every later arrival of the other links out of the lane. Such a packet is
//! held until its start instead (a `LinkDone` event). (A lane per link would keep them
//! apart, but at thousands of flows the thousands of lanes, one per access link that
//! held a packet back within the last propagation delay, made the heap of lane heads
//! deep.)
//!
//! A jittered link's arrivals are not a fixed time after their transmissions, so they
//! would be out of order in a lane shared by offset. They go to lanes of that link alone
//! (one per offset, as for other links): the link's arrivals never go back in time
//! (net/jitter.rs), so each of its lanes stays in order and its packets are scheduled at
//! once, as at a bottleneck. So do a token-bucket link's (world/link.rs): its packets'
//! starts do not follow from one another's ends, which holding a packet until its start
//! assumes. Links without either share lanes exactly as before.
//!
//! [`Scheduler::schedule_fifo`]: crate::sim::Scheduler::schedule_fifo

use super::link::Link;
use crate::net::Packet;
use crate::sim::Time;
use std::collections::HashMap;

/// A packet size seen on a link: its transmission time and arrival lane there.
#[derive(Clone, Copy)]
struct Seen {
    size: u32,
    lane: u32,
    tx: Time,
}

pub(super) struct ArrivalLanes {
    /// Per link, its two latest packet sizes (a link usually carries one or two: data
    /// one way, ACKs the other, both on a shared path). Saves a division and a hash
    /// lookup per transmission.
    recent: Vec<[Seen; 2]>,
    /// Lanes by (offset, the link if it is jittered: its arrivals go in lanes of its own).
    by_offset: HashMap<(Time, Option<u32>), u32>,
    /// Per lane: the first link that used it, and whether others have since.
    owner: Vec<(u32, bool)>,
}

impl ArrivalLanes {
    pub fn new(links: usize) -> Self {
        let none = Seen {
            size: u32::MAX,
            lane: 0,
            tx: Time::ZERO,
        };
        ArrivalLanes {
            recent: vec![[none; 2]; links],
            by_offset: HashMap::new(),
            owner: Vec::new(),
        }
    }

    /// The transmission time of `p` on `link`, and the lane of its arrival.
    #[inline]
    pub fn get(&mut self, link: &Link, p: &Packet) -> (Time, u32) {
        for seen in &self.recent[link.id as usize] {
            if seen.size == p.size {
                return (seen.tx, seen.lane);
            }
        }
        self.learn(link, p)
    }

    /// Prefetches the cache of `link` ([`crate::sim::prefetch`]).
    #[inline(always)]
    pub fn prefetch(&self, link: u32) {
        if let Some(r) = self.recent.get(link as usize) {
            crate::sim::prefetch::prefetch(r);
        }
    }

    /// A size not among the link's latest two: computes and remembers it.
    #[cold]
    #[inline(never)]
    fn learn(&mut self, link: &Link, p: &Packet) -> (Time, u32) {
        let tx = link.transmission_time(p);
        let next = self.by_offset.len() as u32;
        let own = (link.jitter.is_some() || link.burst > Time::ZERO).then_some(link.id);
        let lane = *self.by_offset.entry((tx + link.delay, own)).or_insert(next);
        // Every link passes here for every lane it uses.
        match self.owner.get_mut(lane as usize) {
            None => self.owner.push((link.id, false)),
            Some((owner, shared)) => *shared |= *owner != link.id,
        }
        let recent = &mut self.recent[link.id as usize];
        recent[1] = recent[0];
        recent[0] = Seen {
            size: p.size,
            lane,
            tx,
        };
        (tx, lane)
    }

    /// Whether only one link schedules into `lane`: its arrivals are then in order
    /// whenever they are scheduled (that link's transmissions follow one another).
    pub fn exclusive(&self, lane: u32) -> bool {
        !self.owner[lane as usize].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::tests::pkt;
    use crate::queue::DropTail;

    fn link(id: u32, rate_bps: u64, delay: Time) -> Link {
        Link {
            id,
            name: format!("l{id}"),
            from: 0,
            to: 1,
            rate_bps,
            delay,
            queue: Box::new(DropTail::new(10, None)),
            fifo: None,
            backlog: Default::default(),
            loss: None,
            jitter: None,
            busy_until: Time::ZERO,
            burst: Time::ZERO,
            done_pending: false,
            idle_unseen: false,
            monitor: false,
            stats: Default::default(),
        }
    }

    #[test]
    fn one_lane_per_offset_across_links() {
        let mut lanes = ArrivalLanes::new(3);
        let ms = Time::from_millis(1);
        let (a, b, c) = (link(0, 8_000, ms), link(1, 8_000, ms), link(2, 16_000, ms));
        // 1000 bytes at 8 kb/s: 1 s; 500 bytes: 0.5 s; 1000 bytes at 16 kb/s: 0.5 s.
        let (tx, big) = lanes.get(&a, &pkt(1000));
        assert_eq!(tx, Time::from_secs_f64(1.0));
        let (tx, small) = lanes.get(&a, &pkt(500));
        assert_eq!(tx, Time::from_secs_f64(0.5));
        assert_ne!(big, small);
        assert_eq!(lanes.get(&b, &pkt(1000)).1, big, "same offset, same lane");
        assert_eq!(lanes.get(&c, &pkt(1000)).1, small, "same offset, same lane");
        assert_eq!(lanes.get(&a, &pkt(1000)), (Time::from_secs_f64(1.0), big));
        let (_, third) = lanes.get(&a, &pkt(250));
        assert_eq!(
            lanes.get(&a, &pkt(500)),
            (Time::from_secs_f64(0.5), small),
            "still right after leaving the cache"
        );
        assert_eq!(lanes.get(&a, &pkt(250)).1, third);
        assert!(!lanes.exclusive(big) && !lanes.exclusive(small));
        assert!(lanes.exclusive(third), "only link a sends 250 bytes");
    }

    #[test]
    fn a_jittered_link_has_lanes_of_its_own() {
        use crate::config::jitter::{JitterSpec, UniformJitter};
        use crate::config::Seconds;
        use crate::net::Jitter;
        let mut lanes = ArrivalLanes::new(3);
        let ms = Time::from_millis(1);
        let (a, b, mut c) = (link(0, 8_000, ms), link(1, 8_000, ms), link(2, 8_000, ms));
        let spec = JitterSpec::Uniform(UniformJitter { max: Seconds(1e-3) });
        c.jitter = Some(Box::new(Jitter::new(
            &spec,
            crate::sim::RngStream::new(1, "j"),
        )));
        let shared = lanes.get(&a, &pkt(1000)).1;
        assert_eq!(lanes.get(&b, &pkt(1000)).1, shared);
        let own = lanes.get(&c, &pkt(1000)).1;
        assert_ne!(own, shared, "same offset, but jittered");
        assert!(lanes.exclusive(own) && !lanes.exclusive(shared));
    }
}
