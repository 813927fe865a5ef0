//! Prefetching the state of the events the event loop will process soon.
//!
//! With thousands of flows the per-flow and per-link state is spread over hundreds of
//! megabytes, and an event's processing used to load it one cache miss after another:
//! the packet, the route table entry, the link or endpoint it reaches. The scheduler
//! shows the loop the events a few places behind the one it pops in the same lane
//! ([`Scheduler::pop_until_with`]); the loop prefetches the route table entry of the
//! farther one and, once that entry is loaded, the state of the nearer one. In a small
//! world, whose state stays in the caches, the prefetches are only extra instructions,
//! so they are made only above a size.
//!
//! [`Scheduler::pop_until_with`]: crate::sim::Scheduler::pop_until_with

use super::{lanes::ArrivalLanes, routes::Routes, Event, Flow};
use crate::net::{Link, PacketKind};
use crate::sim::prefetch::{prefetch, prefetch_head};
use crate::sim::Ahead;

/// The size of per-flow and per-link state above which prefetching pays: about a
/// core's L2 cache, which the state then no longer fits beside the scheduler's lanes.
const WORTHWHILE_BYTES: usize = 1 << 20;

pub(super) struct Prefetch {
    pub enabled: bool,
}

impl Prefetch {
    pub fn new(links: usize, flows: usize) -> Self {
        let bytes = links * std::mem::size_of::<Link>() + flows * std::mem::size_of::<Flow>();
        Prefetch {
            enabled: bytes > WORTHWHILE_BYTES,
        }
    }
}

/// Asks the CPU to start loading what `ev`, an event popped soon, will touch: for the
/// far event, the route table entry that says where its packet goes next; for the near
/// one, the link it enters or the endpoint it reaches.
#[inline(always)]
pub(super) fn state_of(
    ev: &Event,
    ahead: Ahead,
    routes: &Routes,
    links: &[Link],
    flows: &[Flow],
    lanes: &ArrivalLanes,
) {
    let Event::Arrive(p) = ev else {
        return;
    };
    if ahead == Ahead::Far {
        return routes.prefetch_next(p);
    }
    match routes.next(p) {
        Some(l) => {
            if let Some(link) = links.get(l as usize) {
                prefetch_head(link, Link::HOT_BYTES);
                lanes.prefetch(l);
            }
        }
        None => {
            if let Some(flow) = flows.get(p.flow as usize) {
                match p.kind {
                    PacketKind::Ack => prefetch(&flow.sender),
                    _ => prefetch(&flow.receiver),
                }
            }
        }
    }
}
