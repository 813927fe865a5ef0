"""004 fig. 6: sixteen Vegas uplinks keep a steady number of ACKs queued at the access point and
lose none."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from .. import register
from ..ablation import vegas_ns2_module_ablation
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim, comparison
from .measure import ack_drops_per_second, per_flow_bars, run_summary
from .paper import CC, FAIR_JAIN, FIG6_PUBLISHED, SETUP, cc_spec, duration_of, wlan_scenario


@register
class Fig6(Experiment):
    name = "wlan/fig6"
    paper = "wlan"
    title = "16 uplink Vegas flows: ACKs queued at the AP"
    setup = SETUP + " 16 uplink Vegas flows (Linux variant, alpha 2, beta 4)."
    needs = ("topology:wlan", "cc:vegas")
    ablations = (vegas_ns2_module_ablation(),)
    published = FIG6_PUBLISHED

    def runs(self, quick: bool) -> list[Run]:
        sc = wlan_scenario(16, 0, cc_spec("vegas"), duration_of(quick), event_log=True)
        return [Run({"cc": "vegas", "uplinks": 16}, sc)]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        ((_, res),) = results
        s = run_summary(res)
        start = res.meta["measure"][0]
        q = res.ap_queue[res.ap_queue["time"] >= start]["acks"].to_numpy(dtype=float)
        t, drops = ack_drops_per_second(res)
        late_drops = int(drops[t >= start].sum())
        fig, (a, b) = plt.subplots(2, 1, figsize=(6.4, 5.0), sharex=True)
        a.plot(res.ap_queue["time"], res.ap_queue["acks"], color="C2", lw=0.8, label="tcplab")
        pub = self.published[0].value
        a.axhline(pub, color="k", ls="--", lw=0.8, label=f"004: about {pub:g}")
        a.set_ylabel("ACKs at the AP")
        a.legend(fontsize=7)
        b.plot(t, drops, color="C3", lw=0.8)
        b.set_ylabel("ACKs dropped / s")
        b.set_xlabel("time (s)")
        for ax in (a, b):
            ax.grid(True, alpha=0.3)
        fig.tight_layout()
        out.figures.append(
            Figure(
                "ap-acks",
                fig,
                "Fig. 6: TCP ACKs queued (top) and dropped (bottom) at the AP, 16 Vegas uplinks",
            )
        )
        out.figures.append(
            Figure(
                "per-flow", per_flow_bars([("16 Vegas uplinks", res)]), "Throughput of each Vegas uplink flow"
            )
        )
        out.tables["summary"] = pd.DataFrame(
            [{**s, "ap_ack_drops_in_window": late_drops, "ap_acks_std": float(q.std())}]
        )
        v, n = CC["vegas"], len(res.flows)
        lo, hi = n * v["alpha"], n * v["beta"]

        def where(x: float) -> str:
            return "inside" if lo <= x <= hi else "outside"

        out.notes.append(
            f"Each Vegas flow keeps alpha..beta = {v['alpha']}..{v['beta']} packets queued at its "
            f"bottleneck, so {n} flows aim for {lo}..{hi}; the uplinks' bottleneck queue is the AP's ACK "
            f"queue. Ours settles at {s['ap_acks_queued']:.1f} ({where(s['ap_acks_queued'])} that range), "
            f"004's at about {pub:g} ({where(pub)})."
        )
        out.comparison = comparison(
            zip(
                self.published,
                (s["ap_acks_queued"], float(s["ap_ack_drops"]), float(late_drops)),
                strict=True,
            )
        )
        out.claims.append(
            claim(
                "No ACK is lost at the AP once the flows have settled (measured window)",
                late_drops == 0,
                f"{late_drops} dropped after {start:.0f} s, {s['ap_ack_drops']} over the whole run",
            )
        )
        out.claims.append(
            claim(
                "The number of queued ACKs stays about constant (coefficient of variation < 0.25)",
                q.size > 0 and q.std() < 0.25 * q.mean(),
                f"mean {q.mean():.1f}, std {q.std():.1f}",
            )
        )
        out.claims.append(
            claim(
                f"No unfairness among the Vegas uplinks (Jain >= {FAIR_JAIN}, no starved flow)",
                s["jain_up"] >= FAIR_JAIN and s["starved_up"] == 0,
                f"Jain {s['jain_up']:.3f}, {s['starved_up']} starved",
            )
        )
        return out
