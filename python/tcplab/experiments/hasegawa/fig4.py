"""003 figs. 4 and 5: Reno against Vegas behind constant-probability RED, p = 1/30 and 1/10,
simulation beside the analysis of eqs. (13)-(24)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from .. import register
from ..ablation import stack_ablations
from ..base import Claim, Experiment, Figure, Outcome, Run
from ..common import claim
from .measure import (
    aggregate,
    case_rows,
    compare_variants,
    large,
    model_agreement,
    per_case,
    run_table,
    sweep_table,
)
from .model import droptail_point, red_model_kbps, with_model
from .paper import DROPTAIL, LARGE, RED_10, RED_30, SHARE_TOLERANCE, setup_text, sweep_runs
from .plots import throughput_figure


def _red_point(p: float) -> Callable[[int, int, int], tuple[float, float]]:
    return lambda nr, nv, _b: red_model_kbps(nr, nv, p)


@register
class Fig4(Experiment):
    name = "hasegawa/fig4"
    paper = "hasegawa"
    title = "Reno vs Vegas behind a RED router, p = 1/30 and 1/10: simulation and analysis (figs. 4, 5)"
    setup = setup_text(
        " Router: the constant-probability RED of section 4.1.2 (kind red_const: each arrival dropped "
        "with probability p once RED's average queue reaches th_min = 5; every arrival once it reaches "
        "th_max = 0.6 B), p = 1/30 (fig. 4) and 1/10 (fig. 5); the DropTail runs of fig. 3 for reference. "
        "Analysis: eqs. (13)-(24) with RTO = 0.2 s (the simulator's minimum RTO) and the mean RTT of a "
        "saturated link; it does not depend on B."
    )
    needs = ("cc:vegas", "queue:red_const")
    ablations = stack_ablations("delayed-ack")
    probabilities = {RED_30.label: 1 / 30, RED_10.label: 1 / 10}

    def runs(self, quick: bool) -> list[Run]:
        return sweep_runs([DROPTAIL, RED_30, RED_10], quick)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        runs = run_table(results)
        agg = aggregate(runs, ["variant", "n_reno", "n_vegas", "buffer"])
        parts = [with_model(agg[agg["variant"] == DROPTAIL.label], droptail_point)]
        parts += [with_model(agg[agg["variant"] == v], _red_point(p)) for v, p in self.probabilities.items()]
        agg = pd.concat(parts, ignore_index=True)
        out.tables["per-flow throughput (kb/s), simulation and analysis"] = sweep_table(
            agg, ["model_reno_kbps", "model_vegas_kbps", "share_error"]
        )
        for fig_no, (variant, p) in zip((4, 5), self.probabilities.items(), strict=True):

            def model(nr, nv, p=p):
                reno, vegas = red_model_kbps(nr, nv, p)
                return pd.DataFrame({"buffer": [0, 200], "reno_kbps": [reno] * 2, "vegas_kbps": [vegas] * 2})

            fig = throughput_figure(agg, variant, model=model, reference=DROPTAIL.label)
            out.figures.append(
                Figure(
                    f"fig{fig_no}",
                    fig,
                    f"Fig. {fig_no}: per-flow throughput behind RED with p = {p:.3g} vs the buffer; "
                    "simulation "
                    "(points, 95% CI), the analysis of eqs. (13)-(24) (dashed, independent of B) and the "
                    "DropTail simulation of fig. 3 (dotted, faint)",
                )
            )
        out.claims += red_claims(agg, runs)
        out.notes.append(
            "003 prints figs. 4 and 5 as plots only; the comparison is with its RED model and its "
            "statements. "
            "The model's RTO is our choice (0.2 s, the simulator's floor; 003 does not give one)."
        )
        return out


def red_claims(agg: pd.DataFrame, runs: pd.DataFrame) -> list[Claim]:
    claims = [compare_variants(runs, RED_30.label, DROPTAIL.label)]

    def same_total(nr, nv):
        red = case_rows(agg, nr, nv, RED_30.label).iloc[-1]["total_kbps"]
        dt = case_rows(agg, nr, nv, DROPTAIL.label).iloc[-1]["total_kbps"]
        return abs(red - dt) <= 0.03 * dt, f"{red:.0f} vs {dt:.0f} kb/s"

    ok, detail = per_case(same_total)
    claims.append(
        claim(
            "For the largest buffer RED's total throughput is almost that of DropTail (within 3%)", ok, detail
        )
    )
    claims.append(compare_variants(runs, RED_10.label, RED_30.label))
    for variant in (RED_30.label, RED_10.label):

        def flat(nr, nv, variant=variant):
            c = large(case_rows(agg, nr, nv, variant))
            spread = (c["reno_kbps"].max() - c["reno_kbps"].min()) / c["reno_kbps"].mean()
            return spread <= 0.2, f"Reno per-flow range {spread:.0%} of its mean"

        ok, detail = per_case(flat)
        claims.append(
            claim(
                f"{variant}: for B >= {LARGE} throughput hardly depends on B (Reno's range <= 20%), "
                "as in the analysis",
                ok,
                detail,
            )
        )
        claims.append(
            model_agreement(
                agg,
                variant,
                f"{variant}: the analysis gives each kind's share within {SHARE_TOLERANCE} for B >= {LARGE}",
            )
        )

        def small_worse(nr, nv, variant=variant):
            c = case_rows(agg, nr, nv, variant)
            return (
                c.iloc[0]["share_error"] > c.iloc[-1]["share_error"],
                f"error {c.iloc[0]['share_error']:.2f} at B={int(c.iloc[0]['buffer'])} vs "
                f"{c.iloc[-1]['share_error']:.2f} at B={int(c.iloc[-1]['buffer'])}",
            )

        ok, detail = per_case(small_worse)
        claims.append(
            claim(f"{variant}: simulation departs from the analysis most at small buffers", ok, detail)
        )
    return claims
