//! The scenario document's types. Every struct denies unknown keys, so a typo is an
//! error that names the key rather than a silently ignored setting.

use super::flows::FlowSpec;
use super::jitter::{DelaySpec, JitterSpec};
use super::queues::{RedConstSpec, RedSpec, SplitSpec, SredSpec, ZlRedSpec};
use super::tagged::tagged_enum;
use super::units::{Rate, Seconds};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub simulation: Simulation,
    pub topology: Topology,
    /// Defaults for every flow's TCP options; a flow's own `tcp` table overrides them.
    #[serde(default)]
    pub tcp: TcpOptions,
    pub flows: Vec<FlowSpec>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// Simulated seconds to run.
    pub duration: Seconds,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Interval of the cwnd and queue time series; 0 turns them off.
    #[serde(default = "default_sample_interval")]
    pub sample_interval: Seconds,
    /// Window [start, end] over which goodput and link utilisation are measured;
    /// default the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<[Seconds; 2]>,
    /// Record every send, arrival and drop (large; for debugging and traces).
    #[serde(default)]
    pub event_log: bool,
    /// Link directions to capture into pcap files, under an output directory the
    /// caller gives (`[[simulation.pcap]] link = "r0->r1", file = "bottleneck.pcap"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pcap: Vec<super::traces::PcapSpec>,
}

fn default_seed() -> u64 {
    1
}
fn default_sample_interval() -> Seconds {
    Seconds(0.1)
}

/// One direction's settings that may differ from the other's.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DirectionSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Seconds>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<JitterSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<Seconds>,
}

/// A duplex link. The top-level settings apply to both directions except `loss` and
/// `jitter`, which apply to the forward direction (toward the receivers in presets,
/// `a -> b` in a custom link); `reverse` overrides any setting for the other direction.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub rate: Rate,
    pub delay: Seconds,
    /// Queue limit in packets (excluding the packet being transmitted).
    #[serde(default = "default_buffer")]
    pub buffer: u32,
    /// Optional additional limit in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_bytes: Option<u64>,
    #[serde(default)]
    pub queue: QueueSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    /// A random extra delay per packet that never reorders (default none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<JitterSpec>,
    /// The transmitter's token-bucket slack, as time at the link's rate (default 0): after
    /// an idle spell up to this much of the rate goes out back to back, as through a Linux
    /// TBF whose bucket holds one packet plus `burst` x rate. Both directions; DropTail only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<Seconds>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<DirectionSpec>,
}

fn default_buffer() -> u32 {
    100
}

impl LinkSpec {
    pub fn new(rate_bps: f64, delay_s: f64, buffer: u32) -> Self {
        LinkSpec {
            rate: Rate(rate_bps),
            delay: Seconds(delay_s),
            buffer,
            buffer_bytes: None,
            queue: QueueSpec::default(),
            loss: None,
            jitter: None,
            burst: None,
            reverse: None,
        }
    }
}

/// A per-pair change to the access link of a dumbbell or chain sender.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AccessOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Seconds>,
    /// Delay of the receiver-side access link of this pair (default: the common one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver_delay: Option<Seconds>,
    /// Jitter of this pair's sender access link toward the routers (default: the common
    /// one): each packet arrives at the router up to that much later, in order (net/jitter.rs),
    /// a random delay at the sender only, as NS-2's `overhead_` adds one before a send; it
    /// changes the bottleneck's arrival pattern without touching other pairs or the receivers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<JitterSpec>,
}

/// The network. Presets name their nodes: senders `s0..`, routers `r0..`, receivers `d0..`.
/// Tagged by `kind`; each variant's settings are their own struct so that errors keep
/// their field path (see `config::tagged`).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Topology {
    Dumbbell(DumbbellSpec),
    Chain(ChainSpec),
    Star(StarSpec),
    /// An IEEE 802.11a infrastructure WLAN (004 fig. 1): stations `w0..`, access point
    /// `ap`, wired host `h0`.
    Wlan(super::wlan::WlanSpec),
    Custom(CustomSpec),
}

tagged_enum!(Topology, "kind", {
    "dumbbell" => Dumbbell,
    "chain" => Chain,
    "star" => Star,
    "wlan" => Wlan,
    "custom" => Custom,
});

/// `s_i -- r0 == r1 -- d_i`: one bottleneck between two routers.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    pub pairs: u32,
    pub bottleneck: LinkSpec,
    #[serde(default = "default_access")]
    pub access: LinkSpec,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pair_access: Vec<AccessOverride>,
}

/// `s_i -- r0 == r1 == ... == r_hops -- d_i`: a chain of identical bottleneck hops
/// (parking lot without cross traffic).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ChainSpec {
    pub hops: u32,
    pub pairs: u32,
    pub hop: LinkSpec,
    #[serde(default = "default_access")]
    pub access: LinkSpec,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pair_access: Vec<AccessOverride>,
}

/// `s_i -- r0 == d0`: many senders, one router, one receiver (003 fig. 1).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StarSpec {
    pub senders: u32,
    pub bottleneck: LinkSpec,
    #[serde(default = "default_access")]
    pub access: LinkSpec,
}

/// Any graph: named nodes and duplex links; routes are shortest paths in hops.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CustomSpec {
    pub nodes: Vec<String>,
    pub links: Vec<CustomLink>,
}

fn default_access() -> LinkSpec {
    LinkSpec::new(100e6, 0.001, 1000)
}

/// One link of a custom topology. Its own keys (not those of `link`) are listed by hand in
/// `config::keys::schema`, because `flatten` hides them from serde's field list.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CustomLink {
    /// The two ends, `[a, b]`; the forward direction is a -> b.
    pub between: [String; 2],
    #[serde(flatten)]
    pub link: LinkSpec,
    /// Record this link's queue in the time series.
    #[serde(default = "default_true")]
    pub monitor: bool,
}

fn default_true() -> bool {
    true
}

/// A queue discipline, chosen by `kind`; parameters and defaults in [`super::queues`].
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QueueSpec {
    Droptail(DropTailSpec),
    /// Random Early Detection (Floyd & Jacobson 1993).
    Red(RedSpec),
    /// RED with a constant drop probability above `min_th` (003 section 4.1.2).
    RedConst(RedConstSpec),
    /// Stabilized RED (Ott, Lakshman & Wong 1999).
    Sred(SredSpec),
    /// Zombie Listed RED (003 section 6).
    ZlRed(ZlRedSpec),
    /// Separate data and ACK buffers (004's ref. [13]).
    Split(SplitSpec),
    /// Turns between flows, one GSO packet per turn: a Linux host's egress whose sockets
    /// send in parallel (queue/round_robin.rs).
    RoundRobin(RoundRobinSpec),
}

tagged_enum!(QueueSpec, "kind", {
    "droptail" => Droptail,
    "red" => Red,
    "red_const" => RedConst,
    "sred" => Sred,
    "zl_red" => ZlRed,
    "split" => Split,
    "round_robin" => RoundRobin,
});

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::Droptail(DropTailSpec {})
    }
}

/// DropTail has no settings beyond the link's `buffer` and `buffer_bytes`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DropTailSpec {}

/// Round robin has no settings beyond the link's `buffer` and `buffer_bytes`, which
/// limit all flows together.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RoundRobinSpec {}

/// Which packets a loss model hits.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossApplies {
    #[default]
    Data,
    Acks,
    Both,
}

/// A random loss process on one link direction, tagged by `model`.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum LossSpec {
    Bernoulli(BernoulliSpec),
    GilbertElliott(GilbertElliottSpec),
}

tagged_enum!(LossSpec, "model", {
    "bernoulli" => Bernoulli,
    "gilbert_elliott" => GilbertElliott,
});

/// Each packet is lost independently with probability `p`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BernoulliSpec {
    pub p: f64,
    #[serde(default)]
    pub applies_to: LossApplies,
    /// Where the draws come from (default: the link direction's own stream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<LossStream>,
    /// Draws discarded before the first packet (default 0): e.g. the handshake frames the
    /// test bed's delay element draws for before any data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<u64>,
}

/// The random stream a Bernoulli loss draws from.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossStream {
    /// The link direction's own stream (`loss:<link>`, from the scenario seed).
    #[default]
    Engine,
    /// POSIX `drand48` seeded with the scenario seed (`sim::Drand48`): the kernel test
    /// bed's delay element's sequence, so both drop the same packets by index.
    Drand48,
}

/// Bursty loss from a two-state Markov chain stepped per packet (net/loss.rs).
/// Give either `p` (good -> bad) and `r` (bad -> good), with optional `loss_good`
/// (default 0) and `loss_bad` (default 1); or `mean_loss` and `mean_burst` (packets,
/// at least 1) of Gilbert's model, which set `p` and `r` with `loss_good = 0`,
/// `loss_bad = 1`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_good: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_bad: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_loss: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_burst: Option<f64>,
    #[serde(default)]
    pub applies_to: LossApplies,
}

/// How the sender repairs losses detected by duplicate ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// Fast retransmit, then slow start from one segment (go-back-N).
    Tahoe,
    /// Fast retransmit and fast recovery with window inflation (RFC 5681 section 3.2).
    Reno,
    /// Reno plus partial-ACK handling (RFC 6582).
    NewReno,
    /// Conservative loss recovery with a scoreboard and a pipe estimate (RFC 6675).
    Rfc6675,
    /// Proportional rate reduction (RFC 6937, Linux `tcp_cwnd_reduction`) over the
    /// scoreboard of RFC 6675.
    Prr,
}

impl Recovery {
    /// The recovery a name gives, as the scenario reads it (the Reno family's names).
    pub fn parse(s: &str) -> Option<Recovery> {
        Recovery::deserialize(toml::Value::from(s)).ok()
    }

    /// The name a scenario gives it (and the records show).
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Rfc6675 => "rfc6675",
            Recovery::Prr => "prr",
        }
    }
}

/// TCP options. Every field is optional; unset fields take the documented defaults.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TcpOptions {
    /// Segment payload, bytes (default 1000, NS-2's packetSize_).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<u32>,
    /// TCP/IP header bytes added on the wire to data and ACK packets (default 40).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_bytes: Option<u32>,
    /// Receiver's advertised window, packets (default 100000: never limits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rwnd: Option<u32>,
    /// The advertised window opens at 64 KB and grows as Linux's receive-buffer
    /// autotuning grows it, never above `rwnd` (default: ns2 off, linux on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rwnd_autotune: Option<bool>,
    /// With `rwnd_autotune`: acknowledge at once every in-order segment that finds the
    /// window's soft limit with room to grow (Linux `tcp_grow_window` sets
    /// `icsk_ack.quick |= 1`; default: ns2 off, linux on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rwnd_growth_ack: Option<bool>,
    /// With `rwnd_autotune`: the receive memory a full-sized segment takes (Linux
    /// `skb->truesize`, bytes). Linux >= 6.5 sizes the window before the first right-sizing
    /// from the 128 KB buffer times payload / truesize (`scaling_ratio`, measured on the
    /// first full-sized segment), not half of it; default none: half, as engines before
    /// 0.3.10 had it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcv_truesize: Option<u32>,
    /// With `delayed_ack`: acknowledge at once an in-order, full-sized segment that
    /// carries PSH (Linux >= 6.6 `tcp_measure_rcv_mss` sets `ICSK_ACK_PUSHED`, and
    /// `tcp_cleanup_rbuf` ACKs once the application has read everything; default: ns2
    /// off, linux on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_ack: Option<bool>,
    /// Which segments a bulk sender marks with PSH: "gso" (Linux's rule: the last of every
    /// GSO packet of two or more segments sent whole; default for linux), "burst" (the
    /// last new segment of every ACK-triggered burst of two or more, engine 0.3.3's
    /// approximation of it) or "none" (default for ns2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_push: Option<AppPush>,
    /// Linux's TSO deferral (`tcp_tso_should_defer`): with room for less than one GSO
    /// packet and the oldest segment's ACK due within min(1 ms, SRTT / 2), new data waits
    /// for that ACK (tcp/tso_defer.rs; unpaced flows; default: ns2 off, linux on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tso_defer: Option<bool>,
    /// With `sack`: Linux's SACK compression (4.18+, `__tcp_ack_snd_check`): with
    /// out-of-order data queued, the first three ACKs for the same cumulative point go at
    /// once and later ones wait up to min(1 ms, RTT / 20) plus 100 us of timer slack, one
    /// ACK covering all that arrived, at most 44 waiting (tcp/sack_compress.rs; default:
    /// ns2 off, linux on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack_compress: Option<bool>,
    /// Initial congestion window, packets (default 2, RFC 5681 section 3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_cwnd: Option<f64>,
    /// Initial slow-start threshold, packets (default: unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<f64>,
    /// Acknowledge every second segment (RFC 5681 section 4.2; default off, as NS-2's TCPSink).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timer (default 100 ms, NS-2's interval_).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delack_timeout: Option<Seconds>,
    /// With `delayed_ack`: the ACK the delayed-ACK rule calls for at once (a second
    /// unacknowledged segment, or PSH under `push_ack`) leaves this long after the segment
    /// that calls for it, and covers every segment that arrives meanwhile (a host's receive
    /// path; default 0: at once, in both profiles). A time, or a distribution drawn anew
    /// for each ACK (the jitter kinds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_latency: Option<DelaySpec>,
    /// With `delayed_ack`: the receiving application reads this long after data becomes
    /// readable (from the first segment it has not read), rather than at once (default 0,
    /// in both profiles). An ACK the second unacknowledged segment calls for then leaves at
    /// once only if the unread data leaves the advertised window whole; otherwise it waits
    /// for the read (Linux `__tcp_ack_snd_check`, `tcp_cleanup_rbuf`). A time, or a
    /// distribution drawn anew for each read (the jitter kinds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_read: Option<DelaySpec>,
    /// Lower bound on the retransmission timeout (default 200 ms, as Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto: Option<Seconds>,
    /// Upper bound on the retransmission timeout (default 60 s, RFC 6298 2.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rto: Option<Seconds>,
    /// RTO before the first RTT sample (default 1 s, RFC 6298 2.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rto: Option<Seconds>,
    /// Clock granularity G of RFC 6298 (default 1 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_granularity: Option<Seconds>,
    /// Duplicate ACKs that trigger fast retransmit (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupack_threshold: Option<u32>,
    /// NewReno's retransmission timer during recovery (RFC 6582 section 4): "impatient"
    /// (default, as RFC 6582 section 3.2 specifies: restart on the first partial ACK only) or
    /// "slow_but_steady" (restart on every partial ACK).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_ack_timer: Option<PartialAckTimer>,
    /// The named set of defaults every other key overrides: "ns2" (default; NS-2's one-way
    /// agents, as the papers' simulators) or "linux" (Linux 6.x defaults). See docs/scenario.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<Stack>,
    /// Loss recovery: tahoe, reno, newreno, rfc6675 or prr (default: ns2 the algorithm's
    /// own, linux prr). A flow's `recovery` key, if given, wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<Recovery>,
    /// Selective acknowledgements (RFC 2018) generated by the receiver and kept in the
    /// sender's scoreboard (default: ns2 off, linux on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
    /// Duplicate-SACK reports (RFC 2883) of segments received twice (default: as `sack`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsack: Option<bool>,
    /// Timestamps option (RFC 7323): RTT samples from every ACK that advances, the echo
    /// rule of section 4.3, 12 more header bytes (default: ns2 off, linux on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<bool>,
    /// RACK loss detection by time (RFC 8985 section 6; default: ns2 off, linux on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack: Option<bool>,
    /// Tail loss probes (RFC 8985 section 7; default: as `rack`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tlp: Option<bool>,
    /// Undo of a window reduction that D-SACKs or timestamps prove spurious (RFC 2883
    /// section 4, RFC 3522; Linux `tcp_try_undo_*`; default: ns2 off, linux on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<bool>,
    /// Window growth: "per_ack" (one increase per ACK, as NS-2 and ns-3; default for ns2)
    /// or "bytes" (by the segments each ACK covers, RFC 3465; default for linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_growth: Option<WindowGrowth>,
    /// RFC 3465's L: at most this many segments of growth per ACK with "bytes" growth
    /// (0 = no limit; default: 0, as Linux, which dropped the limit in 3.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abc_limit: Option<u32>,
    /// At most this many segments sent back to back in response to one event (NS-2's
    /// `maxburst_`; 0 = no limit, the default of NS-2 and Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_burst: Option<u32>,
    /// RTO estimator: "rfc6298" (default for ns2) or "linux" (Linux's `tcp_rtt_estimator`:
    /// the variance term never below the minimum RTO, so RTO >= SRTT + min_rto; default for
    /// linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_estimator: Option<RtoEstimatorKind>,
    /// Segments acknowledged at once at the start of a connection before delayed ACKs
    /// begin (Linux quick-ack mode, `TCP_MAX_QUICKACKS`; default: ns2 0, linux 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quickack: Option<u32>,
    /// Pace every flow's segments (Linux's internal pacing at `tcp_update_pacing_rate`'s
    /// rate; default off, as Linux without the fq qdisc). An algorithm that sets its own
    /// pacing rate (BBR) is paced whatever this says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<bool>,
    /// Segments a paced flow may send back to back (default: ns2 1, linux 2, Linux's
    /// `tcp_min_tso_segs` burst).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing_quantum: Option<u32>,
    /// What the pacer spaces: "segment" (each segment its own slot, back to back only on
    /// the credit of `pacing_quantum`; default for ns2) or "gso" (whole GSO packets of the
    /// size goal, as Linux; default for linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing_unit: Option<PacingUnit>,
}

/// What a paced flow's pacer spaces.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PacingUnit {
    /// Each segment waits for the previous one's slot; a pause earns the credit of
    /// `pacing_quantum` - 1 segments.
    Segment,
    /// Each transmission leaves as GSO packets of up to the size goal (`tcp_tso_autosize`,
    /// about a millisecond of the pacing rate, at least `tcp_min_tso_segs` = 2 segments,
    /// at most half the window), back to back, and the next packet waits for the whole
    /// packet's slot: Linux's internal pacing (`tcp_write_xmit` checks `tcp_pacing_check`
    /// per skb; `tcp_update_skb_after_send` moves `tcp_wstamp_ns` on by the skb's length
    /// over the rate).
    Gso,
}

/// A named set of TCP defaults.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Stack {
    /// NS-2's one-way TCP agents (the papers' simulators).
    #[default]
    Ns2,
    /// Linux 6.x defaults.
    Linux,
}

impl Stack {
    /// Whether the profile's receiver delays ACKs: NS-2's TCPSink ACKs every segment,
    /// Linux every second one (RFC 5681 section 4.2).
    pub fn delays_acks(self) -> bool {
        self == Stack::Linux
    }
}

/// How congestion-avoidance and slow-start growth count an ACK.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WindowGrowth {
    /// Every ACK counts as one segment (NS-2's `opencwnd`, ns-3).
    PerAck,
    /// An ACK counts the segments it newly acknowledges (RFC 3465, Linux).
    Bytes,
}

/// Which segments the sending application's writes end with PSH.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AppPush {
    /// None (NS-2's agents have no PSH).
    None,
    /// The last new segment of each ACK-triggered burst of two or more carries PSH, a
    /// single segment none: the test bed's sender's pattern for its bursts of two and four
    /// (99 %); its bursts of three and five carry none (`Gso` is the kernel's rule;
    /// docs/kernel.md, "Where the bed's PSH comes from"). The end of a finite transfer
    /// carries PSH too.
    Burst,
    /// Linux's transmit path: each transmission cuts GSO packets off the head of the write
    /// queue's 64 KB skbs where the sender stands (`tcp_mss_split_point`: at most the size
    /// goal of `tcp_tso_autosize`, about a millisecond of the pacing rate and at least
    /// `tcp_min_tso_segs` = 2 segments, and half the window), and `__tcp_transmit_skb`
    /// forces PSH on every packet of more than one segment, so its last segment carries it;
    /// a single segment goes without. The end of a finite transfer carries PSH too.
    Gso,
}

/// Which retransmission-timeout estimator the sender runs.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RtoEstimatorKind {
    /// RFC 6298 with the `min_rto` floor on the whole timeout.
    Rfc6298,
    /// Linux's `tcp_rtt_estimator`: `min_rto` floors the variance term instead.
    Linux,
}

/// When NewReno restarts the retransmission timer on partial ACKs (RFC 6582 section 4).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PartialAckTimer {
    #[default]
    Impatient,
    SlowButSteady,
}

impl TcpOptions {
    /// `self` with unset fields taken from `defaults`.
    pub fn or(&self, defaults: &TcpOptions) -> TcpOptions {
        TcpOptions {
            mss: self.mss.or(defaults.mss),
            header_bytes: self.header_bytes.or(defaults.header_bytes),
            rwnd: self.rwnd.or(defaults.rwnd),
            rwnd_autotune: self.rwnd_autotune.or(defaults.rwnd_autotune),
            rwnd_growth_ack: self.rwnd_growth_ack.or(defaults.rwnd_growth_ack),
            rcv_truesize: self.rcv_truesize.or(defaults.rcv_truesize),
            push_ack: self.push_ack.or(defaults.push_ack),
            app_push: self.app_push.or(defaults.app_push),
            tso_defer: self.tso_defer.or(defaults.tso_defer),
            sack_compress: self.sack_compress.or(defaults.sack_compress),
            initial_cwnd: self.initial_cwnd.or(defaults.initial_cwnd),
            initial_ssthresh: self.initial_ssthresh.or(defaults.initial_ssthresh),
            delayed_ack: self.delayed_ack.or(defaults.delayed_ack),
            delack_timeout: self.delack_timeout.or(defaults.delack_timeout),
            ack_latency: self.ack_latency.clone().or(defaults.ack_latency.clone()),
            app_read: self.app_read.clone().or(defaults.app_read.clone()),
            min_rto: self.min_rto.or(defaults.min_rto),
            max_rto: self.max_rto.or(defaults.max_rto),
            initial_rto: self.initial_rto.or(defaults.initial_rto),
            clock_granularity: self.clock_granularity.or(defaults.clock_granularity),
            dupack_threshold: self.dupack_threshold.or(defaults.dupack_threshold),
            partial_ack_timer: self.partial_ack_timer.or(defaults.partial_ack_timer),
            stack: self.stack.or(defaults.stack),
            recovery: self.recovery.or(defaults.recovery),
            sack: self.sack.or(defaults.sack),
            dsack: self.dsack.or(defaults.dsack),
            timestamps: self.timestamps.or(defaults.timestamps),
            rack: self.rack.or(defaults.rack),
            tlp: self.tlp.or(defaults.tlp),
            undo: self.undo.or(defaults.undo),
            window_growth: self.window_growth.or(defaults.window_growth),
            abc_limit: self.abc_limit.or(defaults.abc_limit),
            max_burst: self.max_burst.or(defaults.max_burst),
            rto_estimator: self.rto_estimator.or(defaults.rto_estimator),
            quickack: self.quickack.or(defaults.quickack),
            pacing: self.pacing.or(defaults.pacing),
            pacing_quantum: self.pacing_quantum.or(defaults.pacing_quantum),
            pacing_unit: self.pacing_unit.or(defaults.pacing_unit),
        }
    }
}
