"""000 table 3: the Internet runs, NCTU to NCUE, for the record: the published averages and
intervals recomputed from the published rounds."""

from __future__ import annotations

import math

import pandas as pd
from scipy import stats

from ...analysis import mean_ci
from .. import register
from ..base import Experiment, Outcome, Results, Run
from ..common import claim, comparison
from .paper import TABLE3, TABLE3_AVG, TABLE3_CI, TABLE3_PUBLISHED


@register
class Table3(Experiment):
    name = "code/table3"
    paper = "code"
    title = "Internet runs, NCTU to NCUE: Reno vs Vegas and Reno vs CODE (table 3, for the record)"
    setup = (
        "Two FTP clients upload 53,612 kB each over the Internet, one Reno and one Vegas or CODE, ten "
        "rounds. Not reproducible here; we recompute the published averages and 95% intervals from the "
        "published rounds as a consistency check."
    )
    published = TABLE3_PUBLISHED

    def runs(self, quick: bool) -> list[Run]:
        return []

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        out.tables["000 table 3 (published rounds, KB/s)"] = TABLE3
        ci = {k: mean_ci(TABLE3[k].to_numpy()) for k in TABLE3_AVG}
        recomputed = {f"{k}: average throughput": c.mean for k, c in ci.items()}
        recomputed |= {f"{k}: 95% CI half width": c.half_width for k, c in ci.items()}
        out.comparison = comparison((p, recomputed[p.quantity]) for p in self.published)
        out.notes.append(
            "'ours' here is recomputed from the ten published rounds (Student-t, 9 degrees of freedom), "
            "not measured: the Internet runs cannot be repeated in a simulator."
        )
        rows, normal_ok = [], True
        for level, widths in TABLE3_CI.items():
            z = float(stats.norm.ppf((1 + level) / 2))
            for k, published in zip(TABLE3_AVG, widths, strict=True):
                x = TABLE3[k].to_numpy()
                with_z = z * x.std(ddof=1) / math.sqrt(len(x))
                normal_ok &= abs(with_z - published) < 0.015
                rows.append(
                    {
                        "column": k,
                        "level": level,
                        "published": published,
                        "Student-t (9 dof)": mean_ci(x, level).half_width,
                        "normal quantile": with_z,
                    }
                )
        out.tables["confidence-interval half widths (KB/s): published and recomputed"] = pd.DataFrame(rows)
        out.claims.append(
            claim(
                "The published averages follow from the published rounds",
                all(abs(ci[k].mean - v) < 0.01 for k, v in TABLE3_AVG.items()),
                ", ".join(f"{k} {ci[k].mean:.2f}" for k in TABLE3_AVG),
            )
        )
        out.claims.append(
            claim(
                "The published intervals are mean +- z s / sqrt(10) with the normal quantile z (1.96 at "
                "95%), narrower than Student-t intervals for ten samples by a factor 2.262/1.96 = 1.15",
                normal_ok,
                "every published half width matches the normal-quantile value to 0.01 KB/s"
                if normal_ok
                else "some published half width differs from the normal-quantile value",
            )
        )
        out.claims.append(
            claim(
                "Reno's average is 1.59 times Vegas's, and Reno's and CODE's are almost equal",
                round(ci["Reno (vs Vegas)"].mean / ci["Vegas"].mean, 2) == 1.59
                and abs(ci["CODE"].mean / ci["Reno (vs CODE)"].mean - 1) < 0.01,
                f"Reno/Vegas {ci['Reno (vs Vegas)'].mean / ci['Vegas'].mean:.3f}, "
                f"CODE/Reno {ci['CODE'].mean / ci['Reno (vs CODE)'].mean:.4f}",
            )
        )
        return out
