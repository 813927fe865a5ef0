//! Figures of issue 5 (004's WLAN set-up): run in release mode,
//! `cargo run --release -p tcplab --example wlan_report [seconds]` (default 200 s, the
//! first 40 s excluded from throughput as in 004).

use tcplab::record::{jain_index, RunRecords};
use tcplab::run_scenario;

#[path = "../tests/common/wlan_doc.rs"]
mod wlan_doc;
use wlan_doc::{reno_flows as flows, wlan};

/// A 004 WLAN run of `duration` seconds, the first fifth excluded from throughput.
fn scenario(duration: f64, topology: &str, flows: &str, tcp: &str) -> String {
    wlan(duration, duration * 0.2, topology, tcp, flows)
}

fn run(text: &str) -> RunRecords {
    match run_scenario(text, None) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2)
        }
    }
}

fn mbps(bps: f64) -> f64 {
    bps / 1e6
}

/// Mean of the AP's TCP-ACK occupancy over the measurement window.
fn mean_ap_acks(r: &RunRecords) -> (f64, f64) {
    let q = &r.wifi.ap_queue;
    let from = r.meta.measure[0];
    let idx: Vec<usize> = (0..q.time.len()).filter(|&i| q.time[i] >= from).collect();
    let n = idx.len().max(1) as f64;
    (
        idx.iter().map(|&i| q.acks[i] as f64).sum::<f64>() / n,
        idx.iter().map(|&i| q.data[i] as f64).sum::<f64>() / n,
    )
}

fn per_flow_table(r: &RunRecords) {
    println!("    flow    goodput Mb/s  timeouts  acks dropped at AP  data drops  final cwnd");
    for f in &r.flows {
        println!(
            "    {:<7} {:>10.3}  {:>8}  {:>18}  {:>10}  {:>10.1}",
            f.name,
            mbps(f.goodput_bps),
            f.timeouts,
            f.ack_drops.total(),
            f.data_drops.total(),
            f.final_cwnd
        );
    }
}

fn uplink_16(duration: f64, label: &str, extra: &str) {
    let r = run(&scenario(
        duration,
        &format!("stations = 16\n{extra}"),
        &flows(16, 0),
        "",
    ));
    let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    let total: f64 = g.iter().sum();
    let starved = g.iter().filter(|&&x| x < 0.1 * total / 16.0).count();
    let ap = r.wifi.iface("ap").expect("ap record");
    let (acks, data) = mean_ap_acks(&r);
    println!(
        "\n[3] 16 uplink Reno flows, {label}: total {:.2} Mb/s, Jain {:.3}, flows below 10% of a fair share: {starved}",
        mbps(total),
        jain_index(&g)
    );
    println!(
        "    AP: TCP ACKs dropped {} (overflow) / {} (retry limit); mean queue {:.1} ACKs + {:.1} data; timeouts total {}",
        ap.ack_drops.get(tcplab::net::DropCause::BufferOverflow),
        ap.ack_drops.get(tcplab::net::DropCause::WirelessRetryLimit),
        acks,
        data,
        r.flows.iter().map(|f| f.timeouts).sum::<u64>()
    );
    per_flow_table(&r);
}

fn main() {
    let duration: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200.0);

    // [2] One uplink Reno flow against the 802.11a timing.
    let analytic = {
        // Per 1000-byte segment: DATA (1040 + 28 bytes, 40 symbols: 180 us) and the TCP
        // ACK (40 + 28 bytes, 3 symbols: 32 us), each with DIFS + mean backoff
        // (7.5 slots = 67.5 us) before and SIFS + MAC ACK (28 us at 24 Mb/s) after.
        let per_frame = 34.0 + 67.5 + 16.0 + 28.0;
        8000.0 / ((2.0 * per_frame + 180.0 + 32.0) * 1e-6)
    };
    for (label, tcp) in [
        ("rwnd 1000 packets (above the BDP)", "[tcp]\nrwnd = 1000\n"),
        ("defaults (station buffer 10000, no rwnd limit)", ""),
    ] {
        let r = run(&scenario(duration, "stations = 1", &flows(1, 0), tcp));
        let f = &r.flows[0];
        println!(
            "[2] 1 uplink Reno, {label}: {:.3} Mb/s, analytic {:.3} Mb/s ({:+.1}%), timeouts {}, retransmissions {}",
            mbps(f.goodput_bps),
            mbps(analytic),
            100.0 * (f.goodput_bps / analytic - 1.0),
            f.timeouts,
            f.retransmissions
        );
    }

    // [3] 16 uplink flows (004 section II-B.2, fig. 8).
    uplink_16(duration, "AP with DIFS (fig. 8a)", "");
    uplink_16(duration, "AP with PIFS (fig. 8b)", "ap_access = \"pifs\"");
    uplink_16(
        duration,
        "AP with PIFS, no AP backoff",
        "ap_access = \"pifs\"\nap_backoff = false",
    );
    let near_far = format!(
        "distances = [{}]",
        (0..16)
            .map(|i| if i % 2 == 0 { "1.0" } else { "10.0" })
            .collect::<Vec<_>>()
            .join(", ")
    );
    uplink_16(
        duration,
        "AP with PIFS, even stations at 1 m, odd at 10 m (fig. 9a)",
        &format!("ap_access = \"pifs\"\n{near_far}"),
    );

    // [4] 8 uplink + 8 downlink flows, AP buffer swept (fig. 7a, Reno).
    println!("\n[4] 8 uplink + 8 downlink Reno flows");
    println!("    AP buffer  mean uplink Mb/s  mean downlink Mb/s  AP data drops  AP ACK drops");
    for buffer in [50, 100, 200] {
        let r = run(&scenario(
            duration,
            &format!("stations = 16\nap_buffer = {buffer}"),
            &flows(8, 8),
            "",
        ));
        let mean = |up: bool| {
            let g: Vec<f64> = r
                .flows
                .iter()
                .filter(|f| f.name.starts_with("up") == up)
                .map(|f| f.goodput_bps)
                .collect();
            g.iter().sum::<f64>() / g.len() as f64
        };
        let ap = r.wifi.iface("ap").expect("ap record");
        println!(
            "    {buffer:>9}  {:>16.3}  {:>18.3}  {:>13}  {:>12}",
            mbps(mean(true)),
            mbps(mean(false)),
            ap.data_drops.total(),
            ap.ack_drops.total()
        );
    }
}
