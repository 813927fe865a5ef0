//! TCP Veno (001 section II): Reno whose additive increase and multiplicative decrease
//! depend on Vegas's backlog estimate N = Diff * BaseRTT (001 section II-A). N < beta
//! means the bandwidth is not yet fully used, so a loss then is taken as random (non-
//! congestive) and the window is cut by only 1/5; N >= beta means congestion.
//!
//! Every fast retransmit is tagged with N and the branch taken ("random" for the 4/5
//! cut, "congestive" for 1/2), so that the run's loss records, which carry the true cause
//! of each lost packet, can score the classification as 001 table I does.

use super::delay::{BaseRtt, Estimate};
use super::params::check_range;
use super::params::ParamStruct;
use super::registry::Algorithm;
use super::reno::reno_increase;
use super::round::{Round, RoundTracker, RttChoice};
use super::{
    parse_params, AckSample, CcSpec, CcState, CongestionControl, LossInfo, LossKind, LossTag,
    Recovery,
};
use crate::config::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// TCP Veno in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "veno",
    build: |spec, field| Ok(Box::new(Veno::from_spec(spec, field)?)),
    params: &[ParamStruct::of::<VenoParams>],
    source: include_str!("veno.rs"),
};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct VenoParams {
    /// Backlog threshold between the non-congestive and congestive states, packets
    /// (001 section II-A: "beta = 3 is a good setting").
    pub beta: f64,
    /// Multiplicative decrease for a loss taken as random (001 section II-B.3: 4/5).
    pub random_factor: f64,
    /// Multiplicative decrease for a loss taken as congestive (Reno's 1/2).
    pub congestive_factor: f64,
    /// The RTT in N: "smoothed" (default; 001 section II-A: "RTT is the smoothed
    /// round-trip time measured"), or a statistic of the last round: "min" (Linux
    /// `tcp_veno.c`), "last" or "mean".
    pub rtt: RttChoice,
    /// When BaseRTT is forgotten (see [`BaseRttReset`]).
    pub base_rtt_reset: BaseRttReset,
}

/// Whether BaseRTT restarts after a loss. 001 section II-A resets it "whenever packet loss
/// is detected, either due to time-out or duplicate acknowledgements" (the default);
/// Linux's `tcp_veno.c` and the original Vegas keep the minimum for the connection's life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BaseRttReset {
    /// 001 section II-A: reset on every loss response (timeout or fast retransmit).
    #[default]
    OnLoss,
    /// Never: the minimum RTT seen since the connection started.
    Never,
}

impl Default for VenoParams {
    fn default() -> Self {
        VenoParams {
            beta: 3.0,
            random_factor: 0.8,
            congestive_factor: 0.5,
            rtt: RttChoice::Smoothed,
            base_rtt_reset: BaseRttReset::OnLoss,
        }
    }
}

/// The branch labels of the loss records.
pub const RANDOM: &str = "random";
pub const CONGESTIVE: &str = "congestive";

pub struct Veno {
    p: VenoParams,
    base: BaseRtt,
    rounds: RoundTracker,
    /// The last finished round (for the per-round RTT choices).
    last_round: Option<Round>,
    /// The latest backlog estimate, packets.
    n: f64,
    /// In the congestive state, whether the next new ACK is the "other" one that grows
    /// the window.
    odd_ack: bool,
    /// The classification of the last loss response (none for timeouts).
    tag: Option<LossTag>,
}

impl Veno {
    pub fn new(p: VenoParams) -> Self {
        Veno {
            p,
            base: BaseRtt::default(),
            rounds: RoundTracker::default(),
            last_round: None,
            n: 0.0,
            odd_ack: false,
            tag: None,
        }
    }

    pub fn from_spec(spec: &CcSpec, field: &str) -> Result<Self, ConfigError> {
        let p: VenoParams = parse_params(spec, field)?;
        check_range(field, "beta", p.beta, 0.0, 1e4)?;
        check_range(field, "random_factor", p.random_factor, 0.01, 1.0)?;
        check_range(field, "congestive_factor", p.congestive_factor, 0.01, 1.0)?;
        Ok(Veno::new(p))
    }

    /// The latest backlog estimate N, packets.
    pub fn backlog(&self) -> f64 {
        self.n
    }

    /// 001 section II-A: N = Actual * (RTT - BaseRTT) = (cwnd/BaseRTT - cwnd/RTT) * BaseRTT.
    /// Zero until BaseRTT and the RTT are known.
    fn estimate(&self, st: &CcState) -> f64 {
        let rtt = match self.p.rtt {
            RttChoice::Smoothed => Some(st.srtt).filter(|t| *t > Time::ZERO),
            choice => self.last_round.map(|r| r.rtt(choice, st.srtt)),
        };
        match (self.base.get(), rtt) {
            (Some(base), Some(rtt)) => Estimate::new(st.cwnd, base, rtt).diff,
            _ => 0.0,
        }
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }

    /// 001 section II-B: Reno's fast retransmit and fast recovery, only ssthresh changes.
    fn default_recovery(&self) -> Recovery {
        Recovery::Reno
    }

    fn init(&mut self, st: &mut CcState) {
        self.rounds.restart(st.snd_nxt);
    }

    fn pkts_acked(&mut self, st: &mut CcState, sample: &AckSample) {
        if let Some(r) = sample.rtt {
            self.base.observe(r);
        }
        if let Some(round) = self.rounds.on_ack(st.snd_una, st.snd_nxt, sample.rtt) {
            self.last_round = Some(round);
        }
        self.n = self.estimate(st);
    }

    /// 001 section II-B.1: Reno's slow start unchanged. II-B.2: in congestion avoidance
    /// cwnd + 1/cwnd on each new ACK if N < beta, on every other new ACK if N >= beta.
    fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        if !st.cwnd_limited {
            return;
        }
        if st.in_slow_start() || self.n < self.p.beta {
            reno_increase(st, acked);
            return;
        }
        self.odd_ack = !self.odd_ack;
        if !self.odd_ack {
            reno_increase(st, acked);
        }
    }

    /// 001 section II-B.3: on fast retransmit ssthresh = cwnd * 4/5 if N < beta (random
    /// loss), cwnd / 2 otherwise; a timeout is Reno's (cwnd / 2). In both cases BaseRTT is
    /// reset (001 section II-A), so that it follows the traffic of other connections,
    /// unless `base_rtt_reset = "never"`.
    fn ssthresh(&mut self, st: &CcState, loss: &LossInfo) -> f64 {
        self.n = self.estimate(st);
        let window = st.effective_window();
        let factor = if loss.kind == LossKind::Timeout {
            self.tag = None;
            self.p.congestive_factor
        } else if self.n < self.p.beta {
            self.tag = Some(LossTag {
                label: RANDOM,
                value: self.n,
            });
            self.p.random_factor
        } else {
            self.tag = Some(LossTag {
                label: CONGESTIVE,
                value: self.n,
            });
            self.p.congestive_factor
        };
        if self.p.base_rtt_reset == BaseRttReset::OnLoss {
            self.base.reset();
        }
        self.rounds.restart(st.snd_nxt);
        self.last_round = None;
        (window * factor).max(2.0)
    }

    fn loss_tag(&self) -> Option<LossTag> {
        self.tag
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("n", self.n));
        if let Some(b) = self.base.get() {
            out.push(("base_rtt", b.as_secs_f64()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::scripted::Script;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    fn veno() -> Veno {
        Veno::new(VenoParams::default())
    }

    /// A Veno in congestion avoidance at cwnd 20 whose smoothed RTT shows `queued` packets.
    fn at_backlog(queued: f64) -> (Veno, Script) {
        let mut cc = veno();
        let mut s = Script::new(20.0, 10.0);
        s.start(&mut cc);
        s.ack(&mut cc, Some(ms(100)));
        s.st.cwnd = 20.0;
        // srtt such that 20 * (1 - 100/srtt) = queued.
        s.st.srtt = Time::from_secs_f64(0.1 * 20.0 / (20.0 - queued));
        (cc, s)
    }

    #[test]
    fn backlog_is_diff_times_base_rtt() {
        let (mut cc, mut s) = at_backlog(4.0);
        s.ack(&mut cc, None);
        assert!((cc.backlog() - 4.0).abs() < 1e-6, "{}", cc.backlog());
    }

    #[test]
    fn grows_per_ack_below_beta_and_every_other_ack_above() {
        let (mut cc, mut s) = at_backlog(1.0);
        s.ack(&mut cc, None);
        let w = 20.0;
        assert!(
            (s.st.cwnd - (w + 1.0 / w)).abs() < 1e-9,
            "N < beta: Reno's 1/cwnd"
        );
        let (mut cc, mut s) = at_backlog(5.0);
        s.ack(&mut cc, None);
        assert_eq!(
            s.st.cwnd, 20.0,
            "N >= beta: the first of two ACKs does nothing"
        );
        s.ack(&mut cc, None);
        assert!(
            (s.st.cwnd - 20.05).abs() < 1e-9,
            "the other ACK grows by 1/cwnd"
        );
        s.ack(&mut cc, None);
        assert!((s.st.cwnd - 20.05).abs() < 1e-9);
    }

    #[test]
    fn slow_start_is_reno() {
        let mut cc = veno();
        let mut s = Script::new(2.0, 1e9);
        s.start(&mut cc);
        s.ack(&mut cc, Some(ms(100)));
        s.ack(&mut cc, Some(ms(200)));
        assert_eq!(s.st.cwnd, 4.0, "+1 per ACK whatever N");
    }

    #[test]
    fn random_loss_cuts_a_fifth_congestive_loss_a_half() {
        let (mut cc, mut s) = at_backlog(2.0);
        assert_eq!(s.loss(&mut cc, LossKind::FastRetransmit), 16.0);
        let tag = cc.loss_tag().unwrap();
        assert_eq!(tag.label, RANDOM);
        assert!((tag.value - 2.0).abs() < 1e-6);
        let (mut cc, mut s) = at_backlog(3.0);
        assert_eq!(
            s.loss(&mut cc, LossKind::FastRetransmit),
            10.0,
            "N = beta is congestive"
        );
        assert_eq!(cc.loss_tag().unwrap().label, CONGESTIVE);
        let (mut cc, mut s) = at_backlog(1.0);
        assert_eq!(
            s.loss(&mut cc, LossKind::Timeout),
            10.0,
            "timeouts are Reno's"
        );
        assert_eq!(cc.loss_tag(), None);
        assert_eq!(s.st.cwnd, 1.0);
    }

    #[test]
    fn base_rtt_resets_on_every_loss() {
        let (mut cc, mut s) = at_backlog(2.0);
        assert_eq!(cc.base.get(), Some(ms(100)));
        s.loss(&mut cc, LossKind::FastRetransmit);
        assert_eq!(cc.base.get(), None);
        s.recover(&mut cc);
        s.ack(&mut cc, Some(ms(130)));
        assert_eq!(
            cc.base.get(),
            Some(ms(130)),
            "the next sample is the new BaseRTT"
        );
        s.loss(&mut cc, LossKind::Timeout);
        assert_eq!(cc.base.get(), None);
    }

    #[test]
    fn base_rtt_kept_across_losses_when_never_reset() {
        let mut cc = Veno::new(VenoParams {
            base_rtt_reset: BaseRttReset::Never,
            ..VenoParams::default()
        });
        let mut s = Script::new(20.0, 10.0);
        s.start(&mut cc);
        s.round(&mut cc, ms(100));
        s.loss(&mut cc, LossKind::FastRetransmit);
        s.recover(&mut cc);
        s.ack(&mut cc, Some(ms(130)));
        assert_eq!(
            cc.base.get(),
            Some(ms(100)),
            "the minimum survives the loss"
        );
        s.loss(&mut cc, LossKind::Timeout);
        assert_eq!(cc.base.get(), Some(ms(100)));
    }

    #[test]
    fn min_rtt_variant_uses_the_last_round() {
        let mut cc = Veno::new(VenoParams {
            rtt: RttChoice::Min,
            ..VenoParams::default()
        });
        let mut s = Script::new(20.0, 10.0);
        s.start(&mut cc);
        s.round(&mut cc, ms(100));
        // A round whose smallest sample is 125 ms: N = cwnd * 25/125.
        s.round_with(&mut cc, |i| if i == 2 { ms(125) } else { ms(150) });
        assert!(
            (cc.backlog() / s.st.cwnd - 0.2).abs() < 1e-3,
            "{}",
            cc.backlog()
        );
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let mut spec = CcSpec::named("veno");
        spec.params
            .insert("random_factor".into(), toml::Value::Float(1.5));
        assert_eq!(
            Veno::from_spec(&spec, "f").err().unwrap().field,
            "f.random_factor"
        );
        let mut spec = CcSpec::named("veno");
        spec.params
            .insert("rtt".into(), toml::Value::String("median".into()));
        assert_eq!(Veno::from_spec(&spec, "f").err().unwrap().field, "f.rtt");
    }
}
