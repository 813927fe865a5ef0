//! CODE TCP (COmpetitive DElay-based TCP), 000 section 3.2: NewVegas with two changes.
//! On a loss detected by duplicate ACKs the thresholds are multiplied by epsilon = 0.68
//! (eq. (18)'s admissible root) instead of returning to alpha0 and beta0, and when the RTT
//! grew while the window did not they rise by 2 instead of 1. CODE measures "the minimum
//! of the RTTs measured within the last window" (000 section 4.5), which is this
//! algorithm's default RTT choice. The rule itself is [`ThresholdRule`].

use super::delay::split_params;
use super::newvegas::{OnDupackLoss, ThresholdDecrease, ThresholdParams, ThresholdRule};
use super::params::check_range;
use super::params::ParamStruct;
use super::registry::Algorithm;
use super::round::RttChoice;
use super::vegas::documented_options;
use super::vegas::{VegasConfig, VegasFamily};
use super::{parse_params, CcSpec};
use crate::config::ConfigError;
use serde::{Deserialize, Serialize};

/// CODE's own options; the Vegas family's are accepted beside them.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct CodeParams {
    /// Threshold scaling on a duplicate-ACK loss (000 section 3.3, eq. (19): 0.68).
    pub epsilon: f64,
    /// Threshold increase when the RTT grew and the window did not (000 section 3.2: 2).
    pub increase: f64,
}

impl Default for CodeParams {
    fn default() -> Self {
        CodeParams {
            epsilon: 0.68,
            increase: 2.0,
        }
    }
}

pub type Code = VegasFamily<ThresholdRule>;

/// CODE TCP in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "code",
    build: |spec, field| Ok(Box::new(from_spec(spec, field)?)),
    params: &[
        || documented_options(from_spec, ALGORITHM.name),
        ParamStruct::of::<ThresholdParams>,
        ParamStruct::of::<CodeParams>,
    ],
    source: include_str!("code.rs"),
};

pub fn from_spec(spec: &CcSpec, field: &str) -> Result<Code, ConfigError> {
    let (rest, own) = split_params(spec, &["epsilon", "increase"]);
    let p: CodeParams = parse_params(&own, field)?;
    check_range(field, "epsilon", p.epsilon, 0.01, 1.0)?;
    check_range(field, "increase", p.increase, 0.0, 100.0)?;
    let (rest, t) = ThresholdParams::split(&rest, field)?;
    let cfg = VegasConfig::from_spec(&rest, field, RttChoice::Min)?;
    Ok(with_decrease(cfg, &p, t.threshold_decrease))
}

pub fn new(cfg: VegasConfig, p: &CodeParams) -> Code {
    with_decrease(cfg, p, ThresholdDecrease::default())
}

/// CODE with the given reading of the threshold-decrease rule (NewVegas's, which CODE keeps).
pub fn with_decrease(cfg: VegasConfig, p: &CodeParams, decrease: ThresholdDecrease) -> Code {
    VegasFamily::new(
        cfg,
        ThresholdRule::new(
            "code",
            &cfg,
            p.increase,
            OnDupackLoss::Scale(p.epsilon),
            decrease,
        ),
    )
}

/// The roots of 000 eq. (18), 34 e^2 - 54 e + 21 = 0, from which the default epsilon comes.
pub fn epsilon_roots() -> (f64, f64) {
    let (a, b, c) = (34.0_f64, -54.0_f64, 21.0_f64);
    let d = (b * b - 4.0 * a * c).sqrt();
    ((-b - d) / (2.0 * a), (-b + d) / (2.0 * a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::scripted::Script;
    use crate::cc::{CongestionControl, LossKind};
    use crate::sim::Time;

    fn code() -> Code {
        new(VegasConfig::paper(RttChoice::Min), &CodeParams::default())
    }

    #[test]
    fn eq18_roots_give_epsilon() {
        let (lo, hi) = epsilon_roots();
        assert!((lo - 0.68).abs() < 0.005, "{lo}");
        assert!((hi - 0.91).abs() < 0.005, "{hi}");
        // eq. (14): t = (3/4 - epsilon) W_Vmax must not be negative, so the smaller root.
        assert!(0.75 - lo > 0.0 && 0.75 - hi < 0.0);
        assert_eq!(CodeParams::default().epsilon, 0.68);
    }

    #[test]
    fn thresholds_rise_by_two_and_fall_by_one() {
        let mut cc = code();
        cc.seed_base_rtt(Time::from_millis(100));
        cc.rule_mut().prev = Some((Time::from_millis(110), 20.0));
        let mut s = Script::new(20.0, 20.0);
        s.start(&mut cc);
        // Delta = 20 * (1 - 100/120) = 3.33 > beta 3: W - 1 = 19 <= 20, RTT up: +2.
        s.round(&mut cc, Time::from_millis(120));
        assert_eq!(s.st.cwnd, 19.0);
        assert_eq!((cc.rule().alpha(), cc.rule().beta()), (3.0, 5.0));
        // Same RTT: not greater, alpha 3 > alpha0 1: -1.
        s.round(&mut cc, Time::from_millis(120));
        assert_eq!((cc.rule().alpha(), cc.rule().beta()), (2.0, 4.0));
    }

    #[test]
    fn duplicate_ack_loss_scales_and_timeout_restores() {
        let mut cc = code();
        cc.rule_mut().alpha = 15.0;
        cc.rule_mut().beta = 17.0;
        let mut s = Script::new(40.0, 40.0);
        s.start(&mut cc);
        s.loss(&mut cc, LossKind::FastRetransmit);
        assert!((cc.rule().alpha() - 10.2).abs() < 1e-9);
        assert!((cc.rule().beta() - 11.56).abs() < 1e-9);
        assert_eq!(s.st.cwnd, 30.0, "Vegas's 3/4 (000 eq. (4))");
        s.loss(&mut cc, LossKind::Timeout);
        assert_eq!((cc.rule().alpha(), cc.rule().beta()), (1.0, 3.0));
        assert_eq!(cc.name(), "code");
    }

    #[test]
    fn min_rtt_of_the_round_is_the_default() {
        let spec = CcSpec::named("code");
        let cc = from_spec(&spec, "cc").unwrap();
        assert_eq!(cc.config().rtt, RttChoice::Min);
        let mut bad = CcSpec::named("code");
        bad.params.insert("epsilon".into(), toml::Value::Float(1.5));
        assert_eq!(from_spec(&bad, "f").err().unwrap().field, "f.epsilon");
        let mut typo = CcSpec::named("code");
        typo.params
            .insert("epsilonn".into(), toml::Value::Float(0.5));
        assert!(from_spec(&typo, "f").is_err());
    }

    #[test]
    fn round_rtt_is_the_minimum_sample() {
        let ms = Time::from_millis;
        let mut cc = code();
        cc.seed_base_rtt(ms(100));
        let mut s = Script::new(20.0, 20.0);
        s.start(&mut cc);
        s.round(&mut cc, ms(100)); // the first round is one ACK long
                                   // One 100 ms sample among 140 ms ones: the minimum shows no queue (Delta 0).
        let n = s.round_with(&mut cc, |i| if i == 3 { ms(100) } else { ms(140) });
        assert!(n > 10, "a full window of ACKs");
        assert_eq!(cc.diff(), Some(0.0));
        // Under the "last" choice the same round shows 20 * 40/140 = 5.7 packets queued.
        let mut last = new(VegasConfig::paper(RttChoice::Last), &CodeParams::default());
        last.seed_base_rtt(ms(100));
        let mut s = Script::new(20.0, 20.0);
        s.start(&mut last);
        s.round(&mut last, ms(100));
        s.round_with(&mut last, |i| if i == 3 { ms(100) } else { ms(140) });
        assert!(last.diff().unwrap() > 5.0);
    }
}
