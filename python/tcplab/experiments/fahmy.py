"""Fahmy & Sharma, "Deployment considerations for the TCP Vegas congestion control
algorithm" (Purdue TR 03-022, 2003): Reno vs Vegas on a 0.5 Mb/s bottleneck.

Topology (fig. 1): n0, n1 -> r1 -> r2 -> n2, n3; every link 5 Mb/s and 2 ms except the
0.5 Mb/s bottleneck(s). Reno runs n0 -> n3, Vegas n1 -> n2. Assumed (the paper does not
say): 1000-byte packets and a 20-packet receiver window (NS-2 defaults; the paper itself
says throughput stops changing above 25 packets of buffer "because the sender cannot send
faster than the receiver advertised window"), no delayed ACKs, 100 s, both flows start at
0. Throughput at t0 is bytes received in [0, t0] / t0; we report t0 = 100 s.
"""

from __future__ import annotations

from typing import Any

from ..result import Result
from ..scenario import Scenario
from . import register
from .base import Experiment, Figure, Outcome, Published, Run
from .common import claim, comparison, every, figure, flows_frame

SOURCE = "002, table {}"
DURATION = 100.0
QUICK_DURATION = 40.0


def fahmy_scenario(
    buffer: int,
    hops: int = 1,
    queue: dict[str, Any] | None = None,
    flows=("reno", "vegas"),
    duration: float = DURATION,
) -> Scenario:
    """The fig. 1 topology with ``hops`` identical bottleneck links; flows in the order
    Reno (n0 -> n3 = s0 -> d1) and Vegas (n1 -> n2 = s1 -> d0), or a subset."""
    hop: dict[str, Any] = {"rate": "0.5Mbps", "delay": "2ms", "buffer": buffer}
    if queue:
        hop["queue"] = queue
    sc = Scenario.chain(
        hops=hops,
        pairs=2,
        hop=hop,
        access={"rate": "5Mbps", "delay": "2ms", "buffer": 1000},
        duration=duration,
        sample_interval=0.5,
    )
    sc.set_tcp(mss=1000, rwnd=20)
    ends = {"reno": ("s0", "d1"), "vegas": ("s1", "d0")}
    for cc in flows:
        src, dst = ends[cc]
        sc.add_flow(src, dst, cc=cc, name=cc)
    return sc


def _kbps(res: Result, cc: str) -> float:
    f = res.flows[res.flows["name"] == cc]
    return float(f["goodput_bps"].iloc[0]) / 1e3 if len(f) else float("nan")


def _pair_table(results: list[tuple[dict[str, Any], Result]], key: str) -> list[dict[str, Any]]:
    rows = []
    for params, res in results:
        rows.append(
            {
                key: params[key],
                "reno_kbps": _kbps(res, "reno"),
                "vegas_kbps": _kbps(res, "vegas"),
                "reno_drops": int(res.flows.filter(like="data_drops_").iloc[0].sum()),
                "vegas_drops": int(res.flows.filter(like="data_drops_").iloc[-1].sum()),
            }
        )
    return sorted(rows, key=lambda r: r[key])


@register
class Fig1(Experiment):
    name = "fahmy/fig1-2"
    paper = "fahmy"
    title = "Reno alone, then Vegas alone, 64-packet DropTail queue"
    setup = "One flow at a time on the fig. 1 topology; queue 64; 100 s; throughput vs time."
    needs = ("cc:vegas",)

    def runs(self, quick: bool) -> list[Run]:
        d = QUICK_DURATION if quick else DURATION
        return [Run({"flow": cc}, fahmy_scenario(64, flows=(cc,), duration=d)) for cc in ("reno", "vegas")]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)

        def plot(ax):
            for params, res in results:
                s = res.series
                t = s["time"].to_numpy()
                thr = s["bytes_delivered"].to_numpy() * 8 / 1e3 / t.clip(min=1e-9)
                ax.plot(t, thr, label=params["flow"])

        out.figures = [
            Figure(
                "throughput",
                figure(plot, "time (s)", "throughput since 0 (kb/s)"),
                "Throughput at t (bytes received in [0, t] / t) of a lone Reno and a lone Vegas flow",
            )
        ]
        table = flows_frame(results)[["flow", "goodput_bps", "retransmissions", "timeouts"]]
        drops = flows_frame(results).filter(like="data_drops_").sum(axis=1)
        table = table.assign(goodput_kbps=table["goodput_bps"] / 1e3, drops=drops).drop(columns="goodput_bps")
        out.tables["lone flows"] = table
        vegas = table[table["flow"] == "vegas"].iloc[0]
        out.claims.append(
            claim("Vegas alone has no losses", vegas["drops"] == 0, f"{int(vegas['drops'])} drops")
        )
        return out


@register
class Fig3(Experiment):
    name = "fahmy/fig3"
    paper = "fahmy"
    title = "Reno and Vegas together: DropTail buffer sweep (table 2)"
    setup = (
        "Reno n0->n3 and Vegas n1->n2 together on the fig. 1 topology; DropTail queue of 6, 9, 15, 25 "
        "and 50 packets at the bottleneck; throughput over [0, 100] s."
    )
    needs = ("cc:vegas",)
    buffers = (6, 9, 15, 25, 50)
    published = tuple(
        Published(f"{kind} throughput, queue {b}", v, "kb/s", SOURCE.format(2))
        for b, (r, vg) in {6: (231, 269), 9: (232, 267), 15: (374, 125), 25: (435, 66), 50: (435, 66)}.items()
        for kind, v in (("Reno", r), ("Vegas", vg))
    )

    def runs(self, quick: bool) -> list[Run]:
        d = QUICK_DURATION if quick else DURATION
        return [Run({"buffer": b}, fahmy_scenario(b, duration=d)) for b in self.buffers]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        rows = _pair_table(results, "buffer")
        import pandas as pd

        table = pd.DataFrame(rows)
        out.tables["throughput by buffer (kb/s)"] = table
        ours = {(f"Reno throughput, queue {r['buffer']}"): r["reno_kbps"] for r in rows}
        ours |= {(f"Vegas throughput, queue {r['buffer']}"): r["vegas_kbps"] for r in rows}
        out.comparison = comparison((p, ours[p.quantity]) for p in self.published if p.quantity in ours)

        def plot(ax):
            ax.plot(table["buffer"], table["reno_kbps"], "o-", label="Reno (tcplab)")
            ax.plot(table["buffer"], table["vegas_kbps"], "s-", label="Vegas (tcplab)")
            pub = {
                b: (r, v)
                for b, (r, v) in {
                    6: (231, 269),
                    9: (232, 267),
                    15: (374, 125),
                    25: (435, 66),
                    50: (435, 66),
                }.items()
            }
            ax.plot(
                list(pub),
                [v[0] for v in pub.values()],
                "o--",
                color="C0",
                alpha=0.5,
                label="Reno (published)",
            )
            ax.plot(
                list(pub),
                [v[1] for v in pub.values()],
                "s--",
                color="C1",
                alpha=0.5,
                label="Vegas (published)",
            )

        out.figures.append(
            Figure(
                "buffer",
                figure(plot, "bottleneck queue (packets)", "throughput (kb/s)"),
                "Reno vs Vegas throughput against the DropTail buffer, "
                "ours (solid) and 002's table 2 (dashed)",
            )
        )
        first, last = rows[0], rows[-1]
        out.claims.append(
            claim(
                "Reno's throughput grows with the buffer size",
                last["reno_kbps"] > first["reno_kbps"],
                f"{first['reno_kbps']:.0f} kb/s at {first['buffer']} -> "
                f"{last['reno_kbps']:.0f} at {last['buffer']}",
            )
        )
        small = [r for r in rows if r["buffer"] <= 9]
        out.claims.append(
            claim(
                "With small buffers (6, 9) Vegas gets at least as much as Reno",
                every(r["vegas_kbps"] >= r["reno_kbps"] for r in small),
                ", ".join(f"{r['buffer']}: {r['vegas_kbps']:.0f} vs {r['reno_kbps']:.0f}" for r in small),
            )
        )
        big = [r for r in rows if r["buffer"] >= 25]
        out.claims.append(
            claim(
                "From 25 packets on, Reno takes most of the link",
                every(r["reno_kbps"] > 2 * r["vegas_kbps"] for r in big),
            )
        )
        return out


@register
class Fig4(Experiment):
    name = "fahmy/fig4"
    paper = "fahmy"
    title = "DropTail vs RED at a 64-packet queue (table 3)"
    setup = (
        "Reno and Vegas together, queue 64; DropTail, then RED with NS-2's defaults (thresh 5, maxthresh 15, "
        "q_weight 0.002, linterm 10, wait_ on)."
    )
    needs = ("cc:vegas", "queue:red")
    published = (
        Published("DropTail: Reno throughput", 435, "kb/s", SOURCE.format(3)),
        Published("DropTail: Vegas throughput", 65, "kb/s", SOURCE.format(3)),
        Published("RED: Reno throughput", 310, "kb/s", SOURCE.format(3)),
        Published("RED: Vegas throughput", 190, "kb/s", SOURCE.format(3)),
    )

    def runs(self, quick: bool) -> list[Run]:
        d = QUICK_DURATION if quick else DURATION
        red = {"kind": "red", "min_th": 5, "max_th": 15, "w_q": 0.002, "max_p": 0.1, "wait": True}
        return [
            Run({"queue": "DropTail"}, fahmy_scenario(64, duration=d)),
            Run({"queue": "RED"}, fahmy_scenario(64, queue=red, duration=d)),
        ]

    def analyze(self, results, quick) -> Outcome:
        import pandas as pd

        out = Outcome(self)
        rows = _pair_table(results, "queue")
        out.tables["throughput (kb/s)"] = pd.DataFrame(rows)
        ours = {}
        for r in rows:
            ours[f"{r['queue']}: Reno throughput"] = r["reno_kbps"]
            ours[f"{r['queue']}: Vegas throughput"] = r["vegas_kbps"]
        out.comparison = comparison((p, ours[p.quantity]) for p in self.published)
        by = {r["queue"]: r for r in rows}
        share = {q: r["vegas_kbps"] / (r["reno_kbps"] + r["vegas_kbps"]) for q, r in by.items()}
        out.claims.append(
            claim(
                "RED gives Vegas a larger share than DropTail",
                share["RED"] > share["DropTail"],
                f"Vegas share {share['DropTail']:.2f} (DropTail) vs {share['RED']:.2f} (RED)",
            )
        )
        return out


class _Hops(Experiment):
    paper = "fahmy"
    needs = ("cc:vegas",)
    hops: tuple[int, ...] = ()
    buffer = 6

    def runs(self, quick: bool) -> list[Run]:
        d = QUICK_DURATION if quick else DURATION
        return [Run({"hops": h}, fahmy_scenario(self.buffer, hops=h, duration=d)) for h in self.hops]

    def analyze(self, results, quick) -> Outcome:
        import pandas as pd

        out = Outcome(self)
        rows = _pair_table(results, "hops")
        table = pd.DataFrame(rows)
        out.tables["throughput by hop count (kb/s)"] = table
        ours = {f"Reno throughput, {r['hops']} hops": r["reno_kbps"] for r in rows}
        ours |= {f"Vegas throughput, {r['hops']} hops": r["vegas_kbps"] for r in rows}
        out.comparison = comparison((p, ours[p.quantity]) for p in self.published if p.quantity in ours)

        def plot(ax):
            ax.plot(table["hops"], table["reno_kbps"], "o-", label="Reno")
            ax.plot(table["hops"], table["vegas_kbps"], "s-", label="Vegas")

        out.figures.append(
            Figure(
                "hops",
                figure(plot, "bottleneck hops", "throughput (kb/s)"),
                f"Reno vs Vegas against the number of {self.buffer}-packet bottleneck hops",
            )
        )
        return out


@register
class Table4(_Hops):
    name = "fahmy/table4"
    title = "2 to 5 bottleneck hops, queue 6 (table 4)"
    setup = "As fig. 3 with 2, 3, 4 and 5 identical 0.5 Mb/s hops, each with a 6-packet DropTail queue."
    hops = (2, 3, 4, 5)
    published = tuple(
        Published(f"{kind} throughput, {h} hops", v, "kb/s", SOURCE.format(4))
        for h, (r, vg) in {2: (232, 268), 3: (162, 338), 4: (194, 306), 5: (173, 327)}.items()
        for kind, v in (("Reno", r), ("Vegas", vg))
    )

    def analyze(self, results, quick) -> Outcome:
        out = super().analyze(results, quick)
        t = out.tables["throughput by hop count (kb/s)"]
        out.claims.append(
            claim(
                "With 6-packet queues Vegas gets more than Reno at every hop count",
                every(t["vegas_kbps"] > t["reno_kbps"]),
            )
        )
        return out


@register
class Table5(_Hops):
    name = "fahmy/table5"
    title = "2, 4 and 5 bottleneck hops, queue 64 (table 5)"
    setup = (
        'As table 4 with 64-packet queues. The published values are in doubtful units ("5 Kbps"), so only '
        "ours are reported."
    )
    hops = (2, 4, 5)
    buffer = 64

    def analyze(self, results, quick) -> Outcome:
        out = super().analyze(results, quick)
        out.notes.append(
            '002 prints this table in units we cannot interpret ("5 Kbps"); no comparison is made.'
        )
        return out
