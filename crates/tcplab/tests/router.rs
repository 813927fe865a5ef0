//! Router queues, impairments, background traffic and pcap traces at scenario level
//! (issue 4). Each test prints the figures it checks (`cargo test -- --nocapture`).

use std::path::PathBuf;
use std::process::Command;
use tcplab::net::DropCause;
use tcplab::{run_scenario, run_scenario_with_output, RunError, RunRecords};

fn run(doc: &str) -> RunRecords {
    run_scenario(doc, None).unwrap_or_else(|e| panic!("{e}\n{doc}"))
}

fn config_error(doc: &str) -> String {
    match run_scenario(doc, None) {
        Err(RunError::Config(e)) => e.to_string(),
        Err(e) => panic!("expected a scenario error, got {e}"),
        Ok(_) => panic!("expected a scenario error for\n{doc}"),
    }
}

/// Every document fails validation with an error that mentions its expected text.
fn assert_config_errors(cases: &[(String, &str)]) {
    for (doc, expected) in cases {
        let e = config_error(doc);
        println!("{e}");
        assert!(e.contains(expected), "{e:?} should mention {expected:?}");
    }
}

/// A fresh, empty directory for one test's output files.
fn out_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tcplab-router-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Values of one queue variable of one link, from the sampled series (after `from` s).
fn queue_var(rec: &RunRecords, link: &str, name: &str, from: f64) -> Vec<f64> {
    let id = rec.links.iter().find(|l| l.name == link).unwrap().id;
    let v = &rec.queue_vars;
    (0..v.time.len())
        .filter(|&i| v.link[i] == id && v.name[i] == name && v.time[i] >= from)
        .map(|i| v.value[i])
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

// ---------------------------------------------------------------- RED

/// The 003 star (bw 10 Mb/s, 1.5 ms; BW 1.5 Mb/s, 5 ms) with `n` Reno senders and the
/// given bottleneck queue.
fn star_reno(n: u32, queue: &str, duration: f64) -> String {
    format!(
        r#"
[simulation]
duration = {duration}
sample_interval = 0.05
[topology]
kind = "star"
senders = {n}
bottleneck = {{ rate = "1.5Mbps", delay = "5ms", buffer = 100, queue = {queue} }}
access = {{ rate = "10Mbps", delay = "1.5ms", buffer = 1000 }}
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
count = 1
{more}
"#,
        more = (1..n)
            .map(|i| format!(
                "[[flows]]\nsrc = \"s{i}\"\ndst = \"d0\"\ncc = \"reno\"\nstart = {}\n",
                i as f64 * 0.3
            ))
            .collect::<String>()
    )
}

#[test]
fn red_early_drops_keep_the_average_between_the_thresholds() {
    let rec = run(&star_reno(
        4,
        r#"{ kind = "red", min_th = 5, max_th = 60 }"#,
        60.0,
    ));
    let link = rec.links.iter().find(|l| l.name == "r0->d0").unwrap();
    let early = link.drops.get(DropCause::AqmEarly);
    let avg = queue_var(&rec, "r0->d0", "avg", 20.0);
    let id = link.id;
    let q = &rec.queue_series;
    let inst: Vec<f64> = (0..q.time.len())
        .filter(|&i| q.link[i] == id && q.time[i] >= 20.0)
        .map(|i| q.packets[i] as f64)
        .collect();
    println!(
        "RED: early drops {early}, overflow {}, mean avg {:.2}, mean queue {:.2}, utilisation {:.3}",
        link.drops.get(DropCause::BufferOverflow),
        mean(&avg),
        mean(&inst),
        link.utilization
    );
    assert!(early > 0);
    assert_eq!(
        rec.flows
            .iter()
            .map(|f| f.data_drops.get(DropCause::AqmEarly))
            .sum::<u64>(),
        early
    );
    // RED regulates the average above min_th and below max_th.
    assert!(
        mean(&avg) > 5.0 && mean(&avg) < 60.0,
        "mean avg {}",
        mean(&avg)
    );
    // The average is a low-pass of the queue: the same level, far smaller swings.
    assert!((mean(&avg) - mean(&inst)).abs() < 0.25 * mean(&inst));
    let sd =
        |v: &[f64]| (v.iter().map(|x| (x - mean(v)).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
    assert!(
        sd(&avg) < 0.5 * sd(&inst),
        "sd avg {} vs queue {}",
        sd(&avg),
        sd(&inst)
    );
}

#[test]
fn constant_red_drops_the_same_fraction_of_every_flow() {
    let rec = run(&star_reno(4, r#"{ kind = "red_const", p = 0.0333 }"#, 60.0));
    let fractions: Vec<f64> = rec
        .flows
        .iter()
        .map(|f| f.data_drops.get(DropCause::AqmEarly) as f64 / f.segments_sent as f64)
        .collect();
    println!("RED const p = 1/30: per-flow early-drop fractions {fractions:?}");
    let p = 0.0333;
    for (f, flow) in fractions.iter().zip(&rec.flows) {
        // Arrivals while the average is below min_th are spared, so the expectation is
        // at most p; allow four binomial standard deviations above it.
        let sigma = (p * (1.0 - p) / flow.segments_sent as f64).sqrt();
        assert!(*f > 0.5 * p && *f < p + 4.0 * sigma, "{f}");
    }
}

// ---------------------------------------------------------------- SRED / ZL-RED

/// `n` CBR flows of equal rate into one SRED or ZL-RED bottleneck; mean 1/P(t) over
/// 8-20 s (the list fills with the first 1000 arrivals, under a second, and the
/// estimate's time constant is M/p = 4000 arrivals, about 3.5 s).
fn flows_estimate(n: u32, kind: &str) -> f64 {
    let doc = format!(
        r#"
[simulation]
duration = 20
sample_interval = 0.1
[topology]
kind = "star"
senders = {n}
bottleneck = {{ rate = "10Mbps", delay = "5ms", buffer = 100, queue = {{ kind = "{kind}" }} }}
access = {{ rate = "100Mbps", delay = "1ms" }}
{flows}
"#,
        flows = (0..n)
            .map(|i| format!(
                "[[flows]]\nkind = \"cbr\"\nsrc = \"s{i}\"\ndst = \"d0\"\nrate = {}\n",
                9e6 / n as f64
            ))
            .collect::<String>()
    );
    let rec = run(&doc);
    mean(&queue_var(&rec, "r0->d0", "flows_estimate", 8.0))
}

#[test]
fn sred_inverse_hit_frequency_settles_near_the_number_of_flows() {
    for n in [2u32, 5, 10] {
        for kind in ["sred", "zl_red"] {
            let est = flows_estimate(n, kind);
            println!("{kind}: {n} equal-rate flows, mean 1/P(t) over 8-20 s = {est:.2}");
            assert!((est - n as f64).abs() < 0.1 * n as f64, "{kind} {n}: {est}");
        }
    }
}

/// Two Reno flows and two flows of `other_cc` (with receiver window `other_rwnd`, if
/// any) share the 003 bottleneck with the given queue. Returns the fractions of Reno's
/// and of the other flows' packets that the queue dropped, and the second-step drops.
fn reno_mix_drop_fractions(
    queue: &str,
    other_cc: &str,
    other_rwnd: Option<u32>,
) -> (f64, f64, u64) {
    let tcp = other_rwnd.map_or(String::new(), |w| format!("tcp = {{ rwnd = {w} }}"));
    let doc = format!(
        r#"
[simulation]
duration = 100
sample_interval = 0
[topology]
kind = "star"
senders = 4
bottleneck = {{ rate = "1.5Mbps", delay = "5ms", buffer = 100, queue = {queue} }}
access = {{ rate = "10Mbps", delay = "1.5ms", buffer = 1000 }}
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
[[flows]]
src = "s1"
dst = "d0"
cc = "reno"
[[flows]]
src = "s2"
dst = "d0"
cc = "{other_cc}"
{tcp}
[[flows]]
src = "s3"
dst = "d0"
cc = "{other_cc}"
{tcp}
"#
    );
    let rec = run(&doc);
    let frac = |flows: &[tcplab::record::FlowRecord]| {
        let dropped: u64 = flows
            .iter()
            .map(|f| {
                f.data_drops.get(DropCause::AqmEarly) + f.data_drops.get(DropCause::ZlRedSecondStep)
            })
            .sum();
        dropped as f64 / flows.iter().map(|f| f.segments_sent).sum::<u64>() as f64
    };
    let second = rec
        .links
        .iter()
        .map(|l| l.drops.get(DropCause::ZlRedSecondStep))
        .sum();
    (frac(&rec.flows[..2]), frac(&rec.flows[2..]), second)
}

/// 003 section 6: ZL-RED drops a larger fraction of Reno's packets than of a flow that
/// keeps few packets queued. Vegas is that flow in the paper; until Vegas is merged a
/// Reno flow whose receiver window (5 packets, about the path's pipe plus 3) caps it
/// stands in. To run the paper's mix, call `zl_red_punishes_reno_against("vegas", None)`.
fn zl_red_punishes_reno_against(other_cc: &str, other_rwnd: Option<u32>) {
    let (reno, other, second) =
        reno_mix_drop_fractions(r#"{ kind = "zl_red" }"#, other_cc, other_rwnd);
    let (reno_c, other_c, _) = reno_mix_drop_fractions(
        r#"{ kind = "red_const", p = 0.0333, min_th = 5 }"#,
        other_cc,
        other_rwnd,
    );
    println!(
        "ZL-RED: Reno drop fraction {reno:.4}, {other_cc} (rwnd {other_rwnd:?}) {other:.4}, second-step drops {second}; \
         constant RED: {reno_c:.4} vs {other_c:.4}"
    );
    assert!(second > 0, "the second step dropped something");
    assert!(reno > other, "ZL-RED: Reno {reno} vs {other}");
    // The zombie list makes the difference: constant-p RED drops both kinds alike, so
    // ZL-RED's ratio must be the larger.
    assert!(
        reno / other > reno_c / other_c,
        "ratios: ZL-RED {} vs constant RED {}",
        reno / other,
        reno_c / other_c
    );
}

#[test]
fn zl_red_drops_more_of_reno_than_of_a_flow_with_few_packets_queued() {
    zl_red_punishes_reno_against("vegas", None);
}

// ---------------------------------------------------------------- split buffer

#[test]
fn split_buffer_holds_data_and_acks_apart() {
    // Flows in both directions over one bottleneck: r0->r1 carries s0's data and the
    // ACKs of the reverse flow (d0 -> s0 direction flows start at d0).
    let doc = r#"
[simulation]
duration = 30
sample_interval = 0.01
[topology]
kind = "dumbbell"
pairs = 2
bottleneck = { rate = "2Mbps", delay = "10ms", buffer = 20, queue = { kind = "split", data = 12, acks = 4 } }
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
[[flows]]
src = "d1"
dst = "s1"
cc = "reno"
"#;
    let rec = run(doc);
    let data = queue_var(&rec, "r0->r1", "data_len", 0.0);
    let acks = queue_var(&rec, "r0->r1", "ack_len", 0.0);
    let max = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
    let link = rec.links.iter().find(|l| l.name == "r0->r1").unwrap();
    println!(
        "split 12/4: max data {} max acks {} max total {}, overflow drops {} (reverse flow's ACK drops {})",
        max(&data),
        max(&acks),
        link.max_queue,
        link.drops.get(DropCause::BufferOverflow),
        rec.flows[1].ack_drops.get(DropCause::BufferOverflow)
    );
    assert_eq!(link.queue, "split");
    assert!(max(&data) <= 12.0 && max(&data) >= 10.0);
    assert!(max(&acks) <= 4.0 && max(&acks) >= 1.0);
    assert!(link.max_queue <= 16);
}

/// Two Linux-profile flows that start together on one sender: through a round-robin
/// access link their first flights reach the receiver one GSO packet (two segments) per
/// turn, as the test bed's sender sends them; through a FIFO one whole flight after the other.
fn first_flight_order(access_queue: &str) -> Vec<u32> {
    let rec = run(&format!(
        r#"
[simulation]
duration = 0.1
sample_interval = 0
event_log = true
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ rate = "10Mbps", delay = "18ms", buffer = 47 }}
access = {{ rate = "1Gbps", delay = "1ms"{access_queue} }}
[tcp]
stack = "linux"
mss = 1000
[[flows]]
src = "s0"
dst = "d0"
cc = "cubic"
[[flows]]
src = "s0"
dst = "d0"
cc = "cubic"
"#
    ));
    let ev = rec.events.expect("the event log");
    (0..ev.time.len())
        .filter(|&i| ev.event[i] == "recv" && ev.kind[i] == "data")
        .map(|i| ev.flow[i])
        .take(20)
        .collect()
}

#[test]
fn a_round_robin_sender_interleaves_flights_by_gso_packet() {
    let turns = first_flight_order(r#", queue = { kind = "round_robin" }"#);
    println!("round robin: {turns:?}");
    let pairs: Vec<u32> = (0..20).map(|i| (i / 2) % 2).collect();
    assert_eq!(turns, pairs);
    let fifo = first_flight_order("");
    println!("fifo: {fifo:?}");
    let blocks: Vec<u32> = (0..20).map(|i| i / 10).collect();
    assert_eq!(fifo, blocks);
}

// ---------------------------------------------------------------- loss

fn cbr_over_lossy_link(loss: &str) -> RunRecords {
    run(&format!(
        r#"
[simulation]
duration = 200
sample_interval = 0
event_log = true
[topology]
kind = "custom"
nodes = ["a", "b"]
links = [{{ between = ["a", "b"], rate = "10Mbps", delay = "1ms", loss = {loss} }}]
[[flows]]
kind = "cbr"
src = "a"
dst = "b"
rate = "4Mbps"
packet_size = 500
"#
    ))
}

#[test]
fn gilbert_elliott_link_loss_matches_mean_loss_and_burst_length() {
    let (loss, burst) = (0.02, 4.0);
    let rec = cbr_over_lossy_link(&format!(
        r#"{{ model = "gilbert_elliott", mean_loss = {loss}, mean_burst = {burst} }}"#
    ));
    let ev = rec.events.as_ref().unwrap();
    let mut lost: Vec<u32> = (0..ev.time.len())
        .filter(|&i| ev.event[i] == "drop")
        .map(|i| ev.seq[i])
        .collect();
    lost.sort_unstable();
    let bursts = 1 + lost.windows(2).filter(|w| w[1] != w[0] + 1).count();
    let u = &rec.udp_flows[0];
    let measured_loss = u.drops.get(DropCause::RandomLoss) as f64 / u.datagrams_sent as f64;
    let measured_burst = lost.len() as f64 / bursts as f64;
    println!(
        "Gilbert-Elliott over {} datagrams: loss {measured_loss:.5} (set {loss}), mean burst {measured_burst:.3} (set {burst})",
        u.datagrams_sent
    );
    assert!((measured_loss - loss).abs() < 0.05 * loss);
    assert!((measured_burst - burst).abs() < 0.05 * burst);
}

#[test]
fn loss_can_target_acks_only() {
    let doc = r#"
[simulation]
duration = 20
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { rate = "2Mbps", delay = "10ms", buffer = 50, reverse = { loss = { model = "gilbert_elliott", p = 0.01, r = 0.3, applies_to = "acks" } } }
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
"#;
    let f = &run(doc).flows[0];
    println!(
        "ACK-only loss: ack drops {:?}, data drops {:?}",
        f.ack_drops, f.data_drops
    );
    assert!(f.ack_drops.get(DropCause::RandomLoss) > 0);
    assert_eq!(f.data_drops.get(DropCause::RandomLoss), 0);
}

#[test]
fn directions_have_their_own_rates_and_buffers() {
    let doc = r#"
[simulation]
duration = 20
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { rate = "4Mbps", delay = "10ms", buffer = 40, reverse = { rate = "64kbps", buffer = 5 } }
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
"#;
    let rec = run(doc);
    let fwd = rec.links.iter().find(|l| l.name == "r0->r1").unwrap();
    let rev = rec.links.iter().find(|l| l.name == "r1->r0").unwrap();
    println!(
        "forward {} b/s max queue {}; reverse {} b/s max queue {}, ACK overflow drops {}",
        fwd.rate_bps,
        fwd.max_queue,
        rev.rate_bps,
        rev.max_queue,
        rev.drops.get(DropCause::BufferOverflow)
    );
    assert_eq!((fwd.rate_bps, rev.rate_bps), (4e6, 64e3));
    assert!(rev.max_queue <= 5 && rev.drops.get(DropCause::BufferOverflow) > 0);
    // 64 kb/s carries 200 40-byte ACKs/s against up to 480 segments/s: the reverse
    // direction is the saturated one (cumulative ACKs still clock the sender).
    assert!(rev.utilization > 0.9 && fwd.utilization < rev.utilization);
}

// ---------------------------------------------------------------- traffic

#[test]
fn cbr_delivers_exactly_its_rate_when_unconstrained() {
    for (rate, size) in [(1e6, 1000u32), (2.5e6, 576), (64e3, 200)] {
        let doc = format!(
            r#"
[simulation]
duration = 10
measure = [2, 10]
[topology]
kind = "custom"
nodes = ["a", "b", "c"]
links = [{{ between = ["a", "b"], rate = "10Mbps", delay = "3ms" }}, {{ between = ["b", "c"], rate = "100Mbps", delay = "1ms" }}]
[[flows]]
kind = "cbr"
src = "a"
dst = "c"
rate = {rate}
packet_size = {size}
"#
        );
        let rec = run(&doc);
        let u = &rec.udp_flows[0];
        let one_packet = size as f64 * 8.0 / 8.0; // one datagram over the 8-s window
        println!(
            "CBR {rate} b/s x {size} B: throughput {:.1} b/s, sent {}, received {}",
            u.throughput_bps, u.datagrams_sent, u.datagrams_received
        );
        assert!(
            (u.throughput_bps - rate).abs() <= one_packet,
            "{}",
            u.throughput_bps
        );
        assert_eq!(u.drops.total(), 0);
        // Sent at t = 0, T, 2T, ... up to the end of the run, inclusive.
        let expected = (10.0 * rate / (size as f64 * 8.0)).floor() as u64 + 1;
        assert_eq!(u.datagrams_sent, expected);
    }
}

#[test]
fn on_off_schedules_start_and_stop_on_time() {
    let doc = r#"
[simulation]
duration = 10
event_log = true
[topology]
kind = "dumbbell"
pairs = 2
bottleneck = { rate = "10Mbps", delay = "5ms", buffer = 100 }
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
schedule = [[1, 3], [5.5, 7]]
[[flows]]
kind = "cbr"
src = "s1"
dst = "d1"
rate = "1Mbps"
packet_size = 1000
schedule = [[2, 4], [6, 6.5]]
"#;
    let rec = run(doc);
    let ev = rec.events.as_ref().unwrap();
    let sends = |flow: u32, new_only: bool| -> Vec<f64> {
        (0..ev.time.len())
            .filter(|&i| ev.event[i] == "send" && ev.flow[i] == flow && ev.kind[i] != "ack")
            .filter(|&i| !(new_only && ev.retransmit[i]))
            .map(|i| ev.time[i])
            .collect()
    };
    let within = |t: f64, periods: &[(f64, f64)]| periods.iter().any(|&(a, b)| t >= a && t <= b);
    let tcp = sends(0, true);
    let cbr = sends(1, false);
    println!(
        "TCP: first send {:.6}, sends {}, first after 3 s {:?}; CBR: {} datagrams, first {:.6}, last {:.6}",
        tcp[0],
        tcp.len(),
        tcp.iter().find(|&&t| t > 3.0),
        cbr.len(),
        cbr[0],
        cbr[cbr.len() - 1]
    );
    // TCP: new data only while on; the first segment of each period leaves on time.
    assert!(tcp.iter().all(|&t| within(t, &[(1.0, 3.0), (5.5, 7.0)])));
    assert_eq!(tcp[0], 1.0);
    assert_eq!(tcp.iter().find(|&&t| t > 3.0), Some(&5.5));
    // CBR: 125 datagrams/s exactly in [2, 4) and [6, 6.5).
    assert!(cbr.iter().all(|&t| within(t, &[(2.0, 4.0), (6.0, 6.5)])));
    assert_eq!(cbr[0], 2.0);
    assert_eq!(cbr.iter().filter(|&&t| t < 5.0).count(), 250);
    assert_eq!(cbr.iter().filter(|&&t| t > 5.0).count(), 62 + 1);
    assert_eq!(
        rec.udp_flows[0].id, 1,
        "UDP flows take ids after the TCP flows"
    );
}

#[test]
fn flows_can_start_at_random_times() {
    let doc = r#"
[simulation]
duration = 30
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { rate = "1Mbps", delay = "5ms", buffer = 100 }
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
count = 5
start = { uniform = [0, 25] }
[[flows]]
kind = "cbr"
src = "s0"
dst = "d0"
rate = "100kbps"
start = { uniform = [0, 25] }
"#;
    let a = run(doc);
    let b = run(doc);
    let starts: Vec<f64> = a
        .flows
        .iter()
        .map(|f| f.start)
        .chain(a.udp_flows.iter().map(|u| u.start))
        .collect();
    println!("random starts: {starts:?}");
    assert!(starts.iter().all(|&s| (0.0..=25.0).contains(&s)));
    let mut distinct = starts.clone();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    assert_eq!(distinct.len(), 6);
    // Records hold NaN (no RTT sample, no algorithm tag), so compare their text.
    assert_eq!(
        format!("{a:?}"),
        format!("{b:?}"),
        "the same seed gives the same run"
    );
}

// ---------------------------------------------------------------- pcap

/// A Reno transfer over a lossy, small-buffered bottleneck, tapped at the sender.
const PCAP_RENO: &str = r#"
[simulation]
duration = 30
[[simulation.pcap]]
link = "s0->r0"
file = "data.pcap"
snaplen = 65535
[[simulation.pcap]]
link = "r0->s0"
file = "acks/acks.pcap"
[[simulation.pcap]]
link = "r1->d1"
file = "cbr.pcap"
at = "exit"
snaplen = 65535
[topology]
kind = "dumbbell"
pairs = 2
bottleneck = { rate = "1.5Mbps", delay = "10ms", buffer = 15, loss = { model = "bernoulli", p = 0.01 } }
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
bytes = 1500000
[[flows]]
kind = "cbr"
src = "s1"
dst = "d1"
rate = "200kbps"
packet_size = 500
"#;

fn tshark(args: &[&str]) -> String {
    let out = Command::new("tshark")
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "tshark is needed for this test and could not run ({e}); install it with \
             `apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y tshark`"
            )
        });
    assert!(
        out.status.success(),
        "tshark {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn count_lines(s: &str) -> usize {
    s.lines().filter(|l| !l.trim().is_empty()).count()
}

#[test]
fn tshark_reads_the_pcap_and_counts_the_same_retransmissions() {
    let dir = out_dir("pcap");
    let rec = run_scenario_with_output(PCAP_RENO, None, &dir).unwrap();
    let f = &rec.flows[0];
    assert!(
        f.retransmissions > 10,
        "the scenario exercises loss recovery"
    );
    let file = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let data = file("data.pcap");

    // One pass over the data: checksums, absolute sequence numbers and Wireshark's TCP
    // analysis, which flags every retransmitted segment (as a retransmission, a fast or
    // spurious one, or, if soon after the previous segment, out of order).
    let fields = tshark(&[
        "-r",
        &data,
        "-o",
        "tcp.check_checksum:TRUE",
        "-o",
        "ip.check_checksum:TRUE",
        "-o",
        "tcp.relative_sequence_numbers:FALSE",
        "-T",
        "fields",
        "-e",
        "ip.checksum.status",
        "-e",
        "tcp.checksum.status",
        "-e",
        "_ws.malformed",
        "-e",
        "tcp.seq",
        "-e",
        "tcp.analysis.retransmission",
        "-e",
        "tcp.analysis.fast_retransmission",
        "-e",
        "tcp.analysis.spurious_retransmission",
        "-e",
        "tcp.analysis.out_of_order",
    ]);
    let rows: Vec<Vec<&str>> = fields.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len() as u64, f.segments_sent, "every packet is read");
    for r in &rows {
        // 1 = good checksum; no malformed-packet marker.
        assert_eq!(&r[..3], ["1", "1", ""], "{r:?}");
    }
    let flagged = rows.iter().filter(|r| r[4..].contains(&"1")).count();
    println!(
        "pcap: {} data packets read by tshark, {flagged} flagged as retransmitted; tcplab counts {}",
        rows.len(),
        f.retransmissions
    );
    assert_eq!(flagged as u64, f.retransmissions);

    // The final ACK acknowledges exactly the transfer: ISN + 1 + 1500000 bytes. The
    // tapped link (r0->s0, the sender's access link) drops nothing.
    let acks = tshark(&[
        "-r",
        &file("acks/acks.pcap"),
        "-o",
        "tcp.relative_sequence_numbers:FALSE",
        "-T",
        "fields",
        "-e",
        "tcp.ack",
    ]);
    let first_seq: u64 = rows[0][3].parse().unwrap();
    let last_ack: u64 = acks.lines().last().unwrap().trim().parse().unwrap();
    assert_eq!((last_ack + (1 << 32) - first_seq) % (1 << 32), 1_500_000);
    assert_eq!(count_lines(&acks) as u64, f.acks_received);

    // UDP at the far end: every datagram that arrived, with a good checksum.
    let udp = tshark(&[
        "-r",
        &file("cbr.pcap"),
        "-o",
        "udp.check_checksum:TRUE",
        "-T",
        "fields",
        "-e",
        "udp.checksum.status",
        "-e",
        "udp.length",
    ]);
    assert_eq!(
        count_lines(&udp) as u64,
        rec.udp_flows[0].datagrams_received
    );
    assert!(
        udp.lines().all(|l| l.trim_end() == "1\t480"),
        "{:?}",
        udp.lines().next()
    );

    let written: Vec<(&str, u64)> = rec
        .traces
        .iter()
        .map(|t| (t.file.as_str(), t.packets))
        .collect();
    assert_eq!(written[0], ("data.pcap", f.segments_sent));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `PCAP_RENO` with `[tcp] stack = stack`, its pcaps into a directory named after the
/// test; returns the directory and the records.
fn pcap_reno_with_stack(test: &str, stack: &str) -> (PathBuf, RunRecords) {
    let dir = out_dir(&format!("{test}_{stack}"));
    let text = PCAP_RENO.replace(
        "[topology]",
        &format!("[tcp]\nstack = \"{stack}\"\n[topology]"),
    );
    let rec = run_scenario_with_output(&text, None, &dir).unwrap();
    (dir, rec)
}

/// The linux profile's sender marks the end of its ACK-triggered bursts and of the transfer
/// with PSH (`app_push = "burst"`), which tshark reads as the TCP flag; the ns2 profile's
/// segments carry none.
#[test]
fn tshark_reads_the_psh_flags_of_the_linux_profile() {
    let pushed_of = |stack: &str| {
        let (dir, rec) = pcap_reno_with_stack("pcap_psh", stack);
        let fields = tshark(&[
            "-r",
            &dir.join("data.pcap").to_string_lossy(),
            "-o",
            "tcp.relative_sequence_numbers:TRUE",
            "-T",
            "fields",
            "-e",
            "tcp.seq",
            "-e",
            "tcp.flags.push",
        ]);
        let _ = std::fs::remove_dir_all(&dir);
        let rows: Vec<(u64, bool)> = fields
            .lines()
            .map(|l| {
                let (seq, push) = l.split_once('\t').unwrap();
                (
                    seq.parse().unwrap(),
                    push.trim() == "1" || push.trim() == "True",
                )
            })
            .collect();
        assert_eq!(rows.len() as u64, rec.flows[0].segments_sent);
        rows
    };
    let linux = pushed_of("linux");
    let pushed = linux.iter().filter(|r| r.1).count();
    assert!(
        pushed > linux.len() / 5 && pushed < linux.len() * 3 / 4,
        "{pushed} of {} segments with PSH",
        linux.len()
    );
    let last = linux.iter().max_by_key(|r| r.0).unwrap();
    assert!(last.1, "the transfer's last segment carries PSH");
    assert!(pushed_of("ns2").iter().all(|r| !r.1));
}

/// One row of tshark's view of a TCP segment with its options.
struct WireSegment {
    frame_len: u64,
    hdr_len: u64,
    seq: u64,
    ack: u64,
    len: u64,
    ts: Option<(u64, u64)>,
    sack: Vec<(u64, u64)>,
    dsack: bool,
}

/// Every TCP segment of `file` as tshark decodes it, checksums and form checked.
fn wire_segments(file: &str) -> Vec<WireSegment> {
    let fields = tshark(&[
        "-r",
        file,
        "-o",
        "tcp.check_checksum:TRUE",
        "-o",
        "tcp.relative_sequence_numbers:FALSE",
        "-T",
        "fields",
        "-E",
        "aggregator=;",
        "-e",
        "tcp.checksum.status",
        "-e",
        "_ws.malformed",
        "-e",
        "frame.len",
        "-e",
        "tcp.hdr_len",
        "-e",
        "tcp.seq",
        "-e",
        "tcp.ack",
        "-e",
        "tcp.len",
        "-e",
        "tcp.options.timestamp.tsval",
        "-e",
        "tcp.options.timestamp.tsecr",
        "-e",
        "tcp.options.sack_le",
        "-e",
        "tcp.options.sack_re",
        "-e",
        "tcp.options.sack.dsack",
    ]);
    let num = |s: &str| s.trim().parse::<u64>().unwrap();
    let list = |s: &str| -> Vec<u64> { s.split(';').filter(|x| !x.is_empty()).map(num).collect() };
    fields
        .lines()
        .map(|l| {
            let r: Vec<&str> = l.split('\t').collect();
            assert_eq!(&r[..2], ["1", ""], "good checksum, not malformed: {l}");
            let ts = (!r[7].is_empty()).then(|| (num(r[7]), num(r[8])));
            let sack = list(r[9]).into_iter().zip(list(r[10])).collect();
            WireSegment {
                frame_len: num(r[2]),
                hdr_len: num(r[3]),
                seq: num(r[4]),
                ack: num(r[5]),
                len: num(r[6]),
                ts,
                sack,
                dsack: !r[11].trim().is_empty(),
            }
        })
        .collect()
}

/// The linux profile's segments carry RFC 7323 timestamps and its ACKs their SACK blocks,
/// in bytes, as tshark decodes them: every ACK echoes the TSval of a segment sent before it,
/// every block lies above the cumulative ACK (a D-SACK below it) and inside what was sent,
/// and the frames are as long as their options make them. The ns2 profile's segments carry
/// no options.
#[test]
fn tshark_reads_the_timestamps_and_sack_blocks_of_the_linux_profile() {
    let capture = |stack: &str| {
        let (dir, rec) = pcap_reno_with_stack("pcap_options", stack);
        let file = |name: &str| dir.join(name).to_string_lossy().into_owned();
        let (data, acks) = (
            wire_segments(&file("data.pcap")),
            wire_segments(&file("acks/acks.pcap")),
        );
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(data.len() as u64, rec.flows[0].segments_sent);
        assert_eq!(acks.len() as u64, rec.flows[0].acks_received);
        assert!(rec.flows[0].retransmissions > 10, "loss recovery happens");
        (data, acks)
    };
    let (data, acks) = capture("linux");
    assert!(data
        .iter()
        .all(|d| d.hdr_len == 32 && d.frame_len == 66 + d.len));
    let sent_tsvals: std::collections::BTreeSet<u64> =
        data.iter().map(|d| d.ts.expect("a data TSval").0).collect();
    let top = data.iter().map(|d| d.seq + d.len).max().unwrap();
    let (mut with_sack, mut dsacks) = (0, 0);
    for a in &acks {
        let (_, ecr) = a.ts.expect("every ACK carries timestamps");
        assert!(
            sent_tsvals.contains(&ecr),
            "TSecr {ecr} echoes a data TSval"
        );
        let blocks = a.sack.len() as u64;
        let options = 12 + if blocks > 0 { 4 + 8 * blocks } else { 0 };
        assert_eq!(a.hdr_len, 20 + options);
        assert_eq!(a.frame_len, 34 + a.hdr_len);
        for (i, &(le, re)) in a.sack.iter().enumerate() {
            assert!(
                le < re && re <= top,
                "block {le}-{re} of data sent (up to {top})"
            );
            if i == 0 && a.dsack {
                continue;
            }
            assert!(le > a.ack, "block {le}-{re} above the ACK {}", a.ack);
        }
        with_sack += usize::from(blocks > 0);
        dsacks += usize::from(a.dsack);
    }
    assert!(with_sack > 10, "{with_sack} ACKs with SACK blocks");
    println!(
        "{with_sack} of {} ACKs with SACK blocks, {dsacks} D-SACKs",
        acks.len()
    );
    // Each side's clock runs forward; a data segment echoes an ACK's TSval once one came.
    let ack_tsvals: std::collections::BTreeSet<u64> =
        acks.iter().map(|a| a.ts.unwrap().0).collect();
    assert!(acks
        .windows(2)
        .all(|w| w[0].ts.unwrap().0 <= w[1].ts.unwrap().0));
    assert!(data
        .iter()
        .all(|d| d.ts.unwrap().1 == 0 || ack_tsvals.contains(&d.ts.unwrap().1)));
    assert!(data.iter().filter(|d| d.ts.unwrap().1 != 0).count() > data.len() / 2);

    let (data, acks) = capture("ns2");
    assert!(data
        .iter()
        .chain(&acks)
        .all(|s| s.hdr_len == 20 && s.ts.is_none() && s.sack.is_empty()));
}

#[test]
fn pcap_needs_an_output_directory() {
    match run_scenario(PCAP_RENO, None) {
        Err(RunError::Output(msg)) => assert!(msg.contains("output directory"), "{msg}"),
        other => panic!("expected an output error, got {:?}", other.map(|_| ())),
    }
}

// ---------------------------------------------------------------- validation

/// A dumbbell whose bottleneck has the given extra settings.
fn with_link(settings: &str) -> String {
    format!(
        r#"
[simulation]
duration = 1
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ rate = "1Mbps", delay = "5ms", buffer = 10, {settings} }}
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
"#
    )
}

#[test]
fn bad_router_settings_are_named() {
    let cases = [
        (
            with_link(r#"queue = { kind = "red", min_th = 20, max_th = 15 }"#),
            "topology.bottleneck.queue.max_th",
        ),
        (
            with_link(r#"queue = { kind = "red", w_q = 0 }"#),
            "topology.bottleneck.queue.w_q",
        ),
        (
            with_link(r#"queue = { kind = "red", max_p = 1.5 }"#),
            "topology.bottleneck.queue.max_p",
        ),
        (
            with_link(r#"queue = { kind = "red", minth = 5 }"#),
            "unknown field `minth`",
        ),
        (
            with_link(r#"queue = { kind = "red_const" }"#),
            "missing field `p`",
        ),
        (
            with_link(r#"queue = { kind = "zl_red", min_th = 6 }"#),
            "topology.bottleneck.queue.max_th",
        ),
        (
            with_link(r#"queue = { kind = "sred", replace_p = -1 }"#),
            "topology.bottleneck.queue.replace_p",
        ),
        (
            with_link(r#"queue = { kind = "split", acks = 0 }"#),
            "topology.bottleneck.queue.acks",
        ),
        (
            with_link(r#"queue = { kind = "wfq" }"#),
            "topology.bottleneck.queue: unknown kind \"wfq\"",
        ),
        (
            with_link(r#"loss = { model = "gilbert_elliott", mean_loss = 0.9, mean_burst = 2 }"#),
            "topology.bottleneck.loss.mean_loss",
        ),
        (
            with_link(r#"loss = { model = "gilbert_elliott", p = 0.1 }"#),
            "topology.bottleneck.loss.r",
        ),
        (
            with_link(r#"loss = { model = "gilbert_elliott", p = 0.1, r = 0.5, mean_burst = 3 }"#),
            "either p and r",
        ),
    ];
    assert_config_errors(&cases);
}

#[test]
fn bad_traffic_and_trace_settings_are_named() {
    let base = |flow: &str, extra: &str| {
        format!(
            r#"
[simulation]
duration = 10
{extra}
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ rate = "1Mbps", delay = "5ms", buffer = 10 }}
[[flows]]
src = "s0"
dst = "d0"
{flow}
"#
        )
    };
    let pcap = |p: &str| format!("[[simulation.pcap]]\n{p}");
    let cases = [
        (base("kind = \"cbr\"", ""), "flows[0].rate"),
        (
            base("kind = \"cbr\"\nrate = 1000\ncc = \"reno\"", ""),
            "flows[0].cc",
        ),
        (
            base("kind = \"cbr\"\nrate = 1000\npacket_size = 20", ""),
            "flows[0].packet_size",
        ),
        (base("", ""), "flows[0].cc"),
        (base("cc = \"reno\"\nrate = 1000", ""), "flows[0].rate"),
        (
            base("cc = \"reno\"\nschedule = [[2, 1]]", ""),
            "flows[0].schedule[0]",
        ),
        (
            base("cc = \"reno\"\nschedule = [[1, 5], [4, 6]]", ""),
            "flows[0].schedule[1]",
        ),
        (
            base("cc = \"reno\"\nstart = 1\nschedule = [[2, 3]]", ""),
            "flows[0].start",
        ),
        (
            base(
                "cc = \"reno\"",
                &pcap("link = \"r0->r9\"\nfile = \"x.pcap\""),
            ),
            "simulation.pcap[0].link",
        ),
        (
            base(
                "cc = \"reno\"",
                &pcap("link = \"r0->r1\"\nfile = \"../x.pcap\""),
            ),
            "simulation.pcap[0].file",
        ),
        (
            base(
                "cc = \"reno\"",
                &pcap("link = \"r0->r1\"\nfile = \"/tmp/x.pcap\""),
            ),
            "simulation.pcap[0].file",
        ),
        (
            base(
                "cc = \"reno\"",
                &pcap("link = \"r0->r1\"\nfile = \"x.pcap\"\nat = \"middle\""),
            ),
            "unknown variant `middle`",
        ),
    ];
    assert_config_errors(&cases);
}

#[test]
fn new_settings_survive_the_canonical_document() {
    let doc = r#"
[simulation]
duration = 10
[[simulation.pcap]]
link = "r0->r1"
file = "b.pcap"
at = "exit"
resolution = "ns"
[topology]
kind = "dumbbell"
pairs = 2
bottleneck = { rate = "1Mbps", delay = "5ms", buffer = 50, queue = { kind = "zl_red", hit_drop = 0 }, loss = { model = "gilbert_elliott", mean_loss = 0.01, mean_burst = 2 }, reverse = { queue = { kind = "split", acks = 10 }, loss = { model = "gilbert_elliott", p = 0.01, r = 0.5, loss_bad = 0.5, applies_to = "acks" } } }
access = { rate = "10Mbps", delay = "1ms", queue = { kind = "red", gentle = true, mode = "bytes" } }
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
schedule = [[0, 4], [6, 8]]
[[flows]]
kind = "cbr"
src = "s1"
dst = "d1"
rate = "300kbps"
packet_size = 200
"#;
    let first = tcplab::parse_scenario(doc).unwrap();
    let again = tcplab::parse_scenario(&first.to_toml()).unwrap();
    assert_eq!(first, again);
    assert!(
        !first.to_toml().contains("kind = \"tcp\""),
        "TCP stays the implicit kind"
    );
}
