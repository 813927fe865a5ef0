//! One basic service set: the shared channel and the MAC of every interface (the access
//! point and its stations), driven by timer events and emitting deliveries and drops.
//!
//! The BSS is a sans-I/O state machine: the caller (the world's event loop, or the
//! [`super::harness::Harness`] in tests) feeds it packets and due timers and drains its
//! [`Outbox`] of new timers and MAC events. It knows nothing of TCP or routes.
//!
//! Frame exchange, basic access (9.2.5.1-9.2.5.4 of 802.11-1999): after the backoff the
//! sender transmits DATA; the receiver answers with an ACK after SIFS; a sender that sees
//! no ACK start within ACKTimeout doubles CW, draws a new backoff and retries, up to the
//! retry limit, then discards the frame. With `rts_cts` every DATA is preceded by
//! RTS/CTS and the duration fields set the NAV of the stations that overhear them.

use super::channel::{AirFrame, Channel, FrameKind, Reception};
use super::dcf::Contention;
use super::phy::{OfdmRate, PhyTiming};
use super::propagation::{dbm_to_mw, Position, Radio};
use super::IfaceId;
use crate::net::{DropCause, DropCounts, NodeId, Packet, PacketKind};
use crate::queue::Queue;
use crate::sim::{RngStream, Time};

/// MAC parameters of a BSS.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MacConfig {
    pub timing: PhyTiming,
    pub cw_min: u32,
    pub cw_max: u32,
    /// dot11ShortRetryLimit: attempts of a frame sent without RTS, or of its RTS (7).
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit: attempts of a DATA frame sent after RTS/CTS (4).
    pub long_retry_limit: u32,
    pub rts_cts: bool,
    /// Use EIFS after a frame that could not be decoded (9.2.3.4); off gives the plain
    /// DIFS of Bianchi's model.
    pub eifs: bool,
}

impl MacConfig {
    /// 004 table I: 54 Mb/s, slot 9 us, SIFS 16 us, DIFS 34 us, CWmin 15, CWmax 1023;
    /// ACKs at 24 Mb/s (the highest mandatory rate not above 54, 9.6), retry limit 7,
    /// basic access.
    pub fn table_i() -> Self {
        MacConfig {
            timing: PhyTiming {
                data_rate: OfdmRate::from_bps(54e6).expect("802.11a rate"),
                basic_rate: OfdmRate::from_bps(24e6).expect("802.11a rate"),
                slot: Time::from_micros(9),
                sifs: Time::from_micros(16),
                difs: Time::from_micros(34),
                cca_time: Time::from_micros(4),
            },
            cw_min: 15,
            cw_max: 1023,
            short_retry_limit: 7,
            long_retry_limit: 4,
            rts_cts: false,
            eifs: true,
        }
    }
}

/// What is needed to set up one interface.
pub struct IfaceSetup {
    pub name: String,
    pub node: NodeId,
    pub position: Position,
    pub queue: Box<dyn Queue>,
    /// The interframe space before backoff: DIFS, or PIFS for an AP with that option.
    pub ifs: Time,
    /// Draw random backoffs (false: always zero, an option for the AP).
    pub random_backoff: bool,
    pub rng: RngStream,
}

/// Which MAC timer fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// The backoff counter reaches zero.
    Access,
    /// A frame leaves the air (token: frame id).
    AirEnd,
    /// ACK or CTS timeout.
    Timeout,
    /// SIFS after a reception: send the ACK, CTS or (after a CTS) the DATA.
    Respond,
}

/// A MAC timer event, to be handed back to [`Bss::on_timer`] when due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WifiTimer {
    pub bss: u16,
    pub iface: IfaceId,
    pub kind: TimerKind,
    pub token: u64,
}

/// What the MAC hands to the network layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MacEvent {
    /// First correct reception of a data frame at `to`: its packet goes on.
    Delivered {
        packet: Packet,
        from: IfaceId,
        to: IfaceId,
    },
    /// The packet was discarded at `from` after the retry limit.
    Dropped {
        packet: Packet,
        from: IfaceId,
        to: IfaceId,
        cause: DropCause,
    },
}

/// New timers and MAC events since the caller last drained it.
#[derive(Debug, Default)]
pub struct Outbox {
    pub timers: Vec<(Time, WifiTimer)>,
    pub events: Vec<MacEvent>,
}

/// Counters of one interface.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IfaceStats {
    pub enqueued: u64,
    /// DATA transmissions, first attempts and retries.
    pub attempts: u64,
    pub rts_attempts: u64,
    /// Frames acknowledged.
    pub acked: u64,
    pub acked_bytes: u64,
    /// Attempts whose ACK (or CTS) did not come.
    pub failures: u64,
    /// Own DATA or RTS frames that overlapped another frame on the air.
    pub collisions: u64,
    /// Drops of data packets and of TCP ACKs, by cause (queue overflow, retry limit).
    pub drops_data: DropCounts,
    pub drops_ack: DropCounts,
    /// Frames discarded at the retry limit although the receiver had them (lost MAC ACKs).
    pub discarded_after_delivery: u64,
    /// Received DATA frames that were retransmissions of one already delivered.
    pub duplicates: u64,
    /// Wireless delay of acknowledged frames (head of the MAC queue to ACK), seconds.
    pub delay_sum: f64,
    pub delay_sq_sum: f64,
    pub delay_max: f64,
    pub max_queue: u64,
}

impl IfaceStats {
    fn add_drop(&mut self, p: &Packet, cause: DropCause) {
        if p.kind == PacketKind::Ack {
            self.drops_ack.add(cause)
        } else {
            self.drops_data.add(cause)
        }
    }
}

/// Per-frame wireless delays, when asked for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameLog {
    /// When the ACK arrived, seconds.
    pub time: Vec<f64>,
    pub iface: Vec<IfaceId>,
    /// Head of the MAC queue to ACK, seconds.
    pub delay: Vec<f64>,
    /// Transmissions it took.
    pub attempts: Vec<u32>,
}

/// The frame at the head of an interface: being contended for, sent or retried.
#[derive(Clone, Copy, Debug)]
struct TxFrame {
    packet: Packet,
    to: IfaceId,
    /// When it reached the head of the MAC queue.
    since: Time,
    attempts: u32,
    short_retries: u32,
    long_retries: u32,
    /// The receiver already has it (its ACK was lost): ground truth for accounting.
    delivered: bool,
}

/// Where an interface is in a frame exchange it started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Not in an exchange (possibly contending).
    Idle,
    SendingRts,
    AwaitCts,
    SendingData,
    AwaitAck,
}

/// A response due SIFS after a reception.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Response {
    Ack {
        to: IfaceId,
    },
    Cts {
        to: IfaceId,
        nav: Time,
    },
    /// The DATA frame of our own exchange, after its CTS.
    Data,
}

struct Iface {
    name: String,
    node: NodeId,
    position: Position,
    queue: Box<dyn Queue>,
    hol: Option<TxFrame>,
    phase: Phase,
    dcf: Contention,
    ifs: Time,
    rng: RngStream,
    response: Option<Response>,
    timeout_gen: u64,
    /// Uid of the last data frame received from each interface (duplicate detection with
    /// the sequence-number cache of 9.2.9).
    last_uid_from: Vec<u64>,
    stats: IfaceStats,
}

/// One BSS: interface 0 is the access point, 1.. its stations.
pub struct Bss {
    index: u16,
    cfg: MacConfig,
    channel: Channel,
    ifaces: Vec<Iface>,
    /// Interface of each node of the network, if it has one here (AP forwarding table).
    iface_of_node: Vec<Option<IfaceId>>,
    /// SIFS + CCA time is below every interface's IFS: nobody can take the medium in the
    /// SIFS gap before a response, so resuming backoffs there is needless work.
    sifs_gap_protected: bool,
    pub outbox: Outbox,
    frame_log: Option<FrameLog>,
    scratch_ifaces: Vec<IfaceId>,
    scratch_rx: Vec<Reception>,
}

/// The access point's interface index.
pub const AP: IfaceId = 0;

impl Bss {
    /// A BSS of the given interfaces (the first is the AP). `nodes` is the number of
    /// nodes in the network, for the AP's forwarding table.
    pub fn new(
        index: u16,
        cfg: MacConfig,
        radio: &Radio,
        setups: Vec<IfaceSetup>,
        nodes: usize,
        frame_log: bool,
    ) -> Self {
        let n = setups.len();
        let mut power = vec![0.0; n * n];
        for (t, a) in setups.iter().enumerate() {
            for (r, b) in setups.iter().enumerate() {
                if t != r {
                    let d = a.position.distance_to(&b.position);
                    power[t * n + r] = dbm_to_mw(radio.rx_power_dbm(d));
                }
            }
        }
        let channel = Channel::new(
            n,
            power,
            dbm_to_mw(radio.cs_threshold_dbm),
            dbm_to_mw(radio.noise_dbm),
            radio.capture_ratio(),
            cfg.timing.cca_time,
        );
        let mut iface_of_node = vec![None; nodes];
        for (i, s) in setups.iter().enumerate() {
            if let Some(slot) = iface_of_node.get_mut(s.node as usize) {
                *slot = Some(i as IfaceId);
            }
        }
        let min_ifs = setups
            .iter()
            .map(|s| s.ifs)
            .min()
            .unwrap_or(cfg.timing.difs);
        let ifaces = setups
            .into_iter()
            .map(|s| Iface {
                name: s.name,
                node: s.node,
                position: s.position,
                queue: s.queue,
                hol: None,
                phase: Phase::Idle,
                dcf: Contention::new(cfg.cw_min, cfg.cw_max, s.random_backoff),
                ifs: s.ifs,
                rng: s.rng,
                response: None,
                timeout_gen: 0,
                last_uid_from: vec![u64::MAX; n],
                stats: IfaceStats::default(),
            })
            .collect();
        Bss {
            index,
            cfg,
            channel,
            ifaces,
            iface_of_node,
            sifs_gap_protected: cfg.timing.sifs + cfg.timing.cca_time < min_ifs,
            outbox: Outbox::default(),
            frame_log: frame_log.then(FrameLog::default),
            scratch_ifaces: Vec::new(),
            scratch_rx: Vec::new(),
        }
    }

    pub fn config(&self) -> &MacConfig {
        &self.cfg
    }

    pub fn len(&self) -> usize {
        self.ifaces.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ifaces.is_empty()
    }

    pub fn name(&self, i: IfaceId) -> &str {
        &self.ifaces[i as usize].name
    }

    pub fn node(&self, i: IfaceId) -> NodeId {
        self.ifaces[i as usize].node
    }

    pub fn position(&self, i: IfaceId) -> Position {
        self.ifaces[i as usize].position
    }

    pub fn stats(&self, i: IfaceId) -> &IfaceStats {
        &self.ifaces[i as usize].stats
    }

    pub fn queue(&self, i: IfaceId) -> &dyn Queue {
        self.ifaces[i as usize].queue.as_ref()
    }

    /// When interface `i`'s backoff counter will reach zero, if it is counting now.
    pub fn access_at(&self, i: IfaceId) -> Option<Time> {
        self.ifaces[i as usize].dcf.access_at()
    }

    pub fn frame_log(&self) -> Option<&FrameLog> {
        self.frame_log.as_ref()
    }

    pub fn take_frame_log(&mut self) -> Option<FrameLog> {
        self.frame_log.take()
    }

    /// The interface a frame from `from` carrying `p` is addressed to: a station sends
    /// everything to its AP; the AP sends to the station that is the packet's destination
    /// (the distribution system of an infrastructure BSS, 5.2.2).
    pub fn next_hop(&self, from: IfaceId, p: &Packet) -> Option<IfaceId> {
        self.next_hop_to(from, p.dst)
    }

    /// The interface that `from` sends packets for node `dst` to.
    pub fn next_hop_to(&self, from: IfaceId, dst: NodeId) -> Option<IfaceId> {
        if from != AP {
            return Some(AP);
        }
        self.iface_of_node
            .get(dst as usize)
            .copied()
            .flatten()
            .filter(|&i| i != AP)
    }

    /// Every packet the MAC holds and the network has not yet received: queued ones and
    /// frames in service that the receiver has not decoded.
    pub fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        for i in &self.ifaces {
            i.queue.for_each(f);
            if let Some(h) = i.hol.filter(|h| !h.delivered) {
                f(&h.packet);
            }
        }
    }

    /// Data packets and TCP ACKs waiting in an interface's queue.
    pub fn queue_census(&self, i: IfaceId) -> (u32, u32) {
        let mut n = (0, 0);
        self.ifaces[i as usize].queue.for_each(&mut |p| {
            if p.kind == PacketKind::Ack {
                n.1 += 1
            } else {
                n.0 += 1
            }
        });
        n
    }

    fn timer(&mut self, at: Time, iface: IfaceId, kind: TimerKind, token: u64) {
        self.outbox.timers.push((
            at,
            WifiTimer {
                bss: self.index,
                iface,
                kind,
                token,
            },
        ));
    }

    /// Offers a packet to interface `i`'s queue. On `Err` the packet was not stored.
    pub fn enqueue(&mut self, now: Time, i: IfaceId, p: Packet) -> Result<(), DropCause> {
        let f = &mut self.ifaces[i as usize];
        if let Err(cause) = f.queue.enqueue(p, now) {
            f.stats.add_drop(&p, cause);
            return Err(cause);
        }
        f.stats.enqueued += 1;
        f.stats.max_queue = f.stats.max_queue.max(f.queue.len() as u64);
        if f.hol.is_none() {
            self.load_next(i, now);
            let m = &self.channel.media[i as usize];
            let idle = m.is_idle() && m.nav_until <= now;
            let f = &mut self.ifaces[i as usize];
            if f.phase == Phase::Idle && !f.dcf.is_contending() {
                if idle {
                    f.dcf.start_without_backoff();
                } else {
                    f.dcf.draw(&mut f.rng);
                }
                self.try_resume(i, now);
            }
        }
        Ok(())
    }

    /// Handles a due timer.
    pub fn on_timer(&mut self, now: Time, t: WifiTimer) {
        match t.kind {
            TimerKind::Access => self.on_access(now, t.iface, t.token),
            TimerKind::AirEnd => self.on_air_end(now, t.token),
            TimerKind::Timeout => self.on_timeout(now, t.iface, t.token),
            TimerKind::Respond => self.on_respond(now, t.iface),
        }
    }

    fn load_next(&mut self, i: IfaceId, now: Time) {
        let Some(p) = self.ifaces[i as usize].queue.dequeue(now) else {
            return;
        };
        // Routes are checked against the forwarding table when the world is built.
        let to = self.next_hop(i, &p).unwrap_or(AP);
        self.ifaces[i as usize].hol = Some(TxFrame {
            packet: p,
            to,
            since: now,
            attempts: 0,
            short_retries: 0,
            long_retries: 0,
            delivered: false,
        });
    }

    /// Starts (or restarts) the backoff countdown of `i` if it contends and its medium is
    /// idle: the first slot begins an IFS after the medium became idle (physically and by
    /// NAV), EIFS if the last frame it received was not decodable, never in the past.
    fn try_resume(&mut self, i: IfaceId, now: Time) {
        let m = &self.channel.media[i as usize];
        let f = &self.ifaces[i as usize];
        if f.phase != Phase::Idle
            || !m.is_idle()
            || !f.dcf.is_contending()
            || f.dcf.access_at().is_some()
        {
            return;
        }
        let ifs = if self.cfg.eifs && m.last_rx_failed {
            self.cfg.timing.eifs(f.ifs)
        } else {
            f.ifs
        };
        let from = (m.idle_since.max(m.nav_until) + ifs).max(now);
        let slot = self.cfg.timing.slot;
        if let Some((at, gen)) = self.ifaces[i as usize].dcf.resume(from, slot) {
            self.timer(at, i, TimerKind::Access, gen as u64);
        }
    }

    fn on_access(&mut self, now: Time, i: IfaceId, gen: u64) {
        let f = &mut self.ifaces[i as usize];
        if !f.dcf.is_access(now, gen as u32) {
            return;
        }
        if self.channel.media[i as usize].transmitting {
            f.dcf.pause();
            return;
        }
        f.dcf.granted();
        if f.hol.is_none() {
            // Post-backoff done with nothing to send.
            return;
        }
        if self.cfg.rts_cts {
            self.send_rts(now, i);
        } else {
            self.send_data(now, i);
        }
    }

    fn send_rts(&mut self, now: Time, i: IfaceId) {
        let t = self.cfg.timing;
        let f = &mut self.ifaces[i as usize];
        let h = f.hol.as_mut().expect("frame in service");
        f.phase = Phase::SendingRts;
        f.stats.rts_attempts += 1;
        let (to, size) = (h.to, h.packet.size);
        // Duration: CTS + DATA + ACK and three SIFS (7.2.1.1).
        let nav = Time(3 * t.sifs.0) + t.cts_time() + t.data_time(size) + t.ack_time();
        self.transmit(
            now,
            FrameKind::Rts,
            i,
            to,
            t.rts_time(),
            nav,
            t.basic_rate,
            u64::MAX,
        );
    }

    fn send_data(&mut self, now: Time, i: IfaceId) {
        let t = self.cfg.timing;
        let f = &mut self.ifaces[i as usize];
        let h = f.hol.as_mut().expect("frame in service");
        h.attempts += 1;
        f.stats.attempts += 1;
        f.phase = Phase::SendingData;
        let (to, size, uid) = (h.to, h.packet.size, h.packet.uid);
        // Duration: ACK + SIFS (7.2.2).
        let nav = t.sifs + t.ack_time();
        self.transmit(
            now,
            FrameKind::Data,
            i,
            to,
            t.data_time(size),
            nav,
            t.data_rate,
            uid,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn transmit(
        &mut self,
        now: Time,
        kind: FrameKind,
        src: IfaceId,
        dst: IfaceId,
        duration: Time,
        nav: Time,
        rate: OfdmRate,
        uid: u64,
    ) {
        let mut busy = std::mem::take(&mut self.scratch_ifaces);
        busy.clear();
        let frame = self
            .channel
            .start(now, kind, src, dst, duration, nav, rate, uid, &mut busy);
        let (cca, slot) = (self.cfg.timing.cca_time, self.cfg.timing.slot);
        for &x in &busy {
            let sense_delay = if x == src { Time::ZERO } else { cca };
            // A station whose slot ends before it senses this carrier keeps its access
            // and transmits too: a collision.
            self.ifaces[x as usize].dcf.freeze(now, sense_delay, slot);
        }
        self.scratch_ifaces = busy;
        self.timer(frame.end, src, TimerKind::AirEnd, frame.id);
    }

    fn on_air_end(&mut self, now: Time, id: u64) {
        let mut rx = std::mem::take(&mut self.scratch_rx);
        let mut idle = std::mem::take(&mut self.scratch_ifaces);
        rx.clear();
        idle.clear();
        let Some(frame) = self.channel.end(now, id, &mut rx, &mut idle) else {
            self.scratch_rx = rx;
            self.scratch_ifaces = idle;
            return;
        };
        self.sender_done(now, &frame);
        let mut responder = None;
        for r in &rx {
            if !r.decoded {
                continue;
            }
            if frame.dst == r.at {
                if self.on_addressed(now, r.at, &frame) {
                    responder = Some(r.at);
                }
            } else {
                // Virtual carrier sense from the duration field (9.2.5.4).
                let m = &mut self.channel.media[r.at as usize];
                m.nav_until = m.nav_until.max(now + frame.nav);
            }
        }
        // A response that arrived but could not be decoded: the exchange failed (9.2.8).
        let d = frame.dst as usize;
        let awaited = match frame.kind {
            FrameKind::Ack => Phase::AwaitAck,
            FrameKind::Cts => Phase::AwaitCts,
            _ => Phase::Idle,
        };
        if awaited != Phase::Idle
            && self.ifaces[d].phase == awaited
            && self.ifaces[d].hol.is_some_and(|h| h.to == frame.src)
        {
            self.fail(now, frame.dst);
        }
        for &x in &idle {
            // Whoever will sense the response SIFS from now would only freeze again with
            // no slot counted: skip the work. Stations that cannot hear the responder
            // (hidden from it) resume now.
            let skip = self.sifs_gap_protected
                && responder.is_some_and(|r| r == x || self.channel.sensed_by(r, x));
            if !skip {
                self.try_resume(x, now);
            }
        }
        self.scratch_rx = rx;
        self.scratch_ifaces = idle;
    }

    /// The sender of `frame` finished transmitting it.
    fn sender_done(&mut self, now: Time, frame: &AirFrame) {
        let timeout = now + self.cfg.timing.response_timeout();
        let f = &mut self.ifaces[frame.src as usize];
        let next = match (frame.kind, f.phase) {
            (FrameKind::Data, Phase::SendingData) => Phase::AwaitAck,
            (FrameKind::Rts, Phase::SendingRts) => Phase::AwaitCts,
            _ => return,
        };
        if frame.overlapped {
            f.stats.collisions += 1;
        }
        f.phase = next;
        f.timeout_gen += 1;
        let gen = f.timeout_gen;
        self.timer(timeout, frame.src, TimerKind::Timeout, gen);
    }

    /// `x` decoded a frame addressed to it. Returns whether a response is now due.
    fn on_addressed(&mut self, now: Time, x: IfaceId, frame: &AirFrame) -> bool {
        let t = self.cfg.timing;
        match frame.kind {
            FrameKind::Data => {
                let src = frame.src;
                let rx = &mut self.ifaces[x as usize];
                if rx.last_uid_from[src as usize] == frame.uid {
                    rx.stats.duplicates += 1;
                } else {
                    rx.last_uid_from[src as usize] = frame.uid;
                    let sender = &mut self.ifaces[src as usize];
                    if let Some(h) = sender.hol.as_mut().filter(|h| h.packet.uid == frame.uid) {
                        h.delivered = true;
                        self.outbox.events.push(MacEvent::Delivered {
                            packet: h.packet,
                            from: src,
                            to: x,
                        });
                    }
                }
                self.respond(now + t.sifs, x, Response::Ack { to: src });
                true
            }
            FrameKind::Rts => {
                // A station whose NAV is set does not answer an RTS (9.2.5.7).
                if self.channel.media[x as usize].nav_until > now {
                    return false;
                }
                let nav = frame.nav.saturating_sub(t.sifs + t.cts_time());
                self.respond(now + t.sifs, x, Response::Cts { to: frame.src, nav });
                true
            }
            FrameKind::Cts => {
                let f = &mut self.ifaces[x as usize];
                if f.phase != Phase::AwaitCts || f.hol.is_none_or(|h| h.to != frame.src) {
                    return false;
                }
                f.timeout_gen += 1;
                f.phase = Phase::SendingData;
                self.respond(now + t.sifs, x, Response::Data);
                true
            }
            FrameKind::Ack => {
                let f = &self.ifaces[x as usize];
                if f.phase == Phase::AwaitAck && f.hol.is_some_and(|h| h.to == frame.src) {
                    self.succeed(now, x);
                }
                false
            }
        }
    }

    fn respond(&mut self, at: Time, x: IfaceId, r: Response) {
        self.ifaces[x as usize].response = Some(r);
        self.timer(at, x, TimerKind::Respond, 0);
    }

    fn on_respond(&mut self, now: Time, x: IfaceId) {
        let Some(r) = self.ifaces[x as usize].response.take() else {
            return;
        };
        if self.channel.media[x as usize].transmitting {
            return;
        }
        let t = self.cfg.timing;
        match r {
            // Responses go out SIFS after the frame regardless of the medium (9.2.8).
            Response::Ack { to } => self.transmit(
                now,
                FrameKind::Ack,
                x,
                to,
                t.ack_time(),
                Time::ZERO,
                t.basic_rate,
                u64::MAX,
            ),
            Response::Cts { to, nav } => self.transmit(
                now,
                FrameKind::Cts,
                x,
                to,
                t.cts_time(),
                nav,
                t.basic_rate,
                u64::MAX,
            ),
            Response::Data => self.send_data(now, x),
        }
    }

    fn on_timeout(&mut self, now: Time, x: IfaceId, gen: u64) {
        let f = &self.ifaces[x as usize];
        if f.timeout_gen != gen {
            return;
        }
        let kind = match f.phase {
            Phase::AwaitAck => FrameKind::Ack,
            Phase::AwaitCts => FrameKind::Cts,
            _ => return,
        };
        let peer = f.hol.map_or(AP, |h| h.to);
        // A response already on the air is judged when it ends.
        if self.channel.carrying(kind, peer, x) {
            return;
        }
        self.fail(now, x);
    }

    /// The exchange of `x` failed: retry with a doubled window, or discard at the limit.
    fn fail(&mut self, now: Time, x: IfaceId) {
        let long = self.cfg.rts_cts;
        let (short_limit, long_limit) = (self.cfg.short_retry_limit, self.cfg.long_retry_limit);
        let f = &mut self.ifaces[x as usize];
        let Some(h) = f.hol.as_mut() else {
            f.phase = Phase::Idle;
            return;
        };
        f.stats.failures += 1;
        let exhausted = if f.phase == Phase::AwaitAck && long {
            h.long_retries += 1;
            h.long_retries >= long_limit
        } else {
            h.short_retries += 1;
            h.short_retries >= short_limit
        };
        f.phase = Phase::Idle;
        f.timeout_gen += 1;
        if exhausted {
            let h = f.hol.take().expect("frame in service");
            f.dcf.reset_cw();
            if h.delivered {
                f.stats.discarded_after_delivery += 1;
            } else {
                let cause = DropCause::WirelessRetryLimit;
                f.stats.add_drop(&h.packet, cause);
                self.outbox.events.push(MacEvent::Dropped {
                    packet: h.packet,
                    from: x,
                    to: h.to,
                    cause,
                });
            }
            self.load_next(x, now);
        } else {
            f.dcf.double_cw();
        }
        let f = &mut self.ifaces[x as usize];
        f.dcf.draw(&mut f.rng);
        // The failed sender counts its IFS from the moment it gave up on the response.
        let m = &mut self.channel.media[x as usize];
        if m.is_idle() {
            m.idle_since = m.idle_since.max(now);
        }
        self.try_resume(x, now);
    }

    /// `x` received the ACK of its frame.
    fn succeed(&mut self, now: Time, x: IfaceId) {
        let f = &mut self.ifaces[x as usize];
        let h = f.hol.take().expect("frame in service");
        f.phase = Phase::Idle;
        f.timeout_gen += 1;
        let delay = (now - h.since).as_secs_f64();
        let s = &mut f.stats;
        s.acked += 1;
        s.acked_bytes += h.packet.size as u64;
        s.delay_sum += delay;
        s.delay_sq_sum += delay * delay;
        s.delay_max = s.delay_max.max(delay);
        if let Some(log) = &mut self.frame_log {
            log.time.push(now.as_secs_f64());
            log.iface.push(x);
            log.delay.push(delay);
            log.attempts.push(h.attempts);
        }
        f.dcf.reset_cw();
        // Post-backoff: a new backoff after every transmission, frame waiting or not (9.2.5.2).
        f.dcf.draw(&mut f.rng);
        self.load_next(x, now);
        self.try_resume(x, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::DropTail;
    use crate::wifi::harness::{bss_with_stations, Harness};

    fn us(v: u64) -> Time {
        Time::from_micros(v)
    }

    fn harness(distances: &[f64], cfg: MacConfig) -> Harness {
        Harness::new(bss_with_stations(cfg, &Radio::default(), distances, 100, 1))
    }

    /// Runs to `until` and returns the MAC events.
    fn run(h: &mut Harness, until: Time) -> Vec<(Time, MacEvent)> {
        let mut out = Vec::new();
        h.run_until(until, |h, ev| out.push((h.now, ev)));
        out
    }

    #[test]
    fn lone_frame_takes_difs_data_sifs_ack() {
        let cfg = MacConfig::table_i();
        let mut h = harness(&[4.0], cfg);
        let p = h.datagram(1, AP, 1500);
        h.enqueue(1, p).unwrap();
        let ev = run(&mut h, Time::from_millis(10));
        // Medium idle: no backoff. DATA of 1528 bytes at 54 Mb/s is 248 us; ACK 28 us.
        assert_eq!(ev.len(), 1);
        assert!(matches!(
            ev[0].1,
            MacEvent::Delivered {
                from: 1,
                to: AP,
                ..
            }
        ));
        assert_eq!(ev[0].0, us(34 + 248));
        let s = h.bss.stats(1);
        assert_eq!((s.attempts, s.acked, s.failures), (1, 1, 0));
        assert!((s.delay_sum - (34 + 248 + 16 + 28) as f64 * 1e-6).abs() < 1e-12);
    }

    #[test]
    fn rts_cts_adds_the_handshake() {
        let cfg = MacConfig {
            rts_cts: true,
            ..MacConfig::table_i()
        };
        let mut h = harness(&[4.0], cfg);
        let p = h.datagram(1, AP, 1500);
        h.enqueue(1, p).unwrap();
        run(&mut h, Time::from_millis(10));
        let s = h.bss.stats(1);
        assert_eq!((s.rts_attempts, s.attempts, s.acked), (1, 1, 1));
        // DIFS, RTS 28 us, SIFS, CTS 28 us, SIFS, DATA 248 us, SIFS, ACK 28 us.
        let expect = (34 + 28 + 16 + 28 + 16 + 248 + 16 + 28) as f64 * 1e-6;
        assert!((s.delay_sum - expect).abs() < 1e-12, "{}", s.delay_sum);
    }

    #[test]
    fn same_slot_frames_collide_then_both_get_through() {
        let cfg = MacConfig::table_i();
        let mut h = harness(&[4.0, 4.0], cfg);
        for i in [1, 2] {
            let p = h.datagram(i, AP, 1500);
            h.enqueue(i, p).unwrap();
        }
        let ev = run(&mut h, Time::from_millis(50));
        assert_eq!(ev.len(), 2, "both frames delivered once: {ev:?}");
        for i in [1, 2] {
            let s = h.bss.stats(i);
            assert!(s.collisions >= 1 && s.failures >= 1, "{s:?}");
            assert_eq!(s.acked, 1);
            assert_eq!(s.attempts, s.failures + 1);
        }
    }

    #[test]
    fn near_station_captures_the_ap_in_a_collision() {
        let cfg = MacConfig::table_i();
        let mut h = harness(&[1.0, 10.0], cfg);
        for i in [1, 2] {
            let p = h.datagram(i, AP, 1500);
            h.enqueue(i, p).unwrap();
        }
        let ev = run(&mut h, us(34 + 248));
        assert_eq!(ev.len(), 1);
        assert!(matches!(ev[0].1, MacEvent::Delivered { from: 1, .. }));
        run(&mut h, Time::from_millis(50));
        let (near, far) = (h.bss.stats(1).clone(), h.bss.stats(2).clone());
        assert_eq!((near.attempts, near.failures, near.collisions), (1, 0, 1));
        assert!(far.failures >= 1 && far.acked == 1, "{far:?}");
    }

    #[test]
    fn unreachable_receiver_exhausts_the_retry_limit() {
        let cfg = MacConfig::table_i();
        // 10 km: far below the carrier-sense threshold at the AP.
        let mut h = harness(&[10_000.0], cfg);
        let p = h.datagram(1, AP, 1500);
        h.enqueue(1, p).unwrap();
        let ev = run(&mut h, Time::from_secs_f64(1.0));
        assert_eq!(ev.len(), 1);
        assert!(matches!(
            ev[0].1,
            MacEvent::Dropped {
                cause: DropCause::WirelessRetryLimit,
                ..
            }
        ));
        let s = h.bss.stats(1);
        assert_eq!((s.attempts, s.failures), (7, 7));
        assert_eq!(s.drops_data.get(DropCause::WirelessRetryLimit), 1);
        // Window back at CWmin for the next frame.
        assert_eq!(h.bss.ifaces[1].dcf.cw, 15);
    }

    #[test]
    fn observers_of_a_collision_wait_eifs_and_colliders_the_ack_timeout() {
        let cfg = MacConfig::table_i();
        let radio = Radio::default();
        let mut setups = Vec::new();
        for (i, random) in [(0u32, true), (1, true), (2, true), (3, false)] {
            setups.push(IfaceSetup {
                name: format!("i{i}"),
                node: i,
                position: Position::polar(4.0, i as f64),
                queue: Box::new(DropTail::new(100, None)),
                ifs: cfg.timing.difs,
                random_backoff: random,
                rng: RngStream::new(3, &format!("i{i}")),
            });
        }
        let mut h = Harness::new(Bss::new(0, cfg, &radio, setups, 4, false));
        for i in [1, 2] {
            let p = h.datagram(i, AP, 1500);
            h.enqueue(i, p).unwrap();
        }
        // The collision runs 34..282 us; station 3 gets a frame in the middle of it.
        run(&mut h, us(100));
        let p = h.datagram(3, AP, 1500);
        h.enqueue(3, p).unwrap();
        run(&mut h, us(283));
        // Station 3 heard an undecodable frame: EIFS = 16 + 44 + 34 us, then no backoff.
        assert_eq!(h.bss.access_at(3), Some(us(282 + 94)));
        // The colliders resume only after their ACK timeout (50 us) plus DIFS.
        assert_eq!(h.bss.access_at(1), None);
        run(&mut h, us(333));
        for i in [1, 2] {
            let at = h.bss.access_at(i).expect("counting after the timeout");
            assert!(at >= us(332 + 34));
            assert_eq!((at - us(332 + 34)).0 % us(9).0, 0);
        }
    }

    #[test]
    fn ap_with_pifs_starts_counting_a_slot_before_stations() {
        let cfg = MacConfig::table_i();
        let radio = Radio::default();
        let mut setups = Vec::new();
        for i in 0..3u32 {
            setups.push(IfaceSetup {
                name: format!("i{i}"),
                node: i,
                position: Position::polar(4.0, i as f64),
                queue: Box::new(DropTail::new(100, None)),
                ifs: if i == 0 {
                    cfg.timing.pifs()
                } else {
                    cfg.timing.difs
                },
                random_backoff: false,
                rng: RngStream::new(3, &format!("i{i}")),
            });
        }
        let mut h = Harness::new(Bss::new(0, cfg, &radio, setups, 3, false));
        let p = h.datagram(1, AP, 1500);
        h.enqueue(1, p).unwrap();
        run(&mut h, us(100));
        // During station 1's frame both the AP and station 2 get a frame.
        let p = h.datagram(AP, 2, 1500);
        h.enqueue(AP, p).unwrap();
        let p = h.datagram(2, AP, 1500);
        h.enqueue(2, p).unwrap();
        // DATA ends at 282 us, ACK at 282 + 16 + 28 = 326 us.
        run(&mut h, us(327));
        assert_eq!(h.bss.access_at(AP), Some(us(326 + 25)));
        assert_eq!(h.bss.access_at(2), Some(us(326 + 34)));
        let ev = run(&mut h, us(327 + 25 + 248));
        assert!(ev.iter().any(|(_, e)| matches!(
            e,
            MacEvent::Delivered {
                from: AP,
                to: 2,
                ..
            }
        )));
    }

    #[test]
    fn frozen_backoff_resumes_where_it_stopped() {
        let cfg = MacConfig::table_i();
        let mut h = harness(&[4.0, 4.0], cfg);
        // Station 1 sends at 34 us; station 2's frame arrives during it and draws k slots.
        let p = h.datagram(1, AP, 1500);
        h.enqueue(1, p).unwrap();
        run(&mut h, us(50));
        let p = h.datagram(2, AP, 1500);
        h.enqueue(2, p).unwrap();
        let k = h.bss.ifaces[2].dcf.backoff().unwrap();
        run(&mut h, us(327));
        assert_eq!(
            h.bss.access_at(2),
            Some(us(326 + 34) + Time(k as u64 * us(9).0))
        );
    }
}
