"""Faults on the kernel test bed: killed and hung-up runs release everything they held,
``tcplab testbed cleanup`` never touches a live run, and the bed refuses what it cannot do.

The bed tests need root and the packages of scripts/install-kernel-deps.sh (CI has both);
each run is a few seconds."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tcplab import kernel
from tcplab.errors import ScenarioError
from tcplab.runner import run
from tcplab.scenario import Scenario, link
from tcplab.testbed import net, owner, plan, run_scenario, runner
from tcplab.testbed.available import missing_tools
from tcplab.testbed.runner import _records as records

needs_bed = pytest.mark.skipif(
    os.geteuid() != 0 or bool(missing_tools()), reason="needs root and scripts/install-kernel-deps.sh"
)

SCENARIO = """
[simulation]
duration = {duration}
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ rate = "10Mbps", delay = "10ms", buffer = 50 }}
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
"""
#: What the bed starts; none of it may outlive a run.
BED_PROCESSES = ("tl_delay", "traffic.py", "sampler.py", "owner.py", "tcpdump")


@pytest.fixture(scope="module")
def built():
    """The BPF objects and the delay element, where test_kernel.py built them (or the
    default build directory): make rebuilds only what is out of date."""
    return kernel.build()


def scenario(tmp_path: Path, duration: float = 4) -> Path:
    path = tmp_path / f"bed{duration}.toml"
    path.write_text(SCENARIO.format(duration=duration))
    return path


def start_run(path: Path) -> subprocess.Popen:
    """``tcplab testbed run`` in a process of its own."""
    cmd = [sys.executable, "-c", "from tcplab.cli import main; main()", "testbed", "run", str(path)]
    return subprocess.Popen([*cmd, "--no-capture"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def live_processes() -> dict[int, str]:
    """Command lines of live (not zombie) processes by pid."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            found[int(proc.name)] = cmd
    return found


def bed_processes() -> list[str]:
    """Command lines of live processes the bed starts."""
    return [
        cmd
        for cmd in live_processes().values()
        if any(name in cmd for name in BED_PROCESSES) and "pytest" not in cmd
    ]


def wait_for(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def transferring(p: subprocess.Popen) -> bool:
    """The run's traffic sender is up (its sockets are carrying data)."""
    pids = owner.run("ip", "netns", "pids", f"{owner.PREFIX}{p.pid}-s").stdout.split()
    for pid in pids:
        try:
            if b"traffic.py\0send" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return True
        except OSError:
            pass
    return False


def assert_nothing_left() -> None:
    assert net.present() == [], "namespaces left behind"
    wait_for(lambda: not bed_processes(), 5, f"bed processes to end: {bed_processes()}")
    assert not list(owner.STATE_DIR.glob("*.json")), "state files left behind"
    qdiscs = json.loads(owner.run("tc", "-j", "qdisc", "show").stdout or "[]")
    assert not [q for q in qdiscs if q.get("kind") in ("tbf", "pfifo")], qdiscs


@needs_bed
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGHUP], ids=["SIGKILL", "SIGHUP"])
def test_a_killed_or_hung_up_run_leaves_nothing_behind(sig, built, tmp_path):
    """SIGKILL (the guardian releases) or SIGHUP (the run tears down) mid-transfer, then a
    second run: no namespace, process, qdisc or state file remains, and no congestion
    control is held by orphaned sockets (so unload works at once)."""
    p = start_run(scenario(tmp_path))
    wait_for(lambda: transferring(p), 20, "the transfer to start")
    time.sleep(0.5)
    p.send_signal(sig)
    p.communicate(timeout=15)
    assert p.returncode == -9 if sig == signal.SIGKILL else p.returncode > 0  # SIGHUP: handled
    wait_for(lambda: not net.present(), 15, "the killed run's namespaces to go")
    assert kernel.held("reno") == 0, kernel.struct_ops_maps()
    r = run_scenario(scenario(tmp_path, duration=2), capture=False)
    assert r.flows["bytes_delivered"].iloc[0] > 100_000
    assert_nothing_left()
    kernel.unload("reno")
    assert "tl_reno" not in kernel.loaded() and kernel.held("reno") == 0


@needs_bed
def test_the_reaper_releases_a_run_whose_guardian_died_too(built, tmp_path):
    """Owner and guardian both SIGKILLed (as by a kill of every process): the reaper
    (``tcplab testbed cleanup``, and the start of every run) removes what they left."""
    p = start_run(scenario(tmp_path))
    wait_for(lambda: transferring(p), 20, "the transfer to start")
    guardians = [pid for pid, cmd in live_processes().items() if f"guard {owner.PREFIX}{p.pid}" in cmd]
    assert len(guardians) == 1, bed_processes()
    os.kill(guardians[0], signal.SIGKILL)
    p.kill()
    p.communicate(timeout=15)
    time.sleep(0.5)
    assert len(net.present()) == 4, "nothing released the namespaces yet"
    assert "removed 4 namespace" in cleanup_from_another_process()
    assert_nothing_left()


def cleanup_from_another_process() -> str:
    c = subprocess.run(
        [sys.executable, "-c", "from tcplab.cli import main; main()", "testbed", "cleanup"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert c.returncode == 0, c.stdout + c.stderr
    return c.stdout


@needs_bed
def test_cleanup_never_touches_a_live_run(built):
    """``tcplab testbed cleanup`` from another process while this one owns a bed: nothing
    is removed, and the bed still carries a transfer afterwards."""
    with net.idle_testbed(mtu=1052, buffer_packets=50) as bed:
        assert "removed 0 namespace" in cleanup_from_another_process()
        assert sorted(net.present()) == sorted(bed.namespaces)
        server = serve(bed, 5400)
        c = bed.run("s", *send_command(5400, "cubic", 1.0))
        assert json.loads(c.stdout)["sent"][0] > 100_000
        assert json.loads(server.communicate(timeout=10)[0])["received"][0] > 100_000
    assert_nothing_left()


def serve(bed: net.Bed, port: int) -> subprocess.Popen:
    """The bed's traffic receiver for one flow on ``port``, listening."""
    server = bed.spawn("h", *runner.serve_command(port, 1))
    assert server.stderr is not None and "ready" in server.stderr.readline()
    return server


def send_command(port: int, cc: str, seconds: float) -> tuple[str, ...]:
    """The bed's traffic sender: one flow of ``cc`` to ``port`` for ``seconds``."""
    flows = [{"cc": cc, "start": 0.0, "stop": seconds}]
    return runner.send_command(net.RECEIVER_ADDR, port, port + 1000, flows)


def established(bed: net.Bed, port: int) -> bool:
    out = bed.run("s", "ss", "-Htn", "state", "established", f"( dport = :{port} )").stdout
    return bool(out.strip())


@needs_bed
def test_unload_succeeds_while_an_earlier_registration_is_still_held(built):
    """A connection keeps an unregistered tl_reno alive; a second registration of the same
    name then unloads cleanly (by id, not tripping over the held one), and the bed's
    teardown aborts the connection so the held one goes too."""
    kernel.load("reno")
    with net.idle_testbed(mtu=1052, buffer_packets=50) as bed:
        serve(bed, 5400)
        bed.spawn("s", *send_command(5400, "tl_reno", 30.0))
        wait_for(lambda: established(bed, 5400), 10, "the connection")
        kernel.unload("reno")
        assert kernel.held("reno") >= 1, kernel.struct_ops_maps()
        kernel.load("reno")
        kernel.unload("reno")
        assert "tl_reno" not in kernel.loaded()
    wait_for(lambda: kernel.held("reno") == 0, 10, f"the held map to go: {kernel.struct_ops_maps()}")


@needs_bed
def test_jumbo_segments_cross_the_bed(built, tmp_path):
    """The largest mss the plan allows reaches the receiver whole (the delay element once
    cut frames at 2048 bytes: goodput 0, exit code 0)."""
    s = Scenario.dumbbell(1, link("10Mbps", "10ms", 50), duration=2)
    s.add_flow("s0", "d0", "reno")
    s.doc["tcp"] = {"mss": 8960, "stack": "linux"}
    r = run_scenario(s, capture=False)
    assert r.meta["mtu"] == 9012 and r.meta["snd_mss"] == 8960
    assert r.flows["bytes_delivered"].iloc[0] > 1_000_000


def test_a_flow_that_delivered_nothing_is_an_error():
    """A bed that carries no segment is an error naming the flow, never goodput 0."""
    s = Scenario.dumbbell(1, link("10Mbps", "10ms", 50), duration=2)
    s.add_flow("s0", "d0", "reno", name="f")
    with pytest.raises(net.TestbedError, match="flow f delivered no data"):
        records(plan(s), [0], "[]", None)


def documented_tcp_keys() -> list[str]:
    """The ``[tcp]`` keys of docs/scenario.md's table."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "scenario.md").read_text()
    section = text.split("## `[tcp]`", 1)[1].split("\n## ", 1)[0]
    return [line.split("`")[1] for line in section.splitlines() if line.startswith("| `")]


def one_flow(**tcp) -> Scenario:
    s = Scenario.dumbbell(1, link("10Mbps", "10ms", 50), duration=2)
    s.add_flow("s0", "d0", "reno")
    s.doc["tcp"] = tcp
    return s


def test_every_tcp_key_is_applied_or_refused():
    """No [tcp] key is accepted and ignored: the bed's own keys are in TCP_KEYS (each
    tested below), every other documented key is refused naming it."""
    from tcplab.testbed.plan import TCP_KEYS

    keys = documented_tcp_keys()
    assert len(keys) > 20 and set(TCP_KEYS) <= set(keys)
    for key in set(keys) - set(TCP_KEYS):
        with pytest.raises(ScenarioError, match=rf"tcp\.{key}: .*not supported"):
            plan(one_flow(**{key: 1}))


@pytest.mark.parametrize("rwnd", [20, 99999, 2.5e5, True, "big"])
def test_a_receive_window_that_could_limit_is_refused(rwnd):
    with pytest.raises(ScenarioError, match=r"tcp\.rwnd: .*allowed: an integer >= 100000"):
        plan(one_flow(rwnd=rwnd))
    assert plan(one_flow(rwnd=100000)).mss == 1000


@pytest.mark.parametrize("key", ["rwnd_autotune", "rwnd_growth_ack", "push_ack"])
def test_the_kernels_own_receiver_rules_cannot_be_turned_off(key):
    """The kernel always autotunes its window, ACKs a segment that widens it at once and a
    full-sized one with PSH: true (or leaving the key out) is what the bed does, false is
    refused naming the key."""
    assert plan(one_flow(**{key: True})).mss == 1000
    with pytest.raises(ScenarioError, match=rf"tcp\.{key}: False: the kernel always .* allowed: true"):
        plan(one_flow(**{key: False}))


@pytest.mark.parametrize("value", ["none", "burst", True, 1])
def test_the_kernel_marks_psh_on_its_gso_packets(value):
    """The bed's sender marks PSH itself, on every GSO packet of two or more segments:
    app_push "gso" (or left out) is what it does, anything else is refused naming the key
    and the allowed value."""
    assert plan(one_flow(app_push="gso")).mss == 1000
    with pytest.raises(ScenarioError, match=r"tcp\.app_push: .*the kernel always .* allowed: 'gso'"):
        plan(one_flow(app_push=value))


def test_the_kernel_always_defers_small_sends():
    """TSO deferral is the kernel's (tcp_tso_should_defer): tso_defer true or left out."""
    assert plan(one_flow(tso_defer=True)).mss == 1000
    with pytest.raises(
        ScenarioError, match=r"tcp\.tso_defer: False: the kernel always defers .* allowed: true"
    ):
        plan(one_flow(tso_defer=False))


@pytest.mark.parametrize("stack", ["linux", None])
def test_the_bed_sends_the_simulators_segments_when_mss_is_left_out(stack):
    """A scenario without tcp.mss gets the simulator's default segment on the bed too (the
    linux profile's 1448, NS-2's 1000): a transfer of 12 of the simulator's segments is 12."""
    s = one_flow(**({"stack": stack} if stack else {}))
    mss = plan(s).mss
    s.doc["flows"][0]["bytes"] = 12 * mss
    assert run(s).flows["segments_sent"].iloc[0] == 12


def test_header_bytes_must_be_what_the_bed_carries():
    """66 with the linux stack (Ethernet 14 + 52 of IP, TCP and timestamps), 54 without
    (the MTU is mss + 40 then); any other figure is refused with the allowed one."""
    assert plan(one_flow(stack="linux", header_bytes=66)).mtu == 1500
    assert plan(one_flow(stack="linux", mss=1000, header_bytes=66)).mtu == 1052
    assert plan(one_flow(header_bytes=54)).mtu == 1040
    with pytest.raises(ScenarioError, match=r"tcp\.header_bytes: 52: .* allowed: 66"):
        plan(one_flow(stack="linux", header_bytes=52))
    with pytest.raises(ScenarioError, match=r"tcp\.header_bytes: 40: .* allowed: 54"):
        plan(one_flow(header_bytes=40))


@needs_bed
def test_the_kernels_buffers_cover_the_path(built):
    """A path holding more than Linux's default buffer limits gets larger ones, so that
    (as in the simulator) no receive window limits the flows."""
    with net.idle_testbed(rate_bps=1e9, one_way_us=50000, window_bytes=14_000_000) as bed:
        rmem = bed.run("h", "sysctl", "-n", "net.ipv4.tcp_rmem").stdout.split()
        wmem = bed.run("s", "sysctl", "-n", "net.ipv4.tcp_wmem").stdout.split()
    assert int(rmem[2]) == int(wmem[2]) == 28_000_000


def registered_tag(kname: str) -> tuple[int, str]:
    """The registered map's id and its ssthresh program's tag."""
    (m,) = [m for m in kernel.struct_ops_maps() if m.name == kname and m.state == "INUSE"]
    dump = json.loads(owner.run("bpftool", "-j", "struct_ops", "dump").stdout)  # info, value, ...
    at = next(i for i, d in enumerate(dump) if d.get("bpf_map_info", {}).get("id") == m.id)
    ops = dump[at + 1]["bpf_struct_ops_tcp_congestion_ops"]
    prog = ops["data"]["ssthresh"].rsplit("prog_id:", 1)[1]
    return m.id, json.loads(owner.run("bpftool", "-j", "prog", "show", "id", prog).stdout)["tag"]


@needs_bed
def test_load_rebuilds_an_edited_source_and_replaces_the_registration(tmp_path, monkeypatch):
    """An edited bpf/*.c reaches the kernel at the next load (rebuilt, re-registered); an
    unchanged one is left registered; a registration load did not make is replaced."""
    src = tmp_path / "bpf"
    shutil.copytree(kernel.bpf_dir(), src, ignore=shutil.ignore_patterns("build"))
    monkeypatch.setenv("TCPLAB_BPF_DIR", str(src))
    monkeypatch.setenv("TCPLAB_KERNEL_BUILD", str(tmp_path / "build"))
    kernel.unload("reno")
    kernel.load("reno")
    first = registered_tag("tl_reno")
    kernel.load("reno")
    assert registered_tag("tl_reno") == first, "an unchanged object must stay registered"
    code = (src / "tl_reno.c").read_text()
    (src / "tl_reno.c").write_text(code.replace("ca->cwnd_fp, 1, 2)", "ca->cwnd_fp, 3, 4)"))
    obj = tmp_path / "build" / "tl_reno.bpf.o"
    built_at = obj.stat().st_mtime_ns
    kernel.load("reno")
    edited = registered_tag("tl_reno")
    assert obj.stat().st_mtime_ns > built_at, "the edited source was not rebuilt"
    assert edited[0] != first[0] and edited[1] != first[1], "the edited program was not registered"
    (src / "tl_reno.c").write_text(code)
    kernel.unload("reno")
    owner.run("bpftool", "struct_ops", "register", str(kernel.build_object("tl_reno")))
    foreign = registered_tag("tl_reno")
    kernel.load("reno")
    assert registered_tag("tl_reno")[0] != foreign[0], "a registration load did not make was kept"
    assert registered_tag("tl_reno")[1] == first[1]
    kernel.unload("reno")


def test_missing_tools_are_named_with_their_package(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(net.TestbedError) as e:
        net.require(("ping", "ethtool", "ss"))
    message = str(e.value)
    for text in ("ping (Debian package iputils-ping)", "ethtool (Debian package ethtool)", "iproute2"):
        assert text in message
    assert "scripts/install-kernel-deps.sh" in message


def test_the_install_script_installs_every_package_the_bed_names():
    from tcplab.testbed.available import PACKAGES

    script = (Path(__file__).resolve().parents[1] / "scripts" / "install-kernel-deps.sh").read_text()
    installed = script.split("apt-get install", 1)[1].replace("\\", " ").split()
    assert set(PACKAGES.values()) <= set(installed), set(PACKAGES.values()) - set(installed)


@needs_bed
def test_an_ethtool_failure_is_an_error(built, monkeypatch, tmp_path):
    """Offloads left on would make the bed measure super-packets: a failing ethtool stops
    the run (and the bed is torn down)."""
    fake = tmp_path / "ethtool"
    fake.write_text("#!/bin/sh\necho 'Cannot change features' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    with pytest.raises(net.TestbedError, match="ethtool .* failed .*Cannot change features"):
        run_scenario(one_flow(), capture=False)
    assert net.present() == []


@needs_bed
def test_a_claim_left_before_its_teardown_finished_is_released_by_its_guardian():
    """A second signal can cut a teardown short: the claim then keeps its state file and
    the guardian releases what is left as soon as the claim's lock is free."""
    tag = f"{owner.PREFIX}{os.getpid()}"
    with owner.claim(tag, [f"{tag}-s"]):
        owner.run("ip", "netns", "add", f"{tag}-s")
    wait_for(lambda: not net.present(), 15, "the guardian to release the namespace")
    assert not list(owner.STATE_DIR.glob("*.json"))


@needs_bed
def test_a_sampler_that_dies_mid_run_fails_the_run(built, monkeypatch, tmp_path):
    """A run whose tcp_info samples stop part-way is no measurement: it is an error naming
    the sampler (and so never stored), not a run whose figures quietly go missing."""
    from tcplab.testbed import runner

    fake = tmp_path / "sampler.py"
    fake.write_text(
        "import sys, time\nprint('ready', file=sys.stderr, flush=True)\ntime.sleep(0.5)\n"
        "print('netlink went away', file=sys.stderr, flush=True)\nsys.exit(3)\n"
    )
    monkeypatch.setattr(runner, "SAMPLER", fake)
    with pytest.raises(net.TestbedError, match="sampler died during the run .*netlink went away"):
        run_scenario(one_flow(), capture=False)
    assert net.present() == []


def test_the_access_rate_becomes_transmission_time_and_a_bad_one_is_named():
    """The bed takes the access links' rate (the simulator's default 100 Mb/s when unset)
    and adds each frame's transmission on them and the bottleneck; nonsense is refused."""
    s = one_flow()
    assert plan(s).access_rate_bps == 100e6
    s.doc["topology"]["access"] = {"rate": "1Gbps", "delay": "1ms"}
    assert plan(s).access_rate_bps == 1e9
    # 10 Mb/s bottleneck: 800 ns a byte, and 8 ns on each 1 Gb/s access link.
    assert net.transmission_ns_per_byte(10e6, 1e9) == pytest.approx(816.0)
    s.doc["topology"]["access"] = {"rate": "0bps"}
    with pytest.raises(ScenarioError, match=r"topology\.access\.rate: .*allowed: 1 kbit/s to 100 Gbit/s"):
        plan(s)


@needs_bed
def test_flows_that_start_together_start_together(built):
    """Two flows with start = 0 send their first windows together (every connection opens
    before any flow sends): their first acknowledged data lies within the bottleneck's
    spacing of one window and the sampling step. iperf3's per-test control exchange
    started them 30-160 ms apart."""
    s = Scenario.dumbbell(2, link("10Mbps", "10ms", 50), duration=3)
    s.add_flow("s0", "d0", "reno")
    s.add_flow("s1", "d1", "reno")
    r = run_scenario(s, capture=False)
    first = [
        float(r.series[(r.series["flow"] == i) & (r.series["bytes_delivered"] >= 5000)]["time"].min())
        for i in (0, 1)
    ]
    assert abs(first[0] - first[1]) <= 0.025, first
    assert 0.0 < min(first) < 0.2, first


def test_the_delay_elements_counters_are_read_from_its_exit_line():
    """tl_delay's last line holds what the path really did (frames forwarded, random and
    ring-full drops); a run keeps it in meta["delay_element"]. No line, no counters."""
    line = "tl_delay: forwarded 12004/6120, dropped (random) 61, dropped (ring full) 0/0\n"
    assert net.parse_delay_counters("tl_delay: ready\n" + line) == {
        "forwarded_data": 12004,
        "forwarded_acks": 6120,
        "dropped_random": 61,
        "dropped_full_data": 0,
        "dropped_full_acks": 0,
    }
    assert net.parse_delay_counters("killed\n") == {}


@needs_bed
def test_a_lossy_run_records_the_drops_the_path_applied(built):
    s = Scenario.dumbbell(1, link("10Mbps", "10ms", 50, loss={"model": "bernoulli", "p": 0.02}), duration=3)
    s.add_flow("s0", "d0", "reno")
    r = run_scenario(s, capture=False)
    d = r.meta["delay_element"]
    assert d["forwarded_data"] > 500 and d["dropped_full_data"] == 0
    rate = d["dropped_random"] / (d["forwarded_data"] + d["dropped_random"])
    assert 0.005 < rate < 0.05, d


@pytest.mark.parametrize("value", ["segment", True, 2])
def test_the_kernel_paces_whole_gso_packets(value):
    """The bed's kernel paces per skb (tcp_write_xmit): pacing_unit "gso" (or left out) is
    what it does, anything else is refused naming the key and the allowed value."""
    assert plan(one_flow(pacing_unit="gso")).mss == 1000
    with pytest.raises(ScenarioError, match=r"tcp\.pacing_unit: .*the kernel always paces .* allowed: 'gso'"):
        plan(one_flow(pacing_unit=value))
