//! A host's egress that takes turns between its flows, one GSO packet per turn.
//!
//! Why: a Linux host whose sockets send at the same moment does not send one socket's
//! whole flight and then the next's. Each socket's `tcp_write_xmit` hands its GSO packets
//! to the device one at a time, on its own CPU, so flows started together leave
//! interleaved: on the test bed two CUBIC flows started at the same instant leave their
//! first flights as 1 1 2 2 1 1 2 2 ... (a capture at the sender, segments of GSO pairs;
//! docs/kernel.md). A FIFO at the sender's access link instead sends the first flow's
//! whole initial window ahead of the second's, so the two flows' ACKs come back in two
//! trains and HyStart's ACK-train test sees a pipe-full train where the kernel's flows see
//! gaps (and both overshoot).
//!
//! A turn takes the flow's next packet and, while that packet says more of its GSO packet
//! follows ([`Packet::GSO_MORE`]), the rest of it; senders that do not build GSO packets
//! (the ns2 profile) take one packet per turn. Admission is the link's buffer, in packets
//! and bytes, over all flows together, as a FIFO's.

use super::{FifoLimits, Queue};
use crate::net::{DropCause, FlowId, Packet};
use crate::sim::Time;
use std::collections::{BTreeMap, VecDeque};

pub struct RoundRobin {
    limits: FifoLimits,
    /// Each flow's waiting packets, in arrival order (ordered by flow: traces list them
    /// the same way in every run).
    waiting: BTreeMap<FlowId, VecDeque<Packet>>,
    /// Flows with packets waiting, in turn order; the front one is served next.
    turns: VecDeque<FlowId>,
    /// The flow in the middle of a GSO packet: it keeps the turn.
    unfinished: Option<FlowId>,
    len: usize,
    bytes: u64,
}

impl RoundRobin {
    pub fn new(limit_packets: usize, limit_bytes: Option<u64>) -> Self {
        RoundRobin {
            limits: FifoLimits {
                packets: limit_packets,
                bytes: limit_bytes,
            },
            waiting: BTreeMap::new(),
            turns: VecDeque::new(),
            unfinished: None,
            len: 0,
            bytes: 0,
        }
    }

    /// The flow whose packet goes next: the one finishing a GSO packet, else the next in turn.
    fn next_flow(&mut self) -> Option<FlowId> {
        match self.unfinished.take() {
            Some(f) if self.waiting.get(&f).is_some_and(|q| !q.is_empty()) => Some(f),
            _ => self.turns.pop_front(),
        }
    }
}

impl Queue for RoundRobin {
    fn enqueue(&mut self, pkt: Packet, _now: Time) -> Result<(), DropCause> {
        if self.limits.overflows(self.len, self.bytes, pkt.size) {
            return Err(DropCause::BufferOverflow);
        }
        self.len += 1;
        self.bytes += pkt.size as u64;
        let flow = pkt.flow;
        let q = self.waiting.entry(flow).or_default();
        let idle = q.is_empty();
        q.push_back(pkt);
        if idle && self.unfinished != Some(flow) {
            self.turns.push_back(flow);
        }
        Ok(())
    }

    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let flow = self.next_flow()?;
        let q = self.waiting.get_mut(&flow)?;
        let p = q.pop_front()?;
        self.len -= 1;
        self.bytes -= p.size as u64;
        if p.gso_more() {
            // Keep the turn. If the rest has not arrived by the next dequeue, the claim
            // lapses (`next_flow`) and the flow rejoins `turns` at the back when it does.
            self.unfinished = Some(flow);
        } else if !q.is_empty() {
            self.turns.push_back(flow);
        }
        Some(p)
    }

    fn len(&self) -> usize {
        self.len
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        for q in self.waiting.values() {
            q.iter().for_each(&mut *f);
        }
    }

    fn kind(&self) -> &'static str {
        "round_robin"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::tests::pkt;

    fn seg(flow: FlowId, seq: u32, more: bool) -> Packet {
        Packet {
            flow,
            seq,
            flags: if more { Packet::GSO_MORE } else { 0 },
            ..pkt(1000)
        }
    }

    fn drain(q: &mut RoundRobin) -> Vec<(FlowId, u32)> {
        std::iter::from_fn(|| q.dequeue(Time::ZERO).map(|p| (p.flow, p.seq))).collect()
    }

    #[test]
    fn flights_queued_together_leave_one_gso_packet_per_turn() {
        let mut q = RoundRobin::new(100, None);
        for flow in [0, 1] {
            for seq in 0..4 {
                q.enqueue(seg(flow, seq, seq % 2 == 0), Time::ZERO).unwrap();
            }
        }
        assert_eq!(
            drain(&mut q),
            [
                (0, 0),
                (0, 1),
                (1, 0),
                (1, 1),
                (0, 2),
                (0, 3),
                (1, 2),
                (1, 3)
            ]
        );
        assert_eq!((q.len(), q.bytes()), (0, 0));
    }

    #[test]
    fn packets_without_gso_marks_take_one_turn_each() {
        let mut q = RoundRobin::new(100, None);
        for flow in [0, 1] {
            for seq in 0..2 {
                q.enqueue(seg(flow, seq, false), Time::ZERO).unwrap();
            }
        }
        assert_eq!(drain(&mut q), [(0, 0), (1, 0), (0, 1), (1, 1)]);
    }

    #[test]
    fn an_unfinished_gso_packet_keeps_the_turn_for_its_late_rest() {
        let mut q = RoundRobin::new(100, None);
        q.enqueue(seg(0, 0, true), Time::ZERO).unwrap();
        q.enqueue(seg(1, 0, false), Time::ZERO).unwrap();
        assert_eq!(q.dequeue(Time::ZERO).map(|p| (p.flow, p.seq)), Some((0, 0)));
        q.enqueue(seg(0, 1, false), Time::ZERO).unwrap();
        assert_eq!(drain(&mut q), [(0, 1), (1, 0)]);
    }

    #[test]
    fn the_buffer_limits_all_flows_together() {
        // Two flows' packets fill the limit; a third packet, of any flow, overflows it.
        let overflows = |packets: usize, bytes: Option<u64>, third: Packet| {
            let mut q = RoundRobin::new(packets, bytes);
            q.enqueue(seg(0, 0, false), Time::ZERO).unwrap();
            q.enqueue(seg(1, 0, false), Time::ZERO).unwrap();
            let mut seen = 0;
            q.for_each(&mut |_| seen += 1);
            assert_eq!(seen, 2);
            q.enqueue(third, Time::ZERO) == Err(DropCause::BufferOverflow)
        };
        assert!(overflows(3, Some(2500), seg(2, 0, false)), "bytes");
        assert!(overflows(2, None, seg(0, 1, false)), "packets");
        assert!(!overflows(3, None, seg(2, 0, false)), "room for a third");
    }
}
