//! UDP flows: constant-bit-rate sources and counting sinks.
//!
//! UDP flows take the flow ids after the TCP flows (`flows.len()..`), so a packet's
//! `flow` still indexes one table: `id < flows.len()` is TCP, the rest UDP.

use super::{ConservationReport, Event, World};
use crate::app::{AppSchedule, CbrSource};
use crate::config::{Scenario, Traffic};
use crate::net::topology::Graph;
use crate::net::{DropCause, DropCounts, FlowId, LinkId, Packet, PacketKind};
use crate::record::UdpFlowRecord;
use crate::sim::{RngStream, Scheduler, Time};
use crate::ConfigError;

/// A UDP flow: a CBR source, its route and a sink that counts what arrives.
pub struct UdpFlow {
    pub name: String,
    pub src_name: String,
    pub dst_name: String,
    pub source: CbrSource,
    pub rate_bps: f64,
    pub packet_size: u32,
    pub start: Time,
    pub drops: DropCounts,
    pub sent: u64,
    pub arrived: u64,
    /// Bytes on the wire of the datagrams that arrived.
    pub bytes_arrived: u64,
    bytes_at_measure_start: u64,
}

/// Builds the scenario's CBR flows with ids from `first_id` and schedules their on/off
/// events; `path` gives a route between two nodes. Returns the flows and each one's route
/// (for the world's routes table).
pub(super) fn build_udp_flows(
    s: &Scenario,
    graph: &Graph,
    path: &mut dyn FnMut(usize, usize) -> Option<Vec<u32>>,
    first_id: u32,
    sched: &mut Scheduler<Event>,
) -> Result<(Vec<UdpFlow>, Vec<Vec<LinkId>>), ConfigError> {
    let (mut out, mut routes) = (Vec::new(), Vec::new());
    for (i, spec) in s.flows.iter().enumerate() {
        let Traffic::Cbr(cbr) = &spec.traffic else {
            continue;
        };
        let field = format!("flows[{i}]");
        let (src, dst, fwd) = super::build::endpoints(spec, &field, graph, path)?;
        let (rate_bps, packet_size) = (cbr.rate.0, cbr.packet_size());
        for k in 0..spec.count {
            let id = first_id + out.len() as u32;
            let name = spec.flow_name(i, k);
            let mut rng = RngStream::new(s.simulation.seed, &format!("flow:{name}"));
            let app = AppSchedule::for_flow(spec, &mut rng);
            super::build::schedule_periods(sched, &app, id);
            routes.push(fwd.clone());
            out.push(UdpFlow {
                name,
                src_name: spec.src.clone(),
                dst_name: spec.dst.clone(),
                source: CbrSource::new(id, src as u32, dst as u32, rate_bps, packet_size),
                rate_bps,
                packet_size,
                start: app.start(),
                drops: DropCounts::default(),
                sent: 0,
                arrived: 0,
                bytes_arrived: 0,
                bytes_at_measure_start: 0,
            });
        }
    }
    Ok((out, routes))
}

impl World {
    /// The UDP flow of id `f`, if `f` is one.
    pub(super) fn udp_index(&self, f: FlowId) -> Option<usize> {
        (f as usize)
            .checked_sub(self.flows.len())
            .filter(|&i| i < self.udp_flows.len())
    }

    pub(super) fn udp_start(&mut self, u: usize) {
        let now = self.now;
        let flow = &mut self.udp_flows[u];
        if let Some(generation) = flow.source.start(now) {
            let id = flow.source.flow;
            self.schedule(now, Event::CbrSend(id, generation));
        }
    }

    pub(super) fn udp_stop(&mut self, u: usize) {
        self.udp_flows[u].source.stop();
    }

    pub(super) fn udp_send(&mut self, u: usize, generation: u32) {
        let now = self.now;
        let flow = &mut self.udp_flows[u];
        let Some((mut p, next)) = flow.source.on_send(generation, now) else {
            return;
        };
        flow.sent += 1;
        let id = flow.source.flow;
        self.schedule(next, Event::CbrSend(id, generation));
        let first = self.first_link(id, PacketKind::Datagram);
        self.inject(&mut p, first);
    }

    /// Counts a datagram that reached its sink.
    pub(super) fn udp_arrive(&mut self, u: usize, p: Packet) {
        self.packets_delivered += 1;
        self.log_event("recv", &p, -1, "");
        let flow = &mut self.udp_flows[u];
        flow.arrived += 1;
        flow.bytes_arrived += p.size as u64;
    }

    pub(super) fn udp_drop(&mut self, u: usize, cause: DropCause) {
        self.udp_flows[u].drops.add(cause);
    }

    pub(super) fn udp_snapshot_measure_start(&mut self) {
        for f in &mut self.udp_flows {
            f.bytes_at_measure_start = f.bytes_arrived;
        }
    }

    /// Per UDP flow: the datagram balance, given per-flow-id counts of packets in the
    /// network.
    pub(super) fn udp_conservation(&self, in_network: &[(u64, u64)]) -> Vec<ConservationReport> {
        self.udp_flows
            .iter()
            .enumerate()
            .map(|(i, f)| ConservationReport {
                sent: f.sent,
                arrived: f.arrived,
                dropped: f.drops.total(),
                in_network: in_network
                    .get(self.flows.len() + i)
                    .map_or(0, |c| c.0 + c.1),
            })
            .collect()
    }

    pub(super) fn udp_records(&self, window: f64) -> Vec<UdpFlowRecord> {
        self.udp_flows
            .iter()
            .map(|f| UdpFlowRecord {
                id: f.source.flow,
                name: f.name.clone(),
                src: f.src_name.clone(),
                dst: f.dst_name.clone(),
                start: f.start.as_secs_f64(),
                rate_bps: f.rate_bps,
                packet_size: f.packet_size,
                datagrams_sent: f.sent,
                datagrams_received: f.arrived,
                bytes_received: f.bytes_arrived,
                throughput_bps: (f.bytes_arrived - f.bytes_at_measure_start) as f64 * 8.0 / window,
                drops: f.drops,
            })
            .collect()
    }
}
