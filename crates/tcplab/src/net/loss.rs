//! Random loss on a link direction.

use super::packet::{Packet, PacketKind};
use crate::sim::RngStream;

/// Which packets a loss model may drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossTarget {
    Data,
    Acks,
    Both,
}

impl LossTarget {
    pub fn applies_to(self, kind: PacketKind) -> bool {
        match self {
            LossTarget::Both => true,
            LossTarget::Data => kind != PacketKind::Ack,
            LossTarget::Acks => kind == PacketKind::Ack,
        }
    }
}

/// A loss process. Each link direction owns one with its own random stream.
#[derive(Clone, Debug)]
pub enum LossProcess {
    /// Independent loss with probability `p` per packet.
    Bernoulli { p: f64 },
}

/// A loss model bound to its random stream.
#[derive(Clone, Debug)]
pub struct LossModel {
    pub process: LossProcess,
    pub target: LossTarget,
    pub rng: RngStream,
}

impl LossModel {
    /// Decides whether `pkt` is lost. Packets the model does not target draw nothing, so
    /// the data stream's losses do not depend on the ACK traffic.
    pub fn drops(&mut self, pkt: &Packet) -> bool {
        if !self.target.applies_to(pkt.kind) {
            return false;
        }
        match self.process {
            LossProcess::Bernoulli { p } => self.rng.bernoulli(p),
        }
    }
}
