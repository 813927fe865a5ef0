//! The timestamp options a pcap trace shows (RFC 7323), for flows that use timestamps.
//!
//! The simulated packet carries one time: a data segment its send time (its TSval) and an
//! ACK the send time it echoes (its TSecr). The other two fields of the option exist only
//! on the wire, so they are kept here, by packet, while the packet is in flight: an ACK's
//! TSval is its receiver's clock when it left, and a data segment's TSecr is the TSval of
//! the latest ACK its sender had received when it left (Linux's `ts_recent`).

use crate::net::{Packet, PacketKind};
use crate::sim::Time;
use std::collections::HashMap;

/// A host's timestamp clock: milliseconds (Linux's `tcp_time_stamp_ts`, 1 kHz) plus a
/// per-connection, per-side offset as Linux's `tsoffset` adds.
pub(super) fn ts_clock(t: Time, offset: u32) -> u32 {
    offset.wrapping_add((t.nanos() / 1_000_000) as u32)
}

/// The in-flight packets' wire-only timestamp fields, by packet uid (a hashed lookup per
/// packet and capture, which only runs with pcap taps pay: the world calls in only when a
/// tap is open).
#[derive(Default)]
pub(super) struct WireStamps {
    /// An ACK's TSval, by packet uid.
    ack_tsval: HashMap<u32, u32>,
    /// A data segment's TSecr, by packet uid.
    data_tsecr: HashMap<u32, u32>,
    /// The TSval of the latest ACK each flow's sender received.
    recent: Vec<u32>,
}

impl WireStamps {
    /// `p` leaves its endpoint at `now`; `receiver_offset` is its flow's receiver clock offset.
    pub(super) fn sent(&mut self, p: &Packet, now: Time, receiver_offset: u32) {
        match p.kind {
            PacketKind::Ack => {
                self.ack_tsval.insert(p.uid, ts_clock(now, receiver_offset));
            }
            PacketKind::Data => {
                let recent = self.recent.get(p.flow as usize).copied().unwrap_or(0);
                self.data_tsecr.insert(p.uid, recent);
            }
            PacketKind::Datagram => {}
        }
    }

    /// `p` reached its endpoint: its fields are no longer needed, and an ACK's TSval
    /// becomes what its sender echoes next.
    pub(super) fn delivered(&mut self, p: &Packet) {
        if let Some(val) = self.forget(p) {
            if p.kind == PacketKind::Ack {
                let f = p.flow as usize;
                if self.recent.len() <= f {
                    self.recent.resize(f + 1, 0);
                }
                self.recent[f] = val;
            }
        }
    }

    /// `p` was dropped (or delivered): forgets its field, returning it.
    pub(super) fn forget(&mut self, p: &Packet) -> Option<u32> {
        match p.kind {
            PacketKind::Ack => self.ack_tsval.remove(&p.uid),
            PacketKind::Data => self.data_tsecr.remove(&p.uid),
            PacketKind::Datagram => None,
        }
    }

    /// The wire-only field of `p` (an ACK's TSval, a data segment's TSecr), 0 if unknown.
    pub(super) fn field(&self, p: &Packet) -> u32 {
        let map = match p.kind {
            PacketKind::Ack => &self.ack_tsval,
            PacketKind::Data => &self.data_tsecr,
            PacketKind::Datagram => return 0,
        };
        map.get(&p.uid).copied().unwrap_or(0)
    }

    /// Packets whose fields are still kept (tests: delivered and dropped ones are forgotten).
    #[cfg(test)]
    pub(super) fn kept(&self) -> usize {
        self.ack_tsval.len() + self.data_tsecr.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(kind: PacketKind, uid: u32) -> Packet {
        Packet {
            uid,
            flow: 0,
            kind,
            src: 0,
            dst: 1,
            hop: 0,
            seq: 0,
            ack: 0,
            size: 100,
            payload: 0,
            stamp: Time::ZERO,
            flags: 0,
            rwnd: 10,
        }
    }

    #[test]
    fn a_segment_echoes_the_latest_ack_its_sender_received() {
        let mut w = WireStamps::default();
        let ms = Time::from_millis;
        let data = packet(PacketKind::Data, 1);
        w.sent(&data, ms(0), 1000);
        assert_eq!(w.field(&data), 0, "no ACK has come back yet");
        let ack = packet(PacketKind::Ack, 2);
        w.sent(&ack, ms(40), 1000);
        assert_eq!(
            w.field(&ack),
            1040,
            "the receiver's clock when the ACK left"
        );
        w.delivered(&data);
        w.delivered(&ack);
        let next = packet(PacketKind::Data, 3);
        w.sent(&next, ms(60), 1000);
        assert_eq!(w.field(&next), 1040);
        // A dropped packet's field is forgotten too: nothing is kept for packets gone.
        w.forget(&next);
        assert_eq!(w.kept(), 0);
    }
}
