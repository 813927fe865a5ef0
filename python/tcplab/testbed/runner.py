"""Runs a scenario on the kernel test bed and returns records in the simulator's format."""

from __future__ import annotations

import datetime
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import kernel
from ..result import TABLES, Result
from ..scenario import Scenario
from . import ca_trace as ca_trace_reader
from . import net
from .available import BED
from .plan import TestbedPlan, plan
from .sampler import QDISC_FIELDS, TCP_FIELDS, UNSET_PACING_RATE

BASE_PORT = 5301
#: Flow i leaves from SOURCE_PORT + i: the sampler looks each connection up by its ports.
SOURCE_PORT = 6301
#: tcp_info and qdisc sampling interval (seconds) unless run_plan is told otherwise.
SAMPLE_INTERVAL = 0.01
SAMPLER = Path(__file__).with_name("sampler.py")
TRAFFIC = Path(__file__).with_name("traffic.py")


def serve_command(port: int, count: int) -> tuple[str, ...]:
    """traffic.py's receiver for ``count`` flows on ``port`` .. ``port + count - 1``."""
    return (sys.executable, str(TRAFFIC), "serve", str(port), str(count))


def send_command(addr: str, port: int, sport: int, flows: list[dict[str, Any]]) -> tuple[str, ...]:
    """traffic.py's sender: flow i from port ``sport + i`` to ``addr:port + i`` (each
    ``{"cc", "start", "stop"}``)."""
    return (sys.executable, str(TRAFFIC), "send", addr, str(port), str(sport), json.dumps(flows))


#: SNMP counters of the sender namespace kept in a kernel run's meta (deltas over the run;
#: a namespace holds one run, so these are exact).
SNMP = (
    "TcpOutSegs",
    "TcpRetransSegs",
    "TcpExtTCPTimeouts",
    "TcpExtTCPLossProbes",
    "TcpExtTCPLossProbeRecovery",
    "TcpExtTCPSackRecovery",
    "TcpExtTCPRenoRecovery",
    "TcpExtTCPFastRetrans",
    "TcpExtTCPHystartTrainDetect",
    "TcpExtTCPHystartTrainCwnd",
    "TcpExtTCPHystartDelayDetect",
    "TcpExtTCPHystartDelayCwnd",
    "TcpExtTCPSlowStartRetrans",
    "TcpExtTCPLostRetransmit",
    "TcpExtTCPSpuriousRTOs",
    "TcpExtTCPSpuriousRtxHostQueues",
    "TcpExtTCPDSACKRecv",
    "TcpExtTCPDSACKOfoRecv",
    "TcpExtTCPDSACKUndo",
    "TcpExtTCPLossUndo",
    "TcpExtTCPPartialUndo",
    "TcpExtTCPFullUndo",
    "TcpExtTCPSACKReorder",
    "TcpExtTCPDelivered",
)


def _nstat(bed: net.Bed) -> dict[str, int]:
    """Absolute SNMP counters of the sender namespace (``nstat -saz``: no history file)."""
    p = bed.run("s", "nstat", "-saz", "--json", check=False)
    try:
        return {k: int(v) for k, v in json.loads(p.stdout).get("kernel", {}).items()}
    except (json.JSONDecodeError, ValueError, AttributeError):
        return {}


def read_samples(path: Path, fields: tuple[str, ...], t0: float) -> pd.DataFrame:
    """A sampler's output as a frame: ``time`` in seconds from ``t0`` (monotonic), then
    ``fields`` (numbers where they parse)."""
    rows = []
    lines = path.read_text().splitlines() if path.exists() else []
    for line in lines:
        parts = line.split()
        if len(parts) == len(fields) + 1:  # (a line cut short when the sampler stopped is left out)
            rows.append(parts)
    if lines and not rows:
        raise ValueError(
            f"{path}: none of its {len(lines)} line(s) has the {len(fields) + 1} columns of time and "
            f"{', '.join(fields[:3])}, ...: a sample file from another version of the sampler?"
        )
    df = pd.DataFrame(rows, columns=["time", *fields])
    for c in df.columns:
        if c != "kind" and c != "handle":
            df[c] = pd.to_numeric(df[c])
    if len(df):
        df["time"] = df["time"] / 1e9 - t0
    return df


#: At most this many bytes acknowledged in a connection's first sample (IW10 of jumbo frames
#: would be 650 KB; the bed's first 10 ms sample sees the handshake and a first window).
JUST_OPENED_BYTES = 1 << 20


def delivered_in_window(series: pd.DataFrame, flow: int, window: tuple[float, float]) -> float:
    """Payload bytes a flow delivered inside the window, from its sampled cumulative
    ``bytes_delivered`` interpolated at the window's edges (NaN when the samples do not
    cover the window). The same definition serves both back ends."""
    s = series[series["flow"] == flow].sort_values("time")
    s = s[np.isfinite(s["bytes_delivered"].astype(float))]
    if len(s) < 2 or s["time"].iloc[-1] < window[1] - 0.05:
        return float("nan")
    t, b = s["time"].to_numpy(float), s["bytes_delivered"].to_numpy(float)
    if t[0] > window[0] + 0.05:
        # Samples begin when the connection opens; a connection that had just opened had
        # delivered nothing before. Anything else is a gap in the samples.
        if b[0] > JUST_OPENED_BYTES:
            return float("nan")
        t, b = np.concatenate([[window[0]], t]), np.concatenate([[0.0], b])
    return float(np.interp(window[1], t, b) - np.interp(window[0], t, b))


def _await_line(proc: subprocess.Popen, word: str, what: str) -> str:
    """The first stderr line of a bed process, which must start with ``word``."""
    assert proc.stderr is not None
    line = proc.stderr.readline()
    if not line.startswith(word):
        rest = line + (proc.stderr.read() if proc.poll() is not None else "")
        raise net.TestbedError(f"{what} did not start: {rest.strip()[-400:]!r}")
    return line


def _traffic_report(proc: subprocess.Popen, timeout: float, what: str) -> dict[str, Any]:
    """The JSON object a traffic.py process prints when it ends."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise net.TestbedError(f"{what} did not finish within {timeout:.0f} s") from None
    try:
        if proc.returncode == 0:
            return json.loads(out)
    except json.JSONDecodeError:
        pass
    raise net.TestbedError(f"{what} failed (exit {proc.returncode}): {(err or out).strip()[-400:]!r}")


def run_plan(
    p: TestbedPlan,
    out_dir: str | Path | None = None,
    capture: bool = True,
    sample_interval: float = SAMPLE_INTERVAL,
    receiver_capture: bool = False,
    sender_capture: bool = False,
    ca_trace: bool = False,
) -> Result:
    """Runs one planned scenario on the bed. ``capture``: the bottleneck's egress (r1) into
    ``out_dir/bottleneck.pcap``; ``receiver_capture``: the receiver's interface (h0) too, into
    ``out_dir/receiver.pcap`` (both ends of the delay element: ``testbed.lateness``);
    ``sender_capture``: the sender's interface (s0) too, into ``out_dir/sender.pcap`` (data
    as it leaves, ACKs as they arrive: what the sender's estimators see); ``ca_trace``: tcplab's
    ports built to trace each round, whose lines become ``cc_vars`` rows (testbed/ca_trace.py;
    Vegas-family ports only; kept as ``out_dir/ca_trace.txt``)."""
    ports = any(f.kernel_cc.startswith("tl_") for f in p.flows)
    net.require(
        (*BED, "nstat")
        + (("tcpdump",) if capture and out_dir is not None else ())
        + (("make", "clang", "bpftool") if ports else ())
    )
    kernel.build_dir().mkdir(parents=True, exist_ok=True)
    delay_exe = kernel.build_delay()
    for f in p.flows:
        if f.kernel_cc.startswith("tl_"):  # the kernel's own reno/cubic need no loading
            kernel.load(f.kernel_cc, trace=ca_trace)
    mtu = p.mtu
    work = Path(tempfile.mkdtemp(prefix="tcplab-bed-"))
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
        window_bytes=p.window_bytes,
        access_rate_bps=p.access_rate_bps,
    ) as bed:
        dumps = []
        if capture and out is not None:
            wanted = [("r", "r1", "bottleneck.pcap")]
            wanted += [("h", "h0", "receiver.pcap")] if receiver_capture else []
            wanted += [("s", "s0", "sender.pcap")] if sender_capture else []
            for ns, dev, name in wanted:
                dump = bed.spawn(
                    ns,
                    "tcpdump",
                    "-i",
                    dev,
                    "-s",
                    "128",
                    "-w",
                    str(out / name),
                    "-U",
                    stdout=subprocess.DEVNULL,
                )
                dumps.append(dump)
        server = bed.spawn("h", *serve_command(BASE_PORT, len(p.flows)))
        _await_line(server, "ready", "the traffic receiver")
        tcp_file, q_file = (work / "tcp.txt").open("w"), (work / "qdisc.txt").open("w")
        samplers = [
            bed.spawn(
                "s",
                sys.executable,
                str(SAMPLER),
                "tcp",
                net.SENDER_ADDR,
                str(SOURCE_PORT),
                net.RECEIVER_ADDR,
                str(BASE_PORT),
                str(len(p.flows)),
                str(sample_interval),
                stdout=tcp_file,
            ),
            bed.spawn("r", sys.executable, str(SAMPLER), "qdisc", "r1", str(sample_interval), stdout=q_file),
        ]
        for sp in samplers:
            _await_line(sp, "ready", "the tcp_info/qdisc sampler")
        snmp_before = _nstat(bed)
        tracer = ca_trace_reader.start(work / "ca_trace.txt") if ca_trace else None
        try:
            time.sleep(0.3)
            flows = [{"cc": f.kernel_cc, "start": f.start, "stop": f.stop} for f in p.flows]
            sender = bed.spawn("s", *send_command(net.RECEIVER_ADDR, BASE_PORT, SOURCE_PORT, flows))
            # Every connection is open; the sender's zero is the run's time 0.
            t0 = int(_await_line(sender, "start", "the traffic sender").split()[1]) / 1e9
            sent = _traffic_report(sender, p.duration + 60, "the traffic sender")
            received = _traffic_report(server, 30, "the traffic receiver")
            if sent["errors"]:
                raise net.TestbedError(f"the traffic sender failed: {'; '.join(sent['errors'])}")
            snmp_after = _nstat(bed)
        finally:
            if tracer is not None:  # (also when the run fails: no reader left behind)
                ca_trace_reader.stop(tracer)
        died = [sp for sp in samplers if sp.poll() is not None]
        for sp in samplers:
            sp.terminate()
            sp.wait(timeout=5)
        if died:  # a run with a hole in its samples is not a measurement: never stored
            assert died[0].stderr is not None
            raise net.TestbedError(
                f"the {' '.join(died[0].args[-4:])} sampler died during the run (exit "
                f"{died[0].returncode}): {died[0].stderr.read()[-400:].strip()}"
            )
        tcp_file.close()
        q_file.close()
        for d in dumps:
            d.terminate()
            d.wait(timeout=5)
        qstats = bed.run("r", "tc", "-s", "-j", "qdisc", "show", "dev", "r1").stdout
        delay = net.delay_counters(bed)
    samples = read_samples(work / "tcp.txt", TCP_FIELDS, t0)
    qsamples = read_samples(work / "qdisc.txt", QDISC_FIELDS, t0)
    traced = (
        ca_trace_reader.rounds(
            (work / "ca_trace.txt").read_text(errors="replace"), t0, SOURCE_PORT, len(p.flows)
        )
        if ca_trace
        else None
    )
    kept = {"tcp.txt": "samples_tcp.txt", "qdisc.txt": "samples_qdisc.txt", "ca_trace.txt": "ca_trace.txt"}
    for name, keep_as in kept.items():
        if out is not None and (work / name).exists():
            (work / name).replace(out / keep_as)
        (work / name).unlink(missing_ok=True)
    work.rmdir()
    snmp = {k: snmp_after[k] - snmp_before.get(k, 0) for k in snmp_after if k in SNMP}
    extra = {"snmp": snmp, "sample_interval": sample_interval, "delay_element": delay}
    result = _records(p, received["received"], qstats, out if capture else None, samples, qsamples, extra)
    if traced is not None:
        result.cc_vars = pd.concat([result.cc_vars, traced], ignore_index=True)
        result.meta["ca_trace_rounds"] = int((traced["name"] == "alpha").sum())
    return result


def flow_samples(samples: pd.DataFrame, port: int) -> pd.DataFrame:
    """The samples of one flow's connection: the socket to ``port`` (of several, which only
    a stray connection would make, the one that sent the most bytes)."""
    mine = samples[samples["dport"] == port] if len(samples) else samples
    if not len(mine):
        return mine
    data = mine.groupby("sport")["bytes_sent"].max().idxmax()
    return mine[mine["sport"] == data].sort_values("time")


def tcp_series(samples: pd.DataFrame, flow: int) -> pd.DataFrame:
    """tcp_info samples as the simulator's ``series`` rows (cwnd and in_flight in segments,
    RTTs in seconds, bytes_delivered = bytes_acked) plus the kernel's own columns."""
    s = samples
    ss = s["ssthresh"].astype(float)
    return pd.DataFrame(
        {
            "time": s["time"].to_numpy(),
            "flow": flow,
            "cwnd": s["cwnd"].astype(float).to_numpy(),
            "ssthresh": ss.where(ss < 2**30).to_numpy(),  # "infinite" before the first loss
            "srtt": s["srtt_us"].where(s["srtt_us"] > 0).to_numpy() / 1e6,  # 0: no sample yet
            "in_flight": (s["unacked"] - s["sacked"] - s["lost"] + s["retrans"]).to_numpy(),
            "bytes_delivered": s["bytes_acked"].to_numpy(),
            "rttvar": s["rttvar_us"].to_numpy() / 1e6,
            "min_rtt": s["min_rtt_us"].where(s["min_rtt_us"] < 2**31).to_numpy() / 1e6,  # ~0: none yet
            "snd_mss": s["snd_mss"].to_numpy(),
            "ca_state": s["ca_state"].to_numpy(),
            "lost": s["lost"].to_numpy(),
            "retransmissions": s["total_retrans"].to_numpy(),
            "timeouts": s["total_rto"].to_numpy(),
            "pacing_rate": s["pacing_rate"].to_numpy() * 8.0,
        }
    )


#: BBR's mode from its two gains, as tcp_bbr.c's ``bbr_update_gains`` sets them (x 256):
#: STARTUP paces and sizes cwnd at the high gain (739), DRAIN paces at its inverse (88) with
#: the high cwnd gain, PROBE_BW has a cwnd gain of 2 (512) and PROBE_RTT of 1 (256). The
#: numbers are the simulator's ``mode`` variable (``Mode::index``).
BBR_MODE_BY_GAINS = {(739, 739): 0.0, (88, 739): 1.0, (256, 256): 3.0}
BBR_PROBE_BW_CWND_GAIN = 512
BBR_UNIT = 256


def bbr_mode(pacing_gain: int, cwnd_gain: int) -> float:
    """The simulator's ``mode`` number of one tcp_bbr_info sample (NaN for gains no mode has)."""
    if cwnd_gain == BBR_PROBE_BW_CWND_GAIN:
        return 2.0
    return BBR_MODE_BY_GAINS.get((pacing_gain, cwnd_gain), float("nan"))


def tcp_cc_vars(samples: pd.DataFrame, flow: int) -> pd.DataFrame:
    """The kernel's rate and BBR state as the simulator's ``cc_vars`` rows (time, flow, name,
    value), under the simulator's names and units: ``delivery_rate`` and ``pacing_rate`` in
    payload bytes per second; for a bbr socket (tcp_bbr_info) ``bw`` (bytes per second),
    ``min_rtt`` (seconds), ``pacing_gain``, ``cwnd_gain`` and ``mode`` (from the gains).
    Samples taken before the sampler read the field (-1) are left out, and pacing rates
    before one was set (``UNSET_PACING_RATE``), as the simulator leaves them out."""
    t = samples["time"].to_numpy(float)
    columns: list[tuple[str, np.ndarray, np.ndarray]] = []  # (name, values, which samples read it)
    if "delivery_rate" in samples:
        read = samples["delivery_rate"].to_numpy() >= 0
        pacing = samples["pacing_rate"].to_numpy(float)
        columns += [
            ("delivery_rate", samples["delivery_rate"].to_numpy(float), read),
            ("pacing_rate", pacing, read & (pacing < UNSET_PACING_RATE)),
        ]
    if "bbr_bw" in samples:
        read = samples["bbr_bw"].to_numpy() >= 0
        pg, cg = samples["bbr_pacing_gain"].to_numpy(), samples["bbr_cwnd_gain"].to_numpy()
        columns += [
            ("bw", samples["bbr_bw"].to_numpy(float), read),
            ("min_rtt", samples["bbr_min_rtt_us"].to_numpy(float) / 1e6, read),
            ("pacing_gain", pg / BBR_UNIT, read),
            ("cwnd_gain", cg / BBR_UNIT, read),
            ("mode", np.array([bbr_mode(int(a), int(b)) for a, b in zip(pg, cg, strict=True)]), read),
        ]
    frames = [
        pd.DataFrame({"time": t[read], "flow": flow, "name": name, "value": value[read]})
        for name, value, read in columns
        if read.any()
    ]
    return (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame(columns=["time", "flow", "name", "value"])
    )


#: tcp_info's counters of sending time (microseconds), by the flows table's column (seconds).
LIMITED_COUNTERS = {
    "busy_time": "busy_time_us",
    "rwnd_limited_time": "rwnd_limited_us",
    "sndbuf_limited_time": "sndbuf_limited_us",
}


def limited_seconds(last: pd.Series) -> dict[str, float]:
    """How long the connection sent data, and how much of that the peer's window or its own
    send buffer held it back, seconds over the whole run (tcpi_busy_time, tcpi_rwnd_limited,
    tcpi_sndbuf_limited: Linux >= 4.10; NaN where the kernel or the sample lacks them). A
    kernel flow limited by the receiver is not comparable with a simulated one that is not."""
    return {
        column: float(last[field]) / 1e6 if field in last and last[field] >= 0 else np.nan
        for column, field in LIMITED_COUNTERS.items()
    }


def window_mean(t: np.ndarray, v: np.ndarray, window: tuple[float, float]) -> float:
    """Mean of samples taken at (nearly) regular times inside ``window``; NaN when none."""
    inside = (t >= window[0]) & (t <= window[1]) & np.isfinite(v)
    return float(np.mean(v[inside])) if inside.any() else float("nan")


def _records(
    p: TestbedPlan,
    received: list[int],
    qstats: str,
    out: Path | None,
    samples: pd.DataFrame | None = None,
    qsamples: pd.DataFrame | None = None,
    extra: dict[str, Any] | None = None,
) -> Result:
    rows, series, cc_vars = [], [], []
    samples = samples if samples is not None else pd.DataFrame()
    snd_mss = []
    for i, (f, total) in enumerate(zip(p.flows, received, strict=True)):
        if total <= 0:  # the connection opened but no segment crossed: the bed is broken
            raise net.TestbedError(
                f"flow {f.name} delivered no data through the bed (MTU {p.mtu}); "
                "the delay element or the bottleneck dropped every segment"
            )
        mine = flow_samples(samples, BASE_PORT + i) if len(samples) else pd.DataFrame()
        if not len(mine):  # a run without its samples is not a measurement: never stored
            raise net.TestbedError(f"flow {f.name}: the tcp_info sampler saw no socket of it")
        ts = tcp_series(mine, i)
        series.extend(ts.to_dict("records"))
        cc_vars.append(tcp_cc_vars(mine, i))
        last = mine.iloc[-1]
        retrans = int(last["total_retrans"])
        timeouts = int(last["total_rto"]) if last["total_rto"] >= 0 else np.nan
        mean_rtt = window_mean(ts["time"].to_numpy(), ts["srtt"].to_numpy(), p.measure)
        min_rtt = float(last["min_rtt_us"]) / 1e6
        cwnds = list(ts["cwnd"])
        snd_mss.append(int(mine["snd_mss"].max()))
        # Goodput on the samples' clock (the run's), as the simulator measures it.
        delivered = delivered_in_window(ts, i, p.measure)
        if not np.isfinite(delivered):
            raise net.TestbedError(f"flow {f.name}: the tcp_info samples do not cover the measurement window")
        goodput = delivered * 8 / (p.measure[1] - p.measure[0])
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
                "retransmissions": retrans,
                "timeouts": timeouts,
                "mean_rtt": mean_rtt,
                "min_rtt": min_rtt,
                "final_cwnd": cwnds[-1] if cwnds else np.nan,
                "kernel_cc": f.kernel_cc,
                **limited_seconds(last),
            }
        )
    links = []
    queues: list[dict[str, Any]] = []
    mean_q = max_q = np.nan
    if qsamples is not None and len(qsamples):
        qf = qsamples[qsamples["kind"] == "pfifo"].sort_values("time")
        if len(qf):
            inside = qf[(qf["time"] >= p.measure[0]) & (qf["time"] <= p.measure[1])]
            mean_q = float(inside["qlen"].mean()) if len(inside) else np.nan
            max_q = float(qf["qlen"].max())
            queues = [
                {"time": t, "link": 0, "link_name": "r1->delay", "packets": q, "bytes": b}
                for t, q, b in zip(qf["time"], qf["qlen"], qf["backlog"], strict=True)
            ]
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
                        "mean_queue": mean_q,
                        "max_queue": max_q,
                    }
                )
    except json.JSONDecodeError:
        pass
    tables: dict[str, Any] = {name: pd.DataFrame() for name in TABLES}
    tables["flows"] = pd.DataFrame(rows)
    tables["series"] = pd.DataFrame(series)
    tables["cc_vars"] = pd.concat(cc_vars, ignore_index=True) if cc_vars else pd.DataFrame()
    tables["links"] = pd.DataFrame(links)
    tables["queues"] = pd.DataFrame(queues)
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
        "mtu": p.mtu,
        "snd_mss": max(snd_mss) if snd_mss else np.nan,
        "rtt_source": "tcp_info srtt sampled every sample_interval",
        # Where and when: the archive of kernel measurements keeps them (testbed/archive.py).
        "kernel_release": platform.release(),
        "measured": datetime.date.today().isoformat(),
        **(extra or {}),
    }
    return Result(meta=meta, **tables)


def run_scenario(
    scenario: Scenario | dict[str, Any] | str | Path,
    out_dir: str | Path | None = None,
    capture: bool = True,
    native: bool = False,
    sample_interval: float = SAMPLE_INTERVAL,
    receiver_capture: bool = False,
    sender_capture: bool = False,
    ca_trace: bool = False,
) -> Result:
    """Runs a simulator scenario (the supported subset, see ``plan``) on the kernel test bed.

    Returns a :class:`tcplab.result.Result` whose ``flows`` table has the simulator's columns
    for what a kernel run measures (goodput over the measurement window, bytes, retransmits,
    RTTs, retransmissions and timeouts from tcp_info); ``series`` has the kernel's tcp_info
    (cwnd, srtt, rttvar, min_rtt, bytes acked, ...) every ``sample_interval``, ``queues``
    the bottleneck's backlog, ``meta["snmp"]`` the sender namespace's SNMP counters over the
    run. ``native``: reno/cubic are the kernel's own (``plan``); ``receiver_capture`` and
    ``sender_capture``: a capture at the receiver or the sender beside the bottleneck's;
    ``ca_trace``: the Vegas-family ports' round trace as ``cc_vars`` (``run_plan``). Needs root."""
    if isinstance(scenario, (str, Path)):
        scenario = Scenario.load(scenario)
    return run_plan(
        plan(scenario, native=native),
        out_dir=out_dir,
        capture=capture,
        sample_interval=sample_interval,
        receiver_capture=receiver_capture,
        sender_capture=sender_capture,
        ca_trace=ca_trace,
    )
