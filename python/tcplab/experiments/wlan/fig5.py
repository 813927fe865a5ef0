"""004 fig. 5: sixteen CTCP uplinks: a starved flow, and the ACKs queued and dropped at the access
point."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from .. import register
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim
from .measure import ack_drops_per_second, flow_table, per_flow_bars, run_summary
from .paper import AP_BUFFER, SETUP, STARVED_SHARE, cc_spec, duration_of, wlan_scenario


@register
class Fig5(Experiment):
    name = "wlan/fig5"
    paper = "wlan"
    title = "16 uplink CTCP flows: a starved flow, ACKs queued and dropped at the AP"
    setup = SETUP + " 16 uplink CTCP flows; the event log gives the ACK drops at the AP over time."
    needs = ("topology:wlan", "cc:ctcp")

    def runs(self, quick: bool) -> list[Run]:
        sc = wlan_scenario(16, 0, cc_spec("ctcp"), duration_of(quick), event_log=True)
        return [Run({"cc": "ctcp", "uplinks": 16}, sc)]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        ((_, res),) = results
        ft = flow_table(res)
        s = run_summary(res)
        order = ft.sort_values("mbps").index.to_numpy()
        starved_i, normal_i = int(order[0]), int(order[len(order) // 2])
        start = res.meta["measure"][0]
        ev = res.events
        sends = ev[(ev["event"] == "send") & (ev["time"] >= start)].groupby("flow").size()

        fig, (a, b, c) = plt.subplots(3, 1, figsize=(6.4, 7.2), sharex=True)
        for i, lab, col in ((normal_i, "normal_flow", "C0"), (starved_i, "starved_flow", "C3")):
            sr = res.series[res.series["flow"] == i]
            a.plot(sr["time"], sr["cwnd"], color=col, lw=0.8, label=f"{lab} ({ft.loc[i, 'flow']})")
        a.set_ylabel("cwnd (packets)")
        a.set_title("(a) congestion window", fontsize=9)
        a.legend(fontsize=7)
        b.plot(res.ap_queue["time"], res.ap_queue["acks"], color="C2", lw=0.8)
        b.axhline(AP_BUFFER, color="grey", ls=":", lw=0.8)
        b.set_ylabel("ACKs at the AP")
        b.set_title("(b) TCP ACKs queued at the AP (all flows)", fontsize=9)
        for flows, lab, col in (
            (None, "all flows", "grey"),
            ([normal_i], "normal_flow", "C0"),
            ([starved_i], "starved_flow", "C3"),
        ):
            t, n = ack_drops_per_second(res, flows)
            c.plot(t, n, lw=0.8, color=col, label=lab)
        c.set_ylabel("ACKs dropped / s")
        c.set_xlabel("time (s)")
        c.set_title("(c) ACKs dropped at the AP per second", fontsize=9)
        c.legend(fontsize=7)
        for ax in (a, b, c):
            ax.grid(True, alpha=0.3)
        fig.tight_layout()
        out.figures.append(
            Figure("starvation", fig, "Fig. 5: 16 uplink CTCP flows, a normal and a starved flow")
        )
        out.figures.append(
            Figure(
                "per-flow", per_flow_bars([("16 CTCP uplinks", res)]), "Throughput of each CTCP uplink flow"
            )
        )
        out.tables["summary"] = pd.DataFrame([s])
        out.tables["flows"] = ft.assign(sent_in_window=[int(sends.get(i, 0)) for i in ft.index])

        n = len(ft)
        fair = s["total_mbps"] / n
        med = float(ft["mbps"].median())
        out.claims.append(
            claim(
                "Some uplink flows starve while the others keep a normal share",
                s["starved_up"] >= 1 and med >= 0.5 * fair,
                f"{s['starved_up']} of {n} flows below {STARVED_SHARE:.0%} of the fair share "
                f"({fair:.2f} Mb/s); median flow {med:.2f} Mb/s",
            )
        )
        out.claims.append(
            claim(
                "The AP buffer is full of ACKs (mean ACK occupancy >= 90% of its 100 packets)",
                s["ap_acks_queued"] >= 0.9 * AP_BUFFER,
                f"mean {s['ap_acks_queued']:.1f} ACKs queued over the measured window",
            )
        )
        out.claims.append(
            claim(
                "Many ACKs are dropped at the AP",
                s["ap_ack_drops"] > 0,
                f"{s['ap_ack_drops']} ACKs dropped, {s['ap_ack_drop_share']:.0%} of the ACKs the "
                "receiver sent",
            )
        )
        late = res.meta["duration"] / 2
        sr = res.series[(res.series["flow"] == starved_i) & (res.series["time"] >= late)]
        nr = res.series[(res.series["flow"] == normal_i) & (res.series["time"] >= late)]
        out.claims.append(
            claim(
                "The starved flow's cwnd stays small while the normal flow keeps its window (second half of "
                "the run)",
                float(sr["cwnd"].max()) < float(nr["cwnd"].mean()),
                f"after {late:.0f} s: starved max cwnd {sr['cwnd'].max():.1f}, normal mean cwnd "
                f"{nr['cwnd'].mean():.1f}",
            )
        )
        sent_s, sent_n = int(sends.get(starved_i, 0)), int(sends.get(normal_i, 0))
        out.claims.append(
            claim(
                "The starved flow sends almost no data (< 10% of the normal flow's segments)",
                sent_s < 0.1 * max(sent_n, 1),
                f"segments sent in the measured window: starved {sent_s}, normal {sent_n}",
            )
        )
        if quick:
            out.notes.append(
                "Quick mode runs 30 s; in 004 the starved flow stops growing only after about 55 s, so the "
                "starvation claims need the full run."
            )
        return out
