"""Fahmy & Sharma, "Deployment considerations for the TCP Vegas congestion control
algorithm" (Purdue TR 03-022, 2003): Reno vs Vegas on a 0.5 Mb/s bottleneck.

Topology (fig. 1): n0, n1 -> r1 -> r2 -> n2, n3; every link 5 Mb/s and 2 ms except the
0.5 Mb/s bottleneck(s). Reno runs n0 -> n3, Vegas n1 -> n2. Assumed (the paper does not
say): 1000-byte packets and a 20-packet receiver window (NS-2 defaults; the paper itself
says throughput stops changing above 25 packets of buffer "because the sender cannot send
faster than the receiver advertised window"), no delayed ACKs, 100 s. Throughput at t0 is
bytes received in [0, t0] / t0; we report t0 = 100 s.

002 reports one deterministic run per point. With Reno and Vegas together the outcome of
such a run hinges on its phase: Vegas holds its window wherever its queue estimate Diff lies
between alpha and beta, a band several packets wide on this slow link, and which window of
the band it settles on depends on how the flows met. So every two-flow point is repeated
with both flows starting at a random time in [0, 1] s (20 seeds; quick: 3), reported as the
mean with a 95% interval, and with the number of runs in which Vegas is ahead.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..analysis.stats import mean_ci
from ..result import Result
from ..scenario import Scenario
from . import register
from .base import Claim, Experiment, Figure, Outcome, Published, Run
from .common import claim, comparison, every, figure, flows_frame

SOURCE = "002, table {}"
DURATION = 100.0
QUICK_DURATION = 40.0
#: Start phases of the two-flow experiments: seeds, and the window of random start times (s).
SEEDS = tuple(range(1, 21))
QUICK_SEEDS = (1, 2, 3)
START_WINDOW = 1.0


def _seeds(quick: bool) -> tuple[int, ...]:
    return QUICK_SEEDS if quick else SEEDS


def fahmy_scenario(
    buffer: int,
    hops: int = 1,
    queue: dict[str, Any] | None = None,
    flows=("reno", "vegas"),
    duration: float = DURATION,
    seed: int = 1,
    start_window: float = 0.0,
) -> Scenario:
    """The fig. 1 topology with ``hops`` identical bottleneck links; flows in the order
    Reno (n0 -> n3 = s0 -> d1) and Vegas (n1 -> n2 = s1 -> d0), or a subset; each flow starts
    at a random time in [0, ``start_window``] s (at 0 if the window is 0)."""
    hop: dict[str, Any] = {"rate": "0.5Mbps", "delay": "2ms", "buffer": buffer}
    if queue:
        hop["queue"] = queue
    sc = Scenario.chain(
        hops=hops,
        pairs=2,
        hop=hop,
        access={"rate": "5Mbps", "delay": "2ms", "buffer": 1000},
        duration=duration,
        seed=seed,
        sample_interval=0.5,
    )
    sc.set_tcp(mss=1000, rwnd=20)
    ends = {"reno": ("s0", "d1"), "vegas": ("s1", "d0")}
    timing = {"start": {"uniform": [0.0, start_window]}} if start_window > 0 else {}
    for cc in flows:
        src, dst = ends[cc]
        sc.add_flow(src, dst, cc=cc, name=cc, **timing)
    return sc


def _pair_runs(key: str, values: tuple[Any, ...], quick: bool, **options: Any) -> list[Run]:
    """Reno and Vegas together at each of ``values`` of ``key`` (a keyword of
    :func:`fahmy_scenario`), once per start phase."""
    d = QUICK_DURATION if quick else DURATION
    return [
        Run(
            {key: v, "seed": seed},
            fahmy_scenario(**{key: v, **options}, duration=d, seed=seed, start_window=START_WINDOW),
        )
        for v in values
        for seed in _seeds(quick)
    ]


def _kbps(res: Result, cc: str) -> float:
    f = res.flows[res.flows["name"] == cc]
    return float(f["goodput_bps"].iloc[0]) / 1e3 if len(f) else float("nan")


def _settled_cwnd(res: Result, cc: str) -> float:
    """The flow's mean window over the second half of the run, packets: where Vegas settled."""
    idx = res.flows.index[res.flows["name"] == cc]
    if not len(idx) or res.series.empty:
        return float("nan")
    s = res.series[res.series["flow"] == int(idx[0])]
    s = s[s["time"] >= s["time"].max() / 2]
    return float(s["cwnd"].mean()) if len(s) else float("nan")


def _share_in_band(res: Result) -> float:
    """The share of Vegas's Diff samples over the second half of the run that lie inside its
    [alpha, beta] band, where Vegas holds its window (NaN without samples)."""
    cv = res.cc_vars
    if cv.empty:
        return float("nan")
    late = cv[cv["time"] >= cv["time"].max() / 2]
    diff = late.loc[late["name"] == "diff", "value"]
    alpha = cv.loc[cv["name"] == "alpha", "value"]
    beta = cv.loc[cv["name"] == "beta", "value"]
    if diff.empty or alpha.empty or beta.empty:
        return float("nan")
    return float(diff.between(alpha.iloc[-1], beta.iloc[-1]).mean())


def _run_table(results: list[tuple[dict[str, Any], Result]], key: str) -> pd.DataFrame:
    """One row per run: both flows' throughput and drops, Vegas's settled window and how much
    of the second half its Diff spent inside the alpha-beta band."""
    rows = []
    for params, res in results:
        drops = res.flows.filter(like="data_drops_").sum(axis=1)
        rows.append(
            {
                key: params[key],
                "seed": params.get("seed", 1),
                "reno_kbps": _kbps(res, "reno"),
                "vegas_kbps": _kbps(res, "vegas"),
                "reno_drops": int(drops.iloc[0]),
                "vegas_drops": int(drops.iloc[-1]),
                "vegas_cwnd": _settled_cwnd(res, "vegas"),
                "vegas_in_band": _share_in_band(res),
            }
        )
    return pd.DataFrame(rows).sort_values([key, "seed"], ignore_index=True)


def _point_table(runs: pd.DataFrame, key: str) -> pd.DataFrame:
    """Per point: each kind's mean throughput over the phases with its 95% half width, the
    runs in which Vegas got more than Reno, and the range of Vegas's settled window."""
    rows = []
    for v, g in runs.groupby(key, sort=True):
        reno, vegas = mean_ci(g["reno_kbps"]), mean_ci(g["vegas_kbps"])
        rows.append(
            {
                key: v,
                "reno_kbps": reno.mean,
                "reno_ci95": reno.half_width,
                "vegas_kbps": vegas.mean,
                "vegas_ci95": vegas.half_width,
                "vegas_min": g["vegas_kbps"].min(),
                "vegas_max": g["vegas_kbps"].max(),
                "runs_vegas_ahead": int((g["vegas_kbps"] > g["reno_kbps"]).sum()),
                "vegas_cwnd_min": g["vegas_cwnd"].min(),
                "vegas_cwnd_max": g["vegas_cwnd"].max(),
                "vegas_in_band": g["vegas_in_band"].mean(),
                "runs": len(g),
            }
        )
    return pd.DataFrame(rows)


def vegas_ahead_claim(text: str, points: pd.DataFrame, key: str, unit: str, strict: bool) -> Claim:
    """Vegas gets more (``strict``) or at least as much as Reno at every point, on the means
    over the start phases. Where it fails, the runs of each failing point that show the
    paper's ordering are the evidence: 002 ran each point once, and if some of our phases give
    its ordering at every failing point, its single run may have been such a phase."""
    rows = list(points.itertuples(index=False))
    ahead = [(r.vegas_kbps > r.reno_kbps) if strict else (r.vegas_kbps >= r.reno_kbps) for r in rows]
    holds = every(ahead)
    detail = ", ".join(
        f"{getattr(r, key)} {unit}: Vegas {r.vegas_kbps:.0f} vs Reno {r.reno_kbps:.0f} kb/s "
        f"(Vegas ahead in {r.runs_vegas_ahead}/{r.runs} runs)"
        for r in rows
    )
    failing = [r for r, ok in zip(rows, ahead, strict=True) if not ok]
    if holds is False and all(r.runs_vegas_ahead > 0 for r in failing):
        why = (
            "002 ran each point once; over our start phases its ordering appears at every failing "
            "point ("
            + ", ".join(
                f"{getattr(r, key)} {unit}: Vegas ahead in {r.runs_vegas_ahead} of {r.runs} runs, "
                f"Vegas {r.vegas_min:.0f}-{r.vegas_max:.0f} kb/s, its settled window "
                f"{r.vegas_cwnd_min:.1f}-{r.vegas_cwnd_max:.1f} packets, its Diff inside "
                f"[alpha, beta] {100 * r.vegas_in_band:.0f}% of the second half"
                for r in failing
            )
            + "): Vegas holds any window whose Diff lies in its band, and the phase decides which"
        )
        return claim(text, holds, detail, cause="single-run", why=why)
    return claim(text, holds, detail)


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


PHASES = (
    "Both flows start at a random time in [0, 1] s; 20 seeds per point (quick: 3, 40 s runs); "
    "mean and 95% CI over seeds."
)

#: 002's table 2: (Reno, Vegas) kb/s by buffer.
TABLE2 = {6: (231, 269), 9: (232, 267), 15: (374, 125), 25: (435, 66), 50: (435, 66)}


def _mean_of(points: pd.DataFrame, key: str, kind: str, label: str) -> dict[str, float]:
    return {
        f"{kind.capitalize()} throughput, {label.format(v)}": m
        for v, m in zip(points[key], points[f"{kind}_kbps"], strict=True)
    }


def _throughput_plot(points: pd.DataFrame, key: str, published: dict[Any, tuple[float, float]] | None = None):
    def plot(ax):
        for kind, marker in (("reno", "o"), ("vegas", "s")):
            ax.errorbar(
                points[key],
                points[f"{kind}_kbps"],
                yerr=points[f"{kind}_ci95"].fillna(0),
                fmt=f"{marker}-",
                capsize=3,
                label=f"{kind.capitalize()} (tcplab)",
            )
        for i, (kind, marker) in enumerate((("Reno", "o"), ("Vegas", "s"))):
            if published:
                ax.plot(
                    list(published),
                    [v[i] for v in published.values()],
                    f"{marker}--",
                    color=f"C{i}",
                    alpha=0.5,
                    label=f"{kind} (published)",
                )

    return plot


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
    published = tuple(
        Published(f"{kind} throughput, queue {b}", v, "kb/s", SOURCE.format(2))
        for b, (r, vg) in TABLE2.items()
        for kind, v in (("Reno", r), ("Vegas", vg))
    )

    def runs(self, quick: bool) -> list[Run]:
        return _pair_runs("buffer", self.buffers, quick)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        runs = _run_table(results, "buffer")
        table = _point_table(runs, "buffer")
        out.tables["throughput by buffer (kb/s, mean over start phases)"] = table
        out.tables["every run"] = runs
        ours = _mean_of(table, "buffer", "reno", "queue {}") | _mean_of(table, "buffer", "vegas", "queue {}")
        out.comparison = comparison((p, ours[p.quantity]) for p in self.published if p.quantity in ours)
        out.figures.append(
            Figure(
                "buffer",
                figure(
                    _throughput_plot(table, "buffer", TABLE2),
                    "bottleneck queue (packets)",
                    "throughput (kb/s)",
                ),
                "Reno vs Vegas throughput against the DropTail buffer, ours (solid, mean and 95% CI over "
                "start phases) and 002's table 2 (dashed)",
            )
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
    published = (
        Published("DropTail: Reno throughput", 435, "kb/s", SOURCE.format(3)),
        Published("DropTail: Vegas throughput", 65, "kb/s", SOURCE.format(3)),
        Published("RED: Reno throughput", 310, "kb/s", SOURCE.format(3)),
        Published("RED: Vegas throughput", 190, "kb/s", SOURCE.format(3)),
    )
    RED = {"kind": "red", "min_th": 5, "max_th": 15, "w_q": 0.002, "max_p": 0.1, "wait": True}

    def runs(self, quick: bool) -> list[Run]:
        d = QUICK_DURATION if quick else DURATION
        return [
            Run(
                {"queue": name, "seed": seed},
                fahmy_scenario(64, queue=q, duration=d, seed=seed, start_window=START_WINDOW),
            )
            for name, q in (("DropTail", None), ("RED", self.RED))
            for seed in _seeds(quick)
        ]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        table = _point_table(_run_table(results, "queue"), "queue")
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


class _Hops(Experiment):
    paper = "fahmy"
    needs = ("cc:vegas",)
    hops: tuple[int, ...] = ()
    buffer = 6

    def runs(self, quick: bool) -> list[Run]:
        return _pair_runs("hops", self.hops, quick, buffer=self.buffer)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        runs = _run_table(results, "hops")
        table = _point_table(runs, "hops")
        out.tables["throughput by hop count (kb/s, mean over start phases)"] = table
        out.tables["every run"] = runs
        ours = _mean_of(table, "hops", "reno", "{} hops") | _mean_of(table, "hops", "vegas", "{} hops")
        out.comparison = comparison((p, ours[p.quantity]) for p in self.published if p.quantity in ours)
        out.figures.append(
            Figure(
                "hops",
                figure(_throughput_plot(table, "hops"), "bottleneck hops", "throughput (kb/s)"),
                f"Reno vs Vegas against the number of {self.buffer}-packet bottleneck hops "
                "(mean and 95% CI over start phases)",
            )
        )
        return out


@register
class Table4(_Hops):
    name = "fahmy/table4"
    title = "2 to 5 bottleneck hops, queue 6 (table 4)"
    setup = (
        "As fig. 3 with 2, 3, 4 and 5 identical 0.5 Mb/s hops, each with a 6-packet DropTail queue. " + PHASES
    )
    hops = (2, 3, 4, 5)
    published = tuple(
        Published(f"{kind} throughput, {h} hops", v, "kb/s", SOURCE.format(4))
        for h, (r, vg) in {2: (232, 268), 3: (162, 338), 4: (194, 306), 5: (173, 327)}.items()
        for kind, v in (("Reno", r), ("Vegas", vg))
    )

    def analyze(self, results, quick) -> Outcome:
        out = super().analyze(results, quick)
        out.claims.append(
            vegas_ahead_claim(
                "With 6-packet queues Vegas gets more than Reno at every hop count",
                out.tables["throughput by hop count (kb/s, mean over start phases)"],
                "hops",
                "hops",
                strict=True,
            )
        )
        return out


@register
class Table5(_Hops):
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
