//! One BBR flow over a 10 Mb/s, 40 ms dumbbell with a buffer of one bandwidth-delay
//! product (33 packets of 1500 bytes), end to end (issue 18): it fills the pipe, keeps the
//! queue short in PROBE_BW where CUBIC fills the buffer, and dips into PROBE_RTT about
//! every 10 seconds.

use tcplab::record::RunRecords;
use tcplab::run_scenario;

const DURATION: f64 = 32.0;
const BUFFER: u32 = 33;

fn scenario(cc: &str, stack: &str) -> String {
    format!(
        r#"
[simulation]
duration = {DURATION}
measure = [2, {DURATION}]
sample_interval = 0.02

[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ rate = "10Mbps", delay = "18ms", buffer = {BUFFER} }}
access = {{ rate = "1Gbps", delay = "1ms", buffer = 1000 }}

[tcp]
stack = "{stack}"

[[flows]]
src = "s0"
dst = "d0"
cc = "{cc}"
"#
    )
}

fn run(cc: &str, stack: &str) -> RunRecords {
    run_scenario(&scenario(cc, stack), Some(1)).expect("scenario runs")
}

fn bottleneck_id(rec: &RunRecords) -> u32 {
    rec.links
        .iter()
        .find(|l| l.name == "r0->r1")
        .expect("bottleneck r0->r1")
        .id
}

/// (time, value) of one algorithm variable of flow 0.
fn var(rec: &RunRecords, name: &str) -> Vec<(f64, f64)> {
    let s = &rec.cc_series;
    (0..s.time.len())
        .filter(|&i| s.flow[i] == 0 && s.name[i] == name)
        .map(|i| (s.time[i], s.value[i]))
        .collect()
}

/// Bottleneck queue length at each sample time from `from` on.
fn queue(rec: &RunRecords, from: f64) -> Vec<(f64, u32)> {
    let id = bottleneck_id(rec);
    let q = &rec.queue_series;
    (0..q.time.len())
        .filter(|&i| q.link[i] == id && q.time[i] >= from)
        .map(|i| (q.time[i], q.packets[i]))
        .collect()
}

/// The (first, last) sample times of each run of samples in PROBE_RTT (mode 3).
fn probe_rtt_episodes(rec: &RunRecords) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut prev_in = false;
    for (t, mode) in var(rec, "mode") {
        let inside = mode == 3.0;
        match (prev_in, inside) {
            (false, true) => out.push((t, t)),
            (true, true) => out.last_mut().expect("episode open").1 = t,
            _ => {}
        }
        prev_in = inside;
    }
    out
}

fn mean_queue_in_probe_bw(rec: &RunRecords) -> f64 {
    let modes = var(rec, "mode");
    let q = queue(rec, 2.0);
    let in_probe_bw: Vec<f64> = q
        .iter()
        .filter(|(t, _)| modes.iter().any(|&(mt, m)| mt == *t && m == 2.0))
        .map(|&(_, p)| p as f64)
        .collect();
    assert!(in_probe_bw.len() > 1000, "samples in PROBE_BW");
    in_probe_bw.iter().sum::<f64>() / in_probe_bw.len() as f64
}

#[test]
fn one_bbr_flow_fills_the_pipe_with_a_short_queue() {
    for stack in ["linux", "ns2"] {
        let rec = run("bbr", stack);
        let util = rec.links[bottleneck_id(&rec) as usize].utilization;
        assert!(util > 0.9, "{stack}: utilisation {util}");
        let q = mean_queue_in_probe_bw(&rec);
        assert!(
            q < BUFFER as f64 / 4.0,
            "{stack}: mean queue in PROBE_BW {q} packets"
        );
    }
    // CUBIC on the same path keeps the buffer mostly full.
    let cubic = run("cubic", "linux");
    let cubic_q: Vec<f64> = queue(&cubic, 2.0).iter().map(|&(_, p)| p as f64).collect();
    let cubic_mean = cubic_q.iter().sum::<f64>() / cubic_q.len() as f64;
    assert!(
        cubic_mean > BUFFER as f64 / 2.0,
        "CUBIC mean queue {cubic_mean}"
    );
}

/// Draft 4.3.5: after 10 s without a lower RTT, PROBE_RTT: cwnd 4 for 200 ms and a round
/// trip, then again 10 s after it refreshed the minimum.
#[test]
fn probe_rtt_comes_about_every_ten_seconds() {
    let rec = run("bbr", "linux");
    let episodes = probe_rtt_episodes(&rec);
    assert_eq!(episodes.len(), 3, "{episodes:?}");
    assert!((10.0..10.5).contains(&episodes[0].0), "{episodes:?}");
    for w in episodes.windows(2) {
        let gap = w[1].0 - w[0].0;
        assert!((10.0..11.0).contains(&gap), "{episodes:?}");
    }
    let cwnd = &rec.flow_series;
    for &(start, end) in &episodes {
        let length = end - start;
        assert!((0.18..0.32).contains(&length), "PROBE_RTT for {length} s");
        let inside: Vec<f64> = (0..cwnd.time.len())
            .filter(|&i| cwnd.time[i] >= start && cwnd.time[i] <= end)
            .map(|i| cwnd.cwnd[i])
            .collect();
        assert!(inside.iter().all(|&c| c <= 4.0), "cwnd {inside:?}");
    }
    // Outside PROBE_RTT the window is much larger.
    let most = cwnd.cwnd.iter().cloned().fold(0.0, f64::max);
    assert!(most > 40.0, "{most}");
}

/// The paced flow's rates are in the series: the delivery rate near the bottleneck's
/// payload rate, the pacing rate cycling through 5/4, 3/4 and 1 of BtlBw.
#[test]
fn rates_are_recorded() {
    let rec = run("bbr", "linux");
    let payload_rate = 10e6 / 8.0 * 1448.0 / 1500.0;
    let delivery = var(&rec, "delivery_rate");
    let late: Vec<f64> = delivery
        .iter()
        .filter(|(t, _)| *t > 2.0)
        .map(|&(_, v)| v)
        .collect();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    assert!(
        (0.85 * payload_rate..1.02 * payload_rate).contains(&mean),
        "{mean}"
    );
    let bw = var(&rec, "bw");
    let pacing = var(&rec, "pacing_rate");
    let mut gains: Vec<i64> = pacing
        .iter()
        .zip(&bw)
        .filter(|((t, _), _)| *t > 2.0)
        .map(|(&(_, p), &(_, b))| (p / b / 0.99 * 100.0).round() as i64)
        .collect();
    gains.sort();
    gains.dedup();
    for g in [75, 100, 125] {
        assert!(gains.contains(&g), "pacing gains seen {gains:?}");
    }
}
