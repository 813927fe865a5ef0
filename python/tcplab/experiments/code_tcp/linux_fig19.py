"""000 fig. 19: the Linux test bed's bandwidth sweep, on tcplab's kernel test bed beside the
simulator."""

from __future__ import annotations

import pandas as pd

from ...scenario import Scenario, link
from .. import register
from ..base import Claim, Experiment, Figure, Outcome, Results, Run
from ..common import claim, figure

#: The delay-based flows fig. 19 puts beside Reno.
PARTNERS = ("vegas", "newvegas", "code")


def scenario(bandwidth_mbps: float, partner: str, duration: float = 60.0, seed: int = 1) -> Scenario:
    """The set-up of 000 section 4.6 (EXPERIMENTS.md: queue 100, 23 ms): a dumbbell with
    one Reno and one ``partner`` flow, both bulk, starting together; throughput measured
    after the first fifth of the run."""
    s = Scenario.dumbbell(
        2,
        link(f"{bandwidth_mbps}Mbps", "23ms", 100),
        duration=duration,
        seed=seed,
        measure=[duration / 5, duration],
    )
    s.add_flow("s0", "d0", "reno", name="reno")
    s.add_flow("s1", "d1", partner, name=partner)
    return s


def side_by_side(points: pd.DataFrame) -> pd.DataFrame:
    """One row per (partner, bandwidth): Reno's and the partner's goodput in Mb/s and the
    partner/Reno ratio, for the kernel and the simulator."""
    t = points.assign(
        mbps=points["goodput_bps"] / 1e6, role=points["cc"].where(points["cc"] == "reno", "partner")
    )
    wide = t.pivot_table(index=["partner", "bandwidth_mbps"], columns=["backend", "role"], values="mbps")
    wide.columns = [f"{role}_{backend}_mbps" for backend, role in wide.columns]
    for backend in ("kernel", "sim"):
        if f"partner_{backend}_mbps" in wide:
            wide[f"ratio_{backend}"] = wide[f"partner_{backend}_mbps"] / wide[f"reno_{backend}_mbps"]
    return wide.reset_index()


@register
class LinuxFig19(Experiment):
    name = "code/linux-fig19"
    paper = "code"
    title = "Linux test bed: one Reno against Vegas / NewVegas / CODE, bandwidth sweep (fig. 19)"
    setup = (
        "000 section 4.6: two sender/receiver pairs (Reno + Vegas, NewVegas or CODE) through a router with "
        "a 100-packet queue and 23 ms delay, bottleneck bandwidth swept. Here: the same scenario on the "
        "kernel test bed (network namespaces, TBF bottleneck with a 100-packet queue, tcplab's delay "
        "element, bulk flows with tcplab's BPF congestion controls; the Reno flow is the kernel's own Reno "
        "port, tl_reno) and in the simulator, side by side. Assumed: bandwidths 5-50 Mb/s in steps of 5, "
        "60 s runs measured after the first fifth (quick: 10 and 30 Mb/s, 15 s). The paper's kernel was "
        "Linux 2.6.18 with FreeBSD ipfw; ours is today's kernel, whose loss recovery (SACK, RACK, PRR) "
        "differs from the simulator's NewReno-style recovery."
    )
    needs = ("testbed:kernel",)
    #: What ``tcplab reproduce --kernel`` costs (docs/reproduction.md).
    kernel_time = "about 65 min of real time (quick: 6 runs, about 2 min)"

    def _points(self, quick: bool) -> list[tuple[float, str, float]]:
        bws = (10, 30) if quick else tuple(range(5, 55, 5))
        duration = 15.0 if quick else 60.0
        return [(bw, p, duration) for p in PARTNERS for bw in bws]

    def runs(self, quick: bool) -> list[Run]:
        """Each point twice: simulated, and on the kernel test bed (stored like the simulated
        run, under its own key; ``tcplab reproduce --kernel`` runs it)."""
        return [
            Run(
                {"backend": backend, "bandwidth_mbps": bw, "partner": p},
                scenario(bw, p, duration),
                backend,
            )
            for bw, p, duration in self._points(quick)
            for backend in ("sim", "kernel")
        ]

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        rows = [
            {**params, "flow": f["name"], "cc": f["cc"], "goodput_bps": f["goodput_bps"]}
            for params, res in results
            for _, f in res.flows.iterrows()
        ]
        table = side_by_side(pd.DataFrame(rows))
        out.tables["kernel beside simulator (Mb/s)"] = table

        def plot(ax):
            for i, p in enumerate(PARTNERS):
                rows_p = table[table["partner"] == p]
                for b, style in (("kernel", "o-"), ("sim", "s--")):
                    ax.plot(
                        rows_p["bandwidth_mbps"],
                        rows_p[f"ratio_{b}"],
                        style,
                        color=f"C{i}",
                        label=f"{p} ({b})",
                    )
            ax.axhline(1.0, color="grey", lw=0.8)

        out.figures.append(
            Figure(
                "ratio",
                figure(plot, "bottleneck bandwidth (Mb/s)", "throughput / Reno's"),
                "Delay-based flow's throughput over Reno's: kernel test bed (solid) and simulator (dashed)",
            )
        )
        out.claims += fig19_claims(table)
        return out


def fig19_claims(table: pd.DataFrame) -> list[Claim]:
    """Section 4.6's statements, on the kernel and in the simulator: each partner's
    throughput ratio to Reno averaged over the bandwidths, one run per point. A side missing a
    point (a kernel run not made or failed) is not evaluated: a mean over the points it has
    would be a different sweep."""
    out = []
    for b in ("kernel", "sim"):
        col, who = f"ratio_{b}", "Kernel" if b == "kernel" else "Simulator"
        have = set(table["partner"]) if len(table) else set()
        same_sweep = len(table) > 0 and table.groupby("partner").size().nunique() == 1
        complete = col in table and set(PARTNERS) <= have and same_sweep and bool(table[col].notna().all())
        mean = table.groupby("partner")[col].mean() if complete else pd.Series(dtype=float)
        points = f" (means over {len(table) // len(PARTNERS)} bandwidths, one run each)" if complete else ""
        missing = "" if complete else "a point of the sweep has no run on this side"
        out.append(
            claim(
                f"{who}: CODE > NewVegas > Vegas against Reno",
                bool(mean["code"] > mean["newvegas"] > mean["vegas"]) if complete else None,
                (", ".join(f"{p} {mean[p]:.2f}" for p in PARTNERS) + points) if complete else missing,
            )
        )
        out.append(
            claim(
                f"{who}: CODE's throughput almost equals Reno's (ratio 0.7-1.3)",
                bool(0.7 <= mean["code"] <= 1.3) if complete else None,
                f"mean ratio {mean['code']:.2f}{points}" if complete else missing,
            )
        )
    return out
