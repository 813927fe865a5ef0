//! Prefetching the state of the events the event loop will process soon.
//!
//! With thousands of flows the per-flow and per-link state is spread over hundreds of
//! megabytes, and an event's processing used to load it one cache miss after another:
//! the packet, the route table entry, the link or endpoint it reaches. The scheduler
//! shows the loop the events a few places behind the one it pops in the same lane
//! ([`Scheduler::take`]); the loop prefetches the route table entry of the
//! farther one and, once that entry is loaded, the state of the nearer one. A packet
//! at its endpoint is told by the small table of route lengths: for it the loop
//! prefetches the sender or receiver, and then what that reaches through pointers and
//! the first link of its reply (2-4 % less CPU time at 10000 flows). In a small
//! world, whose state stays in the caches, the prefetches are only extra instructions,
//! so they are made only above a size.
//!
//! [`Scheduler::take`]: crate::sim::Scheduler::take

use super::link::Link;
use super::{lanes::ArrivalLanes, routes::Routes, Event, Flow};
use crate::net::PacketKind;
use crate::sim::prefetch::{prefetch, prefetch_addr, prefetch_head};
use crate::sim::Ahead;

/// The size of per-flow and per-link state above which prefetching pays. The prefetches
/// cost about 360 instructions per packet delivered (+21 %); measured on the flow sweep
/// of bench/run.py (AMD EPYC, 1 MiB L2 per core, 32 MiB L3): no gain at 1000 flows
/// (2.3 MB of state; 8 % more CPU time), 3 % less CPU time at 3000 flows (6.9 MB),
/// 7 % at 10000 flows (23 MB).
const WORTHWHILE_BYTES: usize = 4 << 20;

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

/// Asks the CPU to start loading what `ev`, an event popped soon, will touch. A packet
/// that goes on to another link: for the far event, the route table entry that says
/// which link; for the near one, that link and its lane cache. A packet at its endpoint:
/// for the far event, the sender (ACK) or receiver (data), the flow's counters and the
/// route entry of the reply's first link; for the near one, what the endpoint reaches
/// through pointers ([`TcpSender::prefetch_buffers`]) and the reply's first link.
///
/// [`TcpSender::prefetch_buffers`]: crate::tcp::sender::TcpSender::prefetch_buffers
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
    if !routes.at_end(p) {
        match ahead {
            Ahead::Far => routes.prefetch_next(p),
            Ahead::Near => {
                if let Some(l) = routes.next(p) {
                    link_of_next_send(l, links, lanes);
                }
            }
        }
        return;
    }
    let Some(flow) = flows.get(p.flow as usize) else {
        return; // a UDP flow
    };
    // An ACK makes the sender send data, a data segment makes the receiver send an ACK.
    let reply = match p.kind {
        PacketKind::Ack => PacketKind::Data,
        _ => PacketKind::Ack,
    };
    let counter = |c: &u64| prefetch_addr(c as *const u64 as *const u8);
    match (ahead, p.kind) {
        (Ahead::Far, kind) => {
            if kind == PacketKind::Ack {
                prefetch(&flow.sender);
                counter(&flow.acks_arrived);
                counter(&flow.data_sent);
                prefetch(&flow.drop_log);
            } else {
                prefetch(&flow.receiver);
                counter(&flow.data_arrived);
                counter(&flow.acks_sent);
            }
            routes.prefetch_hop(p.flow, reply, 0);
        }
        (Ahead::Near, kind) => {
            if kind == PacketKind::Ack {
                flow.sender.prefetch_buffers();
            } else {
                flow.receiver.prefetch_buffers();
            }
            if let Some(l) = routes.hop(p.flow, reply, 0) {
                link_of_next_send(l, links, lanes);
            }
        }
    }
}

/// The part of link `l` that a packet entering it touches, and its lane cache.
#[inline(always)]
fn link_of_next_send(l: u32, links: &[Link], lanes: &ArrivalLanes) {
    if let Some(link) = links.get(l as usize) {
        prefetch_head(link, Link::HOT_BYTES);
        lanes.prefetch(l);
    }
}
