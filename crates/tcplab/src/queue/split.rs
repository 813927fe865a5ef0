//! A buffer divided between data and ACK packets: the access-point queue of Ha & Choi
//! (GLOBECOM 2006), the solution that 004 compares as its ref. [13] (section IV,
//! 50 data + 50 ACK packets).
//!
//! Only the buffer space is divided: each class is admitted against its own limit, so a
//! flood of ACKs can no longer push out data (and the reverse), while service stays
//! first come, first served across both classes, as in one shared FIFO. UDP datagrams
//! count as data.

use super::{DropTail, Queue};
use crate::net::{DropCause, Packet, PacketKind};
use crate::sim::Time;

pub struct SplitQueue {
    /// Both classes in arrival order; its packet limit is the sum of the class limits and
    /// its byte limit, if any, covers both classes together.
    fifo: DropTail,
    data_limit: usize,
    ack_limit: usize,
    data_len: usize,
    ack_len: usize,
}

impl SplitQueue {
    pub fn new(data_limit: usize, ack_limit: usize, limit_bytes: Option<u64>) -> Self {
        SplitQueue {
            fifo: DropTail::new(data_limit + ack_limit, limit_bytes),
            data_limit,
            ack_limit,
            data_len: 0,
            ack_len: 0,
        }
    }

    /// (data packets, ACK packets) waiting.
    pub fn class_lens(&self) -> (usize, usize) {
        (self.data_len, self.ack_len)
    }

    fn class_len(&mut self, kind: PacketKind) -> &mut usize {
        if kind == PacketKind::Ack {
            &mut self.ack_len
        } else {
            &mut self.data_len
        }
    }
}

impl Queue for SplitQueue {
    fn enqueue(&mut self, pkt: Packet, now: Time) -> Result<(), DropCause> {
        let limit = if pkt.kind == PacketKind::Ack {
            self.ack_limit
        } else {
            self.data_limit
        };
        if *self.class_len(pkt.kind) >= limit {
            return Err(DropCause::BufferOverflow);
        }
        self.fifo.enqueue(pkt, now)?;
        *self.class_len(pkt.kind) += 1;
        Ok(())
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let p = self.fifo.dequeue(now)?;
        *self.class_len(p.kind) -= 1;
        Some(p)
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn for_each(&self, f: &mut dyn FnMut(&Packet)) {
        self.fifo.for_each(f)
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
