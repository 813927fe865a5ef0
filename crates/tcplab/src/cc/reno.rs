//! TCP Reno's window rules (RFC 5681), shared by the Tahoe, Reno and NewReno senders.
//!
//! Tahoe, Reno and NewReno differ only in loss recovery, which the sender implements
//! ([`crate::cc::Recovery`]); the window rules are the same, so one algorithm serves all
//! three names and the name picks the default recovery.

use super::params::ParamStruct;
use super::registry::Algorithm;
use super::{
    params::check_range, parse_params, CcSpec, CcState, CongestionControl, LossInfo, Recovery,
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
}

impl Default for RenoParams {
    fn default() -> Self {
        RenoParams { beta: 0.5 }
    }
}

pub struct Reno {
    params: RenoParams,
    recovery: Recovery,
}

impl Reno {
    pub fn new(recovery: Recovery) -> Self {
        Reno {
            params: RenoParams::default(),
            recovery,
        }
    }

    pub fn from_spec(spec: &CcSpec, field: &str) -> Result<Self, ConfigError> {
        let params: RenoParams = parse_params(spec, field)?;
        check_range(field, "beta", params.beta, 0.01, 0.99)?;
        let recovery = Recovery::parse(&spec.name).unwrap_or(Recovery::Reno);
        Ok(Reno { params, recovery })
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
        reno_ssthresh(st, self.params.beta)
    }

    fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        reno_increase(st, acked);
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

    #[test]
    fn no_growth_when_not_cwnd_limited() {
        let mut st = CcState::new(10.0, 5.0, 1000, 1000);
        st.cwnd_limited = false;
        Reno::new(Recovery::Reno).cong_avoid(&mut st, 1);
        assert_eq!(st.cwnd, 10.0);
    }
}
