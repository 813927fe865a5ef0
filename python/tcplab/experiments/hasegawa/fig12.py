"""003 fig. 12: each kind's packet loss rate behind RED, p = 1/30."""

from __future__ import annotations

from .. import register
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim
from .measure import aggregate, case_rows, large, per_case, run_table
from .paper import LARGE, RED_30, setup_text, sweep_runs
from .plots import loss_figure


@register
class Fig12(Experiment):
    name = "hasegawa/fig12"
    paper = "hasegawa"
    title = "Packet loss rate of each kind behind RED, p = 1/30 (fig. 12)"
    setup = setup_text(
        " Router: constant-probability RED, p = 1/30, th_min 5, th_max 0.6 B (the fig. 4 runs)."
    )
    needs = ("cc:vegas", "queue:red_const")

    def runs(self, quick: bool) -> list[Run]:
        return sweep_runs([RED_30], quick)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        agg = aggregate(run_table(results), ["variant", "n_reno", "n_vegas", "buffer"])
        cols = [
            "n_reno",
            "n_vegas",
            "buffer",
            "reno_loss_pct",
            "reno_loss_pct_ci",
            "vegas_loss_pct",
            "vegas_loss_pct_ci",
            "n",
        ]
        out.tables["packet loss rate (%)"] = agg[cols]
        out.figures.append(
            Figure(
                "fig12",
                loss_figure(agg, RED_30.label),
                "Fig. 12: packet loss rate of Reno and Vegas behind RED, p = 1/30",
            )
        )

        def equal(nr, nv):
            c = large(case_rows(agg, nr, nv))
            rel = (
                (c["reno_loss_pct"] - c["vegas_loss_pct"]).abs()
                / c[["reno_loss_pct", "vegas_loss_pct"]].mean(axis=1)
            ).max()
            return rel <= 0.2, f"largest relative difference {rel:.0%}"

        ok, detail = per_case(equal)
        out.claims.append(
            claim(
                f"RED drops both kinds' packets at the same rate (within 20% of each other for B >= {LARGE})",
                ok,
                detail,
            )
        )
        out.notes.append(
            "003 prints fig. 12 as a plot only; the claim is its statement that the rates are identical."
        )
        return out
