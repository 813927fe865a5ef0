"""000 fig. 15: ten flows, k Reno and 10 - k of one delay-based variant."""

from __future__ import annotations

from ...analysis.stats import concat_flows
from .. import register
from ..ablation import phase_ablation
from ..base import Outcome, Results
from ..common import claim, every
from .paper import COMMON_SETUP, LABEL, PARITY, VARIANTS, code_scenario
from .sweep import QUICK_ABLATIONS, PairSweep, fmt_ratios, variant_rows


@register
class Fig15(PairSweep):
    name = "code/fig15"
    title = "Ten flows: k Reno and 10 - k of one delay-based variant"
    ablations = (*QUICK_ABLATIONS, phase_ablation())
    setup = (
        COMMON_SETUP + " Ten flows, each with its own pair, on a 10 Mb/s, 100-packet bottleneck "
        "(assumed): k Reno and 10 - k of one variant, k = 1..9; average throughput per flow of each "
        "kind and the per-run ratio of those averages. Quick: k = 1, 5, 9."
    )
    x = "k"
    xlabel = "number of Reno flows k (of 10)"
    full_points = tuple(range(1, 10))
    quick_points = (1, 5, 9)

    def scenario(self, variant, point, seed, duration):
        return code_scenario(["reno"] * point + [variant] * (10 - point), seed=seed, duration=duration)

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out, table = self.common_analysis(results, "the number of Reno flows")
        t = {v: variant_rows(table, v).sort_values("k") for v in VARIANTS}
        for v in ("vegas", "vegas_a", "newvegas"):
            few = t[v][t[v]["k"] < 5]
            out.claims.append(
                claim(
                    f"{LABEL[v]} flows get less than Reno flows even when Reno flows are the minority "
                    "(ratio < 1 for every k < 5)",
                    every(few["ratio"] < 1),
                    fmt_ratios(t[v], "k"),
                )
            )
        c = t["code"]
        out.claims.append(
            claim(
                "CODE achieves a reasonable fairness irrespective of k "
                f"(ratio within [1/{PARITY:g}, {PARITY:g}])",
                every((c["ratio"] > 1 / PARITY) & (c["ratio"] < PARITY)),
                fmt_ratios(c, "k"),
            )
        )
        flows = concat_flows(results)
        drops = flows.assign(drops=flows.filter(like="data_drops_").sum(axis=1)).groupby(["variant", "cc"])
        per_flow = drops["drops"].mean().unstack("cc")
        out.tables["mean data drops per flow over the run, by kind"] = per_flow.reset_index()
        out.notes.append(
            "Where Reno flows are the majority the delay-based flows lose far fewer packets than the Reno "
            "flows (table above): a DropTail queue drops the packet that arrives when it is full, which is "
            "mostly the extra packet of a window increase, and each Reno flow increases every round while "
            "a delay-based flow does so rarely. At 10 Mb/s (our assumption; the paper gives no bandwidth "
            "here) ten flows share about 160 packets of pipe and buffer, so every Reno flow runs with a "
            "window of about 16 packets and recovers from frequent losses, which helps the delay-based "
            "flows that hold a steady share of the queue."
        )
        return out
