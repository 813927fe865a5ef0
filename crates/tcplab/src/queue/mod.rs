//! Router queues. Every discipline implements [`Queue`]; a link owns one per direction.

pub mod droptail;

pub use droptail::DropTail;

use crate::net::{DropCause, Packet};
use crate::sim::Time;

/// A queue discipline at a link's entrance.
pub trait Queue: Send {
    /// Offers `pkt` at time `now`. On `Err` the packet was not stored and the cause
    /// says why (tail drop, AQM early drop, ...).
    fn enqueue(&mut self, pkt: Packet, now: Time) -> Result<(), DropCause>;
    /// Takes the next packet to transmit.
    fn dequeue(&mut self, now: Time) -> Option<Packet>;
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
}
