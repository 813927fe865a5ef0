//! Properties of the TCP sender over random dumbbell scenarios, in both stack profiles
//! (issue 15, "what it must show" item 4), for every algorithm of the registry: no fast
//! retransmit of a segment that was not lost when the path neither reorders nor
//! duplicates; no send burst above `max_burst`; cwnd never above rwnd; conservation
//! (checked by every run); delivery never ahead of the bottleneck's capacity.

use proptest::prelude::*;
use tcplab::record::RunRecords;
use tcplab::run_scenario;

#[derive(Debug, Clone)]
struct Case {
    stack: &'static str,
    cc: &'static str,
    flows: u32,
    rate_mbps: u32,
    delay_ms: u32,
    buffer: u32,
    loss: f64,
    rwnd: Option<u32>,
    max_burst: Option<u32>,
    delayed_ack: bool,
}

/// The algorithms exempt from "no spurious fast retransmit", and why; they are held to
/// every other property. Every other algorithm of the registry (`cc::ALGORITHMS`) is held
/// to all of them, so one added there is tested without touching this file.
const SPURIOUS_RETRANSMITS_KNOWN: &[(&str, &str)] = &[(
    "bbr",
    "after a timeout, with a long queue and 2 % random loss in the linux profile, RACK \
     marks segments that were never dropped lost (a fault of loss detection after a \
     timeout, reported with commit c68110d; CUBIC and Reno meet it too, far more rarely): \
     about 2 % of BBR's cases with 150 packets of buffer and 2 % loss, which would make \
     this test fail at random",
)];

/// Random cases per algorithm of the registry.
const CASES_PER_ALGORITHM: u32 = 8;

prop_compose! {
    fn case()(
        stack in prop_oneof![Just("ns2"), Just("linux")],
        cc in proptest::sample::select(tcplab::cc::registry::names()),
        flows in 1u32..=3,
        rate_mbps in prop_oneof![Just(2u32), Just(10), Just(50)],
        delay_ms in 5u32..60,
        buffer in prop_oneof![Just(5u32), Just(20), Just(60), Just(150)],
        loss in prop_oneof![Just(0.0), Just(0.005), Just(0.02)],
        rwnd in prop::option::of(8u32..120),
        max_burst in prop::option::of(2u32..8),
        delayed_ack in any::<bool>(),
    ) -> Case {
        Case { stack, cc, flows, rate_mbps, delay_ms, buffer, loss, rwnd, max_burst, delayed_ack }
    }
}

const DURATION: f64 = 8.0;
const SAMPLE: f64 = 0.25;

fn scenario(c: &Case) -> String {
    let loss = if c.loss > 0.0 {
        format!(", loss = {{ model = \"bernoulli\", p = {} }}", c.loss)
    } else {
        String::new()
    };
    let mut tcp = format!("stack = \"{}\"\ndelayed_ack = {}\n", c.stack, c.delayed_ack);
    if let Some(w) = c.rwnd {
        tcp += &format!("rwnd = {w}\n");
    }
    if let Some(b) = c.max_burst {
        tcp += &format!("max_burst = {b}\n");
    }
    let mut s = format!(
        r#"
[simulation]
duration = {DURATION}
sample_interval = {SAMPLE}
event_log = true

[topology]
kind = "dumbbell"
pairs = {flows}
bottleneck = {{ rate = "{rate}Mbps", delay = "{delay}ms", buffer = {buffer}{loss} }}
access = {{ rate = "1Gbps", delay = "1ms", buffer = 100000 }}

[tcp]
{tcp}
"#,
        flows = c.flows,
        rate = c.rate_mbps,
        delay = c.delay_ms,
        buffer = c.buffer,
    );
    for i in 0..c.flows {
        s += &format!(
            "\n[[flows]]\nsrc = \"s{i}\"\ndst = \"d{i}\"\ncc = \"{}\"\nstart = {}\n",
            c.cc,
            0.3 * i as f64
        );
    }
    s
}

/// Spurious fast retransmits: responses to duplicate ACKs (or RACK) for a segment that
/// was never dropped. Vegas-family early retransmits are the algorithm's own choice and
/// are not counted.
fn spurious_fast_retransmits(r: &RunRecords) -> usize {
    let l = &r.losses;
    (0..l.kind.len())
        .filter(|&i| matches!(l.kind[i], "fast_retransmit" | "rack") && l.true_cause[i] == "none")
        .count()
}

/// The largest number of data segments a flow put on its first link at one instant.
fn largest_burst(r: &RunRecords) -> usize {
    let e = r.events.as_ref().expect("event log on");
    let mut best = 0;
    let mut run = 0;
    let mut last: Option<(u32, f64)> = None;
    for i in 0..e.time.len() {
        if e.event[i] != "send" || e.kind[i] != "data" {
            continue;
        }
        let key = (e.flow[i], e.time[i]);
        run = if last == Some(key) { run + 1 } else { 1 };
        last = Some(key);
        best = best.max(run);
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: CASES_PER_ALGORITHM * tcplab::cc::ALGORITHMS.len() as u32,
        ..ProptestConfig::default()
    })]

    #[test]
    fn tcp_invariants_hold(c in case()) {
        let rec = run_scenario(&scenario(&c), Some(7)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        // Every property below is about data that must exist: fail rather than pass on none.
        prop_assert!(rec.flows.iter().all(|f| f.segments_sent > 0), "a flow sent nothing: {:?}", c);
        prop_assert!(!rec.flow_series.time.is_empty(), "no samples: {:?}", c);
        if !SPURIOUS_RETRANSMITS_KNOWN.iter().any(|(cc, _)| *cc == c.cc) {
            prop_assert_eq!(spurious_fast_retransmits(&rec), 0, "{:?}", c);
        }

        if let Some(b) = c.max_burst {
            prop_assert!(largest_burst(&rec) <= b as usize, "burst {} > {b}: {:?}", largest_burst(&rec), c);
        }
        if let Some(w) = c.rwnd {
            let worst = rec.flow_series.cwnd.iter().cloned().fold(0.0, f64::max);
            prop_assert!(worst <= w as f64, "cwnd {worst} > rwnd {w}: {:?}", c);
        }

        // Payload delivered in order by each sampling time, all flows together, against
        // what the bottleneck can have carried since the start (plus one segment per flow
        // in transit). In-order delivery can jump when a hole fills, so the bound is
        // cumulative; a window that opens mid-recovery would break it.
        let (mss, header) = if c.stack == "linux" { (1448.0, 52.0) } else { (1000.0, 40.0) };
        let rate = c.rate_mbps as f64 * 1e6 / 8.0 * mss / (mss + header);
        let s = &rec.flow_series;
        let n = c.flows as usize;
        for k in 0..s.time.len() / n {
            let delivered: u64 = (0..n).map(|f| s.bytes_delivered[k * n + f]).sum();
            let t = s.time[k * n];
            prop_assert!(
                delivered as f64 <= rate * t + mss * n as f64,
                "{delivered} bytes by t = {t}: capacity {}: {:?}", rate * t, c
            );
        }
        for l in &rec.links {
            prop_assert!(l.utilization <= 1.0 + 1e-9, "{} utilisation {}", l.name, l.utilization);
        }
    }
}

/// A case the property found (CI, 2026-11-28): BBR paced in whole GSO packets at 50 Mb/s, whose
/// size goal is 4 segments of 1448 bytes, put 4 back to back under `max_burst = 3`. A configured
/// limit now caps the GSO packet too.
#[test]
fn paced_gso_packets_keep_to_max_burst() {
    let c = Case {
        stack: "linux",
        cc: "bbr",
        flows: 1,
        rate_mbps: 50,
        delay_ms: 5,
        buffer: 5,
        loss: 0.005,
        rwnd: None,
        max_burst: Some(3),
        delayed_ack: false,
    };
    let rec = run_scenario(&scenario(&c), Some(7)).unwrap();
    assert!(rec.flows[0].segments_sent > 1000, "a run that sends");
    assert!(largest_burst(&rec) <= 3, "burst {}", largest_burst(&rec));
    let free = Case {
        max_burst: None,
        ..c
    };
    let rec = run_scenario(&scenario(&free), Some(7)).unwrap();
    assert!(
        largest_burst(&rec) > 3,
        "without a limit, more at once: {}",
        largest_burst(&rec)
    );
}

/// An exemption names an algorithm of the registry (a renamed one would otherwise be held
/// to the property again without anyone noticing the list is stale).
#[test]
fn exemptions_name_algorithms_of_the_registry() {
    for (cc, why) in SPURIOUS_RETRANSMITS_KNOWN {
        assert!(tcplab::cc::registry::find(cc).is_some(), "{cc} ({why})");
    }
}

/// Seeds tried for the case below (the fault shows in about 2 % of random cases, more
/// often in this one: first between seeds 81 and 120 since the linux profile paces whole GSO packets,
/// engine 0.3.9; in several of 1-30 before).
const SEEDS_TO_SHOW_THE_FAULT: u64 = 200;

/// The fault behind BBR's exemption, on a case where it shows (two RACK responses to
/// segments never dropped, a second after a timeout): when loss detection after a timeout
/// is fixed this fails, and the exemption goes.
#[test]
fn the_fault_behind_the_exemption_still_shows() {
    let c = Case {
        stack: "linux",
        cc: "bbr",
        flows: 3,
        rate_mbps: 2,
        delay_ms: 14,
        buffer: 150,
        loss: 0.02,
        rwnd: None,
        max_burst: None,
        delayed_ack: false,
    };
    // Any of a few seeds: which one shows it moves with every change to the linux profile.
    let shows = (1..=SEEDS_TO_SHOW_THE_FAULT).any(|seed| {
        spurious_fast_retransmits(&run_scenario(&scenario(&c), Some(seed)).unwrap()) > 0
    });
    assert!(
        shows,
        "no spurious fast retransmit any more: remove bbr from SPURIOUS_RETRANSMITS_KNOWN"
    );
}

/// The issue's first symptom: one CUBIC flow over 10 Mb/s, 30 ms, 50 packets took fast
/// retransmits for segments that were never lost after its first timeout.
#[test]
fn no_spurious_fast_retransmit_after_a_timeout() {
    for stack in ["ns2", "linux"] {
        let c = Case {
            stack,
            cc: "cubic",
            flows: 1,
            rate_mbps: 10,
            delay_ms: 13,
            buffer: 50,
            loss: 0.0,
            rwnd: None,
            max_burst: None,
            delayed_ack: false,
        };
        let rec = run_scenario(&scenario(&c), Some(1)).unwrap();
        assert_eq!(spurious_fast_retransmits(&rec), 0, "{stack}");
    }
}

/// Against the path's drops, the `linux` profile retransmits about what was dropped (the
/// kernel does; NS-2's go-back-N resends whole windows).
#[test]
fn linux_profile_retransmits_what_was_dropped() {
    let c = Case {
        stack: "linux",
        cc: "cubic",
        flows: 2,
        rate_mbps: 10,
        delay_ms: 13,
        buffer: 50,
        loss: 0.005,
        rwnd: None,
        max_burst: None,
        delayed_ack: true,
    };
    let rec = run_scenario(&scenario(&c), Some(3)).unwrap();
    for f in &rec.flows {
        let drops = f.data_drops.total();
        assert!(drops > 10, "{} dropped only {drops}", f.name);
        assert!(
            f.retransmissions <= drops + drops / 4 + 2,
            "{}: {} retransmissions for {drops} drops",
            f.name,
            f.retransmissions
        );
    }
    // A timeout only where nothing else can work: the whole initial window dropped
    // before any RTT sample (no tail loss probe without one; the kernel would have the
    // handshake's sample, which tcplab does not simulate).
    let l = &rec.losses;
    for i in (0..l.kind.len()).filter(|&i| l.kind[i] == "timeout") {
        assert!(
            l.seq[i] < 10 && l.time[i] < 1.5,
            "timeout at {} s, seq {}",
            l.time[i],
            l.seq[i]
        );
    }
}

/// On a path that neither reorders nor duplicates, every loss is real: the `linux` profile
/// never undoes a window reduction (the kernel's undo counters stay at 0 on the test bed's
/// random-loss points). An episode whose lost segment was resent in the previous episode
/// once counted as "nothing retransmitted" and was undone.
#[test]
fn linux_profile_never_undoes_a_real_loss() {
    for (cc, loss) in [("reno", 0.02), ("cubic", 0.02), ("reno", 0.01)] {
        let c = Case {
            stack: "linux",
            cc,
            flows: 1,
            rate_mbps: 10,
            delay_ms: 18,
            buffer: 47,
            loss,
            rwnd: None,
            max_burst: None,
            delayed_ack: true,
        };
        for seed in 1..=6 {
            let rec = run_scenario(&scenario(&c), Some(seed)).unwrap();
            let f = &rec.flows[0];
            assert!(
                f.data_drops.total() > 20,
                "{cc} at {loss}: too few losses to test"
            );
            assert_eq!(
                f.undos, 0,
                "{cc} at {loss}, seed {seed}: a real loss undone"
            );
        }
    }
}
