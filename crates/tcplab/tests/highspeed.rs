//! Scenario tests of the high-speed and hybrid algorithms and of 004's ACK-loss reaction
//! (issue 6).

use tcplab::record::RunRecords;
use tcplab::run_scenario;

/// A dumbbell with `pairs` sender/receiver pairs over a 10 Mb/s, 23 ms bottleneck.
fn dumbbell(pairs: u32, buffer: u32, duration: f64, measure_from: f64, extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = {duration}
measure = [{measure_from}, {duration}]
sample_interval = 0.05

[topology]
kind = "dumbbell"
pairs = {pairs}
bottleneck = {{ rate = "10Mbps", delay = "23ms", buffer = {buffer} {extra} }}
"#
    )
}

fn flow(i: u32, cc: &str) -> String {
    format!("\n[[flows]]\nname = \"f{i}\"\nsrc = \"s{i}\"\ndst = \"d{i}\"\ncc = {cc}\n")
}

fn bottleneck(rec: &RunRecords) -> &tcplab::record::LinkRecord {
    rec.links
        .iter()
        .find(|l| l.name == "r0->r1")
        .expect("r0->r1")
}

/// Last sampled value of a congestion-control variable of one flow.
fn last_var(rec: &RunRecords, flow: u32, name: &str) -> Option<f64> {
    let s = &rec.cc_series;
    (0..s.time.len())
        .rev()
        .find(|&i| s.flow[i] == flow && s.name[i] == name)
        .map(|i| s.value[i])
}

fn cwnd_series(rec: &RunRecords, flow: u32) -> Vec<f64> {
    let s = &rec.flow_series;
    (0..s.time.len())
        .filter(|&i| s.flow[i] == flow)
        .map(|i| s.cwnd[i])
        .collect()
}

/// FAST's equilibrium (Jin, Wei, Low 2004): every flow keeps alpha packets queued, so the
/// bottleneck queue settles near n * alpha.
#[test]
fn fast_keeps_alpha_packets_queued_per_flow() {
    for n in [1u32, 3] {
        let mut doc = dumbbell(n, 300, 30.0, 15.0, "");
        for i in 0..n {
            doc.push_str(&flow(i, "\"fast\""));
        }
        let rec = run_scenario(&doc, None).expect("runs");
        let q = bottleneck(&rec).mean_queue;
        let target = 20.0 * n as f64;
        eprintln!(
            "{n} FAST flows: mean queue {q:.2} packets, Jain {:.4}",
            rec.jain_index()
        );
        // The packet in service is not in the queue: one per link, not per flow.
        assert!(
            (q - (target - 1.0)).abs() < 0.1 * target,
            "{n} FAST flows: mean queue {q:.2}, alpha * n = {target}"
        );
        assert!(bottleneck(&rec).utilization > 0.99);
        assert_eq!(
            rec.losses.time.len(),
            0,
            "FAST at equilibrium loses nothing"
        );
        if n == 3 {
            assert!(rec.jain_index() > 0.99, "Jain {}", rec.jain_index());
        }
    }
}

/// Two Reno flows, rwnd-limited so that no data is lost, with 5% of ACKs lost on the
/// reverse bottleneck: the wrapped flow halves its window, the plain one never does.
#[test]
fn ack_loss_reaction_halves_wrapped_reno_only() {
    let mut doc = dumbbell(
        2,
        100,
        20.0,
        0.0,
        r#", reverse = { loss = { model = "bernoulli", p = 0.05, applies_to = "acks" } }"#,
    );
    doc.push_str("\n[tcp]\nrwnd = 25\n");
    doc.push_str(&flow(
        0,
        r#"{ name = "reno", ack_loss_reaction = { thresh_ack_losses = 1 } }"#,
    ));
    doc.push_str(&flow(1, "\"reno\""));
    let rec = run_scenario(&doc, None).expect("runs");
    let (wrapped, plain) = (&rec.flows[0], &rec.flows[1]);
    assert!(
        wrapped.ack_drops.0.iter().sum::<u64>() > 100,
        "ACKs were lost"
    );
    assert!(
        plain.ack_drops.0.iter().sum::<u64>() > 100,
        "ACKs were lost"
    );
    assert_eq!(
        bottleneck(&rec).drops.0.iter().sum::<u64>(),
        0,
        "no data loss"
    );
    // The plain flow never reduces: no loss response, and its window never falls.
    assert_eq!(plain.fast_retransmits + plain.timeouts, 0);
    let w = cwnd_series(&rec, 1);
    assert!(
        w.windows(2).all(|p| p[1] >= p[0]),
        "plain Reno's cwnd never falls"
    );
    assert!(plain.final_cwnd >= 25.0);
    // The wrapped flow reacted, each time halving.
    let reductions = last_var(&rec, 0, "ack_loss_reductions").unwrap();
    let inferred = last_var(&rec, 0, "ack_losses_inferred").unwrap();
    assert!(reductions >= 5.0, "{reductions} reductions");
    assert!(inferred > reductions);
    // Reno halves min(cwnd, rwnd); cwnd may sit a fraction above rwnd.
    let ratio = last_var(&rec, 0, "ack_loss_last_ratio").unwrap();
    assert!((0.49..=0.5).contains(&ratio), "last reduction kept {ratio}");
    eprintln!(
        "wrapped: {reductions} reductions, {inferred} ACK losses inferred of {} dropped, \
         goodput {:.2} Mb/s; plain: goodput {:.2} Mb/s, final cwnd {:.1}",
        wrapped.ack_drops.0.iter().sum::<u64>(),
        wrapped.goodput_bps / 1e6,
        plain.goodput_bps / 1e6,
        plain.final_cwnd
    );
    let w = cwnd_series(&rec, 0);
    let halvings = w.windows(2).filter(|p| p[1] < 0.6 * p[0]).count();
    assert!(halvings >= 3, "cwnd series shows {halvings} halvings");
    assert_eq!(wrapped.fast_retransmits + wrapped.timeouts, 0);
    // Smaller windows, less throughput than the plain flow.
    assert!(wrapped.goodput_bps < plain.goodput_bps);
    // Inferred losses track the real ones: the sender cannot see more ACK losses than
    // happened (no data loss, no reordering here).
    let dropped = wrapped.ack_drops.0.iter().sum::<u64>() as f64;
    assert!(
        inferred <= dropped,
        "{inferred} inferred of {dropped} dropped"
    );
}

/// The wrapper works around any algorithm and reduces with that algorithm's own decrease:
/// CUBIC keeps beta_cubic = 0.7 of its window.
#[test]
fn ack_loss_reaction_wraps_cubic() {
    let mut doc = dumbbell(
        1,
        100,
        10.0,
        0.0,
        r#", reverse = { loss = { model = "bernoulli", p = 0.05, applies_to = "acks" } }"#,
    );
    doc.push_str("\n[tcp]\nrwnd = 40\n");
    doc.push_str(&flow(0, r#"{ name = "cubic", ack_loss_reaction = true }"#));
    let rec = run_scenario(&doc, None).expect("runs");
    assert_eq!(rec.flows[0].cc, "cubic");
    assert!(last_var(&rec, 0, "ack_loss_reductions").unwrap() >= 3.0);
    let ratio = last_var(&rec, 0, "ack_loss_last_ratio").unwrap();
    assert!((0.68..=0.7).contains(&ratio), "kept {ratio}");
    assert!(
        last_var(&rec, 0, "w_max").is_some(),
        "CUBIC's own variables still reported"
    );
}

/// Delayed ACKs and no ACK loss: nothing is inferred and nothing happens; with ACK loss the
/// stride-2 detection still reacts.
#[test]
fn ack_loss_reaction_with_delayed_acks() {
    let run = |ack_loss: &str| {
        let mut doc = dumbbell(1, 100, 15.0, 0.0, ack_loss);
        doc.push_str("\n[tcp]\nrwnd = 40\ndelayed_ack = true\n");
        doc.push_str(&flow(0, r#"{ name = "reno", ack_loss_reaction = true }"#));
        run_scenario(&doc, None).expect("runs")
    };
    let clean = run("");
    assert!(clean.flows[0].acks_sent * 3 < clean.flows[0].segments_sent * 2);
    assert_eq!(last_var(&clean, 0, "ack_losses_inferred"), Some(0.0));
    assert_eq!(last_var(&clean, 0, "ack_loss_reductions"), Some(0.0));
    let lossy =
        run(r#", reverse = { loss = { model = "bernoulli", p = 0.1, applies_to = "acks" } }"#);
    assert!(last_var(&lossy, 0, "ack_loss_reductions").unwrap() >= 3.0);
    let inferred = last_var(&lossy, 0, "ack_losses_inferred").unwrap();
    let dropped = lossy.flows[0].ack_drops.0.iter().sum::<u64>() as f64;
    eprintln!(
        "delayed ACKs, 10% ACK loss: {} reductions, {inferred} inferred of {dropped} dropped",
        last_var(&lossy, 0, "ack_loss_reductions").unwrap()
    );
    assert!(
        inferred > 0.5 * dropped && inferred <= dropped,
        "{inferred} inferred of {dropped} dropped"
    );
}

/// Every algorithm of the issue runs two flows over the dumbbell, keeps the link busy and
/// accounts for every packet (the engine's conservation check runs at the end). The floor
/// is 75%: without SACK, NewReno's RFC 6582 "impatient" timer turns the multi-loss windows
/// of the most aggressive growth rules (Scalable) into timeouts and go-back-N.
#[test]
fn every_algorithm_fills_the_dumbbell() {
    for cc in ["fast", "ctcp", "areno", "highspeed", "scalable", "cubic"] {
        let mut doc = dumbbell(2, 100, 20.0, 5.0, "");
        doc.push_str(&flow(0, &format!("\"{cc}\"")));
        doc.push_str(&flow(1, &format!("\"{cc}\"")));
        let rec = run_scenario(&doc, None).unwrap_or_else(|e| panic!("{cc}: {e}"));
        assert_eq!(rec.flows[0].cc, cc);
        let u = bottleneck(&rec).utilization;
        eprintln!("{cc}: utilisation {u:.4}, Jain {:.3}", rec.jain_index());
        assert!(u > 0.75, "{cc}: utilisation {u}");
        assert!(rec.flows.iter().all(|f| f.bytes_delivered > 0), "{cc}");
    }
}

#[test]
fn bad_parameters_name_the_field() {
    let mut doc = dumbbell(1, 100, 1.0, 0.0, "");
    doc.push_str(&flow(0, r#"{ name = "fast", gamma = 2.0 }"#));
    let err = run_scenario(&doc, None).expect_err("gamma 2 rejected");
    let msg = err.to_string();
    assert!(
        msg.contains("flows[0].cc.gamma") && msg.contains("0.01 to 1"),
        "{msg}"
    );

    let mut doc = dumbbell(1, 100, 1.0, 0.0, "");
    doc.push_str(&flow(
        0,
        r#"{ name = "cubic", ack_loss_reaction = { ack_stride = 100 } }"#,
    ));
    let msg = run_scenario(&doc, None)
        .expect_err("stride 100 rejected")
        .to_string();
    assert!(
        msg.contains("flows[0].cc.ack_loss_reaction.ack_stride"),
        "{msg}"
    );

    let mut doc = dumbbell(1, 100, 1.0, 0.0, "");
    doc.push_str(&flow(0, r#"{ name = "ctcp", delta = 1 }"#));
    let msg = run_scenario(&doc, None)
        .expect_err("unknown key")
        .to_string();
    assert!(
        msg.contains("flows[0].cc") && msg.contains("delta"),
        "{msg}"
    );
}
