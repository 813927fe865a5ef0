//! TCP Reno's window rules (RFC 5681), shared by the Tahoe, Reno and NewReno senders.
//!
//! Tahoe, Reno and NewReno differ only in loss recovery, which the sender implements
//! ([`crate::cc::Recovery`]); the window rules are the same, so one algorithm serves all
//! three names and the name picks the default recovery.

use super::linux_window::{self, after_slow_start, cwnd_of, AiCredit};
use super::params::ParamStruct;
use super::registry::Algorithm;
use super::{
    params::check_range, parse_params, CaState, CcSpec, CcState, CongestionControl, LossInfo,
    Recovery,
};
use crate::config::ConfigError;
use serde::{Deserialize, Serialize};

/// Reno, NewReno and Tahoe in the registry of algorithms: one algorithm under three
/// names, each name picking its recovery.
const fn named(name: &'static str) -> Algorithm {
    Algorithm {
        name,
        build: |spec, field| Ok(Box::new(Reno::from_spec(spec, field)?)),
        params: &[ParamStruct::of::<RenoParams>],
        source: include_str!("reno.rs"),
    }
}
pub const RENO: Algorithm = named("reno");
pub const NEWRENO: Algorithm = named("newreno");
pub const TAHOE: Algorithm = named("tahoe");

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenoParams {
    /// Multiplicative decrease factor: ssthresh = beta * FlightSize (RFC 5681 eq. 4: 0.5).
    pub beta: f64,
    /// Whose arithmetic (see [`RenoVariant`]).
    pub variant: RenoVariant,
}

impl Default for RenoParams {
    fn default() -> Self {
        RenoParams {
            beta: 0.5,
            variant: RenoVariant::Rfc5681,
        }
    }
}

/// Whose Reno window. The rules are the same; the arithmetic is not, and at small windows
/// the difference shows: a fractional window halved keeps its fraction and reaches the next
/// whole segment early, about half a segment ahead of Linux's over a sawtooth (3 % of
/// throughput at a mean window of 18 segments, linux/conformance at 0.5 % loss).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RenoVariant {
    /// RFC 5681 in real numbers: cwnd += acked / cwnd, ssthresh = beta * FlightSize (the
    /// default, as NS-2 and the papers' simulators).
    #[default]
    Rfc5681,
    /// Linux's tcp_cong.c in whole segments: `tcp_reno_cong_avoid` (slow start, then one
    /// segment per cwnd acknowledged, counted in `snd_cwnd_cnt`) and `tcp_reno_ssthresh`
    /// (half the integer window by a shift, at least 2; beta must be 0.5).
    Linux,
}

pub struct Reno {
    params: RenoParams,
    recovery: Recovery,
    /// The `linux` variant's `snd_cwnd_cnt`.
    credit: AiCredit,
}

impl Reno {
    pub fn new(recovery: Recovery) -> Self {
        Reno {
            params: RenoParams::default(),
            recovery,
            credit: AiCredit::default(),
        }
    }

    pub fn from_spec(spec: &CcSpec, field: &str) -> Result<Self, ConfigError> {
        let params: RenoParams = parse_params(spec, field)?;
        check_range(field, "beta", params.beta, 0.01, 0.99)?;
        if params.variant == RenoVariant::Linux && params.beta != 0.5 {
            return Err(ConfigError::new(
                format!("{field}.beta"),
                format!(
                    "{} is not allowed with variant = \"linux\", whose tcp_reno_ssthresh halves \
                     the window; omit beta or use variant = \"rfc5681\"",
                    params.beta
                ),
            ));
        }
        let recovery = Recovery::parse(&spec.name).unwrap_or(Recovery::Reno);
        Ok(Reno {
            params,
            recovery,
            credit: AiCredit::default(),
        })
    }
}

/// RFC 5681 section 3.1 slow start and congestion avoidance in packet units:
/// below ssthresh cwnd grows by the number of segments acked (Linux `tcp_slow_start`,
/// capped at ssthresh, the excess carried into avoidance); above, by acked/cwnd
/// (one segment per window). Growth stops when the sender is not cwnd-limited (RFC 7661).
pub fn reno_increase(st: &mut CcState, acked: u32) {
    if !st.cwnd_limited {
        return;
    }
    let mut acked = acked as f64;
    if st.in_slow_start() {
        let room = st.ssthresh - st.cwnd;
        let step = acked.min(room.max(0.0));
        st.cwnd += step;
        acked -= step;
        if acked <= 0.0 {
            return;
        }
    }
    st.cwnd += acked / st.cwnd;
}

/// RFC 5681 eq. (4): ssthresh = max(FlightSize * beta, 2 segments), with FlightSize taken
/// as the usable window min(cwnd, rwnd) as NS-2 does.
pub fn reno_ssthresh(st: &CcState, beta: f64) -> f64 {
    (st.effective_window() * beta).max(2.0)
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        self.recovery.name()
    }

    fn default_recovery(&self) -> Recovery {
        self.recovery
    }

    fn ssthresh(&mut self, st: &CcState, _loss: &LossInfo) -> f64 {
        match self.params.variant {
            RenoVariant::Rfc5681 => reno_ssthresh(st, self.params.beta),
            RenoVariant::Linux => {
                self.credit = AiCredit::default();
                linux_window::tcp_reno_ssthresh(st) as f64
            }
        }
    }

    fn set_state(&mut self, _st: &mut CcState, new: CaState) {
        // `tcp_enter_loss` clears `snd_cwnd_cnt`.
        if new == CaState::Loss {
            self.credit = AiCredit::default();
        }
    }

    /// The `linux` variant: `tcp_reno_cong_avoid`.
    fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        match self.params.variant {
            RenoVariant::Rfc5681 => reno_increase(st, acked),
            RenoVariant::Linux => {
                if let Some(left) = after_slow_start(st, acked) {
                    let w = cwnd_of(st) as u32;
                    self.credit.grow(st, w, left);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::scripted::fresh_loss;
    use crate::cc::LossKind;

    #[test]
    fn slow_start_then_linear_growth() {
        let mut st = CcState::new(1.0, 4.0, 1000, 1000);
        let mut r = Reno::new(Recovery::Reno);
        r.cong_avoid(&mut st, 1);
        assert_eq!(st.cwnd, 2.0);
        r.cong_avoid(&mut st, 3); // reaches ssthresh 4 with 1 segment left over: +1/4
        assert!((st.cwnd - 4.25).abs() < 1e-12);
        let before = st.cwnd;
        for _ in 0..4 {
            r.cong_avoid(&mut st, 1);
        }
        let growth = st.cwnd - before;
        assert!(
            growth > 0.8 && growth < 1.0,
            "about one segment per window of ACKs, got {growth}"
        );
    }

    #[test]
    fn halves_on_loss_with_floor_of_two() {
        let mut st = CcState::new(20.0, 10.0, 1000, 1000);
        let mut r = Reno::new(Recovery::Reno);
        let loss = fresh_loss(LossKind::FastRetransmit);
        assert_eq!(r.ssthresh(&st, &loss), 10.0);
        st.cwnd = 3.0;
        assert_eq!(r.ssthresh(&st, &loss), 2.0);
        st.cwnd = 50.0;
        st.rwnd = 20;
        assert_eq!(
            r.ssthresh(&st, &loss),
            10.0,
            "flight size is limited by rwnd"
        );
    }

    fn linux_reno() -> Reno {
        let spec: CcSpec = toml::from_str("name = 'reno'\nvariant = 'linux'").unwrap();
        Reno::from_spec(&spec, "cc").unwrap()
    }

    /// Linux's Reno keeps whole segments: a window of 29.9 (the fraction the sender may
    /// have left) halves to 14, where RFC 5681's arithmetic keeps 14.95 and so reaches 15
    /// after a twentieth of a window; growth then takes a full window of ACKs per segment.
    #[test]
    fn the_linux_variant_halves_and_grows_in_whole_segments() {
        let loss = fresh_loss(LossKind::FastRetransmit);
        let mut st = crate::cc::linux_window::limited_state(29.9, 1e9);
        let mut linux = linux_reno();
        assert_eq!(linux.ssthresh(&st, &loss), 14.0);
        assert_eq!(Reno::new(Recovery::Reno).ssthresh(&st, &loss), 14.95);
        st.cwnd = 14.0;
        st.ssthresh = 14.0;
        for _ in 0..13 {
            linux.cong_avoid(&mut st, 1);
        }
        assert_eq!(st.cwnd, 14.0, "13 of 14 acknowledged");
        linux.cong_avoid(&mut st, 1);
        assert_eq!(st.cwnd, 15.0, "the 14th");
        linux.credit = AiCredit(10);
        linux.ssthresh(&st, &loss);
        assert_eq!(linux.credit, AiCredit(0), "a reduction clears snd_cwnd_cnt");
        let spec: CcSpec = toml::from_str("name = 'reno'\nvariant = 'linux'\nbeta = 0.7").unwrap();
        let e = Reno::from_spec(&spec, "cc").err().unwrap();
        assert!(e.field == "cc.beta" && e.message.contains("linux"), "{e:?}");
    }

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut st = CcState::new(10.0, 5.0, 1000, 1000);
        st.cwnd_limited = false;
        Reno::new(Recovery::Reno).cong_avoid(&mut st, 1);
        assert_eq!(st.cwnd, 10.0);
    }
}
