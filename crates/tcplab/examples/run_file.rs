//! Runs a scenario file and prints per-flow goodput: `cargo run --example run_file FILE`.

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_file SCENARIO.toml");
    let text = std::fs::read_to_string(&path).expect("readable scenario file");
    match tcplab::run_scenario(&text, None) {
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
