"""002 figs. 1 and 2: Reno alone, then Vegas alone, behind a 64-packet DropTail queue."""

from __future__ import annotations

from .. import register
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim, figure, flows_frame
from .paper import DURATION, QUICK_DURATION, fahmy_scenario


@register
class Fig1(Experiment):
    name = "fahmy/fig1-2"
    paper = "fahmy"
    title = "Reno alone, then Vegas alone, 64-packet DropTail queue"
    setup = "One flow at a time on the fig. 1 topology; queue 64; 100 s; throughput vs time."
    needs = ("cc:vegas",)

    def runs(self, quick: bool) -> list[Run]:
        d = QUICK_DURATION if quick else DURATION
        return [Run({"flow": cc}, fahmy_scenario(64, flows=(cc,), duration=d)) for cc in ("reno", "vegas")]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)

        def plot(ax):
            for params, res in results:
                s = res.series
                t = s["time"].to_numpy()
                thr = s["bytes_delivered"].to_numpy() * 8 / 1e3 / t.clip(min=1e-9)
                ax.plot(t, thr, label=params["flow"])

        out.figures = [
            Figure(
                "throughput",
                figure(plot, "time (s)", "throughput since 0 (kb/s)"),
                "Throughput at t (bytes received in [0, t] / t) of a lone Reno and a lone Vegas flow",
            )
        ]
        table = flows_frame(results)[["flow", "goodput_bps", "retransmissions", "timeouts"]]
        drops = flows_frame(results).filter(like="data_drops_").sum(axis=1)
        table = table.assign(goodput_kbps=table["goodput_bps"] / 1e3, drops=drops).drop(columns="goodput_bps")
        out.tables["lone flows"] = table
        vegas = table[table["flow"] == "vegas"].iloc[0]
        out.claims.append(
            claim("Vegas alone has no losses", vegas["drops"] == 0, f"{int(vegas['drops'])} drops")
        )
        return out
