"""002 fig. 4 and table 3: DropTail against RED at a 64-packet queue."""

from __future__ import annotations

from .. import register
from ..base import Experiment, Outcome, Run
from ..common import claim, comparison
from .measure import point_table, run_table
from .paper import DURATION, PHASES, QUICK_DURATION, START_WINDOW, TABLE3_PUBLISHED, fahmy_scenario, seeds


@register
class Fig4(Experiment):
    name = "fahmy/fig4"
    paper = "fahmy"
    title = "DropTail vs RED at a 64-packet queue (table 3)"
    setup = (
        "Reno and Vegas together, queue 64; DropTail, then RED with NS-2's defaults (thresh 5, maxthresh 15, "
        "q_weight 0.002, linterm 10, wait_ on). " + PHASES
    )
    needs = ("cc:vegas", "queue:red")
    published = TABLE3_PUBLISHED
    RED = {"kind": "red", "min_th": 5, "max_th": 15, "w_q": 0.002, "max_p": 0.1, "wait": True}

    def runs(self, quick: bool) -> list[Run]:
        d = QUICK_DURATION if quick else DURATION
        return [
            Run(
                {"queue": name, "seed": seed},
                fahmy_scenario(64, queue=q, duration=d, seed=seed, start_window=START_WINDOW),
            )
            for name, q in (("DropTail", None), ("RED", self.RED))
            for seed in seeds(quick)
        ]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        table = point_table(run_table(results, "queue"), "queue")
        out.tables["throughput (kb/s, mean over start phases)"] = table
        ours = {}
        for _, r in table.iterrows():
            ours[f"{r['queue']}: Reno throughput"] = r["reno_kbps"]
            ours[f"{r['queue']}: Vegas throughput"] = r["vegas_kbps"]
        out.comparison = comparison((p, ours[p.quantity]) for p in self.published)
        share = {
            r["queue"]: r["vegas_kbps"] / (r["reno_kbps"] + r["vegas_kbps"]) for _, r in table.iterrows()
        }
        out.claims.append(
            claim(
                "RED gives Vegas a larger share than DropTail",
                share["RED"] > share["DropTail"],
                f"Vegas share {share['DropTail']:.2f} (DropTail) vs {share['RED']:.2f} (RED)",
            )
        )
        return out
