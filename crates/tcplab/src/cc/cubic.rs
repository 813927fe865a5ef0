//! CUBIC (RFC 9438, "CUBIC for Fast and Long-Distance Networks").
//!
//! Rules and where they come from:
//! - Window growth function (RFC 9438 section 4.2, eq. 1): `W_cubic(t) = C (t - K)^3 + W_max`,
//!   `K = cbrt((W_max - cwnd_epoch) / C)` (eq. 2), t the time since the current congestion
//!   avoidance stage began, C = 0.4.
//! - Per ACK in congestion avoidance (section 4.2): `target = W_cubic(t + RTT)` clamped to
//!   [cwnd, 1.5 cwnd], RTT the smoothed RTT; `cwnd += (target - cwnd) / cwnd` per segment.
//! - Reno-friendly region (section 4.3): `W_est` starts at cwnd_epoch and grows by
//!   `alpha_cubic * segments_acked / cwnd`, `alpha_cubic = 3 (1 - beta) / (1 + beta)`,
//!   switching to 1 once `W_est >= cwnd_prior`; while `W_cubic(t) < W_est`, cwnd follows
//!   W_est (never lowered by an ACK, as Linux).
//! - Multiplicative decrease (section 4.6): `ssthresh = cwnd * beta_cubic`, beta = 0.7,
//!   at least 2 segments; cwnd_prior = cwnd. The window used is min(cwnd, rwnd), as NS-2
//!   takes FlightSize.
//! - Fast convergence (section 4.7): on a loss with `cwnd < W_max`,
//!   `W_max = cwnd (1 + beta) / 2`, else `W_max = cwnd`.
//! - Timeout (section 4.8): Reno's collapse with CUBIC's ssthresh; the first congestion
//!   avoidance stage after it uses `K = 0`, `W_max = cwnd_epoch`.
//! - Slow start is standard (section 4.10; HyStart++ is not applied); leaving slow start
//!   without a loss also starts with `K = 0`, `W_max = cwnd_epoch`. With `hystart = true`
//!   slow start ends early by Linux's HyStart ([`super::hystart`]; tcp_cubic.c's default,
//!   not the RFC's).
//! - `variant = "linux"` follows Linux's tcp_cubic.c instead, in its integer arithmetic
//!   ([`super::cubic_linux`]): whole segments, `cnt`-based growth, jiffies of `hz`, the
//!   target one minimum RTT ahead, and its Reno-friendly rate throughout.

use super::cubic_linux::{LinuxCubic, LinuxCubicParams};
use super::hystart::HyStart;
use super::params::ParamStruct;
use super::registry::Algorithm;
use super::{
    params::check_range, parse_params, AckSample, CaEvent, CaState, CcSpec, CcState,
    CongestionControl, LossInfo,
};
use crate::config::ConfigError;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// CUBIC in the registry of algorithms.
pub const ALGORITHM: Algorithm = Algorithm {
    name: "cubic",
    build: |spec, field| Ok(build(params_from_spec(spec, field)?)),
    params: &[ParamStruct::of::<CubicParams>],
    source: include_str!("cubic.rs"),
};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct CubicParams {
    /// C, packets per second cubed (0.4).
    pub c: f64,
    /// beta_cubic, the window kept on a loss (0.7).
    pub beta: f64,
    /// Section 4.7 fast convergence (on).
    pub fast_convergence: bool,
    /// Section 4.3 Reno-friendly region (on).
    pub reno_friendly: bool,
    /// Linux's HyStart in slow start (off: RFC 9438 does not specify it; Linux's
    /// tcp_cubic has it on by default, so give `hystart = true` with `variant = "linux"`
    /// for the module as the kernel ships it).
    pub hystart: bool,
    /// The Reno-friendly estimate's growth per round (see [`RenoAlpha`]; the `linux`
    /// variant always grows it as Linux does).
    pub reno_alpha: RenoAlpha,
    /// Which specification's rules and arithmetic (see [`CubicVariant`]).
    pub variant: CubicVariant,
    /// The `linux` variant's timer frequency, the kernel's `HZ` (250: the test bed's
    /// kernel, CONFIG_HZ=250; 100 to 1000).
    pub hz: u32,
}

/// Whose CUBIC.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CubicVariant {
    /// RFC 9438 in real numbers (the default).
    #[default]
    Rfc9438,
    /// Linux's tcp_cubic.c rule for rule, in its integers ([`super::cubic_linux`]).
    Linux,
}

/// How fast the Reno-friendly estimate W_est grows. RFC 9438 section 4.3 grows it by
/// 3 (1 - beta) / (1 + beta) segments per round until it reaches the window before the last
/// reduction (cwnd_prior), then by 1. Linux's tcp_cubic (tcp_friendliness, one segment per
/// `cwnd * beta_scale / 8` segments acknowledged) keeps 3 (1 - beta) / (1 + beta) throughout.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RenoAlpha {
    /// RFC 9438 section 4.3 (the default: the specification this CUBIC follows).
    #[default]
    Rfc9438,
    /// Linux's tcp_cubic: the reduced rate at every window.
    Linux,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            hystart: false,
            reno_alpha: RenoAlpha::Rfc9438,
            variant: CubicVariant::Rfc9438,
            hz: 250,
        }
    }
}

/// RFC 9438 eq. 2: the time the cubic function takes to climb from cwnd_epoch to W_max.
pub fn cubic_k(w_max: f64, cwnd_epoch: f64, c: f64) -> f64 {
    ((w_max - cwnd_epoch).max(0.0) / c).cbrt()
}

/// RFC 9438 eq. 1.
pub fn w_cubic(t: f64, k: f64, w_max: f64, c: f64) -> f64 {
    c * (t - k).powi(3) + w_max
}

/// The current congestion avoidance stage.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    start: Time,
    k: f64,
    w_max: f64,
    w_est: f64,
}

pub struct Cubic {
    p: CubicParams,
    /// W_max remembered from the last loss; `None` before one and after a timeout.
    w_max: Option<f64>,
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    hystart: Option<HyStart>,
}

/// The CUBIC that `p.variant` names: RFC 9438's ([`Cubic`]) or Linux's ([`LinuxCubic`]).
pub fn build(p: CubicParams) -> Box<dyn CongestionControl> {
    match p.variant {
        CubicVariant::Rfc9438 => Box::new(Cubic::new(p)),
        CubicVariant::Linux => {
            let lp =
                LinuxCubicParams::from_real(p.c, p.beta, p.fast_convergence, p.reno_friendly, p.hz);
            Box::new(LinuxCubic::new(lp, p.hystart))
        }
    }
}

/// CUBIC's parameters from a flow's `cc` table, range-checked.
pub fn params_from_spec(spec: &CcSpec, field: &str) -> Result<CubicParams, ConfigError> {
    let p: CubicParams = parse_params(spec, field)?;
    check_range(field, "c", p.c, 1e-3, 100.0)?;
    check_range(field, "beta", p.beta, 0.01, 0.99)?;
    check_range(field, "hz", p.hz as f64, 100.0, 1000.0)?;
    Ok(p)
}

impl Cubic {
    pub fn new(p: CubicParams) -> Self {
        Cubic {
            w_max: None,
            cwnd_prior: 0.0,
            epoch: None,
            hystart: p.hystart.then(HyStart::default),
            p,
        }
    }

    /// The Reno-friendly estimate's growth per round (RFC 9438 eq. 4, or Linux's constant).
    fn alpha_cubic(&self, w_est: f64) -> f64 {
        if self.p.reno_alpha == RenoAlpha::Rfc9438 && w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - self.p.beta) / (1.0 + self.p.beta)
        }
    }

    fn start_epoch(&mut self, st: &CcState) -> Epoch {
        let cwnd = st.cwnd;
        let (k, w_max) = match self.w_max {
            Some(w) if w > cwnd => (cubic_k(w, cwnd, self.p.c), w),
            _ => (0.0, cwnd),
        };
        Epoch {
            start: st.now,
            k,
            w_max,
            w_est: cwnd,
        }
    }

    /// Congestion avoidance for `acked` segments.
    fn avoid(&mut self, st: &mut CcState, acked: f64) {
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(st),
        };
        let t = (st.now.saturating_sub(e.start)).as_secs_f64();
        let rtt = if st.srtt > Time::ZERO {
            st.srtt
        } else {
            st.latest_rtt
        }
        .as_secs_f64();
        let c = self.p.c;
        e.w_est += self.alpha_cubic(e.w_est) * acked / st.cwnd;
        if self.p.reno_friendly && w_cubic(t, e.k, e.w_max, c) < e.w_est {
            st.cwnd = st.cwnd.max(e.w_est);
        } else {
            let target = w_cubic(t + rtt, e.k, e.w_max, c).clamp(st.cwnd, 1.5 * st.cwnd);
            st.cwnd += (target - st.cwnd) * acked / st.cwnd;
        }
        self.epoch = Some(e);
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn ssthresh(&mut self, st: &CcState, _loss: &LossInfo) -> f64 {
        let w = st.effective_window();
        self.w_max = Some(match self.w_max {
            Some(old) if self.p.fast_convergence && w < old => w * (1.0 + self.p.beta) / 2.0,
            _ => w,
        });
        self.cwnd_prior = w;
        self.epoch = None;
        (w * self.p.beta).max(2.0)
    }

    fn init(&mut self, st: &mut CcState) {
        if let Some(h) = &mut self.hystart {
            h.reset_round(st);
        }
    }

    fn pkts_acked(&mut self, st: &mut CcState, sample: &AckSample) {
        if let (Some(h), Some(rtt)) = (&mut self.hystart, sample.rtt) {
            h.on_rtt(st, rtt);
        }
    }

    fn set_state(&mut self, st: &mut CcState, new: CaState) {
        if new == CaState::Loss {
            if let Some(h) = &mut self.hystart {
                h.restart(st);
            }
        }
    }

    fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        if !st.cwnd_limited {
            return; // RFC 7661 / RFC 9438 section 5.8: no growth of an unused window
        }
        let mut acked = acked as f64;
        if st.in_slow_start() {
            let step = acked.min((st.ssthresh - st.cwnd).max(0.0));
            st.cwnd += step;
            acked -= step;
            if acked <= 0.0 {
                return;
            }
        }
        self.avoid(st, acked);
    }

    fn cwnd_event(&mut self, _st: &mut CcState, event: CaEvent) {
        if event == CaEvent::Loss {
            // Section 4.8: after a timeout, K = 0 and W_max = cwnd_epoch.
            self.w_max = None;
            self.epoch = None;
        }
    }

    fn variables(&self, out: &mut Vec<(&'static str, f64)>) {
        let (k, w_max, w_est) = self
            .epoch
            .map_or((f64::NAN, self.w_max.unwrap_or(f64::NAN), f64::NAN), |e| {
                (e.k, e.w_max, e.w_est)
            });
        out.push(("k", k));
        out.push(("w_max", w_max));
        out.push(("w_est", w_est));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::scripted::{fresh_loss, Script};
    use crate::cc::LossKind;

    #[test]
    fn k_and_the_cubic_function() {
        // W_max 100, cwnd_epoch 70: K = cbrt(30 / 0.4) = cbrt(75).
        let k = cubic_k(100.0, 70.0, 0.4);
        assert!((k - 75f64.cbrt()).abs() < 1e-12);
        assert!((k - 4.217163).abs() < 1e-6);
        assert!((w_cubic(0.0, k, 100.0, 0.4) - 70.0).abs() < 1e-9);
        assert!((w_cubic(k, k, 100.0, 0.4) - 100.0).abs() < 1e-12);
        // Convex beyond K: W(2K) = W_max + C K^3 = 130.
        assert!((w_cubic(2.0 * k, k, 100.0, 0.4) - 130.0).abs() < 1e-9);
        // Concave approach: W(K - 1) = W_max - C.
        assert!((w_cubic(k - 1.0, k, 100.0, 0.4) - 99.6).abs() < 1e-9);
    }

    #[test]
    fn loss_decrease_and_fast_convergence() {
        let mut cc = Cubic::new(CubicParams::default());
        let mut pipe = Script::new(100.0, 1e9);
        assert_eq!(
            cc.ssthresh(&pipe.st, &fresh_loss(LossKind::FastRetransmit)),
            70.0
        );
        assert_eq!(Script::var(&cc, "w_max"), 100.0);
        // A second loss below the previous W_max: release bandwidth, W_max = 90 * 0.85.
        pipe.st.cwnd = 90.0;
        assert!(
            (cc.ssthresh(&pipe.st, &fresh_loss(LossKind::FastRetransmit)) - 63.0).abs() < 1e-12
        );
        assert!((Script::var(&cc, "w_max") - 76.5).abs() < 1e-12);
        let mut plain = Cubic::new(CubicParams {
            fast_convergence: false,
            ..CubicParams::default()
        });
        pipe.st.cwnd = 100.0;
        plain.ssthresh(&pipe.st, &fresh_loss(LossKind::FastRetransmit));
        pipe.st.cwnd = 90.0;
        plain.ssthresh(&pipe.st, &fresh_loss(LossKind::FastRetransmit));
        assert_eq!(Script::var(&plain, "w_max"), 90.0);
    }

    #[test]
    fn window_follows_w_cubic_after_a_loss() {
        let mut cc = Cubic::new(CubicParams::default());
        let mut pipe = Script::new(100.0, 1e9);
        pipe.start(&mut cc);
        pipe.fast_recovery(&mut cc); // W_max 100, cwnd 70
        let rtt = Time::from_millis(100);
        let k = cubic_k(100.0, 70.0, 0.4);
        for round in 1..=60 {
            pipe.round_trip(&mut cc, rtt);
            let t = pipe.st.now.as_secs_f64();
            // The per-ACK steps chase a target one RTT ahead on the curve, so the window
            // lies between the curve now and the curve one RTT on (or the Reno estimate).
            let lo = w_cubic(t, k, 100.0, 0.4) - 1.5;
            let hi = w_cubic(t + 0.1, k, 100.0, 0.4).max(Script::var(&cc, "w_est")) + 0.5;
            let w = pipe.st.cwnd;
            assert!(
                w >= lo && w <= hi,
                "round {round}, t {t}: cwnd {w} outside [{lo}, {hi}]"
            );
            if (t - k).abs() < 0.05 {
                assert!((w - 100.0).abs() < 1.5, "plateau at W_max, cwnd {w}");
            }
        }
        assert!((Script::var(&cc, "k") - k).abs() < 1e-9);
        assert!(pipe.st.cwnd > 100.0, "convex growth past W_max");
    }

    #[test]
    fn reno_friendly_region_on_short_rtts() {
        // 1 ms RTT: the cubic curve hardly moves in a round, Reno's estimate grows
        // alpha_cubic = 3 * 0.3 / 1.7 per round and takes over.
        let mut cc = Cubic::new(CubicParams::default());
        let mut pipe = Script::new(100.0, 1e9);
        pipe.start(&mut cc);
        pipe.fast_recovery(&mut cc);
        let start = pipe.st.cwnd;
        let rounds = 20;
        for _ in 0..rounds {
            pipe.round_trip(&mut cc, Time::from_millis(1));
        }
        let per_round = (pipe.st.cwnd - start) / rounds as f64;
        let alpha = 3.0 * 0.3 / 1.7;
        assert!(
            (per_round - alpha).abs() < 0.05,
            "grew {per_round} per round, Reno-friendly rate {alpha}"
        );
        // Without the Reno-friendly region the growth follows the flat cubic curve.
        let mut flat = Cubic::new(CubicParams {
            reno_friendly: false,
            ..CubicParams::default()
        });
        let mut pipe = Script::new(100.0, 1e9);
        pipe.start(&mut flat);
        pipe.fast_recovery(&mut flat);
        for _ in 0..rounds {
            pipe.round_trip(&mut flat, Time::from_millis(1));
        }
        assert!(pipe.st.cwnd - start < 1.0, "cwnd {}", pipe.st.cwnd);
    }

    #[test]
    fn past_the_prior_window_rfc9438_grows_reno_friendly_by_one_and_linux_keeps_alpha() {
        // 1 ms RTT (the cubic curve stands still): 60 rounds take W_est past cwnd_prior
        // (100 -> 70 at the loss, 30 / 0.53 = 57 rounds), then 40 more.
        let grown = |reno_alpha| {
            let mut cc = Cubic::new(CubicParams {
                reno_alpha,
                ..CubicParams::default()
            });
            let mut pipe = Script::new(100.0, 1e9);
            pipe.start(&mut cc);
            pipe.fast_recovery(&mut cc);
            for _ in 0..60 {
                pipe.round_trip(&mut cc, Time::from_millis(1));
            }
            let at = pipe.st.cwnd;
            for _ in 0..40 {
                pipe.round_trip(&mut cc, Time::from_millis(1));
            }
            (pipe.st.cwnd - at) / 40.0
        };
        let alpha = 3.0 * 0.3 / 1.7;
        let rfc = grown(RenoAlpha::Rfc9438);
        let linux = grown(RenoAlpha::Linux);
        assert!(
            (rfc - 1.0).abs() < 0.05,
            "RFC 9438 past cwnd_prior: {rfc} per round"
        );
        assert!((linux - alpha).abs() < 0.05, "Linux: {linux} per round");
    }

    #[test]
    fn timeout_restarts_with_k_zero() {
        let mut cc = Cubic::new(CubicParams::default());
        let mut pipe = Script::new(100.0, 1e9);
        pipe.start(&mut cc);
        pipe.fast_recovery(&mut cc);
        cc.cwnd_event(&mut pipe.st, CaEvent::Loss);
        pipe.st.cwnd = 40.0;
        pipe.st.ssthresh = 35.0;
        pipe.round_trip(&mut cc, Time::from_millis(100));
        assert_eq!(Script::var(&cc, "k"), 0.0);
        assert_eq!(Script::var(&cc, "w_max"), 40.0);
    }
}
