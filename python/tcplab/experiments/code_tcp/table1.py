"""000 table 1: NewVegas's thresholds and window over six rounds, the engine's against the
published cells."""

from __future__ import annotations

import pandas as pd

from ... import _engine
from .. import register
from ..base import Experiment, Outcome, Results, Run
from ..common import claim
from .paper import TABLE1

TABLE1_TEST = "cc::newvegas::tests::reproduces_table_1"


@register
class Table1(Experiment):
    name = "code/table1"
    paper = "code"
    title = "NewVegas's threshold evolution over six rounds (table 1)"
    setup = (
        "Section 3.1's example: Delta = 5 with alpha = 5, beta = 7 at RTT_j and the RTT growing every "
        "round. The engine's NewVegas is driven through the six rounds (cc::newvegas::table1_trace, also "
        f"asserted by the unit test {TABLE1_TEST}) and every cell compared with the published one."
    )
    needs = ("cc:newvegas",)

    def runs(self, quick: bool) -> list[Run]:
        return []

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        out.tables["000 table 1 (published)"] = TABLE1
        cols = ["W_old", "alpha", "beta", "Delta", "W"]
        ours = pd.DataFrame(_engine.newvegas_table1(), columns=cols)
        ours.insert(0, "RTT", [f"RTT_j+{i}" if i else "RTT_j" for i in range(len(ours))])
        out.tables["the engine's NewVegas through the same six rounds"] = ours
        published = _table1_numbers()
        same = ours[cols].to_numpy().tolist() == published
        w = ours["W"].tolist()
        out.claims.append(
            claim(
                "NewVegas raises its thresholds and its window in alternate rounds, so it gains one packet "
                "every two rounds (W 20 -> 23 over six rounds)",
                same and w[0] == 20 and w[-1] == 23,
                "every cell equals the published one" if same else f"W per round: {w}",
            )
        )
        return out


def _table1_numbers() -> list[list[float]]:
    """000 table 1's cells as numbers ("5 + 1" is the value after the round, 6)."""
    rows = []
    for _, r in TABLE1.iterrows():
        rows.append(
            [sum(float(t) for t in str(r[c]).split("+")) for c in ("W_old", "alpha", "beta", "Delta", "W")]
        )
    return rows
