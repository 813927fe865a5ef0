//! The world's side of wireless hops: hop ids from `links.len()` on are wireless edges,
//! each a (BSS, transmitting interface) pair; packets sent over one are queued at that
//! interface's MAC and continue their route when the receiver decodes them.

use super::{build::build_queue, Event, World};
use crate::config::{ApAccess, Rate, WlanSpec};
use crate::net::topology::Graph;
use crate::net::{LinkId, Packet};
use crate::record::wifi::{ApQueueSeries, FrameDelays, WifiIfaceRecord, WifiRecords};
use crate::sim::RngStream;
use crate::sim::Time;
use crate::wifi::{Bss, IfaceId, IfaceSetup, MacConfig, MacEvent, OfdmRate, PhyTiming, Position};
use crate::wifi::{WifiTimer, AP};
use crate::ConfigError;

/// Every BSS of the world and the map from hop ids to their interfaces.
#[derive(Default)]
pub(super) struct Wireless {
    pub bss: Vec<Bss>,
    /// Hop id of the first wireless edge (= number of wired links).
    first_hop: u32,
    /// Per wireless edge: (BSS, transmitting interface, receiving interface).
    hops: Vec<(u16, IfaceId, IfaceId)>,
    /// Per BSS, the hop id of (tx, rx) at `tx * len + rx`, for the records of MAC drops.
    edge_ids: Vec<Vec<u32>>,
    /// Distance of each interface from its AP, per BSS.
    distances: Vec<Vec<f64>>,
}

/// The MAC parameters of a WLAN; its rates must be 802.11a's.
fn mac_config(w: &WlanSpec) -> Result<MacConfig, ConfigError> {
    let m = &w.mac;
    let rate = |key: &str, r: Rate| {
        OfdmRate::from_bps(r.0).ok_or_else(|| {
            ConfigError::new(
                format!("topology.mac.{key}"),
                format!(
                    "{} b/s is not an 802.11a rate; use 6, 9, 12, 18, 24, 36, 48 or 54 Mbps",
                    r.0
                ),
            )
        })
    };
    Ok(MacConfig {
        timing: PhyTiming {
            data_rate: rate("rate", m.rate)?,
            basic_rate: rate("basic_rate", m.basic_rate)?,
            slot: Time::from_secs_f64(m.slot.0),
            sifs: Time::from_secs_f64(m.sifs.0),
            difs: Time::from_secs_f64(m.difs.0),
            cca_time: Time::from_secs_f64(m.cca_time.0),
        },
        cw_min: m.cw_min,
        cw_max: m.cw_max,
        short_retry_limit: m.retry_limit,
        long_retry_limit: m.long_retry_limit,
        rts_cts: w.rts_cts,
        eifs: m.eifs,
    })
}

impl Wireless {
    /// Builds the BSSs of `graph`; `first_hop` is the number of wired links.
    pub fn build(graph: &Graph, seed: u64) -> Result<Wireless, ConfigError> {
        let first_hop = graph.links.len() as u32;
        let mut w = Wireless {
            first_hop,
            ..Default::default()
        };
        for (b, layout) in graph.wlans.iter().enumerate() {
            let spec = &layout.spec;
            let cfg = mac_config(spec)?;
            let stations = layout.nodes.len() - 1;
            let mut setups = Vec::with_capacity(layout.nodes.len());
            let mut distances = Vec::with_capacity(layout.nodes.len());
            for (i, (&node, q)) in layout.nodes.iter().zip(&layout.queues).enumerate() {
                let name = graph.nodes[node].clone();
                let (position, ifs, random_backoff) = if i == AP as usize {
                    let ifs = match spec.ap_access {
                        ApAccess::Difs => cfg.timing.difs,
                        ApAccess::Pifs => cfg.timing.pifs(),
                    };
                    (Position::default(), ifs, spec.ap_backoff)
                } else {
                    // Stations spread evenly around the AP at their distances.
                    let k = i - 1;
                    let angle = 2.0 * std::f64::consts::PI * k as f64 / stations as f64;
                    (
                        Position::polar(spec.distance_of(k), angle),
                        cfg.timing.difs,
                        true,
                    )
                };
                distances.push(position.distance_to(&Position::default()));
                setups.push(IfaceSetup {
                    rng: RngStream::new(seed, &format!("wifi:{name}")),
                    name,
                    node: node as u32,
                    position,
                    queue: build_queue(q, seed),
                    ifs,
                    random_backoff,
                });
            }
            let n = setups.len();
            w.bss.push(Bss::new(
                b as u16,
                cfg,
                &spec.radio,
                setups,
                graph.nodes.len(),
                spec.frame_log,
            ));
            w.edge_ids.push(vec![u32::MAX; n * n]);
            w.distances.push(distances);
        }
        for (j, e) in graph.wireless.iter().enumerate() {
            let hop = first_hop + j as u32;
            w.hops.push((e.bss as u16, e.tx, e.rx));
            let n = w.bss[e.bss].len();
            w.edge_ids[e.bss][e.tx as usize * n + e.rx as usize] = hop;
        }
        Ok(w)
    }

    /// The BSS and transmitting interface of hop `l`, if it is wireless.
    fn hop(&self, l: LinkId) -> Option<(u16, IfaceId, IfaceId)> {
        l.checked_sub(self.first_hop)
            .and_then(|j| self.hops.get(j as usize).copied())
    }

    /// Checks that the MAC's forwarding (stations to the AP, the AP to the destination
    /// station) takes a flow's packets over the wireless hops of its route.
    pub fn check_route(&self, route: &[LinkId], dst: u32, field: &str) -> Result<(), ConfigError> {
        for &l in route {
            if let Some((b, tx, rx)) = self.hop(l) {
                if self.bss[b as usize].next_hop_to(tx, dst) != Some(rx) {
                    return Err(ConfigError::new(
                        field,
                        "the route crosses a wireless station that is not its endpoint; \
                         stations of a BSS are hosts and do not forward",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Visits every packet held by a MAC and not yet received (end-of-run accounting).
    pub fn for_each_packet(&self, f: &mut dyn FnMut(&Packet)) {
        for b in &self.bss {
            b.for_each_packet(f);
        }
    }

    /// Samples the AP queues into `series`.
    pub fn sample(&self, t: f64, series: &mut ApQueueSeries) {
        for (b, bss) in self.bss.iter().enumerate() {
            let (data, acks) = bss.queue_census(AP);
            series.time.push(t);
            series.bss.push(b as u32);
            series.data.push(data);
            series.acks.push(acks);
        }
    }

    /// The MAC records; `ap_queue` is the AP-queue series the world sampled.
    pub fn into_records(mut self, ap_queue: ApQueueSeries) -> WifiRecords {
        let mut ifaces = Vec::new();
        let mut frames: Option<FrameDelays> = None;
        for (b, bss) in self.bss.iter_mut().enumerate() {
            let base = ifaces.len() as u32;
            for i in 0..bss.len() as IfaceId {
                let s = bss.stats(i);
                let n = s.acked.max(1) as f64;
                let mean = s.delay_sum / n;
                let retry_drops = s.drops_data.get(crate::net::DropCause::WirelessRetryLimit)
                    + s.drops_ack.get(crate::net::DropCause::WirelessRetryLimit);
                ifaces.push(WifiIfaceRecord {
                    name: bss.name(i).to_string(),
                    bss: b as u32,
                    is_ap: i == AP,
                    distance: self.distances[b][i as usize],
                    enqueued: s.enqueued,
                    attempts: s.attempts,
                    rts_attempts: s.rts_attempts,
                    acked: s.acked,
                    acked_bytes: s.acked_bytes,
                    failures: s.failures,
                    retries: s.failures - retry_drops - s.discarded_after_delivery,
                    collisions: s.collisions,
                    data_drops: s.drops_data,
                    ack_drops: s.drops_ack,
                    discarded_after_delivery: s.discarded_after_delivery,
                    duplicates_received: s.duplicates,
                    delay_mean: if s.acked > 0 { mean } else { f64::NAN },
                    delay_std: if s.acked > 0 {
                        (s.delay_sq_sum / n - mean * mean).max(0.0).sqrt()
                    } else {
                        f64::NAN
                    },
                    delay_max: s.delay_max,
                    max_queue: s.max_queue,
                });
            }
            if let Some(log) = bss.take_frame_log() {
                let fr = frames.get_or_insert_with(FrameDelays::default);
                fr.time.extend(log.time);
                fr.iface.extend(log.iface.iter().map(|&i| base + i as u32));
                fr.delay.extend(log.delay);
                fr.attempts.extend(log.attempts);
            }
        }
        WifiRecords {
            ifaces,
            ap_queue,
            frames,
        }
    }
}

impl World {
    /// Whether hop `l` is wireless.
    pub(super) fn is_wireless(&self, l: LinkId) -> bool {
        l as usize >= self.links.len()
    }

    /// Queues a packet at the MAC of wireless hop `l`.
    pub(super) fn wifi_send(&mut self, l: LinkId, p: Packet) {
        let Some((b, tx, _)) = self.wifi.hop(l) else {
            return;
        };
        let now = self.now;
        if let Err(cause) = self.wifi.bss[b as usize].enqueue(now, tx, p) {
            self.drop_packet(p, l, cause);
        }
        self.drain_wifi(b as usize);
    }

    pub(super) fn wifi_timer(&mut self, t: WifiTimer) {
        let now = self.now;
        self.wifi.bss[t.bss as usize].on_timer(now, t);
        self.drain_wifi(t.bss as usize);
    }

    /// Schedules the MAC's timers and passes on its deliveries and drops.
    fn drain_wifi(&mut self, b: usize) {
        self.wifi.bss[b].flush_timers(&mut self.sched, Event::Wifi);
        if self.wifi.bss[b].outbox.events.is_empty() {
            return;
        }
        let mut out = std::mem::take(&mut self.wifi.bss[b].outbox.events);
        for ev in out.drain(..) {
            match ev {
                // Propagation over a BSS is taken as instantaneous (see wifi::channel).
                MacEvent::Delivered { packet, .. } => {
                    self.sched.schedule(self.now, Event::Arrive(packet))
                }
                MacEvent::Dropped {
                    packet,
                    from,
                    to,
                    cause,
                } => {
                    let n = self.wifi.bss[b].len();
                    let hop = self.wifi.edge_ids[b][from as usize * n + to as usize];
                    self.drop_packet(packet, hop, cause);
                }
            }
        }
        self.wifi.bss[b].outbox.events = out;
    }
}
