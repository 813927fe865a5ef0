"""003 fig. 6: RED's trade-off between fairness and total throughput over its drop probability."""

from __future__ import annotations

import matplotlib.pyplot as plt

from .. import register
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim
from .measure import aggregate, run_table
from .model import red_model_kbps
from .paper import CAPACITY_KBPS, hasegawa_scenario, mode, red_const, setup_text


@register
class Fig6(Experiment):
    name = "hasegawa/fig6"
    paper = "hasegawa"
    title = "RED's fairness/throughput trade-off: throughput vs the drop probability p (fig. 6)"
    setup = setup_text(
        " Nr = Nv = 5, B = 100, constant-probability RED (th_min 5, th_max 60) with p from 0.001 to 0.2 "
        "(quick: 0.001, 0.01, 0.05, 0.2). Analysis of eqs. (13)-(24) beside it (RTO 0.2 s)."
    )
    needs = ("cc:vegas", "queue:red_const")
    full_p = (0.001, 0.002, 0.005, 0.01, 0.02, 1 / 30, 0.05, 0.1, 0.15, 0.2)
    quick_p = (0.001, 0.01, 0.05, 0.2)
    buffer = 100

    def runs(self, quick: bool) -> list[Run]:
        m = mode(quick)
        runs = []
        for p in self.quick_p if quick else self.full_p:
            for seed in m.seeds:
                sc = hasegawa_scenario(
                    5,
                    5,
                    self.buffer,
                    queue=red_const(p, self.buffer),
                    duration=m.duration,
                    measure=m.measure,
                    seed=seed,
                )
                runs.append(Run({"p": p, "n_reno": 5, "n_vegas": 5, "buffer": self.buffer, "seed": seed}, sc))
        return runs

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        agg = aggregate(run_table(results), ["p", "n_reno", "n_vegas", "buffer"])
        model = [red_model_kbps(5, 5, p) for p in agg["p"]]
        agg["model_reno_kbps"] = [m[0] for m in model]
        agg["model_vegas_kbps"] = [m[1] for m in model]
        cols = [
            "p",
            "reno_kbps",
            "reno_kbps_ci",
            "vegas_kbps",
            "vegas_kbps_ci",
            "total_kbps",
            "total_kbps_ci",
        ]
        out.tables["throughput vs p (kb/s)"] = agg[
            [*cols, "vegas/reno", "model_reno_kbps", "model_vegas_kbps", "n"]
        ]

        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        agg = agg.sort_values("p")
        for metric, label, fmt, color in (
            ("reno_kbps", "Reno, per flow", "o-", "C0"),
            ("vegas_kbps", "Vegas, per flow", "s-", "C1"),
        ):
            ax.errorbar(
                agg["p"],
                agg[metric],
                yerr=agg[f"{metric}_ci"].fillna(0),
                fmt=fmt,
                color=color,
                label=label,
                capsize=2,
                ms=4,
            )
        ax.plot(agg["p"], agg["model_reno_kbps"], "--", color="C0", label="Reno (analysis)")
        ax.plot(agg["p"], agg["model_vegas_kbps"], "--", color="C1", label="Vegas (analysis)")
        ax2 = ax.twinx()
        ax2.errorbar(
            agg["p"],
            agg["total_kbps"],
            yerr=agg["total_kbps_ci"].fillna(0),
            fmt="^-",
            color="C2",
            label="total",
            capsize=2,
            ms=4,
        )
        ax2.set_ylabel("total throughput (kb/s)", color="C2")
        ax2.set_ylim(0, CAPACITY_KBPS * 1.05)
        ax.set_xscale("log")
        ax.set_xlabel("RED packet dropping probability p")
        ax.set_ylabel("throughput per flow (kb/s)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="lower left")
        fig.tight_layout()
        out.figures.append(
            Figure(
                "fig6",
                fig,
                "Fig. 6: per-flow Reno and Vegas throughput (left axis) and total throughput (right axis) vs "
                "RED's p; Nr = Nv = 5, B = 100; dashed: the analysis (which always fills the link)",
            )
        )
        lo, hi = agg.iloc[0], agg.iloc[-1]
        out.claims.append(
            claim(
                "A larger p improves fairness (Vegas/Reno at the largest p is at least twice that at "
                "the smallest)",
                hi["vegas/reno"] >= 2 * lo["vegas/reno"],
                f"Vegas/Reno {lo['vegas/reno']:.2f} at p={lo['p']:.3g} -> "
                f"{hi['vegas/reno']:.2f} at p={hi['p']:.3g}",
            )
        )
        out.claims.append(
            claim(
                "... but costs total throughput (total at the largest p below 95% of that at the smallest)",
                hi["total_kbps"] < 0.95 * lo["total_kbps"],
                ", ".join(f"p={r.p:.3g}: {r.total_kbps:.0f}" for r in agg.itertuples()) + " kb/s",
            )
        )
        small_p = agg[agg["p"] <= 0.01]
        out.claims.append(
            claim(
                "Up to p = 0.01 RED hardly changes the shares (Vegas/Reno varies by less than 0.1)",
                float(small_p["vegas/reno"].max() - small_p["vegas/reno"].min()) < 0.1,
                ", ".join(
                    f"p={p:.3g}: {v:.2f}" for p, v in zip(small_p["p"], small_p["vegas/reno"], strict=True)
                ),
            )
        )
        out.notes.append(
            "003 prints fig. 6 as a plot only. The analysis assigns the whole link to the two kinds "
            "(eq. 12), so it cannot show the loss of total throughput; its curves are ours, not the paper's."
        )
        return out
