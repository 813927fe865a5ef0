"""000 eqs. 3-19: CODE's epsilon from the fluid model of one CODE and one Reno flow."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...analysis import code_epsilon, code_epsilon_polynomial, code_epsilon_roots, code_reno_cycle_ratio
from .. import register
from ..base import Experiment, Figure, Outcome, Results, Run
from ..common import claim, comparison, figure
from .paper import COLOR, EQ18_PUBLISHED


@register
class Eq18(Experiment):
    name = "code/eq18"
    paper = "code"
    title = "CODE's epsilon: 34 e^2 - 54 e + 21 = 0 (eqs. 3-19)"
    setup = (
        "Section 3.3's fluid model of one CODE and one Reno flow (equal RTTs): CODE's window falls to "
        "3/4 W_Vmax after a loss, shrinks one packet per round to epsilon W_Vmax, then grows two packets "
        "per three rounds; equal cycle length and equal packets per cycle give eq. (18). Solved with "
        "tcplab.analysis.code_epsilon."
    )
    published = EQ18_PUBLISHED

    def runs(self, quick: bool) -> list[Run]:
        return []

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        roots = code_epsilon_roots()
        chosen = code_epsilon()
        poly = code_epsilon_polynomial() * 34
        out.comparison = comparison(zip(self.published, (roots[0], roots[-1], chosen), strict=True))
        out.tables["eq. (18) coefficients (scaled to a leading 34)"] = pd.DataFrame(
            {"term": ["e^2", "e", "1"], "ours": poly, "000": [34, -54, 21]}
        )
        out.claims.append(
            claim(
                "The model reduces to 34 e^2 - 54 e + 21 = 0",
                bool(np.allclose(poly, [34, -54, 21], atol=1e-9)),
                f"{poly[0]:.4g} e^2 + {poly[1]:.4g} e + {poly[2]:.4g}",
            )
        )
        out.claims.append(
            claim(
                "Its roots are 0.68 and 0.91",
                len(roots) == 2 and round(roots[0], 2) == 0.68 and round(roots[1], 2) == 0.91,
                ", ".join(f"{r:.4f}" for r in roots),
            )
        )
        out.claims.append(
            claim(
                "0.91 is unusable (t = (3/4 - e) W_Vmax < 0, eq. 14) and 0.68 is chosen",
                roots[-1] > 0.75 and round(chosen, 2) == 0.68,
                f"3/4 - {roots[-1]:.3f} = {0.75 - roots[-1]:.3f}; chosen {chosen:.4f}",
            )
        )
        eps = np.linspace(0.05, 0.88, 200)
        ratio = [code_reno_cycle_ratio(e) for e in eps]

        def plot(ax):
            ax.plot(eps, ratio, color=COLOR["code"], label="CODE / Reno packets per cycle (eqs. 15-17)")
            ax.axhline(1.0, color="k", lw=0.8, ls="--")
            ax.axvline(chosen, color="grey", lw=0.8, ls=":", label=f"epsilon = {chosen:.3f}")
            ax.set_yscale("log")

        out.figures.append(
            Figure(
                "ratio",
                figure(plot, "epsilon", "CODE / Reno throughput (model)"),
                "Section 3.3's model: CODE's share against epsilon; parity at eq. (18)'s admissible root",
            )
        )
        return out
