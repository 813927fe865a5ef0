//! Runs a scenario file and prints per-flow goodput:
//! `cargo run --example run_file FILE [OUT_DIR]` (OUT_DIR receives the pcap traces the
//! scenario asks for).

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_file SCENARIO.toml");
    let text = std::fs::read_to_string(&path).expect("readable scenario file");
    let result = match std::env::args().nth(2) {
        Some(dir) => tcplab::run_scenario_with_output(&text, None, std::path::Path::new(&dir)),
        None => tcplab::run_scenario(&text, None),
    };
    match result {
        Ok(rec) => {
            for f in &rec.flows {
                println!(
                    "{:>10} {:>8} goodput {:>10.0} b/s  retx {:>5} to {:>3} fr {:>4} drops {:?}",
                    f.name,
                    f.cc,
                    f.goodput_bps,
                    f.retransmissions,
                    f.timeouts,
                    f.fast_retransmits,
                    f.data_drops.0
                );
            }
            for u in &rec.udp_flows {
                println!(
                    "{:>10} {:>8} throughput {:>10.0} b/s  sent {} received {} drops {:?}",
                    u.name,
                    "cbr",
                    u.throughput_bps,
                    u.datagrams_sent,
                    u.datagrams_received,
                    u.drops.0
                );
            }
            for t in &rec.traces {
                println!("pcap {} ({}): {} packets", t.file, t.link, t.packets);
            }
            for l in rec.links.iter().filter(|l| l.packets_sent > 0) {
                println!(
                    "{:>10} util {:.4} meanq {:.1} maxq {} drops {:?}",
                    l.name, l.utilization, l.mean_queue, l.max_queue, l.drops.0
                );
            }
            println!(
                "events {} delivered {}",
                rec.meta.events_processed, rec.meta.packets_delivered
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
