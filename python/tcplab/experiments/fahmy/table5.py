"""002 table 5: 2, 4 and 5 bottleneck hops with 64-packet queues (ours only: the published units
are doubtful)."""

from __future__ import annotations

from .. import register
from ..base import Outcome
from .hops import HopsExperiment
from .paper import PHASES


@register
class Table5(HopsExperiment):
    name = "fahmy/table5"
    title = "2, 4 and 5 bottleneck hops, queue 64 (table 5)"
    setup = (
        'As table 4 with 64-packet queues. The published values are in doubtful units ("5 Kbps"), so only '
        "ours are reported. " + PHASES
    )
    hops = (2, 4, 5)
    buffer = 64

    def analyze(self, results, quick) -> Outcome:
        out = super().analyze(results, quick)
        out.notes.append(
            '002 prints this table in units we cannot interpret ("5 Kbps"); no comparison is made.'
        )
        return out
