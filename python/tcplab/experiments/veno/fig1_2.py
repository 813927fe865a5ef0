"""001 figs. 1 and 2: the window of one Veno and one Reno flow without random loss (fig. 1) and
with 1% loss at 180 ms (fig. 2), and how many losses each takes as congestion."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...result import Result
from .. import register
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim, plt
from .measure import frac
from .paper import CCS, COLOR, KB, LABEL, router_scenario

FIG1_DURATION = 400.0
FIG1_QUICK_DURATION = 150.0
FIG2_DURATION = 120.0
FIG2_RTT = 0.18
FIG2_LOSS = 0.01


@register
class Fig1(Experiment):
    name = "veno/fig1-2"
    paper = "veno"
    title = (
        "Window evolution of one Veno and one Reno flow: no loss (fig. 1), 1% loss and RTT 180 ms (fig. 2)"
    )
    setup = (
        "The paper's figs. 1 and 2 are campus-network and test-bed traces without a stated link. Assumed: "
        "the fig. 4 link (1.6 Mb/s both ways, buffer 12 both ways, MSS 1460 B) with one bulk flow. Fig. 1: "
        "no random loss, round-trip propagation 120 ms, 400 s (quick: 150 s). Fig. 2: Bernoulli data loss "
        "1%, round-trip propagation 180 ms, 120 s. cwnd sampled every 0.1 s. Congestion losses = loss "
        "responses (fast retransmits and timeouts) whose segment overflowed the buffer, not counting those "
        "that repair the window that overflowed at the end of the initial slow start (the first loss's "
        "segment and the cwnd segments after it)."
    )
    needs = ("cc:veno",)

    def runs(self, quick: bool) -> list[Run]:
        d1 = FIG1_QUICK_DURATION if quick else FIG1_DURATION
        out = []
        for cc in CCS:
            out.append(
                Run({"fig": 1, "cc": cc}, router_scenario([cc], 0.0, duration=d1, sample_interval=0.1))
            )
            out.append(
                Run(
                    {"fig": 2, "cc": cc},
                    router_scenario(
                        [cc], FIG2_LOSS, rtt=FIG2_RTT, duration=FIG2_DURATION, sample_interval=0.1
                    ),
                )
            )
        return out

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        rows = []
        traces: dict[tuple[int, str], Result] = {}
        for params, res in results:
            fig, cc = params["fig"], params["cc"]
            traces[(fig, cc)] = res
            L = res.losses[res.losses["flow"] == 0]
            overshoot = _initial_overshoot(L)
            after = L[~overshoot]
            fr = after[after["kind"] == "fast_retransmit"]
            rows.append(
                {
                    "fig": fig,
                    "cc": cc,
                    "congestion losses": int((after["true_cause"] == "buffer_overflow").sum()),
                    "random losses": int((after["true_cause"] == "random_loss").sum()),
                    "initial slow start losses": int(overshoot.sum()),
                    "fast retransmits": len(fr),
                    "4/5 cuts": int((fr["cc_label"] == "random").sum()),
                    "1/2 cuts (Veno)": int((fr["cc_label"] == "congestive").sum()),
                    "timeouts": int((after["kind"] == "timeout").sum()),
                    "mean cwnd (packets)": float(res.series["cwnd"].mean()),
                    "goodput (kB/s)": float(res.flows.iloc[0]["goodput_bps"]) / 8 / KB,
                }
            )
        table = pd.DataFrame(rows).sort_values(["fig", "cc"]).reset_index(drop=True)
        out.tables["loss responses after the initial slow start"] = table

        for fig_no, caption in (
            (1, "cwnd of a lone Veno (a) and Reno (b) flow without random loss (cf. 001 fig. 1)"),
            (
                2,
                "cwnd of a lone Veno (a) and Reno (b) flow with 1% random loss, RTT 180 ms (cf. 001 fig. "
                "2); markers: Veno's 4/5 (x) and 1/2 (o) cuts",
            ),
        ):
            fig, axes = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True, sharey=True)
            for ax, cc, tag in zip(axes, ("veno", "reno"), ("(a)", "(b)"), strict=True):
                res = traces.get((fig_no, cc))
                if res is None:
                    continue
                s = res.series
                ax.plot(s["time"], s["cwnd"], lw=0.8, color=COLOR[cc], label="cwnd")
                ax.plot(
                    s["time"],
                    s["ssthresh"].clip(upper=s["cwnd"].max() * 1.2),
                    lw=0.6,
                    color="grey",
                    alpha=0.6,
                    label="ssthresh",
                )
                if fig_no == 2 and cc == "veno":
                    L = res.losses[res.losses["kind"] == "fast_retransmit"]
                    for label, marker in (("random", "x"), ("congestive", "o")):
                        pts = L[L["cc_label"] == label]
                        ax.plot(
                            pts["time"],
                            pts["cwnd_before"],
                            marker,
                            ms=5,
                            color="k",
                            mfc="none",
                            label=f"{label} cut",
                        )
                ax.set_title(f"{tag} {LABEL[cc]}", fontsize=9)
                ax.set_ylabel("packets")
                ax.grid(True, alpha=0.3)
                ax.legend(fontsize=7, loc="upper right")
            axes[-1].set_xlabel("time (s)")
            fig.tight_layout()
            out.figures.append(Figure(f"cwnd-fig{fig_no}", fig, caption))

        t = {(r["fig"], r["cc"]): r for r in rows}
        veno1, reno1 = t[(1, "veno")], t[(1, "reno")]
        cut = (
            1 - veno1["congestion losses"] / reno1["congestion losses"]
            if reno1["congestion losses"]
            else np.nan
        )
        out.claims.append(
            claim(
                "Without random loss Veno has fewer congestion losses than Reno (paper: almost 40% fewer "
                "over 400 s)",
                veno1["congestion losses"] < reno1["congestion losses"],
                f"Veno {veno1['congestion losses']}, Reno {reno1['congestion losses']} ({cut:.0%} fewer)",
            )
        )
        out.claims.append(
            claim(
                "Without random loss Veno loses no throughput by growing more slowly (goodput within 2% of "
                "Reno's)",
                abs(veno1["goodput (kB/s)"] / reno1["goodput (kB/s)"] - 1) <= 0.02,
                f"Veno {veno1['goodput (kB/s)']:.1f}, Reno {reno1['goodput (kB/s)']:.1f} kB/s",
            )
        )
        veno2, reno2 = t[(2, "veno")], t[(2, "reno")]
        random_cuts = frac(veno2["4/5 cuts"], veno2["4/5 cuts"] + veno2["1/2 cuts (Veno)"])
        out.claims.append(
            claim(
                "With 1% random loss Veno cuts by 1/5 at most of its fast retransmits (paper: 10 of 14 "
                "losses)",
                random_cuts > 0.5,
                f"{veno2['4/5 cuts']} of {veno2['4/5 cuts'] + veno2['1/2 cuts (Veno)']} ({random_cuts:.0%})",
            )
        )
        out.claims.append(
            claim(
                "With 1% random loss Veno's window stays larger than Reno's (mean cwnd)",
                veno2["mean cwnd (packets)"] > reno2["mean cwnd (packets)"],
                f"Veno {veno2['mean cwnd (packets)']:.1f}, Reno {reno2['mean cwnd (packets)']:.1f} packets",
            )
        )
        out.notes.append(
            "The paper's fig. 2 induces losses at chosen instants (14 in 120 s); ours are Bernoulli, so the "
            "counts differ; the share of 4/5 cuts is what compares."
        )
        return out


def _initial_overshoot(losses: pd.DataFrame) -> pd.Series:
    """Which loss responses repair segments of the window that overflowed at the end of
    the initial slow start: those from the first loss's segment up to one window
    (its cwnd) above it."""
    if not len(losses):
        return pd.Series(False, index=losses.index)
    first = losses.sort_values("time").iloc[0]
    return (losses["seq"] >= first["seq"]) & (losses["seq"] < first["seq"] + first["cwnd_before"])
