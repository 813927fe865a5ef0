#!/usr/bin/env python3
"""tcplab's benchmark suite: tcplab against ns-3 on the same scenarios, scaling, profile.

    python3 bench/run.py                  # everything: suite, scaling, profile
    python3 bench/run.py --only suite     # tcplab vs ns-3 on scenarios (a) to (d)
    python3 bench/run.py --only suite --scenarios d     # one scenario of the suite
    python3 bench/run.py --quick          # the same with durations cut tenfold (smoke test)
    python3 bench/run.py --only suite --scenarios a,b,e --stack linux --nosack ''
                                          # tcplab's linux profile against ns-3 set to match

On first use it creates bench/.venv and installs ns3 (3.44, the C++ libraries and headers
are in the wheel) and matplotlib there, then re-runs itself with that interpreter. It
builds tcplab's `bench_scenario` example in release mode and, when the suite runs, the
ns-3 programs with bench/ns3/build.sh. The scaling and profile parts need no ns-3:

    TCPLAB_BENCH_NO_VENV=1 python3 bench/run.py --only scaling   # any python with matplotlib

Nor does the suite with --ns3-runs 0, tcplab alone; with a baseline revision it gives the
before/after ratios of an engine change (needs no venv at all):

    python3 bench/run.py --only suite --ns3-runs 0 --baseline-rev main --scenarios a,b,c,e

Every figure is printed; nothing is asserted about time. Results go to
bench/out/results.json, plots to docs/perf/ (bench/out/perf/ with --quick). See
docs/performance.md.

What is counted, in both simulators: `packets delivered` = data packets that reached their
receiver + pure ACKs that reached their sender. Wall time is the elapsed time of the whole
child process (set-up included), best of N, with its CPU time (user + system, from wait4:
steadier than wall time on a loaded machine); peak memory is the child's maximum resident set
size (Linux VmHWM, which each program reads from /proc/self/status as it finishes).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
VENV = BENCH / ".venv"
OUT = BENCH / "out"
PLOTS = ROOT / "docs" / "perf"
TCPLAB_BIN = ROOT / "target" / "release" / "examples" / "bench_scenario"
NS3_BUILD = BENCH / "ns3" / "build"
SUITE = [
    ("a", "2 flows, 10 Mb/s, 23 ms, 100 pkts, 200 s"),
    ("b", "10 flows, 100 Mb/s, 10 ms, 200 pkts, 100 s"),
    ("c", "100 flows, 1 Gb/s, 10 ms, 2000 pkts, 20 s"),
    ("d", "802.11a WLAN, 16 uplink flows, 54 Mb/s, AP buffer 100 pkts, 60 s"),
    ("e", "2 NewReno + 1 Vegas flows, 100 Mb/s, 10 ms, 200 pkts, 100 s"),
]
STACKS = ("ns2", "linux")
# Per stack profile: bytes of a full data packet at the IP layer and its payload (tcplab's
# `mss` + `header_bytes`, docs/scenario.md; ns-3's SegmentSize + headers, common.h).
PACKET_BYTES = {"ns2": (1040, 1000), "linux": (1500, 1448)}
# The comparison criteria of tcplab's linux profile against ns-3 (docs/performance.md).
GOODPUT_TOLERANCE = 0.05
RETRANSMISSION_TOLERANCE = 0.25
MIN_SPEED_RATIO = 100.0
# ns-3 program for each tcplab topology preset.
NS3_PROGRAM = {"dumbbell": "dumbbell", "wlan": "wlan"}


# ----------------------------------------------------------------------------- set-up


def in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def ensure_venv() -> Path:
    """bench/.venv's interpreter, the venv created and ns3 and matplotlib installed in it if
    needed."""
    py = VENV / "bin" / "python"
    if not py.exists():
        print(f"creating {VENV} and installing ns3 and matplotlib (a few minutes, once)")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = (
        "import importlib.util as u, sys; "
        "sys.exit(0 if u.find_spec('ns3') and u.find_spec('matplotlib') else 1)"
    )
    if subprocess.run([str(py), "-c", probe]).returncode != 0:
        subprocess.run([str(py), "-m", "pip", "install", "-r", str(BENCH / "requirements.txt")], check=True)
    return py


def bootstrap() -> None:
    """Re-runs this script inside bench/.venv, creating it (ns3, matplotlib) if needed."""
    if in_venv() or os.environ.get("TCPLAB_BENCH_NO_VENV"):
        return
    py = ensure_venv()
    os.execv(str(py), [str(py), str(Path(__file__).resolve()), *sys.argv[1:]])


def build_ns3(python: str | Path) -> None:
    """The ns-3 programs (bench/ns3/build.sh), against the ns3 wheel of ``python``'s environment."""
    subprocess.run([str(BENCH / "ns3" / "build.sh"), str(python)], check=True, stdout=subprocess.DEVNULL)


def build(ns3: bool) -> None:
    """tcplab's bench_scenario, and the ns-3 programs if ``ns3`` (only the suite runs ns-3;
    building them needs the ns3 wheel in bench/.venv)."""
    print(f"building tcplab (release){' and the ns-3 programs' if ns3 else ''} ...", flush=True)
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "-p", "tcplab", "--example", "bench_scenario"],
        cwd=ROOT,
        check=True,
    )
    if ns3:
        build_ns3(sys.executable)


def build_baseline(rev: str) -> Path:
    """tcplab's bench_scenario at git revision `rev` (today's example file, that
    revision's engine), built in bench/out so the working tree is untouched."""
    target = OUT / "baseline-target"
    src = OUT / f"baseline-{rev}"
    binary = target / "release" / "examples" / "bench_scenario"
    stamp = src / ".built"
    if not (stamp.exists() and binary.exists() and stamp.read_text() == rev):
        print(f"building the baseline engine at {rev} ...", flush=True)
        shutil.rmtree(src, ignore_errors=True)
        src.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        shutil.copy(
            ROOT / "crates" / "tcplab" / "examples" / "bench_scenario.rs",
            src / "crates" / "tcplab" / "examples" / "bench_scenario.rs",
        )
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "-p", "tcplab", "--example", "bench_scenario"],
            cwd=src,
            check=True,
            env={**os.environ, "CARGO_TARGET_DIR": str(target)},
        )
        stamp.write_text(rev)
    return binary


# ----------------------------------------------------------------------------- scenarios


def parse_rate(s) -> float:
    """Bits per second from a tcplab rate ("10Mbps", "1Gbps", 1e6)."""
    if isinstance(s, (int, float)):
        return float(s)
    s = s.strip().lower().replace("/s", "ps")
    for unit, mult in (("gbps", 1e9), ("mbps", 1e6), ("kbps", 1e3), ("bps", 1.0)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * mult
    return float(s)


def parse_seconds(s) -> float:
    if isinstance(s, (int, float)):
        return float(s)
    s = s.strip()
    for unit, mult in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("s", 1.0)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * mult
    return float(s)


def dumbbell_toml(
    flows: int,
    rate_bps: float,
    delay_s: float,
    buffer: int,
    duration: float,
    access_bps: float = 1e9,
    access_delay_s: float = 0.001,
    access_buffer: int = 1000,
    sample_interval: float = 0.0,
) -> str:
    """A dumbbell scenario with one NewReno flow per sender/receiver pair."""
    lines = [
        "[simulation]",
        f"duration = {duration}",
        f"sample_interval = {sample_interval}",
        "",
        "[topology]",
        'kind = "dumbbell"',
        f"pairs = {flows}",
        f"bottleneck = {{ rate = {rate_bps:.0f}, delay = {delay_s}, buffer = {buffer} }}",
        f"access = {{ rate = {access_bps:.0f}, delay = {access_delay_s}, buffer = {access_buffer} }}",
    ]
    for i in range(flows):
        lines += ["", "[[flows]]", f'src = "s{i}"', f'dst = "d{i}"', 'cc = "newreno"']
    return "\n".join(lines) + "\n"


def with_duration(text: str, duration: float) -> str:
    """The scenario text with its simulated duration replaced."""
    out = []
    for line in text.splitlines():
        if line.startswith("duration ="):
            line = f"duration = {duration}"
        out.append(line)
    return "\n".join(out) + "\n"


def with_stack(text: str, stack: str) -> str:
    """The scenario text run with tcplab's stack profile ``stack``: unchanged for ``ns2``
    (the default, which engines before the stack profiles also run), else with
    ``[tcp] stack`` added. A scenario with a ``[tcp]`` table of its own is refused."""
    if stack == "ns2":
        return text
    if "tcp" in tomllib.loads(text) or "\n[tcp]" in text:
        raise SystemExit("--stack: the scenario has a [tcp] table of its own")
    return text.rstrip("\n") + f'\n\n[tcp]\nstack = "{stack}"\n'


def with_start_offset(text: str, offset: float) -> str:
    """The scenario text with flow i starting at i * ``offset`` seconds (a perturbation that
    shows how much per-flow figures depend on the exact timing); unchanged for 0."""
    if not offset:
        return text
    out, flow = [], -1
    for line in text.splitlines():
        out.append(line)
        if line.strip() == "[[flows]]":
            flow += 1
            out.append(f"start = {flow * offset!r}")
    return "\n".join(out) + "\n"


def ns3_cc(flow: dict) -> str:
    """bench/ns3/dumbbell's name for a flow's congestion control: NewReno (or Reno), Vegas as
    Linux's tcp_vegas.c sets it (ns-3's TcpVegas: alpha 2, beta 4, gamma 1), CUBIC with
    HyStart (ns-3's TcpCubic runs it, as tcp_cubic does by default; tcplab's CUBIC runs it
    only with ``hystart = true``; ``variant`` and ``reno_alpha`` may be left out or be
    Linux's: ns-3 ported TcpCubic from Linux's tcp_cubic.c), or BBR v1 (ns-3's TcpBbr; tcplab's ``bbr`` has no
    parameters)."""
    cc = flow.get("cc", "newreno")
    if isinstance(cc, str):
        cc = {"name": cc}
    name = cc.get("name")
    if name in ("newreno", "reno", "bbr") and set(cc) == {"name"}:
        return name
    if name == "vegas" and cc.get("variant") == "linux" and set(cc) <= {"name", "variant"}:
        return "vegas"
    if (
        name == "cubic"
        and cc.get("hystart") is True
        # ns-3 ported TcpCubic from tcp_cubic.c
        and cc.get("reno_alpha", "linux") == "linux"
        and cc.get("variant", "linux") == "linux"
        and set(cc) <= {"name", "hystart", "reno_alpha", "variant"}
    ):
        return "cubic"
    hint = (
        ' (ns-3\'s TcpCubic runs HyStart: give cc = { name = "cubic", hystart = true })'
        if name == "cubic"
        else ""
    )
    raise SystemExit(f"bench/ns3/dumbbell has no counterpart of cc = {cc!r}{hint}")


# Bytes a data packet carries besides its payload on ns-3's point-to-point wire: IPv4 20, TCP
# 20, the timestamp option padded to 12 when the profile has timestamps, PPP 2.
NS3_DATA_OVERHEAD = {"ns2": 20 + 20 + 2, "linux": 20 + 20 + 12 + 2}
# The flow keys bench/ns3/dumbbell models.
DUMBBELL_FLOW_KEYS = {"src", "dst", "cc", "name", "start"}


def bottleneck_loss(link: dict) -> float:
    """The probability of ``--loss``: a Bernoulli loss of data packets, or none. Which
    sequence tcplab draws (``stream``, ``skip``) does not carry over: ns-3 always draws from
    its own generator, so the two simulators never lose the same packets by index."""
    loss = link.get("loss")
    if loss is None:
        return 0.0
    if (
        loss.get("model") != "bernoulli"
        or loss.get("applies_to", "data") != "data"
        or set(loss) - {"model", "p", "applies_to", "stream", "skip"}
    ):
        raise SystemExit(
            f"bench/ns3/dumbbell models Bernoulli loss of data packets only, not loss = {loss!r}"
        )
    return float(loss["p"])


def rate_scale(tcp: dict, stack: str) -> float:
    """The factor on every link rate that makes a full data frame take as long to serialise
    in ns-3 as in tcplab: with ``[tcp] header_bytes`` (tcplab's per-packet bytes besides the
    payload, e.g. 66 for an Ethernet frame with timestamps), ns-3's frame over tcplab's; 1
    without (the profiles' own header sizes, which ns-3 matches within its 2-byte PPP header)."""
    if "header_bytes" not in tcp:
        return 1.0
    mss = int(tcp.get("mss", PACKET_BYTES[stack][1]))
    return (mss + NS3_DATA_OVERHEAD[stack]) / (mss + int(tcp["header_bytes"]))


def dumbbell_args(scenario: dict, sack: bool, stack: str = "ns2", start_offset: float = 0.0) -> list[str]:
    """Command-line arguments of bench/ns3/dumbbell for the same dumbbell, with ns-3's TCP
    set to match tcplab's stack profile ``stack`` (the document's ``[tcp] stack`` when it has
    one). Beyond the profile, ``[tcp]`` may set ``mss`` and ``header_bytes``; the bottleneck
    a Bernoulli ``loss`` of data; flows a ``start``. Anything else is refused, not dropped."""
    tcp = scenario.get("tcp", {})
    stack = tcp.get("stack", stack)
    if stack not in STACKS:
        raise SystemExit(
            f"bench/ns3/dumbbell models the stack profiles {STACKS}, not [tcp] stack = {stack!r}"
        )
    extra_tcp = set(tcp) - {"stack", "mss", "header_bytes"}
    extra_flow = {k for f in scenario["flows"] for k in f} - DUMBBELL_FLOW_KEYS
    if extra_tcp or extra_flow:
        raise SystemExit(
            "bench/ns3/dumbbell models tcplab's stack profiles with [tcp] mss and header_bytes only; "
            f"it has no counterpart of [tcp] keys {sorted(extra_tcp)} or flow keys {sorted(extra_flow)}"
        )
    senders = [f.get("src") for f in scenario["flows"]]
    receivers = [f.get("dst") for f in scenario["flows"]]
    if len(set(senders)) < len(senders) or len(set(receivers)) < len(receivers):
        raise SystemExit(
            "bench/ns3/dumbbell gives every flow its own sender and receiver; flows from "
            f"{senders} to {receivers} share a host (conformance.scenario: shared_hosts=False)"
        )
    topo = scenario["topology"]
    b = topo["bottleneck"]
    # tcplab's defaults: an access table without a buffer has a link's default (100 packets).
    a = topo.get("access", {"rate": 100e6, "delay": 0.001, "buffer": 1000})
    unsupported = {f"bottleneck.{k}" for k in set(b) - {"rate", "delay", "buffer", "loss"}} | {
        f"access.{k}" for k in set(a) - {"rate", "delay", "buffer"}
    }
    if unsupported:
        raise SystemExit(f"bench/ns3/dumbbell does not model topology keys {sorted(unsupported)}")
    scale = rate_scale(tcp, stack)
    rate = parse_rate(b["rate"])
    delay = parse_seconds(b["delay"])
    access_rate = parse_rate(a["rate"])
    access_delay = parse_seconds(a["delay"])
    buffer = int(b.get("buffer", 100))
    flows = len(scenario["flows"])
    starts = [float(f.get("start", 0.0)) for f in scenario["flows"]]
    if start_offset and any(starts):
        raise SystemExit("bench/ns3/dumbbell: flows with a start of their own take no start offset")
    # Socket buffers: 8 times a flow's fair share of the largest window the path allows
    # (bandwidth-delay product + bottleneck buffer), so the buffers never limit the window
    # in practice (ns-3's BulkSend keeps the send buffer full, which costs memory).
    rtt = 2 * (delay + 2 * access_delay)
    packet, payload = PACKET_BYTES[stack]
    if "mss" in tcp:
        payload = int(tcp["mss"])
        packet = payload + int(tcp.get("header_bytes", packet - PACKET_BYTES[stack][1]))
    window_pkts = rate * rtt / 8 / packet + buffer
    socket_buffer = max(131072, int(8 * window_pkts * payload / flows))
    args = [
        f"--flows={flows}",
        f"--bottleneckRate={rate * scale:.0f}bps",
        f"--bottleneckDelay={delay * 1e9:.0f}ns",
        f"--bottleneckBuffer={buffer}",
        f"--accessRate={access_rate * scale:.0f}bps",
        f"--accessDelay={access_delay * 1e9:.0f}ns",
        f"--accessBuffer={int(a.get('buffer', 100))}",
        f"--duration={scenario['simulation']['duration']}",
        f"--sack={'true' if sack else 'false'}",
        f"--socketBuffer={socket_buffer}",
        f"--stack={stack}",
        f"--cc={','.join(ns3_cc(f) for f in scenario['flows'])}",
        f"--startOffsetNs={round(start_offset * 1e9)}",
    ]
    if "mss" in tcp:
        args.append(f"--segmentSize={int(tcp['mss'])}")
    loss = bottleneck_loss(b)
    if loss:
        args.append(f"--loss={loss!r}")
    if any(starts):
        args.append(f"--starts={','.join(repr(t) for t in starts)}")
    if "seed" in scenario["simulation"]:
        args.append(f"--seed={int(scenario['simulation']['seed'])}")
    interval = float(scenario["simulation"].get("sample_interval", 0) or 0)
    if interval > 0:
        args.append(f"--sampleInterval={interval!r}")
    return args


# tcplab's `wlan` defaults (crates/tcplab/src/config/wlan.rs, wifi/propagation.rs) for keys
# a scenario leaves out, and the keys bench/ns3/wlan.cc can model.
WLAN_DEFAULTS = {
    "distance": 4.0,
    "ap_buffer": 100,
    "station_buffer": 10000,
    "rts_cts": False,
    "ap_access": "difs",
    "ap_backoff": True,
    "frame_log": False,
    "wired": {"rate": 100e6, "delay": 0.1, "buffer": 1000},
}
WLAN_MAC_DEFAULTS = {
    "rate": 54e6,
    "basic_rate": 24e6,
    "slot": 9e-6,
    "sifs": 16e-6,
    "difs": 34e-6,
    "cw_min": 15,
    "cw_max": 1023,
    "retry_limit": 7,
}
WLAN_RADIO_DEFAULTS = {
    "tx_power_dbm": 20.0,
    "frequency_hz": 5.2e9,
    "path_loss_exponent": 2.0,
    "cs_threshold_dbm": -82.0,
    "noise_dbm": -96.0,
}


def wlan_args(scenario: dict, sack: bool) -> list[str]:
    """Command-line arguments of bench/ns3/wlan for the same WLAN: every value from the
    scenario (tcplab's defaults where it has none). Settings the ns-3 program does not
    model are refused rather than silently dropped."""
    topo = dict(scenario["topology"])
    topo.pop("kind")
    stations = int(topo.pop("stations"))
    mac = {**WLAN_MAC_DEFAULTS, **topo.pop("mac", {})}
    radio = {**WLAN_RADIO_DEFAULTS, **topo.pop("radio", {})}
    w = {**WLAN_DEFAULTS, **topo}
    unsupported = (
        set(w) - set(WLAN_DEFAULTS)
        | set(mac) - set(WLAN_MAC_DEFAULTS)
        | set(radio) - set(WLAN_RADIO_DEFAULTS)
    )
    if w["ap_access"] != "difs" or not w["ap_backoff"] or w["frame_log"]:
        unsupported.add("ap_access/ap_backoff/frame_log")
    tcp = scenario.get("tcp", {})
    if set(tcp) - {"rwnd"} or any("tcp" in f for f in scenario["flows"]):
        raise SystemExit("bench/ns3/wlan models tcplab's TCP defaults; only [tcp] rwnd may be set")
    rwnd = int(tcp.get("rwnd", 100000))
    expected = [(f"w{i}", "h0") for i in range(stations)]
    flows = [(f["src"], f["dst"]) for f in scenario["flows"]]
    if flows != expected or any(f.get("cc") != "newreno" for f in scenario["flows"]):
        raise SystemExit("bench/ns3/wlan models one NewReno uplink flow w_i -> h0 per station")
    wired = w["wired"]
    unsupported |= {f"wired.{k}" for k in set(wired) - {"rate", "delay", "buffer"}}
    if unsupported:
        raise SystemExit(f"bench/ns3/wlan does not model topology keys {sorted(unsupported)}")
    wired_rate = parse_rate(wired["rate"])
    wired_delay = parse_seconds(wired["delay"])
    wired_buffer = int(wired.get("buffer", 100))
    us = 1e6
    # Socket buffers of rwnd segments (ns-3 advertises its free receive buffer), or, when
    # the path holds less (its station queue, the AP queue, both wired queues and the wired
    # round trip), of what the path holds: the window is then limited as in tcplab.
    path_pkts = (
        int(w["station_buffer"])
        + int(w["ap_buffer"])
        + 2 * wired_buffer
        + 2 * wired_rate * wired_delay / 8 / 1040
    )
    socket_pkts = min(rwnd, int(path_pkts))
    # ns-3 sets the noise floor as thermal noise in 20 MHz plus a noise figure (the
    # program converts), and DIFS as SIFS + AIFSN slots (the program checks it is whole).
    return [
        f"--stations={stations}",
        f"--distance={float(w['distance'])}",
        f"--apBuffer={int(w['ap_buffer'])}",
        f"--stationBuffer={int(w['station_buffer'])}",
        f"--rtsCts={'true' if w['rts_cts'] else 'false'}",
        f"--wiredRate={wired_rate:.0f}bps",
        f"--wiredDelay={wired_delay * 1e9:.0f}ns",
        f"--wiredBuffer={wired_buffer}",
        f"--dataRate={parse_rate(mac['rate']) / 1e6:.0f}",
        f"--basicRate={parse_rate(mac['basic_rate']) / 1e6:.0f}",
        f"--slot={parse_seconds(mac['slot']) * us:g}",
        f"--sifs={parse_seconds(mac['sifs']) * us:g}",
        f"--difs={parse_seconds(mac['difs']) * us:g}",
        f"--cwMin={int(mac['cw_min'])}",
        f"--cwMax={int(mac['cw_max'])}",
        f"--retryLimit={int(mac['retry_limit'])}",
        f"--txPower={float(radio['tx_power_dbm'])}",
        f"--frequency={float(radio['frequency_hz'])}",
        f"--pathLossExponent={float(radio['path_loss_exponent'])}",
        f"--noise={float(radio['noise_dbm'])}",
        f"--csThreshold={float(radio['cs_threshold_dbm'])}",
        f"--duration={scenario['simulation']['duration']}",
        f"--sack={'true' if sack else 'false'}",
        f"--socketBuffer={socket_pkts * 1000}",
    ]


def ns3_command(scenario: dict, sack: bool, stack: str = "ns2", start_offset: float = 0.0) -> list[str]:
    """The ns-3 program for the scenario's topology preset, with its arguments."""
    kind = scenario["topology"]["kind"]
    if kind not in NS3_PROGRAM:
        raise SystemExit(f"no ns-3 program models the {kind!r} topology")
    if kind == "wlan":
        if stack != "ns2" or start_offset:
            raise SystemExit("bench/ns3/wlan models tcplab's ns2 profile, all flows starting at 0")
        args = wlan_args(scenario, sack)
    else:
        args = dumbbell_args(scenario, sack, stack, start_offset)
    return [str(NS3_BUILD / NS3_PROGRAM[kind]), *args]


# ----------------------------------------------------------------------------- measuring


def measure_rusage(cmd: list[str]) -> dict:
    """Runs `cmd`: its JSON output line plus wall seconds and peak RSS in MiB."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, errors = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {errors[-2000:]}")
    rec = json.loads(text.strip().splitlines()[-1])
    rec["wall_s"] = wall
    # CPU time of the child: on a loaded machine it varies less than the wall time.
    rec["cpu_s"] = usage.ru_utime + usage.ru_stime
    # The program's own VmHWM: the child's ru_maxrss would include this Python process's
    # pages, which the fork copied before exec.
    rec["peak_rss_mib"] = rec["peak_rss_kib"] / 1024.0
    return rec


def best_of(runs: list[dict]) -> dict:
    """The run with the least wall time, with every run's wall and the largest peak."""
    best = dict(min(runs, key=lambda r: r["wall_s"]))
    best["walls_s"] = [r["wall_s"] for r in runs]
    best["cpu_s"] = min(r["cpu_s"] for r in runs)
    best["peak_rss_mib"] = max(r["peak_rss_mib"] for r in runs)
    best["pkts_per_wall_s"] = best["packets_delivered"] / best["wall_s"]
    return best


def scenario_file(name: str, text: str) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    p = OUT / f"{name}.toml"
    p.write_text(text)
    return p


# ----------------------------------------------------------------------------- suite


def run_suite(args) -> dict:
    against = ["ns-3"] * (args.ns3_runs > 0) + ["the baseline"] * bool(args.baseline_bin)
    print(f"\n== tcplab vs {' and '.join(against) or 'nothing'} (runs interleaved) ==", flush=True)
    results = {}
    wanted = set(args.scenarios.split(","))
    unknown = wanted - {key for key, _ in SUITE}
    if unknown:
        raise SystemExit(f"unknown suite scenarios {sorted(unknown)}; the suite has a to e")
    for key, label in SUITE:
        if key not in wanted:
            continue
        text = (BENCH / "scenarios" / f"{key}.toml").read_text()
        sc = tomllib.loads(text)
        if args.quick:
            text = with_duration(text, sc["simulation"]["duration"] / 10)
        text = with_stack(text, args.stack)
        sc = tomllib.loads(text)  # the ns-3 program gets the offset as its own argument
        text = with_start_offset(text, args.start_offset)
        path = scenario_file(f"suite_{key}", text)
        tl_cmd = [str(TCPLAB_BIN), str(path)]
        variants = {}  # ns-3's commands; none with --ns3-runs 0 (tcplab and its baseline alone)
        if args.ns3_runs > 0:
            variants["ns3_sack"] = ns3_command(sc, True, args.stack, args.start_offset)
            if key in args.nosack.split(","):
                variants["ns3_nosack"] = ns3_command(sc, False, args.stack, args.start_offset)
        runs = {"tcplab": [], **{v: [] for v in variants}}
        # The baseline engine predates the WLAN model (and may predate the stack profiles).
        baseline = args.baseline_bin if sc["topology"]["kind"] != "wlan" else None
        if baseline:
            runs["tcplab_base"] = []
        for i in range(max(args.runs, args.ns3_runs)):
            if i < args.runs:
                runs["tcplab"].append(measure_rusage(tl_cmd))
                if baseline:
                    runs["tcplab_base"].append(measure_rusage([str(baseline), str(path)]))
            if i < args.ns3_runs:
                for v, a in variants.items():
                    runs[v].append(measure_rusage(a))
            print(
                f"  ({key}) round {i + 1}: "
                + ", ".join(f"{k} {r[-1]['wall_s']:.2f} s" for k, r in runs.items() if len(r) > i),
                flush=True,
            )
        res = {k: best_of(r) for k, r in runs.items()}
        res["label"] = label
        res["stack"] = args.stack
        if variants:
            res["ns3_command"] = variants["ns3_sack"]
        if sc["topology"]["kind"] == "wlan":
            res["wlan"] = wlan_summary(res, sc)
        results[key] = res
    print_suite(results)
    print_flows(results)
    return results


def rel_diff(a: float, b: float) -> float:
    """(a - b) / b, or 0 when both are 0 (and infinite when only b is)."""
    if b == 0:
        return 0.0 if a == 0 else math.inf
    return (a - b) / b


def flow_comparison(t: dict, n: dict) -> list[dict]:
    """tcplab's and ns-3's figures of every flow side by side, with relative differences
    and the criteria (goodput within 5 %, retransmissions within 25 %)."""
    rows = []
    for i, (gt, gn) in enumerate(zip(t["flow_goodput_bps"], n["flow_goodput_bps"], strict=True)):
        rt, rn = t["flow_retransmissions"][i], n["flow_retransmissions"][i]
        row = {
            "flow": i,
            "goodput_bps": [gt, gn],
            "goodput_diff": rel_diff(gt, gn),
            "retransmissions": [rt, rn],
            "retransmissions_diff": rel_diff(rt, rn),
            "timeouts": [t["flow_timeouts"][i], n["flow_timeouts"][i]],
            "recoveries": [t["flow_recoveries"][i], n["flow_recoveries"][i]],
            "segments_sent": [t["flow_segments_sent"][i], n["flow_segments_sent"][i]],
            "data_drops": [t["flow_data_drops"][i], n["flow_data_drops"][i]],
            # ns-3 only: retransmissions sent in CA_LOSS, i.e. after a timeout
            "ns3_retransmissions_in_loss": n["flow_retransmissions_in_loss"][i],
        }
        row["goodput_ok"] = abs(row["goodput_diff"]) <= GOODPUT_TOLERANCE
        row["retransmissions_ok"] = abs(row["retransmissions_diff"]) <= RETRANSMISSION_TOLERANCE
        rows.append(row)
    return rows


def print_flows(results: dict) -> None:
    """Per flow, tcplab against ns-3 with SACK on, and the criteria of the linux profile's
    comparison (goodput within 5 %, retransmissions within 25 %, (b) at least 100 times as
    many packets per wall second)."""
    if not any("ns3_sack" in res for res in results.values()):
        return  # run without ns-3
    print("\nper flow, tcplab / ns-3 (SACK on); timeouts: tcplab's RTO expiries, ns-3's entries")
    print("into CA_LOSS; recoveries: fast retransmits / entries into CA_RECOVERY; drops: data")
    print("packets lost at the bottleneck")
    hdr = (
        f"{'scenario':<10}{'flow':>5}{'goodput Mb/s':>22}{'diff':>8}{'retransmissions':>20}{'diff':>8}"
        f"{'timeouts':>12}{'recoveries':>12}{'drops':>14}"
    )
    print(hdr)
    print("-" * len(hdr))
    for key, res in results.items():
        if "ns3_sack" not in res:
            continue  # run without ns-3
        t, n = res["tcplab"], res["ns3_sack"]
        if "flow_retransmissions" not in n:
            continue  # the WLAN program reports no per-flow counters
        rows = flow_comparison(t, n)
        res["flows"] = rows
        for r in rows:
            g, x = r["goodput_bps"], r["retransmissions"]
            print(
                f"{key:<10}{r['flow']:>5}{g[0] / 1e6:>11.3f} /{g[1] / 1e6:>8.3f}"
                f"{r['goodput_diff']:>+8.1%}{'' if r['goodput_ok'] else '!':1}"
                f"{x[0]:>10,} /{x[1]:>7,}{r['retransmissions_diff']:>+8.1%}"
                f"{'' if r['retransmissions_ok'] else '!':1}"
                f"{r['timeouts'][0]:>5} /{r['timeouts'][1]:>4}"
                f"{r['recoveries'][0]:>6} /{r['recoveries'][1]:>4}"
                f"{r['data_drops'][0]:>8,} /{r['data_drops'][1]:>5,}"
            )
        speed = res["ratios"]["speed"]
        res["criteria"] = {
            "goodput_within_5pct": all(r["goodput_ok"] for r in rows),
            "retransmissions_within_25pct": all(r["retransmissions_ok"] for r in rows),
            "speed_ratio": speed,
            "speed_at_least_100x": speed >= MIN_SPEED_RATIO,
        }
    print("  (! marks a flow outside the criterion: goodput 5 %, retransmissions 25 %)")
    stacks = sorted({res.get("stack", "ns2") for res in results.values()})
    print(f"\ncriteria of the linux profile's comparison (this run: stack {', '.join(stacks)}):")
    for key, res in results.items():
        c = res.get("criteria")
        if not c:
            continue
        print(
            f"  ({key}) per-flow goodput within 5 %: {'yes' if c['goodput_within_5pct'] else 'NO'}; "
            f"retransmissions within 25 %: {'yes' if c['retransmissions_within_25pct'] else 'NO'}; "
            f"speed {c['speed_ratio']:.0f}x ({'>=' if c['speed_at_least_100x'] else '<'} 100x)"
        )


def jain_index(xs: list[float]) -> float:
    """Jain's fairness index: 1 when all are equal, 1/n when one takes everything."""
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if sq > 0 else 0.0


def wlan_summary(res: dict, scenario: dict) -> dict:
    """Per simulator: total goodput, fairness and starvation among the uplink flows (the
    phenomenon of paper 004), ACKs lost, and the ns-3 program's self-checks."""
    mac = {**WLAN_MAC_DEFAULTS, **scenario["topology"].get("mac", {})}
    ack_mode = f"OfdmRate{parse_rate(mac['basic_rate']) / 1e6:.0f}Mbps"
    out = {}
    for sim in [k for k in ("tcplab", "ns3_sack", "ns3_nosack") if k in res]:
        r = res[sim]
        g = r["flow_goodput_bps"]
        fair = sum(g) / len(g)
        s = {
            "total_goodput_bps": sum(g),
            "jain": jain_index(g),
            "starved_flows": sum(1 for x in g if x < 0.1 * fair),
            "min_flow_bps": min(g),
            "max_flow_bps": max(g),
        }
        if sim == "tcplab":
            s["ack_drops"] = r["ack_drops"]
            s["data_drops"] = r["data_drops"]
            s["timeouts"] = r["timeouts"]
        else:
            w = r["wifi"]
            s["ack_drops"] = w["ap_ack_drops_overflow"] + w["ap_ack_drops_retry"]
            s["data_drops"] = w["station_data_drops_overflow"] + w["station_data_drops_retry"]
            s["timeouts"] = r["timeouts"]
            s["checks"] = {
                "all_associated_before_start": w["associated_at_start"] == len(g),
                f"mac_acks_at_{ack_mode}": w["ap_ack_mode"] == ack_mode,
            }
        out[sim] = s
    return out


def print_wlan(key: str, summary: dict) -> None:
    print(f"\n({key}) WLAN uplink flows: fairness and losses")
    print(
        f"  {'simulator':<12}{'total Mb/s':>11}{'Jain':>7}{'starved':>9}{'min Mb/s':>10}"
        f"{'max Mb/s':>10}{'ACK drops':>11}{'data drops':>12}{'timeouts':>10}"
    )
    for sim, s in summary.items():
        print(
            f"  {sim:<12}{s['total_goodput_bps'] / 1e6:>11.2f}{s['jain']:>7.3f}"
            f"{s['starved_flows']:>9}{s['min_flow_bps'] / 1e6:>10.3f}{s['max_flow_bps'] / 1e6:>10.3f}"
            f"{s['ack_drops']:>11,}{s['data_drops']:>12,}{s['timeouts']:>10,}"
        )
        for check, ok in s.get("checks", {}).items():
            if not ok:
                print(f"  {sim}: CHECK FAILED: {check}")
    print("  (starved: below 10 % of an equal share; ACK drops: TCP ACKs lost at the AP)")


def print_suite(results: dict) -> None:
    print()
    hdr = (
        f"{'scenario':<10}{'simulator':<12}{'wall s':>9}{'cpu s':>9}{'pkts delivered':>16}"
        f"{'pkts/wall s':>14}{'peak MiB':>10}{'goodput Mb/s':>14}"
    )
    print(hdr)
    print("-" * len(hdr))
    for key, res in results.items():
        for sim in [k for k in ("tcplab", "tcplab_base", "ns3_sack", "ns3_nosack") if k in res]:
            r = res[sim]
            print(
                f"{key:<10}{sim:<12}{r['wall_s']:>9.2f}{r['cpu_s']:>9.2f}{r['packets_delivered']:>16,}"
                f"{r['pkts_per_wall_s']:>14,.0f}{r['peak_rss_mib']:>10.1f}"
                f"{r['goodput_bps'] / 1e6:>14.2f}"
            )
    for res in results.values():
        res["ratios"] = {}
    with_ns3 = {key: res for key, res in results.items() if "ns3_sack" in res}
    if with_ns3:
        print()
        print("ratios tcplab / ns-3 (SACK on):")
        print(
            f"{'scenario':<10}{'speed (pkts/wall s)':>22}{'(pkts/cpu s)':>14}{'wall time':>12}"
            f"{'peak memory':>14}{'goodput':>10}{'pkts delivered':>16}"
        )
    for key, res in with_ns3.items():
        t, n = res["tcplab"], res["ns3_sack"]
        ratio = {
            "speed": t["pkts_per_wall_s"] / n["pkts_per_wall_s"],
            "speed_cpu": (t["packets_delivered"] / t["cpu_s"]) / (n["packets_delivered"] / n["cpu_s"]),
            "wall": t["wall_s"] / n["wall_s"],
            "memory": t["peak_rss_mib"] / n["peak_rss_mib"],
            "goodput": t["goodput_bps"] / n["goodput_bps"],
            "packets": t["packets_delivered"] / n["packets_delivered"],
        }
        res["ratios"].update(ratio)
        flag = "" if abs(ratio["goodput"] - 1) < 0.05 else "   <-- goodput differs by > 5 %"
        print(
            f"{key:<10}{ratio['speed']:>21.1f}x{ratio['speed_cpu']:>13.1f}x{ratio['wall']:>12.4f}{ratio['memory']:>14.3f}"
            f"{ratio['goodput']:>10.3f}{ratio['packets']:>16.3f}{flag}"
        )
    for key, res in results.items():
        if "wlan" in res:
            print_wlan(key, res["wlan"])
    if any("tcplab_base" in res for res in results.values()):
        print("\nthis engine against the baseline revision (same runs, interleaved):")
        for key, res in results.items():
            if "tcplab_base" not in res:
                continue
            t, b = res["tcplab"], res["tcplab_base"]
            res["ratios"]["speedup_vs_baseline"] = b["wall_s"] / t["wall_s"]
            res["ratios"]["cpu_speedup_vs_baseline"] = b["cpu_s"] / t["cpu_s"]
            res["ratios"]["memory_vs_baseline"] = t["peak_rss_mib"] / b["peak_rss_mib"]
            same = t["packets_delivered"] == b["packets_delivered"]
            print(
                f"  ({key}) speed-up {b['wall_s'] / t['wall_s']:.3f}x "
                f"(wall {b['wall_s']:.2f} s -> {t['wall_s']:.2f} s; cpu "
                f"{b['cpu_s']:.2f} s -> {t['cpu_s']:.2f} s, {b['cpu_s'] / t['cpu_s']:.3f}x), memory "
                f"{b['peak_rss_mib']:.1f} -> {t['peak_rss_mib']:.1f} MiB, "
                f"{'identical' if same else 'DIFFERENT'} packet counts"
            )


# ----------------------------------------------------------------------------- scaling


def fit_exponent(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x: 1 means linear growth."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum((a - mx) ** 2 for a in lx)


def fit_line(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """y = a + b x by least squares, and the largest relative deviation from it."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    a = my - b * mx
    dev = max(abs(y - (a + b * x)) / y for x, y in zip(xs, ys, strict=True))
    return a, b, dev


def scaling_point(name: str, text: str, runs: int, instructions: bool = False) -> dict:
    """The best of ``runs`` tcplab runs of one scaling scenario (written to a file ``name``),
    with the instructions one run executes if ``instructions``."""
    path = str(scenario_file(name, text))
    best = best_of([measure_rusage([str(TCPLAB_BIN), path]) for _ in range(runs)])
    best.pop("flow_goodput_bps", None)  # one number per flow: 30000 of them, unused here
    if instructions:
        best["instructions"] = count_instructions([str(TCPLAB_BIN), path])
    return best


def count_instructions(cmd: list[str]) -> int:
    """Instructions `cmd` executes, counted by valgrind's cachegrind without its cache
    simulation (hardware counters are not available in this VM). Unlike time, the count
    does not depend on the caches: it tells work from memory stalls."""
    proc = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *cmd],
        capture_output=True,
        text=True,
        check=True,
    )
    for line in proc.stderr.splitlines():
        if "I" in line and "refs:" in line:
            return int(line.split("refs:")[1].strip().replace(",", ""))
    raise RuntimeError(f"no instruction count in valgrind's output: {proc.stderr[-500:]}")


def parse_flows_list(text: str) -> list[int]:
    """The --flows-list value: positive flow counts, comma-separated."""
    try:
        flows = [int(x) for x in text.split(",")]
    except ValueError:
        raise SystemExit(f"--flows-list: {text!r} is not a comma-separated list of integers") from None
    if not flows or any(n < 1 for n in flows):
        raise SystemExit(f"--flows-list: {text!r}: every flow count must be at least 1")
    return flows


def run_scaling(args) -> dict:
    """tcplab alone: time and memory against flows and against simulated duration."""
    out = {}
    print("\n== scaling with the number of flows (10 Mb/s, 20 packets of buffer per flow) ==")
    flows_list = [10, 100, 1000] if args.quick else args.flows
    dur = 0.5 if args.quick else args.flows_duration
    instructions = not args.no_instructions and shutil.which("valgrind") is not None
    if not instructions:
        print("  (instruction counts off: --no-instructions, or valgrind is not installed)")
    rows = []
    for n in flows_list:
        text = dumbbell_toml(n, n * 10e6, 0.010, 20 * n, dur)
        r = scaling_point(f"flows_{n}", text, args.scaling_runs, instructions)
        r["flows"] = n
        rows.append(r)
        count = f"  instructions {r['instructions']:>16,}" if instructions else ""
        print(
            f"  {n:>6} flows: wall {r['wall_s']:8.2f} s  cpu {r['cpu_s']:8.2f} s  "
            f"peak {r['peak_rss_mib']:8.1f} MiB  packets {r['packets_delivered']:>12,}{count}",
            flush=True,
        )
    out["flows"] = {"duration_s": dur, "rows": rows}

    print("\n== scaling with simulated duration (scenario (b)) ==")
    base = (BENCH / "scenarios" / "b.toml").read_text()
    durations = [5, 10, 20, 40] if args.quick else [25, 50, 100, 200, 400]
    series = {}
    for label, interval in (("series off", 0.0), ("series every 0.1 s", 0.1)):
        rows = []
        for d in durations:
            text = with_duration(base, d).replace("sample_interval = 0", f"sample_interval = {interval}")
            r = scaling_point(f"dur_{d}_{interval}", text, args.scaling_runs)
            r["duration"] = d
            rows.append(r)
            print(
                f"  {label:<20} {d:>5} s: wall {r['wall_s']:7.2f} s  cpu {r['cpu_s']:7.2f} s  "
                f"peak {r['peak_rss_mib']:7.1f} MiB  packets {r['packets_delivered']:>12,}",
                flush=True,
            )
        series[label] = {"rows": rows}
    out["duration"] = series
    analyse_scaling(out)
    plot_scaling(out)
    return out


def analyse_scaling(out: dict) -> None:
    """Fits and prints linearity figures, in CPU time (steady on a shared machine) and wall
    time, and stores them in `out`."""
    rows = out["flows"]["rows"]
    n = [r["flows"] for r in rows]
    print("\n  flows: per packet delivered")
    for r in rows:
        per_packet = r["packets_delivered"]
        instr = f"{r['instructions'] / per_packet:6.0f} instructions, " if "instructions" in r else ""
        print(
            f"  {r['flows']:>6} flows: {r['events'] / per_packet:.2f} events, {instr}"
            f"{r['cpu_s'] / per_packet * 1e9:6.0f} ns cpu, "
            f"{r['wall_s'] / per_packet * 1e9:6.0f} ns wall, "
            f"{r['peak_rss_mib'] * 1024 / r['flows']:6.1f} KiB peak memory per flow"
        )
    big = [r for r in rows if r["flows"] >= 100]
    measures = [
        ("cpu", "cpu_s"),
        ("wall", "wall_s"),
        ("memory", "peak_rss_mib"),
        ("packets", "packets_delivered"),
        ("events", "events"),
    ]
    if all("instructions" in r for r in big):
        measures.append(("instructions", "instructions"))
    exps = {
        f"{what}_vs_flows": fit_exponent([r["flows"] for r in big], [r[key] for r in big])
        for what, key in measures
    }
    ma, mb, mdev = fit_line(n, [r["peak_rss_mib"] for r in rows])
    print(
        "  fitted exponents over >= 100 flows (1 = linear): "
        + ", ".join(f"{k} {v:.3f}" for k, v in exps.items())
    )
    print(f"  memory = {ma:.1f} MiB + {mb * 1024:.1f} KiB per flow (max deviation {mdev:.0%})")
    out["flows"]["exponents"] = exps
    out["flows"]["memory_fit"] = {"intercept_mib": ma, "slope_mib_per_flow": mb, "max_rel_dev": mdev}
    for label, s in out["duration"].items():
        rows = s["rows"]
        d = [r["duration"] for r in rows]
        fits = {}
        for key in ("cpu_s", "wall_s"):
            a, b, dev = fit_line(d, [r[key] for r in rows])
            fits[key] = {
                "intercept_s": a,
                "slope_s_per_s": b,
                "max_rel_dev": dev,
                "exponent": fit_exponent(d, [r[key] for r in rows]),
            }
        ma, mb, mdev = fit_line(d, [r["peak_rss_mib"] for r in rows])
        c, w = fits["cpu_s"], fits["wall_s"]
        print(
            f"  {label}: cpu = {c['intercept_s']:.3f} s + {c['slope_s_per_s'] * 1e3:.2f} ms per "
            f"simulated s (max deviation {c['max_rel_dev']:.1%}, log-log exponent "
            f"{c['exponent']:.3f}); wall exponent {w['exponent']:.3f}; memory = {ma:.2f} MiB + "
            f"{mb * 1024:.1f} KiB per simulated s"
        )
        s["fits"] = fits
        s["memory_fit"] = {"intercept_mib": ma, "slope_mib_per_s": mb, "max_rel_dev": mdev}


def plot_scaling(out: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    PLOTS.mkdir(parents=True, exist_ok=True)
    rows = out["flows"]["rows"]
    n = [r["flows"] for r in rows]
    fig, ax = plt.subplots(1, 3, figsize=(15, 4))
    for a, key, unit in ((ax[0], "cpu_s", "time (s)"), (ax[1], "peak_rss_mib", "peak memory (MiB)")):
        y = [r[key] for r in rows]
        a.loglog(n, y, "o-", label="tcplab, CPU time" if key == "cpu_s" else "tcplab")
        if key == "cpu_s":
            a.loglog(n, [r["wall_s"] for r in rows], "s:", color="gray", label="tcplab, wall time")
        ref = [y[-1] * x / n[-1] for x in n]
        a.loglog(n, ref, "k--", lw=0.8, label="linear (slope 1)")
        a.set_xlabel("flows (link rate 10 Mb/s per flow)")
        a.set_ylabel(unit)
        a.grid(True, which="both", alpha=0.3)
        a.legend()
    plot_cost_per_packet(ax[2], rows)
    e = out["flows"]["exponents"]
    fig.suptitle(
        f"Scaling with flows, {out['flows']['duration_s']} s simulated "
        f"(fitted exponents: CPU {e['cpu_vs_flows']:.2f}, memory {e['memory_vs_flows']:.2f})"
    )
    fig.tight_layout()
    fig.savefig(PLOTS / "scaling_flows.png", dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for label, s in out["duration"].items():
        d = [r["duration"] for r in s["rows"]]
        ax[0].plot(d, [r["cpu_s"] for r in s["rows"]], "o-", label=label)
        ax[1].plot(d, [r["peak_rss_mib"] for r in s["rows"]], "o-", label=label)
    ax[0].set_ylabel("CPU time (s)")
    ax[1].set_ylabel("peak memory (MiB)")
    for a in ax:
        a.set_xlabel("simulated seconds (scenario (b))")
        a.set_xlim(left=0)
        a.set_ylim(bottom=0)
        a.grid(True, alpha=0.3)
        a.legend()
    fig.suptitle("Scaling with simulated duration (records kept in memory; sweeps stream series and losses)")
    fig.tight_layout()
    fig.savefig(PLOTS / "scaling_duration.png", dpi=110)
    plt.close(fig)
    print(f"  plots: {PLOTS / 'scaling_flows.png'}, {PLOTS / 'scaling_duration.png'}")


def plot_cost_per_packet(a, rows: list[dict]) -> None:
    """CPU time and instructions per packet delivered against flows: flat instructions
    with rising time mean the same work, slowed by memory stalls."""
    n = [r["flows"] for r in rows]
    a.semilogx(n, [r["cpu_s"] / r["packets_delivered"] * 1e9 for r in rows], "o-", label="CPU ns")
    a.set_xlabel("flows")
    a.set_ylabel("CPU ns per packet delivered")
    a.set_ylim(bottom=0)
    a.grid(True, which="both", alpha=0.3)
    handles, labels = a.get_legend_handles_labels()
    if all("instructions" in r for r in rows):
        b = a.twinx()
        b.semilogx(
            n,
            [r["instructions"] / r["packets_delivered"] for r in rows],
            "s--",
            color="tab:orange",
            label="instructions (valgrind)",
        )
        b.set_ylabel("instructions per packet delivered")
        b.set_ylim(bottom=0)
        more_h, more_l = b.get_legend_handles_labels()
        handles, labels = handles + more_h, labels + more_l
    a.legend(handles, labels, loc="lower right")
    a.set_title("cost per packet delivered")


# ----------------------------------------------------------------------------- profile


def run_profile(args) -> dict:
    """callgrind on scenario (b) shortened to 10 s: instruction counts of the hot spots."""
    print("\n== profile: valgrind --tool=callgrind on scenario (b), 10 s simulated ==")
    if not shutil.which("valgrind"):
        print("  valgrind is not installed (apt-get install valgrind); skipped")
        return {}
    text = with_duration((BENCH / "scenarios" / "b.toml").read_text(), 1 if args.quick else 10)
    path = scenario_file("profile_b", text)
    cg = OUT / "callgrind.out"
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}", str(TCPLAB_BIN), str(path)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    ann = subprocess.run(
        ["callgrind_annotate", "--inclusive=no", str(cg)], capture_output=True, text=True, check=True
    ).stdout
    # callgrind_annotate splits a function's cost by the source file of inlined code;
    # add the pieces up per function.
    total, per_function = None, {}
    for line in ann.splitlines():
        s = line.strip()
        if "Auto-annotated source" in s or "=>" in s:
            break  # past the per-function summary
        if total is None and "PROGRAM TOTALS" in s:
            total = int(s.split()[0].replace(",", ""))
        elif total is not None and s and s[0].isdigit() and ":" in s:
            count = int(s.split()[0].replace(",", ""))
            name = s.split(":", 1)[1].split(" [")[0].strip()
            per_function[name] = per_function.get(name, 0) + count
    top = sorted(per_function.items(), key=lambda kv: -kv[1])[:15]
    events = json.loads(
        subprocess.run([str(TCPLAB_BIN), str(path)], capture_output=True, text=True, check=True)
        .stdout.strip()
        .splitlines()[-1]
    )
    print(
        f"  instructions: {total:,} ({total / events['events']:.0f} per event, "
        f"{total / events['packets_delivered']:.0f} per packet delivered)"
    )
    for name, count in top:
        print(f"  {count / total:6.1%}  {name}")
    return {
        "instructions": total,
        "events": events["events"],
        "packets_delivered": events["packets_delivered"],
        "top": [{"function": n, "instructions": c} for n, c in top],
    }


# ----------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="suite,scaling,profile", help="comma-separated parts")
    ap.add_argument("--quick", action="store_true", help="durations cut tenfold")
    ap.add_argument("--runs", type=int, default=3, help="tcplab runs per scenario (best of)")
    ap.add_argument(
        "--ns3-runs",
        type=int,
        default=1,
        help="ns-3 runs per scenario (best of); 0 runs the suite without ns-3 (tcplab and its baseline)",
    )
    ap.add_argument("--scaling-runs", type=int, default=1, help="runs per scaling point")
    ap.add_argument("--flows-duration", type=float, default=2.0, help="simulated s per flow-sweep point")
    ap.add_argument("--flows-list", default="10,100,1000,10000,30000", help="flow counts of the flow sweep")
    ap.add_argument(
        "--no-instructions",
        action="store_true",
        help="skip counting each flow-sweep point's instructions with valgrind",
    )
    ap.add_argument("--nosack", default="a", help="scenarios also run in ns-3 with SACK off (e.g. 'a,b')")
    ap.add_argument("--scenarios", default="a,b,c,d", help="suite scenarios to run (e.g. 'd' or 'a,b,e')")
    ap.add_argument(
        "--stack",
        choices=STACKS,
        default="ns2",
        help="tcplab's TCP stack profile in the suite; ns-3 is set to match it (bench/ns3/common.h)",
    )
    ap.add_argument(
        "--start-offset",
        type=float,
        default=0.0,
        help="flow i starts at i times this many seconds, in both simulators (a perturbation)",
    )
    ap.add_argument(
        "--baseline-rev",
        help="also run tcplab built at this git revision in the suite, for before/after ratios",
    )
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument(
        "--replot", metavar="RESULTS_JSON", help="only re-analyse and re-plot saved scaling results"
    )
    args = ap.parse_args()
    args.flows = parse_flows_list(args.flows_list)  # bad input fails before anything runs
    if args.ns3_runs < 0:
        ap.error(f"--ns3-runs {args.ns3_runs}: give 0 (no ns-3) or more")
    parts = set(args.only.split(","))
    with_ns3 = "suite" in parts and args.ns3_runs > 0
    if with_ns3 or parts - {"suite"}:  # ns-3 for the suite, matplotlib for the plots
        bootstrap()
    if args.replot:
        saved = json.loads(Path(args.replot).read_text())["scaling"]
        analyse_scaling(saved)
        plot_scaling(saved)
        return
    if not args.no_build:
        build(ns3=with_ns3)
    if args.baseline_rev and args.stack != "ns2":
        raise SystemExit("--baseline-rev runs the ns2 profile only (older engines have no stacks)")
    args.baseline_bin = build_baseline(args.baseline_rev) if args.baseline_rev else None
    if args.quick:
        global PLOTS
        PLOTS = OUT / "perf"  # smoke-test plots do not replace the documented ones
    results = {
        "machine": {
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_avg_at_start": os.getloadavg(),
        },
        "command": " ".join(["python3", "bench/run.py", *sys.argv[1:]]),
        "quick": args.quick,
        "baseline_rev": args.baseline_rev,
        "stack": args.stack,
        "start_offset": args.start_offset,
    }
    if "suite" in parts:
        results["suite"] = run_suite(args)
    if "scaling" in parts:
        results["scaling"] = run_scaling(args)
    if "profile" in parts:
        results["profile"] = run_profile(args)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    print(f"\nresults: {OUT / 'results.json'}")


if __name__ == "__main__":
    main()
