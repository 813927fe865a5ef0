//! Smoke table for the high-speed and hybrid algorithms (issue 6): two flows of the same
//! kind over a 10 Mb/s, 23 ms, 100-packet dumbbell.
//!
//! `cargo run --release -p tcplab --example highspeed_smoke [DURATION_S]` prints, per
//! algorithm, each flow's goodput, Jain's index, the bottleneck's mean queue and
//! utilisation, and loss responses, measured after the first fifth of the run.

const ALGORITHMS: &[&str] = &[
    "reno",
    "fast",
    "ctcp",
    "areno",
    "highspeed",
    "scalable",
    "cubic",
    "{ name = \"reno\", ack_loss_reaction = true }",
];

fn scenario(cc: &str, duration: f64) -> String {
    let cc = if cc.starts_with('{') {
        cc.to_string()
    } else {
        format!("\"{cc}\"")
    };
    format!(
        r#"
[simulation]
duration = {duration}
measure = [{warm}, {duration}]
sample_interval = 0

[topology]
kind = "dumbbell"
pairs = 2
bottleneck = {{ rate = "10Mbps", delay = "23ms", buffer = 100 }}

[[flows]]
src = "s0"
dst = "d0"
cc = {cc}

[[flows]]
src = "s1"
dst = "d1"
cc = {cc}
"#,
        warm = duration / 5.0
    )
}

fn main() {
    let duration: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(60.0);
    println!(
        "10 Mb/s, 23 ms, 100-packet DropTail dumbbell, 2 flows, {duration} s, measured over [{}, {duration}] s",
        duration / 5.0
    );
    println!(
        "| algorithm | flow 0 Mb/s | flow 1 Mb/s | total Mb/s | Jain | mean queue (pkts) | utilisation | loss responses |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for cc in ALGORITHMS {
        let rec = tcplab::run_scenario(&scenario(cc, duration), None).expect("scenario runs");
        let bottleneck = rec
            .links
            .iter()
            .find(|l| l.name == "r0->r1")
            .expect("bottleneck r0->r1");
        let g: Vec<f64> = rec.flows.iter().map(|f| f.goodput_bps / 1e6).collect();
        let name = if cc.starts_with('{') {
            "reno + ACK-loss reaction"
        } else {
            cc
        };
        println!(
            "| {name} | {:.2} | {:.2} | {:.2} | {:.3} | {:.1} | {:.3} | {} |",
            g[0],
            g[1],
            g.iter().sum::<f64>(),
            rec.jain_index(),
            bottleneck.mean_queue,
            bottleneck.utilization,
            rec.losses.time.len()
        );
    }
}
