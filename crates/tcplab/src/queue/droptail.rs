//! DropTail: first in, first out, drop arrivals when full.

use super::Queue;
use crate::net::{DropCause, Packet};
use crate::sim::Time;
use std::collections::VecDeque;

/// The limits of a FIFO: packets, and optionally bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FifoLimits {
    pub packets: usize,
    pub bytes: Option<u64>,
}

impl FifoLimits {
    /// Whether a packet of `size` bytes overflows a FIFO that holds `len` packets of
    /// `bytes` bytes.
    #[inline]
    pub fn overflows(&self, len: usize, bytes: u64, size: u32) -> bool {
        len >= self.packets || self.bytes.is_some_and(|b| bytes + size as u64 > b)
    }
}

/// A FIFO limited in packets and, optionally, in bytes.
pub struct DropTail {
    packets: VecDeque<Packet>,
    limits: FifoLimits,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit_packets: usize, limit_bytes: Option<u64>) -> Self {
        DropTail {
            // Grows with use: reserving the limit would cost memory in proportion to the
            // buffers of every link, however idle (40000 links at 10000 flows).
            packets: VecDeque::new(),
            limits: FifoLimits {
                packets: limit_packets,
                bytes: limit_bytes,
            },
            bytes: 0,
        }
    }

    /// Whether `pkt` would overflow the limits.
    fn would_overflow(&self, pkt: &Packet) -> bool {
        self.limits
            .overflows(self.packets.len(), self.bytes, pkt.size)
    }

    pub fn limit_packets(&self) -> usize {
        self.limits.packets
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

    fn plain_fifo(&self) -> Option<FifoLimits> {
        Some(self.limits)
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
            flags: 0,
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
}
