//! Router queues. Every discipline implements [`Queue`]; a link owns one per direction.

pub mod droptail;
pub mod red;
pub mod round_robin;
pub mod split;
pub mod sred;
pub mod zlred;
pub mod zombie;

pub use droptail::{DropTail, FifoLimits};
pub use red::Red;
pub use round_robin::RoundRobin;
pub use split::SplitQueue;
pub use sred::Sred;
pub use zlred::ZlRed;
pub use zombie::ZombieList;

use crate::net::{DropCause, Packet};
use crate::sim::Time;

/// A queue discipline at a link's entrance.
pub trait Queue: Send {
    /// Offers `pkt` at time `now`. On `Err` the packet was not stored and the cause
    /// says why (tail drop, AQM early drop, ...).
    fn enqueue(&mut self, pkt: Packet, now: Time) -> Result<(), DropCause>;
    /// Takes the next packet to transmit.
    fn dequeue(&mut self, now: Time) -> Option<Packet>;
    /// Offers `pkt` to an empty queue whose link can transmit at once: `enqueue` then
    /// `dequeue`, in one call. If the transmitter fell idle at `idle_since` and the queue
    /// has not been asked for a packet since, it is asked first (with that time): that
    /// empty answer is where an AQM starts an idle period (RED's `q_time`).
    fn offer_idle(
        &mut self,
        pkt: Packet,
        idle_since: Option<Time>,
        now: Time,
    ) -> Result<Option<Packet>, DropCause> {
        if let Some(t) = idle_since {
            let none = self.dequeue(t);
            debug_assert!(none.is_none(), "offer_idle on a non-empty queue");
        }
        self.enqueue(pkt, now)?;
        Ok(self.dequeue(now))
    }
    /// If this discipline is a plain FIFO whose only decision is to drop arrivals beyond
    /// these limits (DropTail), its limits. A link then keeps its waiting packets' start
    /// times instead of the packets, and never calls the other methods (world/link.rs).
    fn plain_fifo(&self) -> Option<FifoLimits> {
        None
    }
    /// Packets waiting.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes waiting.
    fn bytes(&self) -> u64;
    /// Visits every waiting packet (end-of-run accounting and traces).
    fn for_each(&self, f: &mut dyn FnMut(&Packet));
    /// Short name for records ("droptail", "red", ...).
    fn kind(&self) -> &'static str;
    /// Internal state worth plotting (RED's average, SRED's hit frequency), as
    /// (name, value) pairs appended to `out`; sampled with the queue series.
    fn variables(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// Builds the queue discipline of one link direction from its (validated) spec, which the
/// discipline keeps as its parameters. Queues that draw random numbers get their own
/// stream, `queue:<link name>`.
pub fn build(l: &crate::net::topology::DirectedLink, seed: u64) -> Box<dyn Queue> {
    use crate::config::QueueSpec;
    use crate::sim::RngStream;
    let limit = l.buffer as usize;
    let rng = || RngStream::new(seed, &format!("queue:{}", l.name));
    let rate_bps = l.rate.0.round().max(1.0) as u64;
    match &l.queue {
        QueueSpec::Droptail(_) => Box::new(DropTail::new(limit, l.buffer_bytes)),
        QueueSpec::RoundRobin(_) => Box::new(RoundRobin::new(limit, l.buffer_bytes)),
        QueueSpec::Red(s) => Box::new(Red::new(s.clone(), limit, l.buffer_bytes, rate_bps, rng())),
        QueueSpec::RedConst(s) => {
            Box::new(Red::new(s.clone(), limit, l.buffer_bytes, rate_bps, rng()))
        }
        QueueSpec::Sred(s) => Box::new(Sred::new(s.clone(), limit, l.buffer_bytes, rng())),
        QueueSpec::ZlRed(s) => Box::new(ZlRed::new(s.clone(), limit, l.buffer_bytes, rng())),
        QueueSpec::Split(s) => {
            let (data, acks) = s.limits(l.buffer);
            Box::new(SplitQueue::new(
                data as usize,
                acks as usize,
                l.buffer_bytes,
            ))
        }
    }
}
