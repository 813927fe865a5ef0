"""002 fig. 3 and table 2: Reno and Vegas together over the DropTail buffer."""

from __future__ import annotations

from .. import register
from ..base import Experiment, Outcome, Run
from ..common import claim, every
from .measure import sweep_outcome, vegas_ahead_claim
from .paper import PHASES, TABLE2, TABLE2_PUBLISHED, pair_runs


@register
class Fig3(Experiment):
    name = "fahmy/fig3"
    paper = "fahmy"
    title = "Reno and Vegas together: DropTail buffer sweep (table 2)"
    setup = (
        "Reno n0->n3 and Vegas n1->n2 together on the fig. 1 topology; DropTail queue of 6, 9, 15, 25 "
        "and 50 packets at the bottleneck; throughput over [0, 100] s. " + PHASES
    )
    needs = ("cc:vegas",)
    buffers = tuple(TABLE2)
    published = TABLE2_PUBLISHED

    def runs(self, quick: bool) -> list[Run]:
        return pair_runs("buffer", self.buffers, quick)

    def analyze(self, results, quick) -> Outcome:
        out, table = sweep_outcome(
            self,
            results,
            "buffer",
            "buffer",
            "queue {}",
            "bottleneck queue (packets)",
            "Reno vs Vegas throughput against the DropTail buffer, ours (solid, mean and 95% CI over "
            "start phases) and 002's table 2 (dashed)",
            TABLE2,
        )
        first, last = table.iloc[0], table.iloc[-1]
        out.claims.append(
            claim(
                "Reno's throughput grows with the buffer size",
                last["reno_kbps"] > first["reno_kbps"],
                f"{first['reno_kbps']:.0f} kb/s at {first['buffer']:.0f} -> "
                f"{last['reno_kbps']:.0f} at {last['buffer']:.0f}",
            )
        )
        out.claims.append(
            vegas_ahead_claim(
                "With small buffers (6, 9) Vegas gets at least as much as Reno",
                table[table["buffer"] <= 9],
                "buffer",
                "packets",
                strict=False,
            )
        )
        big = table[table["buffer"] >= 25]
        out.claims.append(
            claim(
                "From 25 packets on, Reno takes most of the link",
                every(big["reno_kbps"] > 2 * big["vegas_kbps"]),
                ", ".join(
                    f"{r['buffer']:.0f}: Reno {r['reno_kbps']:.0f}, Vegas {r['vegas_kbps']:.0f} kb/s"
                    for _, r in big.iterrows()
                ),
            )
        )
        return out
