//! A UDP constant-bit-rate source (NS-2's `Application/Traffic/CBR` over a UDP agent):
//! fixed-size datagrams at fixed intervals while the flow is on.

use crate::net::{FlowId, NodeId, Packet, PacketKind};
use crate::sim::Time;

/// IPv4 (20) + UDP (8) header bytes inside a datagram's size.
pub const UDP_HEADER_BYTES: u32 = 28;

pub struct CbrSource {
    pub flow: FlowId,
    src: NodeId,
    dst: NodeId,
    /// Bytes on the wire per datagram, headers included.
    size: u32,
    /// Seconds between datagrams: `size * 8 / rate`.
    interval: f64,
    on: bool,
    /// Bumped at every start, so send events of an earlier on period are ignored.
    generation: u32,
    period_start: Time,
    sent_in_period: u64,
    next_seq: u32,
    /// Datagrams sent.
    pub sent: u64,
}

impl CbrSource {
    /// A source sending `size`-byte datagrams (on the wire) at `rate_bps` (bits of
    /// datagrams per second, as NS-2's `rate_`).
    pub fn new(flow: FlowId, src: NodeId, dst: NodeId, rate_bps: f64, size: u32) -> Self {
        CbrSource {
            flow,
            src,
            dst,
            size,
            interval: size as f64 * 8.0 / rate_bps,
            on: false,
            generation: 0,
            period_start: Time::ZERO,
            sent_in_period: 0,
            next_seq: 0,
            sent: 0,
        }
    }

    /// Turns the source on at `now`; returns the generation for the first send event,
    /// due at once (`None` if it was already on).
    pub fn start(&mut self, now: Time) -> Option<u32> {
        if self.on {
            return None;
        }
        self.on = true;
        self.generation = self.generation.wrapping_add(1);
        self.period_start = now;
        self.sent_in_period = 0;
        Some(self.generation)
    }

    pub fn stop(&mut self) {
        self.on = false;
    }

    /// Handles a send event of `generation` at `now`: the datagram to send and the time
    /// of the next event, or `None` for an event of a finished on period. Send times are
    /// computed from the period's start, so rounding never accumulates.
    pub fn on_send(&mut self, generation: u32, now: Time) -> Option<(Packet, Time)> {
        if !self.on || generation != self.generation {
            return None;
        }
        let pkt = Packet {
            uid: 0,
            flow: self.flow,
            kind: PacketKind::Datagram,
            src: self.src,
            dst: self.dst,
            hop: 0,
            seq: self.next_seq,
            ack: 0,
            size: self.size,
            payload: self.size.saturating_sub(UDP_HEADER_BYTES),
            stamp: now,
            flags: 0,
            rwnd: 0,
        };
        self.next_seq = self.next_seq.wrapping_add(1);
        self.sent += 1;
        self.sent_in_period += 1;
        let next =
            self.period_start + Time::from_secs_f64(self.sent_in_period as f64 * self.interval);
        Some((pkt, next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sends_at_exact_intervals_and_ignores_stale_events() {
        // 1000-byte datagrams at 3 Mb/s: one every 2.666.. ms.
        let mut s = CbrSource::new(0, 0, 1, 3e6, 1000);
        let g = s.start(Time::from_millis(10)).unwrap();
        let mut t = Time::from_millis(10);
        for _ in 0..3000 {
            let (p, next) = s.on_send(g, t).unwrap();
            assert_eq!(p.kind, PacketKind::Datagram);
            t = next;
        }
        // 3000 intervals of 8000/3e6 s = 8 s exactly, without drift.
        assert_eq!(t, Time::from_millis(8010));
        s.stop();
        assert!(s.on_send(g, t).is_none());
        let g2 = s.start(t).unwrap();
        assert!(s.on_send(g, t).is_none(), "an event of the old period");
        assert!(s.on_send(g2, t).is_some());
    }
}
