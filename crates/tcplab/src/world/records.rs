//! Turns the finished world into records.

use super::World;
use crate::cc::LossKind;
use crate::net::{DropCause, FlowId};
use crate::record::{FlowRecord, LinkRecord, LossEvents, RunMeta, RunRecords, SeriesChunk};
use crate::tcp::sender::LossRecord;

fn loss_kind_name(k: LossKind) -> &'static str {
    match k {
        LossKind::FastRetransmit => "fast_retransmit",
        LossKind::EarlyRetransmit => "early_retransmit",
        LossKind::Timeout => "timeout",
        LossKind::AckLoss => "ack_loss",
        LossKind::LossProbe => "loss_probe",
        LossKind::Rack => "rack",
    }
}

/// Appends loss response `rec` of flow `flow`, whose true cause is `cause`, to `rows`.
pub(super) fn push_loss(
    rows: &mut LossEvents,
    flow: FlowId,
    rec: &LossRecord,
    cause: Option<DropCause>,
) {
    rows.time.push(rec.time.as_secs_f64());
    rows.flow.push(flow);
    rows.seq.push(rec.seq);
    rows.kind.push(loss_kind_name(rec.kind));
    rows.cwnd_before.push(rec.cwnd_before);
    rows.ssthresh_after.push(rec.ssthresh_after);
    rows.cc_label.push(rec.tag.map_or("", |t| t.label));
    rows.cc_value.push(rec.tag.map_or(f64::NAN, |t| t.value));
    // True cause: the latest drop of that segment before the response.
    rows.true_cause.push(cause.map_or("none", DropCause::name));
}

impl World {
    /// The run's records; `series` holds the sampled rows kept in memory (none when they
    /// were streamed to a sink).
    pub(super) fn into_records(mut self, series: SeriesChunk) -> RunRecords {
        let [m0, m1] = self.measure;
        let window = (m1 - m0).as_secs_f64().max(1e-12);
        if m0 == crate::sim::Time::ZERO {
            self.link_area_at_measure_start
                .iter_mut()
                .for_each(|a| *a = 0);
        }
        let flows: Vec<FlowRecord> = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let s = &f.sender.stats;
                let r = &f.receiver.stats;
                let st = f.sender.state();
                FlowRecord {
                    id: i as u32,
                    name: f.name.clone(),
                    cc: f.sender.cc().name().to_string(),
                    recovery: f.sender.recovery().name().to_string(),
                    src: f.src_name.clone(),
                    dst: f.dst_name.clone(),
                    start: f.start.as_secs_f64(),
                    goodput_bps: (r.bytes_delivered - f.bytes_at_measure_start) as f64 * 8.0
                        / window,
                    bytes_delivered: r.bytes_delivered,
                    segments_sent: s.segments_sent,
                    retransmissions: s.retransmissions,
                    timeouts: s.timeouts,
                    fast_retransmits: s.fast_retransmits,
                    early_retransmits: s.early_retransmits,
                    dupacks: s.dupacks,
                    loss_probes: s.loss_probes,
                    undos: s.undos,
                    acks_sent: r.acks_sent,
                    acks_received: s.acks_received,
                    data_drops: f.data_drops,
                    ack_drops: f.ack_drops,
                    mean_rtt: if s.rtt_samples > 0 {
                        s.rtt_sum / s.rtt_samples as f64
                    } else {
                        f64::NAN
                    },
                    min_rtt: if st.min_rtt == crate::sim::Time::MAX {
                        f64::NAN
                    } else {
                        st.min_rtt.as_secs_f64()
                    },
                    completion_time: f.receiver.completed_at.map(|t| (t - f.start).as_secs_f64()),
                    final_cwnd: st.cwnd,
                }
            })
            .collect();

        let now = self.now;
        let links: Vec<LinkRecord> = (0..self.links.len())
            .map(|i| {
                let area = self.links[i].queue_area(now) - self.link_area_at_measure_start[i];
                let l = &self.links[i];
                let bytes = l.stats.bytes_sent - self.link_bytes_at_measure_start[i];
                LinkRecord {
                    id: l.id,
                    name: l.name.clone(),
                    queue: l.queue.kind().to_string(),
                    rate_bps: l.rate_bps as f64,
                    delay: l.delay.as_secs_f64(),
                    packets_sent: l.stats.packets_sent,
                    bytes_sent: l.stats.bytes_sent,
                    utilization: bytes as f64 * 8.0 / (l.rate_bps as f64 * window),
                    mean_queue: area as f64 / (window * 1e9),
                    max_queue: l.stats.max_queue,
                    drops: l.stats.drops,
                }
            })
            .collect();

        RunRecords {
            meta: RunMeta {
                seed: self.seed,
                duration: self.end.as_secs_f64(),
                measure: [m0.as_secs_f64(), m1.as_secs_f64()],
                events_processed: self.sched.events_processed(),
                packets_delivered: self.packets_delivered,
                engine_version: crate::ENGINE_VERSION,
            },
            flows,
            udp_flows: self.udp_records(window),
            links,
            flow_series: series.flow_series,
            queue_series: series.queue_series,
            cc_series: series.cc_series,
            queue_vars: series.queue_vars,
            losses: series.losses,
            traces: self.traces.take_records(),
            events: self.event_log.then_some(series.events),
            wifi: self.wifi.into_records(series.ap_queue),
        }
    }
}
