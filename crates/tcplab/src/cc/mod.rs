//! Congestion control: one trait, one file per algorithm.
//!
//! The hooks mirror Linux's `struct tcp_congestion_ops` (include/net/tcp.h) so that an
//! algorithm reads the same here and in a BPF struct_ops program:
//!
//! | Linux hook      | here                                  | called                                   |
//! |-----------------|---------------------------------------|------------------------------------------|
//! | `init`          | [`CongestionControl::init`]           | once, before the first segment           |
//! | `ssthresh`      | [`CongestionControl::ssthresh`]       | on entering loss recovery or on a timeout |
//! | `cong_avoid`    | [`CongestionControl::cong_avoid`]     | per ACK of new data, outside Recovery    |
//! | `pkts_acked`    | [`CongestionControl::pkts_acked`]     | per ACK of new data, with the RTT sample |
//! | `in_ack_event`  | [`CongestionControl::in_ack_event`]   | per ACK, duplicates included             |
//! | `set_state`     | [`CongestionControl::set_state`]      | on every change of [`CaState`]           |
//! | `cwnd_event`    | [`CongestionControl::cwnd_event`]     | on the events of [`CaEvent`]             |
//! | `undo_cwnd`     | [`CongestionControl::undo_cwnd`]      | when a retransmission proves spurious    |
//!
//! | `cong_control`  | [`CongestionControl::cong_control`]   | per ACK, instead of `cong_avoid` and PRR, for an algorithm that [`controls_rate`](CongestionControl::controls_rate) |
//!
//! Two hooks go beyond Linux because the papers need them: [`CongestionControl::retransmit_check`]
//! (Vegas's fine-grained retransmission, Brakmo & Peterson 1995 section 3.1) and
//! [`CongestionControl::loss_tag`] (Veno's loss classification, 001 section II-B, recorded
//! beside the true cause of each loss).
//!
//! Windows are in packets and fractional, as in NS-2's `cwnd_`; the sender sends
//! `floor(min(cwnd, rwnd))` packets.

pub mod ack_loss;
pub mod areno;
pub mod bbr;
pub mod catalog;
pub mod code;
pub mod ctcp;
pub mod cubic;
pub mod cubic_linux;
pub mod delay;
pub mod fast;
pub mod highspeed;
pub mod hystart;
#[cfg(test)]
mod kernel_stack;
#[cfg(test)]
mod kernel_vectors;
pub mod linux_window;
pub mod newvegas;
pub mod params;
pub mod registry;
pub mod reno;
pub mod round;
pub mod scalable;
/// Also outside tests: 000 table 1 is reproduced through it for the report.
pub mod scripted;
pub mod vegas;
pub mod vegas_a;
pub mod vegas_linux;
pub mod vegas_plus;
pub mod veno;

pub use crate::config::Recovery;
use crate::sim::Time;
pub use params::{parse_params, CcSpec};
pub use registry::{build, ALGORITHMS};

/// The sender's congestion state (Linux `enum tcp_ca_state`, in its order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    /// Normal operation.
    Open,
    /// Duplicate ACKs seen, fewer than the fast-retransmit threshold.
    Disorder,
    /// Fast recovery after a fast retransmit.
    Recovery,
    /// Recovering after a retransmission timeout.
    Loss,
}

/// Events outside the ACK path (Linux `enum tcp_ca_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaEvent {
    /// First transmission when nothing was in flight.
    TxStart,
    /// The retransmission timer expired (Linux `CA_EVENT_LOSS`).
    Loss,
    /// Fast recovery ended (Linux `CA_EVENT_COMPLETE_CWR`).
    CompleteCwr,
}

/// The engine's side of the scenario's recovery names (config::Recovery).
impl Recovery {
    /// Whether recovery runs on the sender's scoreboard (RFC 6675, PRR) rather than on
    /// NS-2's cumulative-ACK agents.
    pub fn uses_scoreboard(self) -> bool {
        matches!(self, Recovery::Rfc6675 | Recovery::Prr)
    }
}

/// The narrow view of the sender that an algorithm reads and writes.
///
/// An algorithm changes `cwnd` and `ssthresh`; everything else is read-only information
/// refreshed by the sender before every hook.
#[derive(Clone, Debug)]
pub struct CcState {
    /// Congestion window, packets.
    pub cwnd: f64,
    /// Slow-start threshold, packets.
    pub ssthresh: f64,
    /// Current simulated time.
    pub now: Time,
    pub ca_state: CaState,
    /// Oldest unacknowledged segment.
    pub snd_una: u32,
    /// Next new segment to send (one past the highest sent).
    pub snd_nxt: u32,
    /// Segments outstanding (`snd_nxt - snd_una`).
    pub in_flight: u32,
    /// The peer's advertised window, packets.
    pub rwnd: u32,
    /// Whether the last send was limited by cwnd rather than by rwnd or the application
    /// (Linux `tcp_is_cwnd_limited`; RFC 7661).
    pub cwnd_limited: bool,
    /// Smoothed RTT (RFC 6298), zero before the first sample.
    pub srtt: Time,
    /// Smallest RTT sample seen on the connection, `Time::MAX` before the first sample.
    pub min_rtt: Time,
    /// Most recent RTT sample.
    pub latest_rtt: Time,
    /// Current retransmission timeout.
    pub rto: Time,
    /// Segment payload size, bytes.
    pub mss: u32,
    /// Segments the receiver covers with one ACK in steady state: 2 when it delays ACKs
    /// (RFC 5681 section 4.2), else 1. The simulator knows it from the flow's TcpConfig;
    /// a real sender would have to infer it. Used by the ACK-loss reaction of 004.
    pub ack_stride: u32,
    /// Pacing rate, bytes of payload per second (Linux `sk_pacing_rate`); infinite: no
    /// pacing. An algorithm that [`controls_rate`](CongestionControl::controls_rate) sets
    /// it; with the `pacing` option the sender sets it for the others (tcp/pacing.rs).
    pub pacing_rate: f64,
    /// The `pacing_quantum` option: the TSO/GSO burst BBR budgets for (`bbr_tso_segs_goal`,
    /// 2 segments at 1.2 to about 23 Mb/s), and with `pacing_unit = "segment"` the segments
    /// the pacer lets go back to back after a pause (with `"gso"` its packets are the sender's
    /// GSO size goal, tcp/pacing.rs).
    pub pacing_quantum: u32,
    /// When the pacer lets the next segment go (Linux `tcp_wstamp_ns`), for a paced flow.
    pub pacing_next: Time,
    /// Delivery-rate estimation (tcp/rate.rs), kept only for a flow that paces: segments
    /// delivered, cumulatively acknowledged or SACKed, so far (Linux `tp->delivered`) ...
    pub delivered: u64,
    /// ... when `delivered` last grew (Linux `delivered_mstamp`) ...
    pub delivered_time: Time,
    /// ... segments marked lost so far, a retransmission lost again counting again
    /// (Linux `tp->lost`) ...
    pub lost: u64,
    /// ... and the application-limited mark: nonzero while the samples are
    /// application-limited, until `delivered` passes it (Linux `tp->app_limited`). An
    /// algorithm may set it in `cong_control` (BBR does in PROBE_RTT).
    pub app_limited: u64,
    /// When the last data segment was sent (Linux `tp->lsndtime`): at `CaEvent::TxStart`
    /// still the last send before the idle spell.
    pub last_send: Time,
}

impl CcState {
    pub fn new(initial_cwnd: f64, initial_ssthresh: f64, mss: u32, rwnd: u32) -> Self {
        CcState {
            cwnd: initial_cwnd,
            ssthresh: initial_ssthresh,
            now: Time::ZERO,
            ca_state: CaState::Open,
            snd_una: 0,
            snd_nxt: 0,
            in_flight: 0,
            rwnd,
            cwnd_limited: true,
            srtt: Time::ZERO,
            min_rtt: Time::MAX,
            latest_rtt: Time::ZERO,
            rto: Time::from_secs_f64(1.0),
            mss,
            ack_stride: 1,
            pacing_rate: f64::INFINITY,
            pacing_quantum: 1,
            pacing_next: Time::ZERO,
            delivered: 0,
            delivered_time: Time::ZERO,
            lost: 0,
            app_limited: 0,
            last_send: Time::ZERO,
        }
    }

    /// Whether the window is in slow start (Linux `tcp_in_slow_start`).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// The window the sender may use: the smaller of cwnd and the advertised window.
    pub fn effective_window(&self) -> f64 {
        self.cwnd.min(self.rwnd as f64)
    }
}

/// One ACK that acknowledged new data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckSample {
    /// Segments newly acknowledged by this ACK.
    pub acked: u32,
    /// RTT measured from this ACK, if Karn's rule allows one.
    pub rtt: Option<Time>,
}

/// What one ACK tells about the delivery rate (draft-cheng-iccrg-delivery-rate-estimation
/// section 3.3; Linux `struct rate_sample`), handed to
/// [`CongestionControl::cong_control`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Segments delivered over `interval`; `None` when no segment this ACK delivered
    /// carried a snapshot (Linux `delivered = -1`).
    pub delivered: Option<u32>,
    /// The longer of the send and ACK phases of the sample; `None` when the sample is not
    /// valid (no snapshot, or shorter than the minimum RTT: Linux `interval_us = -1`).
    pub interval: Option<Time>,
    /// `delivered` at the transmission of the segment the sample is taken from.
    pub prior_delivered: u64,
    /// Segments this ACK newly acknowledged or SACKed.
    pub acked_sacked: u32,
    /// Segments newly marked lost while processing this ACK.
    pub losses: u32,
    /// The sample's segment was sent while the application had too little data, so the
    /// rate may say more about the application than about the path.
    pub is_app_limited: bool,
    /// The sample's segment was a retransmission.
    pub is_retrans: bool,
    /// RTT of the newest segment this ACK delivered (Linux `rs->rtt_us`), if any.
    pub rtt: Option<Time>,
    /// Segments in flight before this ACK was processed.
    pub prior_in_flight: u32,
}

impl RateSample {
    /// The delivery rate of a valid sample, segments per second.
    pub fn rate(&self) -> Option<f64> {
        match (self.delivered, self.interval) {
            (Some(d), Some(i)) if i > Time::ZERO => Some(d as f64 / i.as_secs_f64()),
            _ => None,
        }
    }
}

/// Any ACK, duplicates included.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckEvent {
    /// The cumulative ACK number (next segment expected).
    pub ack: u32,
    /// Segments newly acknowledged (0 for a duplicate).
    pub newly_acked: u32,
    /// A duplicate ACK (no new data acknowledged while data is outstanding).
    pub duplicate: bool,
}

/// What triggered a loss response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// The duplicate-ACK threshold was reached.
    FastRetransmit,
    /// The algorithm asked for a retransmission through `retransmit_check`.
    EarlyRetransmit,
    /// The retransmission timer expired.
    Timeout,
    /// Lost ACKs, inferred by the ACK-loss reaction of 004 section III-A ([`ack_loss`]);
    /// no segment is retransmitted.
    AckLoss,
    /// A tail loss probe repaired a loss (RFC 8985 section 7.4.2; Linux
    /// `tcp_process_tlp_ack`): the window is reduced once, without a recovery episode.
    LossProbe,
    /// RACK found a segment lost by time before three duplicate ACKs came (RFC 8985
    /// section 6.2 and its reordering timer).
    Rack,
}

/// Context of a loss response.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossInfo {
    pub kind: LossKind,
    /// The segment being retransmitted.
    pub seq: u32,
    /// Whether that segment had been retransmitted before.
    pub already_retransmitted: bool,
    /// When that segment was last transmitted (Vegas reduces the window only for losses
    /// of segments sent after its last reduction, Brakmo & Peterson 1995 section 3.1).
    pub sent_at: Time,
}

/// When the sender asks whether a segment should be retransmitted early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbePoint {
    /// A duplicate ACK outside fast recovery that did not trigger a fast retransmit
    /// (the count of consecutive duplicates so far).
    DupAck(u32),
    /// The first or second new ACK after a retransmission (1 or 2).
    NewAckAfterRetransmit(u8),
}

/// A question from the sender: retransmit `seq` now?
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetransmitProbe {
    pub point: ProbePoint,
    /// The oldest unacknowledged segment, the one that would be retransmitted.
    pub seq: u32,
    /// When that segment was last transmitted.
    pub sent_at: Time,
    pub already_retransmitted: bool,
}

/// An algorithm's own account of a loss it responded to (Veno's "N < beta" test),
/// recorded beside the true cause of the loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossTag {
    /// The branch taken, e.g. "random" or "congestive".
    pub label: &'static str,
    /// The quantity the decision was based on, e.g. Veno's backlog N.
    pub value: f64,
}

/// A congestion-control algorithm. See the module docs for when each hook runs.
pub trait CongestionControl: Send {
    /// Registry name ("reno", "vegas", ...).
    fn name(&self) -> &'static str;

    /// The loss recovery the algorithm's source paper assumes, used unless the scenario
    /// names another.
    fn default_recovery(&self) -> Recovery {
        Recovery::NewReno
    }

    fn init(&mut self, _st: &mut CcState) {}

    /// The new slow-start threshold on a loss (Linux `ssthresh`). The sender then sets
    /// cwnd according to its recovery mode (ssthresh + 3 in fast recovery, the value of
    /// [`CongestionControl::cwnd_after_timeout`] after a timeout, 1 in Tahoe).
    fn ssthresh(&mut self, st: &CcState, loss: &LossInfo) -> f64;

    /// Window growth on an ACK of new data outside fast recovery (Linux `cong_avoid`).
    fn cong_avoid(&mut self, st: &mut CcState, acked: u32);

    /// Per ACK of new data, with the RTT sample (Linux `pkts_acked`). Runs before `cong_avoid`.
    fn pkts_acked(&mut self, _st: &mut CcState, _sample: &AckSample) {}

    /// Per ACK, duplicates included (Linux `in_ack_event`). Runs first.
    fn in_ack_event(&mut self, _st: &mut CcState, _ack: &AckEvent) {}

    fn set_state(&mut self, _st: &mut CcState, _new: CaState) {}

    fn cwnd_event(&mut self, _st: &mut CcState, _event: CaEvent) {}

    /// The window to restore when a loss response proves spurious (Linux `undo_cwnd`).
    fn undo_cwnd(&mut self, st: &CcState, prior_cwnd: f64) -> f64 {
        st.cwnd.max(prior_cwnd)
    }

    /// Window after a retransmission timeout, packets (1 in RFC 5681; Vegas uses 2).
    fn cwnd_after_timeout(&self) -> f64 {
        1.0
    }

    /// Whether to retransmit the oldest unacknowledged segment now, before three
    /// duplicate ACKs or a timeout (Vegas's fine-grained check). Asked on every duplicate
    /// ACK outside fast recovery and on the first and second new ACK after a retransmission.
    fn retransmit_check(&mut self, _st: &CcState, _probe: &RetransmitProbe) -> bool {
        false
    }

    /// The algorithm's classification of the loss it just responded to, if it makes one.
    fn loss_tag(&self) -> Option<LossTag> {
        None
    }

    /// Internal variables worth plotting (NewVegas's thresholds, CTCP's dwnd, ...),
    /// sampled with the other time series.
    fn variables(&self, _out: &mut Vec<(&'static str, f64)>) {}

    /// Whether the algorithm sets cwnd and the pacing rate itself from rate samples, as a
    /// Linux module with a `cong_control` hook that asks for pacing (BBR). The sender then
    /// paces the flow, estimates its delivery rate and calls
    /// [`cong_control`](Self::cong_control) on every ACK instead of `cong_avoid` and its
    /// own window rules in recovery (PRR, fast-recovery inflation, cwnd = ssthresh on
    /// leaving recovery), as Linux's `tcp_cong_control` does.
    fn controls_rate(&self) -> bool {
        false
    }

    /// Per ACK with its rate sample, for an algorithm that
    /// [`controls_rate`](Self::controls_rate): set `st.cwnd` and `st.pacing_rate`
    /// (Linux `cong_control`).
    fn cong_control(&mut self, _st: &mut CcState, _rs: &RateSample) {}

    /// The flow's own random stream, handed over once before `init` (BBR draws its first
    /// gain-cycle phase from it).
    fn set_random_stream(&mut self, _rng: crate::sim::RngStream) {}
}
