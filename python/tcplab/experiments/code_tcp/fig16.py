"""000 fig. 16: two CODE flows on one bottleneck, stable like Vegas."""

from __future__ import annotations

import math

import pandas as pd

from .. import register
from ..ablation import threshold_ablations
from ..base import Experiment, Figure, Outcome, Results, Run
from ..common import claim, every, figure
from .paper import DURATION, MEASURE_FROM, QUICK_DURATION, code_scenario
from .windows import RATCHET_NOTE, bottleneck_queue, final_alpha, plot_windows


@register
class Fig16(Experiment):
    name = "code/fig16"
    paper = "code"
    title = "Two CODE flows on one bottleneck: windows"
    ablations = threshold_ablations()
    setup = (
        "Two CODE flows on the fig. 7 dumbbell (10 Mb/s, 100 packets, 23 ms, assumed), start times drawn "
        "uniformly in [0, 25] s (seed 1), 200 s (quick: 100 s); window sampled every 0.1 s. 'Stable' is "
        "checked over 50 s to the end: no losses, and each window's coefficient of variation below 0.1."
    )
    needs = ("cc:code",)

    def runs(self, quick: bool) -> list[Run]:
        d = QUICK_DURATION if quick else DURATION
        return [Run({"variant": "code"}, code_scenario(["code", "code"], duration=d, sample_interval=0.1))]

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        res = results[0][1]
        s = res.series

        starts = dict(zip(res.flows["id"], res.flows["start"], strict=True))

        def plot(ax):
            plot_windows(ax, res, lambda fid: f"flow {fid} (start {starts[fid]:.1f} s)")

        out.figures.append(
            Figure(
                "cwnd",
                figure(plot, "time (s)", "cwnd (packets)"),
                "Windows (solid) and alpha thresholds (dotted) of two CODE flows sharing a bottleneck",
            )
        )
        late = s[s["time"] >= MEASURE_FROM]
        cv = late.groupby("flow")["cwnd"].agg(lambda w: w.std() / w.mean())
        losses = int((res.losses["time"] >= MEASURE_FROM).sum())
        q = bottleneck_queue(res)
        alpha = final_alpha(res)
        out.tables["flows"] = pd.DataFrame(
            {
                "flow": res.flows["name"],
                "start_s": res.flows["start"],
                "throughput_mbps": res.flows["goodput_bps"] / 1e6,
                "cwnd_cv_after_50s": cv.reindex(res.flows["id"]).to_numpy(),
                "alpha_at_end": [alpha.get(int(i), math.nan) for i in res.flows["id"]],
                "drops": res.flows.filter(like="data_drops_").sum(axis=1),
            }
        )
        if max(alpha.values(), default=0) > 3:
            out.notes.append(RATCHET_NOTE)
        out.claims.append(
            claim(
                "Two CODE flows are stable like Vegas: no losses and steady windows after 50 s",
                losses == 0 and every(cv < 0.1),
                f"{losses} losses after 50 s; window CV {', '.join(f'{x:.3f}' for x in cv)}; mean queue "
                f"{q[q['time'] >= MEASURE_FROM]['packets'].mean():.1f} packets",
            )
        )
        out.claims.append(
            claim(
                "The two CODE flows share the link fairly (Jain's index >= 0.95)",
                res.jain_index() >= 0.95,
                f"Jain {res.jain_index():.3f}",
            )
        )
        return out
