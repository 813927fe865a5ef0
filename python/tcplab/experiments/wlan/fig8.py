"""004 fig. 8: sixteen Reno uplinks under the four methods: unmodified, PIFS, split buffer,
ACK-loss reaction."""

from __future__ import annotations

from .. import register
from ..ablation import ack_loss_pause_ablation, stack_ablations
from ..base import Outcome
from ..common import claim, comparison
from .measure import decided, runs_note, with_ci
from .methods import MethodsExperiment
from .paper import FAIR_JAIN, FIG8_PUBLISHED, METHODS, PAPER_METHODS, SETUP


@register
class Fig8(MethodsExperiment):
    name = "wlan/fig8"
    title = "16 uplink Reno flows: unmodified, PIFS, split buffer, ACK-loss reaction"
    ablations = (
        *stack_ablations("bytes-growth", "delayed-ack"),
        ack_loss_pause_ablation(claims=("(d)", "four methods")),
    )
    setup = (
        SETUP + " 16 uplink Reno flows. (a) unmodified; (b) the AP uses PIFS instead of DIFS (ref. [12]; "
        "(b*) also without backoff); (c) AP buffer split into 50 data + 50 ACK packets with advertised "
        "window 160 (ref. [13]); (d) the ACK-loss reaction, thresh_ack_losses = 1. Full mode also runs "
        "every method with delayed ACKs, and (a) with a 100-packet station queue and with rwnd 1000."
    )
    up, down = 16, 0
    published = FIG8_PUBLISHED

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        table = self._tables(results, out)
        row = {k: self._row(table, k) for k in METHODS}
        totals = {k: row[k]["total_mbps"] for k in PAPER_METHODS if row[k] is not None}
        spread = 100 * (max(totals.values()) - min(totals.values())) / max(totals.values())
        out.comparison = comparison([(self.published[0], spread)])
        a, b, c, d = (row[k] for k in PAPER_METHODS)

        def fair(r):
            """Fair on the mean over seeds, with no flow starved in any run (None: no data)."""
            return decided(r, r["jain_up"] >= FAIR_JAIN and r["starved_up"] == 0, "jain_up", "starved_up")

        def unfair(r):
            f = fair(r)
            return None if f is None else not f

        def desc(r):
            return f"Jain {with_ci(r, 'jain_up')}, {r['starved_up']:.1f} starved per run{runs_note(r)}"

        out.claims += [
            claim(
                "(a) unmodified Reno: serious unfairness among uplinks (a starved flow or Jain < 0.9)",
                unfair(a),
                desc(a),
            ),
            claim("(b) PIFS at the AP alleviates it (Jain >= 0.9, no starved flow)", fair(b), desc(b)),
            claim("(c) the split buffer does not (unfair as (a))", unfair(c), desc(c)),
            claim("(d) the ACK-loss reaction alleviates it (Jain >= 0.9, no starved flow)", fair(d), desc(d)),
            claim(
                "The total throughput of the four methods differs by at most 10%",
                spread <= 10,
                ", ".join(f"({k}) {v:.2f}" for k, v in totals.items()) + f" Mb/s: {spread:.1f}%",
            ),
        ]
        bs = row["b*"]
        if bs is not None:
            out.notes.append(
                f"Second reading of [12], PIFS without AP backoff (b*): {desc(bs)}, total "
                f"{bs['total_mbps']:.2f} Mb/s."
            )
        dl = {k: self._row(table, k, "delayed ACKs") for k in PAPER_METHODS}
        sp = None
        if all(v is not None for v in dl.values()):
            t = {k: v["total_mbps"] for k, v in dl.items()}
            sp = 100 * (max(t.values()) - min(t.values())) / max(t.values())
            out.notes.append(
                "With delayed ACKs: "
                + ", ".join(f"({k}) {desc(v)}, {v['total_mbps']:.2f} Mb/s" for k, v in dl.items())
                + f"; spread of totals {sp:.1f}%."
            )
        out.notes.append(
            f"Total throughput and ACK thinning: unmodified Reno loses {a['ap_ack_drop_share']:.0%} of its "
            f"ACKs at the AP, so the AP sends {a['ap_frames_per_segment']:.2f} frames per delivered segment "
            f"and the stations get more of the channel for data ({a['total_mbps']:.2f} Mb/s); the ACK-loss "
            f"reaction keeps the AP queue short ({d['ap_acks_queued']:.0f} ACKs on average, "
            f"{d['ap_ack_drop_share']:.1%} dropped), so the AP sends {d['ap_frames_per_segment']:.2f} frames "
            f"per segment ({d['total_mbps']:.2f} Mb/s)."
            + (
                f" With delayed ACKs (one ACK per two segments) the totals differ by {sp:.1f}% instead of "
                f"{spread:.1f}%."
                if sp is not None
                else ""
            )
        )
        self._readings_note(table, out)
        return out
