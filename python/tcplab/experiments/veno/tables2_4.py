"""001 tables II-IV: the live Internet measurements, for the record (no runs: the paths are
unknown)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .. import register
from ..base import Experiment, Outcome, Run
from .paper import LIVE_PUBLISHED, LIVE_QUANTITIES, LIVE_TABLES


@register
class Tables2to4(Experiment):
    name = "veno/tables2-4"
    paper = "veno"
    title = "Live Internet measurements (tables II-IV), for the record"
    setup = (
        "Live Internet transfers (16 MB between CUHK and HKU or Tsinghua, partly over a WLAN); the paths "
        "are not known well enough to simulate. For the record only: the published numbers, no runs. The "
        "three counters the tables report are recorded by tcplab for every flow (flows table: timeouts, "
        "fast_retransmits, retransmissions); veno/fig5 reports them per 32 MB transfer."
    )
    published = LIVE_PUBLISHED

    def runs(self, quick: bool) -> list[Run]:
        return []

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        for table, slots in LIVE_TABLES.items():
            rows = []
            for slot, vals in slots.items():
                row: dict[str, Any] = {"time slot": slot}
                for q, (reno, veno) in zip(LIVE_QUANTITIES, vals, strict=True):
                    row[f"{q}: Reno"] = reno
                    row[f"{q}: Veno"] = veno
                rows.append(row)
            out.tables[f"published table {table}"] = pd.DataFrame(rows)
        fewer = sum(
            vals[q][1] < vals[q][0]
            for slots in LIVE_TABLES.values()
            for vals in slots.values()
            for q in (1, 2, 3)
        )
        total = sum(3 for slots in LIVE_TABLES.values() for _ in slots)
        out.notes.append(
            "Published: Veno has fewer timeouts, fast retransmits and retransmitted packets than Reno in "
            f"{fewer} of {total} (slot, counter) pairs. No simulation: the live paths are unknown. tcplab "
            "counts all three per flow; the matching comparison on a simulated lossy path is veno/fig5's "
            "counter table."
        )
        return out
