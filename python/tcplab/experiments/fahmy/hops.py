"""The runs, tables and figure of tables 4 and 5: Reno and Vegas across 2-5 identical bottleneck
hops."""

from __future__ import annotations

from ..base import Experiment, Outcome, Run
from .measure import sweep_outcome
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
        out, _ = sweep_outcome(
            self,
            results,
            "hops",
            "hop count",
            "{} hops",
            "bottleneck hops",
            f"Reno vs Vegas against the number of {self.buffer}-packet bottleneck hops "
            "(mean and 95% CI over start phases)",
        )
        return out
