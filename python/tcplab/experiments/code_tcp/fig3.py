"""000 figs. 3 and 5: the window of Reno against NewVegas (fig. 3) and against CODE (fig. 5),
and the two drawbacks of NewVegas that CODE addresses."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...result import Result
from .. import register
from ..ablation import threshold_ablations
from ..base import Experiment, Figure, Outcome, Results, Run
from ..common import claim, panel_figure
from .paper import COLOR, DURATION, LABEL, MEASURE_FROM, QUICK_DURATION, code_scenario


def loss_cycles(res: Result, flow_id: int, t_from: float = MEASURE_FROM) -> pd.DataFrame:
    """The flow's window between loss episodes (losses closer than 0.5 s are one episode), from
    ``t_from`` on. Per cycle: the window just after the loss, its minimum (the trough) and the
    window just before the next loss; the rounds (mean sRTT) spent shrinking to the trough, and
    the growth from the trough to the next loss in packets per round. This measures the paper's
    two drawbacks of NewVegas (section 3.1): the shrinking after a loss and the slow growth."""
    s = res.series[res.series["flow"] == flow_id].sort_values("time")
    lt = np.sort(res.losses.loc[res.losses["flow"] == flow_id, "time"].to_numpy())
    episodes = [t for i, t in enumerate(lt) if i == 0 or t - lt[i - 1] > 0.5]
    rows = []
    for a, b in zip(episodes, episodes[1:], strict=False):
        if a < t_from:
            continue
        seg = s[(s["time"] > a + 0.05) & (s["time"] < b)]
        if len(seg) < 5:
            continue
        w = seg["cwnd"].to_numpy()
        t = seg["time"].to_numpy()
        rtt = float(seg["srtt"].mean())
        i = int(np.argmin(w))
        up_rounds = (t[-1] - t[i]) / rtt
        rows.append(
            {
                "start": a,
                "cwnd_after_loss": w[0],
                "trough": w[i],
                "peak": w[-1],
                "rounds_down": (t[i] - t[0]) / rtt,
                "growth_per_round": (w[-1] - w[i]) / up_rounds if up_rounds >= 3 else math.nan,
            }
        )
    return pd.DataFrame(rows)


@register
class Fig3(Experiment):
    name = "code/fig3"
    paper = "code"
    title = "Window of Reno against NewVegas (fig. 3) and against CODE (fig. 5)"
    ablations = threshold_ablations()
    setup = (
        "One Reno and one NewVegas (fig. 3) or CODE (fig. 5) flow on the fig. 7 dumbbell: 10 Mb/s and "
        "100 packets assumed, 23 ms bottleneck, 100 Mb/s 1 ms access; both flows start at 0 (assumed) and "
        "run 200 s (quick: 100 s); window sampled every 0.1 s. Per loss cycle from 50 s on we measure the "
        "rounds the delay-based window keeps shrinking after a loss (drawback 1) and its growth in packets "
        "per round afterwards (drawback 2: NewVegas about 1/2, CODE about 2/3, Reno 1)."
    )
    needs = ("cc:newvegas", "cc:code")

    def runs(self, quick: bool) -> list[Run]:
        d = QUICK_DURATION if quick else DURATION
        return [
            Run(
                {"variant": v}, code_scenario(["reno", v], starts=[0.0, 0.0], duration=d, sample_interval=0.1)
            )
            for v in ("newvegas", "code")
        ]

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        by = {p["variant"]: r for p, r in results}
        rows, cycles = [], {}
        for v, res in by.items():
            for cc in ("reno", v):
                c = loss_cycles(res, res.flow_ids(cc)[0])
                cycles[(v, cc)] = c
                rows.append(
                    {
                        "run": f"Reno + {LABEL[v]}",
                        "flow": LABEL[cc],
                        "throughput_mbps": (res.goodput_bps(cc) / 1e6),
                        "loss_cycles": len(c),
                        "rounds_shrinking_after_loss": c["rounds_down"].mean() if len(c) else math.nan,
                        "growth_pkts_per_round": c["growth_per_round"].mean() if len(c) else math.nan,
                    }
                )
        table = pd.DataFrame(rows)
        out.tables["throughput over 50 s to the end, and window dynamics per loss cycle"] = table

        def plot(ax, v):
            res = by[v]
            s = res.series
            for cc in ("reno", v):
                f = s[s["flow"] == res.flow_ids(cc)[0]]
                ax.plot(f["time"], f["cwnd"], color=COLOR[cc], lw=0.9, label=f"{LABEL[cc]} cwnd")
            fid = res.flow_ids(v)[0]
            for var, ls in (("alpha", ":"), ("beta", "--")):
                a = res.cc_var(fid, var)
                ax.plot(a["time"], a["value"], color="k", ls=ls, lw=0.8, label=f"{LABEL[v]} {var}")

        order = [v for v in ("newvegas", "code") if v in by]
        fig = panel_figure(
            order,
            plot,
            "time (s)",
            "packets",
            [f"fig. {3 if v == 'newvegas' else 5}: Reno and {LABEL[v]}" for v in order],
            ncols=1,
            size=(10, 7),
        )
        out.figures.append(
            Figure(
                "cwnd",
                fig,
                "Congestion windows of Reno and the delay-based flow, with the delay-based flow's "
                "thresholds alpha and beta (fig. 3: NewVegas; fig. 5: CODE)",
            )
        )

        def val(v, cc, col):
            r = table[(table["run"] == f"Reno + {LABEL[v]}") & (table["flow"] == LABEL[cc])]
            return float(r[col].iloc[0]) if len(r) else math.nan

        if "newvegas" in by:
            nv, rn = (
                val("newvegas", "newvegas", "throughput_mbps"),
                val("newvegas", "reno", "throughput_mbps"),
            )
            out.claims.append(
                claim(
                    "Fig. 3: NewVegas's throughput is lower than Reno's",
                    nv < rn,
                    f"NewVegas {nv:.2f} Mb/s, Reno {rn:.2f} Mb/s",
                )
            )
            g_nv, g_rn = (
                val("newvegas", "newvegas", "growth_pkts_per_round"),
                val("newvegas", "reno", "growth_pkts_per_round"),
            )
            out.claims.append(
                claim(
                    "Drawback 2: NewVegas's window grows more slowly than Reno's (one packet per two "
                    "rounds against one per round)",
                    g_nv < g_rn,
                    f"growth after the trough: NewVegas {g_nv:.2f}, Reno {g_rn:.2f} packets per round",
                )
            )
            down = val("newvegas", "newvegas", "rounds_shrinking_after_loss")
            out.claims.append(
                claim(
                    "Drawback 1: after a loss NewVegas keeps shrinking its window for several rounds "
                    "(thresholds back to alpha0, beta0)",
                    down >= 2,
                    f"{down:.1f} rounds on average from the loss to the trough",
                )
            )
        if "code" in by and "newvegas" in by:
            rc = (by["code"].goodput_bps("code") / 1e6) / (by["code"].goodput_bps("reno") / 1e6)
            rnv = (by["newvegas"].goodput_bps("newvegas") / 1e6) / (by["newvegas"].goodput_bps("reno") / 1e6)
            out.claims.append(
                claim(
                    "Fig. 5: CODE does better against Reno than NewVegas does",
                    rc > rnv,
                    f"CODE/Reno {rc:.2f}, NewVegas/Reno {rnv:.2f}",
                )
            )
            g_c, g_nv = (
                val("code", "code", "growth_pkts_per_round"),
                val("newvegas", "newvegas", "growth_pkts_per_round"),
            )
            out.claims.append(
                claim(
                    "CODE's window grows faster than NewVegas's (two packets per three rounds)",
                    g_c > g_nv,
                    f"CODE {g_c:.2f}, NewVegas {g_nv:.2f} packets per round",
                )
            )
            d_c = val("code", "code", "rounds_shrinking_after_loss")
            d_nv = val("newvegas", "newvegas", "rounds_shrinking_after_loss")
            out.claims.append(
                claim(
                    "CODE shrinks for fewer rounds after a loss than NewVegas (thresholds scaled by "
                    "epsilon instead of reset)",
                    d_c < d_nv,
                    f"CODE {d_c:.1f}, NewVegas {d_nv:.1f} rounds",
                )
            )
        return out
