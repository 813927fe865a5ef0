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
//! A packet that waits at a plain-FIFO link is scheduled on arrival for a later start:
//! its arrival is in order with its link's other arrivals only, so it goes to a lane of
//! that link's own.
//!
//! [`Scheduler::schedule_fifo`]: crate::sim::Scheduler::schedule_fifo

use crate::net::{Link, LinkId, Packet};
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
    by_offset: HashMap<Time, u32>,
    /// Per link, its own lane, once it has needed one (`NONE` until then).
    own: Vec<u32>,
    lanes: u32,
}

const NONE: u32 = u32::MAX;

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
            own: vec![NONE; links],
            lanes: 0,
        }
    }

    /// The transmission time of `p` on `link`, and the lane of its arrival.
    #[inline]
    pub fn get(&mut self, link: &Link, p: &Packet) -> (Time, u32) {
        let recent = &mut self.recent[link.id as usize];
        for seen in recent.iter() {
            if seen.size == p.size {
                return (seen.tx, seen.lane);
            }
        }
        let tx = link.transmission_time(p);
        let lane = *self
            .by_offset
            .entry(tx + link.delay)
            .or_insert_with(|| new_lane(&mut self.lanes));
        recent[1] = recent[0];
        recent[0] = Seen {
            size: p.size,
            lane,
            tx,
        };
        (tx, lane)
    }

    /// The lane of `link`'s own.
    #[inline]
    pub fn own(&mut self, link: LinkId) -> u32 {
        let own = &mut self.own[link as usize];
        if *own == NONE {
            *own = new_lane(&mut self.lanes);
        }
        *own
    }
}

fn new_lane(count: &mut u32) -> u32 {
    *count += 1;
    *count - 1
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
            busy_until: Time::ZERO,
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
        let own = lanes.own(1);
        assert!(![big, small, third].contains(&own));
        assert_eq!(lanes.own(1), own);
        assert_ne!(lanes.own(0), own);
        assert_eq!(
            lanes.get(&a, &pkt(2000)).1,
            5,
            "numbers shared by both kinds"
        );
    }
}
