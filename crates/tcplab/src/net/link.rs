//! One direction of a point-to-point link: a queue, a transmitter and a propagation delay.

use super::loss::LossModel;
use super::packet::{DropCounts, LinkId, NodeId, Packet};
use crate::queue::Queue;
use crate::sim::Time;

/// Counters of a link direction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub drops: DropCounts,
    pub max_queue: u64,
    /// Integral of queue length over time, packet-nanoseconds.
    queue_area: u128,
    last_change: Time,
}

pub struct Link {
    pub id: LinkId,
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Time,
    pub queue: Box<dyn Queue>,
    pub loss: Option<LossModel>,
    /// End of the current (or last) transmission: the transmitter is free from then on.
    /// The packet being serialised is not kept: its arrival at the far end is scheduled
    /// when its transmission starts.
    pub busy_until: Time,
    /// A `LinkDone` event is scheduled at `busy_until`: packets wait in the queue.
    pub done_pending: bool,
    /// The queue has not yet been asked for a packet at `busy_until`. The old design
    /// asked at the end of every transmission, and an AQM starts its idle period on an
    /// empty answer (RED's `q_time`); the question is now put off until the next arrival.
    pub idle_unseen: bool,
    pub monitor: bool,
    pub stats: LinkStats,
}

impl Link {
    /// Adds the queue-length area up to `now`; call before every change of the queue.
    pub fn account_queue(&mut self, now: Time) {
        let dt = now.nanos().saturating_sub(self.stats.last_change.nanos()) as u128;
        self.stats.queue_area += dt * self.queue.len() as u128;
        self.stats.last_change = now;
    }

    /// Records the queue's new length after a change.
    pub fn note_queue_len(&mut self) {
        self.stats.max_queue = self.stats.max_queue.max(self.queue.len() as u64);
    }

    /// Queue-length integral up to `now`, packet-nanoseconds.
    pub fn queue_area(&mut self, now: Time) -> u128 {
        self.account_queue(now);
        self.stats.queue_area
    }

    pub fn transmission_time(&self, pkt: &Packet) -> Time {
        Time::transmission(pkt.size, self.rate_bps)
    }
}
