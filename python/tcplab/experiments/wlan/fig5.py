"""004 fig. 5: sixteen CTCP uplinks: a starved flow, and the ACKs queued and dropped at the access
point."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from .. import register
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim, seeds_claim
from .measure import (
    ack_drops_per_second,
    decided,
    flow_table,
    per_flow_bars,
    run_summary,
    runs_note,
    seed_means,
    with_ci,
)
from .paper import (
    AP_BUFFER,
    MANY_ACK_DROPS,
    SETUP,
    STARVED_SHARE,
    cc_spec,
    duration_of,
    seeds_of,
    wlan_scenario,
)


@register
class Fig5(Experiment):
    name = "wlan/fig5"
    paper = "wlan"
    title = "16 uplink CTCP flows: a starved flow, ACKs queued and dropped at the AP"
    setup = SETUP + " 16 uplink CTCP flows; the event log gives the ACK drops at the AP over time."
    needs = ("topology:wlan", "cc:ctcp")

    def runs(self, quick: bool) -> list[Run]:
        return [
            Run(
                {"cc": "ctcp", "uplinks": 16, "seed": seed},
                wlan_scenario(16, 0, cc_spec("ctcp"), duration_of(quick), event_log=True, seed=seed),
            )
            for seed in seeds_of(quick)
        ]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        runs = [_SeedRun(p["seed"], res) for p, res in sorted(results, key=lambda pr: pr[0]["seed"])]
        if not runs:
            return out
        first = runs[0]
        out.figures.append(first.figure())
        out.figures.append(
            Figure(
                "per-flow",
                per_flow_bars([("16 CTCP uplinks", first.res)]),
                f"Throughput of each CTCP uplink flow (seed {first.seed})",
            )
        )
        per_seed = pd.DataFrame([r.row() for r in runs])
        out.tables["per seed"] = per_seed
        out.tables[f"flows (seed {first.seed})"] = first.flows()
        m = seed_means(per_seed.drop(columns="seed"), (), ("ap_acks_queued", "ap_ack_drop_share")).iloc[0]

        out.claims.append(
            seeds_claim(
                "Some uplink flows starve while the others keep a normal share",
                [r.some_starve() for r in runs],
                "; ".join(r.starve_text() for r in runs),
            )
        )
        out.claims.append(
            claim(
                "The AP buffer is full of ACKs (mean ACK occupancy >= 90% of its 100 packets)",
                decided(m, m["ap_acks_queued"] >= 0.9 * AP_BUFFER, "ap_acks_queued"),
                f"mean {with_ci(m, 'ap_acks_queued', 1)} ACKs queued over the measured window" + runs_note(m),
            )
        )
        out.claims.append(
            claim(
                f"Many ACKs are dropped at the AP (at least {MANY_ACK_DROPS:.0%} of the ACKs the "
                "receiver sent)",
                decided(m, m["ap_ack_drop_share"] >= MANY_ACK_DROPS, "ap_ack_drop_share"),
                f"{with_ci(m, 'ap_ack_drop_share', 1, percent=True)} of the ACKs dropped "
                f"({m['ap_ack_drops']:.0f} per run)" + runs_note(m),
            )
        )
        out.claims.append(
            seeds_claim(
                "The starved flow's cwnd stays small while the normal flow keeps its window (second half of "
                "the run)",
                [r.cwnd_stays_small() for r in runs],
                "; ".join(r.cwnd_text() for r in runs),
            )
        )
        out.claims.append(
            seeds_claim(
                "The starved flow sends almost no data (< 10% of the normal flow's segments)",
                [r.sends_almost_nothing() for r in runs],
                "; ".join(r.sends_text() for r in runs),
            )
        )
        if quick:
            out.notes.append(
                "Quick mode runs 30 s; in 004 the starved flow stops growing only after about 55 s, so the "
                "starvation claims need the full run."
            )
        return out


class _SeedRun:
    """One seed's run as 004's fig. 5 reads it: its slowest flow (starved_flow) against its
    median flow (normal_flow), their windows in the second half of the run and the segments
    each sent in the measured window (from the event log)."""

    def __init__(self, seed: int, res):
        self.seed, self.res = seed, res
        self.ft = flow_table(res)
        self.summary = run_summary(res)
        order = self.ft.sort_values("mbps").index.to_numpy()
        self.starved_i, self.normal_i = int(order[0]), int(order[len(order) // 2])
        ev = res.events
        start = res.meta["measure"][0]
        self.logged = bool(len(ev)) and bool((ev["event"] == "send").any())
        self.sends = ev[(ev["event"] == "send") & (ev["time"] >= start)].groupby("flow").size()
        self.late = res.meta["duration"] / 2
        series = res.series[res.series["time"] >= self.late]
        self.starved_cwnd = series[series["flow"] == self.starved_i]["cwnd"]
        self.normal_cwnd = series[series["flow"] == self.normal_i]["cwnd"]

    def row(self) -> dict:
        """The run's summary (measure.run_summary) and what the starved flow sent."""
        return {"seed": self.seed, **self.summary, "starved_sent": self.sent(self.starved_i)}

    def flows(self) -> pd.DataFrame:
        """The flow table with each flow's segments sent in the measured window."""
        return self.ft.assign(sent_in_window=[self.sent(i) for i in self.ft.index])

    def sent(self, flow: int) -> int:
        """Segments ``flow`` sent in the measured window, by the event log."""
        return int(self.sends.get(flow, 0))

    def fair(self) -> float:
        """The fair share: total throughput over the flows (Mb/s)."""
        return self.summary["total_mbps"] / len(self.ft)

    def median(self) -> float:
        """The median flow's throughput (Mb/s)."""
        return float(self.ft["mbps"].median())

    def some_starve(self) -> bool:
        """A flow below STARVED_SHARE of the fair share while the median flow keeps at least
        half of it."""
        return self.summary["starved_up"] >= 1 and self.median() >= 0.5 * self.fair()

    def starve_text(self) -> str:
        """The figures :meth:`some_starve` decides on."""
        return (
            f"seed {self.seed}: {self.summary['starved_up']} of {len(self.ft)} below "
            f"{STARVED_SHARE:.0%} of the fair share ({self.fair():.2f} Mb/s), median {self.median():.2f}"
        )

    def cwnd_stays_small(self) -> bool | None:
        """The starved flow's largest window stays below the normal flow's mean (second half);
        None without samples."""
        if not len(self.starved_cwnd) or not len(self.normal_cwnd):
            return None
        return float(self.starved_cwnd.max()) < float(self.normal_cwnd.mean())

    def cwnd_text(self) -> str:
        """The figures :meth:`cwnd_stays_small` decides on."""
        return (
            f"seed {self.seed} after {self.late:.0f} s: starved max {self.starved_cwnd.max():.1f}, "
            f"normal mean {self.normal_cwnd.mean():.1f}"
        )

    def sends_almost_nothing(self) -> bool | None:
        """The starved flow sent under a tenth of the normal flow's segments; None when the
        event log holds no sends (nothing to count)."""
        if not self.logged:
            return None
        return self.sent(self.starved_i) < 0.1 * max(self.sent(self.normal_i), 1)

    def sends_text(self) -> str:
        """The figures :meth:`sends_almost_nothing` decides on."""
        return f"seed {self.seed}: starved {self.sent(self.starved_i)}, normal {self.sent(self.normal_i)}"

    def figure(self) -> Figure:
        """004's fig. 5 from this run: the two windows, the AP's ACK queue and its ACK drops."""
        res, ft = self.res, self.ft
        fig, (a, b, c) = plt.subplots(3, 1, figsize=(6.4, 7.2), sharex=True)
        for i, lab, col in ((self.normal_i, "normal_flow", "C0"), (self.starved_i, "starved_flow", "C3")):
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
            ([self.normal_i], "normal_flow", "C0"),
            ([self.starved_i], "starved_flow", "C3"),
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
        return Figure(
            "starvation", fig, f"Fig. 5: 16 uplink CTCP flows, a normal and a starved flow (seed {self.seed})"
        )
