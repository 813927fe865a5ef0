"""004 fig. 9: sixteen Reno uplinks, eight stations at 1 m and eight at 10 m: PIFS against the
ACK-loss reaction."""

from __future__ import annotations

import pandas as pd

from .. import register
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim
from .measure import decided, flow_table, per_flow_bars, run_summary, runs_note, seed_means, with_ci
from .paper import FAIR_JAIN, METHODS, SETUP, duration_of, seeds_of


@register
class Fig9(Experiment):
    name = "wlan/fig9"
    paper = "wlan"
    title = "16 uplink Reno flows, 8 stations at 1 m and 8 at 10 m: PIFS vs ACK-loss reaction"
    setup = (
        SETUP + " 16 uplink Reno flows; stations w0-w7 at 1 m, w8-w15 at 10 m from the AP (free-space path "
        "loss, capture when a frame is 10 dB above the interference); (a) the AP uses PIFS [12] (and (b*) "
        "without backoff), (b) the ACK-loss reaction. 004's panels: (a) PIFS, (b) proposal."
    )
    needs = ("topology:wlan",)
    distances = [1.0] * 8 + [10.0] * 8

    def runs(self, quick: bool) -> list[Run]:
        d = duration_of(quick)
        return [
            Run({"method": k, "seed": s}, METHODS[k].scenario(16, 0, d, distances=self.distances, seed=s))
            for s in seeds_of(quick)
            for k in ("b", "b*", "d")
        ]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        runs = {p["method"]: r for p, r in results if p["seed"] == 1}
        rows = []
        for p, res in results:
            k = p["method"]
            ft = flow_table(res)
            near = ft[ft["distance_m"] <= 1.0]["mbps"].to_numpy()
            far = ft[ft["distance_m"] > 1.0]["mbps"].to_numpy()
            rows.append(
                {
                    "method": METHODS[k].label,
                    "key": k,
                    **{x: run_summary(res)[x] for x in ("total_mbps", "jain_up", "starved_up")},
                    "near_mean_mbps": near.mean(),
                    "far_mean_mbps": far.mean(),
                    "near_over_far": near.mean() / far.mean() if far.mean() > 0 else float("inf"),
                }
            )
        table = seed_means(pd.DataFrame(rows), ["method", "key"], ("jain_up", "near_over_far"))
        out.tables["near (1 m) vs far (10 m) stations"] = table.drop(columns="key")
        out.figures.append(
            Figure(
                "per-flow",
                per_flow_bars([(METHODS[k].label, runs[k]) for k in runs], colour_by="distance"),
                "Fig. 9: throughput of each flow in one run (seed 1); blue stations at 1 m, red at 10 m",
            )
        )
        t = table.set_index("key")
        if "b" in t.index:
            b = t.loc["b"]
            out.claims.append(
                claim(
                    "PIFS [12] is unfair by distance: the near stations get more (near/far > 1.25, Jain "
                    "< 0.9)",
                    decided(
                        b, b["near_over_far"] > 1.25 and b["jain_up"] < FAIR_JAIN, "near_over_far", "jain_up"
                    ),
                    f"near/far {with_ci(b, 'near_over_far', 2)}, Jain {with_ci(b, 'jain_up')}{runs_note(b)}",
                )
            )
        if "d" in t.index:
            d = t.loc["d"]
            out.claims.append(
                claim(
                    "The ACK-loss reaction is fair regardless of location (Jain >= 0.9, near/far within "
                    "0.8-1.25)",
                    decided(
                        d,
                        d["jain_up"] >= FAIR_JAIN and 0.8 <= d["near_over_far"] <= 1.25,
                        "near_over_far",
                        "jain_up",
                    ),
                    f"near/far {with_ci(d, 'near_over_far', 2)}, Jain {with_ci(d, 'jain_up')}{runs_note(d)}",
                )
            )
        if "b*" in t.index:
            bs = t.loc["b*"]
            out.notes.append(
                f"Second reading of [12], PIFS without AP backoff: near/far {bs['near_over_far']:.2f}, "
                f"Jain {bs['jain_up']:.3f}, total {bs['total_mbps']:.2f} Mb/s."
            )
        return out
