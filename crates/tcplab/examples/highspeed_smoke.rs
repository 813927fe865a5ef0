//! Smoke table for the high-speed and hybrid algorithms (issue 6): two flows of the same
//! kind over a 10 Mb/s, 23 ms, 100-packet dumbbell.
//!
//! `cargo run --release -p tcplab --example highspeed_smoke [DURATION_S]` prints, per
//! algorithm, each flow's goodput, Jain's index, the bottleneck's mean queue and
//! utilisation, and loss responses (fast retransmits and timeouts), measured after the
//! first tenth of the run; the last rows add 5% ACK loss on the reverse bottleneck.
//!
//! Goodput counts in-order bytes at the receiver, so a flow that was in a long NewReno
//! recovery (no SACK) when the window opened can show more than the link carried.

/// (label, cc value, whether 5% of ACKs are lost on the reverse bottleneck).
const ROWS: &[(&str, &str, bool)] = &[
    ("reno (baseline)", "\"reno\"", false),
    ("fast", "\"fast\"", false),
    ("ctcp", "\"ctcp\"", false),
    ("areno", "\"areno\"", false),
    ("highspeed", "\"highspeed\"", false),
    ("scalable", "\"scalable\"", false),
    ("cubic", "\"cubic\"", false),
    (
        "reno + ACK-loss reaction",
        "{ name = \"reno\", ack_loss_reaction = true }",
        false,
    ),
    ("reno, 5% ACK loss", "\"reno\"", true),
    (
        "reno + ACK-loss reaction, 5% ACK loss",
        "{ name = \"reno\", ack_loss_reaction = true }",
        true,
    ),
    ("cubic, 5% ACK loss", "\"cubic\"", true),
    (
        "cubic + ACK-loss reaction, 5% ACK loss",
        "{ name = \"cubic\", ack_loss_reaction = true }",
        true,
    ),
];

fn scenario(cc: &str, ack_loss: bool, duration: f64) -> String {
    let reverse = if ack_loss {
        r#", reverse = { loss = { model = "bernoulli", p = 0.05, applies_to = "acks" } }"#
    } else {
        ""
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
bottleneck = {{ rate = "10Mbps", delay = "23ms", buffer = 100 {reverse} }}

[[flows]]
src = "s0"
dst = "d0"
cc = {cc}

[[flows]]
src = "s1"
dst = "d1"
cc = {cc}
"#,
        warm = duration / 10.0
    )
}

fn main() {
    let duration: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200.0);
    println!(
        "10 Mb/s, 23 ms, 100-packet DropTail dumbbell, 2 flows, {duration} s, measured over [{}, {duration}] s",
        duration / 10.0
    );
    println!(
        "| algorithm | flow 0 Mb/s | flow 1 Mb/s | total Mb/s | Jain | mean queue (pkts) | utilisation | loss responses |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for &(name, cc, ack_loss) in ROWS {
        let rec =
            tcplab::run_scenario(&scenario(cc, ack_loss, duration), None).expect("scenario runs");
        let bottleneck = rec
            .links
            .iter()
            .find(|l| l.name == "r0->r1")
            .expect("bottleneck r0->r1");
        let g: Vec<f64> = rec.flows.iter().map(|f| f.goodput_bps / 1e6).collect();
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
