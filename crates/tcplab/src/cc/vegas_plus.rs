//! TCP Vegas+ (003 section 5.1): Vegas in "moderate" mode, Reno's window growth (003
//! eq. (1)) in "aggressive" mode, switching on a counter of RTT increases the flow did not
//! cause. Only the window-update rule changes; loss detection, the loss response and the
//! "slow" slow start stay Vegas's ([`super::vegas`]), as 003 section 5.1 says.

use super::delay::split_params;
use super::params::check_range;
use super::params::ParamStruct;
use super::registry::Algorithm;
use super::reno::reno_increase;
use super::round::RttChoice;
use super::vegas::documented_options;
use super::vegas::{vegas_step, AvoidanceRule, RoundView, VegasConfig, VegasFamily};
use super::{parse_params, CcSpec, CcState, LossKind};
use crate::config::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// Vegas+'s own option; the Vegas family's are accepted beside it.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct VegasPlusParams {
    /// Count at which moderate mode turns aggressive (003 section 5.1: 8 performed best).
    pub count_max: u32,
    /// How often rules 1 and 2 compare the RTT (see [`CountEvery`]).
    pub count_every: CountEvery,
    /// Which window rules 1 and 2 require (see [`CountWindow`]).
    pub count_window: CountWindow,
}

/// The window condition of the count rules. 003 section 5.1 (rule 1: "if RTT is larger
/// than the previous value while the window size is not increased", count + 1; rule 2:
/// "if RTT becomes smaller", count - 1) conditions only the increment; 002 section 6,
/// summarising the same algorithm (its ref. [12] is 003), conditions both on an unchanged
/// window: count + 1 if rtt > rtt_p and ws = ws_p, count - 1 if rtt < rtt_p and ws = ws_p.
/// With the second reading an aggressive Vegas+, whose window grows on every ACK, keeps its
/// count until losses halve it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CountWindow {
    /// 003 section 5.1 as written: + 1 needs a window not larger than before; - 1 any window.
    #[default]
    NotIncreased,
    /// 002 section 6: both moves need the window equal to the previous one.
    Unchanged,
}

/// When Vegas+ compares the RTT with "the previous value" to move its count. 003 section
/// 5.1 rule 1 says "on every receipt of an ACK" (the default), but its RTT is Vegas's
/// once-per-round measurement, so the comparison may also be read once per round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CountEvery {
    /// 003 section 5.1 rule 1 as written: each ACK's RTT sample against the previous one.
    #[default]
    Ack,
    /// Once per round: the round's RTT (Vegas's, chosen by `rtt`) against the previous
    /// round's, with the window after the round's change.
    Round,
}

impl Default for VegasPlusParams {
    fn default() -> Self {
        VegasPlusParams {
            count_max: 8,
            count_every: CountEvery::Ack,
            count_window: CountWindow::NotIncreased,
        }
    }
}

pub struct VegasPlusRule {
    alpha: f64,
    beta: f64,
    count_max: u32,
    count_every: CountEvery,
    count_window: CountWindow,
    pub(crate) count: u32,
    pub(crate) aggressive: bool,
    /// RTT sample and window at the previous ACK (or round, with `count_every = "round"`).
    prev: Option<(Time, f64)>,
}

impl VegasPlusRule {
    pub fn new(cfg: &VegasConfig, count_max: u32, count_every: CountEvery) -> Self {
        VegasPlusRule {
            alpha: cfg.alpha,
            beta: cfg.beta,
            count_max,
            count_every,
            count_window: CountWindow::NotIncreased,
            count: 0,
            aggressive: false,
            prev: None,
        }
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    pub fn aggressive(&self) -> bool {
        self.aggressive
    }

    /// 003 section 5.1: moderate -> aggressive when count reaches count_max; aggressive
    /// -> moderate when count becomes 0.
    /// Rules 1 and 2: count + 1 if the RTT grew while the window did not; count - 1 (not
    /// below 0) if the RTT fell; with [`CountWindow::Unchanged`] either only when the
    /// window equals the previous one.
    fn compare(&mut self, rtt: Time, cwnd: f64) {
        if let Some((prev_rtt, prev_cwnd)) = self.prev {
            let (up_ok, down_ok) = match self.count_window {
                CountWindow::NotIncreased => (cwnd <= prev_cwnd, true),
                CountWindow::Unchanged => (cwnd == prev_cwnd, cwnd == prev_cwnd),
            };
            if rtt > prev_rtt && up_ok {
                self.count += 1;
            } else if rtt < prev_rtt && down_ok {
                self.count = self.count.saturating_sub(1);
            }
        }
        self.prev = Some((rtt, cwnd));
        self.switch_mode();
    }

    fn switch_mode(&mut self) {
        if !self.aggressive && self.count >= self.count_max {
            self.aggressive = true;
        } else if self.aggressive && self.count == 0 {
            self.aggressive = false;
        }
    }
}

impl AvoidanceRule for VegasPlusRule {
    fn name(&self) -> &'static str {
        "vegas_plus"
    }

    /// Moderate mode: Vegas's eq. (4) of 003 (000 eq. (2)); aggressive mode: no
    /// once-per-round change (the window grows per ACK instead).
    fn on_round(&mut self, v: &RoundView) -> f64 {
        if self.aggressive {
            0.0
        } else {
            vegas_step(v.est.diff, self.alpha, self.beta)
        }
    }

    /// 003 section 5.1 rules 1 and 2, on every ACK (`count_every = "ack"`): count + 1 if
    /// the RTT is larger than the previous value while the window did not increase;
    /// count - 1 (not below 0) if the RTT became smaller. ACKs without an RTT sample
    /// (Karn's rule) are skipped.
    fn on_ack(&mut self, st: &CcState, rtt: Option<Time>) {
        if let (CountEvery::Ack, Some(rtt)) = (self.count_every, rtt) {
            self.compare(rtt, st.cwnd);
        }
    }

    /// The same rules once per round (`count_every = "round"`), on the round's RTT and
    /// the window after the round's change.
    fn after_round(&mut self, v: &RoundView, cwnd: f64) {
        if self.count_every == CountEvery::Round {
            self.compare(v.rtt, cwnd);
        }
    }

    /// Aggressive mode: Reno's congestion avoidance, cwnd + 1/cwnd per ACK (003 eq. (1)).
    fn grow_per_ack(&mut self, st: &mut CcState, acked: u32) {
        if self.aggressive {
            reno_increase(st, acked);
        }
    }

    /// 003 section 5.1 rules 3 and 4: count halves on a fast retransmit (once per loss
    /// episode, like Vegas's window cut) and resets on a timeout.
    fn on_loss(&mut self, kind: LossKind, new_episode: bool) {
        match kind {
            LossKind::Timeout => self.count = 0,
            _ if new_episode => self.count /= 2,
            _ => {}
        }
        self.switch_mode();
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("count", self.count as f64));
        out.push(("aggressive", if self.aggressive { 1.0 } else { 0.0 }));
    }
}

pub type VegasPlus = VegasFamily<VegasPlusRule>;

/// Vegas+ in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "vegas_plus",
    build: |spec, field| Ok(Box::new(from_spec(spec, field)?)),
    params: &[
        || documented_options(from_spec, ALGORITHM.name),
        ParamStruct::of::<VegasPlusParams>,
    ],
    source: include_str!("vegas_plus.rs"),
};

pub fn from_spec(spec: &CcSpec, field: &str) -> Result<VegasPlus, ConfigError> {
    let (rest, own) = split_params(spec, &["count_max", "count_every", "count_window"]);
    let p: VegasPlusParams = parse_params(&own, field)?;
    check_range(field, "count_max", p.count_max as f64, 1.0, 1e6)?;
    let cfg = VegasConfig::from_spec(&rest, field, RttChoice::Last)?;
    let mut rule = VegasPlusRule::new(&cfg, p.count_max, p.count_every);
    rule.count_window = p.count_window;
    Ok(VegasFamily::new(cfg, rule))
}

pub fn new(cfg: VegasConfig, count_max: u32) -> VegasPlus {
    with_count_every(cfg, count_max, CountEvery::Ack)
}

pub fn with_count_every(cfg: VegasConfig, count_max: u32, every: CountEvery) -> VegasPlus {
    VegasFamily::new(cfg, VegasPlusRule::new(&cfg, count_max, every))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::scripted::Script;
    use crate::cc::CongestionControl;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    fn started(count_max: u32) -> (VegasPlus, Script) {
        let mut cc = new(VegasConfig::paper(RttChoice::Last), count_max);
        cc.seed_base_rtt(ms(100));
        let mut s = Script::new(20.0, 20.0);
        s.start(&mut cc);
        (cc, s)
    }

    /// With `count_every = "round"` ACKs within a round do not move the count; each round
    /// whose RTT grew (and whose window did not) counts once.
    #[test]
    fn per_round_count_ignores_acks_within_a_round() {
        let mut cc = with_count_every(VegasConfig::paper(RttChoice::Last), 8, CountEvery::Round);
        cc.seed_base_rtt(ms(100));
        let mut s = Script::new(20.0, 20.0);
        s.start(&mut cc);
        for i in 0..5 {
            s.ack(&mut cc, Some(ms(150 + i)));
        }
        assert!(
            cc.rule().count() <= 1,
            "per-ACK growth does not count: {}",
            cc.rule().count()
        );
        let before = cc.rule().count();
        s.round(&mut cc, ms(160)); // Delta = 20 * 60/160 = 7.5 > beta: W - 1, RTT up
        s.round(&mut cc, ms(170));
        assert_eq!(cc.rule().count(), before + 2, "one per round");
    }

    /// 002's reading: in aggressive mode the window grows on every ACK, so falling RTTs
    /// no longer lower the count (003's reading lowers it on each one).
    #[test]
    fn unchanged_window_reading_keeps_an_aggressive_count() {
        let counts: Vec<u32> = [CountWindow::NotIncreased, CountWindow::Unchanged]
            .into_iter()
            .map(|reading| {
                let (mut cc, mut s) = started(2);
                cc.rule_mut().count_window = reading;
                for r in [100, 100, 101, 102] {
                    s.ack(&mut cc, Some(ms(r)));
                }
                assert!(cc.rule().aggressive(), "{reading:?}");
                for r in [101, 100, 99] {
                    s.ack(&mut cc, Some(ms(r))); // the window grows by 1/cwnd each time
                }
                cc.rule().count()
            })
            .collect();
        assert_eq!(counts, vec![0, 2]);
        // Within a round of moderate mode the window is fixed: both readings count down.
        let (mut cc, mut s) = started(8);
        cc.rule_mut().count_window = CountWindow::Unchanged;
        for r in [100, 100, 103, 104, 102] {
            s.ack(&mut cc, Some(ms(r)));
        }
        assert_eq!(cc.rule().count(), 1);
        let mut spec = CcSpec::named("vegas_plus");
        spec.params.insert(
            "count_window".into(),
            toml::Value::String("unchanged".into()),
        );
        let parsed = from_spec(&spec, "cc").unwrap();
        assert_eq!(parsed.rule().count_window, CountWindow::Unchanged);
    }

    #[test]
    fn rising_rtt_with_a_fixed_window_turns_aggressive() {
        let (mut cc, mut s) = started(8);
        // The first ACK ends the first round (Delta 0: W + 1); the next opens the history.
        s.ack(&mut cc, Some(ms(100)));
        s.ack(&mut cc, Some(ms(100)));
        assert_eq!(cc.rule().count(), 0);
        // The window is fixed within a round: each larger sample counts.
        for i in 1..=7 {
            s.ack(&mut cc, Some(ms(100 + i)));
            assert_eq!(cc.rule().count(), i as u32);
            assert!(!cc.rule().aggressive());
        }
        s.ack(&mut cc, Some(ms(108)));
        assert_eq!(cc.rule().count(), 8);
        assert!(cc.rule().aggressive(), "count reached count_max");
        // Aggressive: Reno's 1/cwnd per ACK, and the window increases so RTT growth no
        // longer counts.
        let w = s.st.cwnd;
        s.ack(&mut cc, Some(ms(109)));
        assert!((s.st.cwnd - (w + 1.0 / w)).abs() < 1e-9);
        assert_eq!(cc.rule().count(), 8);
    }

    #[test]
    fn shrinking_rtt_counts_down_to_moderate() {
        let (mut cc, mut s) = started(2);
        for r in [100, 100, 101, 102] {
            s.ack(&mut cc, Some(ms(r)));
        }
        assert!(cc.rule().aggressive());
        s.ack(&mut cc, Some(ms(101)));
        assert_eq!(cc.rule().count(), 1);
        assert!(cc.rule().aggressive());
        s.ack(&mut cc, Some(ms(101))); // equal: no change
        assert_eq!(cc.rule().count(), 1);
        s.ack(&mut cc, Some(ms(100)));
        assert_eq!(cc.rule().count(), 0);
        assert!(!cc.rule().aggressive(), "count 0: back to moderate");
        s.ack(&mut cc, Some(ms(99)));
        assert_eq!(cc.rule().count(), 0, "never below zero");
    }

    #[test]
    fn losses_halve_or_reset_the_count() {
        let (mut cc, mut s) = started(4);
        for r in 100..=110 {
            s.ack(&mut cc, Some(ms(r)));
        }
        // Aggressive from the 4th rise; the window then grows per ACK and later rises
        // do not count.
        assert_eq!(cc.rule().count(), 4);
        assert!(cc.rule().aggressive());
        s.loss(&mut cc, LossKind::FastRetransmit);
        assert_eq!(cc.rule().count(), 2);
        assert!(cc.rule().aggressive());
        s.recover(&mut cc);
        s.loss(&mut cc, LossKind::Timeout);
        assert_eq!(cc.rule().count(), 0);
        assert!(!cc.rule().aggressive());
        assert_eq!(s.st.cwnd, 2.0, "Vegas's timeout response");
    }

    #[test]
    fn moderate_mode_is_vegas() {
        let (mut cc, mut s) = started(8);
        s.round(&mut cc, ms(100)); // Delta 0 < alpha: +1 at the round's end only
        assert_eq!(s.st.cwnd, 21.0);
        s.round(&mut cc, ms(100));
        assert_eq!(s.st.cwnd, 22.0);
        assert_eq!(cc.name(), "vegas_plus");
        let default = from_spec(&CcSpec::named("vegas_plus"), "cc").unwrap();
        assert_eq!(default.rule().count_max, 8, "003 section 5.1");
        let mut bad = CcSpec::named("vegas_plus");
        bad.params
            .insert("count_max".into(), toml::Value::Integer(0));
        assert_eq!(from_spec(&bad, "cc").err().unwrap().field, "cc.count_max");
    }
}
