"""linux/conformance: the simulator's ``linux`` TCP profile against the kernel itself.

Not a paper's experiment: tcplab's own check that the simulator, run with ``[tcp] stack =
"linux"``, reproduces what Linux's TCP does on the namespace test bed (docs/kernel.md). It
needs root and runs in real time, so it runs only when named (``tcplab reproduce
linux/conformance`` or ``tcplab reproduce linux``), never as part of ``all``.
"""

from __future__ import annotations

import os
from typing import Any

from ..result import Result
from ..testbed import conformance as cf
from . import register
from .base import Claim, Experiment, Figure, Outcome, Run

Results = list[tuple[dict[str, Any], Result]]


_FROM_ENV = "<from TCPLAB_CONFORMANCE_SIM_STACK, default linux>"


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
        'tcplab\'s delay element, iperf3) and in the simulator with [tcp] stack = "linux": a base point '
        "(10 Mb/s, 40 ms RTT, buffer 1 BDP, no random loss, one flow, 30 s measured after 5 s) and "
        "one-at-a-time variations (buffer 0.5 and 2 BDP, Bernoulli loss 0.5 % and 2 % on data, RTT 20 "
        "and 100 ms, two flows together and 5 s apart), for the kernel's reno and cubic and tcplab's "
        "BPF Vegas, Veno, NewVegas and CODE (NewVegas and CODE with the bed's measured RTT jitter "
        "in the simulator). Segments carry 1000 payload bytes on both sides (the kernel's snd_mss); "
        "kernel figures from tcp_info sampled every 10 ms through sock_diag and the sender "
        "namespace's SNMP counters. Quick: three 12 s points. Needs root; runs only when named."
    )
    needs = ("testbed:kernel",)
    realtime = True
    explicit = True
    kernel_time = "about 30 min of real time for the full matrix (quick: a few minutes)"

    def __init__(self, sim_stack: str | None = _FROM_ENV, jitter: dict[str, Any] | None = cf.BED_JITTER):
        """``sim_stack``: the simulator's ``[tcp] stack`` ("linux" by default; None leaves it
        out); ``jitter``: the simulator's bottleneck jitter for NewVegas and CODE (None: none)."""
        self.sim_stack = _sim_stack_from_env() if sim_stack is _FROM_ENV else sim_stack
        self.jitter = jitter

    def points(self, quick: bool) -> list[tuple[cf.Point, str]]:
        return [(p, a) for p in cf.matrix(quick) for a in cf.ALGORITHMS]

    def scenario(self, point: cf.Point, algo: str):
        return cf.scenario(point, algo, sim_stack=self.sim_stack, jitter=self.jitter)

    def runs(self, quick: bool) -> list[Run]:
        return [Run({"scenario": p.name, "algorithm": a}, self.scenario(p, a)) for p, a in self.points(quick)]

    def analyze(self, results: Results, quick: bool) -> Outcome:
        from ..testbed import run_scenario

        out = Outcome(self)
        points = {(p.name, a): p for p, a in self.points(quick)}
        rows, traces = [], {}
        for params, sim in results:
            key = (params["scenario"], params["algorithm"])
            point = points[key]
            # The kernel side runs live (real time, not reproducible bit for bit, so not stored).
            kern = run_scenario(cf.kernel_scenario(self.scenario(point, key[1])), capture=False, native=True)
            k = cf.metrics(
                kern, point.rate_mbps * 1e6, point.measure, float(kern.meta.get("snd_mss", cf.MSS))
            )
            s = cf.metrics(sim, point.rate_mbps * 1e6, point.measure, float(cf.MSS))
            rows.append(cf.compare_point(point, key[1], k, s))
            if point.name == "base":
                traces[key[1]] = (kern.series, sim.series)
        table = cf.conformance_table(rows)
        out.tables["kernel against simulator"] = table
        out.tables["verdicts"] = (
            table.pivot_table(index="scenario", columns="algorithm", values="verdict", aggfunc="first")
            .reindex(index=[p.name for p in cf.matrix(quick)], columns=list(cf.ALGORITHMS))
            .reset_index()
        )
        if traces:
            out.figures.append(self._figure(traces))
        for algo in cf.ALGORITHMS:
            mine = table[table["algorithm"] == algo]
            if not len(mine):
                continue
            verdicts = list(mine["verdict"])
            passed = (
                None if "not evaluated" in verdicts and "miss" not in verdicts else "miss" not in verdicts
            )
            kind = "held to the tolerances" if algo in cf.STRICT else "with the bed's jitter in the simulator"
            out.claims.append(
                Claim(
                    f"{algo} ({kind}): utilisation, retransmissions, mean cwnd, mean RTT and shares "
                    "within tolerance on every scenario",
                    passed,
                    ", ".join(f"{n}: {v}" for n, v in zip(mine["scenario"], verdicts, strict=True)),
                )
            )
        out.notes.append(
            f"Simulator profile: [tcp] stack = {self.sim_stack!r}"
            if self.sim_stack
            else "Simulator run WITHOUT [tcp] stack (TCPLAB_CONFORMANCE_SIM_STACK=none: the NS-2-like "
            "default profile), as a baseline; differences from the kernel are expected."
        )
        out.notes.append(
            "RTT figures are the senders' smoothed RTT (kernel: tcpi_rtt) sampled every 10 ms in the "
            "measurement window; timeouts and RTT percentiles have no tolerance (reported only); a check "
            "lacking either side's figure is 'not evaluated', not a pass."
        )
        return out

    def _figure(self, traces) -> Figure:
        import matplotlib.pyplot as plt

        algos = list(traces)
        cols = 3
        rows = (len(algos) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 2.8 * rows), squeeze=False)
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
        for ax in list(axes.flat)[len(algos) :]:
            ax.set_visible(False)
        fig.tight_layout()
        return Figure("cwnd", fig, "cwnd of the base point's flow: kernel (solid) and simulator (dashed)")
