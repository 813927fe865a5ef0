//! IEEE 802.11 wireless LAN: the DCF MAC on a shared half-duplex channel (004's set-up).
//!
//! - [`phy`]: 802.11a OFDM frame timing and interframe spaces.
//! - [`propagation`]: positions, path loss and the capture rule.
//! - [`channel`]: frames on the air, carrier sense and which frame each receiver decodes.
//! - [`dcf`]: one interface's backoff counter and contention window.
//! - [`bss`]: the MAC state machines of an access point and its stations on one channel.
//! - [`harness`]: drives a BSS alone (unit tests, saturation runs).
//!
//! In the world, a BSS is a kind of hop: its interfaces take packets like a link's queue
//! does and hand them on when a DATA frame is decoded by its receiver.

pub mod bss;
pub mod channel;
pub mod dcf;
pub mod harness;
pub mod phy;
pub mod propagation;

pub use bss::{Bss, IfaceSetup, IfaceStats, MacConfig, MacEvent, TimerKind, WifiTimer, AP};
pub use phy::{OfdmRate, PhyTiming};
pub use propagation::{Position, Radio};

/// Index of an interface within its BSS (0 is the access point).
pub type IfaceId = u16;
