//! What a run hands back: per-flow and per-link summaries, sampled time series, loss
//! events and an optional event log, all columnar so they become DataFrames cheaply.

pub mod columns;
pub mod fairness;
pub mod pcap;
pub mod stream;
pub mod wifi;

pub use columns::{Column, ColumnTable, Columns, Table};
pub use fairness::jain_index;
pub use stream::{DiscardSeries, SeriesChunk, SeriesSink, DEFAULT_CHUNK_ROWS};
pub use wifi::WifiRecords;

use crate::net::DropCounts;
use crate::{column_table, row_table};

row_table! {
    /// Per-flow summary.
    #[derive(Clone, Debug, PartialEq)]
    pub struct FlowRecord {
        pub id: u32,
        pub name: String,
        pub cc: String,
        pub recovery: String,
        pub src: String,
        pub dst: String,
        pub start: f64,
        /// Goodput (in-order application bytes at the receiver) over the measurement window, b/s.
        pub goodput_bps: f64,
        pub bytes_delivered: u64,
        pub segments_sent: u64,
        pub retransmissions: u64,
        pub timeouts: u64,
        pub fast_retransmits: u64,
        pub early_retransmits: u64,
        pub dupacks: u64,
        /// Tail loss probes sent (RFC 8985 section 7).
        pub loss_probes: u64,
        /// Window reductions undone as spurious (D-SACK or timestamps).
        pub undos: u64,
        pub acks_sent: u64,
        pub acks_received: u64,
        pub data_drops: DropCounts,
        /// Followed by the column `acks_lost`, their sum.
        pub ack_drops: DropCounts => acks_lost: DropCounts::total,
        pub mean_rtt: f64,
        pub min_rtt: f64,
        /// Completion time of a finite transfer (seconds since the flow started).
        pub completion_time: Option<f64>,
        pub final_cwnd: f64,
    }
}

row_table! {
    /// Per-flow summary of a UDP (CBR) flow.
    #[derive(Clone, Debug, PartialEq)]
    pub struct UdpFlowRecord {
        /// Flow id (UDP flows follow the TCP flows).
        pub id: u32,
        pub name: String,
        pub src: String,
        pub dst: String,
        /// First on time, seconds.
        pub start: f64,
        /// Configured rate, bits of datagrams on the wire per second.
        pub rate_bps: f64,
        /// Bytes per datagram on the wire.
        pub packet_size: u32,
        pub datagrams_sent: u64,
        pub datagrams_received: u64,
        /// Bytes on the wire of the datagrams received.
        pub bytes_received: u64,
        /// Received bits on the wire per second over the measurement window.
        pub throughput_bps: f64,
        pub drops: DropCounts,
    }
}

row_table! {
    /// Per-direction link summary.
    #[derive(Clone, Debug, PartialEq)]
    pub struct LinkRecord {
        pub id: u32,
        pub name: String,
        pub queue: String,
        pub rate_bps: f64,
        pub delay: f64,
        pub packets_sent: u64,
        pub bytes_sent: u64,
        /// Fraction of the capacity used over the measurement window.
        pub utilization: f64,
        /// Time-averaged queue length over the measurement window, packets.
        pub mean_queue: f64,
        pub max_queue: u64,
        pub drops: DropCounts,
    }
}

column_table! {
    /// Per-flow samples at a fixed interval.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct FlowSeries {
        pub time: Vec<f64>,
        pub flow: Vec<u32>,
        pub cwnd: Vec<f64>,
        pub ssthresh: Vec<f64>,
        pub srtt: Vec<f64>,
        pub in_flight: Vec<u32>,
        pub bytes_delivered: Vec<u64>,
    }
}

column_table! {
    /// Queue length samples of monitored links.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct QueueSeries {
        pub time: Vec<f64>,
        pub link: Vec<u32>,
        pub packets: Vec<u32>,
        pub bytes: Vec<u64>,
    }
}

column_table! {
    /// Queue-discipline internal variables of monitored links (RED's `avg`, SRED's
    /// `hit_freq` and `flows_estimate`, ...), long format: one row per variable.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct QueueVarSeries {
        pub time: Vec<f64>,
        pub link: Vec<u32>,
        pub name: Vec<&'static str>,
        pub value: Vec<f64>,
    }
}

column_table! {
    /// Congestion-control internal variables (long format: one row per variable).
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct CcSeries {
        pub time: Vec<f64>,
        pub flow: Vec<u32>,
        pub name: Vec<&'static str>,
        pub value: Vec<f64>,
    }
}

column_table! {
    /// Every loss response of every flow, with the true cause of the lost packet.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct LossEvents {
        pub time: Vec<f64>,
        pub flow: Vec<u32>,
        pub seq: Vec<u32>,
        /// "fast_retransmit", "early_retransmit" or "timeout".
        pub kind: Vec<&'static str>,
        pub cwnd_before: Vec<f64>,
        pub ssthresh_after: Vec<f64>,
        /// The algorithm's own classification (Veno's branch), "" if none.
        pub cc_label: Vec<&'static str>,
        pub cc_value: Vec<f64>,
        /// Cause of the most recent drop of that segment, "none" if it was not dropped.
        pub true_cause: Vec<&'static str>,
    }
}

column_table! {
    /// The per-event log, when the scenario asks for it.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct EventLog {
        pub time: Vec<f64>,
        /// "send", "recv" or "drop".
        pub event: Vec<&'static str>,
        pub flow: Vec<u32>,
        pub kind: Vec<&'static str>,
        pub seq: Vec<u32>,
        pub ack: Vec<u32>,
        /// Link of a drop, or -1.
        pub link: Vec<i64>,
        /// Cause of a drop, "" otherwise.
        pub cause: Vec<&'static str>,
        pub retransmit: Vec<bool>,
        pub size: Vec<u32>,
    }
}

impl EventLog {
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        t: f64,
        event: &'static str,
        flow: u32,
        kind: &'static str,
        seq: u32,
        ack: u32,
        link: i64,
        cause: &'static str,
        retransmit: bool,
        size: u32,
    ) {
        self.time.push(t);
        self.event.push(event);
        self.flow.push(flow);
        self.kind.push(kind);
        self.seq.push(seq);
        self.ack.push(ack);
        self.link.push(link);
        self.cause.push(cause);
        self.retransmit.push(retransmit);
        self.size.push(size);
    }
}

row_table! {
    /// A pcap file the run wrote.
    #[derive(Clone, Debug, PartialEq)]
    pub struct TraceRecord {
        /// The link direction tapped ("r0->r1").
        pub link: String,
        /// The file, relative to the output directory.
        pub file: String,
        pub packets: u64,
    }
}

row_table! {
    /// Run-wide facts.
    #[derive(Clone, Debug, PartialEq)]
    pub struct RunMeta {
        pub seed: u64,
        pub duration: f64,
        pub measure: [f64; 2],
        pub events_processed: u64,
        /// Packets that reached their destination endpoint (data and ACKs).
        pub packets_delivered: u64,
        pub engine_version: &'static str,
    }
}

/// Everything a run produces.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRecords {
    pub meta: RunMeta,
    pub flows: Vec<FlowRecord>,
    pub udp_flows: Vec<UdpFlowRecord>,
    pub links: Vec<LinkRecord>,
    pub flow_series: FlowSeries,
    pub queue_series: QueueSeries,
    pub cc_series: CcSeries,
    pub queue_vars: QueueVarSeries,
    pub losses: LossEvents,
    /// The pcap files written (empty unless the scenario asked for traces).
    pub traces: Vec<TraceRecord>,
    pub events: Option<EventLog>,
    /// Wireless MAC records (empty without a WLAN).
    pub wifi: WifiRecords,
}

impl RunRecords {
    /// The run's meta data as a one-row table, and every other table by its name in the
    /// results (`flows`, `series`, ...), `None` for a table the run did not produce (the
    /// event log without `event_log`, the frame log without `frame_log`): what bindings
    /// hand over, so that no field is listed again there.
    pub fn into_tables(self) -> (Columns, Vec<(&'static str, Option<Columns>)>) {
        let logged = self.events.is_some();
        let series = SeriesChunk {
            flow_series: self.flow_series,
            queue_series: self.queue_series,
            cc_series: self.cc_series,
            queue_vars: self.queue_vars,
            ap_queue: self.wifi.ap_queue,
            events: self.events.unwrap_or_default(),
            losses: self.losses,
        };
        let mut tables: Vec<(&'static str, Option<Columns>)> = series
            .into_tables()
            .into_iter()
            .map(|(name, columns)| (name, (name != "events" || logged).then_some(columns)))
            .collect();
        tables.extend([
            ("flows", Some(Table::columns(&self.flows))),
            ("udp_flows", Some(Table::columns(&self.udp_flows))),
            ("traces", Some(Table::columns(&self.traces))),
            ("wifi", Some(Table::columns(&self.wifi.ifaces))),
            ("frames", self.wifi.frames.map(ColumnTable::into_columns)),
            ("links", Some(Table::columns(&self.links))),
        ]);
        (Table::columns(&[self.meta]), tables)
    }

    /// Jain's fairness index of the flows' goodputs.
    pub fn jain_index(&self) -> f64 {
        jain_index(&self.flows.iter().map(|f| f.goodput_bps).collect::<Vec<_>>())
    }
}
