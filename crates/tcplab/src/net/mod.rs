//! The network: packets, loss models, jitter, topologies and routing (the links that
//! carry packets are the world's, world/link.rs).

pub mod jitter;
pub mod loss;
pub mod packet;
pub mod routing;
pub mod topology;

pub use jitter::Jitter;
pub use loss::{LossModel, LossProcess, LossTarget};
pub use packet::{DropCause, DropCounts, FlowId, LinkId, NodeId, Packet, PacketKind};
