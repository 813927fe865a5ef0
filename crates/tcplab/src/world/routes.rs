//! Every flow's routes in one array, so that forwarding a packet (on every arrival at
//! the end of a link) reads a small, dense table rather than the flow's own vectors
//! behind its large struct: at thousands of flows that was two cache misses per hop.
//!
//! Each route has a slot of the same length (the longest route's, plus its end marker),
//! so where a packet's next hop is stored follows from the packet alone: one load, whose
//! address the event loop can compute (and prefetch) before the packet arrives. The
//! table takes `flows x 2 x (longest route + 1)` link ids (320 KB for 10000 flows on a
//! dumbbell).

use crate::net::{FlowId, LinkId, Packet, PacketKind};

/// Ends each route in the table.
const END: LinkId = LinkId::MAX;

#[derive(Default)]
pub(super) struct Routes {
    /// Per flow id, its forward route (data, datagrams) and then its reverse route
    /// (ACKs), each in a slot of `stride` entries ending with `END`.
    links: Vec<LinkId>,
    stride: usize,
    /// The length of each route, in the order of the slots: small enough to stay cached
    /// (one byte per route), so the event loop can tell a packet's last hop without
    /// loading its route slot.
    lengths: Vec<u8>,
}

impl Routes {
    /// The table of the (forward, reverse) routes of flow ids 0, 1, ...
    pub fn new(routes: &[(&[LinkId], &[LinkId])]) -> Self {
        let longest = routes
            .iter()
            .map(|(f, r)| f.len().max(r.len()))
            .max()
            .unwrap_or(0);
        let stride = longest + 1;
        let mut links = vec![END; routes.len() * 2 * stride];
        for (slot, route) in links
            .chunks_exact_mut(stride)
            .zip(routes.iter().flat_map(|&(f, r)| [f, r]))
        {
            slot[..route.len()].copy_from_slice(route);
        }
        let lengths = routes
            .iter()
            .flat_map(|&(f, r)| [f.len(), r.len()])
            .map(|n| n.min(u8::MAX as usize) as u8)
            .collect();
        Routes {
            links,
            stride,
            lengths,
        }
    }

    /// Which route packets of `kind` of flow `flow` take (its slot number).
    #[inline(always)]
    fn route(flow: FlowId, kind: PacketKind) -> usize {
        2 * flow as usize + (kind == PacketKind::Ack) as usize
    }

    /// Where hop `hop` (0 = the first link) of the route that packets of `kind` of
    /// flow `flow` take is stored.
    #[inline(always)]
    fn index(&self, flow: FlowId, kind: PacketKind, hop: u16) -> usize {
        Self::route(flow, kind) * self.stride + hop as usize
    }

    /// Hop `hop` (0 = the first link) of the route that packets of `kind` of flow `flow`
    /// take, or `None` past its end.
    #[inline]
    pub fn hop(&self, flow: FlowId, kind: PacketKind, hop: u16) -> Option<LinkId> {
        let link = *self.links.get(self.index(flow, kind, hop))?;
        (link != END).then_some(link)
    }

    /// The next link of `p`, whose `hop` indexes it, or `None` at its destination.
    #[inline]
    pub fn next(&self, p: &Packet) -> Option<LinkId> {
        self.hop(p.flow, p.kind, p.hop)
    }

    /// Whether `p` has crossed the last link of its route (its next stop is its
    /// endpoint), read from the small table of route lengths. A route longer than 254
    /// links is never taken for ended (a hint only: [`Routes::next`] decides).
    #[inline(always)]
    pub fn at_end(&self, p: &Packet) -> bool {
        self.lengths
            .get(Self::route(p.flow, p.kind))
            .is_some_and(|&n| n < u8::MAX && p.hop == n as u16)
    }

    /// Prefetches where hop `hop` of the route that packets of `kind` of flow `flow`
    /// take is stored ([`crate::sim::prefetch`]).
    #[inline(always)]
    pub fn prefetch_hop(&self, flow: FlowId, kind: PacketKind, hop: u16) {
        if let Some(l) = self.links.get(self.index(flow, kind, hop)) {
            crate::sim::prefetch::prefetch(l);
        }
    }

    /// Prefetches where the next link of `p` is stored ([`crate::sim::prefetch`]).
    #[inline(always)]
    pub fn prefetch_next(&self, p: &Packet) {
        self.prefetch_hop(p.flow, p.kind, p.hop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::tests::pkt;

    #[test]
    fn routes_of_each_flow_and_direction() {
        let routes = Routes::new(&[(&[1, 2, 3], &[4, 5, 6]), (&[7], &[])]);
        assert_eq!(routes.hop(0, PacketKind::Data, 0), Some(1));
        assert_eq!(routes.hop(0, PacketKind::Data, 2), Some(3));
        assert_eq!(routes.hop(0, PacketKind::Data, 3), None);
        assert_eq!(routes.hop(0, PacketKind::Ack, 1), Some(5));
        assert_eq!(routes.hop(0, PacketKind::Ack, 3), None);
        assert_eq!(routes.hop(1, PacketKind::Datagram, 0), Some(7));
        assert_eq!(routes.hop(1, PacketKind::Datagram, 1), None);
        let mut p = pkt(100);
        p.flow = 1;
        p.kind = PacketKind::Datagram;
        assert_eq!(routes.next(&p), Some(7));
        p.hop = 1;
        assert!(routes.at_end(&p) && routes.next(&p).is_none());
        p.hop = 0;
        assert!(!routes.at_end(&p));
        p.flow = 2;
        assert_eq!(routes.next(&p), None, "no such flow");
        assert!(!routes.at_end(&p), "no such flow");
    }
}
