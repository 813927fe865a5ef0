//! TCP with packet-numbered segments: NS-2's one-way agents (cumulative ACKs, RFC 6298
//! timers, Tahoe/Reno/NewReno recovery, go-back-N after a timeout) and, with the `linux`
//! options, SACK, timestamps, RFC 6675/PRR recovery, RACK-TLP and undo.

mod ack_delay;
mod app_reader;
mod autotune;
pub mod pacing;
#[cfg(test)]
mod pacing_tests;
mod rack;
pub mod rate;
pub mod receiver;
mod recovery;
pub mod sack;
mod sack_compress;
pub mod scoreboard;
pub mod sender;
mod timer;
mod tso_defer;

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

use crate::cc::Recovery;
use crate::config::{AppPush, PacingUnit, RtoEstimatorKind, Stack, TcpOptions, WindowGrowth};
use crate::sim::Time;

/// TCP options with every default filled in from the flow's stack profile.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    pub stack: Stack,
    pub mss: u32,
    pub header_bytes: u32,
    pub rwnd: u32,
    /// The advertised window opens at 64 KB and grows as Linux's does (`autotune.rs`).
    pub rwnd_autotune: bool,
    /// An in-order segment that finds room to widen the window is ACKed at once
    /// (`receiver.rs`, Linux `tcp_grow_window`).
    pub rwnd_growth_ack: bool,
    /// Receive memory per full-sized segment (`autotune.rs`, Linux's `scaling_ratio`).
    pub rcv_truesize: Option<u32>,
    /// A full-sized in-order segment with PSH is ACKed at once (`receiver.rs`, Linux
    /// `ICSK_ACK_PUSHED`).
    pub push_ack: bool,
    /// Which new segments the sender marks with PSH (`sender.rs`).
    pub app_push: AppPush,
    /// New data waits for an ACK due soon rather than leave in a burst smaller than a GSO
    /// packet (`tso_defer.rs`).
    pub tso_defer: bool,
    /// Out-of-order data's ACKs compressed as Linux's receiver does (`sack_compress.rs`).
    pub sack_compress: bool,
    pub initial_cwnd: f64,
    pub initial_ssthresh: f64,
    pub delayed_ack: bool,
    pub delack_timeout: Time,
    /// A delayed ACK that is due leaves this much later, covering what arrives meanwhile
    /// (`receiver.rs`, `ack_delay.rs`): fixed, or drawn for each ACK.
    pub ack_latency: Option<crate::config::DelaySpec>,
    /// The receiving application reads this long after data becomes readable
    /// (`app_reader.rs`); None: at once.
    pub app_read: Option<crate::config::DelaySpec>,
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    pub clock_granularity: Time,
    pub dupack_threshold: u32,
    pub partial_ack_timer: crate::config::PartialAckTimer,
    /// The recovery the options name, if any (else the algorithm's own, under ns2).
    pub recovery: Option<Recovery>,
    pub sack: bool,
    pub dsack: bool,
    pub timestamps: bool,
    pub rack: bool,
    pub tlp: bool,
    pub undo: bool,
    pub window_growth: WindowGrowth,
    pub abc_limit: u32,
    pub max_burst: u32,
    pub rto_estimator: RtoEstimatorKind,
    pub quickack: u32,
    pub pacing: bool,
    pub pacing_quantum: u32,
    pub pacing_unit: PacingUnit,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig::from_options(&TcpOptions::default())
    }
}

/// One profile's defaults; [`TcpConfig::from_options`] lets every option override them.
struct Profile {
    mss: u32,
    header_bytes: u32,
    initial_cwnd: f64,
    delayed_ack: bool,
    delack_timeout: f64,
    max_rto: f64,
    recovery: Option<Recovery>,
    extensions: bool,
    window_growth: WindowGrowth,
    rto_estimator: RtoEstimatorKind,
    quickack: u32,
    pacing_quantum: u32,
    pacing_unit: PacingUnit,
    rwnd_autotune: bool,
    rwnd_growth_ack: bool,
    push_ack: bool,
    app_push: AppPush,
    tso_defer: bool,
    sack_compress: bool,
}

impl Profile {
    fn of(stack: Stack) -> Profile {
        match stack {
            // NS-2's Agent/TCP and TCPSink defaults (packetSize_ 1000, 40-byte headers,
            // windowInit_ 2 as RFC 5681 3.1, DelAckSink interval_ 100 ms), per-ACK growth
            // (`opencwnd`), no SACK or timestamps, the algorithm's own recovery.
            Stack::Ns2 => Profile {
                mss: 1000,
                header_bytes: 40,
                initial_cwnd: 2.0,
                delayed_ack: stack.delays_acks(),
                delack_timeout: 0.1,
                max_rto: 60.0,
                recovery: None,
                extensions: false,
                window_growth: WindowGrowth::PerAck,
                rto_estimator: RtoEstimatorKind::Rfc6298,
                quickack: 0,
                pacing_quantum: 1,
                pacing_unit: PacingUnit::Segment,
                rwnd_autotune: false,
                rwnd_growth_ack: false,
                push_ack: false,
                app_push: AppPush::None,
                tso_defer: false,
                sack_compress: false,
            },
            // Linux 6.x: MSS 1448 (1500-byte MTU less 52 bytes of IP, TCP and timestamp
            // option), IW10 (RFC 6928, TCP_INIT_CWND), delayed ACKs with TCP_ATO_MIN 40 ms
            // and TCP_MAX_QUICKACKS 16, TCP_RTO_MAX 120 s, PRR (tcp_cwnd_reduction), SACK,
            // D-SACK, timestamps, RACK-TLP and undo on (net.ipv4.tcp_sack, tcp_dsack,
            // tcp_timestamps, tcp_recovery, tcp_early_retrans defaults), growth by the
            // segments acknowledged, and Linux's RTO estimator. A paced flow paces whole
            // GSO packets (`tcp_write_xmit`), of at least two segments (`tcp_min_tso_segs`;
            // measured on the bed: BBR's pairs, docs/kernel.md). The
            // receiver's window opens at 64 KB and grows (`tcp_rmem`, `tcp_moderate_rcvbuf`),
            // and a segment that widens it is ACKed at once (`tcp_grow_window`). A
            // full-sized segment with PSH is ACKed at once (Linux >= 6.6). The sender defers
            // data that fills less than a GSO packet while an ACK is due
            // (`tcp_tso_should_defer`) and marks PSH on every GSO packet of two or more
            // segments (`__tcp_transmit_skb`); both shape the test bed's bursts (measured,
            // docs/kernel.md). With out-of-order data the receiver compresses its SACKs
            // after the third (`tcp_comp_sack_*` defaults, measured on the bed too).
            Stack::Linux => Profile {
                mss: 1448,
                header_bytes: 52,
                initial_cwnd: 10.0,
                delayed_ack: stack.delays_acks(),
                delack_timeout: 0.04,
                max_rto: 120.0,
                recovery: Some(Recovery::Prr),
                extensions: true,
                window_growth: WindowGrowth::Bytes,
                rto_estimator: RtoEstimatorKind::Linux,
                quickack: 16,
                pacing_quantum: 2,
                pacing_unit: PacingUnit::Gso,
                rwnd_autotune: true,
                rwnd_growth_ack: true,
                push_ack: true,
                app_push: AppPush::Gso,
                tso_defer: true,
                sack_compress: true,
            },
        }
    }
}

impl TcpConfig {
    /// Resolves options over the defaults of their stack profile (docs/scenario.md).
    pub fn from_options(o: &TcpOptions) -> Self {
        let stack = o.stack.unwrap_or_default();
        let p = Profile::of(stack);
        let secs =
            |v: Option<crate::config::Seconds>, d: f64| Time::from_secs_f64(v.map_or(d, |s| s.0));
        let sack = o.sack.unwrap_or(p.extensions);
        let timestamps = o.timestamps.unwrap_or(p.extensions);
        let rack = o.rack.unwrap_or(p.extensions);
        TcpConfig {
            stack,
            mss: o.mss.unwrap_or(p.mss),
            header_bytes: o.header_bytes.unwrap_or(if timestamps {
                p.header_bytes.max(52)
            } else {
                p.header_bytes.min(40)
            }),
            rwnd: o.rwnd.unwrap_or(100_000),
            rwnd_autotune: o.rwnd_autotune.unwrap_or(p.rwnd_autotune),
            rwnd_growth_ack: o.rwnd_growth_ack.unwrap_or(p.rwnd_growth_ack),
            rcv_truesize: o.rcv_truesize,
            push_ack: o.push_ack.unwrap_or(p.push_ack),
            app_push: o.app_push.unwrap_or(p.app_push),
            tso_defer: o.tso_defer.unwrap_or(p.tso_defer),
            sack_compress: o.sack_compress.unwrap_or(p.sack_compress),
            initial_cwnd: o.initial_cwnd.unwrap_or(p.initial_cwnd),
            initial_ssthresh: o.initial_ssthresh.unwrap_or(1e9),
            delayed_ack: o.delayed_ack.unwrap_or(p.delayed_ack),
            delack_timeout: secs(o.delack_timeout, p.delack_timeout),
            ack_latency: o.ack_latency.clone(),
            app_read: o.app_read.clone(),
            min_rto: secs(o.min_rto, 0.2),
            max_rto: secs(o.max_rto, p.max_rto),
            initial_rto: secs(o.initial_rto, 1.0),
            clock_granularity: secs(o.clock_granularity, 0.001),
            dupack_threshold: o.dupack_threshold.unwrap_or(3),
            partial_ack_timer: o.partial_ack_timer.unwrap_or_default(),
            recovery: o.recovery.or(p.recovery),
            sack,
            dsack: o.dsack.unwrap_or(sack),
            timestamps,
            rack,
            tlp: o.tlp.unwrap_or(rack),
            undo: o.undo.unwrap_or(p.extensions),
            window_growth: o.window_growth.unwrap_or(p.window_growth),
            abc_limit: o.abc_limit.unwrap_or(0),
            max_burst: o.max_burst.unwrap_or(0),
            rto_estimator: o.rto_estimator.unwrap_or(p.rto_estimator),
            quickack: o.quickack.unwrap_or(p.quickack),
            pacing: o.pacing.unwrap_or(false),
            pacing_quantum: o.pacing_quantum.unwrap_or(p.pacing_quantum),
            pacing_unit: o.pacing_unit.unwrap_or(p.pacing_unit),
        }
    }
}

/// What the sender's unit tests share.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::net::{Packet, PacketKind};
    use crate::sim::Time;

    /// An ACK from node 1 to node 0 for flow 0, acknowledging up to segment `n` and
    /// echoing `stamp`, with an advertised window of 1000 segments.
    pub fn ack(n: u32, stamp: Time) -> Packet {
        Packet {
            uid: 0,
            flow: 0,
            kind: PacketKind::Ack,
            src: 1,
            dst: 0,
            hop: 0,
            seq: n.saturating_sub(1),
            ack: n,
            size: 40,
            payload: 0,
            stamp,
            flags: 0,
            rwnd: 1000,
        }
    }
}
