//! Benchmark: 10 Reno flows over a 100 Mb/s, 10 ms, 200-packet bottleneck for 100 s.
//!
//! `cargo run --release -p tcplab --example bench_reno10 [RUNS] [STACK]` prints simulated
//! packets per wall-clock second and peak memory; STACK (`ns2`, the default, or `linux`)
//! picks the TCP stack profile. See docs/performance.md.

use std::time::Instant;

const SCENARIO: &str = r#"
[simulation]
duration = 100
sample_interval = 0

[topology]
kind = "dumbbell"
pairs = 10
bottleneck = { rate = "100Mbps", delay = "10ms", buffer = 200 }
access = { rate = "1Gbps", delay = "1ms", buffer = 1000 }

[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
"#;

/// Peak resident set size of this process, in MiB (Linux `VmHWM`).
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    let mut text = SCENARIO.to_string();
    for i in 1..10 {
        text.push_str(&format!(
            "\n[[flows]]\nsrc = \"s{i}\"\ndst = \"d{i}\"\ncc = \"reno\"\n"
        ));
    }
    let stack = std::env::args().nth(2).unwrap_or_else(|| "ns2".into());
    text.push_str(&format!("\n[tcp]\nstack = \"{stack}\"\n"));
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    let mut best = f64::INFINITY;
    let mut packets = 0;
    let mut events = 0;
    for _ in 0..runs {
        let t0 = Instant::now();
        let rec = tcplab::run_scenario(&text, None).expect("benchmark scenario runs");
        let wall = t0.elapsed().as_secs_f64();
        best = best.min(wall);
        packets = rec.meta.packets_delivered;
        events = rec.meta.events_processed;
    }
    println!(
        "scenario: 10 Reno flows, 100 Mb/s, 10 ms, 200 packets, 100 s simulated, {stack} stack"
    );
    println!("best wall time of {runs}: {best:.3} s");
    println!("packets delivered: {packets}  events: {events}");
    println!(
        "simulated packets per wall second: {:.0}",
        packets as f64 / best
    );
    println!("events per wall second: {:.0}", events as f64 / best);
    if let Some(m) = peak_rss_mib() {
        println!("peak memory (VmHWM): {m:.1} MiB");
    }
}
