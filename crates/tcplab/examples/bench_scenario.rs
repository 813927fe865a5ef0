//! Runs one scenario file once and prints one JSON line of performance figures, for the
//! benchmark suite (`python bench/run.py`, see docs/performance.md):
//!
//! `cargo run --release -p tcplab --example bench_scenario -- FILE.toml`
//!
//! `packets_delivered` counts data packets that reached their receiver plus ACKs that
//! reached their sender (`RunMeta::packets_delivered`); `run_seconds` is the wall time
//! of parsing, building and running the scenario inside this process. Per-flow goodput
//! (for fairness), per-flow segments sent, retransmissions, timeouts and fast retransmits
//! (for the comparison with ns-3), and drops of data and ACKs (every cause, wherever they
//! happened) come with it. It reads only records that the engine had before the
//! optimisations of issue 8, so `bench/run.py --baseline-rev` can build it against that
//! engine.

use std::time::Instant;

/// Peak resident set size of this process, in KiB (Linux `VmHWM`).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bench_scenario SCENARIO.toml");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let t0 = Instant::now();
    let rec = match tcplab::run_scenario(&text, None) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let run_seconds = t0.elapsed().as_secs_f64();
    let acks: u64 = rec.flows.iter().map(|f| f.acks_received).sum();
    let bytes: u64 = rec.flows.iter().map(|f| f.bytes_delivered).sum();
    let goodput: f64 = rec.flows.iter().map(|f| f.goodput_bps).sum();
    let packets = rec.meta.packets_delivered;
    let per_flow: Vec<String> = rec
        .flows
        .iter()
        .map(|f| f.goodput_bps.to_string())
        .collect();
    let per_flow_u64 = |f: fn(&tcplab::record::FlowRecord) -> u64| {
        let v: Vec<String> = rec.flows.iter().map(|r| f(r).to_string()).collect();
        format!("[{}]", v.join(", "))
    };
    let timeouts: u64 = rec.flows.iter().map(|f| f.timeouts).sum();
    let data_drops: u64 = rec.flows.iter().map(|f| f.data_drops.total()).sum();
    let ack_drops: u64 = rec.flows.iter().map(|f| f.ack_drops.total()).sum();
    println!(
        "{{\"simulator\": \"tcplab\", \"flows\": {}, \"duration\": {}, \"data_delivered\": {}, \
         \"acks_delivered\": {}, \"packets_delivered\": {}, \"bytes_delivered\": {}, \
         \"goodput_bps\": {}, \"flow_goodput_bps\": [{}], \"flow_segments_sent\": {}, \
         \"flow_retransmissions\": {}, \"flow_timeouts\": {}, \"flow_recoveries\": {}, \
         \"flow_data_drops\": {}, \
         \"timeouts\": {}, \
         \"data_drops\": {}, \"ack_drops\": {}, \"events\": {}, \"run_seconds\": {}, \
         \"peak_rss_kib\": {}}}",
        rec.flows.len(),
        rec.meta.duration,
        packets - acks,
        acks,
        packets,
        bytes,
        goodput,
        per_flow.join(", "),
        per_flow_u64(|f| f.segments_sent),
        per_flow_u64(|f| f.retransmissions),
        per_flow_u64(|f| f.timeouts),
        per_flow_u64(|f| f.fast_retransmits),
        per_flow_u64(|f| f.data_drops.total()),
        timeouts,
        data_drops,
        ack_drops,
        rec.meta.events_processed,
        run_seconds,
        peak_rss_kib().map_or("null".to_string(), |k| k.to_string()),
    );
}
