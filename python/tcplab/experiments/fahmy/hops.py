"""The runs, tables and figure of tables 4 and 5: Reno and Vegas across 2-5 identical bottleneck
hops."""

from __future__ import annotations

from ..base import Experiment, Figure, Outcome, Run
from ..common import comparison, figure
from .measure import mean_of, point_table, run_table, throughput_plot
from .paper import pair_runs


class HopsExperiment(Experiment):
    """Reno and Vegas together across ``hops`` identical bottleneck hops of ``buffer`` packets."""

    paper = "fahmy"
    needs = ("cc:vegas",)
    hops: tuple[int, ...] = ()
    buffer = 6

    def runs(self, quick: bool) -> list[Run]:
        return pair_runs("hops", self.hops, quick, buffer=self.buffer)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        runs = run_table(results, "hops")
        table = point_table(runs, "hops")
        out.tables["throughput by hop count (kb/s, mean over start phases)"] = table
        out.tables["every run"] = runs
        ours = mean_of(table, "hops", "reno", "{} hops") | mean_of(table, "hops", "vegas", "{} hops")
        out.comparison = comparison((p, ours[p.quantity]) for p in self.published if p.quantity in ours)
        out.figures.append(
            Figure(
                "hops",
                figure(throughput_plot(table, "hops"), "bottleneck hops", "throughput (kb/s)"),
                f"Reno vs Vegas against the number of {self.buffer}-packet bottleneck hops "
                "(mean and 95% CI over start phases)",
            )
        )
        return out
