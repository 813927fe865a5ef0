//! A paced sender as a whole: the pacer, its wake-ups and the window working together.

use super::test_support::ack;
use super::{TcpConfig, TcpSender};
use crate::cc::reno::Reno;
use crate::cc::{CcState, CongestionControl, LossInfo, RateSample, Recovery};
use crate::config::{PacingUnit, Stack, TcpOptions};
use crate::sim::Time;
use proptest::prelude::*;

/// A rate-driven algorithm that holds a fixed window and pacing rate, and records the
/// rate samples it is given.
struct FixedRate {
    cwnd: f64,
    rate: f64,
    samples: Vec<RateSample>,
}

impl CongestionControl for FixedRate {
    fn name(&self) -> &'static str {
        "fixed_rate"
    }
    fn ssthresh(&mut self, st: &CcState, _loss: &LossInfo) -> f64 {
        st.ssthresh
    }
    fn cong_avoid(&mut self, _st: &mut CcState, _acked: u32) {
        unreachable!("a rate-driven algorithm is never asked to grow the window");
    }
    fn init(&mut self, st: &mut CcState) {
        st.cwnd = self.cwnd;
        st.pacing_rate = self.rate;
    }
    fn controls_rate(&self) -> bool {
        true
    }
    fn cong_control(&mut self, st: &mut CcState, rs: &RateSample) {
        st.cwnd = self.cwnd;
        st.pacing_rate = self.rate;
        self.samples.push(*rs);
    }
}

fn sender(cc: Box<dyn CongestionControl>, opts: TcpOptions, recovery: Recovery) -> TcpSender {
    let cfg = TcpConfig::from_options(&opts);
    TcpSender::new(0, 0, 1, &cfg, cc, recovery, None)
}

/// Drives a sender with cumulative ACKs at the given gaps, each for up to `per_ack`
/// segments, and its pacing wake-ups in between; returns every (time, payload) sent.
fn drive(s: &mut TcpSender, acks: &[(u64, u32)]) -> Vec<(Time, u32)> {
    let mut sent = Vec::new();
    let mut take = |s: &mut TcpSender, now: Time| {
        sent.extend(s.outbox.drain(..).map(|p| (now, p.payload)));
    };
    s.start(Time::ZERO);
    take(s, Time::ZERO);
    let mut wake = s.take_pace_request();
    let mut now = Time::ZERO;
    for &(gap, per_ack) in acks {
        let ack_at = now + Time(gap);
        while let Some(at) = wake.filter(|&at| at <= ack_at) {
            s.on_pace_timer(at, at);
            take(s, at);
            wake = s.take_pace_request();
        }
        now = ack_at;
        let n = (s.snd_una() + per_ack).min(s.snd_max);
        s.on_ack(now, &ack(n, now), None);
        take(s, now);
        if let Some(at) = s.take_pace_request() {
            wake = Some(wake.map_or(at, |w| w.min(at)));
        }
    }
    sent
}

proptest! {
    /// Whatever the ACK clock does, a paced sender never sends more than `rate * dt` plus
    /// one burst in any stretch `dt` between two transmissions: `quantum * mss` bytes when
    /// it paces segments, one GSO packet (at most 64 segments and half the window) when it
    /// paces GSO packets.
    #[test]
    fn paced_sender_never_beats_rate_plus_one_burst(
        rate in 1e5f64..1e8,
        quantum in 1u32..4,
        cwnd in 2.0f64..60.0,
        acks in proptest::collection::vec((0u64..50_000_000, 1u32..8), 1..120),
        linux in any::<bool>(),
        gso in any::<bool>(),
    ) {
        let stack = if linux { Stack::Linux } else { Stack::Ns2 };
        let unit = if gso { PacingUnit::Gso } else { PacingUnit::Segment };
        let opts = TcpOptions {
            stack: Some(stack),
            pacing_quantum: Some(quantum),
            pacing_unit: Some(unit),
            ..TcpOptions::default()
        };
        let recovery = if linux { Recovery::Prr } else { Recovery::NewReno };
        let cc = FixedRate { cwnd, rate, samples: Vec::new() };
        let mut s = sender(Box::new(cc), opts.clone(), recovery);
        let mss = TcpConfig::from_options(&opts).mss;
        let sent = drive(&mut s, &acks);
        prop_assert!(!sent.is_empty());
        let burst = if gso { ((cwnd as u32) / 2).clamp(1, 64) } else { quantum };
        for i in 0..sent.len() {
            let mut bytes = 0.0;
            for &(t, len) in &sent[i..] {
                bytes += len as f64;
                let allowed = rate * (t - sent[i].0).as_secs_f64() + (burst * mss) as f64;
                prop_assert!(bytes <= allowed + 1e-6, "{} bytes from {:?} to {:?}, {} allowed", bytes, sent[i].0, t, allowed);
            }
        }
    }
}

/// With a window that never limits, the pacer alone spaces the segments: one per slot,
/// each released by its own wake-up, not by the ACKs.
#[test]
fn a_window_that_never_limits_sends_at_the_pacing_rate() {
    let cc = FixedRate {
        cwnd: 1000.0,
        rate: 1e6, // 1000-byte segments: one per millisecond
        samples: Vec::new(),
    };
    let mut s = sender(Box::new(cc), TcpOptions::default(), Recovery::NewReno);
    // No ACK for 50 ms.
    let sent = drive(&mut s, &[(50_000_000, 0)]);
    let times: Vec<u64> = sent.iter().map(|(t, _)| t.nanos() / 1_000_000).collect();
    assert_eq!(times, (0..=50).collect::<Vec<_>>());
}

/// The `pacing` option paces an algorithm that sets no rate at Linux's default rate:
/// 200 % of cwnd per SRTT in slow start.
#[test]
fn the_pacing_option_paces_reno_at_linuxs_default_rate() {
    let opts = TcpOptions {
        pacing: Some(true),
        initial_cwnd: Some(4.0),
        ..TcpOptions::default()
    };
    let mut s = sender(
        Box::new(Reno::new(Recovery::NewReno)),
        opts,
        Recovery::NewReno,
    );
    // Before an RTT sample the rate is unlimited: the first window goes at once.
    s.start(Time::ZERO);
    assert_eq!(s.outbox.drain(..).count(), 4);
    // One ACK at 100 ms: SRTT 100 ms, cwnd 5 in slow start: 2 * 5 * 1000 B / 0.1 s.
    let t = Time::from_millis(100);
    s.on_ack(t, &ack(1, t), None);
    assert!((s.state().pacing_rate - 100_000.0).abs() < 1e-6);
    // Two segments may go (cwnd 5, 3 outstanding): the first now, the second one slot
    // (10 ms) later, on a wake-up.
    assert_eq!(s.outbox.drain(..).count(), 1);
    let at = s
        .take_pace_request()
        .expect("a wake-up for the second segment");
    assert_eq!(at, t + Time::from_millis(10));
    s.on_pace_timer(at, at);
    assert_eq!(s.outbox.drain(..).count(), 1);
    assert_eq!(
        s.take_pace_request(),
        None,
        "the window is full: no wake-up"
    );
}

/// A flow that does not pace keeps no rate state and asks for no pacing wake-ups.
#[test]
fn an_unpaced_flow_has_no_pacer() {
    let mut s = sender(
        Box::new(Reno::new(Recovery::NewReno)),
        TcpOptions::default(),
        Recovery::NewReno,
    );
    let sent = drive(&mut s, &[(100_000_000, 1), (100_000_000, 2)]);
    assert!(sent.len() > 2);
    assert!(s.pacer.is_none() && s.rate.is_none());
    let mut vars = Vec::new();
    s.variables(&mut vars);
    assert!(vars.is_empty());
}

/// The rate samples reach the algorithm, and the flow's variables show both rates.
#[test]
fn rate_samples_reach_cong_control() {
    let cc = FixedRate {
        cwnd: 10.0,
        rate: 1e6,
        samples: Vec::new(),
    };
    let mut s = sender(Box::new(cc), TcpOptions::default(), Recovery::NewReno);
    // Every 100 ms an ACK for 5 segments.
    let sent = drive(&mut s, &[(100_000_000, 5); 20]);
    assert!(sent.len() >= 100);
    let mut vars = Vec::new();
    s.variables(&mut vars);
    let get = |n: &str| vars.iter().find(|v| v.0 == n).map(|v| v.1);
    assert_eq!(get("pacing_rate"), Some(1e6));
    let rate = get("delivery_rate").expect("a valid sample was taken");
    assert!(rate > 0.0, "{rate}");
}
