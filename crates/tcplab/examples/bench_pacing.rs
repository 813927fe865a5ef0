//! Benchmark: what pacing costs in events. Each path is run with CUBIC unpaced, CUBIC paced
//! (`pacing = true`, Linux's default rate) and BBR (always paced), `linux` stack; printed
//! are the events processed per packet delivered and their ratio to unpaced CUBIC (issue
//! 18 asks for at most 1.5), beside the wall time (best of RUNS).
//!
//! `cargo run --release -p tcplab --example bench_pacing [RUNS]`. See docs/performance.md.

use std::time::Instant;

/// (name, topology lines, flows, simulated seconds)
const PATHS: &[(&str, &str, usize, f64)] = &[
    (
        "1 flow, 10 Mb/s, 40 ms, 1 BDP",
        r#"kind = "dumbbell"
pairs = 1
bottleneck = { rate = "10Mbps", delay = "18ms", buffer = 33 }
access = { rate = "1Gbps", delay = "1ms", buffer = 1000 }"#,
        1,
        60.0,
    ),
    (
        "10 flows, 100 Mb/s, 10 ms, 200 packets",
        r#"kind = "dumbbell"
pairs = 10
bottleneck = { rate = "100Mbps", delay = "10ms", buffer = 200 }
access = { rate = "1Gbps", delay = "1ms", buffer = 1000 }"#,
        10,
        20.0,
    ),
];

/// (label, cc, pacing option)
const VARIANTS: &[(&str, &str, bool)] = &[
    ("cubic, unpaced", "cubic", false),
    ("cubic, paced", "cubic", true),
    ("bbr", "bbr", false),
];

fn scenario(topology: &str, flows: usize, duration: f64, cc: &str, pacing: bool) -> String {
    let mut s = format!(
        "[simulation]\nduration = {duration}\nsample_interval = 0\n\n[topology]\n{topology}\n\n\
         [tcp]\nstack = \"linux\"\npacing = {pacing}\n"
    );
    for i in 0..flows {
        s.push_str(&format!(
            "\n[[flows]]\nsrc = \"s{i}\"\ndst = \"d{i}\"\ncc = \"{cc}\"\n"
        ));
    }
    s
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    for &(name, topology, flows, duration) in PATHS {
        println!("{name}, {duration} s simulated");
        let mut baseline = None;
        for &(label, cc, pacing) in VARIANTS {
            let text = scenario(topology, flows, duration, cc, pacing);
            let mut best = f64::INFINITY;
            let mut rec = None;
            for _ in 0..runs {
                let t0 = Instant::now();
                let r = tcplab::run_scenario(&text, None).expect("benchmark scenario runs");
                best = best.min(t0.elapsed().as_secs_f64());
                rec = Some(r);
            }
            let rec = rec.expect("at least one run");
            let per_packet = rec.meta.events_processed as f64 / rec.meta.packets_delivered as f64;
            let base = *baseline.get_or_insert(per_packet);
            let util = rec.links.first().map_or(f64::NAN, |l| l.utilization);
            println!(
                "  {label:<16} events/packet {per_packet:.3}  ratio {:.3}  \
                 (events {}, packets {}, bottleneck utilisation {util:.3}, best wall {best:.3} s)",
                per_packet / base,
                rec.meta.events_processed,
                rec.meta.packets_delivered,
            );
        }
    }
}
