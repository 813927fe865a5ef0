//! Drives a [`Bss`] on its own, without TCP or the world: for the MAC's unit tests, the
//! saturation test against Bianchi's model and experiments at the MAC level.

use super::bss::{Bss, IfaceSetup, MacConfig, MacEvent, WifiTimer, AP};
use super::propagation::{Position, Radio};
use super::IfaceId;
use crate::net::{DropCause, Packet, PacketKind};
use crate::queue::DropTail;
use crate::sim::{RngStream, Scheduler, Time};

/// A BSS and its own event queue.
pub struct Harness {
    pub bss: Bss,
    sched: Scheduler<WifiTimer>,
    pub now: Time,
    next_uid: u32,
    events: Vec<MacEvent>,
}

/// An AP (node 0) at the origin and one station (node i + 1) at each distance, spread
/// evenly around it; AP queue `ap_buffer` packets, station queues 10000.
pub fn bss_with_stations(
    cfg: MacConfig,
    radio: &Radio,
    distances: &[f64],
    ap_buffer: usize,
    seed: u64,
) -> Bss {
    let n = distances.len();
    let mut setups = vec![IfaceSetup {
        name: "ap".into(),
        node: 0,
        position: Position::default(),
        queue: Box::new(DropTail::new(ap_buffer, None)),
        ifs: cfg.timing.difs,
        random_backoff: true,
        rng: RngStream::new(seed, "wifi:ap"),
    }];
    for (i, &d) in distances.iter().enumerate() {
        let angle = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
        setups.push(IfaceSetup {
            name: format!("w{i}"),
            node: i as u32 + 1,
            position: Position::polar(d, angle),
            queue: Box::new(DropTail::new(10_000, None)),
            ifs: cfg.timing.difs,
            random_backoff: true,
            rng: RngStream::new(seed, &format!("wifi:w{i}")),
        });
    }
    Bss::new(0, cfg, radio, setups, n + 1, false)
}

impl Harness {
    pub fn new(bss: Bss) -> Self {
        Harness {
            bss,
            sched: Scheduler::new(),
            now: Time::ZERO,
            next_uid: 0,
            events: Vec::new(),
        }
    }

    /// A UDP datagram of `size` bytes from interface `from` to the node of `to`.
    pub fn datagram(&mut self, from: IfaceId, to: IfaceId, size: u32) -> Packet {
        self.next_uid = self.next_uid.wrapping_add(1);
        Packet {
            uid: self.next_uid,
            flow: from as u32,
            kind: PacketKind::Datagram,
            src: self.bss.node(from),
            dst: self.bss.node(to),
            hop: 0,
            seq: 0,
            ack: 0,
            size,
            payload: size,
            stamp: self.now,
            flags: 0,
            rwnd: 0,
        }
    }

    pub fn enqueue(&mut self, i: IfaceId, p: Packet) -> Result<(), DropCause> {
        let r = self.bss.enqueue(self.now, i, p);
        self.collect();
        r
    }

    fn collect(&mut self) {
        self.bss.flush_timers(&mut self.sched, |t| t);
        self.events.append(&mut self.bss.outbox.events);
    }

    /// Events the harness's scheduler has processed.
    pub fn events_processed(&self) -> u64 {
        self.sched.events_processed()
    }

    /// Runs every timer due up to `until`, calling `on` for each MAC event in order.
    pub fn run_until(&mut self, until: Time, mut on: impl FnMut(&mut Harness, MacEvent)) {
        loop {
            for ev in std::mem::take(&mut self.events) {
                on(self, ev);
            }
            match self.sched.peek_time() {
                Some(t) if t <= until => {}
                _ => break,
            }
            let (at, timer) = self.sched.pop().expect("peeked");
            self.now = at;
            self.bss.on_timer(at, timer);
            self.collect();
        }
        self.now = self.now.max(until);
    }
}

/// What a saturation run measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Saturation {
    /// IP bits delivered per second after the warm-up.
    pub throughput_bps: f64,
    /// Fraction of DATA transmissions that failed (collision probability seen by a frame).
    pub failure_ratio: f64,
    pub attempts: u64,
}

/// `n` stations at `distance` metres that always have a `size`-byte packet for the AP;
/// throughput measured from `warmup` to `end`.
#[allow(clippy::too_many_arguments)]
pub fn saturation(
    cfg: MacConfig,
    radio: &Radio,
    n: usize,
    distance: f64,
    size: u32,
    warmup: Time,
    end: Time,
    seed: u64,
) -> Saturation {
    let mut h = Harness::new(bss_with_stations(cfg, radio, &vec![distance; n], 1, seed));
    for i in 1..=n as IfaceId {
        for _ in 0..2 {
            let p = h.datagram(i, AP, size);
            h.enqueue(i, p).expect("room in the station queue");
        }
    }
    let mut bits = 0u64;
    let refill = |h: &mut Harness, ev: MacEvent, bits: &mut u64| {
        let from = match ev {
            MacEvent::Delivered { packet, from, .. } => {
                if h.now >= warmup {
                    *bits += packet.size as u64 * 8;
                }
                from
            }
            MacEvent::Dropped { from, .. } => from,
        };
        let p = h.datagram(from, AP, size);
        h.enqueue(from, p).expect("room in the station queue");
    };
    h.run_until(warmup, |h, ev| refill(h, ev, &mut bits));
    let (a0, f0) = totals(&h.bss);
    h.run_until(end, |h, ev| refill(h, ev, &mut bits));
    let (a1, f1) = totals(&h.bss);
    Saturation {
        throughput_bps: bits as f64 / (end - warmup).as_secs_f64(),
        failure_ratio: (f1 - f0) as f64 / (a1 - a0).max(1) as f64,
        attempts: a1 - a0,
    }
}

fn totals(bss: &Bss) -> (u64, u64) {
    (0..bss.len() as IfaceId).fold((0, 0), |(a, f), i| {
        let s = bss.stats(i);
        (a + s.attempts, f + s.failures)
    })
}
