//! DropTail: first in, first out, drop arrivals when full.

use super::Queue;
use crate::net::{DropCause, Packet};
use crate::sim::Time;
use std::collections::VecDeque;

/// A FIFO limited in packets and, optionally, in bytes.
pub struct DropTail {
    packets: VecDeque<Packet>,
    limit_packets: usize,
    limit_bytes: Option<u64>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit_packets: usize, limit_bytes: Option<u64>) -> Self {
        DropTail {
            // Grows with use: reserving the limit would cost memory in proportion to the
            // buffers of every link, however idle (40000 links at 10000 flows).
            packets: VecDeque::new(),
            limit_packets,
            limit_bytes,
            bytes: 0,
        }
    }

    /// Whether `pkt` would overflow the limits.
    fn would_overflow(&self, pkt: &Packet) -> bool {
        self.packets.len() >= self.limit_packets
            || self
                .limit_bytes
                .is_some_and(|b| self.bytes + pkt.size as u64 > b)
    }

    pub fn limit_packets(&self) -> usize {
        self.limit_packets
    }
}

impl Queue for DropTail {
    fn enqueue(&mut self, pkt: Packet, _now: Time) -> Result<(), DropCause> {
        if self.would_overflow(&pkt) {
            return Err(DropCause::BufferOverflow);
        }
        self.bytes += pkt.size as u64;
        self.packets.push_back(pkt);
        Ok(())
    }

    fn offer_idle(
        &mut self,
        pkt: Packet,
        _idle_since: Option<Time>,
        _now: Time,
    ) -> Result<Option<Packet>, DropCause> {
        debug_assert!(self.packets.is_empty(), "offer_idle on a non-empty queue");
        // What would be stored is taken straight back.
        match self.would_overflow(&pkt) {
            true => Err(DropCause::BufferOverflow),
            false => Ok(Some(pkt)),
        }
    }

    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let p = self.packets.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }

    fn len(&self) -> usize {
        self.packets.len()
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.packets.iter().for_each(f)
    }

    fn kind(&self) -> &'static str {
        "droptail"
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::net::PacketKind;

    pub(crate) fn pkt(size: u32) -> Packet {
        Packet {
            uid: 0,
            flow: 0,
            kind: PacketKind::Data,
            src: 0,
            dst: 1,
            hop: 0,
            seq: 0,
            ack: 0,
            size,
            payload: size,
            stamp: Time::ZERO,
            retransmit: false,
            rwnd: 0,
        }
    }

    #[test]
    fn drops_when_full_in_packets() {
        let mut q = DropTail::new(2, None);
        assert!(q.enqueue(pkt(100), Time::ZERO).is_ok());
        assert!(q.enqueue(pkt(100), Time::ZERO).is_ok());
        assert_eq!(
            q.enqueue(pkt(100), Time::ZERO),
            Err(DropCause::BufferOverflow)
        );
        assert_eq!(q.len(), 2);
        assert_eq!(q.bytes(), 200);
        q.dequeue(Time::ZERO);
        assert_eq!(q.bytes(), 100);
    }

    #[test]
    fn drops_when_full_in_bytes() {
        let mut q = DropTail::new(100, Some(250));
        assert!(q.enqueue(pkt(100), Time::ZERO).is_ok());
        assert!(q.enqueue(pkt(100), Time::ZERO).is_ok());
        assert_eq!(
            q.enqueue(pkt(100), Time::ZERO),
            Err(DropCause::BufferOverflow)
        );
        assert!(q.enqueue(pkt(50), Time::ZERO).is_ok());
    }

    proptest::proptest! {
        /// The shortcut for an idle link answers as storing the packet and taking it
        /// straight back would, and leaves the queue empty.
        #[test]
        fn offer_idle_is_enqueue_then_dequeue(
            limit in 0usize..3,
            limit_bytes in proptest::option::of(0u64..3000),
            size in 1u32..2000,
        ) {
            let mut shortcut = DropTail::new(limit, limit_bytes);
            let mut plain = DropTail::new(limit, limit_bytes);
            let p = pkt(size);
            let expected = plain.enqueue(p, Time(5)).map(|()| plain.dequeue(Time(5)));
            proptest::prop_assert_eq!(shortcut.offer_idle(p, Some(Time(1)), Time(5)), expected);
            proptest::prop_assert_eq!((shortcut.len(), shortcut.bytes()), (0, 0));
        }
    }
}
