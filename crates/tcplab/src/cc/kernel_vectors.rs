//! Test vectors shared with the kernel ports in `bpf/` (one set for both languages).
//!
//! The ports are those of the manifest `bpf/ports.toml`, each with the simulator spec it
//! implements.
//!
//! A scripted trace ([`super::scripted::Script`], the hooks in the real sender's order)
//! drives each algorithm through slow start, rising and falling RTTs, a fast-retransmit
//! loss and a timeout; a recorder logs every hook call with the sender state before it and
//! the cwnd/ssthresh after it. The files under `tests/vectors/` are this output: the Rust
//! implementation is the source of truth, and `bpf/mock/harness.c` replays the same lines
//! against the BPF sources compiled natively. Regenerate after a deliberate change with
//! `TCPLAB_BLESS_VECTORS=1 cargo test -p tcplab kernel_vectors`.
//!
//! Line format (space-separated): `op arg snd_una snd_nxt srtt_ns cwnd_limited ca_state
//! pre_cwnd pre_ssthresh post_cwnd post_ssthresh`, windows in packets with six decimals,
//! `inf` for an unset ssthresh. Ops: `init`, `pkts_acked <rtt_us or -1>`, `cong_avoid
//! <acked>`, `ssthresh <dupack|timeout>` (post_ssthresh is the returned value),
//! `set_state <tcp_ca_state>`, `cwnd_event <tcp_ca_event>`.

use super::scripted::Script;
use super::{
    AckEvent, AckSample, CaEvent, CaState, CcSpec, CcState, CongestionControl, LossInfo, LossKind,
    Recovery, RetransmitProbe,
};
use crate::sim::Time;
use serde::Deserialize;
use std::fmt::Write as _;

/// The kernel's `enum tcp_ca_state` numbers.
fn ca_state_number(s: CaState) -> u8 {
    match s {
        CaState::Open => 0,
        CaState::Disorder => 1,
        CaState::Recovery => 3,
        CaState::Loss => 4,
    }
}

fn window(v: f64) -> String {
    if v >= 1e8 {
        "inf".to_string()
    } else {
        format!("{v:.6}")
    }
}

/// Logs every hook call of the wrapped algorithm.
struct Recorder {
    inner: Box<dyn CongestionControl>,
    lines: String,
}

impl Recorder {
    fn log(&mut self, op: &str, arg: &str, pre: &CcState, post_cwnd: f64, post_ss: f64) {
        let _ = writeln!(
            self.lines,
            "{op} {arg} {} {} {} {} {} {} {} {} {}",
            pre.snd_una,
            pre.snd_nxt,
            pre.srtt.nanos(),
            u8::from(pre.cwnd_limited),
            ca_state_number(pre.ca_state),
            window(pre.cwnd),
            window(pre.ssthresh),
            window(post_cwnd),
            window(post_ss)
        );
    }
}

impl CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn default_recovery(&self) -> Recovery {
        self.inner.default_recovery()
    }
    fn init(&mut self, st: &mut CcState) {
        let pre = st.clone();
        self.inner.init(st);
        self.log("init", "-", &pre, st.cwnd, st.ssthresh);
    }
    fn ssthresh(&mut self, st: &CcState, loss: &LossInfo) -> f64 {
        let ret = self.inner.ssthresh(st, loss);
        let kind = if loss.kind == LossKind::Timeout {
            "timeout"
        } else {
            "dupack"
        };
        self.log("ssthresh", kind, st, st.cwnd, ret.max(1.0));
        ret
    }
    fn cong_avoid(&mut self, st: &mut CcState, acked: u32) {
        let pre = st.clone();
        self.inner.cong_avoid(st, acked);
        self.log("cong_avoid", &acked.to_string(), &pre, st.cwnd, st.ssthresh);
    }
    fn pkts_acked(&mut self, st: &mut CcState, sample: &AckSample) {
        let pre = st.clone();
        self.inner.pkts_acked(st, sample);
        let rtt = sample.rtt.map_or(-1, |r| (r.nanos() / 1000) as i64);
        self.log("pkts_acked", &rtt.to_string(), &pre, st.cwnd, st.ssthresh);
    }
    fn in_ack_event(&mut self, st: &mut CcState, ack: &AckEvent) {
        self.inner.in_ack_event(st, ack);
    }
    fn set_state(&mut self, st: &mut CcState, new: CaState) {
        let pre = st.clone();
        self.inner.set_state(st, new);
        let arg = ca_state_number(new).to_string();
        self.log("set_state", &arg, &pre, st.cwnd, st.ssthresh);
    }
    fn cwnd_event(&mut self, st: &mut CcState, event: CaEvent) {
        let pre = st.clone();
        self.inner.cwnd_event(st, event);
        let arg = match event {
            CaEvent::TxStart => "0",
            CaEvent::CompleteCwr => "2",
            CaEvent::Loss => "3",
        };
        self.log("cwnd_event", arg, &pre, st.cwnd, st.ssthresh);
    }
    fn cwnd_after_timeout(&self) -> f64 {
        self.inner.cwnd_after_timeout()
    }
    fn retransmit_check(&mut self, st: &CcState, probe: &RetransmitProbe) -> bool {
        self.inner.retransmit_check(st, probe)
    }
}

fn us(v: u64) -> Time {
    Time::from_micros(v)
}

/// The manifest, read at compile time so that editing it rebuilds the tests.
const MANIFEST: &str = include_str!("../../../../bpf/ports.toml");

#[derive(Deserialize)]
struct Manifest {
    port: Vec<Port>,
}

/// The fields of a manifest entry the vectors need.
#[derive(Deserialize)]
struct Port {
    kernel: String,
    spec: CcSpec,
}

/// The ports of the manifest: file name, the scenario spec whose behaviour the port
/// implements and the initial ssthresh of the trace (unset for the Vegas family, whose
/// slow start ends on gamma; 64 packets for the loss-based ones, which would otherwise
/// double for the whole trace).
fn ported() -> Vec<(String, CcSpec, f64)> {
    let manifest: Manifest = toml::from_str(MANIFEST).expect("bpf/ports.toml parses");
    manifest
        .port
        .into_iter()
        .map(|p| {
            let ss = if p.spec.params.contains_key("variant") {
                1e9
            } else {
                64.0
            };
            (p.kernel, p.spec, ss)
        })
        .collect()
}

/// The scripted trace every algorithm goes through.
fn trace(spec: &CcSpec, initial_ssthresh: f64) -> String {
    let inner = super::build(spec, "cc").expect("ported spec builds");
    let mut cc = Recorder {
        inner,
        lines: String::new(),
    };
    let mut s = Script::new(2.0, initial_ssthresh);
    s.start(&mut cc);
    // Slow start without queueing.
    for _ in 0..6 {
        s.round(&mut cc, us(100_000));
    }
    // A queue builds: RTTs grow within and across rounds.
    for k in 0..8u64 {
        s.round_with(&mut cc, |i| us(100_000 + k * 3_000 + u64::from(i) * 150));
    }
    // Steady state with jitter, then a draining queue.
    for k in 0..6u64 {
        s.round_with(&mut cc, |i| us(112_000 + u64::from(i % 5) * 700 + k * 400));
    }
    for k in 0..4u64 {
        s.round(&mut cc, us(110_000 - k * 2_500));
    }
    // A loss repaired by fast recovery, with ACKs during recovery.
    s.loss(&mut cc, LossKind::FastRetransmit);
    for _ in 0..3 {
        s.ack(&mut cc, Some(us(104_000)));
    }
    s.ack(&mut cc, None);
    s.recover(&mut cc);
    for k in 0..8u64 {
        s.round_with(&mut cc, |i| {
            us(101_000 + k * 1_800 + u64::from(i % 3) * 200)
        });
    }
    // A timeout, slow start again, back to Open.
    s.loss(&mut cc, LossKind::Timeout);
    s.ack(&mut cc, None);
    for _ in 0..3 {
        s.round(&mut cc, us(101_000));
    }
    s.recover(&mut cc);
    for k in 0..6u64 {
        s.round_with(&mut cc, |i| us(100_500 + k * 2_000 + u64::from(i) * 100));
    }
    cc.lines
}

fn vectors_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

#[test]
fn kernel_vectors_are_up_to_date() {
    let bless = std::env::var_os("TCPLAB_BLESS_VECTORS").is_some();
    for (file, spec, ss) in ported() {
        let text = trace(&spec, ss);
        assert!(text.lines().count() > 500, "{file}: trace too short");
        let path = vectors_dir().join(format!("{file}.txt"));
        if bless {
            std::fs::create_dir_all(vectors_dir()).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let stored = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} missing; regenerate (module docs)", path.display()));
        assert!(
            stored == text,
            "{} is stale: the Rust {} changed; regenerate (module docs)",
            path.display(),
            spec.name
        );
    }
}

#[test]
fn traces_exercise_the_rules() {
    // The trace must leave slow start, decrease the window and see both loss kinds, or
    // the C replay would check little.
    for (file, spec, ss) in ported() {
        let text = trace(&spec, ss);
        let mut decreased = false;
        let mut avoidance = false;
        for line in text.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (pre, post) = (f[7].parse::<f64>().ok(), f[9].parse::<f64>().ok());
            if f[0] == "cong_avoid" && pre.zip(post).is_some_and(|(a, b)| b < a) {
                decreased = true;
            }
            let ssthresh = f[8].parse::<f64>().unwrap_or(f64::INFINITY);
            if f[0] == "cong_avoid" && f[6] == "0" && pre.is_some_and(|c| c >= ssthresh) {
                avoidance = true;
            }
        }
        assert!(
            avoidance,
            "{file}: never in congestion avoidance before a loss"
        );
        assert!(
            decreased || file == "tl_reno" || file == "tl_veno",
            "{file}: the delay rule never cut the window"
        );
        assert!(text.contains("ssthresh timeout") && text.contains("ssthresh dupack"));
    }
}
