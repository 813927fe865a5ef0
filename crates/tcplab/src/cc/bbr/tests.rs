//! BBR's state machine and gain cycle against hand-worked traces: a path of 1000 segments
//! per second and 100 ms, one ACK per round trip unless a test says otherwise.

use super::*;
use crate::cc::CcState;

fn ms(v: u64) -> Time {
    Time::from_millis(v)
}

const MSS: u32 = 1000;

struct Trace {
    bbr: Bbr,
    st: CcState,
}

impl Trace {
    fn new() -> Self {
        let mut st = CcState::new(10.0, 1e9, MSS, 100_000);
        st.pacing_quantum = 1;
        let mut bbr = Bbr::new();
        bbr.init(&mut st);
        Trace { bbr, st }
    }

    /// One ACK `dt` after the previous one, delivering `acked` segments at `bw` segments
    /// per second (a sample over `acked / bw`) from a segment sent when `prior_delivered`
    /// had been delivered, with `in_flight` left and the given RTT sample and losses.
    #[allow(clippy::too_many_arguments)]
    fn ack_full(
        &mut self,
        dt: Time,
        acked: u32,
        bw: f64,
        prior_delivered: u64,
        in_flight: u32,
        rtt: Time,
        losses: u32,
    ) -> RateSample {
        let rs = RateSample {
            delivered: Some(acked),
            interval: Some(Time::from_secs_f64(acked as f64 / bw)),
            prior_delivered,
            acked_sacked: acked,
            losses,
            is_app_limited: false,
            is_retrans: false,
            rtt: Some(rtt),
            prior_in_flight: self.st.in_flight,
        };
        self.st.now += dt;
        self.st.delivered += acked as u64;
        self.st.delivered_time = self.st.now;
        self.st.lost += losses as u64;
        self.st.in_flight = in_flight;
        self.st.srtt = rtt;
        self.st.latest_rtt = rtt;
        self.st.min_rtt = self.st.min_rtt.min(rtt);
        self.bbr.cong_control(&mut self.st, &rs);
        rs
    }

    /// A whole round trip of 100 ms at `bw`, acknowledged at once: the sample starts at
    /// the previous round's end, so every call is a new round.
    fn round(&mut self, bw: f64, in_flight: u32) {
        let acked = (bw * 0.1).round() as u32;
        let prior = self.st.delivered;
        self.ack_full(ms(100), acked, bw, prior, in_flight, ms(100), 0);
    }

    /// A small ACK within a round: 10 segments at 1000 per second, no new round.
    fn ack(&mut self, dt: Time, in_flight: u32, rtt: Time) {
        self.ack_full(dt, 10, 1000.0, 0, in_flight, rtt, 0);
    }

    /// STARTUP to PROBE_BW: the hand-worked trace of `startup_drain_probe_bw`.
    fn to_probe_bw() -> Self {
        let mut t = Trace::new();
        for bw in [100.0, 200.0, 400.0, 800.0, 1000.0, 1000.0, 1000.0, 1000.0] {
            t.round(bw, 250);
        }
        t.round(1000.0, 100);
        assert_eq!(t.bbr.mode, Mode::ProbeBw);
        t
    }

    /// PROBE_BW in phase 2 with cwnd at its target (one ACK after the cycle was set).
    fn settled() -> Self {
        let mut t = Trace::to_probe_bw();
        t.set_phase(2);
        t.ack(ms(1), 100, ms(100));
        let cwnd = t.st.cwnd;
        t.ack(ms(1), 100, ms(100));
        assert_eq!(t.st.cwnd, cwnd, "settled at the target");
        t
    }

    /// Puts PROBE_BW at `phase`, starting now.
    fn set_phase(&mut self, phase: usize) {
        self.bbr.cycle_idx = phase;
        self.bbr.cycle_stamp = self.st.delivered_time;
        self.bbr.update_gains();
    }
}

/// Draft 4.3.2-4.3.3: BtlBw doubles for four rounds, then stays at 1000 segments per
/// second. The plateau starts in round 5 (1000 >= 1.25 x 800); rounds 6, 7 and 8 add
/// nothing, so round 8 fills the pipe: DRAIN, with ssthresh one BDP (100 + 3 quanta,
/// rounded up to even). DRAIN ends once the flight is down to that.
#[test]
fn startup_drain_probe_bw() {
    let mut t = Trace::new();
    assert_eq!(t.bbr.mode, Mode::Startup);
    // Before an RTT sample: 10 segments per millisecond at the STARTUP gain.
    let init = 10.0 * 1000.0 * MSS as f64 * HIGH_GAIN * 0.99;
    assert!((t.st.pacing_rate - init).abs() < 1e-6);
    let expect_cwnd = [20.0, 40.0, 80.0, 160.0];
    for (i, bw) in [100.0, 200.0, 400.0, 800.0].into_iter().enumerate() {
        t.round(bw, 250);
        assert_eq!(t.bbr.mode, Mode::Startup);
        assert_eq!(t.bbr.max_bw(), bw);
        // cwnd grows by the segments delivered while below gain x BDP.
        assert_eq!(t.st.cwnd, expect_cwnd[i], "round {}", i + 1);
    }
    for round in 5..=7 {
        t.round(1000.0, 250);
        assert_eq!(t.bbr.mode, Mode::Startup, "round {round}");
        assert!(!t.bbr.full_bw_reached);
    }
    assert_eq!(t.bbr.full_bw_rounds, 2);
    t.round(1000.0, 250);
    assert!(t.bbr.full_bw_reached);
    assert_eq!(t.bbr.mode, Mode::Drain);
    assert_eq!(t.st.ssthresh, 104.0);
    assert_eq!(t.bbr.pacing_gain, DRAIN_GAIN);
    let drain = 1000.0 * MSS as f64 * DRAIN_GAIN * 0.99;
    assert!(
        (t.st.pacing_rate - drain).abs() < 1e-6,
        "{}",
        t.st.pacing_rate
    );
    // 105 in flight is still above one BDP; 104 is not.
    t.ack(ms(10), 105, ms(100));
    assert_eq!(t.bbr.mode, Mode::Drain);
    t.ack(ms(10), 104, ms(100));
    assert_eq!(t.bbr.mode, Mode::ProbeBw);
    assert_ne!(t.bbr.cycle_idx, 1, "never starts in the 3/4 phase");
    assert_eq!(t.bbr.cwnd_gain, CWND_GAIN);
}

/// Draft 4.3.2 (Linux): in STARTUP the pacing rate never goes down, even when BtlBw
/// would say so.
#[test]
fn startup_never_lowers_the_pacing_rate() {
    let mut t = Trace::new();
    t.round(800.0, 50);
    let high = t.st.pacing_rate;
    t.bbr.bw.reset(t.bbr.round_count, 100.0);
    t.round(100.0, 50);
    assert_eq!(t.st.pacing_rate, high);
}

/// Draft 4.3.4.3: the 5/4 phase lasts at least RTprop and until the flight reaches 5/4
/// BDP (125 + 3 quanta, even, + 2 while probing = 130; the segment about to leave counts
/// while probing), the 3/4 phase at most RTprop and only until the flight is down to
/// one BDP (104), the others exactly RTprop on the delivery clock.
#[test]
fn gain_cycle_trace() {
    let mut t = Trace::to_probe_bw();
    t.set_phase(0);
    assert_eq!(t.bbr.pacing_gain, 1.25);
    let probing = 1000.0 * MSS as f64 * 1.25 * 0.99;
    t.ack(ms(1), 140, ms(100));
    assert!((t.st.pacing_rate - probing).abs() < 1e-6);
    // Flight high enough, but not yet RTprop into the phase.
    t.ack(ms(49), 140, ms(100));
    assert_eq!(t.bbr.cycle_idx, 0);
    // RTprop has passed (50 + 51 ms), but the flight was 128 (+1 about to leave) < 130.
    t.st.in_flight = 128;
    t.ack(ms(51), 129, ms(100));
    assert_eq!(
        t.bbr.cycle_idx, 0,
        "keeps probing until the flight reaches 5/4 BDP"
    );
    // The flight before this ACK was 129 (+1): the phase ends.
    t.ack(ms(1), 120, ms(100));
    assert_eq!(t.bbr.cycle_idx, 1);
    assert_eq!(t.bbr.pacing_gain, 0.75);
    // The drain phase: 105 in flight before the ACK is still too many ...
    t.st.in_flight = 105;
    t.ack(ms(1), 104, ms(100));
    assert_eq!(t.bbr.cycle_idx, 1);
    // ... 104 is one BDP: done at once, long before RTprop.
    t.ack(ms(1), 104, ms(100));
    assert_eq!(t.bbr.cycle_idx, 2);
    // Phases 2 to 7 and back to 0: each ends on the first ACK more than 100 ms in.
    for phase in 2..8 {
        assert_eq!(t.bbr.pacing_gain, 1.0);
        t.ack(ms(100), 104, ms(100));
        assert_eq!(
            t.bbr.cycle_idx, phase,
            "exactly RTprop is not more than RTprop"
        );
        t.ack(Time(1), 104, ms(100));
        assert_eq!(t.bbr.cycle_idx, (phase + 1) % 8);
    }
    assert_eq!(t.bbr.pacing_gain, 1.25);
}

/// A loss ends the probing phase once RTprop has passed, whatever the flight.
#[test]
fn a_loss_ends_the_probing_phase() {
    let mut t = Trace::to_probe_bw();
    t.set_phase(0);
    t.ack_full(ms(101), 10, 1000.0, 0, 50, ms(100), 0);
    assert_eq!(t.bbr.cycle_idx, 0);
    t.ack_full(ms(1), 10, 1000.0, 0, 50, ms(100), 1);
    assert_eq!(t.bbr.cycle_idx, 1);
}

/// Draft 4.3.4.2 (Linux: one of 7 phases): every phase but the 3/4 one can start the
/// cycle.
#[test]
fn the_cycle_starts_at_a_random_phase_other_than_drain() {
    let st = CcState::new(10.0, 1e9, MSS, 100);
    let mut seen = [0u32; 8];
    for seed in 0..700 {
        let mut b = Bbr::new();
        b.set_random_stream(RngStream::new(seed, "bbr"));
        b.enter_probe_bw(&st);
        seen[b.cycle_idx] += 1;
    }
    assert_eq!(seen[1], 0);
    for (phase, n) in seen.iter().enumerate().filter(|(p, _)| *p != 1) {
        assert!(*n > 50, "phase {phase} started {n} times of 700");
    }
}

/// Draft 4.3.5: RTprop (100 ms, measured in round 1 at 0.1 s) is not refreshed while a
/// queue makes every RTT 120 ms; the first ACK after 10.1 s enters PROBE_RTT, which
/// holds cwnd at 4 and marks samples application-limited. Once the flight is down to 4,
/// 200 ms and a round trip later, cwnd comes back and PROBE_BW resumes.
#[test]
fn probe_rtt_trace() {
    let mut t = Trace::to_probe_bw();
    assert_eq!(t.bbr.min_rtt.stamp, ms(100));
    let queued = ms(120);
    while t.bbr.mode != Mode::ProbeRtt {
        let prior = t.st.delivered;
        t.ack_full(queued, 120, 1000.0, prior, 104, queued, 0);
        assert!(
            t.st.now <= ms(10_100 + 120),
            "PROBE_RTT by 10.1 s + one ACK"
        );
    }
    assert!(t.st.now > ms(10_100));
    let cwnd_before = t.bbr.prior_cwnd;
    assert!(cwnd_before > 100.0, "{cwnd_before}");
    assert_eq!(t.st.cwnd, 4.0);
    assert_ne!(t.st.app_limited, 0);
    assert_eq!((t.bbr.pacing_gain, t.bbr.cwnd_gain), (1.0, 1.0));
    // The flight drains to 4: the 200 ms start now.
    t.ack(ms(50), 4, ms(100));
    let entered = t.st.now;
    assert_eq!(t.bbr.probe_rtt_done, Some(entered + ms(200)));
    // A round trip ends within the 200 ms: not yet.
    let prior = t.st.delivered;
    t.ack_full(ms(100), 4, 1000.0, prior, 4, ms(100), 0);
    assert!(t.bbr.probe_rtt_round_done);
    assert_eq!(t.bbr.mode, Mode::ProbeRtt);
    assert_eq!(t.st.cwnd, 4.0);
    // Just after the 200 ms (an ACK that delivers nothing, so cwnd is what comes back).
    t.ack_full(ms(100) + Time(1), 0, 1000.0, 0, 4, ms(100), 0);
    assert_eq!(t.bbr.mode, Mode::ProbeBw);
    assert_eq!(t.st.cwnd, cwnd_before);
    assert_eq!(t.bbr.min_rtt.rtt, ms(100), "refreshed in PROBE_RTT");
    assert_eq!(t.bbr.min_rtt.stamp, t.st.now);
}

/// Draft 4.2.3.4: the first round of recovery conserves packets (cwnd = flight +
/// delivered), losses come off cwnd, and leaving recovery restores the cwnd of before.
#[test]
fn recovery_conserves_packets_then_restores() {
    let mut t = Trace::settled();
    let before = t.st.cwnd;
    t.st.ca_state = CaState::Recovery;
    let info = LossInfo {
        kind: crate::cc::LossKind::FastRetransmit,
        seq: 0,
        already_retransmitted: false,
        sent_at: Time::ZERO,
    };
    assert_eq!(t.bbr.ssthresh(&t.st, &info), t.st.ssthresh);
    assert_eq!(t.bbr.prior_cwnd, before);
    // First ACK of recovery: 2 delivered, 1 lost, 60 in flight: cwnd 62.
    t.ack_full(ms(1), 2, 1000.0, 0, 60, ms(100), 1);
    assert!(t.bbr.packet_conservation);
    assert_eq!(t.st.cwnd, 62.0);
    // Next: 1 delivered, 1 lost, 58 in flight: max(62 - 1, 58 + 1).
    t.ack_full(ms(1), 1, 1000.0, 0, 58, ms(100), 1);
    assert_eq!(t.st.cwnd, 61.0);
    // A round later conservation ends: cwnd grows by what is delivered towards the target.
    let prior = t.st.delivered;
    t.ack_full(ms(100), 5, 1000.0, prior, 58, ms(100), 0);
    assert!(!t.bbr.packet_conservation);
    assert_eq!(t.st.cwnd, 66.0);
    // Recovery ends: the cwnd of before comes back.
    t.st.ca_state = CaState::Open;
    t.ack(ms(1), 58, ms(100));
    assert_eq!(t.st.cwnd, before);
}

/// Linux `bbr_set_state`: a timeout restarts full-pipe detection and ends the round;
/// after it, cwnd comes back to what it was.
#[test]
fn a_timeout_ends_the_round_and_cwnd_is_restored_after() {
    let mut t = Trace::settled();
    let before = t.st.cwnd;
    let info = LossInfo {
        kind: crate::cc::LossKind::Timeout,
        seq: 0,
        already_retransmitted: false,
        sent_at: Time::ZERO,
    };
    t.bbr.ssthresh(&t.st, &info);
    t.bbr.set_state(&mut t.st, CaState::Loss);
    t.st.ca_state = CaState::Loss;
    t.st.cwnd = 1.0;
    assert!(t.bbr.round_start);
    assert_eq!(t.bbr.full_bw, 0.0);
    t.st.ca_state = CaState::Open;
    t.ack(ms(1), 1, ms(100));
    assert_eq!(t.st.cwnd, before);
}

/// Draft 4.3.4.4: restarting from idle while application-limited in PROBE_BW paces at
/// BtlBw, not above it.
#[test]
fn restart_from_idle_paces_at_the_estimate() {
    let mut t = Trace::to_probe_bw();
    t.set_phase(0);
    t.st.app_limited = 5;
    t.bbr.cwnd_event(&mut t.st, CaEvent::TxStart);
    assert!(t.bbr.idle_restart);
    let at_bw = 1000.0 * MSS as f64 * 0.99;
    assert!((t.st.pacing_rate - at_bw).abs() < 1e-6);
}

/// The policed rate, once found, is what BBR paces at, with a gain of 1 in PROBE_BW.
#[test]
fn a_policer_caps_the_bandwidth_used() {
    let mut t = Trace::to_probe_bw();
    t.bbr.lt.bw = 600.0;
    t.bbr.lt.in_use = true;
    t.set_phase(0);
    assert_eq!(t.bbr.pacing_gain, 1.0);
    assert_eq!(t.bbr.bw(), 600.0);
    t.ack(ms(1), 50, ms(100));
    assert!((t.st.pacing_rate - 600.0 * MSS as f64 * 0.99).abs() < 1e-6);
}

#[test]
fn unknown_parameters_are_refused() {
    let mut spec = CcSpec::named("bbr");
    spec.params.insert("gain".into(), toml::Value::Float(2.0));
    let err = Bbr::from_spec(&spec, "flows[0].cc").err().expect("refused");
    assert!(err.to_string().contains("flows[0].cc"), "{err}");
}
