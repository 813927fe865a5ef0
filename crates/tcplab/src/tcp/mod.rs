//! TCP at the granularity of NS-2's one-way agents: packet-numbered segments,
//! cumulative ACKs, RFC 6298 timers and Tahoe/Reno/NewReno loss recovery.

pub mod receiver;
pub mod rto;
pub mod sender;
mod timer;

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

use crate::config::TcpOptions;
use crate::sim::Time;

/// TCP options with every default filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    pub mss: u32,
    pub header_bytes: u32,
    pub rwnd: u32,
    pub initial_cwnd: f64,
    pub initial_ssthresh: f64,
    pub delayed_ack: bool,
    pub delack_timeout: Time,
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    pub clock_granularity: Time,
    pub dupack_threshold: u32,
    pub partial_ack_timer: crate::config::PartialAckTimer,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig::from_options(&TcpOptions::default())
    }
}

impl TcpConfig {
    /// Resolves options; the defaults are documented on [`TcpOptions`].
    pub fn from_options(o: &TcpOptions) -> Self {
        let secs =
            |v: Option<crate::config::Seconds>, d: f64| Time::from_secs_f64(v.map_or(d, |s| s.0));
        TcpConfig {
            mss: o.mss.unwrap_or(1000),
            header_bytes: o.header_bytes.unwrap_or(40),
            rwnd: o.rwnd.unwrap_or(100_000),
            initial_cwnd: o.initial_cwnd.unwrap_or(2.0),
            initial_ssthresh: o.initial_ssthresh.unwrap_or(1e9),
            delayed_ack: o.delayed_ack.unwrap_or(false),
            delack_timeout: secs(o.delack_timeout, 0.1),
            min_rto: secs(o.min_rto, 0.2),
            max_rto: secs(o.max_rto, 60.0),
            initial_rto: secs(o.initial_rto, 1.0),
            clock_granularity: secs(o.clock_granularity, 0.001),
            dupack_threshold: o.dupack_threshold.unwrap_or(3),
            partial_ack_timer: o.partial_ack_timer.unwrap_or_default(),
        }
    }
}
