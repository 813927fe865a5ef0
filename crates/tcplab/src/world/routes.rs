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
        Routes { links, stride }
    }

    /// Where hop `hop` (0 = the first link) of the route that packets of `kind` of
    /// flow `flow` take is stored.
    #[inline(always)]
    fn index(&self, flow: FlowId, kind: PacketKind, hop: u16) -> usize {
        let route = 2 * flow as usize + (kind == PacketKind::Ack) as usize;
        route * self.stride + hop as usize
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

    /// Prefetches where the next link of `p` is stored ([`crate::sim::prefetch`]).
    #[inline(always)]
    pub fn prefetch_next(&self, p: &Packet) {
        if let Some(l) = self.links.get(self.index(p.flow, p.kind, p.hop)) {
            crate::sim::prefetch::prefetch(l);
        }
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
        p.flow = 2;
        assert_eq!(routes.next(&p), None, "no such flow");
    }
}
