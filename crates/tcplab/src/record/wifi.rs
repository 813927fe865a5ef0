//! Wireless records: per-interface MAC counters and wireless delays, the access point's
//! queue occupancy by packet kind, and optionally every frame's wireless delay.

use crate::net::DropCounts;
use crate::{column_table, row_table};

row_table! {
    /// One wireless interface (an access point or a station) over the whole run.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct WifiIfaceRecord {
        /// Node name ("ap", "w3").
        pub name: String,
        pub bss: u32,
        pub is_ap: bool,
        /// Distance from the AP, metres.
        pub distance: f64,
        /// Packets accepted into the interface queue.
        pub enqueued: u64,
        /// DATA transmissions (first attempts and retries).
        pub attempts: u64,
        pub rts_attempts: u64,
        /// Frames acknowledged by their receiver.
        pub acked: u64,
        pub acked_bytes: u64,
        /// Attempts that got no ACK (or CTS).
        pub failures: u64,
        /// Retransmissions: failures that led to another attempt.
        pub retries: u64,
        /// Own DATA or RTS frames that overlapped another frame (collisions, captured or not).
        pub collisions: u64,
        /// Data packets and TCP ACKs dropped here, by cause (buffer overflow at the queue,
        /// wireless retry limit at the MAC).
        pub data_drops: DropCounts,
        pub ack_drops: DropCounts,
        /// Frames given up at the retry limit that the receiver had in fact decoded.
        pub discarded_after_delivery: u64,
        /// Retransmitted DATA frames received again and discarded.
        pub duplicates_received: u64,
        /// Wireless delay (head of the MAC queue to the MAC ACK) of acknowledged frames, s.
        pub delay_mean: f64,
        pub delay_std: f64,
        pub delay_max: f64,
        pub max_queue: u64,
    }
}

column_table! {
    /// The access point's queue sampled at the scenario's sample interval.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct ApQueueSeries {
        pub time: Vec<f64>,
        pub bss: Vec<u32>,
        /// Data packets (TCP segments, datagrams) waiting.
        pub data: Vec<u32>,
        /// TCP ACKs waiting.
        pub acks: Vec<u32>,
    }
}

column_table! {
    /// Every acknowledged frame, when the topology asks for `frame_log`.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct FrameDelays {
        /// When the MAC ACK arrived, s.
        pub time: Vec<f64>,
        /// Index into [`WifiRecords::ifaces`].
        pub iface: Vec<u32>,
        /// Head of the MAC queue to MAC ACK, s.
        pub delay: Vec<f64>,
        /// Transmissions the frame took.
        pub attempts: Vec<u32>,
    }
}

/// Everything the wireless part of a run records (empty without a WLAN).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WifiRecords {
    pub ifaces: Vec<WifiIfaceRecord>,
    pub ap_queue: ApQueueSeries,
    pub frames: Option<FrameDelays>,
}

impl WifiRecords {
    /// The interface record of a node, by name.
    pub fn iface(&self, name: &str) -> Option<&WifiIfaceRecord> {
        self.ifaces.iter().find(|i| i.name == name)
    }
}
