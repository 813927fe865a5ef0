"""Runs a scenario on the kernel test bed and returns records in the simulator's format."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import kernel
from ..result import TABLES, Result
from ..scenario import Scenario
from . import net
from .plan import FlowPlan, TestbedPlan, plan

BASE_PORT = 5301
# iperf3's report interval; goodput over the measurement window is summed from these.
INTERVAL = 0.5


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return max(0.0, min(a1, b1) - max(a0, b0))


def _goodput(server: dict[str, Any], f: FlowPlan, window: tuple[float, float]) -> tuple[float, float]:
    """Payload bytes received in the measurement window (intervals prorated), and in all."""
    lo, hi = window
    inside = total = 0.0
    for iv in server.get("intervals", []):
        s = iv["sum"]
        t0, t1, b = f.start + s["start"], f.start + s["end"], float(s["bytes"])
        total += b
        if t1 > t0:
            inside += b * _overlap(t0, t1, lo, hi) / (t1 - t0)
    length = hi - lo
    return (inside * 8 / length if length > 0 else float("nan")), total


def _json(text: str, what: str) -> dict[str, Any]:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise net.TestbedError(f"{what} printed no JSON report: {text[-400:]!r}") from None


def run_plan(p: TestbedPlan, out_dir: str | Path | None = None, capture: bool = True) -> Result:
    kernel.build_dir().mkdir(parents=True, exist_ok=True)
    delay_exe = kernel.build_delay()
    for f in p.flows:
        kernel.load(f.kernel_cc)
    mtu = p.mss + 40
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    with net.testbed(
        rate_bps=p.rate_bps,
        buffer_packets=p.buffer_packets,
        mtu=mtu,
        delay_exe=delay_exe,
        delay_fwd_us=int(round(p.delay_fwd * 1e6)),
        delay_rev_us=int(round(p.delay_rev * 1e6)),
        loss=p.loss_data,
        seed=p.seed,
    ) as bed:
        dump = None
        if capture and out is not None:
            dump = bed.spawn(
                "r",
                "tcpdump",
                "-i",
                "r1",
                "-s",
                "128",
                "-w",
                str(out / "bottleneck.pcap"),
                "-U",
                stdout=subprocess.DEVNULL,
            )
        servers = []
        for i, _ in enumerate(p.flows):
            servers.append(
                bed.spawn("h", "iperf3", "-s", "-1", "-J", "-i", str(INTERVAL), "-p", str(BASE_PORT + i))
            )
        time.sleep(0.3)
        clients: list[subprocess.Popen | None] = [None] * len(p.flows)
        t0 = time.monotonic()
        for i in sorted(range(len(p.flows)), key=lambda k: p.flows[k].start):
            f = p.flows[i]
            time.sleep(max(0.0, t0 + f.start - time.monotonic()))
            length = max(1, int(round(f.stop - f.start)))
            clients[i] = bed.spawn(
                "s",
                "iperf3",
                "-c",
                net.RECEIVER_ADDR,
                "-p",
                str(BASE_PORT + i),
                "-t",
                str(length),
                "-C",
                f.kernel_cc,
                "-J",
                "-i",
                str(INTERVAL),
            )
        reports = []
        for i, c in enumerate(clients):
            assert c is not None
            cout, cerr = c.communicate(timeout=p.duration + 60)
            sout, _ = servers[i].communicate(timeout=30)
            reports.append(
                (_json(cout, f"iperf3 client {i} ({cerr.strip()})"), _json(sout, f"iperf3 server {i}"))
            )
        if dump is not None:
            dump.terminate()
            dump.wait(timeout=5)
        qstats = bed.run("r", "tc", "-s", "-j", "qdisc", "show", "dev", "r1").stdout
    return _records(p, reports, qstats, out if capture else None)


def _records(p: TestbedPlan, reports, qstats: str, out: Path | None) -> Result:
    rows, series = [], []
    for i, (f, (client, server)) in enumerate(zip(p.flows, reports, strict=True)):
        if "error" in client:
            raise net.TestbedError(f"iperf3 flow {f.name}: {client['error']}")
        goodput, total = _goodput(server, f, p.measure)
        streams = client.get("end", {}).get("streams", [{}])
        sender = streams[0].get("sender", {}) if streams else {}
        cwnds = []
        for iv in client.get("intervals", []):
            st = iv["streams"][0]
            t = f.start + st["end"]
            cwnd = st.get("snd_cwnd", 0) / p.mss
            cwnds.append(cwnd)
            series.append(
                {
                    "time": t,
                    "flow": i,
                    "cwnd": cwnd,
                    "ssthresh": np.nan,
                    "srtt": st.get("rtt", 0) / 1e6,
                    "in_flight": np.nan,
                    "bytes_delivered": np.nan,
                }
            )
        rows.append(
            {
                "id": i,
                "name": f.name,
                "cc": f.cc,
                "recovery": "kernel",
                "src": f"s{f.pair}",
                "dst": f"d{f.pair}",
                "start": f.start,
                "goodput_bps": goodput,
                "bytes_delivered": total,
                "retransmissions": client.get("end", {}).get("sum_sent", {}).get("retransmits", np.nan),
                "mean_rtt": sender.get("mean_rtt", np.nan) / 1e6,
                "min_rtt": sender.get("min_rtt", np.nan) / 1e6,
                "final_cwnd": cwnds[-1] if cwnds else np.nan,
                "kernel_cc": f.kernel_cc,
            }
        )
    links = []
    try:
        for q in json.loads(qstats):
            if q.get("kind") == "pfifo":
                links.append(
                    {
                        "id": 0,
                        "name": "r1->delay",
                        "queue": "pfifo",
                        "rate_bps": p.rate_bps,
                        "delay": p.delay_fwd,
                        "packets_sent": q.get("packets"),
                        "bytes_sent": q.get("bytes"),
                        "drops_buffer_overflow": q.get("drops"),
                    }
                )
    except json.JSONDecodeError:
        pass
    tables: dict[str, Any] = {name: pd.DataFrame() for name in TABLES}
    tables["flows"] = pd.DataFrame(rows)
    tables["series"] = pd.DataFrame(series)
    tables["links"] = pd.DataFrame(links)
    if out is not None and (out / "bottleneck.pcap").exists():
        tables["traces"] = pd.DataFrame(
            [{"link": 0, "file": str(out / "bottleneck.pcap"), "packets": np.nan}]
        )
    tables["frames"] = None
    tables["events"] = None
    meta = {
        "backend": "kernel-testbed",
        "duration": p.duration,
        "measure": list(p.measure),
        "seed": p.seed,
        "delay_one_way": p.delay_fwd,
        "rate_bps": p.rate_bps,
        "buffer_packets": p.buffer_packets,
    }
    return Result(meta=meta, **tables)


def run_scenario(
    scenario: Scenario | dict[str, Any] | str | Path, out_dir: str | Path | None = None, capture: bool = True
) -> Result:
    """Runs a simulator scenario (the supported subset, see ``plan``) on the kernel test bed.

    Returns a :class:`tcplab.result.Result` whose ``flows`` table has the simulator's columns
    for what a kernel run measures (goodput over the measurement window, bytes, retransmits,
    RTTs); ``series`` has iperf3's cwnd and RTT every 0.5 s. Needs root."""
    if isinstance(scenario, (str, Path)):
        scenario = Scenario.load(scenario)
    return run_plan(plan(scenario), out_dir=out_dir, capture=capture)
