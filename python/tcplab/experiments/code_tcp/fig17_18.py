"""000 figs. 17 and 18: a second flow joins one in equilibrium, Vegas pair and CODE pair:
windows and the bottleneck queue."""

from __future__ import annotations

import pandas as pd

from ...result import jain_index
from .. import register
from ..ablation import code_rtt_ablation, ns2_diff_ablation, threshold_ablations
from ..base import Experiment, Figure, Outcome, Results, Run
from ..common import claim, panel_figure
from .paper import DURATION, LABEL, code_scenario
from .windows import RATCHET_NOTE, bottleneck_queue, final_alpha, plot_windows

ARRIVAL = 50.0


@register
class Fig17(Experiment):
    name = "code/fig17-18"
    paper = "code"
    title = "A second flow joins one in equilibrium: windows and bottleneck queue (Vegas pair, CODE pair)"
    ablations = (*threshold_ablations(), code_rtt_ablation(), ns2_diff_ablation())
    setup = (
        "Two flows of one variant (Vegas, then CODE) on a 5 Mb/s bottleneck (23 ms, 100 packets, access "
        "100 Mb/s 1 ms, assumed); flow 1 starts at 0 and is in equilibrium when flow 2 starts at 50 s "
        "(assumed); 200 s (quick: 120 s); windows and bottleneck queue sampled every 0.1 s. The transient "
        "ends at the last time the two windows differ by more than 20% of their mean; 'fair' is a Jain "
        "index >= 0.95 over the last 50 s."
    )
    needs = ("cc:vegas", "cc:code")

    def runs(self, quick: bool) -> list[Run]:
        d = 120.0 if quick else DURATION
        return [
            Run(
                {"variant": v},
                code_scenario(
                    [v, v], bandwidth_mbps=5, starts=[0.0, ARRIVAL], duration=d, sample_interval=0.1
                ),
            )
            for v in ("vegas", "code")
        ]

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        by = {p["variant"]: r for p, r in results}
        rows = []
        for v, res in by.items():
            s = res.series
            end = float(s["time"].max())
            w = s.pivot_table(index="time", columns="flow", values="cwnd")
            w = w[w.index > ARRIVAL]
            gap = (w[0] - w[1]).abs() / ((w[0] + w[1]) / 2)
            apart = gap.index[gap > 0.2]
            transient = float(apart.max() - ARRIVAL) if len(apart) else 0.0
            last = s[s["time"] >= end - 50]
            thr = last.groupby("flow")["bytes_delivered"].agg(lambda b: b.iloc[-1] - b.iloc[0]).to_numpy()
            q = bottleneck_queue(res)
            ql = q[q["time"] >= end - 50]["packets"]
            rows.append(
                {
                    "variant": LABEL[v],
                    "transient_s": transient,
                    "converged": transient < end - ARRIVAL - 10,
                    "jain_last_50s": jain_index(thr),
                    "queue_mean_last_50s": float(ql.mean()),
                    "queue_std_last_50s": float(ql.std()),
                    "losses_after_arrival": int((res.losses["time"] >= ARRIVAL).sum()),
                    "alpha_at_end": ", ".join(f"{a:g}" for a in final_alpha(res).values()) or "-",
                }
            )
        table = pd.DataFrame(rows)
        out.tables["after the arrival"] = table

        order = [v for v in ("vegas", "code") if v in by]

        def plot_cwnd(ax, v):
            plot_windows(ax, by[v], lambda fid: f"flow {fid + 1}")

        def plot_queue(ax, v):
            q = bottleneck_queue(by[v])
            ax.plot(q["time"], q["packets"], lw=0.8, color="k")

        out.figures.append(
            Figure(
                "cwnd",
                panel_figure(
                    order,
                    plot_cwnd,
                    "time (s)",
                    "cwnd (packets)",
                    [f"fig. 17: {LABEL[v]} pair" for v in order],
                    ncols=1,
                    size=(9, 6),
                ),
                "Windows (solid) and CODE's alpha (dotted) of two flows of one variant; "
                "flow 2 arrives at 50 s",
            )
        )
        out.figures.append(
            Figure(
                "queue",
                panel_figure(
                    order,
                    plot_queue,
                    "time (s)",
                    "bottleneck queue (packets)",
                    [f"fig. 18: {LABEL[v]} pair" for v in order],
                    ncols=1,
                    size=(9, 6),
                ),
                "Bottleneck queue; flow 2 arrives at 50 s",
            )
        )
        if "code" in by and max(final_alpha(by["code"]).values(), default=0) > 3:
            out.notes.append(RATCHET_NOTE)
        r = table.set_index("variant")
        if len(r) == 2:
            vg, cd = r.loc["Vegas"], r.loc["CODE"]
            out.claims.append(
                claim(
                    "Both pairs reach equilibrium and share the bottleneck fairly after a transient",
                    bool(
                        vg["converged"]
                        and cd["converged"]
                        and vg["jain_last_50s"] >= 0.95
                        and cd["jain_last_50s"] >= 0.95
                    ),
                    f"Jain over the last 50 s: Vegas {vg['jain_last_50s']:.3f}, "
                    f"CODE {cd['jain_last_50s']:.3f}",
                )
            )
            out.claims.append(
                claim(
                    "CODE's transient is longer than Vegas's, and ends",
                    bool(cd["converged"]) and cd["transient_s"] > vg["transient_s"],
                    f"windows within 20% of each other from {vg['transient_s']:.1f} s after the arrival "
                    "(Vegas) and "
                    + (
                        f"{cd['transient_s']:.1f} s (CODE)"
                        if cd["converged"]
                        else "never within 20% until the end (CODE)"
                    ),
                )
            )
            out.claims.append(
                claim(
                    "Both keep a stable bottleneck queue after the transient "
                    "(std < 2 packets over the last 50 s)",
                    vg["queue_std_last_50s"] < 2 and cd["queue_std_last_50s"] < 2,
                    f"std Vegas {vg['queue_std_last_50s']:.2f}, CODE {cd['queue_std_last_50s']:.2f} packets",
                )
            )
            out.claims.append(
                claim(
                    "CODE's buffer use is as low as Vegas's (mean queue within 2 packets of Vegas's)",
                    cd["queue_mean_last_50s"] <= vg["queue_mean_last_50s"] + 2,
                    f"mean queue Vegas {vg['queue_mean_last_50s']:.1f}, "
                    f"CODE {cd['queue_mean_last_50s']:.1f} packets",
                )
            )
        return out
