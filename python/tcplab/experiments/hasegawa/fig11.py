"""003 figs. 11 and 13: ZL-RED with hit_drop 0 and 0.8: each kind's throughput and packet loss
rate, beside RED."""

from __future__ import annotations

from .. import register
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim
from .measure import aggregate, compare_variants, large, mean_over_large, per_case, run_table, sweep_table
from .paper import LARGE, RED_30, ZL_0, ZL_08, setup_text, sweep_runs
from .plots import throughput_figure


@register
class Fig11(Experiment):
    name = "hasegawa/fig11"
    paper = "hasegawa"
    title = "ZL-RED, hit_drop = 0 and 0.8: throughput and packet loss rate of each kind (figs. 11, 13)"
    setup = setup_text(
        " Router: ZL-RED (section 6) with p_min 1/50, p_max 1/10, th_min 5, th_max 0.6 B, a 1000-entry "
        "zombie list (SRED's replacement probability 0.25), hit_drop = 0 (fig. 11) and 0.8 (fig. 13); the "
        "RED p = 1/30 runs of fig. 4 for reference."
    )
    needs = ("cc:vegas", "queue:zl_red", "queue:red_const")

    def runs(self, quick: bool) -> list[Run]:
        return sweep_runs([ZL_0, ZL_08, RED_30], quick)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        runs = run_table(results)
        agg = aggregate(runs, ["variant", "n_reno", "n_vegas", "buffer"])
        out.tables["per-flow throughput (kb/s) and loss rates (%)"] = sweep_table(
            agg, ["reno_loss_pct", "vegas_loss_pct"]
        )
        for fig_no, v in ((11, ZL_0), (13, ZL_08)):
            fig = throughput_figure(agg, v.label, reference=RED_30.label, loss_row=True)
            out.figures.append(
                Figure(
                    f"fig{fig_no}",
                    fig,
                    f"Fig. {fig_no}: {v.label}: per-flow throughput (top; RED p = 1/30 dotted, faint) "
                    "and packet "
                    "loss rate (bottom) of Reno and Vegas vs the buffer",
                )
            )

        def reno_loses_more(nr, nv, variant=ZL_0.label):
            r = mean_over_large(agg, variant, nr, nv, "reno_loss_pct")
            v = mean_over_large(agg, variant, nr, nv, "vegas_loss_pct")
            return r > v, f"Reno {r:.2f}% vs Vegas {v:.2f}%"

        ok, detail = per_case(reno_loses_more)
        out.claims.append(
            claim(
                f"hit_drop = 0: Reno's packet loss rate exceeds Vegas's (mean over B >= {LARGE})", ok, detail
            )
        )
        out.claims.append(compare_variants(runs, ZL_0.label, RED_30.label))
        out.claims.append(compare_variants(runs, ZL_08.label, ZL_0.label))
        out.claims.append(compare_variants(runs, ZL_08.label, RED_30.label))

        def still_unfair(nr, nv):
            ratio = mean_over_large(agg, ZL_08.label, nr, nv, "vegas/reno")
            return ratio < 1.0, f"Vegas/Reno {ratio:.2f}"

        ok, detail = per_case(still_unfair)
        out.claims.append(
            claim("ZL-RED does not eliminate the unfairness (Vegas still below Reno)", ok, detail)
        )
        sep = {
            v.label: (
                large(agg[agg["variant"] == v.label])["reno_loss_pct"].mean(),
                large(agg[agg["variant"] == v.label])["vegas_loss_pct"].mean(),
            )
            for v in (ZL_0, ZL_08, RED_30)
        }
        out.notes.append(
            "003 prints figs. 11 and 13 as plots only. Mean loss rates over B >= 50 and the three cases: "
            + "; ".join(f"{k}: Reno {r:.2f}%, Vegas {v:.2f}%" for k, (r, v) in sep.items())
            + ". The hit-based first step (eq. 26) separates the kinds only modestly: with 10-15 flows a "
            "Reno flow's share of the arrivals, hence its hit probability, is at most a few times Vegas's."
        )
        return out
