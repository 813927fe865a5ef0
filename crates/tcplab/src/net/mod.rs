//! The network: packets, links, loss models and routing.

pub mod jitter;
pub mod link;
pub mod loss;
pub mod packet;
pub mod routing;
pub mod topology;

pub use jitter::Jitter;
pub use link::Link;
pub use loss::{LossModel, LossProcess, LossTarget};
pub use packet::{DropCause, DropCounts, FlowId, LinkId, NodeId, Packet, PacketKind};
