"""002 table 4: 2 to 5 bottleneck hops with 6-packet queues."""

from __future__ import annotations

from .. import register
from ..base import Outcome
from .hops import HopsExperiment
from .measure import vegas_ahead_claim
from .paper import PHASES, TABLE4, TABLE4_PUBLISHED


@register
class Table4(HopsExperiment):
    name = "fahmy/table4"
    title = "2 to 5 bottleneck hops, queue 6 (table 4)"
    setup = (
        "As fig. 3 with 2, 3, 4 and 5 identical 0.5 Mb/s hops, each with a 6-packet DropTail queue. " + PHASES
    )
    hops = tuple(TABLE4)
    published = TABLE4_PUBLISHED

    def analyze(self, results, quick) -> Outcome:
        out = super().analyze(results, quick)
        out.claims.append(
            vegas_ahead_claim(
                "With 6-packet queues Vegas gets more than Reno at every hop count",
                out.tables["throughput by hop count (kb/s, mean over start phases)"],
                "hops",
                "hops",
                strict=True,
            )
        )
        return out
