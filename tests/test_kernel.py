"""The kernel ports (bpf/) and the namespace test bed (python/tcplab/testbed).

Requires root and the packages of scripts/install-kernel-deps.sh (CI has both); the
conformance replay needs only a C compiler."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tcplab import kernel
from tcplab.errors import ScenarioError
from tcplab.scenario import Scenario, link
from tcplab.testbed import net, plan, run_scenario
from tcplab.testbed.available import missing_tools

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "vectors"

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root")
needs_tools = pytest.mark.skipif(bool(missing_tools()), reason="run scripts/install-kernel-deps.sh")


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("kbuild")
    os.environ["TCPLAB_KERNEL_BUILD"] = str(out)
    kernel.build(harness=True)
    return out


@pytest.fixture(scope="session")
def harnesses(tmp_path_factory):
    """Every algorithm's BPF source compiled natively against bpf/mock (one make call)."""
    if shutil.which("cc") is None or shutil.which("make") is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("harness")
    subprocess.run(["make", "-s", f"OUT={out}", "harness"], cwd=ROOT / "bpf", check=True)
    return out


@pytest.mark.parametrize("algo", kernel.OBJECTS)
def test_conformance_with_the_rust_vectors(algo, harnesses):
    """The BPF source, compiled natively against bpf/mock, replays the Rust trace."""
    out = harnesses
    vec = VECTORS / f"{algo}.txt"
    assert vec.exists(), "vectors missing: cargo test -p tcplab kernel_vectors (module docs)"
    p = subprocess.run([str(out / f"{algo}.harness"), str(vec)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    passed = int(p.stdout.split(":")[1].split("passed")[0])
    assert passed == sum(1 for _ in vec.open()), p.stdout


def test_harness_detects_a_wrong_vector(harnesses, tmp_path):
    """A vector whose expected window is off must fail the replay."""
    out = harnesses
    lines = (VECTORS / "tl_vegas.txt").read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("cong_avoid") and k > 300)
    f = lines[i].split()
    f[9] = f"{float(f[9]) + 1.0:.6f}"
    lines[i] = " ".join(f)
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    p = subprocess.run([str(out / "tl_vegas.harness"), str(bad)], capture_output=True, text=True)
    assert p.returncode == 1 and "1 failed" in p.stdout


def test_harness_detects_a_wrong_undo(harnesses, tmp_path):
    """The window an undo restores is checked (here: one packet more than the simulator's)."""
    lines = (VECTORS / "tl_reno.txt").read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("undo_cwnd"))
    f = lines[i].split()
    f[9] = f"{float(f[9]) + 1.0:.6f}"
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join([*lines[:i], " ".join(f), *lines[i + 1 :]]) + "\n")
    p = subprocess.run([str(harnesses / "tl_reno.harness"), str(bad)], capture_output=True, text=True)
    assert p.returncode == 1 and "undo_cwnd" in p.stderr, p.stderr


def test_a_port_that_misses_the_stacks_writes_fails(tmp_path):
    """Reno without its per-ACK tl_sync keeps a stale shadow through PRR's windows: the
    replay, which reads what the port would read at its next hook, must fail."""
    src = tmp_path / "bpf"
    shutil.copytree(ROOT / "bpf", src, ignore=shutil.ignore_patterns("build"))
    code = (src / "tl_reno.c").read_text()
    (src / "tl_reno.c").write_text(code.replace("\ttl_sync(tl_tcp_sk(sk), tl_ca(sk));\n", "", 1))
    exe = tmp_path / "tl_reno.harness"
    subprocess.run(["make", "-s", f"OUT={tmp_path}", str(exe)], cwd=src, check=True)
    p = subprocess.run([str(exe), str(VECTORS / "tl_reno.txt")], capture_output=True, text=True)
    assert p.returncode == 1, p.stdout


def test_the_mutation_check_catches_a_named_mutant():
    """scripts/mutate-bpf.py on one of issue 19's planted changes (the full run is slow)."""
    p = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "mutate-bpf.py"),
            "--jobs",
            "1",
            "--only",
            "epsilon 17/25 -> 18/25",
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert re.search(r"CODE's epsilon 17/25 -> 18/25 \(`tl_code.c:\d+`\): caught", p.stdout), p.stdout


def test_plan_refuses_what_the_bed_cannot_do():
    s = Scenario.dumbbell(1, link("10Mbps", "23ms", 100), duration=5)
    s.add_flow("s0", "d0", {"name": "vegas", "alpha": 2})
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.cc"):
        plan(s)
    s = Scenario.dumbbell(1, link("10Mbps", "23ms", 100), duration=5)
    s.add_flow("s0", "d0", "cubic")
    with pytest.raises(ScenarioError, match="no kernel port"):
        plan(s)
    s = Scenario.dumbbell(2, link("10Mbps", "23ms", 60), duration=5)
    s.add_flow("s0", "d0", "reno")
    s.add_flow("s1", "d1", "code", start=1)
    p = plan(s)
    assert (p.buffer_packets, p.rate_bps, [f.kernel_cc for f in p.flows]) == (60, 1e7, ["tl_reno", "tl_code"])
    assert p.delay_fwd == pytest.approx(0.025), "23 ms bottleneck + 2 x 1 ms access"


@needs_root
@needs_tools
def test_every_algorithm_registers_carries_a_transfer_and_unregisters(built, tmp_path):
    """Build, verifier, registration, a 5 s transfer through the test bed, unregistration."""
    for algo in kernel.OBJECTS:
        kernel.unload(algo)
    s = Scenario.dumbbell(len(kernel.OBJECTS), link("20Mbps", "10ms", 100), duration=5)
    for i, algo in enumerate(kernel.OBJECTS):
        s.add_flow(f"s{i}", f"d{i}", algo.removeprefix("tl_"), name=algo)
    r = run_scenario(s, out_dir=tmp_path, capture=True)
    assert set(kernel.OBJECTS) <= set(kernel.loaded())
    flows = r.flows.set_index("name")
    for algo in kernel.OBJECTS:
        assert flows.loc[algo, "kernel_cc"] == algo
        assert flows.loc[algo, "bytes_delivered"] > 100_000, f"{algo} carried too little"
    total = flows["goodput_bps"].sum()
    assert 0.5 * 20e6 < total <= 20e6, f"bottleneck not respected: {total}"
    assert flows["min_rtt"].min() >= 0.023, "propagation delay 2 x 12 ms missing"
    assert (tmp_path / "bottleneck.pcap").stat().st_size > 10_000
    assert not net.present(), "namespaces left behind"
    for algo in kernel.OBJECTS:
        kernel.unload(algo)
    assert not set(kernel.OBJECTS) & set(kernel.loaded())


@needs_tools
def test_a_traced_build_writes_a_line_per_round_and_the_normal_build_does_not(built, tmp_path):
    """`make TRACE=1` compiles the Vegas family's round trace (tl_trace_round) into the object;
    the objects the bed loads have none of it."""
    import subprocess

    out = tmp_path / "build-trace"
    out.mkdir()
    (out / "vmlinux.h").write_bytes((built / "vmlinux.h").read_bytes())
    subprocess.run(
        ["make", "-s", "TRACE=1", f"OUT={out}", str(out / "tl_newvegas.bpf.o")],
        cwd=kernel.bpf_dir(),
        check=True,
    )
    assert b"tlround" in (out / "tl_newvegas.bpf.o").read_bytes()
    assert b"tlround" not in (built / "tl_newvegas.bpf.o").read_bytes()


@needs_root
@needs_tools
def test_a_run_with_the_round_trace_has_the_kernels_thresholds(built, tmp_path):
    """With ca_trace the bed loads the traced NewVegas, and each of its rounds is a cc_vars row
    set (alpha from 1, the round's RTT above the path's 24 ms); the next plain run registers the
    plain object again."""
    s = Scenario.dumbbell(1, link("20Mbps", "10ms", 100), duration=4)
    s.add_flow("s0", "d0", "newvegas")
    r = run_scenario(s, out_dir=tmp_path, capture=False, ca_trace=True)
    v = r.cc_vars
    alpha = v[v["name"] == "alpha"]
    assert len(alpha) >= 20 and r.meta["ca_trace_rounds"] == len(alpha), "a round every RTT for 4 s"
    assert alpha["value"].min() >= 1.0 and set(alpha["flow"]) == {0}
    rtt = v[v["name"] == "round_rtt"]["value"]
    assert rtt.min() > 0.023 and rtt.max() < 0.2
    assert alpha["time"].between(-0.5, 5.0).all(), "on the run's clock"
    assert (tmp_path / "ca_trace.txt").stat().st_size > 0
    plain = run_scenario(s, capture=False)
    assert plain.cc_vars.empty or not (plain.cc_vars["name"] == "alpha").any()
    assert kernel._record("tl_newvegas")["sha256"] == kernel._digest(kernel.build_object("tl_newvegas"))


@needs_root
@needs_tools
def test_teardown_on_error(built):
    with (
        pytest.raises(RuntimeError, match="boom"),
        net.idle_testbed(one_way_us=1000, mtu=1040, buffer_packets=10),
    ):
        assert len(net.present()) == 4
        raise RuntimeError("boom")
    assert not net.present()


@needs_root
@needs_tools
def test_a_conformance_point_on_the_bed(built):
    """One short matrix point (kernel Reno, the linux document) on the bed and in today's
    simulator: tcp_info sampled every 10 ms, real segment size 1000, SNMP counters, checks."""
    from tcplab import run
    from tcplab.testbed import conformance as cf

    point = cf.Point("short", duration=6.0, warmup=2.0)
    kern = run_scenario(cf.kernel_scenario(cf.scenario(point, "reno")), capture=False, native=True)
    assert kern.flows["kernel_cc"].tolist() == ["reno"]
    assert kern.meta["snd_mss"] == 1000 and kern.meta["mtu"] == 1052
    steps = np.diff(kern.series["time"].to_numpy())
    assert len(kern.series) > 400 and np.median(steps) == pytest.approx(0.01, abs=0.002)
    assert kern.meta["snmp"]["TcpOutSegs"] > 3000 and "TcpRetransSegs" in kern.meta["snmp"]
    assert len(kern.queues) > 400 and kern.links["max_queue"].iloc[0] <= point.buffer_packets
    k = cf.metrics(kern, 10e6, point.measure, float(kern.meta["snd_mss"]))
    assert 0.85 < k.utilisation <= 1.01, k
    assert 0.040 <= k.mean_rtt < 0.040 + 2 * point.buffer_packets * 1066 * 8 / 10e6
    assert 5 < k.mean_cwnd < 2 * (point.bdp_packets + point.buffer_packets)
    sim = run(cf.scenario(point, "reno", sim_stack=None))
    row = cf.compare_point(point, "reno", k, cf.metrics(sim, 10e6, point.measure, 1000.0))
    assert row["verdict"] in ("pass", "miss") and row["utilisation_check"] in ("pass", "miss")
    assert not net.present()


@needs_root
@needs_tools
def test_the_beds_own_jitter_is_small(built):
    from tcplab.testbed.jitter import measure

    j = measure(one_way=0.005, count=200, interval=0.005)
    assert j["replies"] >= 180
    # Nothing but a rare probe may beat the physical floor: two full test runs (2026-11-26 and
    # 27, both under load) each saw one round trip 0.13-0.58 ms below it, which no clock step
    # explains (the probe leaves out round trips over which the wall clock moved). Unexplained,
    # so the rest of the distribution must still sit above the floor.
    assert 0 < j["p1"] < 0.002 and j["median"] < 0.002 and j["min"] > -0.001, j
