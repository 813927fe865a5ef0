//! Every flow's routes in one array, so that forwarding a packet (on every arrival at
//! the end of a link) reads a small, dense table rather than the flow's own vectors
//! behind its large struct: at thousands of flows that was two cache misses per hop.

use crate::net::{FlowId, LinkId, Packet, PacketKind};

/// Ends each route in the table.
const END: LinkId = LinkId::MAX;

#[derive(Default)]
pub(super) struct Routes {
    /// The routes one after another, each followed by `END`.
    links: Vec<LinkId>,
    /// Per flow id: where its forward route (data, datagrams) and its reverse route
    /// (ACKs) start in `links`.
    start: Vec<[u32; 2]>,
}

impl Routes {
    /// Adds the routes of the next flow id.
    pub fn add(&mut self, forward: &[LinkId], reverse: &[LinkId]) {
        let mut starts = [0; 2];
        for (start, route) in starts.iter_mut().zip([forward, reverse]) {
            *start = u32::try_from(self.links.len()).expect("routes fit 2^32 hops");
            self.links.extend_from_slice(route);
            self.links.push(END);
        }
        self.start.push(starts);
    }

    /// Hop `hop` (0 = the first link) of the route that packets of `kind` of flow `flow`
    /// take, or `None` past its end.
    #[inline]
    pub fn hop(&self, flow: FlowId, kind: PacketKind, hop: u16) -> Option<LinkId> {
        let start = self.start[flow as usize][(kind == PacketKind::Ack) as usize];
        let link = self.links[start as usize + hop as usize];
        (link != END).then_some(link)
    }

    /// The next link of `p`, whose `hop` indexes it, or `None` at its destination.
    #[inline]
    pub fn next(&self, p: &Packet) -> Option<LinkId> {
        self.hop(p.flow, p.kind, p.hop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::tests::pkt;

    #[test]
    fn routes_of_each_flow_and_direction() {
        let mut routes = Routes::default();
        routes.add(&[1, 2, 3], &[4, 5, 6]);
        routes.add(&[7], &[]);
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
    }
}
