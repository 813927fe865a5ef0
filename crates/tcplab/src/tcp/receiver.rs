//! The TCP receiver: cumulative ACKs, an out-of-order buffer, optional delayed ACKs and a
//! fixed advertised window (NS-2's TCPSink / DelAckSink), and with the `linux` options
//! SACK and D-SACK blocks (RFC 2018, RFC 2883), the timestamp echo rule (RFC 7323) and
//! quick-ack mode (Linux `tcp_enter_quickack_mode`).

use super::ack_delay::AckDelay;
use super::app_reader::{AppReader, ReadEvent};
use super::autotune::ReceiveWindow;
use super::sack::{AckOptionLog, SackBlocks};
use super::sack_compress::{SackAck, SackCompressor};
use super::timer::{Fired, LazyTimer};
use super::TcpConfig;
use crate::net::{FlowId, NodeId, Packet, PacketKind};
use crate::sim::{RngStream, Time};
use std::collections::VecDeque;

/// The unit a Linux receiver offers its window in: 2^`rcv_wscale` bytes, 10 on the test bed
/// (its SYNs carry window scale 10; `tcp_select_initial_window` with its buffer limits).
const WSCALE_UNIT: u64 = 1 << 10;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReceiverStats {
    pub packets_received: u64,
    pub duplicates_received: u64,
    pub acks_sent: u64,
    /// Application bytes delivered in order.
    pub bytes_delivered: u64,
}

pub struct TcpReceiver {
    pub flow: FlowId,
    src: NodeId,
    dst: NodeId,
    rwnd: u32,
    /// Linux's growing window, when `rwnd_autotune` (else `rwnd` is fixed).
    autotune: Option<ReceiveWindow>,
    /// ACK at once a segment that finds room to widen the window (`rwnd_growth_ack`).
    growth_ack: bool,
    /// ACK at once a full-sized in-order segment with PSH (`push_ack`).
    push_ack: bool,
    header_bytes: u32,
    delayed_ack: bool,
    delack_timeout: Time,
    /// `ack_latency`: how long after the segment that calls for it an ACK leaves.
    ack_latency: AckDelay,
    /// When the ACK called for `ack_latency` ago leaves, if one is on its way.
    ack_due: Option<Time>,
    /// The application, if it does not read at once (`app_read`).
    reader: Option<AppReader>,
    /// The window Linux would have advertised in the last ACK, bytes (its `rcv_wnd`), for the
    /// reader's test. The ACKs themselves carry the window without unread data subtracted.
    /// Linux's rule never to shrink an offered window matters only once a measured clamp
    /// has fallen below the window offered (`rcv_truesize`, `held_window`): otherwise the soft
    /// limit and the buffer only grow, so only unread data could shrink it.
    window_at_ack: u64,
    /// The right edge of the last window offered, bytes from the flow's start (Linux
    /// `rcv_wup + rcv_wnd`); kept once the window can shrink (`held_window`).
    right_edge: u64,
    /// A full-sized segment with PSH waits for the read to be ACKed (`ICSK_ACK_PUSHED`).
    push_pending: bool,
    rcv_nxt: u32,
    /// `ooo[i]`: segment `rcv_nxt + i` has arrived (index 0 is always false).
    ooo: VecDeque<bool>,
    unacked_in_order: u32,
    delack: LazyTimer,
    /// Send time of the segment that will trigger the next ACK, echoed back.
    echo: Time,
    /// Timestamps: echo by RFC 7323 section 4.3 (TS.Recent) rather than the latest
    /// arrival's send time (NS-2's TCPSink).
    timestamps: bool,
    /// The cumulative point of the last ACK sent (RFC 7323's Last.ACK.sent).
    last_ack_sent: u32,
    /// SACK blocks to report, if SACK is on.
    sack: Option<SackBlocks>,
    /// Out-of-order data's ACKs held as Linux holds them (`sack_compress`, with SACK).
    compressor: Option<SackCompressor>,
    dsack: bool,
    /// Blocks per ACK: 4, or 3 beside the timestamp option (RFC 2018 section 3).
    max_blocks: usize,
    /// A duplicate segment to report in the next ACK's D-SACK block.
    duplicate: Option<u32>,
    /// The options of ACKs sent and not yet read by the sender.
    pub options: AckOptionLog,
    /// Immediate ACKs left in quick-ack mode, and how many the mode grants.
    quick: u32,
    quickack: u32,
    mss: u32,
    total: Option<(u32, u32)>,
    pub completed_at: Option<Time>,
    pub stats: ReceiverStats,
    pub outbox: Vec<Packet>,
    timer_request: Option<Time>,
    /// The reader's event to schedule, beside the delayed-ACK timer's.
    read_request: Option<Time>,
}

impl TcpReceiver {
    /// `src` is the receiver's own node, `dst` the sender's. `total` is (segments, payload
    /// of the last one) for a finite transfer.
    pub fn new(
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        cfg: &TcpConfig,
        total: Option<(u32, u32)>,
    ) -> Self {
        let autotune = cfg.rwnd_autotune.then(|| {
            ReceiveWindow::new(
                cfg.mss,
                u64::from(cfg.rwnd) * u64::from(cfg.mss),
                cfg.timestamps,
                cfg.rcv_truesize,
            )
        });
        let mut r = TcpReceiver {
            flow,
            src,
            dst,
            rwnd: autotune
                .as_ref()
                .map_or(cfg.rwnd, ReceiveWindow::window_segments),
            autotune,
            growth_ack: cfg.rwnd_growth_ack,
            push_ack: cfg.push_ack,
            header_bytes: cfg.header_bytes,
            delayed_ack: cfg.delayed_ack,
            delack_timeout: cfg.delack_timeout,
            ack_latency: AckDelay::new(cfg.ack_latency.as_ref()),
            ack_due: None,
            reader: AppReader::new(cfg.app_read.as_ref()),
            window_at_ack: 0,
            right_edge: 0,
            push_pending: false,
            rcv_nxt: 0,
            ooo: VecDeque::new(),
            unacked_in_order: 0,
            delack: LazyTimer::default(),
            echo: Time::ZERO,
            timestamps: cfg.timestamps,
            last_ack_sent: 0,
            sack: cfg.sack.then(SackBlocks::default),
            compressor: (cfg.sack && cfg.sack_compress).then(SackCompressor::default),
            dsack: cfg.sack && cfg.dsack,
            max_blocks: if cfg.timestamps { 3 } else { 4 },
            duplicate: None,
            options: AckOptionLog::default(),
            quick: cfg.quickack,
            quickack: cfg.quickack,
            mss: cfg.mss,
            total,
            completed_at: None,
            stats: ReceiverStats::default(),
            outbox: Vec::with_capacity(2),
            timer_request: None,
            read_request: None,
        };
        // The handshake advertised the window with nothing queued.
        r.window_at_ack = r.window_now(0);
        r.right_edge = u64::from(r.rwnd) * u64::from(r.mss);
        r
    }

    /// Prefetches what processing a segment reaches through pointers: the front of the
    /// out-of-order map and the outbox (world/prefetch.rs). It reads only this struct's
    /// own fields, which the caller has prefetched a little earlier.
    #[inline(always)]
    pub fn prefetch_buffers(&self) {
        use crate::sim::prefetch::{prefetch, prefetch_addr};
        if let Some(first) = self.ooo.front() {
            prefetch(first);
        }
        prefetch_addr(self.outbox.as_ptr() as *const u8);
    }

    pub fn rcv_nxt(&self) -> u32 {
        self.rcv_nxt
    }

    pub fn take_timer_request(&mut self) -> Option<Time> {
        self.timer_request.take()
    }

    /// The application's read to schedule (a receiver timer event too), if any.
    pub fn take_read_request(&mut self) -> Option<Time> {
        self.read_request.take()
    }

    fn payload_of(&self, seq: u32) -> u32 {
        match self.total {
            Some((n, last)) if seq + 1 == n => last,
            _ => self.mss,
        }
    }

    fn advance(&mut self, now: Time) {
        let p = self.payload_of(self.rcv_nxt) as u64;
        self.stats.bytes_delivered += p;
        self.rcv_nxt += 1;
        if let Some((n, _)) = self.total {
            if self.rcv_nxt == n && self.completed_at.is_none() {
                self.completed_at = Some(now);
            }
        }
    }

    /// The flow's own random stream, for an ACK latency drawn per ACK.
    pub fn set_random_stream(&mut self, rng: RngStream) {
        self.ack_latency.set_stream(rng);
    }

    /// The flow's own stream for the application's read latency, drawn per read.
    pub fn set_read_stream(&mut self, rng: RngStream) {
        if let Some(r) = &mut self.reader {
            r.set_stream(rng);
        }
    }

    /// Processes a data segment; ACKs go to the outbox.
    pub fn on_data(&mut self, now: Time, pkt: &Packet) {
        self.stats.packets_received += 1;
        let seq = pkt.seq;
        if !self.timestamps {
            self.echo = pkt.stamp;
        } else if seq <= self.last_ack_sent && seq >= self.rcv_nxt {
            // RFC 7323 section 4.3 (2): TS.Recent from a segment at or below the point
            // last acknowledged; an old duplicate is not accepted (Linux
            // `tcp_replace_ts_recent` runs only for acceptable segments).
            self.echo = pkt.stamp;
        }
        if seq == self.rcv_nxt {
            let had_gap = self.ooo.len() > 1;
            let payload = u64::from(self.payload_of(seq));
            self.advance(now);
            self.ooo.pop_front();
            while self.ooo.front() == Some(&true) {
                self.ooo.pop_front();
                self.advance(now);
            }
            if self.ooo.front() == Some(&false) && self.ooo.iter().all(|&b| !b) {
                self.ooo.clear();
            }
            if let Some(b) = &mut self.sack {
                b.advance(self.rcv_nxt);
            }
            if let Some(r) = &mut self.reader {
                self.read_request = r.on_readable(now, self.rcv_nxt - seq).or(self.read_request);
            }
            if had_gap && !self.ooo.is_empty() && self.rcv_nxt == seq + 1 {
                if let Some(c) = &mut self.compressor {
                    c.sent_at_once(self.rcv_nxt);
                }
            }
            let unread = self.unread_bytes(payload);
            if let Some(w) = &mut self.autotune {
                let room = w.on_in_order(now, pkt.stamp, self.stats.bytes_delivered, unread);
                self.rwnd = w.window_segments();
                // Linux `tcp_grow_window`: widening the window's soft limit sets
                // `icsk_ack.quick |= 1`, so `__tcp_ack_snd_check` ACKs this segment at once
                // (`tcp_in_quickack_mode`). In slow start, after right-sizing has raised the
                // buffer, Linux thus ACKs every segment (measured on the test bed).
                if room && self.growth_ack {
                    self.quick |= 1;
                }
            }
            // RFC 5681 section 4.2: delay only in-order data that fills no gap; never in
            // quick-ack mode (Linux `tcp_in_quickack_mode`).
            if self.delayed_ack && !had_gap && self.ooo.is_empty() && self.quick == 0 {
                self.unacked_in_order += 1;
                if self.ack_due.is_some() {
                    // Covered by the ACK already on its way.
                } else if self.reader.is_some() {
                    self.ack_or_wait_for_read(now, pkt, unread);
                } else if self.unacked_in_order >= 2 || self.pushed(pkt) {
                    self.ack_in_latency(now);
                } else if let Some(at) = self.delack.set(now + self.delack_timeout) {
                    self.timer_request = Some(at);
                }
            } else {
                self.send_ack(now);
            }
        } else if seq > self.rcv_nxt {
            let i = (seq - self.rcv_nxt) as usize;
            if self.ooo.len() <= i {
                self.ooo.resize(i + 1, false);
            }
            let again = self.ooo[i];
            if again {
                self.stats.duplicates_received += 1;
            }
            // Linux >= 5.8 (`tcp_sack_new_ofo_skb`): a segment that spreads the SACK blocks
            // first sends the ACK SACK compression holds, with the blocks as they were.
            if self.holding() && self.sack.as_ref().is_some_and(|b| b.spreads(seq)) {
                self.send_ack(now);
            }
            self.ooo[i] = true;
            if let Some(b) = &mut self.sack {
                b.insert(seq);
            }
            if again && self.dsack {
                // Linux `tcp_data_queue_ofo`: all the bits are present: a D-SACK block, and
                // (unlike a duplicate below the cumulative point) no quick-ack mode.
                self.duplicate = Some(seq);
            }
            self.ack_out_of_order(now);
        } else {
            self.stats.duplicates_received += 1;
            self.note_duplicate(seq);
            self.send_ack(now);
        }
    }

    /// Whether an in-order segment that could wait for a delayed ACK is ACKed for its PSH
    /// flag. Linux (>= 6.6, commit 4720852ed9af) marks a full-sized segment with PSH as
    /// pushed (`tcp_measure_rcv_mss` sets `ICSK_ACK_PUSHED`), and `tcp_cleanup_rbuf` sends
    /// the ACK as soon as the application has read all received data: at once with an
    /// application that reads at once, at the read with `app_read` (`on_read`). (Linux also
    /// marks segments shorter than the one before as pushed; not modelled.)
    fn pushed(&self, pkt: &Packet) -> bool {
        self.push_ack && pkt.push() && pkt.payload >= self.mss
    }

    /// In-order bytes not read yet, the segment of `payload` bytes just queued included (an
    /// application that reads at once has read all but that one).
    fn unread_bytes(&self, payload: u64) -> u64 {
        self.reader_unread_bytes().unwrap_or(payload)
    }

    /// In-order bytes the late application has not read yet (None: it reads at once).
    fn reader_unread_bytes(&self) -> Option<u64> {
        let mss = u64::from(self.mss);
        self.reader.as_ref().map(|r| u64::from(r.unread()) * mss)
    }

    /// What is left of the last window offered, bytes, once the window can shrink (the
    /// measured clamp fell below it, `autotune.rs`): Linux never moves the right edge back
    /// (`tcp_select_window`), and offers what is left rounded up to its window-scale unit
    /// (`ALIGN(cur_win, 1 << rcv_wscale)`; the bed's receiver scales by 2^10). With segments
    /// of under 1024 bytes an ACK of one segment thus offers the same window again (its edge
    /// one segment further), and the old window outlives the lowered clamp for about twenty
    /// segments (on the bed, 63 units until the ACK of the 16th segment, 56 from the 28th).
    /// None while the window only grows.
    fn held_window(&self) -> Option<u64> {
        if !self.autotune.as_ref().is_some_and(|w| w.lowered) {
            return None;
        }
        let left = self
            .right_edge
            .saturating_sub(u64::from(self.rcv_nxt) * u64::from(self.mss));
        Some(left.div_ceil(WSCALE_UNIT) * WSCALE_UNIT)
    }

    /// The window an ACK offers, in segments, once the window can shrink: the present one,
    /// or what is left of the last offer (`held` bytes) if that is more; its edge is kept for
    /// the next ACK. (While the window only grows the ACK offers `rwnd` and no edge is kept:
    /// nothing per ACK on that path.)
    fn offer_keeping_the_edge(&mut self, held: u64) -> u32 {
        let mss = u64::from(self.mss);
        let offered = (u64::from(self.rwnd) * mss).max(held);
        self.right_edge = u64::from(self.rcv_nxt) * mss + offered;
        u32::try_from(offered / mss).unwrap_or(u32::MAX)
    }

    /// The window an ACK would advertise with `unread` bytes not read yet (Linux
    /// `__tcp_select_window`: the soft limit, or the free space if that is smaller).
    fn window_now(&self, unread: u64) -> u64 {
        match &self.autotune {
            Some(w) => w.window_bytes().min(w.clamp_bytes().saturating_sub(unread)),
            None => (u64::from(self.rwnd) * u64::from(self.mss)).saturating_sub(unread),
        }
    }

    /// The delayed-ACK rule with an application that reads later (`app_read`). Linux
    /// `__tcp_ack_snd_check`: more than one full segment unacknowledged is ACKed at once
    /// only if the window would not shrink below the one last advertised; else, and for a
    /// pushed segment (`ICSK_ACK_PUSHED`, acted on in `tcp_cleanup_rbuf`), the ACK waits
    /// for the read, with the delayed-ACK timer as a bound.
    fn ack_or_wait_for_read(&mut self, now: Time, pkt: &Packet, unread: u64) {
        if self.unacked_in_order >= 2 && self.window_now(unread) >= self.window_at_ack {
            self.ack_in_latency(now);
            return;
        }
        self.push_pending |= self.pushed(pkt);
        if !self.delack.is_armed() {
            if let Some(at) = self.delack.set(now + self.delack_timeout) {
                self.timer_request = Some(at);
            }
        }
    }

    /// The application has read everything in order: Linux `tcp_cleanup_rbuf` sends the ACK
    /// that waited for it (more than one full segment unacknowledged, or a pushed one once
    /// nothing is queued, out-of-order data included). Its other reason, a read that at least
    /// doubles a window closed to under half the buffer, needs a nearly full buffer, which
    /// the reader's tens of microseconds never leave.
    fn on_read(&mut self, now: Time) {
        let pushed = self.push_pending && self.unacked_in_order > 0 && self.ooo.is_empty();
        let due = self.unacked_in_order >= 2 || pushed;
        if self.ack_due.is_none() && due {
            self.ack_in_latency(now);
        }
    }

    /// Sends the ACK the delayed-ACK rule calls for, `ack_latency` from now: segments
    /// that arrive meanwhile are covered by it. A host's receive path takes that long from
    /// a frame's arrival to the ACK's transmission and processes the frames that arrive
    /// meanwhile first (the test bed: one ACK for each group of 2-4 segments, about 75 us
    /// after the group's last; docs/kernel.md, "The receiver's ACK latency").
    fn ack_in_latency(&mut self, now: Time) {
        let Some(latency) = self.ack_latency.next() else {
            self.send_ack(now);
            return;
        };
        let due = now + latency;
        self.ack_due = Some(due);
        if let Some(at) = self.delack.set(due) {
            self.timer_request = Some(at);
        }
    }

    /// The ACK new out-of-order data calls for: at once (RFC 5681 section 4.2), unless
    /// Linux's SACK compression holds it (`sack_compress.rs`; quick-ack mode goes first, as
    /// in `__tcp_ack_snd_check`).
    fn ack_out_of_order(&mut self, now: Time) {
        let decision = match &mut self.compressor {
            Some(c) if self.quick == 0 => {
                let rtt = self.autotune.as_ref().and_then(ReceiveWindow::base_rtt);
                c.on_out_of_order(now, self.rcv_nxt, rtt)
            }
            _ => SackAck::Now,
        };
        match decision {
            SackAck::Now => self.send_ack(now),
            SackAck::Hold(Some(at)) => {
                if let Some(t) = self.delack.set(at) {
                    self.timer_request = Some(t);
                }
            }
            SackAck::Hold(None) => {}
        }
    }

    /// Whether SACK compression holds an ACK.
    fn holding(&self) -> bool {
        self.compressor
            .as_ref()
            .is_some_and(SackCompressor::holding)
    }

    /// A segment arrived twice: report it in a D-SACK block (RFC 2883) and acknowledge
    /// the next segments at once (Linux enters quick-ack mode on a duplicate).
    fn note_duplicate(&mut self, seq: u32) {
        if self.dsack {
            self.duplicate = Some(seq);
        }
        self.quick = self.quick.max(self.quickack);
    }

    fn send_ack(&mut self, now: Time) {
        let _ = now;
        self.unacked_in_order = 0;
        self.ack_due = None;
        self.push_pending = false;
        let held = self.held_window();
        if let Some(unread) = self.reader_unread_bytes() {
            self.window_at_ack = self.window_now(unread).max(held.unwrap_or(0));
        }
        let rwnd = match held {
            Some(held) => self.offer_keeping_the_edge(held),
            None => self.rwnd,
        };
        self.delack.cancel();
        if let Some(c) = &mut self.compressor {
            c.on_ack_sent();
        }
        self.stats.acks_sent += 1;
        self.quick = self.quick.saturating_sub(1);
        self.last_ack_sent = self.rcv_nxt;
        let (id, option_bytes) = match &self.sack {
            Some(b) => {
                let o = b.options(self.duplicate.take(), self.max_blocks);
                (self.options.push(o), o.wire_bytes())
            }
            None => (0, 0),
        };
        self.outbox.push(Packet {
            uid: 0,
            flow: self.flow,
            kind: PacketKind::Ack,
            src: self.src,
            dst: self.dst,
            hop: 0,
            seq: self.rcv_nxt.saturating_sub(1),
            ack: self.rcv_nxt,
            size: (self.header_bytes + option_bytes).max(1),
            payload: id,
            stamp: self.echo,
            flags: 0,
            rwnd,
        });
    }

    /// Handles the delayed-ACK timer event scheduled for `at`.
    pub fn on_timer(&mut self, at: Time, now: Time) {
        if let Some(r) = &mut self.reader {
            if r.on_timer(at, now) == ReadEvent::Read {
                self.on_read(now);
            }
        }
        match self.delack.fire(at, now) {
            Fired::Stale => {}
            Fired::Rearm(t) => self.timer_request = Some(t),
            Fired::Expired => {
                let held = self
                    .compressor
                    .as_ref()
                    .is_some_and(SackCompressor::holding);
                if self.unacked_in_order > 0 || held {
                    self.send_ack(now);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u32) -> Packet {
        Packet {
            uid: 0,
            flow: 0,
            kind: PacketKind::Data,
            src: 0,
            dst: 1,
            hop: 0,
            seq,
            ack: 0,
            size: 1040,
            payload: 1000,
            stamp: Time::ZERO,
            flags: 0,
            rwnd: 0,
        }
    }

    fn acks(r: &mut TcpReceiver) -> Vec<u32> {
        r.outbox.drain(..).map(|p| p.ack).collect()
    }

    #[test]
    fn cumulative_acks_with_reordering() {
        let mut r = TcpReceiver::new(0, 1, 0, &TcpConfig::default(), None);
        r.on_data(Time(1), &data(0));
        r.on_data(Time(2), &data(2));
        r.on_data(Time(3), &data(3));
        r.on_data(Time(4), &data(1));
        assert_eq!(acks(&mut r), vec![1, 1, 1, 4]);
        assert_eq!(r.stats.bytes_delivered, 4000);
        r.on_data(Time(5), &data(2));
        assert_eq!(acks(&mut r), vec![4]);
        assert_eq!(r.stats.duplicates_received, 1);
    }

    /// Segments 853 us apart behind a hole at 1 (`sack_compress`): the first three
    /// duplicate ACKs leave at once, the fourth and fifth wait for one ACK 1.1 ms after the
    /// fourth; the segment that fills the hole is ACKed at once and ends the hold.
    #[test]
    fn sack_compression_holds_the_acks_after_the_third_for_a_hole() {
        let cfg = TcpConfig {
            sack: true,
            sack_compress: true,
            ..TcpConfig::default()
        };
        let mut r = TcpReceiver::new(0, 1, 0, &cfg, None);
        let at = |i: u64| Time::from_micros(853 * i);
        r.on_data(at(0), &data(0));
        assert_eq!(acks(&mut r), vec![1]);
        for i in 2..=4 {
            r.on_data(at(i), &data(i as u32));
            assert_eq!(acks(&mut r), vec![1], "duplicate ACK {} at once", i - 1);
        }
        r.on_data(at(5), &data(5));
        let due = r.take_timer_request().expect("the compressed-ACK timer");
        assert_eq!(due, at(5) + Time::from_micros(1100));
        r.on_data(at(6), &data(6));
        assert!(r.outbox.is_empty() && r.take_timer_request().is_none());
        r.on_timer(due, due);
        assert_eq!(acks(&mut r), vec![1], "one ACK for the two held");
        r.on_data(at(7), &data(7));
        r.on_data(at(8), &data(1));
        assert_eq!(
            acks(&mut r),
            vec![8],
            "the hole filled: at once, holding nothing"
        );
        r.on_timer(
            at(7) + Time::from_micros(1100),
            at(7) + Time::from_micros(1100),
        );
        assert!(
            r.outbox.is_empty(),
            "the hold ended with the ACK that filled the hole"
        );
    }

    fn compressing_receiver() -> TcpReceiver {
        let cfg = TcpConfig {
            sack: true,
            dsack: true,
            sack_compress: true,
            quickack: 16,
            ..TcpConfig::default()
        };
        let mut r = TcpReceiver::new(0, 1, 0, &cfg, None);
        r.quick = 0; // past the connection's start
        r
    }

    /// Holes at 1 and 5 give two SACK blocks; holding the ACK of 7, a segment that opens a
    /// third block (9) first sends the held one, with the two blocks (Linux >= 5.8).
    #[test]
    fn a_segment_that_spreads_the_sack_blocks_sends_the_held_ack_first() {
        let mut r = compressing_receiver();
        for (i, seq) in [0, 2, 3, 4, 6, 7].into_iter().enumerate() {
            r.on_data(Time::from_micros(100 * i as u64), &data(seq));
        }
        // 0 at once (no delayed ACKs here), 2, 3 and 4 at once, 6 and 7 held.
        assert_eq!(acks(&mut r), vec![1, 1, 1, 1]);
        assert!(r.holding());
        r.on_data(Time::from_micros(700), &data(9));
        let sent: Vec<_> = r.outbox.drain(..).collect();
        assert_eq!(sent.len(), 1, "the held ACK, before 9 is held in turn");
        let blocks = r
            .options
            .peek(sent[0].options_id())
            .unwrap()
            .blocks()
            .to_vec();
        assert_eq!(blocks, vec![(6, 8), (2, 5)], "the blocks as they were");
        assert!(r.holding(), "9 is held");
    }

    /// A duplicate of out-of-order data is reported in a D-SACK block but, unlike a
    /// duplicate below the cumulative point, does not enter quick-ack mode: compression
    /// goes on (Linux `tcp_data_queue_ofo`).
    #[test]
    fn an_out_of_order_duplicate_is_dsacked_without_quick_ack_mode() {
        let mut r = compressing_receiver();
        for seq in [0, 2, 3, 4, 5] {
            r.on_data(Time(u64::from(seq)), &data(seq));
        }
        acks(&mut r);
        assert!(r.holding());
        r.on_data(Time(10), &data(3));
        assert!(
            r.outbox.is_empty() && r.quick == 0,
            "still held, no quick-ack mode"
        );
        r.on_data(Time(11), &data(0));
        assert_eq!(
            r.quick, 15,
            "a duplicate below the point enters quick-ack mode (16, one used)"
        );
    }

    /// A retransmission that fills one segment of a hole with others left is the first of
    /// the three at-once ACKs for the new point, as on Linux's compression path.
    #[test]
    fn a_partial_fill_by_one_segment_counts_as_the_first_of_three() {
        let mut r = compressing_receiver();
        for seq in [0, 3, 4, 5] {
            r.on_data(Time(u64::from(seq)), &data(seq));
        }
        assert_eq!(acks(&mut r), vec![1, 1, 1, 1]);
        r.on_data(Time(10), &data(1));
        assert_eq!(acks(&mut r), vec![2], "the fill is ACKed at once");
        r.on_data(Time(11), &data(6));
        r.on_data(Time(12), &data(7));
        assert_eq!(acks(&mut r), vec![2, 2], "two more at once, not three");
        r.on_data(Time(13), &data(8));
        assert!(r.outbox.is_empty() && r.holding());
    }

    #[test]
    fn delayed_acks_every_second_segment_or_timeout() {
        let cfg = TcpConfig {
            delayed_ack: true,
            ..TcpConfig::default()
        };
        let mut r = TcpReceiver::new(0, 1, 0, &cfg, None);
        r.on_data(Time(1), &data(0));
        assert!(r.outbox.is_empty());
        let at = r.take_timer_request().unwrap();
        r.on_data(Time(2), &data(1));
        assert_eq!(acks(&mut r), vec![2]);
        r.on_data(Time(3), &data(2));
        r.on_timer(at, at);
        assert!(
            r.outbox.is_empty(),
            "the first timer event was re-armed for the new deadline"
        );
        let next = r
            .take_timer_request()
            .unwrap_or(Time(3) + cfg.delack_timeout);
        r.on_timer(next, next);
        assert_eq!(acks(&mut r), vec![3]);
    }

    /// A delayed-ACK receiver whose ACKs take `ack_latency` (in nanoseconds).
    fn latent_receiver(ack_latency: u64) -> TcpReceiver {
        let cfg = TcpConfig {
            delayed_ack: true,
            ack_latency: Some(crate::config::DelaySpec::Fixed(crate::config::Seconds(
                ack_latency as f64 * 1e-9,
            ))),
            ..TcpConfig::default()
        };
        TcpReceiver::new(0, 1, 0, &cfg, None)
    }

    /// A delayed-ACK receiver whose application reads `read_us` after data becomes readable.
    fn reading_receiver(read_us: f64) -> TcpReceiver {
        let cfg = TcpConfig {
            delayed_ack: true,
            app_read: Some(crate::config::DelaySpec::Fixed(crate::config::Seconds(
                read_us * 1e-6,
            ))),
            ..TcpConfig::default()
        };
        TcpReceiver::new(0, 1, 0, &cfg, None)
    }

    /// Runs the receiver's timer events due by `until`, earliest first; returns the ACKs
    /// they send, with their times.
    fn run_timers(r: &mut TcpReceiver, pending: &mut Vec<Time>, until: Time) -> Vec<(Time, u32)> {
        let mut sent = vec![];
        pending.extend(r.take_timer_request());
        pending.extend(r.take_read_request());
        while let Some(&at) = pending.iter().min() {
            if at > until {
                break;
            }
            pending.retain(|&t| t != at);
            r.on_timer(at, at);
            sent.extend(r.outbox.drain(..).map(|p| (at, p.ack)));
            pending.extend(r.take_timer_request());
            pending.extend(r.take_read_request());
        }
        sent
    }

    /// With a fixed window, unread data shrinks it, so the second segment's ACK waits for
    /// the application's read (Linux `__tcp_ack_snd_check`, then `tcp_cleanup_rbuf`), and a
    /// burst that arrives before the read shares one ACK; a reader that reads at once ACKs
    /// every second segment as it arrives.
    #[test]
    fn with_a_late_reader_the_ack_waits_for_the_read_and_covers_the_burst() {
        let us = Time::from_micros;
        let arrivals = [
            (0, 0),
            (1000, 1),
            (2000, 2),
            (2010, 3),
            (2020, 4),
            (2030, 5),
        ];
        let mut r = reading_receiver(60.0);
        let (mut pending, mut sent) = (vec![], vec![]);
        for (t, seq) in arrivals {
            sent.extend(run_timers(&mut r, &mut pending, us(t)));
            r.on_data(us(t), &data(seq));
            assert!(r.outbox.is_empty(), "no ACK on the arrival of {seq}");
        }
        sent.extend(run_timers(&mut r, &mut pending, us(3000)));
        assert_eq!(
            sent,
            vec![(us(1060), 2), (us(2060), 6)],
            "one ACK per read that finds two or more unacknowledged"
        );
        let mut instant = TcpReceiver::new(
            0,
            1,
            0,
            &TcpConfig {
                delayed_ack: true,
                ..TcpConfig::default()
            },
            None,
        );
        for (t, seq) in arrivals {
            instant.on_data(us(t), &data(seq));
        }
        assert_eq!(acks(&mut instant), vec![2, 4, 6], "every second segment");
    }

    /// Linux's test is on the window: under autotuning, while the soft limit stays below
    /// the buffer's window by more than the unread data, that data does not shrink the
    /// window and the second segment is ACKed on arrival; with less room the ACK waits for
    /// the read.
    #[test]
    fn unread_data_holds_the_ack_only_if_it_would_shrink_the_window() {
        let second_acked_on_arrival = |window_mss: u32| {
            let mut r = reading_receiver(60.0);
            // The soft limit starts at 64 KB rounded down to the window's segments: 65,000
            // of 65,536 bytes for 1000-byte segments, 63,000 for 3000-byte ones.
            r.autotune = Some(ReceiveWindow::new(window_mss, 1_000_000, true, None));
            r.window_at_ack = r.window_now(0);
            r.growth_ack = false;
            r.quick = 0;
            r.on_data(Time::from_micros(0), &data(0));
            r.on_data(Time::from_micros(10), &data(1));
            let on_arrival = acks(&mut r);
            r.on_timer(Time::from_micros(60), Time::from_micros(60));
            (on_arrival, acks(&mut r))
        };
        assert_eq!(
            second_acked_on_arrival(3000),
            (vec![2], vec![]),
            "2,536 bytes of room: two unread segments leave the window whole"
        );
        assert_eq!(
            second_acked_on_arrival(1000),
            (vec![], vec![2]),
            "536 bytes of room: the ACK waits for the read"
        );
    }

    #[test]
    fn an_ack_in_its_latency_covers_the_segments_that_arrive_meanwhile() {
        let mut r = latent_receiver(75_000);
        r.on_data(Time(0), &data(0));
        r.take_timer_request();
        r.on_data(Time(10_000), &data(1));
        assert!(r.outbox.is_empty(), "the ACK is on its way, not sent");
        let due = r
            .take_timer_request()
            .expect("an event when the ACK leaves");
        assert_eq!(
            due,
            Time(85_000),
            "75 us after the segment that called for it"
        );
        r.on_data(Time(40_000), &data(2));
        r.on_data(Time(60_000), &data(3));
        assert!(r.outbox.is_empty());
        r.on_timer(due, due);
        assert_eq!(acks(&mut r), vec![4], "one ACK for all four");
        // The next pair starts afresh.
        r.on_data(Time(100_000), &data(4));
        r.on_data(Time(101_000), &data(5));
        let due = r.take_timer_request().unwrap();
        assert_eq!(due, Time(176_000));
        r.on_timer(due, due);
        assert_eq!(acks(&mut r), vec![6]);
        assert_eq!(r.stats.acks_sent, 2);
    }

    #[test]
    fn out_of_order_data_is_acked_at_once_even_in_the_latency() {
        let mut r = latent_receiver(75_000);
        r.on_data(Time(0), &data(0));
        r.on_data(Time(1_000), &data(1));
        let due = r.take_timer_request().unwrap();
        r.on_data(Time(2_000), &data(3));
        assert_eq!(acks(&mut r), vec![2], "at once, covering the pair");
        r.on_timer(due, due);
        assert!(r.outbox.is_empty(), "the ACK on its way was that one");
    }

    #[test]
    fn no_latency_acks_the_second_segment_at_once() {
        let mut r = latent_receiver(0);
        r.on_data(Time(0), &data(0));
        r.on_data(Time(1_000), &data(1));
        assert_eq!(acks(&mut r), vec![2]);
    }

    /// A delayed-ACK receiver with `push_ack` as given: which of `segments` (payload,
    /// PSH), arriving in order 1 ns apart, triggered an ACK at once.
    fn acked_at_once(push_ack: bool, segments: &[(u32, bool)]) -> Vec<bool> {
        let cfg = TcpConfig {
            delayed_ack: true,
            push_ack,
            ..TcpConfig::default()
        };
        let mut r = TcpReceiver::new(0, 1, 0, &cfg, None);
        let mut seq = 0;
        segments
            .iter()
            .map(|&(payload, push)| {
                let pkt = Packet {
                    payload,
                    flags: if push { Packet::PUSH } else { 0 },
                    ..data(seq)
                };
                seq += 1;
                r.on_data(Time(u64::from(seq)), &pkt);
                !r.outbox.drain(..).collect::<Vec<_>>().is_empty()
            })
            .collect()
    }

    #[test]
    fn a_full_sized_segment_with_psh_is_acked_at_once_with_push_ack() {
        // Alone, it is ACKed at once; the next segment starts a new pair.
        let pushed = [(1000, true), (1000, false), (1000, false)];
        assert_eq!(acked_at_once(true, &pushed), [true, false, true]);
        // Without PSH, or with push_ack off, it waits for a second segment.
        let plain = [(1000, false), (1000, false)];
        assert_eq!(acked_at_once(true, &plain), [false, true]);
        assert_eq!(acked_at_once(false, &pushed), [false, true, false]);
        // A short segment with PSH waits too (Linux's rule is for full-sized segments).
        assert_eq!(
            acked_at_once(true, &[(500, true), (1000, false)]),
            [false, true]
        );
    }

    #[test]
    fn a_psh_segment_left_waiting_is_acked_by_the_timer() {
        let cfg = TcpConfig {
            delayed_ack: true,
            push_ack: false,
            ..TcpConfig::default()
        };
        let mut r = TcpReceiver::new(0, 1, 0, &cfg, None);
        let pkt = Packet {
            flags: Packet::PUSH,
            ..data(0)
        };
        r.on_data(Time(1), &pkt);
        assert!(r.outbox.is_empty());
        let at = r.take_timer_request().expect("the delayed-ACK timer");
        r.on_timer(at, at);
        assert_eq!(acks(&mut r), vec![1]);
    }

    /// A Linux receiver (1000-byte segments, window at most `rwnd` segments) fed `n`
    /// segments 0.85 ms apart, each 20 ms on its way; per segment, the window of the ACK it
    /// triggered at once, if any.
    fn linux_receiver_acks(growth_ack: bool, rwnd: u32, n: u32) -> Vec<Option<u32>> {
        let options = crate::config::TcpOptions {
            stack: Some(crate::config::Stack::Linux),
            mss: Some(1000),
            rwnd: Some(rwnd),
            rwnd_growth_ack: Some(growth_ack),
            ..Default::default()
        };
        let mut r = TcpReceiver::new(0, 1, 0, &TcpConfig::from_options(&options), None);
        (0..n)
            .map(|seq| {
                let now = Time::from_millis(20) + Time(850_000 * u64::from(seq));
                let pkt = Packet {
                    stamp: now.saturating_sub(Time::from_millis(20)),
                    ..data(seq)
                };
                r.on_data(now, &pkt);
                let ack = r.outbox.drain(..).next_back();
                ack.map(|a| a.rwnd)
            })
            .collect()
    }

    /// A clamp lowered by the measured memory per segment (56 KB here) cannot pull back the
    /// edge already offered: ACKs of single segments offer the same window again, rounded up
    /// to 1 KB units, and only ACKs that advance further let it come down to the clamp.
    #[test]
    fn a_lowered_clamp_never_moves_the_offered_edge_back() {
        let options = crate::config::TcpOptions {
            stack: Some(crate::config::Stack::Linux),
            mss: Some(1000),
            rcv_truesize: Some(2280),
            ..Default::default()
        };
        let mut r = TcpReceiver::new(0, 1, 0, &TcpConfig::from_options(&options), None);
        let mut offers = vec![];
        for seq in 0..40u32 {
            let now = Time::from_millis(20) + Time(850_000 * u64::from(seq));
            let pkt = Packet {
                stamp: now.saturating_sub(Time::from_millis(20)),
                ..data(seq)
            };
            r.on_data(now, &pkt);
            r.on_timer(now + Time::from_millis(1), now + Time::from_millis(1));
            offers.extend(r.outbox.drain(..).map(|a| (a.ack, a.rwnd)));
        }
        let edges: Vec<u32> = offers.iter().map(|&(ack, rwnd)| ack + rwnd).collect();
        assert!(edges.windows(2).all(|w| w[1] >= w[0]), "{offers:?}");
        let (first_ack, first) = offers[0];
        assert!(
            first + first_ack >= 65,
            "the handshake's 65 segments held: {offers:?}"
        );
        let lowest = offers.iter().map(|&(_, w)| w).min().unwrap();
        assert!(
            lowest <= 60,
            "ACKs of two segments bring it down toward the clamp (57) until the first \
             right-sizing raises the clamp: {offers:?}"
        );
        // Without the memory per segment the window never falls below half the buffer.
        let plain = linux_receiver_acks(true, 100_000, 40);
        assert!(
            plain.iter().flatten().count() > 10,
            "ACKs to look at: {plain:?}"
        );
        assert!(plain.iter().flatten().all(|&w| w >= 65), "{plain:?}");
    }

    #[test]
    fn a_segment_that_finds_room_to_widen_the_window_is_acked_at_once() {
        let on = linux_receiver_acks(true, 100_000, 300);
        let off = linux_receiver_acks(false, 100_000, 300);
        // Both: 16 quick ACKs, then alike while the first window (64 KB, no room) holds.
        assert!(on[..16].iter().chain(&off[..16]).all(Option::is_some));
        let widened = on.iter().position(|a| a.is_some_and(|w| w > 65)).unwrap();
        assert!(widened > 16, "{on:?}");
        assert_eq!(
            on[..widened],
            off[..widened],
            "nothing to widen before right-sizing"
        );
        // Without the rule: never two ACKs in a row after the quick ACKs.
        assert!(
            off[16..]
                .windows(2)
                .all(|w| w[0].is_none() || w[1].is_none()),
            "{off:?}"
        );
        // With it: once right-sizing has raised the buffer, every segment is ACKed at once,
        // each ACK advertising a wider window than the one before.
        let first = 16
            + on[16..]
                .windows(2)
                .position(|w| w[0].is_some() && w[1].is_some())
                .unwrap();
        let run: Vec<u32> = on[first..].iter().map_while(|a| *a).collect();
        assert!(run.len() >= 40, "{on:?}");
        assert!(run.windows(2).all(|w| w[1] > w[0]), "{run:?}");
    }

    #[test]
    fn a_window_at_its_clamp_is_acked_every_second_segment_again() {
        // The scenario's window (80 segments) caps the clamp: no room once it is reached.
        let acks = linux_receiver_acks(true, 80, 400);
        let last_widening = acks
            .iter()
            .rposition(|a| a.is_some_and(|w| w < 80))
            .unwrap();
        assert!(last_widening < 300, "{acks:?}");
        assert!(
            acks[last_widening + 1..]
                .windows(2)
                .all(|w| w[0].is_none() || w[1].is_none()),
            "{acks:?}"
        );
        assert!(acks[last_widening + 1..].iter().any(Option::is_some));
    }

    #[test]
    fn finite_transfer_completes() {
        let mut r = TcpReceiver::new(0, 1, 0, &TcpConfig::default(), Some((2, 500)));
        r.on_data(Time(7), &data(1));
        r.on_data(Time(9), &data(0));
        assert_eq!(r.completed_at, Some(Time(9)));
        assert_eq!(r.stats.bytes_delivered, 1500);
    }
}
