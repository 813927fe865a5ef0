"""000 fig. 14: one Reno against one delay-based flow over the bottleneck buffer."""

from __future__ import annotations

import math

import pandas as pd

from .. import register
from ..ablation import ns2_diff_ablation
from ..base import Outcome, Results
from ..common import claim, every
from .paper import COMMON_SETUP, LABEL, VARIANTS, code_scenario
from .sweep import QUICK_ABLATIONS, PairSweep, fmt_ratios, variant_rows


@register
class Fig14(PairSweep):
    name = "code/fig14"
    title = "One Reno against one delay-based flow: buffer size sweep"
    ablations = (*QUICK_ABLATIONS, ns2_diff_ablation(quick=True))
    setup = (
        COMMON_SETUP + " Bottleneck 10 Mb/s (assumed); DropTail buffer 20, 40, ..., 200 packets (assumed; "
        "includes the 60 the paper mentions). Quick: 20, 60 and 200 packets."
    )
    x = "buffer"
    xlabel = "bottleneck buffer (packets)"
    full_points = tuple(range(20, 220, 20))
    quick_points = (20, 60, 200)

    def scenario(self, variant, point, seed, duration):
        return code_scenario(["reno", variant], buffer=point, seed=seed, duration=duration)

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out, table = self.common_analysis(results, "the buffer size")
        t = {v: variant_rows(table, v).sort_values("buffer") for v in VARIANTS}
        lo, hi = table["buffer"].min(), table["buffer"].max()

        def at(v, b, col="ratio"):
            r = t[v][t[v]["buffer"] == b]
            return float(r[col].iloc[0]) if len(r) else math.nan

        out.claims.append(
            claim(
                "Vegas's throughput worsens as the buffer grows",
                at("vegas", hi, "variant_mbps") < at("vegas", lo, "variant_mbps"),
                f"{at('vegas', lo, 'variant_mbps'):.2f} Mb/s at {lo} packets, "
                f"{at('vegas', hi, 'variant_mbps'):.2f} at {hi}",
            )
        )
        for v in ("vegas_a", "newvegas"):
            out.claims.append(
                claim(
                    f"{LABEL[v]} outperforms Reno with a small buffer and falls behind with a large one",
                    at(v, lo) > 1 > at(v, hi),
                    f"ratio {at(v, lo):.2f} at {lo} packets, {at(v, hi):.2f} at {hi}",
                )
            )
        c = t["code"].set_index("buffer")["variant_mbps"]
        others = pd.concat(
            [
                t["vegas_a"].set_index("buffer")["variant_mbps"],
                t["newvegas"].set_index("buffer")["variant_mbps"],
            ],
            axis=1,
        ).max(axis=1)
        out.claims.append(
            claim(
                "CODE achieves a higher throughput than Vegas-A and NewVegas at every buffer size",
                every(c > others.reindex(c.index)),
                "CODE vs the better of Vegas-A and NewVegas (Mb/s): "
                + ", ".join(f"{b}: {c[b]:.2f} vs {others[b]:.2f}" for b in c.index),
            )
        )
        out.claims.append(
            claim(
                "CODE always achieves a higher throughput than Reno (ratio > 1 at every buffer size)",
                every(t["code"]["ratio"] > 1),
                fmt_ratios(t["code"], "buffer"),
            )
        )
        unfair = [v for v in VARIANTS if ((t[v]["ratio_low"] > 1) | (t[v]["ratio_high"] < 1)).any()]
        out.claims.append(
            claim(
                "None of the delay-based variants shares fairly at every buffer size (each has a "
                "buffer where the ratio's 95% CI excludes 1)",
                len(unfair) == len(VARIANTS),
                "CI excludes 1 somewhere for: " + (", ".join(LABEL[v] for v in unfair) or "none"),
            )
        )
        return out
