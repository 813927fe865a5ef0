"""004 fig. 10: eight uplink and eight downlink Reno flows under the four methods."""

from __future__ import annotations

import numpy as np

from .. import register
from ..ablation import ack_loss_pause_ablation, pifs_backoff_ablation, stack_ablations
from ..base import Outcome
from ..common import claim
from .measure import decided, runs_note, with_ci
from .methods import MethodsExperiment
from .paper import FAIR_JAIN, METHODS, PAPER_METHODS, SETUP, UNFAIR_RATIO


@register
class Fig10(MethodsExperiment):
    name = "wlan/fig10"
    title = "8 uplink + 8 downlink Reno flows: unmodified, PIFS, split buffer, ACK-loss reaction"
    ablations = (
        pifs_backoff_ablation(),
        *stack_ablations("bytes-growth", "delayed-ack"),
        ack_loss_pause_ablation(claims=("(d)",)),
    )
    setup = (
        SETUP + " 8 uplink and 8 downlink Reno flows, stations at 4 m; methods (a)-(d) as fig. 8 (and (b*)). "
        "Full mode also runs every method with delayed ACKs, and (a) with a 100-packet station queue and "
        "with rwnd 1000."
    )
    up, down = 8, 8

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        table = self._tables(results, out)
        row = {k: self._row(table, k) for k in METHODS}
        a, b, c, d = (row[k] for k in PAPER_METHODS)

        def ratio(r):
            """The mean rates over seeds and their ratio."""
            up, down = r["up_mean_mbps"], r["down_mean_mbps"]
            return f"up {up:.2f}, down {down:.3f} Mb/s (ratio {r['up_over_down']:.2f}{runs_note(r)})"

        out.claims += [
            claim(
                f"(a) unmodified: uplinks get at least {UNFAIR_RATIO:g}x the downlinks",
                decided(a, a["up_over_down"] >= UNFAIR_RATIO, "up_over_down"),
                ratio(a),
            ),
            claim(
                f"(a) unmodified: also unfair among the uplinks (a starved uplink or Jain < {FAIR_JAIN})",
                decided(a, a["starved_up"] > 0 or a["jain_up"] < FAIR_JAIN, "starved_up", "jain_up"),
                f"uplink Jain {with_ci(a, 'jain_up')}, {a['starved_up']:.1f} starved per run",
            ),
            claim(
                f"(b) PIFS improves fairness between uplink and downlink (ratio < {UNFAIR_RATIO:g})",
                decided(b, b["up_over_down"] < UNFAIR_RATIO, "up_over_down"),
                ratio(b),
            ),
            claim(
                f"(c) split buffer: unfair among uplinks (starved uplink or Jain < {FAIR_JAIN}) but "
                "fair among "
                f"downlinks (Jain >= {FAIR_JAIN})",
                decided(
                    c,
                    (c["starved_up"] > 0 or c["jain_up"] < FAIR_JAIN) and c["jain_down"] >= FAIR_JAIN,
                    "starved_up",
                    "jain_up",
                    "jain_down",
                ),
                f"uplink Jain {with_ci(c, 'jain_up')} ({c['starved_up']:.1f} starved per run), downlink Jain "
                f"{with_ci(c, 'jain_down')}",
            ),
            claim(
                "(d) ACK-loss reaction improves fairness between uplink and downlink (ratio < "
                f"{UNFAIR_RATIO:g})",
                decided(d, d["up_over_down"] < UNFAIR_RATIO, "up_over_down"),
                ratio(d),
            ),
            claim(
                "(d) the downlinks get only slightly less than the uplinks (down/up between 0.75 and 1)",
                decided(d, 0.75 <= 1 / d["up_over_down"] <= 1, "up_over_down"),
                ratio(d),
            ),
        ]
        cuts, cuts_a = self._window_cuts(results, "d"), self._window_cuts(results, "a")
        bs = row["b*"]
        if bs is not None:
            out.notes.append(
                f"Second reading of [12], PIFS without AP backoff (b*): {ratio(bs)}, Jain "
                f"{bs['jain_all']:.3f}."
            )
        dl = [self._row(table, k, "delayed ACKs") for k in PAPER_METHODS]
        if all(v is not None for v in dl):
            out.notes.append(
                "With delayed ACKs: "
                + "; ".join(f"({k}) {ratio(v)}" for k, v in zip(PAPER_METHODS, dl, strict=True))
                + "."
            )
        out.notes.append(
            f"In (a) the AP drops {a['ap_down_data_drop_share']:.0%} of the downlink data segments it "
            f"receives (its queue holds {a['ap_acks_queued']:.0f} uplink ACKs on average), and each "
            f"downlink flow spends the run in backed-off timeouts ({cuts_a.get('down_timeouts', np.nan):.0f} "
            "per flow). In (d) the AP drops "
            f"{d['ap_down_data_drop_share']:.1%} of the downlink segments and "
            f"{d['ap_ack_drop_share']:.1%} of the uplinks' ACKs; a single lost segment halves a "
            "downlink's window while an uplink reacts only to more than thresh_ack_losses = 1 lost ACKs "
            "in a window. Per flow over the run: "
            f"{cuts.get('up_ack_cuts', float('nan')):.0f} ACK-loss reductions and "
            f"{cuts.get('up_loss_responses', float('nan')):.0f} data-loss responses per uplink, "
            f"{cuts.get('down_loss_responses', float('nan')):.0f} data-loss responses per downlink, "
            f"{cuts.get('down_timeouts', float('nan')):.0f} of them timeouts (Reno recovery after several "
            "losses in one window)."
        )
        self._readings_note(table, out)
        return out
