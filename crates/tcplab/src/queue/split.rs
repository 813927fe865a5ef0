//! A buffer divided between data and ACK packets: the access-point queue of Ha & Choi
//! (GLOBECOM 2006), the solution that 004 compares as its ref. [13] (section IV,
//! 50 data + 50 ACK packets).
//!
//! Only the buffer space is divided: each class is admitted against its own limit, so a
//! flood of ACKs can no longer push out data (and the reverse), while service stays
//! first come, first served across both classes, as in one shared FIFO. UDP datagrams
//! count as data.

use super::Queue;
use crate::net::{DropCause, Packet, PacketKind};
use crate::sim::Time;
use std::collections::VecDeque;

pub struct SplitQueue {
    packets: VecDeque<Packet>,
    data_limit: usize,
    ack_limit: usize,
    /// Optional limit on the bytes of both classes together.
    limit_bytes: Option<u64>,
    data_len: usize,
    ack_len: usize,
    bytes: u64,
}

impl SplitQueue {
    pub fn new(data_limit: usize, ack_limit: usize, limit_bytes: Option<u64>) -> Self {
        SplitQueue {
            packets: VecDeque::with_capacity((data_limit + ack_limit).min(4096)),
            data_limit,
            ack_limit,
            limit_bytes,
            data_len: 0,
            ack_len: 0,
            bytes: 0,
        }
    }

    /// (data packets, ACK packets) waiting.
    pub fn class_lens(&self) -> (usize, usize) {
        (self.data_len, self.ack_len)
    }
}

impl Queue for SplitQueue {
    fn enqueue(&mut self, pkt: Packet, _now: Time) -> Result<(), DropCause> {
        let is_ack = pkt.kind == PacketKind::Ack;
        let full = if is_ack {
            self.ack_len >= self.ack_limit
        } else {
            self.data_len >= self.data_limit
        };
        if full
            || self
                .limit_bytes
                .is_some_and(|b| self.bytes + pkt.size as u64 > b)
        {
            return Err(DropCause::BufferOverflow);
        }
        if is_ack {
            self.ack_len += 1;
        } else {
            self.data_len += 1;
        }
        self.bytes += pkt.size as u64;
        self.packets.push_back(pkt);
        Ok(())
    }

    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let p = self.packets.pop_front()?;
        if p.kind == PacketKind::Ack {
            self.ack_len -= 1;
        } else {
            self.data_len -= 1;
        }
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
        "split"
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("data_len", self.data_len as f64));
        out.push(("ack_len", self.ack_len as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::tests::pkt;

    fn ack() -> Packet {
        Packet {
            kind: PacketKind::Ack,
            ..pkt(40)
        }
    }

    #[test]
    fn each_class_has_its_own_limit_and_service_is_fifo() {
        let mut q = SplitQueue::new(2, 3, None);
        let t = Time::ZERO;
        assert!(q.enqueue(pkt(1000), t).is_ok());
        assert!(q.enqueue(pkt(1000), t).is_ok());
        assert_eq!(q.enqueue(pkt(1000), t), Err(DropCause::BufferOverflow));
        for _ in 0..3 {
            assert!(q.enqueue(ack(), t).is_ok());
        }
        assert_eq!(q.enqueue(ack(), t), Err(DropCause::BufferOverflow));
        assert_eq!(q.class_lens(), (2, 3));
        assert_eq!(q.bytes(), 2 * 1000 + 3 * 40);
        // First in, first out across classes: the two data packets came first.
        assert_eq!(q.dequeue(t).unwrap().kind, PacketKind::Data);
        assert!(q.enqueue(pkt(1000), t).is_ok(), "room for data again");
        let kinds: Vec<_> = std::iter::from_fn(|| q.dequeue(t).map(|p| p.kind)).collect();
        assert_eq!(
            kinds,
            [
                PacketKind::Data,
                PacketKind::Ack,
                PacketKind::Ack,
                PacketKind::Ack,
                PacketKind::Data
            ]
        );
        assert_eq!(q.class_lens(), (0, 0));
    }
}
