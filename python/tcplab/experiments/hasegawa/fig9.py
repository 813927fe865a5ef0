"""003 figs. 9 and 10: Reno against Vegas+ (count_max 8 and 5) behind DropTail, beside plain
Vegas."""

from __future__ import annotations

import pandas as pd

from .. import register
from ..ablation import vegasplus_count_ablation, vegasplus_window_ablation
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim
from .measure import aggregate, case_rows, compare_variants, per_case, run_table, sweep_table
from .paper import PLAIN_VEGAS, VEGAS_PLUS_5, VEGAS_PLUS_8, setup_text, sweep_runs
from .plots import throughput_figure


@register
class Fig9(Experiment):
    name = "hasegawa/fig9"
    paper = "hasegawa"
    title = "Reno vs Vegas+ behind DropTail, count_max = 8 and 5, beside Vegas (figs. 9, 10)"
    ablations = (vegasplus_count_ablation(quick=True), vegasplus_window_ablation())
    setup = setup_text(
        " As fig. 3 with the Vegas flows replaced by Vegas+ (section 5.1) with count_max = 8 (fig. 9) and "
        "5 (fig. 10); the fig. 3 runs (plain Vegas) are shown beside them."
    )
    needs = ("cc:vegas", "cc:vegas_plus")

    def runs(self, quick: bool) -> list[Run]:
        return sweep_runs([PLAIN_VEGAS, VEGAS_PLUS_8, VEGAS_PLUS_5], quick)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        runs = run_table(results)
        agg = aggregate(runs, ["variant", "n_reno", "n_vegas", "buffer"])
        out.tables["per-flow throughput (kb/s)"] = sweep_table(agg)
        for fig_no, v in ((9, VEGAS_PLUS_8), (10, VEGAS_PLUS_5)):
            fig = throughput_figure(agg, v.label, reference=PLAIN_VEGAS.label, vegas_name="Vegas+")
            out.figures.append(
                Figure(
                    f"fig{fig_no}",
                    fig,
                    f"Fig. {fig_no}: per-flow throughput of Reno and Vegas+ ({v.label.split()[-1]}) "
                    "vs the DropTail "
                    "buffer (solid, 95% CI), with Reno and plain Vegas of fig. 3 (dotted, faint)",
                )
            )

        def gain(nr, nv) -> pd.Series:
            """Reduction of the unfairness |ln(Vegas/Reno)| by Vegas+ (count_max 8), per buffer."""
            plus = case_rows(agg, nr, nv, VEGAS_PLUS_8.label).set_index("buffer")["unfairness"]
            plain = case_rows(agg, nr, nv, PLAIN_VEGAS.label).set_index("buffer")["unfairness"]
            return plain - plus

        def halved(nr, nv):
            plus = case_rows(agg, nr, nv, VEGAS_PLUS_8.label).iloc[-1]["unfairness"]
            plain = case_rows(agg, nr, nv, PLAIN_VEGAS.label).iloc[-1]["unfairness"]
            return plus <= 0.5 * plain, f"|ln(Vegas/Reno)| {plain:.2f} with Vegas, {plus:.2f} with Vegas+"

        ok, detail = per_case(halved)
        bmax = int(agg["buffer"].max())
        out.claims.append(
            claim(
                f"Vegas+ (count_max 8) significantly improves fairness at a large buffer whatever Nr and Nv "
                f"(unfairness at B = {bmax} at least halved)",
                ok,
                detail,
            )
        )

        def larger_gain(nr, nv):
            g = gain(nr, nv)
            g = g[g.index >= 20]
            return g.iloc[-1] > g.iloc[
                0
            ], f"{g.iloc[0]:+.2f} at B={g.index[0]} -> {g.iloc[-1]:+.2f} at B={g.index[-1]}"

        ok, detail = per_case(larger_gain)
        out.claims.append(
            claim(
                "The improvement (drop of |ln(Vegas/Reno)|) is larger at large buffers than at B = 20",
                ok,
                detail,
            )
        )
        out.claims.append(compare_variants(runs, VEGAS_PLUS_5.label, PLAIN_VEGAS.label))
        out.claims.append(compare_variants(runs, VEGAS_PLUS_8.label, VEGAS_PLUS_5.label))
        out.notes.append(
            "003 prints figs. 9 and 10 as plots only. Unfairness is |ln(Vegas/Reno)| of the per-flow "
            "means: 0 is fair, and a Vegas-side flow getting twice a Reno flow's throughput counts as "
            "unfair as getting half. The tables show it for the means over seeds; the 'fairer than' "
            "claims compare it run by run (each seed's runs averaged over B >= 50, paired by seed), "
            "so their figures differ a little from the tables'."
        )
        return out
