//! Scenario-level behaviour of the delay-based family (Vegas, Vegas-A, NewVegas, CODE,
//! Vegas+, Veno) against the claims of the source papers. The measured figures are
//! printed; run with `cargo test --test delay_based -- --nocapture` to see them.

use tcplab::{run_scenario, RunRecords};

/// A dumbbell with one flow per entry of `flows` (the flow table's lines after `src` and
/// `dst`); `extra` is appended to the bottleneck table (e.g. a loss model).
fn dumbbell(
    rate: &str,
    delay: &str,
    buffer: u32,
    extra: &str,
    sim: &str,
    flows: &[&str],
) -> String {
    let mut doc = format!(
        "[simulation]\n{sim}\n\
         [topology]\nkind = \"dumbbell\"\npairs = {}\n\
         bottleneck = {{ rate = \"{rate}\", delay = \"{delay}\", buffer = {buffer}{extra} }}\n",
        flows.len()
    );
    for (i, cc) in flows.iter().enumerate() {
        doc += &format!("[[flows]]\nsrc = \"s{i}\"\ndst = \"d{i}\"\n{cc}\n");
    }
    doc
}

fn run(doc: &str) -> RunRecords {
    run_scenario(doc, None).unwrap_or_else(|e| panic!("{e}\n{doc}"))
}

/// The forward bottleneck link r0 -> r1.
fn bottleneck(rec: &RunRecords) -> &tcplab::record::LinkRecord {
    rec.links
        .iter()
        .find(|l| l.name == "r0->r1")
        .expect("dumbbell bottleneck")
}

/// 000 section 2.2 / 002 section 2: a lone Vegas flow keeps between alpha and beta of
/// its own packets queued and, once out of slow start, loses nothing.
#[test]
fn lone_vegas_keeps_alpha_to_beta_packets_queued_without_loss() {
    let doc = dumbbell(
        "10Mbps",
        "23ms",
        100,
        "",
        "duration = 40\nmeasure = [15, 40]",
        &["cc = { name = \"vegas\", alpha = 1, beta = 3 }"],
    );
    let rec = run(&doc);
    let link = bottleneck(&rec);
    let fs = &rec.flow_series;
    let ss_end = fs
        .time
        .iter()
        .zip(&fs.ssthresh)
        .find(|(_, s)| **s < 1e8)
        .map(|(t, _)| *t)
        .expect("Vegas leaves slow start");
    let q = &rec.queue_series;
    let settled: Vec<u32> = (0..q.time.len())
        .filter(|&i| q.time[i] >= 15.0 && q.link[i] == link.id)
        .map(|i| q.packets[i])
        .collect();
    println!(
        "lone Vegas: slow start ends by {ss_end:.1} s; queue over 15-40 s mean {:.2}, \
         samples {}..{} packets; utilisation {:.4}; drops {}; loss responses {}",
        link.mean_queue,
        settled.iter().min().unwrap(),
        settled.iter().max().unwrap(),
        link.utilization,
        rec.flows[0].data_drops.total(),
        rec.losses.time.len()
    );
    assert!(
        (1.0..=3.0).contains(&link.mean_queue),
        "mean queue {} outside [alpha, beta]",
        link.mean_queue
    );
    assert!(
        rec.losses.time.iter().all(|t| *t <= ss_end),
        "losses after slow start: {:?}",
        rec.losses.time
    );
    assert!(
        link.utilization > 0.99,
        "Vegas fills the pipe: {}",
        link.utilization
    );
}

/// 000 table 2: ten Vegas flows starting together share the bottleneck fairly.
#[test]
fn ten_vegas_flows_share_fairly() {
    let flows = ["cc = \"vegas\""; 10];
    let doc = dumbbell(
        "10Mbps",
        "23ms",
        100,
        "",
        "duration = 40\nmeasure = [15, 40]",
        &flows,
    );
    let rec = run(&doc);
    let goodputs: Vec<f64> = rec.flows.iter().map(|f| f.goodput_bps / 1e6).collect();
    let jain = rec.jain_index();
    println!("ten Vegas flows: goodput Mb/s {goodputs:.3?}, Jain index {jain:.4}");
    assert!(jain >= 0.95, "Jain index {jain}");
    assert!(bottleneck(&rec).utilization > 0.99);
}

/// 000 section 4.1 / fig. 9 and 003 section 5: one Reno against one delay-based flow
/// through a 100-packet DropTail buffer. Reno takes well over half against Vegas; the
/// adaptive variants each take more than Vegas does (000 fig. 9; Vegas+: 003 fig. 9).
#[test]
fn reno_beats_vegas_and_the_adaptive_variants_take_more() {
    let share = |cc: &str| {
        let doc = dumbbell(
            "10Mbps",
            "23ms",
            100,
            "",
            "duration = 100\nmeasure = [30, 100]",
            &["cc = \"reno\"", &format!("cc = \"{cc}\"")],
        );
        let rec = run(&doc);
        let (reno, other) = (rec.flows[0].goodput_bps, rec.flows[1].goodput_bps);
        println!(
            "reno vs {cc:>10}: {:.3} / {:.3} Mb/s, ratio {cc}/reno {:.3}, {cc} share {:.3}; \
             {cc} retransmissions {} (timeouts {})",
            reno / 1e6,
            other / 1e6,
            other / reno,
            other / (reno + other),
            rec.flows[1].retransmissions,
            rec.flows[1].timeouts,
        );
        // 000 section 2.2.3 / 002 section 3: the fine-grained checks repair Vegas's
        // losses (several per window here) without waiting for a coarse timeout.
        let f = &rec.flows[1];
        if f.data_drops.total() > 0 {
            assert!(
                f.early_retransmits > 0,
                "{cc}: no fine-grained retransmission"
            );
            assert_eq!(
                f.timeouts, 0,
                "{cc}: coarse timeouts despite fine-grained checks"
            );
        }
        other / (reno + other)
    };
    let vegas = share("vegas");
    assert!(
        vegas < 0.25,
        "Reno should take well over half: Vegas share {vegas}"
    );
    for cc in ["vegas_a", "newvegas", "code", "vegas_plus"] {
        let s = share(cc);
        assert!(
            s > vegas,
            "{cc} share {s} does not improve on Vegas's {vegas}"
        );
    }
}

/// 001 fig. 5 set-up: one flow, 1.6 Mb/s both ways, 12-packet buffers, 120 ms round-trip
/// propagation, 1 % random loss of data packets, MSS 1460 B, a 32 MB file. Veno's
/// throughput exceeds Reno's, and every fast retransmit carries Veno's classification
/// beside the true cause of the loss (001 table I).
#[test]
fn veno_beats_reno_under_random_loss_and_classifies_its_losses() {
    let transfer = |cc: &str| {
        let doc = dumbbell(
            "1.6Mbps",
            "58ms",
            12,
            ", loss = { model = \"bernoulli\", p = 0.01 }",
            "duration = 1000",
            &[&format!(
                "cc = \"{cc}\"\nbytes = 32000000\ntcp = {{ mss = 1460 }}"
            )],
        );
        let rec = run(&doc);
        let secs = rec.flows[0].completion_time.expect("the file arrives");
        let f = &rec.flows[0];
        println!(
            "{cc}: 32 MB in {secs:.1} s = {:.1} kB/s; fast retransmits {}, timeouts {}, \
             retransmitted packets {}",
            32e6 / secs / 1e3,
            f.fast_retransmits,
            f.timeouts,
            f.retransmissions
        );
        (32e6 / secs, rec)
    };
    let (veno, rec) = transfer("veno");
    let (reno, _) = transfer("reno");
    println!("Veno / Reno throughput: {:.2}", veno / reno);
    assert!(veno > reno, "Veno {veno} B/s vs Reno {reno} B/s");

    // 001 table I: fast retransmits by Veno's branch and by the true cause.
    let l = &rec.losses;
    let mut table = std::collections::BTreeMap::new();
    for i in 0..l.time.len() {
        if l.kind[i] == "fast_retransmit" {
            assert!(
                l.cc_label[i] == "random" || l.cc_label[i] == "congestive",
                "every fast retransmit is classified: {:?}",
                l.cc_label[i]
            );
            assert!(l.cc_value[i] >= 0.0, "N is recorded");
            *table
                .entry((l.cc_label[i], l.true_cause[i]))
                .or_insert(0u32) += 1;
        }
    }
    println!("Veno fast retransmits (branch, true cause): {table:?}");
    let count = |label, cause| table.get(&(label, cause)).copied().unwrap_or(0);
    let said_random: u32 = table
        .iter()
        .filter(|(k, _)| k.0 == "random")
        .map(|(_, v)| v)
        .sum();
    assert!(
        said_random > 0,
        "with 1 % random loss some losses look random"
    );
    let right = count("random", "random_loss");
    assert!(
        right as f64 >= 0.9 * said_random as f64,
        "001 section III-A: losses taken as random mostly are ({right} of {said_random})"
    );
}
