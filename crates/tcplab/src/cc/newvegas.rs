//! TCP NewVegas, as described in 000 section 2.4 (pseudocode there): Vegas whose
//! thresholds alpha and beta rise by one when the RTT grew while the window did not, and
//! fall by one (not below alpha0) when the RTT did not grow; a loss restores alpha0 and
//! beta0. Everything else is Vegas's ([`super::vegas`]).
//!
//! The same adaptive-threshold rule, with a different step and loss reaction, is CODE
//! TCP's ([`super::code`]), so the rule lives here as [`ThresholdRule`].

use super::delay::split_params;
use super::params::ParamStruct;
use super::registry::Algorithm;
use super::round::RttChoice;
use super::vegas::documented_options;
use super::vegas::{vegas_step, AvoidanceRule, RoundView, VegasConfig, VegasFamily};
use super::{parse_params, CcSpec, LossKind};
use crate::config::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// When the thresholds fall back toward alpha0 and beta0 between losses. 000 reads three
/// ways, so each reading is an option and the pseudocode's is the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ThresholdDecrease {
    /// 000 section 2.4's pseudocode: "if (RTT <= RTT_old and alpha > alpha0)". A flat queue
    /// (equal RTTs) lowers the thresholds too.
    #[default]
    RttNotGreater,
    /// 000 section 2.4's prose: "if the RTT begins decreasing" (RTT < RTT_old).
    RttDecreased,
    /// 000 section 3.3's model behind eqs. (13)-(17): between losses the window only
    /// falls to the scaled thresholds and then grows, i.e. the thresholds never fall
    /// between losses; only a loss lowers them.
    LossOnly,
}

impl ThresholdDecrease {
    /// Whether a round whose RTT is `rtt` after `rtt_old` lowers the thresholds.
    fn fires(self, rtt: Time, rtt_old: Time) -> bool {
        match self {
            ThresholdDecrease::RttNotGreater => rtt <= rtt_old,
            ThresholdDecrease::RttDecreased => rtt < rtt_old,
            ThresholdDecrease::LossOnly => false,
        }
    }
}

/// The threshold rule's options, shared by NewVegas and CODE.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ThresholdParams {
    /// Which reading of the rule that lowers the thresholds (see [`ThresholdDecrease`]).
    pub threshold_decrease: ThresholdDecrease,
}

impl ThresholdParams {
    pub const KEYS: &'static [&'static str] = &["threshold_decrease"];

    /// Takes the rule's own keys out of `spec`, returning the rest and the parsed options.
    pub fn split(spec: &CcSpec, field: &str) -> Result<(CcSpec, Self), ConfigError> {
        let (rest, own) = split_params(spec, Self::KEYS);
        Ok((rest, parse_params(&own, field)?))
    }
}

/// How the thresholds react to a loss detected by duplicate ACKs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OnDupackLoss {
    /// Back to alpha0 and beta0 (NewVegas, 000 section 2.4).
    Restore,
    /// Multiplied by epsilon (CODE, 000 section 3.2).
    Scale(f64),
}

/// NewVegas's and CODE's rule: Vegas's eq. (2) with thresholds that follow the RTT trend.
#[derive(Clone, Debug)]
pub struct ThresholdRule {
    name: &'static str,
    alpha0: f64,
    beta0: f64,
    pub(crate) alpha: f64,
    pub(crate) beta: f64,
    /// Added to both thresholds when the RTT grew and the window did not (1 in NewVegas,
    /// 2 in CODE).
    increase: f64,
    on_dupack_loss: OnDupackLoss,
    decrease: ThresholdDecrease,
    /// The previous round's RTT and window (000 section 2.4's RTT_old and W_old).
    pub(crate) prev: Option<(Time, f64)>,
}

impl ThresholdRule {
    pub fn new(
        name: &'static str,
        cfg: &VegasConfig,
        increase: f64,
        on_dupack_loss: OnDupackLoss,
        decrease: ThresholdDecrease,
    ) -> Self {
        ThresholdRule {
            name,
            alpha0: cfg.alpha,
            beta0: cfg.beta,
            alpha: cfg.alpha,
            beta: cfg.beta,
            increase,
            on_dupack_loss,
            decrease,
            prev: None,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    pub fn beta(&self) -> f64 {
        self.beta
    }
}

impl AvoidanceRule for ThresholdRule {
    fn name(&self) -> &'static str {
        self.name
    }

    /// First half of 000 section 2.4's pseudocode: Vegas's W +- 1 with the current thresholds.
    fn on_round(&mut self, v: &RoundView) -> f64 {
        vegas_step(v.est.diff, self.alpha, self.beta)
    }

    /// Second half, once per RTT: if RTT > RTT_old and W <= W_old, both thresholds rise
    /// (the flow is not the cause of the growing delay); if RTT <= RTT_old (or the
    /// reading chosen by [`ThresholdDecrease`]) and alpha > alpha0, both fall by one. W is the window after this round's change and
    /// W_old the previous round's (000 table 1). Slow-start rounds only record RTT_old
    /// and W_old: the rule is confined to congestion avoidance.
    fn after_round(&mut self, v: &RoundView, cwnd: f64) {
        if let (false, Some((rtt_old, w_old))) = (v.in_slow_start, self.prev) {
            if v.rtt > rtt_old && cwnd <= w_old {
                self.alpha += self.increase;
                self.beta += self.increase;
            }
            if self.decrease.fires(v.rtt, rtt_old) && self.alpha > self.alpha0 {
                self.alpha -= 1.0;
                self.beta -= 1.0;
            }
        }
        self.prev = Some((v.rtt, cwnd));
    }

    /// 000 section 2.4: on a loss detected by duplicate ACKs (Vegas's fine-grained check
    /// on a duplicate ACK or the third duplicate) or on a timeout, alpha0 and beta0 again;
    /// CODE (section 3.2) scales them by epsilon on duplicate-ACK losses instead (a
    /// timeout still restores them, as in NewVegas, which CODE modifies only there).
    /// Only the loss that opens a loss episode counts (the one Vegas reduces the window
    /// for), not each further retransmission of the same window. RTT_old is forgotten:
    /// the rounds around a loss measure different windows.
    fn on_loss(&mut self, kind: LossKind, new_episode: bool) {
        if !new_episode {
            return;
        }
        match (kind, self.on_dupack_loss) {
            (LossKind::Timeout, _) | (_, OnDupackLoss::Restore) => {
                self.alpha = self.alpha0;
                self.beta = self.beta0;
            }
            (_, OnDupackLoss::Scale(eps)) => {
                self.alpha *= eps;
                self.beta *= eps;
            }
        }
        self.prev = None;
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("alpha", self.alpha));
        out.push(("beta", self.beta));
    }
}

pub type NewVegas = VegasFamily<ThresholdRule>;

/// NewVegas from a scenario's `cc` table: Vegas's options (alpha and beta are alpha0 and
/// beta0, default 1 and 3 as in 000 section 2.4). The RTT is that of "the target packet",
/// i.e. of the round's last sample.
/// NewVegas in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "newvegas",
    build: |spec, field| Ok(Box::new(from_spec(spec, field)?)),
    params: &[
        || documented_options(from_spec, ALGORITHM.name),
        ParamStruct::of::<ThresholdParams>,
    ],
    source: include_str!("newvegas.rs"),
};

pub fn from_spec(spec: &CcSpec, field: &str) -> Result<NewVegas, ConfigError> {
    let (rest, p) = ThresholdParams::split(spec, field)?;
    let cfg = VegasConfig::from_spec(&rest, field, RttChoice::Last)?;
    Ok(with_decrease(cfg, p.threshold_decrease))
}

pub fn new(cfg: VegasConfig) -> NewVegas {
    with_decrease(cfg, ThresholdDecrease::default())
}

pub fn with_decrease(cfg: VegasConfig, decrease: ThresholdDecrease) -> NewVegas {
    VegasFamily::new(
        cfg,
        ThresholdRule::new("newvegas", &cfg, 1.0, OnDupackLoss::Restore, decrease),
    )
}

/// 000 table 1 (section 3.1's example) driven through the engine's NewVegas: alpha = 5,
/// beta = 7 and W = 20 at RTT_j, BaseRTT 100 ms, and an RTT that grows every round so that
/// Delta sits a hair above 5, 5, 6, 6, 7, 7. One row per round: W_old, alpha, beta, Delta
/// (rounded, as printed) and W after the round. The report compares it with the paper.
pub fn table1_trace() -> Vec<[f64; 5]> {
    use super::scripted::Script;
    let mut cc = new(VegasConfig::paper(RttChoice::Last));
    let base = 0.1;
    cc.seed_base_rtt(Time::from_secs_f64(base));
    {
        let r = cc.rule_mut();
        r.alpha = 5.0;
        r.beta = 7.0;
        r.prev = Some((Time::from_secs_f64(0.13), 20.0));
    }
    let mut s = Script::new(20.0, 20.0);
    s.start(&mut cc);
    let delta = [5.0, 5.0, 6.0, 6.0, 7.0, 7.0];
    let nudge = [0.02, 0.05, 0.02, 0.05, 0.02, 0.05];
    let mut rows = Vec::new();
    for (d, n) in delta.iter().zip(nudge) {
        let w_old = cc.rule().prev.map_or(f64::NAN, |p| p.1);
        // The RTT at which the window shows `d + n` packets queued over BaseRTT.
        let w = s.st.cwnd;
        let rtt = Time::from_secs_f64(base * w / (w - (d + n)));
        s.round(&mut cc, rtt);
        let diff = cc.diff().unwrap_or(f64::NAN).round();
        rows.push([w_old, cc.rule().alpha(), cc.rule().beta(), diff, s.st.cwnd]);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::scripted::Script;
    use crate::cc::CongestionControl;

    /// 000 table 1, column by column: Delta stays near alpha while the RTT keeps growing,
    /// so NewVegas alternates between raising the thresholds and raising the window and
    /// gains only one packet per two RTTs (the paper's "second drawback").
    /// The RTT at which a window of `w` packets over BaseRTT `base` shows `diff` queued.
    fn rtt_for(base: f64, w: f64, diff: f64) -> Time {
        Time::from_secs_f64(base * w / (w - diff))
    }

    #[test]
    fn reproduces_table_1() {
        // Published rows: W_old, alpha, beta, Delta, W (after the round).
        let published = [
            [20.0, 6.0, 8.0, 5.0, 20.0],
            [20.0, 6.0, 8.0, 5.0, 21.0],
            [21.0, 7.0, 9.0, 6.0, 21.0],
            [21.0, 7.0, 9.0, 6.0, 22.0],
            [22.0, 8.0, 10.0, 7.0, 22.0],
            [22.0, 8.0, 10.0, 7.0, 23.0],
        ];
        assert_eq!(table1_trace(), published);
    }

    #[test]
    fn thresholds_fall_toward_alpha0_when_rtt_does_not_grow() {
        let mut cc = new(VegasConfig::paper(RttChoice::Last));
        cc.seed_base_rtt(Time::from_millis(100));
        {
            let r = cc.rule_mut();
            r.alpha = 3.0;
            r.beta = 5.0;
            r.prev = Some((Time::from_millis(150), 20.0));
        }
        let mut s = Script::new(20.0, 20.0);
        s.start(&mut cc);
        let rtt = rtt_for(0.1, 20.0, 4.0); // 125 ms <= 150 ms; Delta 4 in [3, 5]
        s.round(&mut cc, rtt);
        assert_eq!((cc.rule().alpha(), cc.rule().beta()), (2.0, 4.0));
        s.round(&mut cc, rtt); // equal RTT also counts as "not greater"
        assert_eq!((cc.rule().alpha(), cc.rule().beta()), (1.0, 3.0));
        s.round(&mut cc, rtt); // alpha0 reached: no further decrease
        assert_eq!((cc.rule().alpha(), cc.rule().beta()), (1.0, 3.0));
        assert_eq!(s.st.cwnd, 19.0, "Delta 4 > beta 3: the window gives way");
    }

    /// The three readings of the decrease rule differ on a flat and on a falling RTT.
    #[test]
    fn decrease_readings_differ_as_documented() {
        let flat = |d: ThresholdDecrease, rtt_ms: u64| {
            let mut cc = with_decrease(VegasConfig::paper(RttChoice::Last), d);
            cc.seed_base_rtt(Time::from_millis(100));
            {
                let r = cc.rule_mut();
                r.alpha = 3.0;
                r.beta = 5.0;
                r.prev = Some((Time::from_millis(125), 20.0));
            }
            let mut s = Script::new(20.0, 20.0);
            s.start(&mut cc);
            s.round(&mut cc, Time::from_millis(rtt_ms));
            cc.rule().alpha()
        };
        use ThresholdDecrease::*;
        assert_eq!(
            flat(RttNotGreater, 125),
            2.0,
            "equal RTT lowers (pseudocode <=)"
        );
        assert_eq!(flat(RttDecreased, 125), 3.0, "equal RTT keeps (prose <)");
        assert_eq!(flat(RttDecreased, 120), 2.0, "falling RTT lowers (prose <)");
        assert_eq!(
            flat(LossOnly, 120),
            3.0,
            "only a loss lowers (eq. 13 model)"
        );
    }

    #[test]
    fn threshold_decrease_is_parsed_and_checked() {
        let mut spec = CcSpec::named("newvegas");
        spec.params
            .insert("threshold_decrease".into(), "rtt_decreased".into());
        assert!(from_spec(&spec, "flows[0].cc").is_ok());
        spec.params
            .insert("threshold_decrease".into(), "sometimes".into());
        let err = from_spec(&spec, "flows[0].cc").err().unwrap().to_string();
        assert!(
            err.contains("threshold_decrease") || err.contains("sometimes"),
            "{err}"
        );
    }

    #[test]
    fn a_loss_restores_the_initial_thresholds() {
        let mut cc = new(VegasConfig::paper(RttChoice::Last));
        cc.rule_mut().alpha = 9.0;
        cc.rule_mut().beta = 11.0;
        let mut s = Script::new(20.0, 20.0);
        s.start(&mut cc);
        s.loss(&mut cc, LossKind::FastRetransmit);
        assert_eq!((cc.rule().alpha(), cc.rule().beta()), (1.0, 3.0));
        assert_eq!(s.st.cwnd, 15.0, "Vegas's 3/4 window reduction");
        assert!(cc.rule().prev.is_none());
        cc.rule_mut().alpha = 4.0;
        cc.rule_mut().beta = 6.0;
        s.loss(&mut cc, LossKind::Timeout);
        assert_eq!((cc.rule().alpha(), cc.rule().beta()), (1.0, 3.0));
        assert_eq!(cc.name(), "newvegas");
    }
}
