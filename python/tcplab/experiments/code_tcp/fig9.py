"""000 fig. 9: one Reno against one Vegas, Vegas-A, NewVegas or CODE flow over the bottleneck
bandwidth."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .. import register
from ..ablation import ns2_diff_ablation
from ..base import Outcome, Results
from .paper import BANDWIDTHS, COMMON_SETUP, MEASURE_FROM, PARITY, code_scenario
from .sweep import QUICK_ABLATIONS, PairSweep, pair_claims, variant_rows


@register
class Fig9(PairSweep):
    name = "code/fig9"
    title = "One Reno against one Vegas / Vegas-A / NewVegas / CODE: bottleneck bandwidth sweep"
    ablations = (*QUICK_ABLATIONS, ns2_diff_ablation(quick=True))
    setup = (
        COMMON_SETUP + " Bottleneck bandwidth 5 to 50 Mb/s in steps of 5 (assumed), buffer 100 packets. "
        "Quick: 10 and 30 Mb/s."
    )
    x = "bandwidth_mbps"
    xlabel = "bottleneck bandwidth (Mb/s)"
    full_points = BANDWIDTHS
    quick_points = (10, 30)

    def scenario(self, variant, point, seed, duration):
        return code_scenario(["reno", variant], bandwidth_mbps=point, seed=seed, duration=duration)

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out, table = self.common_analysis(results, "the bottleneck bandwidth")
        out.claims += pair_claims(table, self.x, "bandwidth")
        code = variant_rows(table, "code")
        if len(code) and (code["ratio"] < 1 / PARITY).any():
            out.notes.append(CODE_YIELDS_NOTE)
        losses = loss_responses(results, self.x)
        out.tables["loss responses per flow from 50 s on, by bandwidth"] = losses
        ahead = variant_rows(table, "newvegas")
        ahead = ahead[ahead["ratio"] >= 1][self.x].tolist()
        if ahead:
            out.notes.append(newvegas_ahead_note(losses, ahead))
        return out


def loss_responses(results: Results, x: str) -> pd.DataFrame:
    """Mean loss responses (fast and early retransmits, timeouts) per run of the Reno flow and
    of the delay-based flow from MEASURE_FROM on, by ``x`` and variant."""
    rows = []
    for params, res in results:
        kinds = dict(zip(res.flows["id"], res.flows["cc"], strict=True))
        late = res.losses[res.losses["time"] >= MEASURE_FROM]
        counts = late["flow"].map(kinds).value_counts()
        rows.append(
            {x: params[x], "variant": params["variant"], **{k: counts.get(k, 0) for k in set(kinds.values())}}
        )
    t = pd.DataFrame(rows).groupby([x, "variant"]).mean()
    t["delay-based"] = [
        t.loc[i, v] for i, v in zip(t.index, t.index.get_level_values("variant"), strict=True)
    ]
    return t[["reno", "delay-based"]].reset_index()


def newvegas_ahead_note(losses: pd.DataFrame, ahead: list[Any]) -> str:
    """Why NewVegas passes Reno where it does, from the loss responses of those runs."""
    nv = losses[(losses["variant"] == "newvegas") & losses["bandwidth_mbps"].isin(ahead)]
    return (
        f"Where NewVegas gets more than Reno ({', '.join(f'{b:g}' for b in ahead)} Mb/s), it answers "
        f"{nv['delay-based'].mean():.1f} losses per run from 50 s on to Reno's {nv['reno'].mean():.1f}: "
        "the DropTail queue drops the packet that finds it full, mostly the extra packet of a window "
        "increase, and Reno increases every round while NewVegas does so every other round at most. "
        "NewVegas also cuts its window to 3/4 where Reno halves, and with a buffer (100 packets) "
        "smaller than the bandwidth-delay product at these rates Reno's halving leaves the link "
        "to NewVegas for a while. No reading of the threshold rule, of the RTT or of Delta's "
        "rounding keeps NewVegas below Reno here (checked by hand at 45 Mb/s, 6 runs per reading: "
        "ratios 1.16 to 2.11)."
    )


CODE_YIELDS_NOTE = (
    "Why CODE falls behind Reno at the higher bandwidths: CODE raises its thresholds only in a round "
    "whose RTT grew while its own window did not (section 3.2). Tracing a 50 Mb/s run (seed 3), once "
    "the queue holds about 88 packets CODE's window is above beta and shrinks by one packet per round "
    "while Reno's grows by one, so the queue and the RTT stay exactly constant; CODE sees no RTT "
    "growth, takes its thresholds down by one per round to alpha0 and keeps yielding a packet per round "
    "for tens of seconds (its window fell from 175 to 8 packets between 101 and 112 s without a loss). "
    "The more rounds a Reno cycle lasts (higher bandwidth-delay product), the longer this goes on. The "
    "decrease step also takes alpha below alpha0 after an epsilon scaling (1.42 - 1 = 0.42), as the "
    "pseudocode literally says."
)
