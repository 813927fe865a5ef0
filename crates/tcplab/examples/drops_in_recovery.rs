//! For the comparison with ns-3 (docs/performance.md, "linux profile against ns-3 with
//! SACK"): runs a scenario file with the event log on and prints, per flow, the data packets
//! dropped and how many of them were dropped while the flow was in fast recovery, counted
//! as bench/ns3/dumbbell counts ns-3's (`flow_drops_in_recovery`):
//!
//! `cargo run --release -p tcplab --example drops_in_recovery -- FILE.toml`
//!
//! A recovery starts at a fast retransmit (the loss table) and ends with the first ACK at
//! the sender that covers everything sent before it started (RFC 6582's `recover`).

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: drops_in_recovery SCENARIO.toml");
    let text = std::fs::read_to_string(&path).expect("readable scenario file");
    let text = text.replacen("[simulation]", "[simulation]\nevent_log = true", 1);
    let rec = tcplab::run_scenario(&text, None).expect("the scenario runs");
    let n = rec.flows.len();
    let log = rec.events.as_ref().expect("the event log is on");
    let losses = &rec.losses;
    // Recovery entries per flow, in time order.
    let mut entries: Vec<Vec<f64>> = vec![Vec::new(); n];
    for i in 0..losses.time.len() {
        if losses.kind[i] == "fast_retransmit" {
            entries[losses.flow[i] as usize].push(losses.time[i]);
        }
    }
    let mut next_entry = vec![0usize; n];
    let mut max_sent: Vec<Option<u32>> = vec![None; n];
    // Some(recover): in recovery until an ACK reaches beyond `recover`.
    let mut recover: Vec<Option<u32>> = vec![None; n];
    let mut drops = vec![0u64; n];
    let mut in_recovery = vec![0u64; n];
    let mut episodes = vec![0u64; n];
    for i in 0..log.time.len() {
        let (t, f) = (log.time[i], log.flow[i] as usize);
        if f >= n {
            continue; // a UDP flow
        }
        while next_entry[f] < entries[f].len() && entries[f][next_entry[f]] <= t {
            next_entry[f] += 1;
            if recover[f].is_none() {
                recover[f] = max_sent[f];
                episodes[f] += 1;
            }
        }
        match (log.event[i], log.kind[i]) {
            ("send", "data") => {
                let s = log.seq[i];
                max_sent[f] = Some(max_sent[f].map_or(s, |m| m.max(s)));
            }
            ("recv", "ack") => {
                if let Some(r) = recover[f] {
                    if log.ack[i] > r {
                        recover[f] = None;
                    }
                }
            }
            ("drop", "data") => {
                drops[f] += 1;
                if recover[f].is_some() {
                    in_recovery[f] += 1;
                }
            }
            _ => {}
        }
    }
    let list = |v: &[u64]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "{{\"flow_data_drops\": [{}], \"flow_drops_in_recovery\": [{}], \"flow_recoveries\": [{}]}}",
        list(&drops),
        list(&in_recovery),
        list(&episodes)
    );
}
