//! Vegas `variant = "linux"` (Linux net/ipv4/tcp_vegas.c) at scenario level.

use tcplab::run_scenario;

/// One flow over a `rate` bottleneck at 100 ms RTT behind a 5000-packet buffer, measured
/// over the last `tail` seconds.
fn scenario(cc: &str, rate: &str, duration: f64, tail: f64) -> String {
    format!(
        r#"
[simulation]
duration = {duration}
sample_interval = 0.1
measure = [{}, {duration}]
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ rate = "{rate}", delay = "48ms", buffer = 5000 }}
access = {{ rate = "1Gbps", delay = "1ms", buffer = 5000 }}
[[flows]]
src = "s0"
dst = "d0"
cc = {cc}
"#,
        duration - tail
    )
}

/// Mean queue, largest queue and mean cwnd over the last `tail` seconds.
fn standing_queue(cc: &str, rate: &str, duration: f64, tail: f64) -> (f64, f64, f64) {
    let rec = run_scenario(&scenario(cc, rate, duration, tail), None).unwrap();
    let link = rec.links.iter().find(|l| l.name == "r0->r1").unwrap();
    let s = &rec.flow_series;
    let cwnd: Vec<f64> = (s.time.iter().zip(&s.cwnd))
        .filter(|&(&t, _)| t >= duration - tail)
        .map(|(_, &c)| c)
        .collect();
    let mean_cwnd = cwnd.iter().sum::<f64>() / cwnd.len() as f64;
    (link.mean_queue, link.max_queue as f64, mean_cwnd)
}

/// Linux Vegas leaves slow start with cwnd = min(cwnd, target_cwnd + 1) and then holds
/// alpha (2) to beta (4) packets queued: at 10 Mb/s and 100 ms (a path of 120 packets)
/// behind a 5000-packet buffer, the standing queue settles at a few packets. (The paper
/// rules of the old linux variant, which cut the window by 1/8 on leaving slow start,
/// kept hundreds queued.)
#[test]
fn linux_vegas_keeps_alpha_to_beta_packets_queued() {
    let (mean_queue, max_queue, cwnd) = standing_queue(
        r#"{ name = "vegas", variant = "linux" }"#,
        "10Mbps",
        60.0,
        20.0,
    );
    println!("linux Vegas: mean queue {mean_queue:.2}, max {max_queue}, mean cwnd {cwnd:.1}");
    assert!(
        (1.5..=5.5).contains(&mean_queue),
        "standing queue {mean_queue} packets; alpha..beta is 2..4"
    );
    // The path holds 10e6 * 0.1 / 8 / 1040 = 120 packets, plus the few queued.
    assert!((120.0..=127.0).contains(&cwnd), "cwnd {cwnd}");
}

/// At 100 Mb/s and 100 ms Linux's rules overshoot in slow start: the round's minimum RTT
/// is that of the first segment of a flight, sent into an empty queue, so Diff stays
/// below gamma until the window is several times the path; the exit then keeps the
/// window, and congestion avoidance drains the excess at one segment per round trip.
/// This checks that drain (and that slow start ended), as tcp_vegas.c does it.
#[test]
fn linux_vegas_drains_a_slow_start_overshoot_one_segment_per_round() {
    let text = scenario(
        r#"{ name = "vegas", variant = "linux" }"#,
        "100Mbps",
        12.0,
        12.0,
    );
    let rec = run_scenario(&text, None).unwrap();
    let s = &rec.flow_series;
    let at = |t: f64| {
        let i = s.time.iter().position(|&x| (x - t).abs() < 1e-9).unwrap();
        (s.cwnd[i], s.ssthresh[i], s.srtt[i])
    };
    let (w4, ss4, _) = at(4.0);
    let (w12, _, srtt) = at(12.0);
    assert_eq!(w4, ss4, "out of slow start: ssthresh = cwnd");
    let rounds = 8.0 / srtt;
    assert!(
        ((w4 - w12) - rounds).abs() <= 2.0,
        "cwnd {w4} -> {w12} over {rounds:.1} rounds"
    );
}
