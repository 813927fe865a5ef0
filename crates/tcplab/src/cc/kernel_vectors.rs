//! Test vectors shared with the kernel ports in `bpf/` (one set for both languages).
//!
//! The ports are those of the manifest `bpf/ports.toml`; each names the simulator spec it
//! implements (`variant = "kernel"` for the Vegas family: the port's differences as
//! options). For every port, seeded random traces of [`super::kernel_stack::KernelStack`]
//! (the hooks in the Linux stack's order: multiple and repeated losses, stretch and
//! duplicate ACKs, undo, timeouts, application-limited stretches) drive that spec and
//! log every hook call with the state before it and the windows after it. The files
//! `tests/vectors/<kernel name>.txt` are this output: the Rust implementation is the
//! source of truth, and `bpf/mock/harness.c` replays the same lines against the BPF
//! source compiled natively. Regenerate after a deliberate change with
//! `TCPLAB_BLESS_VECTORS=1 cargo test -p tcplab kernel_vectors`.
//!
//! Line format (space-separated): `op arg snd_una snd_nxt srtt_ns cwnd_limited ca_state
//! pre_cwnd pre_ssthresh post_cwnd post_ssthresh`, windows in packets with six decimals,
//! `inf` for an unset ssthresh. Ops: `init` (a new trace), `pkts_acked <rtt_us or -1>`,
//! `cong_avoid <acked>`, `ssthresh <dupack|timeout>` (post_ssthresh is the returned
//! value), `set_state <tcp_ca_state>`, `cwnd_event <tcp_ca_event>`, `undo_cwnd
//! <prior_cwnd>/<prior_ssthresh>` (the stack then writes the returned cwnd and restores
//! ssthresh to prior_ssthresh if that is larger; post_* are the windows after that).

use super::kernel_stack::KernelStack;
use super::CcSpec;
use serde::Deserialize;

/// The manifest, read at compile time so that editing it rebuilds the tests.
const MANIFEST: &str = include_str!("../../../../bpf/ports.toml");

/// The traces of each port: their seeds and how many stack events each runs.
const SEEDS: &[u64] = &[1, 2, 3, 4];
const EVENTS: u32 = 1800;

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

fn ports() -> Vec<Port> {
    toml::from_str::<Manifest>(MANIFEST)
        .expect("bpf/ports.toml parses")
        .port
}

/// Every trace of one port, one after the other.
fn vectors(port: &Port) -> String {
    SEEDS
        .iter()
        .map(|&seed| {
            let cc = super::build(&port.spec, &port.kernel)
                .unwrap_or_else(|e| panic!("{}: spec does not build: {e}", port.kernel));
            KernelStack::new(cc, seed).run(EVENTS)
        })
        .collect()
}

fn vectors_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

#[test]
fn kernel_vectors_are_up_to_date() {
    let bless = std::env::var_os("TCPLAB_BLESS_VECTORS").is_some();
    for port in ports() {
        let text = vectors(&port);
        let path = vectors_dir().join(format!("{}.txt", port.kernel));
        if bless {
            std::fs::create_dir_all(vectors_dir()).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let stored = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} missing; regenerate (module docs)", path.display()));
        assert!(
            stored == text,
            "{} is stale: the Rust {} or the stack changed; regenerate (module docs)",
            path.display(),
            port.spec.name
        );
    }
}

/// What one trace exercised, counted from its lines.
#[derive(Default, Debug)]
struct Coverage {
    dupack_losses: u32,
    timeouts: u32,
    /// Timeouts while one was being repaired (no new ssthresh).
    repeated_timeouts: u32,
    /// Loss episodes opened within 50 hook calls of the previous one's end.
    losses_soon_after_recovery: u32,
    undos: u32,
    stretch_acks: u32,
    duplicate_acks: u32,
    missing_samples: u32,
    /// `cong_avoid` calls not cwnd-limited, in slow start and in congestion avoidance.
    app_limited_slow_start: u32,
    app_limited_avoidance: u32,
    /// `cong_avoid` calls in avoidance (Open) that lowered the window: a delay rule's cut.
    rule_decreases: u32,
    recovery_exits: u32,
}

fn coverage(text: &str) -> Coverage {
    let mut c = Coverage::default();
    let mut last_una = None;
    let mut since_recovery_end = u32::MAX;
    let mut previous_op = "";
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let window = |i: usize| f[i].parse::<f64>().unwrap_or(f64::INFINITY);
        let (pre_c, pre_s, post_c) = (window(7), window(8), window(9));
        since_recovery_end = since_recovery_end.saturating_add(1);
        match (f[0], f[1]) {
            ("init", _) => last_una = None,
            ("ssthresh", kind) => {
                if kind == "dupack" {
                    c.dupack_losses += 1;
                } else {
                    c.timeouts += 1;
                }
                if since_recovery_end < 50 {
                    c.losses_soon_after_recovery += 1;
                }
            }
            ("set_state", "4") if previous_op != "cwnd_event" => c.repeated_timeouts += 1,
            ("set_state", "0") if f[6] == "3" || f[6] == "4" => {
                c.recovery_exits += 1;
                since_recovery_end = 0;
            }
            ("undo_cwnd", _) => c.undos += 1,
            ("pkts_acked", rtt) => {
                if last_una == Some(f[2]) {
                    c.duplicate_acks += 1;
                }
                if rtt == "-1" {
                    c.missing_samples += 1;
                }
                last_una = Some(f[2]);
            }
            ("cong_avoid", acked) => {
                if acked != "1" {
                    c.stretch_acks += 1;
                }
                match (f[5], pre_c < pre_s) {
                    ("0", true) => c.app_limited_slow_start += 1,
                    ("0", false) => c.app_limited_avoidance += 1,
                    _ => {}
                }
                if f[6] == "0" && pre_c >= pre_s && post_c < pre_c {
                    c.rule_decreases += 1;
                }
            }
            _ => {}
        }
        previous_op = f[0];
    }
    c
}

#[test]
fn traces_exercise_the_hooks_and_the_rules() {
    // Every trace must reach each situation several times, or the C replay would check
    // little there.
    for port in ports() {
        for &seed in SEEDS {
            let cc = super::build(&port.spec, &port.kernel).unwrap();
            let c = coverage(&KernelStack::new(cc, seed).run(EVENTS));
            let name = format!("{} seed {seed}", port.kernel);
            for (what, n, at_least) in [
                ("fast retransmits", c.dupack_losses, 3),
                ("recovery exits", c.recovery_exits, 3),
                ("stretch ACKs", c.stretch_acks, 10),
                ("duplicate ACKs", c.duplicate_acks, 10),
                ("ACKs without a sample", c.missing_samples, 10),
                ("app-limited ACKs in avoidance", c.app_limited_avoidance, 5),
            ] {
                assert!(n >= at_least, "{name}: {n} {what} (want {at_least}): {c:?}");
            }
        }
        // Over all seeds: the rarer situations.
        let c = coverage(&vectors(&port));
        for (what, n, at_least) in [
            ("timeouts", c.timeouts, 3),
            ("undos", c.undos, 3),
            ("repeated timeouts", c.repeated_timeouts, 1),
            (
                "losses soon after a recovery",
                c.losses_soon_after_recovery,
                2,
            ),
            (
                "app-limited ACKs in slow start",
                c.app_limited_slow_start,
                3,
            ),
        ] {
            assert!(
                n >= at_least,
                "{}: {n} {what} (want {at_least}): {c:?}",
                port.kernel
            );
        }
        let delay_based = port.spec.params.get("variant").is_some();
        assert!(
            !delay_based || c.rule_decreases >= 5,
            "{}: the delay rule cut the window {} times",
            port.kernel,
            c.rule_decreases
        );
    }
}

#[test]
fn every_port_spec_builds_and_the_vegas_family_uses_the_kernel_variant() {
    let ports = ports();
    assert!(ports.len() >= 7);
    for port in &ports {
        super::build(&port.spec, &port.kernel).unwrap();
        if port.spec.name.contains("vegas") || port.spec.name == "code" {
            assert_eq!(
                port.spec.params.get("variant").and_then(|v| v.as_str()),
                Some("kernel"),
                "{}",
                port.kernel
            );
        }
    }
}
