//! TCP Vegas-A, as given in 000 section 2.5 (pseudocode there): Vegas whose thresholds
//! move with the trend of the actual throughput Th (Vegas's Actual rate, cwnd / RTT, one
//! value per round). alpha and beta start at alpha0 = 1 and beta0 = 3. Everything else
//! is Vegas's ([`super::vegas`]); 000 gives no loss rule for the thresholds, so a loss
//! leaves them where they are.

use super::registry::Algorithm;
use super::round::RttChoice;
use super::vegas::documented_options;
use super::vegas::{AvoidanceRule, RoundView, VegasConfig, VegasFamily};
use super::{CcSpec, LossKind};
use crate::config::ConfigError;

pub struct VegasARule {
    alpha0: f64,
    pub(crate) alpha: f64,
    pub(crate) beta: f64,
    /// Th of the previous round (000 section 2.5's Th_{t-rtt}), packets per second.
    pub(crate) prev_th: Option<f64>,
}

impl VegasARule {
    pub fn new(cfg: &VegasConfig) -> Self {
        VegasARule {
            alpha0: cfg.alpha,
            alpha: cfg.alpha,
            beta: cfg.beta,
            prev_th: None,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    pub fn beta(&self) -> f64 {
        self.beta
    }

    fn shift(&mut self, by: f64) {
        self.alpha += by;
        self.beta += by;
    }
}

impl AvoidanceRule for VegasARule {
    fn name(&self) -> &'static str {
        "vegas_a"
    }

    /// 000 section 2.5, once per round, with Th_t this round's Actual rate and
    /// "alpha = 1" read as alpha at its initial value alpha0 (1 by default):
    /// - alpha < Delta < beta: if Th rose, W + 1 and both thresholds + 1;
    /// - Delta < alpha: if alpha > alpha0 and Th rose, W + 1; if alpha > alpha0 and Th
    ///   fell, W - 1 and both thresholds - 1; if alpha is alpha0, W + 1;
    /// - Delta > beta: both thresholds - 1 if alpha > alpha0, and W - 1;
    /// - otherwise (Delta equal to a threshold) W unchanged.
    ///
    /// The first round has no Th_{t-rtt}: it counts as neither a rise nor a fall.
    fn on_round(&mut self, v: &RoundView) -> f64 {
        let th = v.est.actual;
        let rose = self.prev_th.is_some_and(|p| th > p);
        let fell = self.prev_th.is_some_and(|p| th < p);
        let d = v.est.diff;
        let above_alpha0 = self.alpha > self.alpha0;
        if self.alpha < d && d < self.beta {
            if rose {
                self.shift(1.0);
                return 1.0;
            }
            0.0
        } else if d < self.alpha {
            if above_alpha0 && rose {
                1.0
            } else if above_alpha0 && fell {
                self.shift(-1.0);
                -1.0
            } else if !above_alpha0 {
                1.0
            } else {
                0.0
            }
        } else if d > self.beta {
            if above_alpha0 {
                self.shift(-1.0);
            }
            -1.0
        } else {
            0.0
        }
    }

    /// Records Th_t for the next round (slow-start rounds included).
    fn after_round(&mut self, v: &RoundView, _cwnd: f64) {
        self.prev_th = Some(v.est.actual);
    }

    /// The rounds on either side of a loss measure different windows: forget Th_{t-rtt}.
    fn on_loss(&mut self, _kind: LossKind, new_episode: bool) {
        if new_episode {
            self.prev_th = None;
        }
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("alpha", self.alpha));
        out.push(("beta", self.beta));
        if let Some(th) = self.prev_th {
            out.push(("throughput", th));
        }
    }
}

pub type VegasA = VegasFamily<VegasARule>;

/// Vegas-A in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "vegas_a",
    build: |spec, field| Ok(Box::new(from_spec(spec, field)?)),
    params: &[|| documented_options(from_spec, ALGORITHM.name)],
    source: include_str!("vegas_a.rs"),
};

pub fn from_spec(spec: &CcSpec, field: &str) -> Result<VegasA, ConfigError> {
    let cfg = VegasConfig::from_spec(spec, field, RttChoice::Last)?;
    Ok(new(cfg))
}

pub fn new(cfg: VegasConfig) -> VegasA {
    VegasFamily::new(cfg, VegasARule::new(&cfg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::delay::Estimate;
    use crate::sim::Time;

    /// A round with `diff` packets queued and actual rate `th`.
    fn view(diff: f64, th: f64) -> RoundView {
        RoundView {
            cwnd: 20.0,
            rtt: Time::from_millis(100),
            base_rtt: Time::from_millis(80),
            est: Estimate {
                expected: th + diff,
                actual: th,
                diff,
            },
            in_slow_start: false,
        }
    }

    fn rule(alpha: f64, beta: f64, prev_th: f64) -> VegasARule {
        let mut r = VegasARule::new(&VegasConfig::paper(RttChoice::Last));
        r.alpha = alpha;
        r.beta = beta;
        r.prev_th = Some(prev_th);
        r
    }

    #[test]
    fn between_thresholds_probes_only_when_throughput_rose() {
        let mut r = rule(1.0, 3.0, 100.0);
        assert_eq!(r.on_round(&view(2.0, 110.0)), 1.0);
        assert_eq!((r.alpha, r.beta), (2.0, 4.0));
        let mut r = rule(1.0, 3.0, 100.0);
        assert_eq!(r.on_round(&view(2.0, 90.0)), 0.0);
        assert_eq!((r.alpha, r.beta), (1.0, 3.0));
    }

    #[test]
    fn below_alpha_depends_on_alpha_and_trend() {
        // alpha above alpha0, throughput rose: W + 1, thresholds kept.
        let mut r = rule(3.0, 5.0, 100.0);
        assert_eq!(r.on_round(&view(2.0, 110.0)), 1.0);
        assert_eq!((r.alpha, r.beta), (3.0, 5.0));
        // alpha above alpha0, throughput fell: W - 1 and thresholds - 1.
        let mut r = rule(3.0, 5.0, 100.0);
        assert_eq!(r.on_round(&view(2.0, 90.0)), -1.0);
        assert_eq!((r.alpha, r.beta), (2.0, 4.0));
        // alpha above alpha0, throughput unchanged: nothing.
        let mut r = rule(3.0, 5.0, 100.0);
        assert_eq!(r.on_round(&view(2.0, 100.0)), 0.0);
        // alpha at alpha0: W + 1 whatever the trend.
        let mut r = rule(1.0, 3.0, 100.0);
        assert_eq!(r.on_round(&view(0.5, 90.0)), 1.0);
        assert_eq!((r.alpha, r.beta), (1.0, 3.0));
    }

    #[test]
    fn above_beta_always_decreases() {
        let mut r = rule(3.0, 5.0, 100.0);
        assert_eq!(r.on_round(&view(6.0, 120.0)), -1.0);
        assert_eq!((r.alpha, r.beta), (2.0, 4.0));
        let mut r = rule(1.0, 3.0, 100.0);
        assert_eq!(r.on_round(&view(6.0, 120.0)), -1.0);
        assert_eq!((r.alpha, r.beta), (1.0, 3.0), "never below alpha0");
    }

    #[test]
    fn on_a_threshold_nothing_changes() {
        let mut r = rule(2.0, 4.0, 100.0);
        assert_eq!(r.on_round(&view(2.0, 150.0)), 0.0);
        assert_eq!(r.on_round(&view(4.0, 150.0)), 0.0);
        assert_eq!((r.alpha, r.beta), (2.0, 4.0));
    }

    #[test]
    fn throughput_history_runs_through_the_sender_hooks() {
        use crate::cc::scripted::Script;
        let mut cc = new(VegasConfig::paper(RttChoice::Last));
        cc.seed_base_rtt(Time::from_millis(100));
        let mut s = Script::new(20.0, 20.0);
        s.start(&mut cc);
        // 20 packets, RTT 110 ms: Delta 1.8 in (1, 3), no history yet: unchanged.
        s.round(&mut cc, Time::from_millis(110));
        assert_eq!(s.st.cwnd, 20.0);
        // Lower RTT: Th rose, Delta 20 * 5/105 = 0.95 < alpha 1 = alpha0: W + 1.
        s.round(&mut cc, Time::from_millis(105));
        assert_eq!(s.st.cwnd, 21.0);
        // 21 packets at 108 ms: Delta 1.56 in (1, 3) and Th 194 > 190: probe.
        s.round(&mut cc, Time::from_millis(108));
        assert_eq!(s.st.cwnd, 22.0);
        assert_eq!((cc.rule().alpha(), cc.rule().beta()), (2.0, 4.0));
    }
}
