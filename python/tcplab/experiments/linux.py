"""linux/conformance: the simulator's ``linux`` TCP profile against the kernel itself.

Not a paper's experiment: tcplab's own check that the simulator, run with ``[tcp] stack =
"linux"``, reproduces what Linux's TCP does on the namespace test bed (docs/kernel.md). Its
kernel runs need root and run in real time, so it runs only when named (``tcplab reproduce
linux/conformance`` or ``tcplab reproduce linux``), never as part of ``all``; without
``--kernel`` its simulated runs are compared with the kernel runs archived in the repository
(testbed/archive.py) and with those already stored.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..result import Result
from ..store import TESTBED_VERSION, ResultStore, kernel_run_key
from ..testbed import archive as kernel_archive
from ..testbed import conformance as cf
from ..testbed import equivalence as eq
from ..testbed.sampler import UNSET_PACING_RATE
from . import register
from .base import Claim, Experiment, Figure, Outcome, Results, Run
from .common import panels

_FROM_ENV = "<from TCPLAB_CONFORMANCE_SIM_STACK, default linux>"
#: The bed-model table's name for the matrix's own model.
DEFAULT_MODEL = "default (the bed's jitter, bucket, reads and ACK latency)"


def _sim_stack_from_env() -> str | None:
    """``TCPLAB_CONFORMANCE_SIM_STACK=none`` runs the simulator without ``[tcp] stack`` (for
    engines that do not know the key yet); any other value names the profile."""
    value = os.environ.get("TCPLAB_CONFORMANCE_SIM_STACK", "linux")
    return None if value.lower() in ("", "none") else value


@register
class LinuxConformance(Experiment):
    name = "linux/conformance"
    paper = "linux"
    title = "Kernel conformance: the simulator's linux profile against Linux TCP on the test bed"
    setup = (
        "A dumbbell on the kernel test bed (network namespaces, TBF bottleneck with a pfifo buffer, "
        "tcplab's delay element and bulk-transfer generator, every flow connected before any sends) "
        'and in the simulator with [tcp] stack = "linux": a base point '
        "(10 Mb/s, 40 ms RTT, buffer 1 BDP, no random loss, one flow, 30 s measured after 5 s) and "
        "one-at-a-time variations (buffer 0.5 and 2 BDP, Bernoulli loss 0.5 % and 2 % on data, RTT 20 "
        "and 100 ms, two flows together and 5 s apart), for the kernel's reno, cubic and bbr and tcplab's "
        "BPF Vegas, Veno, NewVegas and CODE, BBR against CUBIC on the one-flow points, and BBR's own "
        "point at 1 % loss; five runs a side, ten for the entries five left undecided "
        "(conformance.SECOND_STAGE), twenty for those of reno, cubic, Vegas and Veno that ten left "
        "undecided (conformance.THIRD_STAGE) (the simulator with the bed's measured delay-path "
        "jitter, both directions, for every algorithm). Segments carry 1000 payload bytes on both "
        "sides (the kernel's snd_mss); "
        "kernel figures from tcp_info sampled every 10 ms through sock_diag and the sender "
        "namespace's SNMP counters. The simulator models the bed's hosts as measured: all "
        "flows share one sender and one receiver, the bottleneck's token bucket, the receiving "
        "application's reads (an ACK that would shrink "
        "the window waits for them) and the kernel's ACK latency, drawn per read and ACK, and for two "
        f"flows started together the measured chance ({cf.BED_SPLIT_START:.0%}) that one flow's "
        "whole first window reaches the bottleneck before the other's, drawn per seed (the profile "
        "brings Linux's TSO deferral, PSH rule and SACK compression); beside the matrix it runs "
        "each entry again without each of "
        "these, and with engine 0.3.3's model, 6.18 receiver, against the same kernel runs. "
        "Quick: three 12 s points. The kernel runs need root (--kernel); without it, the archived "
        "kernel runs (python/tcplab/testbed/data/conformance_kernel.csv) stand in. Runs only when named."
    )
    needs = ("testbed:kernel",)
    explicit = True
    kernel_time = "about 4 h of real time for the full matrix (quick: about 13 min)"

    def __init__(
        self,
        sim_stack: str | None = _FROM_ENV,
        jitter: dict[str, Any] | None = cf.BED_JITTER,
        burst: str | None = cf.BED_BURST,
        ack_latency: float | dict[str, Any] | None = cf.BED_ACK_LATENCY,
        app_read: float | dict[str, Any] | None = cf.BED_APP_READ,
        archive: Path | None = kernel_archive.ARCHIVE,
        split_start: float | None = cf.BED_SPLIT_START,
    ):
        """``sim_stack``: the simulator's ``[tcp] stack`` ("linux" by default; None leaves it
        out); ``jitter``: the simulator's bottleneck jitter, both directions (None: none);
        ``burst``: the simulated bottleneck's token-bucket slack (the bed's by default; None:
        none); ``ack_latency``: the simulated receivers' ACK latency, seconds or a distribution
        (the bed's measured distribution by default; None: none); ``app_read``: how long the
        simulated receiving applications take to read (the same kinds; the bed's by default;
        None: they read at once); ``archive``: the archived kernel runs to compare with where
        the store lacks a kernel run (testbed/archive.py; None: only stored runs);
        ``split_start``: the chance that two flows started together reach the bottleneck one
        window after the other (the bed's measured share by default; None: never)."""
        self.archive = archive
        self._kernel_keys: dict[bool, dict[tuple[str, str, int], str]] = {}
        self.sim_stack = _sim_stack_from_env() if sim_stack is _FROM_ENV else sim_stack
        self.jitter = jitter
        self.burst = burst
        self.ack_latency = ack_latency
        self.app_read = app_read
        self.split_start = split_start

    def scenario(self, point: cf.Point, algo: str, seed: int = 1, **model: Any):
        """The simulated side of one matrix entry; ``model`` overrides the experiment's
        ``burst``, ``ack_latency``, ``app_read`` and ``split_start`` or sets ``app_push``,
        ``tso_defer``, ``sack_compress``, ``pacing_unit``, ``host_egress``, ``rcv_truesize`` and
        ``shared_hosts`` (the bed-model ablations)."""
        settings = {
            "burst": self.burst,
            "ack_latency": self.ack_latency,
            "app_read": self.app_read,
            "split_start": self.split_start,
            **model,
        }
        return cf.scenario(point, algo, sim_stack=self.sim_stack, jitter=self.jitter, seed=seed, **settings)

    def bed_scenario(self, point: cf.Point, algo: str, seed: int = 1):
        """The test bed's document of one matrix entry (its runs' store key and archive row):
        the simulated side's without what the simulator models of the bed, which the bed does its
        own way (``cf.kernel_scenario``), its flows started as the point says (the split of two
        flows' first windows is the simulator's model of the bed's start, not a setting of it)."""
        return cf.kernel_scenario(self.scenario(point, algo, seed=seed, split_start=None))

    def bed_models(self) -> dict[str, dict[str, Any]]:
        """The simulator's bed-model ablations run beside the matrix: each simulated entry
        again without one measured property of the bed's hosts (the bottleneck's token bucket,
        the receiving application's reads, in favour of engine 0.3.8's receiver that reads at
        once with the latency from arrival to ACK drawn per ACK, then any receiver latency at
        all, the profile's TSO deferral and SACK compression, Linux's PSH rule for GSO packets in
        favour of PSH at burst ends, pacing whole GSO packets in favour of engine 0.3.8's
        segments (only paced flows, BBR's, differ), the shared sender's turns between flows by GSO
        packet in favour of engine 0.3.9's FIFO (only entries with two flows differ), the flows'
        shared sender and receiver in favour of a host pair per flow, the measured share of runs
        whose two flows' first windows reach the bottleneck one after the other in favour of
        always interleaved (only the entries of flows started together differ)), and with engine 0.3.3's
        model, which had none of them (with 6.18's receiver; docs/kernel.md); and with one
        measured property the default leaves out, the receive window scaled by the receiver's
        memory per segment (``BED_RCV_TRUESIZE``). Only when the experiment runs the default model
        on the linux profile."""
        default = (cf.BED_BURST, cf.BED_ACK_LATENCY, cf.BED_APP_READ, cf.BED_SPLIT_START)
        if (
            self.sim_stack != "linux"
            or (self.burst, self.ack_latency, self.app_read, self.split_start) != default
        ):
            return {}
        parts = {
            "no bucket": {"burst": None},
            "reads at once (0.3.8)": {"app_read": None, "ack_latency": cf.BED_ARRIVAL_ACK_LATENCY},
            "no receiver latency": {"app_read": None, "ack_latency": None},
            "no TSO deferral": {"tso_defer": False},
            "no SACK compression": {"sack_compress": False},
            "PSH at burst ends": {"app_push": "burst"},
            "paced segments (0.3.8)": {"pacing_unit": "segment"},
            "FIFO sender (0.3.9)": {"host_egress": None},
            "window scaled by memory per segment": {"rcv_truesize": cf.BED_RCV_TRUESIZE},
            "a host pair per flow": {"shared_hosts": False},
            "first windows always interleaved": {"split_start": None},
        }
        # Engine 0.3.3 had none of them: named, not merged from the parts above.
        old = {"burst": None, "app_read": None, "ack_latency": None, "tso_defer": False}
        old |= {"sack_compress": False, "app_push": "burst", "shared_hosts": False, "pacing_unit": "segment"}
        old |= {"split_start": None}
        return {**parts, "engine 0.3.3's model, 6.18 receiver": old}

    def runs(self, quick: bool) -> list[Run]:
        """Every matrix entry ``cf.repeats`` times on each side: simulated, and on the test bed
        with the kernel's own reno, cubic and bbr (stored like the simulated runs, so an
        interrupted matrix keeps what it finished; ``tcplab reproduce --kernel`` runs them)."""
        out = []
        models = self.bed_models()
        for point, algo, params, sim, kernel in self._matrix(quick):
            out += [Run({**params, "backend": "sim"}, sim), kernel]
            for name, model in models.items():
                ablation = self.scenario(point, algo, seed=1 + params["repeat"], **model)
                out.append(Run({**params, "backend": "sim", "model": name}, ablation))
        return out

    def _matrix(self, quick: bool):
        """Each matrix entry and repeat: (point, algorithm, parameters, its simulated scenario,
        its kernel run). Repeat-major: an interrupted matrix has every entry's first n runs
        before any entry's (n+1)-th (an entry of the second stage has ten, cf.SECOND_STAGE, of the
        third twenty, cf.THIRD_STAGE)."""
        entries = cf.entries(quick)
        for repeat in range(max(cf.repeats(quick, p.name, a) for p, a in entries)):
            for point, algo in entries:
                if repeat >= cf.repeats(quick, point.name, algo):
                    continue
                sim = self.scenario(point, algo, seed=1 + repeat)
                params = {"scenario": point.name, "algorithm": algo, "repeat": repeat}
                kernel = Run(
                    {**params, "backend": "kernel"},
                    self.bed_scenario(point, algo, 1 + repeat),
                    "kernel-native",
                )
                yield point, algo, params, sim, kernel

    def kernel_keys(self, quick: bool) -> dict[tuple[str, str, int], str]:
        """The store key of every kernel run of the matrix, by (scenario, algorithm, repeat).
        Kept once computed (about a second for the full matrix's documents): the analysis
        asks for the archived figures and the archived traces, the CLI for their count."""
        if quick not in self._kernel_keys:
            self._kernel_keys[quick] = {
                (point.name, algo, params["repeat"]): kernel_run_key(k.scenario.to_toml(), k.backend)
                for point, algo, params, _, k in self._matrix(quick)
            }
        return self._kernel_keys[quick]

    def archived(self, quick: bool) -> dict[tuple[str, str, int], kernel_archive.Archived]:
        """The kernel runs of the matrix that the archive holds, by (scenario, algorithm,
        repeat)."""
        held = kernel_archive.load(self.archive) if self.archive is not None else {}
        if not held:
            return {}
        return {entry: held[key] for entry, key in self.kernel_keys(quick).items() if key in held}

    def archived_kernel_runs(self, quick: bool) -> int:
        return len(self.archived(quick))

    def _traced(self, quick: bool) -> dict[str, str]:
        """The store key of each algorithm's kernel run the report draws: its first on the
        base point."""
        return {
            algo: key
            for (name, algo, repeat), key in self.kernel_keys(quick).items()
            if (name, repeat) == ("base", 0)
        }

    def archived_traces(self, quick: bool) -> dict[str, pd.DataFrame]:
        """The archived kernel traces the report draws, by algorithm (testbed/archive.py)."""
        if self.archive is None:
            return {}
        held = kernel_archive.load_traces(kernel_archive.traces_path(self.archive))
        return {algo: held[key] for algo, key in self._traced(quick).items() if key in held}

    def archive_traces(self, store: ResultStore) -> dict[str, pd.DataFrame]:
        """The traces the report draws (``archive.trace_of``) of the kernel runs, full and
        quick, that ``store`` holds, by store key."""
        keys = [key for quick in (False, True) for key in self._traced(quick).values() if store.has(key)]
        runs = {key: store.load(key) for key in keys}
        return {key: kernel_archive.trace_of(run.series, run.cc_vars) for key, run in runs.items()}

    def archive_rows(self, store: ResultStore) -> list[dict[str, Any]]:
        """Archive rows (testbed/archive.py) of the kernel runs of the matrix, full and quick,
        that ``store`` holds."""
        rows = []
        for quick in (False, True):
            points = {p.name: p for p in cf.matrix(quick)}
            for (name, algo, repeat), key in self.kernel_keys(quick).items():
                if not store.has(key):
                    continue
                res = store.load(key)
                rows.append(
                    kernel_archive.to_row(
                        run_figures(res, points[name], kernel=True),
                        key=key,
                        scenario=name,
                        algorithm=algo,
                        repeat=repeat,
                        # (Runs from before the bed recorded them: the day they were stored.)
                        measured=res.meta.get("measured") or f"{store.stored_on(key)} (stored)",
                        kernel=res.meta.get("kernel_release") or "unrecorded",
                        testbed=TESTBED_VERSION,
                    )
                )
        return rows

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        entries = cf.entries(quick)
        points = {(p.name, a): p for p, a in entries}
        figures: dict[tuple[str, str, str], list[cf.Figures]] = defaultdict(list)
        # The base point's first runs: the kernel's series, the simulator's whole run.
        kernel_traces: dict[str, pd.DataFrame] = {}
        sim_runs: dict[str, Result] = {}
        for params, res in sorted(results, key=lambda r: r[0]["repeat"]):
            key = (params["scenario"], params["algorithm"])
            point, side = points[key], params["backend"]
            one = run_figures(res, point, kernel=side == "kernel")
            if "model" in params:  # a bed-model ablation's simulated run
                side = f"sim: {params['model']}"
            figures[(*key, side)].append(one)
            if point.name == "base" and params["repeat"] == 0:
                if side == "kernel":
                    kernel_traces[key[1]] = kernel_archive.trace_of(res.series, res.cc_vars).assign(flow=0)
                elif side == "sim":
                    sim_runs[key[1]] = res
        from_archive = self._from_archive(results, quick, points, figures)
        kernel_traces = {**self.archived_traces(quick), **kernel_traces}  # a stored run first
        rows = self._compare(entries, figures, "sim")
        if from_archive:
            out.notes.append(archive_note(from_archive, self.archive))
        if not rows:
            out.notes.append("No pair of kernel and simulator runs is stored: nothing to compare.")
            return out
        table = cf.conformance_table(rows)
        out.tables["kernel / simulator (means over runs, ± standard deviation)"] = cf.summary_table(table)
        algos = list(cf.EVERY_ALGORITHM)
        out.tables["verdicts"] = verdict_grid(table, quick)
        out.tables["every figure, both sides"] = table
        ablations = self._bed_model_table(entries, figures, rows)
        if len(ablations):
            out.tables["bed-model ablations: verdicts with each model of the bed's hosts"] = ablations
        complete = [a for a in algos if a in kernel_traces and a in sim_runs]
        if complete:
            out.figures.append(self._figure({a: (kernel_traces[a], sim_runs[a].series) for a in complete}))
        if "bbr" in complete:
            out.figures.append(bbr_figure(kernel_traces["bbr"], sim_runs["bbr"]))
        for algo in algos:
            mine = table[table["algorithm"] == algo]
            if not len(mine):
                continue
            # A point without both sides' runs is "not evaluated": "every scenario" never
            # holds on the scenarios that happen to be stored.
            stored = set(mine["scenario"])
            unrun = [p.name for p, a in entries if a == algo and p.name not in stored]
            verdicts = list(mine["verdict"]) + ["not evaluated"] * len(unrun)
            # Undecided points (the runs' spread straddles a tolerance) leave it open too.
            overall = eq.combine(verdicts)
            passed = {eq.PASS: True, eq.MISS: False}.get(overall)
            out.claims.append(
                Claim(
                    f"{algo} ({_held(algo)}): {', '.join(cf.tolerances(algo))} and, with two flows, "
                    "shares within tolerance on every scenario",
                    passed,
                    ", ".join(
                        f"{n}: {v}" for n, v in zip([*mine["scenario"], *unrun], verdicts, strict=True)
                    ),
                    undecided=overall == eq.UNDECIDED,
                )
            )
        out.notes.append(
            f"Simulator profile: [tcp] stack = {self.sim_stack!r}"
            if self.sim_stack
            else "Simulator run WITHOUT [tcp] stack (TCPLAB_CONFORMANCE_SIM_STACK=none: the NS-2-like "
            "default profile), as a baseline; differences from the kernel are expected."
        )
        out.notes.append(
            f"Each figure is the mean over {cf.repeats(quick)} runs per side (seeds 1..n; columns *_sd_* "
            "give the standard deviation over the runs)"
            + (
                ""
                if quick
                else f", ten for the {len(cf.SECOND_STAGE)} entries that five left undecided (a second "
                f"stage, conformance.SECOND_STAGE), twenty for the {len(cf.THIRD_STAGE)} entries of the "
                "algorithms held to the tolerances that ten left undecided (a third stage, "
                "conformance.THIRD_STAGE; each stage's checks are decided on all its runs, so an "
                "entry that needed more runs had more chances to pass or miss by chance)"
            )
            + ". A check passes when the 90 % confidence "
            "interval of the difference of the means (Welch) lies inside the tolerance, misses when it "
            "lies outside, and is 'undecided' when it straddles an edge (more runs needed). "
            "RTT figures are the senders' smoothed RTT "
            "(kernel: tcpi_rtt) sampled every 10 ms in the measurement window; timeouts and RTT "
            "percentiles have no tolerance (reported only); a check lacking either side's figure is "
            "'not evaluated', not a pass. BBR is held to utilisation within 3 % and mean RTT within 10 % "
            "(and shares within 10 points against CUBIC); its retransmissions and cwnd are reported."
        )
        return out

    def _from_archive(self, results: Results, quick: bool, points, figures) -> list[kernel_archive.Archived]:
        """Adds the archived figures of the kernel runs the store lacks (a run measured
        afresh takes precedence) to ``figures``; returns those used."""
        stored = {
            (p["scenario"], p["algorithm"], p["repeat"]) for p, _ in results if p["backend"] == "kernel"
        }
        used = []
        for (name, algo, repeat), held in sorted(self.archived(quick).items(), key=lambda e: e[0][2]):
            if (name, algo, repeat) in stored or (name, algo) not in points:
                continue
            figures[(name, algo, "kernel")].append(held.figures)
            used.append(held)
        return used

    def _compare(self, entries, figures, side: str) -> list[dict[str, Any]]:
        """One row per matrix entry with both the kernel's runs and ``side``'s."""
        return [
            cf.compare_point(
                p,
                a,
                figures[(p.name, a, "kernel")],
                figures[(p.name, a, side)],
                paired=self.sim_stack is not None and p.loss > 0,  # the bed's loss draws
            )
            for p, a in entries
            if figures[(p.name, a, "kernel")] and figures[(p.name, a, side)]
        ]

    def _bed_model_table(self, entries, figures, default_rows: list[dict[str, Any]]) -> pd.DataFrame:
        """Per bed model (the default's rows, already compared, first): how many entries pass,
        are undecided or miss against the same kernel runs, and which entries' verdicts differ
        from the default's."""

        def verdicts(rows: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
            return {(r["scenario"], r["algorithm"]): _short(r["verdict"]) for r in rows}

        before = verdicts(default_rows)
        out = []
        for name in ["", *self.bed_models()]:
            rows = self._compare(entries, figures, f"sim: {name}") if name else default_rows
            if not rows:
                continue
            mine = verdicts(rows)
            counts = Counter(mine.values())
            changed = [
                f"{s}/{a}: {before[(s, a)]} -> {v}"
                for (s, a), v in mine.items()
                if (s, a) in before and before[(s, a)] != v
            ]
            out.append(
                {
                    "model": name or DEFAULT_MODEL,
                    "entries": len(mine),
                    **{k: counts.get(k, 0) for k in (eq.PASS, eq.UNDECIDED, eq.MISS, eq.NOT_EVALUATED)},
                    "verdicts that differ from the default": "; ".join(changed) or "-",
                }
            )
        return pd.DataFrame(out) if len(out) > 1 else pd.DataFrame()

    def _figure(self, traces) -> Figure:

        algos = list(traces)
        fig, axes = panels(len(algos), 3, (4.2, 2.8))
        for ax, algo in zip(axes.flat, algos, strict=False):
            kern, sim = traces[algo]
            for df, style, label in ((kern, "-", "kernel"), (sim, "--", "sim")):
                if len(df):
                    f0 = df[df["flow"] == 0]
                    ax.plot(f0["time"], f0["cwnd"], style, lw=0.9, label=label)
            ax.set_title(algo, fontsize=9)
            ax.set_xlabel("time (s)")
            ax.set_ylabel("cwnd (segments)")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        fig.tight_layout()
        return Figure("cwnd", fig, "cwnd of the base point's flow: kernel (solid) and simulator (dashed)")


def run_figures(res: Result, point: cf.Point, kernel: bool) -> cf.Figures:
    """One run's normalised figures at its matrix point: a kernel run's segments are its
    ``snd_mss``, the simulator's the matrix's MSS."""
    segment = float(res.meta.get("snd_mss", cf.MSS)) if kernel else float(cf.MSS)
    return cf.metrics(res, point.rate_mbps * 1e6, point.measure, segment)


def verdict_grid(table: pd.DataFrame, quick: bool) -> pd.DataFrame:
    """The verdicts by scenario (rows) and algorithm (columns): "–" where the matrix has no
    such entry (a point limited to some algorithms, pairs on two-flow points), "not
    evaluated" where it has one without both sides' runs."""
    algos = list(cf.EVERY_ALGORITHM)
    grid = table.pivot_table(index="scenario", columns="algorithm", values="verdict", aggfunc="first")
    grid = grid.reindex(index=[p.name for p in cf.matrix(quick)], columns=algos).astype(object)
    for point in cf.matrix(quick):
        for algo in algos:
            if not point.runs(algo):
                grid.loc[point.name, algo] = "–"
    return grid.fillna("not evaluated").reset_index()


def archive_note(used: list[kernel_archive.Archived], path: Path | None) -> str:
    """Where the kernel side came from when the archive supplied part of it."""
    dates = sorted({a.measured for a in used})
    kernels = sorted({a.kernel for a in used})
    beds = sorted({a.testbed for a in used})
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    where = "python/tcplab/testbed/data/" + path.name if path == kernel_archive.ARCHIVE else str(path)
    return (
        f"Kernel side: {len(used)} run(s) from the archive of kernel measurements ({where}; measured "
        f"{when}, kernel {', '.join(kernels)}, {', '.join(beds)}), not measured in this reproduction; "
        "the rest, if any, from the store. `tcplab reproduce linux/conformance --kernel` measures them "
        "afresh (root), and `tcplab testbed archive` adds a store's kernel runs to the archive."
    )


def _short(verdict: str) -> str:
    """A verdict without its reasons ("miss (mean_rtt)" -> "miss")."""
    return verdict.split(" (")[0]


def _held(algo: str) -> str:
    if "bbr" in algo.split("+"):
        return "BBR's tolerances"
    return "held to the tolerances" if algo in cf.STRICT else "the same, or the difference explained"


#: A kernel pacing rate at or above this (bits/s) is tcp_info's "unset" (~0U bytes/s).
UNSET_PACING_BPS = UNSET_PACING_RATE * 8


def bbr_figure(kernel: pd.DataFrame, sim: Result) -> Figure:
    """BBR's pacing rate, bandwidth estimate and cwnd on the base point, kernel (its run's
    trace, stored or archived) beside simulator: the PROBE_BW gain cycle (pacing 5/4, 3/4,
    then 1 for six rounds), PROBE_RTT's dip to 4 segments every 10 s and the estimate's rise
    after each PROBE_RTT should show in both."""
    import matplotlib.pyplot as plt

    fig, (top, middle, bottom) = plt.subplots(3, 1, figsize=(9, 7.0), sharex=True)
    k = kernel[kernel["flow"] == 0]
    s = sim.series[sim.series["flow"] == 0]
    rate, bw = sim.cc_var(0, "pacing_rate"), sim.cc_var(0, "bw")
    # tcp_info reports ~0U (no limit) before BBR sets a rate: left out, not drawn as 10^14.
    paced = k[k["pacing_rate"] < UNSET_PACING_BPS] if "pacing_rate" in k else k.iloc[:0]
    kernel_mbps = paced["pacing_rate"] / 1e6 if len(paced) else pd.Series(dtype=float)
    sim_mbps = rate["value"] * 8 / 1e6
    if len(kernel_mbps):
        top.plot(paced["time"], kernel_mbps, "-", lw=0.8, label="kernel")
    if len(sim_mbps):
        top.plot(rate["time"], sim_mbps, "--", lw=0.8, label="sim")
    top.set_ylabel("pacing rate (Mb/s)")
    # STARTUP's first rates (before an RTT sample) would flatten PROBE_BW's cycle: 3 x the median.
    steady = [float(np.median(x)) for x in (kernel_mbps, sim_mbps) if len(x)]
    if steady:
        top.set_ylim(0, 3 * max(steady))
    kernel_bw = k[np.isfinite(k["bw"])] if "bw" in k else k.iloc[:0]
    if len(kernel_bw):
        middle.plot(kernel_bw["time"], kernel_bw["bw"] / 1e6, "-", lw=0.8, label="kernel")
    if len(bw):
        middle.plot(bw["time"], bw["value"] * 8 / 1e6, "--", lw=0.8, label="sim")
        # The estimate around the bottleneck's rate, not STARTUP's first samples.
        middle.set_ylim(
            0.8 * float(np.median(bw["value"])) * 8 / 1e6, 1.15 * float(np.median(bw["value"])) * 8 / 1e6
        )
    middle.set_ylabel("bandwidth estimate (Mb/s)")
    for df, style, label in ((k, "-", "kernel"), (s, "--", "sim")):
        bottom.plot(df["time"], df["cwnd"], style, lw=0.8, label=label)
    bottom.set_ylabel("cwnd (segments)")
    bottom.set_xlabel("time (s)")
    for ax in (top, middle, bottom):
        ax.grid(True, alpha=0.3)
        if ax.get_lines():  # (neither side may have a pacing rate)
            ax.legend(fontsize=7)
    fig.tight_layout()
    kernel_note = "" if len(kernel_bw) else " (the kernel's estimate was not recorded in this run)"
    return Figure(
        "bbr-traces",
        fig,
        "BBR alone on the base point (10 Mb/s, 40 ms, 1 BDP): pacing rate, bandwidth estimate"
        f"{kernel_note} and cwnd, kernel (solid) and simulator (dashed); PROBE_BW's 5/4 and 3/4 "
        "phases, PROBE_RTT's drop of cwnd to 4 segments every 10 s and the estimate's rise above "
        "the bottleneck's rate after it (the bottleneck's token bucket, docs/kernel.md)",
    )
