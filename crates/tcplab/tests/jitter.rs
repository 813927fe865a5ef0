//! Link jitter (`jitter = { kind = ... }` on a link): a random extra delay per packet
//! from the link's own stream, that never reorders packets on the link.

use tcplab::record::RunRecords;
use tcplab::{parse_scenario, run_scenario, run_scenario_with_output};

/// Records compared as text, so that NaN fields (no RTT sample) compare equal.
fn fingerprint(r: &(impl std::fmt::Debug + ?Sized)) -> String {
    format!("{r:?}")
}

/// FNV-1a of a run's records, to compare with a run of an older engine.
fn digest(r: &RunRecords) -> u64 {
    fingerprint(r)
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

fn dumbbell(bottleneck_extra: &str, access_extra: &str, flows: &str, duration: f64) -> String {
    format!(
        r#"
[simulation]
duration = {duration}
sample_interval = 0.05
[topology]
kind = "dumbbell"
pairs = 3
bottleneck = {{ rate = "10Mbps", delay = "20ms", buffer = 40 {bottleneck_extra} }}
access = {{ rate = "100Mbps", delay = "1ms", buffer = 1000 {access_extra} }}
{flows}
"#
    )
}

const MIXED_FLOWS: &str = r#"
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
[[flows]]
src = "s1"
dst = "d1"
cc = { name = "vegas", variant = "paper" }
start = { uniform = [0, 1] }
[[flows]]
kind = "cbr"
src = "s2"
dst = "d2"
rate = "1Mbps"
"#;

// ------------------------------------------------------------------ no jitter, no change

/// A scenario without jitter runs exactly as before jitter existed. The digest was taken
/// with the engine of commit e0ab8e4 (before link jitter) and taken again when the `ns2`
/// profile's intended changes landed (per-ACK window growth, the recover rule); between
/// those, jitter changed no record. Update it only for an intended change of the records,
/// and say so in the commit. Loss, RED, a random start and a CBR flow exercise every
/// random stream and both kinds of link.
#[test]
fn records_without_jitter_are_those_of_the_engine_before_jitter() {
    let text = dumbbell(
        r#", queue = { kind = "red" }, loss = { model = "bernoulli", p = 0.002 }"#,
        "",
        MIXED_FLOWS,
        20.0,
    );
    let rec = run_scenario(&text, Some(3)).unwrap();
    let got = (
        rec.meta.events_processed,
        rec.meta.packets_delivered,
        digest(&rec),
    );
    assert_eq!(
        got,
        (REFERENCE_EVENTS, REFERENCE_DELIVERED, REFERENCE_DIGEST),
        "records changed"
    );
}

const REFERENCE_EVENTS: u64 = 136_335;
const REFERENCE_DELIVERED: u64 = 38_130;
/// Engine 0.3.12: the records' engine-version string changed, nothing else (CTCP's new
/// variables `min_rtt` and `base_rtt` are not recorded here; with 0.3.11's string the 0.3.11
/// digest, 3_701_132_603_930_977_128, still came out). Engine 0.3.11: likewise (the new
/// `pair_access[].jitter` is not used here; with 0.3.10's string the 0.3.10 digest,
/// 12_901_784_157_835_630_153, still came out). Engine 0.3.10: likewise (the new
/// round-robin queue is not used here; with 0.3.9's string the 0.3.9 digest,
/// 127_772_346_230_392_993, still came out). Engine 0.3.9: likewise (no flow here
/// is paced, so pacing whole GSO packets leaves it alone; events and packets delivered
/// equal; the 0.3.8 digest 9_640_580_150_432_746_848 likewise; the 0.3.7 digest, 15_701_311_789_415_942_551, passed with the
/// 0.3.8 review fixes to SACK compression before the version was bumped, and the 0.3.6 one,
/// 1_393_851_295_687_523_646, with 0.3.7's SACK compression and drawn ACK latency; the
/// 0.3.5 one 5_176_560_794_125_442_061, the 0.3.4 one was 7_027_229_971_484_911_372, the 0.3.3 one 254_641_171_259_275_987, the
/// 0.3.2 one 14_240_926_161_226_803_162, the 0.3.1 one 17_103_554_903_867_520_441, the
/// 0.3.0 one 10_654_608_316_638_066_328, the 0.2.0 one 11_256_253_305_936_518_573).
const REFERENCE_DIGEST: u64 = 18_421_403_110_138_959_715;

/// Jitter on one link draws from that link's stream only: a flow elsewhere, with its
/// random start and a lossy link, runs exactly as without it.
#[test]
fn jitter_on_one_link_leaves_other_streams_alone() {
    let custom = |jitter: &str| {
        format!(
            r#"
[simulation]
duration = 10
sample_interval = 0
[topology]
kind = "custom"
nodes = ["a", "b", "c", "d"]
links = [
  {{ between = ["a", "b"], rate = "5Mbps", delay = "10ms", buffer = 20, loss = {{ model = "bernoulli", p = 0.01 }} }},
  {{ between = ["c", "d"], rate = "5Mbps", delay = "10ms" {jitter} }},
]
[[flows]]
src = "a"
dst = "b"
cc = "newreno"
start = {{ uniform = [0, 1] }}
[[flows]]
src = "c"
dst = "d"
cc = "reno"
"#
        )
    };
    let plain = run_scenario(&custom(""), None).unwrap();
    let jittered = run_scenario(
        &custom(r#", jitter = { kind = "uniform", max = "5ms" }"#),
        None,
    )
    .unwrap();
    assert_eq!(
        fingerprint(&plain.flows[0]),
        fingerprint(&jittered.flows[0])
    );
    assert_eq!(
        fingerprint(&plain.links[..2]),
        fingerprint(&jittered.links[..2])
    );
    assert_ne!(
        fingerprint(&plain.flows[1]),
        fingerprint(&jittered.flows[1])
    );
}

// ------------------------------------------------------------------ determinism

#[test]
fn jittered_runs_are_deterministic_per_seed() {
    let text = dumbbell(
        r#", jitter = { kind = "exponential", mean = "0.2ms", max = "2ms" }"#,
        r#", jitter = { kind = "normal", mean = "0.1ms", std = "0.05ms", max = "0.3ms" }, reverse = { jitter = { kind = "uniform", max = "0.1ms" } }"#,
        MIXED_FLOWS,
        10.0,
    );
    let a = run_scenario(&text, Some(9)).unwrap();
    let b = run_scenario(&text, Some(9)).unwrap();
    assert_eq!(fingerprint(&a), fingerprint(&b), "same seed, same records");
    let c = run_scenario(&text, Some(10)).unwrap();
    assert_ne!(
        fingerprint(&a),
        fingerprint(&c),
        "another seed, another run"
    );
    let plain = run_scenario(&dumbbell("", "", MIXED_FLOWS, 10.0), Some(9)).unwrap();
    assert_ne!(
        fingerprint(&a),
        fingerprint(&plain),
        "jitter changes the run"
    );
}

// ------------------------------------------------------------------ RTT spread

/// Population standard deviation.
fn std_dev(v: &[f64]) -> f64 {
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
}

/// A window-limited flow (4 packets, no queue anywhere) sees the same RTT on every
/// segment without jitter; with up to 2 ms of uniform jitter on the bottleneck its
/// samples spread: the mean rises by about the mean jitter (1 ms) above the minimum, and
/// the smoothed RTT moves.
#[test]
fn jitter_spreads_the_rtt_samples_in_a_dumbbell() {
    let flow = "[[flows]]\nsrc = \"s0\"\ndst = \"d0\"\ncc = \"reno\"\ntcp = { rwnd = 4 }\n";
    let run = |extra: &str| {
        let rec = run_scenario(&dumbbell(extra, "", flow, 20.0), None).unwrap();
        let s = &rec.flow_series;
        let srtt: Vec<f64> = (s.time.iter().zip(&s.srtt))
            .filter(|&(&t, _)| t >= 5.0)
            .map(|(_, &r)| r)
            .collect();
        let f = &rec.flows[0];
        (f.mean_rtt - f.min_rtt, std_dev(&srtt))
    };
    let (spread, srtt_sd) = run("");
    assert!(spread < 1e-5 && srtt_sd < 1e-9, "{spread} {srtt_sd}");
    let (spread, srtt_sd) = run(r#", jitter = { kind = "uniform", max = "2ms" }"#);
    assert!(
        (0.8e-3..1.2e-3).contains(&spread),
        "mean - min RTT {spread}"
    );
    assert!(srtt_sd > 5e-5, "srtt standard deviation {srtt_sd}");
}

// ------------------------------------------------------------------ no reordering

/// A CBR flow across two jittered links (with cross traffic on the second) and a CBR flow
/// on the first alone: every flow's datagrams are received in the order they were sent.
fn received_in_order(rate: f64, delay_us: u64, max_us: u64, cbr: f64, size: u32, kind: u8) {
    let jitter = match kind {
        0 => format!(r#"{{ kind = "uniform", max = "{max_us}us" }}"#),
        1 => format!(
            r#"{{ kind = "exponential", mean = "{}us", max = "{max_us}us" }}"#,
            max_us as f64 / 3.0 + 0.001
        ),
        _ => format!(
            r#"{{ kind = "normal", mean = "{}us", std = "{}us", max = "{max_us}us" }}"#,
            max_us as f64 / 2.0,
            max_us as f64 / 4.0 + 0.001
        ),
    };
    let text = format!(
        r#"
[simulation]
duration = 0.5
sample_interval = 0
event_log = true
[topology]
kind = "custom"
nodes = ["a", "b", "c"]
links = [
  {{ between = ["a", "b"], rate = {rate}, delay = "{delay_us}us", buffer = 30, jitter = {jitter} }},
  {{ between = ["b", "c"], rate = {rate}, delay = "{delay_us}us", buffer = 30, jitter = {jitter} }},
]
[[flows]]
kind = "cbr"
src = "a"
dst = "c"
rate = {cbr}
packet_size = {size}
[[flows]]
kind = "cbr"
src = "b"
dst = "c"
rate = {cbr}
packet_size = 100
[[flows]]
kind = "cbr"
src = "a"
dst = "b"
rate = {cbr}
packet_size = {size}
"#
    );
    let rec = run_scenario(&text, Some(kind as u64)).unwrap();
    let log = rec.events.as_ref().unwrap();
    let mut last = [None::<u32>; 3];
    let mut received = 0;
    for i in 0..log.event.len() {
        if log.event[i] != "recv" {
            continue;
        }
        let f = log.flow[i] as usize;
        assert!(
            last[f].is_none_or(|s| s < log.seq[i]),
            "flow {f}: {} after {:?}",
            log.seq[i],
            last[f]
        );
        last[f] = Some(log.seq[i]);
        received += 1;
    }
    assert!(received > 0);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// Whatever the rates, delays and jitter (up to many transmission times), packets
    /// leave each link in the order they entered it.
    #[test]
    fn jitter_never_reorders(
        rate in 100_000f64..50e6,
        delay_us in 0u64..5_000,
        max_us in 0u64..20_000,
        load in 0.2f64..1.5,
        size in 40u32..1500,
        kind in 0u8..3,
    ) {
        received_in_order(rate, delay_us, max_us, rate * load / 2.0, size, kind);
    }
}

/// The exit tap of a jittered link is stamped with the jittered arrivals, in order, and
/// counts the packets the link carried.
#[test]
fn exit_pcap_of_a_jittered_link_is_in_time_order() {
    let dir = std::env::temp_dir().join(format!("tcplab-jitter-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let text = dumbbell(
        r#", jitter = { kind = "uniform", max = "3ms" }"#,
        "",
        MIXED_FLOWS,
        5.0,
    )
    .replace(
        "[topology]",
        "[[simulation.pcap]]\nlink = \"r0->r1\"\nfile = \"exit.pcap\"\nat = \"exit\"\nresolution = \"ns\"\n[topology]",
    );
    let rec = run_scenario_with_output(&text, None, &dir).unwrap();
    let bytes = std::fs::read(dir.join("exit.pcap")).unwrap();
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
    let (mut at, mut times) = (24, Vec::new());
    while at < bytes.len() {
        times.push(u32_at(at) as u64 * 1_000_000_000 + u32_at(at + 4) as u64);
        at += 16 + u32_at(at + 8) as usize;
    }
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "timestamps go back");
    let link = rec.links.iter().find(|l| l.name == "r0->r1").unwrap();
    assert_eq!(times.len() as u64, rec.traces[0].packets);
    assert!(times.len() as u64 <= link.packets_sent && times.len() > 1000);
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------------ scenario errors

fn error_of(link_extra: &str) -> tcplab::ConfigError {
    let text = dumbbell(link_extra, "", MIXED_FLOWS, 1.0);
    parse_scenario(&text).expect_err("the scenario is invalid")
}

#[test]
fn bad_jitter_is_reported_with_its_field_value_and_what_is_allowed() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            r#", jitter = { kind = "gaussian", max = "1ms" }"#,
            "topology.bottleneck.jitter",
            &["gaussian", "uniform, exponential, normal, empirical"],
        ),
        (
            r#", jitter = { max = "1ms" }"#,
            "topology.bottleneck.jitter",
            &["missing `kind`", "uniform"],
        ),
        (
            r#", jitter = { kind = "uniform" }"#,
            "topology.bottleneck.jitter",
            &["missing field `max`"],
        ),
        (
            r#", jitter = { kind = "uniform", max = "1ms", mean = "1ms" }"#,
            "topology.bottleneck.jitter.mean",
            &["unknown field `mean`", "max"],
        ),
        (
            r#", jitter = { kind = "uniform", max = "-1ms" }"#,
            "topology.bottleneck.jitter.max",
            &["-0.001 s", "between 0 and 100 s"],
        ),
        (
            r#", jitter = { kind = "uniform", max = "1 parsec" }"#,
            "topology.bottleneck.jitter.max",
            &["parsec", "ms"],
        ),
        (
            r#", jitter = { kind = "exponential", mean = 0, max = "1ms" }"#,
            "topology.bottleneck.jitter.mean",
            &["0 s", "positive"],
        ),
        (
            r#", jitter = { kind = "normal", mean = "2ms", std = "0.1ms", max = "1ms" }"#,
            "topology.bottleneck.jitter.mean",
            &["0.002 s", "between 0 and max (0.001 s)"],
        ),
        (
            r#", jitter = { kind = "normal", mean = "0.5ms", std = "2ms", max = "1ms" }"#,
            "topology.bottleneck.jitter.std",
            &["0.002 s", "at most max (0.001 s)", "uniform"],
        ),
        (
            r#", jitter = { kind = "empirical", quantiles = ["0us", "2ms", "1ms"] }"#,
            "topology.bottleneck.jitter.quantiles[2]",
            &[
                "0.001 s",
                "below the quantile before it",
                "must not decrease",
            ],
        ),
        (
            r#", jitter = { kind = "empirical", quantiles = ["1ms"] }"#,
            "topology.bottleneck.jitter.quantiles",
            &["1 values", "2 to 10001 quantiles"],
        ),
        (
            r#", jitter = { kind = "empirical", quantiles = ["0ms", "-1ms"] }"#,
            "topology.bottleneck.jitter.quantiles[1]",
            &["-0.001 s", "between 0 and 100 s"],
        ),
        (
            r#", reverse = { jitter = { kind = "uniform", max = 1000 } }"#,
            "topology.bottleneck.reverse.jitter.max",
            &["1000 s", "between 0 and 100 s"],
        ),
    ];
    for (extra, field, words) in cases {
        let e = error_of(extra);
        assert_eq!(&e.field, field, "{extra}: {e}");
        for w in *words {
            assert!(e.message.contains(w), "{extra}: {e:?} lacks {w:?}");
        }
    }
    // Custom links and access presets name their own path.
    let text = dumbbell(
        "",
        r#", jitter = { kind = "uniform", max = "-1us" }"#,
        MIXED_FLOWS,
        1.0,
    );
    assert_eq!(
        parse_scenario(&text).unwrap_err().field,
        "topology.access.jitter.max"
    );
}

#[test]
fn jitter_round_trips_through_the_canonical_document() {
    let text = dumbbell(
        r#", jitter = { kind = "normal", mean = "0.1ms", std = "0.05ms", max = "0.3ms" }"#,
        "",
        MIXED_FLOWS,
        1.0,
    );
    let s = parse_scenario(&text).unwrap();
    let again = parse_scenario(&s.to_toml()).unwrap();
    assert_eq!(s, again);
    // No jitter: the canonical document has no `jitter` key (run keys stay as they were).
    let plain = parse_scenario(&dumbbell("", "", MIXED_FLOWS, 1.0)).unwrap();
    assert!(!plain.to_toml().contains("jitter"));
}

// ------------------------------------------------------------------ ACK latency streams

/// Two flows on links of their own (so neither affects the other), with an ACK latency
/// drawn per ACK; `second` names the second flow, `seed` seeds the run.
fn two_receivers(second: &str, seed: u64, key: &str, latency: &str) -> String {
    format!(
        r#"
[simulation]
duration = 5
seed = {seed}
sample_interval = 0
[tcp]
stack = "linux"
{key} = {latency}
[topology]
kind = "custom"
nodes = ["a", "b", "c", "d"]
links = [
  {{ between = ["a", "b"], rate = "5Mbps", delay = "10ms", buffer = 20 }},
  {{ between = ["c", "d"], rate = "5Mbps", delay = "10ms", buffer = 20 }},
]
[[flows]]
name = "first"
src = "a"
dst = "b"
cc = "cubic"
[[flows]]
name = "{second}"
src = "c"
dst = "d"
cc = "cubic"
"#
    )
}

/// A distributed `ack_latency` is drawn from each receiver's own stream, named after its
/// flow (`ack_latency:<flow>`): renaming one flow changes its run and leaves the other's
/// alone, the same seed gives the same run, and a distribution is not its mean.
#[test]
fn ack_latency_draws_come_from_each_flows_own_stream() {
    draws_come_from_each_flows_own_stream("ack_latency");
}

/// The application's read latency (`app_read`) likewise draws per read from each receiver's
/// own stream (`app_read:<flow>`).
#[test]
fn app_read_draws_come_from_each_flows_own_stream() {
    draws_come_from_each_flows_own_stream("app_read");
}

fn draws_come_from_each_flows_own_stream(key: &str) {
    let uniform = r#"{ kind = "uniform", max = "2ms" }"#;
    let run = |second: &str, seed: u64, latency: &str| {
        run_scenario(&two_receivers(second, seed, key, latency), None).unwrap()
    };
    let base = run("second", 1, uniform);
    let renamed = run("other", 1, uniform);
    assert_eq!(fingerprint(&base.flows[0]), fingerprint(&renamed.flows[0]));
    assert_ne!(
        fingerprint(&base.flows[1].mean_rtt),
        fingerprint(&renamed.flows[1].mean_rtt),
        "the second flow draws from a stream of its own name"
    );
    assert_eq!(
        fingerprint(&base),
        fingerprint(&run("second", 1, uniform)),
        "the same seed gives the same run"
    );
    assert_ne!(
        fingerprint(&base.flows[0].mean_rtt),
        fingerprint(&run("second", 2, uniform).flows[0].mean_rtt)
    );
    let mean = run("second", 1, r#""1ms""#);
    assert_ne!(
        fingerprint(&base.flows[0].mean_rtt),
        fingerprint(&mean.flows[0].mean_rtt),
        "drawn per {key}, not fixed at the mean"
    );
}
