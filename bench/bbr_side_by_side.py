#!/usr/bin/env python3
"""BBR in the kernel, in tcplab and in ns-3 on the kernel conformance matrix, side by side.

    nice -n 19 .venv/bin/python bench/bbr_side_by_side.py [--quick] [--seeds 3]
        [--kernel-store DIR] [--out DIR] [--figure PATH]

Every point of python/tcplab/testbed/conformance.py's matrix (``cf.entries``) for ``bbr``
(one or two BBR flows) and ``bbr+cubic`` (flow 0 BBR, flow 1 CUBIC), seeds 1..n. The

dumbbell has no jitter) are the single source of truth: tcplab runs them as they are,
ns-3 runs bench/ns3/dumbbell with their translation
(bench/run.py, ``dumbbell_args``: 1000-byte segments with timestamps, every link's rate
scaled so that a full frame takes as long as tcplab's 1066 bytes, the buffer in packets,
Bernoulli loss of data at the bottleneck, each flow's start). Both sides' figures come from
``cf.metrics`` (for ns-3 from its 10 ms samples of cwnd, smoothed RTT and bytes
acknowledged, put in the same tables), so the definitions are the conformance report's.

Kernel figures come from the result store of ``tcplab reproduce --kernel linux/conformance``
(``--kernel-store``: the kernel runs of each point, by the point's duration, through the
same ``cf.metrics``) and, for the entries the store lacks, from the archive of kernel
measurements (python/tcplab/testbed/data/conformance_kernel.csv, ``--archive``: figures, and
the base point's first run's trace for the figure's kernel line; the bandwidth estimate needs
every run's rate series, so it stays blank); an entry in neither has empty kernel columns, and
a later run of this script fills them.

Run it with the project's interpreter (tcplab and its engine installed). bench/.venv only
provides the ns3 wheel that bench/ns3/dumbbell is built against (created on first use, as
bench/run.py does). Writes bbr_side_by_side.csv (every figure, with its spread over the
runs), bbr_side_by_side.md (the table of docs/kernel.md) and the trace figure.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import run as bench  # bench/run.py: this script's directory is first on sys.path

import tcplab
from tcplab.result import Result
from tcplab.tables import TABLES
from tcplab.testbed import archive as kernel_archive
from tcplab.testbed import conformance as cf

ALGORITHMS = ("bbr", "bbr+cubic")
SIDES = ("kernel", "tcplab", "ns3")
#: The samples bench/ns3/dumbbell writes with --samples (common.h, SampleFlows).
SAMPLE_COLUMNS = ["time", "flow", "cwnd_bytes", "srtt", "bytes_acked", "pacing_bps"]
#: Figures of the markdown table: (column title, figure, format, scale).
TABLE_FIGURES = (
    ("utilisation", "utilisation", "{:.3f}", 1.0),
    ("retrans", "retransmissions", "{:.0f}", 1.0),
    ("mean RTT (ms)", "mean_rtt", "{:.1f}", 1e3),
    ("p95 RTT (ms)", "p95_rtt", "{:.1f}", 1e3),
    ("mean cwnd", "mean_cwnd", "{:.1f}", 1.0),
)
#: The figures compared for "nearer the kernel" (shares too, for two flows).
COMPARED = ("utilisation", "retransmissions", "mean_rtt", "p95_rtt", "mean_cwnd")


def entries(quick: bool) -> list[tuple[cf.Point, str]]:
    """The matrix's BBR entries: BBR alone (one or two flows) and against CUBIC."""
    return [(p, a) for p, a in cf.entries(quick) if a in ALGORITHMS]


# ----------------------------------------------------------------------------- ns-3


def ns3_args(doc: dict[str, Any]) -> list[str]:
    """bench/ns3/dumbbell's arguments for a conformance document (its ``linux`` stack has SACK)."""
    return bench.dumbbell_args(doc, sack=True)


def empty_result(**tables: pd.DataFrame) -> Result:
    """A Result with the given tables and every other one empty."""
    frames: dict[str, Any] = {name: pd.DataFrame() for name in TABLES if name not in ("frames", "events")}
    frames.update(frames=None, events=None)
    frames.update(tables)
    return Result(meta={}, **frames)


def ns3_result(samples: str, summary: dict[str, Any], segment: float) -> Result:
    """ns-3's run as tcplab's tables, so that ``cf.metrics`` reads it as it reads tcplab's:
    ``series`` (time, flow, cwnd in segments, srtt, bytes_delivered = bytes acknowledged,
    as the kernel's ``tcpi_bytes_acked``), ``flows`` (retransmissions and timeouts from the
    sender sockets' traces) and ``cc_vars`` (``pacing_rate`` in bytes per second, as tcplab's)."""
    s = pd.read_csv(io.StringIO(samples), sep=" ", names=SAMPLE_COLUMNS)
    series = pd.DataFrame(
        {
            "time": s["time"].astype(float),
            "flow": s["flow"].astype(int),
            "cwnd": s["cwnd_bytes"] / segment,
            "srtt": s["srtt"].astype(float),
            "bytes_delivered": s["bytes_acked"].astype(float),
        }
    )
    n = int(summary["flows"])
    flows = pd.DataFrame(
        {
            "id": range(n),
            "retransmissions": summary["flow_retransmissions"],
            "timeouts": summary["flow_timeouts"],
        }
    )
    cc_vars = pd.DataFrame(
        {"time": s["time"], "flow": s["flow"], "name": "pacing_rate", "value": s["pacing_bps"] / 8}
    )
    return empty_result(flows=flows, series=series, cc_vars=cc_vars)


def run_ns3(binary: Path, doc: dict[str, Any]) -> Result:
    """One ns-3 run of the document."""
    with tempfile.TemporaryDirectory() as tmp:
        samples = Path(tmp) / "samples.txt"
        cmd = [str(binary), *ns3_args(doc), f"--samples={samples}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
        summary = json.loads(proc.stdout.strip().splitlines()[-1])
        return ns3_result(samples.read_text(), summary, float(doc["tcp"]["mss"]))


# ----------------------------------------------------------------------------- kernel


def archived_figures(archive: Path | None, quick: bool) -> Callable[[cf.Point, str], list[cf.Figures]]:
    """The archived kernel figures of a matrix entry, repeat by repeat (none without an
    archive): those archived under the entry's own kernel run keys."""
    if archive is None:
        return lambda point, algo: []
    from tcplab.experiments.linux import LinuxConformance

    held = LinuxConformance(archive=archive).archived(quick)

    def lookup(point: cf.Point, algo: str) -> list[cf.Figures]:
        mine = {repeat: a for (name, al, repeat), a in held.items() if (name, al) == (point.name, algo)}
        return [mine[repeat].figures for repeat in sorted(mine)]

    return lookup


def archived_traces(archive: Path | None, quick: bool) -> dict[str, Result]:
    """The archived kernel traces of the base point's first runs (flow 0's cwnd and pacing
    rate), by algorithm, as runs with only a series (none without an archive)."""
    if archive is None:
        return {}
    from tcplab.experiments.linux import LinuxConformance

    held = LinuxConformance(archive=archive).archived_traces(quick)
    return {algo: empty_result(series=series) for algo, series in held.items()}


def kernel_runs(store_dir: Path | None) -> Callable[[cf.Point, str], list[Result]]:
    """The stored kernel runs of a matrix entry, repeat by repeat (none without a store).
    A point's quick and full runs share its name; its duration tells them apart."""
    if store_dir is None:
        return lambda point, algo: []
    from tcplab.store import ResultStore

    store = ResultStore(store_dir)
    index = store.index()
    if not len(index) or "param.backend" not in index:
        return lambda point, algo: []
    kernel = index[(index["experiment"] == "linux/conformance") & (index["param.backend"] == "kernel")]

    def lookup(point: cf.Point, algo: str) -> list[Result]:
        mine = kernel[
            (kernel["param.scenario"] == point.name)
            & (kernel["param.algorithm"] == algo)
            & np.isclose(kernel["duration"].astype(float), point.duration)
        ].sort_values("param.repeat")
        return [store.load(k) for k in mine["key"]]

    return lookup


def kernel_segment(result: Result) -> float:
    """The kernel's payload per full segment (its snd_mss), as linux/conformance takes it."""
    return float(result.meta.get("snd_mss", cf.MSS))


# ----------------------------------------------------------------------------- comparing


@dataclass
class Entry:
    """One matrix entry's runs on each side, as figures, and the base point's traces."""

    point: cf.Point
    algo: str
    figures: dict[str, list[cf.Figures]]
    traces: dict[str, Result]
    #: Per side and run, flow 0's bandwidth estimate over the bottleneck's payload rate.
    bw: dict[str, list[float]] = field(default_factory=dict)


def bw_over_capacity(res: Result, point: cf.Point) -> float:
    """Flow 0's bandwidth estimate in the measurement window over the bottleneck's payload
    rate (cf.metrics' capacity): its median pacing rate over (1 - 1 %) pacing margin. BBR
    spends six of PROBE_BW's eight phases at gain 1, so the median is its BtlBw, less the
    margin (for BBR alone; against CUBIC it is BBR's own bandwidth). NaN without a rate."""
    rate = pacing_rate_bps(res)
    rate = rate[(rate["time"] >= point.measure[0]) & (rate["time"] <= point.measure[1])]
    capacity = point.rate_mbps * 1e6 * cf.MSS / (cf.MSS + cf.FRAME_OVERHEAD)
    return float(np.median(rate["bps"]) / 0.99 / capacity) if len(rate) else float("nan")


def nearer(kernel: float, tcplab_value: float, ns3_value: float, tie: float | None = None) -> str:
    """Which simulator is nearer the kernel on one figure: "tcplab", "ns-3", "tie" (their
    distances from the kernel within ``tie`` of each other; default 1 % of the kernel's
    value), or "-" without all three figures."""
    if not all(x is not None and math.isfinite(x) for x in (kernel, tcplab_value, ns3_value)):
        return "-"
    dt, dn = abs(tcplab_value - kernel), abs(ns3_value - kernel)
    if abs(dt - dn) <= (0.01 * abs(kernel) if tie is None else tie):
        return "tie"
    return "tcplab" if dt < dn else "ns-3"


def share_distance(kernel: list[float], other: list[float]) -> float:
    """The largest difference of a flow's share (NaN without both)."""
    if len(kernel) < 2 or len(kernel) != len(other):
        return float("nan")
    return max(abs(a - b) for a, b in zip(kernel, other, strict=True))


def row(entry: Entry) -> dict[str, Any]:
    """One CSV row: every side's mean figures, their spread, and the nearer simulator."""
    means = {side: cf.mean_figures(entry.figures[side]) for side in SIDES}
    out: dict[str, Any] = {
        "scenario": entry.point.name,
        "algorithm": entry.algo,
        "runs": "/".join(str(len(entry.figures[side])) for side in SIDES),
    }
    for name in cf.SCALARS:
        scale, suffix = (1e3, "_ms") if name.endswith("_rtt") else (1.0, "")
        for side in SIDES:
            value = getattr(means[side], name) if entry.figures[side] else float("nan")
            out[f"{name}{suffix}_{side}"] = value * scale
            out[f"{name}{suffix}_sd_{side}"] = cf.spread(entry.figures[side], name) * scale
    for side in SIDES:
        out[f"share_{side}"] = "/".join(f"{x:.2f}" for x in means[side].shares) or "-"
    for side in SIDES:
        bw = entry.bw.get(side, [])
        out[f"bw_over_capacity_{side}"] = float(np.mean(bw)) if bw else float("nan")
    for name in COMPARED:
        k, t, n = (getattr(means[side], name) if entry.figures[side] else float("nan") for side in SIDES)
        out[f"nearer_{name}"] = nearer(k, t, n)
    if len(cf.flow_algorithms(entry.point, entry.algo)) > 1:
        k = means["kernel"].shares if entry.figures["kernel"] else []
        # Distances from the kernel's shares, compared with a tie within one point.
        out["nearer_share"] = nearer(
            0.0,
            share_distance(k, means["tcplab"].shares),
            share_distance(k, means["ns3"].shares),
            tie=0.01,
        )
    else:
        out["nearer_share"] = "-"
    return out


def markdown(rows: pd.DataFrame) -> str:
    """The table of docs/kernel.md: kernel / tcplab / ns-3 per figure, the nearer simulator."""
    titles = [t for t, *_ in TABLE_FIGURES]
    head = [
        "scenario",
        "algorithm",
        "runs k/t/n",
        *titles,
        "BBR bw / capacity",
        "shares",
        "nearer the kernel",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, r in rows.iterrows():
        cells = [r["scenario"], r["algorithm"], r["runs"]]
        for _, name, fmt, _ in TABLE_FIGURES:
            key = f"{name}_ms" if name.endswith("_rtt") else name
            cells.append(" / ".join(_fmt(fmt, r[f"{key}_{side}"]) for side in SIDES))
        cells.append(" / ".join(_fmt("{:.3f}", r[f"bw_over_capacity_{side}"]) for side in SIDES))
        shares = [r[f"share_{side}"] for side in SIDES]
        cells.append(" vs ".join(shares) if any(s != "-" for s in shares) else "")
        verdicts = [
            f"{_short(n)} {r[f'nearer_{n}']}" for n in (*COMPARED, "share") if r[f"nearer_{n}"] != "-"
        ]
        cells.append(", ".join(verdicts) or "(no kernel runs)")
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _fmt(fmt: str, value: float) -> str:
    return "–" if value is None or not math.isfinite(value) else fmt.format(value)


def _short(name: str) -> str:
    return {
        "utilisation": "util",
        "retransmissions": "retrans",
        "mean_rtt": "RTT",
        "p95_rtt": "p95",
        "mean_cwnd": "cwnd",
        "share": "share",
    }[name]


# ----------------------------------------------------------------------------- figure


def trace_figure(traces: dict[str, Result], path: Path, title: str, rate_mbps: float, zoom: float) -> None:
    """Flow 0's pacing rate and cwnd on one run, kernel, tcplab and ns-3 overlaid, and both
    again over the two seconds from ``zoom`` (where the PROBE_BW gain cycle can be read); the
    rate axis ends at STARTUP's gain over the bottleneck (the kernel reports an unlimited
    rate before its first RTT sample)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(13, 6), gridspec_kw={"width_ratios": [2, 1]})
    styles = {"kernel": ("-", "black"), "tcplab": ("--", "tab:blue"), "ns3": (":", "tab:red")}
    for side, res in traces.items():
        style, color = styles[side]
        label = "ns-3" if side == "ns3" else side
        s = res.series[res.series["flow"] == 0]
        rate = pacing_rate_bps(res)
        for col in (0, 1):
            axes[1][col].plot(s["time"], s["cwnd"], style, color=color, lw=0.8, label=label)
            if len(rate):
                axes[0][col].plot(rate["time"], rate["bps"] / 1e6, style, color=color, lw=0.8, label=label)
    for col in (0, 1):
        axes[0][col].set_ylim(0, 3 * rate_mbps)
        axes[0][col].set_ylabel("pacing rate (Mb/s)")
        axes[1][col].set_ylabel("cwnd (segments)")
        axes[1][col].set_xlabel("time (s)")
    for ax in axes[:, 1]:
        ax.set_xlim(zoom, zoom + 2)
    for ax in axes.flat:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def pacing_rate_bps(res: Result) -> pd.DataFrame:
    """Flow 0's pacing rate in bits per second: the kernel's sampled series (bits per
    second), or the ``pacing_rate`` variable of tcplab and ns-3 (bytes per second)."""
    s = res.series
    if "pacing_rate" in s and s["pacing_rate"].notna().any():
        mine = s[s["flow"] == 0]
        return pd.DataFrame({"time": mine["time"], "bps": mine["pacing_rate"].astype(float)})
    v = res.cc_vars
    if not len(v):
        return pd.DataFrame({"time": [], "bps": []})
    mine = v[(v["flow"] == 0) & (v["name"] == "pacing_rate")]
    return pd.DataFrame({"time": mine["time"], "bps": mine["value"].astype(float) * 8})


# ----------------------------------------------------------------------------- main


def measure(
    point: cf.Point,
    algo: str,
    seeds: int,
    ns3_bin: Path,
    kernel: Callable[[cf.Point, str], list[Result]],
    archived: Callable[[cf.Point, str], list[cf.Figures]],
    traces: dict[str, Result],
) -> Entry:
    """Every side's runs of one entry, as figures; the first run's traces. The kernel's are
    its stored runs or, without any, its archived figures and (base point) trace."""
    rate, window = point.rate_mbps * 1e6, point.measure
    entry = Entry(point, algo, {side: [] for side in SIDES}, {}, {side: [] for side in SIDES})

    def add(side: str, res: Result, segment: float) -> None:
        entry.figures[side].append(cf.metrics(res, rate, window, segment))
        entry.bw[side].append(bw_over_capacity(res, point))
        entry.traces.setdefault(side, res)

    for res in kernel(point, algo):
        add("kernel", res, kernel_segment(res))
    if not entry.figures["kernel"]:
        entry.figures["kernel"] = archived(point, algo)
        if point.name == "base" and algo in traces:
            entry.traces["kernel"] = traces[algo]
    for seed in range(1, seeds + 1):
        # Exact links for both simulators: ns-3's dumbbell has no jitter and no token bucket
        # (the conformance report's tcplab side runs the bed's, docs/kernel.md), and a sender
        # and receiver per flow (the bed and the report's tcplab side have one for all).
        sc = cf.scenario(point, algo, seed=seed, jitter=None, burst=None, shared_hosts=False)
        add("tcplab", tcplab.run(sc), float(cf.MSS))
        add("ns3", run_ns3(ns3_bin, sc.doc), float(cf.MSS))
    return entry


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the conformance matrix's quick points")
    ap.add_argument("--seeds", type=int, default=3, help="runs per entry in each simulator (seeds 1..n)")
    ap.add_argument("--kernel-store", type=Path, help="result store of the kernel conformance runs")
    ap.add_argument(
        "--archive",
        type=Path,
        default=kernel_archive.ARCHIVE,
        help="archive of kernel measurements for the entries the store lacks (default: the packaged one)",
    )
    ap.add_argument("--no-archive", action="store_true", help="only stored kernel runs")
    ap.add_argument("--out", type=Path, default=bench.OUT / "bbr", help="directory of the CSV and table")
    ap.add_argument("--figure", type=Path, help="the trace figure (default: in --out)")
    ap.add_argument("--no-build", action="store_true", help="use bench/ns3/build/dumbbell as it is")
    args = ap.parse_args(argv)
    if args.seeds < 1:
        ap.error(f"--seeds: {args.seeds} is not a positive number of runs")
    if args.kernel_store is not None and not (args.kernel_store / "runs").is_dir():
        ap.error(f"--kernel-store: {args.kernel_store} is not a result store (it has no runs/ directory)")
    if not args.no_archive and not args.archive.is_file():
        ap.error(f"--archive: {args.archive} is not a file")
    archive = None if args.no_archive else args.archive
    try:
        archived = archived_figures(archive, args.quick)
        traces = archived_traces(archive, args.quick)
    except ValueError as e:
        ap.error(f"--archive: {args.archive}: {e}")
    if not args.no_build:
        bench.build_ns3(bench.ensure_venv())
    ns3_bin = bench.NS3_BUILD / "dumbbell"
    kernel = kernel_runs(args.kernel_store)
    done: list[Entry] = []
    for point, algo in entries(args.quick):
        e = measure(point, algo, args.seeds, ns3_bin, kernel, archived, traces)
        done.append(e)
        print(
            f"{point.name:>18} {algo:<9} runs {'/'.join(str(len(e.figures[s])) for s in SIDES)}", flush=True
        )
    rows = pd.DataFrame([row(e) for e in done])
    args.out.mkdir(parents=True, exist_ok=True)
    rows.to_csv(args.out / "bbr_side_by_side.csv", index=False)
    table = markdown(rows)
    (args.out / "bbr_side_by_side.md").write_text(table)
    print(table)
    base = next((e for e in done if e.point.name == "base" and e.algo == "bbr"), None)
    if base is not None:
        figure = args.figure or args.out / "bbr_side_by_side.png"
        trace_figure(
            base.traces,
            figure,
            f"BBR alone on the base point ({base.point.rate_mbps:g} Mb/s, {base.point.rtt_ms:g} ms, "
            f"{base.point.buffer_bdp:g} BDP), seed 1: kernel, tcplab, ns-3",
            base.point.rate_mbps,
            zoom=base.point.measure[0],
        )
        print(f"figure: {figure}")
    print(f"table: {args.out / 'bbr_side_by_side.md'}; figures: {args.out / 'bbr_side_by_side.csv'}")


if __name__ == "__main__":
    sys.exit(main())
