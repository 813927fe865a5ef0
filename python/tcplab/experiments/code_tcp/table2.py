"""000 table 2: Jain's fairness index of ten flows of one variant against the bandwidth."""

from __future__ import annotations

import math
from typing import Any

from ...analysis import jain_per_run
from ...analysis.stats import concat_flows
from ...result import Result, jain_index
from .. import register
from ..ablation import ns2_diff_ablation, threshold_ablations
from ..base import Experiment, Figure, Outcome, Results, Run
from ..common import claim, comparison, every, figure
from .paper import (
    COLOR,
    DURATION,
    LABEL,
    MEASURE_FROM,
    QUICK_DURATION,
    TABLE2,
    TABLE2_PUBLISHED,
    TABLE2_VARIANTS,
    code_scenario,
)


@register
class Table2(Experiment):
    name = "code/table2"
    paper = "code"
    title = "Jain's fairness index of 10 flows of one variant against the bandwidth (table 2)"
    ablations = (*threshold_ablations(), ns2_diff_ablation())
    setup = (
        "Ten flows of one variant (CODE, NewVegas or Vegas), each with its own pair, all starting at 0 "
        "on the fig. 7 dumbbell (23 ms, 100 packets, access 100 Mb/s 1 ms, assumed); bottleneck 5 to "
        "50 Mb/s; Jain's index of the flows' throughput over 50-200 s. With equal start times a run is "
        "deterministic, so each point is one run. Quick: 10 and 30 Mb/s over 50-100 s."
    )
    needs = ("cc:code", "cc:newvegas", "cc:vegas")
    published = TABLE2_PUBLISHED

    def runs(self, quick: bool) -> list[Run]:
        duration = QUICK_DURATION if quick else DURATION
        bws = (10, 30) if quick else tuple(TABLE2)
        return [
            Run(
                {"variant": v, "bandwidth_mbps": bw},
                code_scenario([v] * 10, bandwidth_mbps=bw, starts=[0.0] * 10, duration=duration),
            )
            for v in TABLE2_VARIANTS
            for bw in bws
        ]

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        flows = concat_flows(results)
        jain = jain_per_run(flows)
        keys = flows.groupby("run")[["variant", "bandwidth_mbps"]].first()
        t = keys.assign(jain=jain).reset_index(drop=True)
        t["utilisation"] = flows.groupby("run")["goodput_bps"].sum().to_numpy() / (
            t["bandwidth_mbps"].to_numpy() * 1e6
        )
        wide = t.pivot(index="bandwidth_mbps", columns="variant", values="jain").reset_index()
        wide = wide.rename(columns={v: f"{LABEL[v]} (ours)" for v in TABLE2_VARIANTS})
        for i, v in enumerate(TABLE2_VARIANTS):
            wide[f"{LABEL[v]} (000)"] = [
                TABLE2.get(int(b), (math.nan,) * 3)[i] for b in wide["bandwidth_mbps"]
            ]
        out.tables["Jain's index by bandwidth"] = wide
        out.tables["bottleneck utilisation (sum of goodputs / bandwidth)"] = t.pivot(
            index="bandwidth_mbps", columns="variant", values="utilisation"
        ).reset_index()
        ours = {
            f"{LABEL[r['variant']]} fairness index, {int(r['bandwidth_mbps'])} Mb/s": r["jain"]
            for _, r in t.iterrows()
        }
        out.comparison = comparison((p, ours[p.quantity]) for p in self.published if p.quantity in ours)

        def plot(ax):
            for i, v in enumerate(TABLE2_VARIANTS):
                s = t[t["variant"] == v].sort_values("bandwidth_mbps")
                ax.plot(s["bandwidth_mbps"], s["jain"], "o-", color=COLOR[v], label=f"{LABEL[v]} (tcplab)")
                ax.plot(
                    list(TABLE2),
                    [x[i] for x in TABLE2.values()],
                    "s--",
                    color=COLOR[v],
                    alpha=0.5,
                    label=f"{LABEL[v]} (000)",
                )

        out.figures.append(
            Figure(
                "jain",
                figure(plot, "bottleneck bandwidth (Mb/s)", "Jain's fairness index"),
                "Jain's index of ten flows of one variant: ours (solid) and 000's table 2 (dashed)",
            )
        )
        low = t["jain"].min()
        if low < 0.95:
            worst = int(t["jain"].idxmin())
            out.notes.append(homogeneous_unfairness_note(*results[worst], t.loc[worst, "jain"]))
        out.claims.append(
            claim(
                "Every variant keeps a fairness index of at least 0.95 among ten flows of its own kind "
                "(the published range is 0.95-0.99)",
                low >= 0.95,
                f"lowest {low:.3f} ({LABEL[t.loc[t['jain'].idxmin(), 'variant']]} at "
                f"{t.loc[t['jain'].idxmin(), 'bandwidth_mbps']} Mb/s)",
            )
        )
        mean = t.groupby("variant")["jain"].mean()
        out.claims.append(
            claim(
                "CODE's fairness is similar to NewVegas's and Vegas's (mean indices within 0.03)",
                every(abs(mean - mean["code"]) <= 0.03),
                ", ".join(f"{LABEL[v]} {mean[v]:.3f}" for v in TABLE2_VARIANTS),
            )
        )
        return out


def homogeneous_unfairness_note(params: dict[str, Any], res: Result, jain: float) -> str:
    """Why one homogeneous run is unfair, from its own records: when its loss responses came,
    and how the flows' queued packets (Delta) and so their shares were left spread."""
    v = res.cc_vars
    delta = v[(v["name"] == "diff") & (v["time"] >= MEASURE_FROM)].groupby("flow")["value"].mean()
    lt = res.losses["time"]
    when = f"between {lt.min():.2f} and {lt.max():.2f} s" if len(lt) else "none"
    return (
        f"Why {LABEL[params['variant']]} at {params['bandwidth_mbps']:g} Mb/s is the least fair "
        f"(Jain {jain:.3f}): its {len(lt)} loss responses came {when}, when the ten flows left slow "
        "start together; afterwards a flow's window only moves while its own Delta is outside "
        "[alpha, beta], so each keeps the Delta it was left with: mean Delta per flow from 50 s "
        f"{delta.min():.2f} to {delta.max():.2f} packets, Jain's index of those "
        f"{jain_index(delta.to_numpy()):.3f}. "
        "With a common BaseRTT a flow's window, and so its throughput, is proportional to its Delta; "
        "Deltas spread evenly over [1, 3] give 4 / (4 + 1/3) = 0.923."
    )
