//! TCP Vegas (Brakmo & Peterson 1995, as summarised in 000 section 2.2 and 002 section 2),
//! and the machinery its variants inherit.
//!
//! Vegas-A, NewVegas, CODE and Vegas+ change only Vegas's congestion-avoidance rule and
//! keep its slow start, its retransmission checks and its loss response (000 sections
//! 2.4, 2.5, 3.2; 003 section 5.1). [`VegasFamily`] is that common part; a member supplies
//! an [`AvoidanceRule`]. Plain Vegas is `VegasFamily<VegasRule>`.
//!
//! Two variants are offered, because the papers evaluate both:
//! - `variant = "paper"` (default): the RTT each member's paper names (for Vegas,
//!   NewVegas, Vegas-A and Vegas+ the sample of the round's distinguished segment,
//!   Brakmo & Peterson section 3.2; for CODE the round's minimum, 000 section 4.5), the
//!   fine-grained retransmission check, cwnd to 3/4 or 1/2 on a retransmission and 2
//!   after a timeout (000 section 2.2.3).
//! - `variant = "linux"`: Linux `net/ipv4/tcp_vegas.c`, which 004 evaluates, rule by rule
//!   (cc/vegas_linux.rs): Linux's module defaults alpha 2, beta 4, gamma 1; once per RTT
//!   on the minimum RTT of the round, in whole microseconds, with Diff in integer
//!   arithmetic; Reno's window growth for a round with 2 RTT samples or fewer and
//!   whenever the connection is not in the Open state; slow start on every ACK
//!   (`tcp_slow_start`), left when Diff > gamma with cwnd = min(cwnd, target_cwnd + 1)
//!   and ssthresh = min(ssthresh, cwnd); ssthresh then kept at least 3/4 of cwnd
//!   (`tcp_current_ssthresh`); no fine-grained retransmission; Reno's loss response
//!   (`tcp_reno_ssthresh`: ssthresh = max(cwnd / 2, 2) in whole segments, cwnd 1 after a
//!   timeout).
//! - `variant = "kernel"`: the paper variant as tcplab's BPF port (bpf/tl_vegas_family.h)
//!   implements it within the kernel's hooks (docs/kernel.md), so that the conformance
//!   vectors specify the port exactly: no fine-grained retransmission (the stack decides
//!   retransmits); no loss history (`loss_history = false`: the `ssthresh` hook says
//!   neither when the lost segment was sent nor whether it had been retransmitted, so
//!   every call opens a loss episode and cuts to 3/4); cwnd = 2 when the state switches to
//!   Loss (the port's place for 000 section 2.2.3's window after a timeout, since the
//!   stack writes its own window first); only the `last` and `min` RTT choices.
//!
//! `fine_grained_retransmit`, `loss_response` and `loss_history` are also options of their
//! own, which override the variant's choice; `rtt` too, except that the linux variant's
//! rules are defined on the round's minimum and the kernel variant has only `last` and
//! `min` (any other choice is an error there).

use super::delay::{BaseRtt, Estimate};
use super::params::{check_range, ParamStruct};
use super::registry::Algorithm;
use super::round::{Round, RoundTracker, RttChoice};
use super::vegas_linux::LinuxVegas;
use super::{
    parse_params, AckSample, CaEvent, CaState, CcSpec, CcState, CongestionControl, LossInfo,
    LossKind, Recovery, RetransmitProbe,
};
use crate::config::ConfigError;
use crate::rto::RtoEstimator;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// How the window responds to a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossResponse {
    /// 000 section 2.2.3: cwnd to 3/4 when the lost segment had been sent once, to 1/2
    /// when it had already been retransmitted, at most once per window; after a timeout
    /// ssthresh = cwnd/2 and cwnd = 2.
    Vegas,
    /// Linux `tcp_vegas.c` leaves losses to Reno: ssthresh = cwnd/2, cwnd 1 after a timeout.
    Reno,
}

/// How Delta, the extra packets in the network (000 eq. (1)), is taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffRounding {
    /// 000 eq. (1) as written: a real number of packets.
    #[default]
    Exact,
    /// Rounded to the nearest whole packet, as NS-2's `Agent/TCP/Vegas` does
    /// (`tcp-vegas.cc`: `int delta = int((expect - v_actual_) * v_baseRTT_ + 0.5)`), the
    /// simulator 000 (section 4) and 003 ran. Equal-to-threshold cases then become
    /// common: with alpha 1 and beta 3 a window grows only when Delta < 0.5 and shrinks
    /// only when Delta >= 3.5, and Vegas-A's "beta > Delta > alpha" means Delta = 2.
    Nearest,
}

impl DiffRounding {
    pub fn apply(self, diff: f64) -> f64 {
        match self {
            DiffRounding::Exact => diff,
            DiffRounding::Nearest => (diff + 0.5).floor(),
        }
    }
}

/// A preset of the mechanisms where the paper and Linux differ (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// Each member's paper: its RTT choice, the fine-grained retransmission check, cwnd to
    /// 3/4 or 1/2 on a retransmission and 2 after a timeout (000 section 2.2.3).
    Paper,
    /// Linux `tcp_vegas.c` rule by rule (cc/vegas_linux.rs): alpha 2, beta 4, gamma 1, the
    /// round's minimum RTT, no fine-grained retransmission, Reno's loss response.
    Linux,
    /// The paper's rules as tcplab's BPF port implements them (bpf/ports.toml): no
    /// fine-grained retransmission, no loss history, cwnd 2 at the switch to Loss.
    Kernel,
}

/// The options every member of the family accepts. Unset fields take the variant's
/// choice, then the member's default.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct VegasOptions {
    /// Lower threshold alpha, packets queued (000 eq. (2); default 1 as in 000 section 2.5,
    /// 002 and 003). The initial alpha0 of the adaptive variants.
    pub alpha: Option<f64>,
    /// Upper threshold beta, packets queued (000 eq. (2); default 3). The initial beta0 of
    /// the adaptive variants.
    pub beta: Option<f64>,
    /// Slow-start exit threshold gamma, packets queued (000 section 2.2.1; default 1).
    pub gamma: Option<f64>,
    /// Which RTT of a round enters Delta: "last", "min", "mean" or "smoothed".
    pub rtt: Option<RttChoice>,
    /// Vegas's fine-grained retransmission check (000 section 2.2.3).
    pub fine_grained_retransmit: Option<bool>,
    /// How the window responds to a loss: "vegas" or "reno".
    pub loss_response: Option<LossResponse>,
    /// Whether the loss response knows the lost segment's history (000 section 2.2.3:
    /// no second cut for a segment sent before the last one, 1/2 for a segment that had
    /// been retransmitted). Default true; false in the kernel variant.
    pub loss_history: Option<bool>,
    /// "paper" (default), "linux" or "kernel".
    pub variant: Option<Variant>,
    /// "exact" (default) or "nearest" (NS-2's whole packets); see [`DiffRounding`].
    pub diff_rounding: Option<DiffRounding>,
}

/// Linux's module parameters (`tcp_vegas.c`: alpha 2, beta 4, gamma 1).
const LINUX_ALPHA: f64 = 2.0;
const LINUX_BETA: f64 = 4.0;
const LINUX_GAMMA: f64 = 1.0;

/// The family's resolved settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasConfig {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub rtt: RttChoice,
    pub fine_grained_retransmit: bool,
    pub loss_response: LossResponse,
    pub diff_rounding: DiffRounding,
    /// See [`VegasOptions::loss_history`].
    pub loss_history: bool,
    /// The kernel port's window after a timeout, set when the state switches to Loss.
    pub kernel: bool,
    /// Linux `tcp_vegas.c`'s rules for slow start and the once-per-RTT decision
    /// (cc/vegas_linux.rs) instead of the paper's.
    pub linux: bool,
}

impl VegasConfig {
    /// The paper variant with alpha 1, beta 3, gamma 1 and the given RTT choice.
    pub fn paper(rtt: RttChoice) -> Self {
        VegasConfig {
            alpha: 1.0,
            beta: 3.0,
            gamma: 1.0,
            rtt,
            fine_grained_retransmit: true,
            loss_response: LossResponse::Vegas,
            diff_rounding: DiffRounding::Exact,
            loss_history: true,
            kernel: false,
            linux: false,
        }
    }

    /// Parses and checks the family's options; `paper_rtt` is the member's own paper's
    /// choice of RTT, used by the paper variant.
    pub fn from_spec(
        spec: &CcSpec,
        field: &str,
        paper_rtt: RttChoice,
    ) -> Result<Self, ConfigError> {
        let o: VegasOptions = parse_params(spec, field)?;
        let linux = o.variant == Some(Variant::Linux);
        let kernel = o.variant == Some(Variant::Kernel);
        let mut d = VegasConfig::paper(paper_rtt);
        if linux {
            (d.alpha, d.beta, d.gamma) = (LINUX_ALPHA, LINUX_BETA, LINUX_GAMMA);
            if let Some(rtt) = o.rtt.filter(|&r| r != RttChoice::Min) {
                return Err(ConfigError::new(
                    format!("{field}.rtt"),
                    format!(
                        "{:?} is not allowed with variant = \"linux\", whose rules use the \
                         round's minimum RTT; omit rtt (or give \"min\"), or use variant = \"paper\"",
                        rtt.name()
                    ),
                ));
            }
        }
        if o.diff_rounding == Some(DiffRounding::Nearest) && (linux || kernel) {
            return Err(ConfigError::new(
                format!("{field}.diff_rounding"),
                format!(
                    "\"nearest\" is not allowed with variant = \"{}\", which computes Diff as its \
                     own code does (tcp_vegas.c truncates; the BPF port keeps fixed point); omit \
                     diff_rounding, or use variant = \"paper\"",
                    if linux { "linux" } else { "kernel" }
                ),
            ));
        }
        if let Some(rtt) = o
            .rtt
            .filter(|&r| kernel && !matches!(r, RttChoice::Last | RttChoice::Min))
        {
            return Err(ConfigError::new(
                format!("{field}.rtt"),
                format!(
                    "{:?} is not allowed with variant = \"kernel\", whose port has only \"last\" \
                     and \"min\"; give one of those, or use variant = \"paper\"",
                    rtt.name()
                ),
            ));
        }
        let cfg = VegasConfig {
            alpha: o.alpha.unwrap_or(d.alpha),
            beta: o.beta.unwrap_or(d.beta),
            gamma: o.gamma.unwrap_or(d.gamma),
            rtt: o.rtt.unwrap_or(if linux { RttChoice::Min } else { d.rtt }),
            fine_grained_retransmit: o.fine_grained_retransmit.unwrap_or(!linux && !kernel),
            loss_response: o.loss_response.unwrap_or(if linux {
                LossResponse::Reno
            } else {
                LossResponse::Vegas
            }),
            diff_rounding: o.diff_rounding.unwrap_or_default(),
            loss_history: o.loss_history.unwrap_or(!kernel),
            kernel,
            linux,
        };
        check_range(field, "alpha", cfg.alpha, 0.0, 1e4)?;
        if !(cfg.beta.is_finite() && cfg.beta >= cfg.alpha && cfg.beta <= 1e4) {
            return Err(ConfigError::new(
                format!("{field}.beta"),
                format!(
                    "{} is out of range; allowed: alpha ({}) to 10000",
                    cfg.beta, cfg.alpha
                ),
            ));
        }
        check_range(field, "gamma", cfg.gamma, 0.0, 1e4)?;
        Ok(cfg)
    }
}

/// What a round measured, handed to the member's rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundView {
    /// The window during the round, before this round's change (000 table 1's W before
    /// "the updating algorithm").
    pub cwnd: f64,
    /// The round's RTT under the configured choice.
    pub rtt: Time,
    pub base_rtt: Time,
    pub est: Estimate,
    /// Whether the round ended in slow start (the rule's `on_round` is not called then).
    pub in_slow_start: bool,
}

/// The part of a Vegas variant that differs from Vegas: its congestion-avoidance rule.
pub trait AvoidanceRule: Send {
    fn name(&self) -> &'static str;

    /// Once per round in congestion avoidance: the change of the window, packets.
    fn on_round(&mut self, v: &RoundView) -> f64;

    /// After every round (slow start included) with the window it left, so that a rule
    /// can remember the previous round's RTT and window (NewVegas's RTT_old, W_old).
    fn after_round(&mut self, _v: &RoundView, _cwnd: f64) {}

    /// Every ACK of new data with its RTT sample, before any window change (Vegas+ count).
    fn on_ack(&mut self, _st: &CcState, _rtt: Option<Time>) {}

    /// Per-ACK growth in congestion avoidance; Vegas has none (it changes the window
    /// once per round), Vegas+ in aggressive mode grows as Reno.
    fn grow_per_ack(&mut self, _st: &mut CcState, _acked: u32) {}

    /// A loss response. `new_episode` is false for a further retransmission in a window
    /// that was already reduced (000 section 2.2.3: reduce "only for the first").
    fn on_loss(&mut self, _kind: LossKind, _new_episode: bool) {}

    fn variables(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// Vegas's own rule, 000 eq. (2): +1 if Delta < alpha, -1 if Delta > beta, else unchanged.
pub fn vegas_step(diff: f64, alpha: f64, beta: f64) -> f64 {
    if diff < alpha {
        1.0
    } else if diff > beta {
        -1.0
    } else {
        0.0
    }
}

/// Plain Vegas: fixed thresholds.
pub struct VegasRule {
    alpha: f64,
    beta: f64,
}

impl AvoidanceRule for VegasRule {
    fn name(&self) -> &'static str {
        "vegas"
    }

    /// 000 eq. (2), once per RTT (000 section 2.2.2).
    fn on_round(&mut self, v: &RoundView) -> f64 {
        vegas_step(v.est.diff, self.alpha, self.beta)
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("alpha", self.alpha));
        out.push(("beta", self.beta));
    }
}

pub type Vegas = VegasFamily<VegasRule>;

/// Vegas in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "vegas",
    build: |spec, field| Ok(Box::new(from_spec(spec, field)?)),
    params: &[|| documented_options(from_spec, ALGORITHM.name)],
    source: include_str!("vegas.rs"),
};

/// The family's options as a member documents them: their defaults are the settings the
/// member resolves from an empty table (its paper's RTT choice, CODE's minimum).
pub fn documented_options<R: AvoidanceRule>(
    from_spec: fn(&CcSpec, &str) -> Result<VegasFamily<R>, ConfigError>,
    member: &str,
) -> ParamStruct {
    let built = from_spec(&CcSpec::named(member), "cc");
    let c = built
        .expect("a Vegas family member builds from an empty table")
        .cfg;
    let mut t = toml::Table::new();
    t.insert("alpha".into(), c.alpha.into());
    t.insert("beta".into(), c.beta.into());
    t.insert("gamma".into(), c.gamma.into());
    t.insert("rtt".into(), c.rtt.name().into());
    t.insert(
        "fine_grained_retransmit".into(),
        c.fine_grained_retransmit.into(),
    );
    let response = toml::Value::try_from(c.loss_response).expect("a named value");
    t.insert("loss_response".into(), response);
    let variant = if c.kernel {
        "kernel"
    } else if c.linux {
        "linux"
    } else {
        "paper"
    };
    t.insert("variant".into(), variant.into());
    t.insert("loss_history".into(), c.loss_history.into());
    let rounding = toml::Value::try_from(c.diff_rounding).expect("a named value");
    t.insert("diff_rounding".into(), rounding);
    ParamStruct::resolved::<VegasOptions>(t)
}

/// Vegas from a scenario's `cc` table (the options of [`VegasOptions`]).
pub fn from_spec(spec: &CcSpec, field: &str) -> Result<Vegas, ConfigError> {
    let cfg = VegasConfig::from_spec(spec, field, RttChoice::Last)?;
    Ok(new(cfg))
}

pub fn new(cfg: VegasConfig) -> Vegas {
    VegasFamily::new(
        cfg,
        VegasRule {
            alpha: cfg.alpha,
            beta: cfg.beta,
        },
    )
}

/// Vegas's slow start, retransmission checks and loss response around a member's rule.
pub struct VegasFamily<R> {
    cfg: VegasConfig,
    rule: R,
    base: BaseRtt,
    rounds: RoundTracker,
    /// A round that ended on the current ACK, acted on in `cong_avoid`.
    pending: Option<Round>,
    /// In slow start, whether the current round doubles the window; the rounds between
    /// keep it fixed "so that a valid comparison of the Expected and Actual rates can be
    /// made" (000 section 2.2.1).
    ss_growing: bool,
    /// The fine-grained timeout from every segment's RTT (000 section 2.2.3, 002 section
    /// 2): RFC 6298's estimator without the coarse minimum and clock granularity.
    fine_rto: RtoEstimator,
    /// When the window was last reduced by a loss response.
    last_decrease: Option<Time>,
    /// The last round's RTT and estimate, for `variables`.
    last: Option<(Time, Estimate)>,
    /// Linux's state and rules, for `variant = "linux"` (cc/vegas_linux.rs).
    linux: Option<LinuxVegas>,
}

impl<R: AvoidanceRule> VegasFamily<R> {
    pub fn new(cfg: VegasConfig, rule: R) -> Self {
        VegasFamily {
            cfg,
            rule,
            base: BaseRtt::default(),
            rounds: RoundTracker::default(),
            pending: None,
            ss_growing: true,
            fine_rto: RtoEstimator::new(
                Time::ZERO,
                Time::MAX,
                Time::from_secs_f64(1.0),
                Time::ZERO,
            ),
            last_decrease: None,
            last: None,
            linux: cfg
                .linux
                .then(|| LinuxVegas::new(cfg.alpha, cfg.beta, cfg.gamma)),
        }
    }

    pub fn config(&self) -> &VegasConfig {
        &self.cfg
    }

    pub fn rule(&self) -> &R {
        &self.rule
    }

    /// The last round's Delta, packets.
    pub fn diff(&self) -> Option<f64> {
        self.last.map(|(_, e)| e.diff)
    }

    /// For worked examples (unit tests, 000 table 1 in the report).
    pub(crate) fn rule_mut(&mut self) -> &mut R {
        &mut self.rule
    }

    /// For worked examples: a BaseRTT as if measured.
    pub(crate) fn seed_base_rtt(&mut self, rtt: Time) {
        self.base.observe(rtt);
    }

    fn restart_rounds(&mut self, st: &CcState) {
        self.rounds.restart(st.snd_nxt);
        self.pending = None;
    }

    /// The once-per-round decisions.
    fn end_round(&mut self, st: &mut CcState, round: Round) {
        let Some(base_rtt) = self.base.get() else {
            return;
        };
        let rtt = round.rtt(self.cfg.rtt, st.srtt);
        let mut est = Estimate::new(st.cwnd, base_rtt, rtt);
        est.diff = self.cfg.diff_rounding.apply(est.diff);
        self.last = Some((rtt, est));
        let view = RoundView {
            cwnd: st.cwnd,
            rtt,
            base_rtt,
            est,
            in_slow_start: st.in_slow_start(),
        };
        if view.in_slow_start {
            self.slow_start_round(st, &est);
        } else {
            // 000 section 2.2.2: the window changes once per RTT, by the member's rule.
            let mut step = self.rule.on_round(&view);
            if step > 0.0 && !st.cwnd_limited {
                step = 0.0; // RFC 7661: no growth while the window is not the limit
            }
            st.cwnd = (st.cwnd + step).max(2.0);
            // Keep ssthresh at or below cwnd so that a decrease does not re-enter slow
            // start (NS-2 sets ssthresh = 2 for the same purpose).
            st.ssthresh = st.ssthresh.min(st.cwnd);
        }
        self.rule.after_round(&view, st.cwnd);
    }

    /// 000 section 2.2.1 and 002 section 2: the window doubles every other round; at the
    /// end of each fixed round, Delta > gamma ends slow start and cuts cwnd by one eighth.
    fn slow_start_round(&mut self, st: &mut CcState, est: &Estimate) {
        if self.ss_growing {
            self.ss_growing = false;
        } else if est.diff > self.cfg.gamma {
            st.cwnd = (st.cwnd - st.cwnd / 8.0).max(2.0);
            st.ssthresh = st.cwnd;
        } else {
            self.ss_growing = true;
        }
    }
}

impl<R: AvoidanceRule> CongestionControl for VegasFamily<R> {
    fn name(&self) -> &'static str {
        self.rule.name()
    }

    /// NS-2's Vegas agent repairs losses as Reno does (000 and 002 simulate with NS-2).
    fn default_recovery(&self) -> Recovery {
        Recovery::Reno
    }

    fn init(&mut self, st: &mut CcState) {
        self.restart_rounds(st);
        if let Some(linux) = &mut self.linux {
            linux.init(st);
        }
    }

    /// Linux (`tcp_vegas_cwnd_event`): the first send with nothing in flight
    /// re-initialises Vegas, baseRTT included. The paper variant ignores it.
    fn cwnd_event(&mut self, st: &mut CcState, event: CaEvent) {
        if let (Some(linux), CaEvent::TxStart) = (&mut self.linux, event) {
            linux.init(st);
        }
    }

    fn pkts_acked(&mut self, st: &mut CcState, sample: &AckSample) {
        if let Some(linux) = &mut self.linux {
            linux.pkts_acked(sample.rtt);
            if let Some(r) = sample.rtt {
                self.fine_rto.sample(r, false);
            }
            self.rule.on_ack(st, sample.rtt);
            return;
        }
        if let Some(r) = sample.rtt {
            // BaseRTT is the minimum of all measured RTTs (000 section 2.2.1), and every
            // segment's RTT feeds the fine-grained timeout (002 section 2).
            self.base.observe(r);
            self.fine_rto.sample(r, false);
        }
        self.rule.on_ack(st, sample.rtt);
        if let Some(round) = self.rounds.on_ack(st.snd_una, st.snd_nxt, sample.rtt) {
            self.pending = Some(round);
        }
    }

    /// Per-ACK growth first, under the phase of the round this ACK belongs to (the ACK
    /// that ends a round is still part of it), then the once-per-round decisions.
    fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        if let Some(linux) = &mut self.linux {
            if let Some((view, est)) = linux.cong_avoid(st, acked, &mut self.rule) {
                self.last = Some((view.rtt, est));
            }
            return;
        }
        if st.in_slow_start() {
            // 000 section 2.2.1: exponential growth, in the growing rounds only.
            if self.ss_growing && st.cwnd_limited {
                st.cwnd = (st.cwnd + acked as f64).min(st.ssthresh);
            }
        } else {
            self.rule.grow_per_ack(st, acked);
        }
        if let Some(round) = self.pending.take() {
            self.end_round(st, round);
        }
    }

    /// Samples from before a loss say nothing about the window after it: start a fresh
    /// round on entering and on leaving recovery (as Linux's `tcp_vegas_state`).
    /// Linux (`tcp_vegas_state`): Vegas runs in the Open state only, with a fresh round
    /// on entering it. The kernel variant sets the window after a timeout here, where its
    /// port does (the stack has written its own just before).
    fn set_state(&mut self, st: &mut CcState, new: CaState) {
        if let Some(linux) = &mut self.linux {
            linux.set_state(st, new == CaState::Open);
            return;
        }
        let recovering = |s: CaState| matches!(s, CaState::Recovery | CaState::Loss);
        if recovering(new) || (new == CaState::Open && recovering(st.ca_state)) {
            self.restart_rounds(st);
        }
        if self.cfg.kernel && new == CaState::Loss {
            st.cwnd = self.cwnd_after_timeout();
        }
    }

    /// 000 section 2.2.3. On a retransmission the window becomes 3/4 of its size, or 1/2
    /// if the lost segment had already been retransmitted, and only if the segment was
    /// sent after the last reduction (Brakmo & Peterson section 3.1: losses of an earlier,
    /// larger window do not call for another cut; NS-2 compares the same times). The sender
    /// applies the result when recovery ends, "after the ACK of the lost packet is
    /// received". On a timeout ssthresh = cwnd/2 and slow start restarts.
    ///
    /// Linux with its own loss response (`tcp_reno_ssthresh`): ssthresh = max(cwnd / 2, 2)
    /// in whole segments on every call (the sender calls once per recovery or timeout).
    fn ssthresh(&mut self, st: &CcState, loss: &LossInfo) -> f64 {
        if let Some(linux) = &mut self.linux {
            if self.cfg.loss_response == LossResponse::Reno {
                self.rule.on_loss(loss.kind, true);
                return linux.loss_ssthresh(st);
            }
        }
        let window = st.effective_window();
        if loss.kind == LossKind::Timeout {
            self.last_decrease = Some(st.now);
            self.ss_growing = true;
            self.rule.on_loss(loss.kind, true);
            return (window / 2.0).max(2.0);
        }
        let new_episode =
            !self.cfg.loss_history || self.last_decrease.is_none_or(|t| loss.sent_at > t);
        self.rule.on_loss(loss.kind, new_episode);
        if !new_episode {
            // No further cut: keep the window the sender will restore after recovery.
            return if st.ca_state == CaState::Recovery {
                st.ssthresh
            } else {
                window
            };
        }
        self.last_decrease = Some(st.now);
        let factor = match self.cfg.loss_response {
            LossResponse::Vegas if loss.already_retransmitted && self.cfg.loss_history => 0.5,
            LossResponse::Vegas => 0.75,
            LossResponse::Reno => 0.5,
        };
        (window * factor).max(2.0)
    }

    /// 000 section 2.2.3: "the CWND is reset to two" after a timeout (Reno: one).
    fn cwnd_after_timeout(&self) -> f64 {
        match self.cfg.loss_response {
            LossResponse::Vegas => 2.0,
            LossResponse::Reno => 1.0,
        }
    }

    /// 000 section 2.2.3 and 002 section 2: on a duplicate ACK and on the first and second
    /// new ACK after a retransmission, retransmit the oldest unacknowledged segment if it
    /// has been out longer than the fine-grained timeout.
    fn retransmit_check(&mut self, st: &CcState, probe: &RetransmitProbe) -> bool {
        if !self.cfg.fine_grained_retransmit || self.fine_rto.srtt() == Time::ZERO {
            return false;
        }
        st.now.saturating_sub(probe.sent_at) > self.fine_rto.rto()
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        let base = match &self.linux {
            Some(linux) => linux.base_rtt(),
            None => self.base.get(),
        };
        if let Some(b) = base {
            out.push(("base_rtt", b.as_secs_f64()));
        }
        if let Some((rtt, est)) = self.last {
            out.push(("round_rtt", rtt.as_secs_f64()));
            out.push(("diff", est.diff));
        }
        self.rule.variables(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::scripted::Script;
    use crate::cc::ProbePoint;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    fn vegas() -> Vegas {
        new(VegasConfig::paper(RttChoice::Last))
    }

    #[test]
    fn slow_start_doubles_every_other_round_and_exits_on_gamma() {
        let mut cc = vegas();
        let mut s = Script::new(2.0, 1e9);
        s.start(&mut cc);
        // Round 1 is a single ACK (the first segment is the round's end); no queueing.
        let mut sizes = vec![];
        for _ in 0..6 {
            s.round(&mut cc, ms(100));
            sizes.push(s.st.cwnd);
        }
        // Growing and fixed rounds alternate while Delta stays at 0 <= gamma.
        assert_eq!(sizes, vec![3.0, 3.0, 6.0, 6.0, 12.0, 12.0]);
        // A growing round, then a fixed round whose RTT shows 2 packets queued > gamma 1.
        s.round(&mut cc, ms(100));
        assert_eq!(s.st.cwnd, 24.0);
        s.round(&mut cc, Time::from_micros(109_090)); // 24 * (1 - 100/109.09) = 2.0
        assert!(cc.diff().unwrap() > 1.9 && cc.diff().unwrap() < 2.1);
        assert_eq!(s.st.cwnd, 21.0, "cut by one eighth");
        assert!(!s.st.in_slow_start(), "now in congestion avoidance");
    }

    #[test]
    fn congestion_avoidance_follows_alpha_beta() {
        let mut cc = vegas();
        let mut s = Script::new(20.0, 20.0);
        cc.seed_base_rtt(ms(100));
        s.start(&mut cc);
        s.round(&mut cc, ms(100)); // Delta 0 < alpha: +1
        assert_eq!(s.st.cwnd, 21.0);
        s.round(&mut cc, ms(110)); // 21 * 10/110 = 1.9 in [1, 3]: unchanged
        assert_eq!(s.st.cwnd, 21.0);
        s.round(&mut cc, ms(120)); // 21 * 20/120 = 3.5 > beta: -1
        assert_eq!(s.st.cwnd, 20.0);
        assert_eq!(
            s.st.ssthresh, 20.0,
            "ssthresh follows so slow start is not re-entered"
        );
        s.round(&mut cc, ms(120)); // 20 * 20/120 = 3.33 > beta: -1
        assert_eq!(s.st.cwnd, 19.0);
        assert!(!s.st.in_slow_start());
        // Only once per round: ACKs inside a round leave the window alone, the one that
        // ends it applies the change.
        let before = s.st.cwnd;
        let n = s.acks_left_in_round();
        assert!(n > 10);
        for _ in 1..n {
            s.ack(&mut cc, Some(ms(100)));
            assert_eq!(s.st.cwnd, before);
        }
        s.ack(&mut cc, Some(ms(100)));
        assert_eq!(s.st.cwnd, before + 1.0);
    }

    /// NS-2's whole-packet Delta: 0.6 and 3.4 packets round to alpha 1 and beta 3, which
    /// leave the window alone, where the exact values grow and shrink it.
    #[test]
    fn nearest_diff_rounding_moves_the_thresholds_half_a_packet_out() {
        let run = |rounding: DiffRounding, rtt: Time| {
            let mut cfg = VegasConfig::paper(RttChoice::Last);
            cfg.diff_rounding = rounding;
            let mut cc = new(cfg);
            let mut s = Script::new(20.0, 20.0);
            cc.seed_base_rtt(ms(100));
            s.start(&mut cc);
            s.round(&mut cc, rtt);
            (s.st.cwnd, cc.diff().unwrap())
        };
        // 20 * (1 - 100/103) = 0.58 and 20 * (1 - 100/120.5) = 3.40 packets queued.
        let (low, high) = (Time::from_micros(103_000), Time::from_micros(120_500));
        assert_eq!(run(DiffRounding::Exact, low).0, 21.0, "0.58 < alpha: +1");
        assert_eq!(
            run(DiffRounding::Nearest, low),
            (20.0, 1.0),
            "rounds to alpha"
        );
        assert_eq!(run(DiffRounding::Exact, high).0, 19.0, "3.40 > beta: -1");
        assert_eq!(
            run(DiffRounding::Nearest, high),
            (20.0, 3.0),
            "rounds to beta"
        );
        let t: toml::Table = toml::from_str("name = 'vegas_a'\ndiff_rounding = 'nearest'").unwrap();
        let spec: CcSpec = toml::Value::Table(t).try_into().unwrap();
        let cfg = VegasConfig::from_spec(&spec, "cc", RttChoice::Last).unwrap();
        assert_eq!(cfg.diff_rounding, DiffRounding::Nearest);
        let e = linux_err("diff_rounding = 'nearest'");
        assert_eq!(e.field, "flows[0].cc.diff_rounding");
        let e = kernel("diff_rounding = 'nearest'").err().unwrap();
        assert_eq!(e.field, "flows[0].cc.diff_rounding");
        assert!(e.message.contains("\"kernel\""), "{}", e.message);
    }

    fn linux_err(extra: &str) -> ConfigError {
        let t: toml::Table =
            toml::from_str(&format!("name = 'vegas'\nvariant = 'linux'\n{extra}")).unwrap();
        let spec: CcSpec = toml::Value::Table(t).try_into().unwrap();
        from_spec(&spec, "flows[0].cc").err().unwrap()
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut cc = vegas();
        let mut s = Script::new(20.0, 20.0);
        cc.seed_base_rtt(ms(100));
        s.start(&mut cc);
        s.st.cwnd_limited = false;
        s.round(&mut cc, ms(100));
        assert_eq!(s.st.cwnd, 20.0);
    }

    fn loss(kind: LossKind, sent_at: Time, already: bool) -> LossInfo {
        LossInfo {
            kind,
            seq: 0,
            already_retransmitted: already,
            sent_at,
        }
    }

    #[test]
    fn three_quarters_then_half_at_most_once_per_window() {
        let mut cc = vegas();
        let mut st = CcState::new(40.0, 20.0, 1000, 1000);
        st.now = ms(1000);
        let first = loss(LossKind::FastRetransmit, ms(900), false);
        assert_eq!(cc.ssthresh(&st, &first), 30.0, "3/4 of 40");
        // Another segment of the same window (sent before the cut): no further reduction.
        st.now = ms(1010);
        st.cwnd = 30.0;
        let same_window = loss(LossKind::EarlyRetransmit, ms(905), false);
        assert_eq!(cc.ssthresh(&st, &same_window), 30.0);
        // A segment retransmitted after the cut and lost again: half.
        st.now = ms(1200);
        let again = loss(LossKind::EarlyRetransmit, ms(1010), true);
        assert_eq!(cc.ssthresh(&st, &again), 15.0);
        // A new segment sent after that cut, lost once: 3/4 again.
        st.now = ms(1500);
        st.cwnd = 16.0;
        let later = loss(LossKind::FastRetransmit, ms(1300), false);
        assert_eq!(cc.ssthresh(&st, &later), 12.0);
        // Never below 2.
        st.cwnd = 2.0;
        st.now = ms(2000);
        assert_eq!(
            cc.ssthresh(&st, &loss(LossKind::FastRetransmit, ms(1900), false)),
            2.0
        );
    }

    #[test]
    fn timeout_halves_ssthresh_and_restarts_from_two() {
        let mut cc = vegas();
        let st = CcState::new(40.0, 20.0, 1000, 1000);
        assert_eq!(
            cc.ssthresh(&st, &loss(LossKind::Timeout, Time::ZERO, false)),
            20.0
        );
        assert_eq!(cc.cwnd_after_timeout(), 2.0);
    }

    #[test]
    fn linux_variant_halves_and_never_retransmits_early() {
        let spec: CcSpec = toml::from_str::<toml::Table>("name = 'vegas'\nvariant = 'linux'")
            .map(|t| toml::Value::Table(t).try_into().unwrap())
            .unwrap();
        let mut cc = from_spec(&spec, "cc").unwrap();
        assert_eq!(cc.config().rtt, RttChoice::Min);
        let mut st = CcState::new(40.0, 20.0, 1000, 1000);
        st.now = ms(1000);
        assert_eq!(
            cc.ssthresh(&st, &loss(LossKind::FastRetransmit, ms(900), false)),
            20.0
        );
        assert_eq!(cc.cwnd_after_timeout(), 1.0);
        let mut s = Script::new(10.0, 10.0);
        s.start(&mut cc);
        s.round(&mut cc, ms(100));
        let probe = RetransmitProbe {
            point: ProbePoint::DupAck(1),
            seq: 0,
            sent_at: Time::ZERO,
            already_retransmitted: false,
        };
        s.st.now = ms(100_000);
        assert!(!cc.retransmit_check(&s.st, &probe));
    }

    fn linux(extra: &str) -> Vegas {
        let t: toml::Table =
            toml::from_str(&format!("name = 'vegas'\nvariant = 'linux'\n{extra}")).unwrap();
        let spec: CcSpec = toml::Value::Table(t).try_into().unwrap();
        from_spec(&spec, "cc").unwrap()
    }

    #[test]
    fn linux_defaults_are_the_module_parameters() {
        let cfg = *linux("").config();
        assert_eq!((cfg.alpha, cfg.beta, cfg.gamma), (2.0, 4.0, 1.0));
        assert!(cfg.linux && !cfg.fine_grained_retransmit);
        assert_eq!(linux("alpha = 1\nbeta = 3").config().beta, 3.0);
        let t: toml::Table =
            toml::from_str("name = 'vegas'\nvariant = 'linux'\nrtt = 'last'").unwrap();
        let spec: CcSpec = toml::Value::Table(t).try_into().unwrap();
        let e = from_spec(&spec, "flows[0].cc").err().unwrap();
        assert_eq!(e.field, "flows[0].cc.rtt");
        assert!(
            e.message.contains("\"last\"") && e.message.contains("min"),
            "{}",
            e.message
        );
    }

    /// tcp_vegas.c in slow start: the window grows on every ACK (tcp_slow_start), rounds
    /// with 2 samples or fewer follow Reno, and a round whose minimum RTT shows
    /// Diff > gamma ends slow start at min(cwnd, target_cwnd + 1), integer arithmetic on
    /// RTTs in microseconds + 1.
    #[test]
    fn linux_slow_start_grows_every_ack_and_exits_at_the_target_window() {
        let mut cc = linux("");
        let mut s = Script::new(2.0, 1e9);
        s.start(&mut cc);
        let mut sizes = vec![];
        for _ in 0..5 {
            s.round(&mut cc, ms(100));
            sizes.push(s.st.cwnd);
        }
        // Every ACK adds one segment (2 + ACKs so far); rounds of 1, 2, 4, 8, 16 ACKs (a
        // round ends with the ACK of the first segment sent after the previous one ended).
        assert_eq!(sizes, vec![3.0, 5.0, 9.0, 17.0, 33.0]);
        // A round whose RTTs show a queue: the ACKs before the last still double the
        // window; the last decides on the round's minimum (120 ms).
        let n = s.acks_left_in_round();
        for _ in 1..n {
            s.ack(&mut cc, Some(ms(120)));
        }
        let w = s.st.cwnd as u64;
        assert_eq!(w, 33 + u64::from(n) - 1);
        s.ack(&mut cc, Some(ms(125)));
        // Diff = w * (120001 - 100001) / 100001 > 1; target = w * 100001 / 120001.
        let target = w * 100_001 / 120_001;
        assert_eq!(s.st.cwnd, (target + 1) as f64);
        assert_eq!(s.st.ssthresh, s.st.cwnd, "ssthresh = min(ssthresh, cwnd)");
        assert!(!s.st.in_slow_start());
        assert_eq!(cc.diff(), Some((w * 20_000 / 100_001) as f64));
    }

    /// tcp_vegas.c in congestion avoidance: Diff truncated to an integer against alpha 2
    /// and beta 4, one change per round, ssthresh at least 3/4 of cwnd.
    #[test]
    fn linux_congestion_avoidance_uses_the_integer_diff() {
        let mut cc = linux("");
        let mut s = Script::new(20.0, 20.0);
        s.start(&mut cc);
        s.round(&mut cc, ms(100)); // one sample: Reno's additive increase, credit 1 of 20
        assert_eq!(s.st.cwnd, 20.0);
        s.round(&mut cc, ms(100)); // Diff 0 < alpha: +1
        assert_eq!(s.st.cwnd, 21.0);
        s.round(&mut cc, ms(110)); // 21 * 10000 / 100001 = 2.1 -> 2: unchanged
        assert_eq!(s.st.cwnd, 21.0);
        // 21 * 20000 / 100001 = 4.2 -> 4, not above beta (the paper's 3.5 > 3 would cut).
        s.round(&mut cc, ms(120));
        assert_eq!(s.st.cwnd, 21.0);
        s.round(&mut cc, ms(125)); // 21 * 25000 / 100001 = 5.2 -> 5 > beta: -1
        assert_eq!(s.st.cwnd, 20.0);
        assert_eq!(
            s.st.ssthresh, 20.0,
            "min(ssthresh, cwnd), then max(.., 3/4 cwnd)"
        );
        // tcp_current_ssthresh raises ssthresh to 3/4 of a grown window.
        s.st.ssthresh = 2.0;
        s.round(&mut cc, ms(100));
        assert_eq!((s.st.cwnd, s.st.ssthresh), (21.0, 15.0));
    }

    /// Outside the Open state Linux disables Vegas: Reno's growth; back in Open a fresh
    /// round starts. Losses halve the integral window (tcp_reno_ssthresh).
    #[test]
    fn linux_follows_reno_outside_open_and_halves_in_whole_segments() {
        let mut cc = linux("");
        let mut s = Script::new(10.0, 10.0);
        s.start(&mut cc);
        s.round(&mut cc, ms(100));
        cc.set_state(&mut s.st, CaState::Disorder);
        s.st.ca_state = CaState::Disorder;
        for _ in 0..10 {
            s.ack(&mut cc, Some(ms(300))); // a queue Vegas would react to
        }
        assert_eq!(s.st.cwnd, 11.0, "Reno: one segment per window acknowledged");
        cc.set_state(&mut s.st, CaState::Open);
        s.st.ca_state = CaState::Open;
        let mut st = s.st.clone();
        st.cwnd = 41.0;
        let lost = loss(LossKind::FastRetransmit, ms(0), false);
        assert_eq!(cc.ssthresh(&st, &lost), 20.0);
        st.cwnd = 3.0;
        assert_eq!(cc.ssthresh(&st, &lost), 2.0);
        assert_eq!(cc.cwnd_after_timeout(), 1.0);
    }

    fn kernel(extra: &str) -> Result<Vegas, ConfigError> {
        let t: toml::Table =
            toml::from_str(&format!("name = 'vegas'\nvariant = 'kernel'\n{extra}")).unwrap();
        let spec: CcSpec = toml::Value::Table(t).try_into().unwrap();
        from_spec(&spec, "flows[0].cc")
    }

    /// The BPF port's hooks: every ssthresh call is a new episode cut to 3/4 (the hook
    /// knows neither when the segment was sent nor whether it was retransmitted), no
    /// fine-grained retransmission, cwnd 2 when the state switches to Loss.
    #[test]
    fn kernel_variant_is_the_ports_loss_response() {
        let mut cc = kernel("").unwrap();
        let cfg = *cc.config();
        assert!(!cfg.fine_grained_retransmit && !cfg.loss_history && cfg.kernel);
        assert_eq!((cfg.alpha, cfg.beta, cfg.rtt), (1.0, 3.0, RttChoice::Last));
        let mut st = CcState::new(40.0, 20.0, 1000, 1000);
        st.now = ms(1000);
        assert_eq!(
            cc.ssthresh(&st, &loss(LossKind::FastRetransmit, ms(900), false)),
            30.0
        );
        // The paper variant would keep 30 (same window) and then halve (retransmitted).
        st.cwnd = 30.0;
        assert_eq!(
            cc.ssthresh(&st, &loss(LossKind::FastRetransmit, ms(905), false)),
            22.5
        );
        assert_eq!(
            cc.ssthresh(&st, &loss(LossKind::FastRetransmit, ms(1000), true)),
            22.5
        );
        st.cwnd = 1.0;
        cc.set_state(&mut st, CaState::Loss);
        assert_eq!(st.cwnd, 2.0, "the port's window after a timeout");
        let mut paper = vegas();
        st.cwnd = 1.0;
        paper.set_state(&mut st, CaState::Loss);
        assert_eq!(st.cwnd, 1.0, "the paper variant leaves it to the sender");
        let history = kernel("loss_history = true").unwrap();
        assert!(history.config().loss_history);
    }

    #[test]
    fn kernel_variant_has_only_the_ports_rtt_choices() {
        assert_eq!(kernel("rtt = 'min'").unwrap().config().rtt, RttChoice::Min);
        let e = kernel("rtt = 'mean'").err().unwrap();
        assert_eq!(e.field, "flows[0].cc.rtt");
        assert!(
            e.message.contains("\"mean\"") && e.message.contains("\"last\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn fine_grained_check_uses_the_segment_timeout() {
        let mut cc = vegas();
        let mut s = Script::new(10.0, 10.0);
        s.start(&mut cc);
        for _ in 0..5 {
            s.round(&mut cc, ms(100));
        }
        // Constant 100 ms samples: the fine-grained timeout tends to 100 ms (+ 4 rttvar),
        // far below the coarse RTO.
        let timeout = cc.fine_rto.rto();
        assert!(timeout >= ms(100) && timeout < ms(110), "{timeout}");
        let mut st = s.st.clone();
        let probe = |sent_at: Time| RetransmitProbe {
            point: ProbePoint::DupAck(1),
            seq: st.snd_una,
            sent_at,
            already_retransmitted: false,
        };
        st.now = ms(10_000);
        assert!(cc.retransmit_check(&st, &probe(ms(10_000) - timeout - ms(1))));
        assert!(!cc.retransmit_check(&st, &probe(ms(10_000) - timeout)));
        st.now = ms(10_001);
        assert!(cc.retransmit_check(&st, &probe(Time::ZERO)));
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let parse = |text: &str| {
            let t: toml::Table = toml::from_str(text).unwrap();
            let spec: CcSpec = toml::Value::Table(t).try_into().unwrap();
            from_spec(&spec, "flows[0].cc").err().unwrap()
        };
        let e = parse("name = 'vegas'\nalpha = 3\nbeta = 2");
        assert_eq!(e.field, "flows[0].cc.beta");
        let e = parse("name = 'vegas'\nrtt = 'median'");
        assert_eq!(e.field, "flows[0].cc.rtt");
        assert!(e.message.contains("last"), "{}", e.message);
        let e = parse("name = 'vegas'\ngamma = -1");
        assert_eq!(e.field, "flows[0].cc.gamma");
        let e = parse("name = 'vegas'\nepsilon = 0.5");
        assert!(e.message.contains("epsilon"), "{}", e.message);
    }
}
