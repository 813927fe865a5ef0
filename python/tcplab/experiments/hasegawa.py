"""Hasegawa, Kurata & Murata, "Analysis and improvement of fairness between TCP Reno and Vegas
for deployment of TCP Vegas to the Internet" (ICNP 2000, paper 003).

Topology (fig. 1): ``Nr`` Reno and ``Nv`` Vegas senders, each on its own 10 Mb/s, 1.5 ms link to
one router, which forwards to the receiver over a 1.5 Mb/s, 5 ms bottleneck with a buffer of
``B`` packets (sections 3 and 4.2). Assumed where the paper is silent (written into every
experiment's setup): 1000-byte segments plus 40 bytes of TCP/IP header on the wire (NS-2's
default), no delayed ACKs, an unlimited receiver window (the paper's Reno flows fill 200-packet
buffers, which NS-2's default 20-packet window would forbid), the engine's 0.2 s minimum RTO,
Vegas alpha 1 and beta 3, sender-side buffers of 1000 packets (never the bottleneck), every flow
starting at a random time in [0, 1] s. The paper states neither the run length nor the number of
repetitions of figs. 3-6 and 9-13: we run 300 s, measure throughput over [100, 300] s and repeat
with 5 seeds (95% Student-t intervals); quick mode runs 100 s measured over [40, 100] s, one seed
and four buffer sizes.

003 prints its results as plots only, so there are no published numbers to type in; each
simulation is shown beside the paper's analytical model (eqs. 5-12 for DropTail, 13-24 for RED,
from :mod:`tcplab.analysis.reno_vegas`) and checked against the paper's qualitative statements.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..analysis.reno_vegas import droptail_curve, red_model
from ..analysis.stats import concat_flows, mean_ci
from ..result import Result
from ..scenario import Scenario
from . import register
from .ablation import stack_ablations, vegasplus_count_ablation, vegasplus_window_ablation
from .base import Claim, Experiment, Figure, Outcome, Run
from .common import claim, every, flows_frame

# -- the network of section 3 and 4.2 ----------------------------------------------------------
BOTTLENECK_BPS = 1.5e6
BOTTLENECK = {"rate": "1.5Mbps", "delay": "5ms"}
ACCESS_BPS = 10e6
ACCESS = {"rate": "10Mbps", "delay": "1.5ms", "buffer": 1000}
#: ``tau = tau_sx + tau_xd`` of section 3, seconds.
TAU = 0.0015 + 0.005
MSS = 1000
HEADER = 40
WIRE = MSS + HEADER
MIN_RTO = 0.2
START_WINDOW = 1.0
#: Propagation plus transmission time of a data packet out and its ACK back: the RTT a flow
#: sees through an empty queue, seconds (what Vegas's baseRTT should be).
BASE_RTT = (
    2 * TAU
    + WIRE * 8 / ACCESS_BPS
    + WIRE * 8 / BOTTLENECK_BPS
    + HEADER * 8 / BOTTLENECK_BPS
    + HEADER * 8 / ACCESS_BPS
)
#: The bottleneck's goodput capacity, kb/s (payload share of the wire rate).
CAPACITY_KBPS = BOTTLENECK_BPS * MSS / WIRE / 1e3
VEGAS = {"name": "vegas", "alpha": 1, "beta": 3}
CASES = ((5, 5), (5, 10), (10, 5))
#: Buffers from which the paper calls the buffer "realistic" (section 4.2); our "large" set.
LARGE = 50
#: Our reading of "appropriate estimation" (section 4.2.1): the model gives Reno's share of the
#: link within this absolute error.
SHARE_TOLERANCE = 0.1

FIG_SOURCE = "003, fig. {}"


@dataclass(frozen=True)
class Mode:
    duration: float
    measure: tuple[float, float]
    seeds: tuple[int, ...]
    buffers: tuple[int, ...]


FULL = Mode(300.0, (100.0, 300.0), (1, 2, 3, 4, 5), (10, 15, 20, 30, 40, 50, 60, 80, 100, 120, 150, 200))
QUICK = Mode(100.0, (40.0, 100.0), (1,), (20, 50, 100, 200))


def _mode(quick: bool) -> Mode:
    return QUICK if quick else FULL


def _setup_common(specific: str = "") -> str:
    return (
        "Fig. 1 star: Nr Reno + Nv Vegas senders (10 Mb/s, 1.5 ms each) -> router -> receiver over "
        "1.5 Mb/s, 5 ms. Assumed: 1000 B segments + 40 B headers, no delayed ACKs, unlimited receiver "
        "window, min RTO 0.2 s, Vegas alpha 1 / beta 3, flows start uniformly in [0, 1] s. "
        "Full: 300 s measured over [100, 300] s, 5 seeds, B = 10..200; quick: 100 s over [40, 100] s, "
        "1 seed, B = 20, 50, 100, 200. Packet loss rate = data packets dropped / sent over the whole run."
        + specific
    )


# -- scenarios ------------------------------------------------------------------------------------
def hasegawa_scenario(
    n_reno: int,
    n_vegas: int,
    buffer: int,
    *,
    queue: dict[str, Any] | None = None,
    vegas_cc: str | dict[str, Any] = VEGAS,
    duration: float = FULL.duration,
    measure: tuple[float, float] = FULL.measure,
    seed: int = 1,
    sample_interval: float = 0.0,
    reno_schedule: list[list[float]] | None = None,
) -> Scenario:
    """The fig. 1 network: Reno on senders ``s0..s{Nr-1}``, the Vegas-side flows (``vegas_cc``)
    on the next ``Nv`` senders, all to ``d0``. Reno flows follow ``reno_schedule`` if given
    (fig. 7-8), else start at a random time in [0, START_WINDOW]."""
    bottleneck: dict[str, Any] = {**BOTTLENECK, "buffer": buffer}
    if queue is not None:
        bottleneck["queue"] = queue
    sc = Scenario.star(
        senders=n_reno + n_vegas,
        bottleneck=bottleneck,
        access=ACCESS,
        duration=duration,
        seed=seed,
        sample_interval=sample_interval,
        measure=list(measure),
    )
    sc.set_tcp(mss=MSS, header_bytes=HEADER, min_rto=MIN_RTO, delayed_ack=False)
    random_start = {"start": {"uniform": [0.0, START_WINDOW]}}
    reno_timing = {"schedule": reno_schedule} if reno_schedule else random_start
    for i in range(n_reno):
        sc.add_flow(f"s{i}", "d0", cc="reno", name=f"reno{i}", **reno_timing)
    for j in range(n_vegas):
        sc.add_flow(f"s{n_reno + j}", "d0", cc=vegas_cc, name=f"vegas{j}", **random_start)
    return sc


def red_const(p: float, buffer: int) -> dict[str, Any]:
    """Section 4.1.2's RED: drop with constant ``p`` from th_min = 5; th_max = 0.6 B (section 4.2)."""
    return {"kind": "red_const", "p": p, "min_th": 5, "max_th": 0.6 * buffer}


def zl_red(hit_drop: float, buffer: int) -> dict[str, Any]:
    """Section 6.2's ZL-RED parameters."""
    return {
        "kind": "zl_red",
        "p_min": 1 / 50,
        "p_max": 1 / 10,
        "min_th": 5,
        "max_th": 0.6 * buffer,
        "zombies": 1000,
        "hit_drop": hit_drop,
    }


@dataclass(frozen=True)
class Variant:
    """One curve family of a buffer sweep: a router queue and the Vegas side's algorithm."""

    label: str
    queue: Callable[[int], dict[str, Any]] | None = None
    vegas_cc: str | dict[str, Any] = field(default_factory=lambda: dict(VEGAS))


DROPTAIL = Variant("DropTail")
#: The fig. 3 runs again (same scenarios, so the store reuses them), named for figs. 9 and 10.
PLAIN_VEGAS = Variant("plain Vegas")
RED_30 = Variant("RED p=1/30", lambda b: red_const(1 / 30, b))
RED_10 = Variant("RED p=1/10", lambda b: red_const(1 / 10, b))
VEGAS_PLUS_8 = Variant("Vegas+ count_max=8", vegas_cc={**VEGAS, "name": "vegas_plus", "count_max": 8})
VEGAS_PLUS_5 = Variant("Vegas+ count_max=5", vegas_cc={**VEGAS, "name": "vegas_plus", "count_max": 5})
ZL_0 = Variant("ZL-RED hit_drop=0", lambda b: zl_red(0.0, b))
ZL_08 = Variant("ZL-RED hit_drop=0.8", lambda b: zl_red(0.8, b))


def _sweep(variants: Iterable[Variant], quick: bool, cases=CASES) -> list[Run]:
    m = _mode(quick)
    runs = []
    for v in variants:
        for nr, nv in cases:
            for b in m.buffers:
                for seed in m.seeds:
                    sc = hasegawa_scenario(
                        nr,
                        nv,
                        b,
                        queue=v.queue(b) if v.queue else None,
                        vegas_cc=v.vegas_cc,
                        duration=m.duration,
                        measure=m.measure,
                        seed=seed,
                    )
                    params = {"variant": v.label, "n_reno": nr, "n_vegas": nv, "buffer": b, "seed": seed}
                    runs.append(Run(params, sc))
    return runs


# -- per-run and aggregated measures ----------------------------------------------------------------
METRICS = (
    "reno_kbps",
    "vegas_kbps",
    "total_kbps",
    "reno_loss_pct",
    "vegas_loss_pct",
    "vegas_base_rtt_excess_ms",
    "reno_timeouts",
    "vegas_timeouts",
    "vegas_early_retransmits",
)


def run_table(results: list[tuple[dict[str, Any], Result]]) -> pd.DataFrame:
    """One row per run: its parameters, the per-flow mean goodput of each kind, the link total, each
    kind's packet loss rate and timeouts per flow, the Vegas side's fine-grained (early)
    retransmissions per flow, and how far its baseRTT (its minimum RTT) lies above the true
    empty-queue RTT. A kind a run lacks gives NaN. Computed over all runs at once."""
    f = concat_flows(results, run_col="_run")
    f["_drops"] = f.filter(like="data_drops_").sum(axis=1)
    f["_kind"] = np.where(f["cc"] == "reno", "reno", "vegas")
    by_kind = f.groupby(["_run", "_kind"]).agg(
        sent=("segments_sent", "sum"),
        drops=("_drops", "sum"),
        kbps=("goodput_bps", "mean"),
        timeouts=("timeouts", "mean"),
        early=("early_retransmits", "mean"),
        min_rtt=("min_rtt", "mean"),
    )
    by_kind["kbps"] /= 1e3
    by_kind["loss_pct"] = (100.0 * by_kind["drops"] / by_kind["sent"]).where(by_kind["sent"] > 0)
    wide = by_kind.unstack("_kind").reindex(range(len(results)))

    def column(metric: str, kind: str) -> Any:
        return wide[(metric, kind)].to_numpy(float) if (metric, kind) in wide else np.nan

    out = pd.DataFrame([params for params, _ in results])
    for kind in ("reno", "vegas"):
        for metric in ("kbps", "loss_pct", "timeouts"):
            out[f"{kind}_{metric}"] = column(metric, kind)
    out["vegas_early_retransmits"] = column("early", "vegas")
    out["total_kbps"] = f.groupby("_run")["goodput_bps"].sum().reindex(range(len(results))).to_numpy() / 1e3
    out["vegas_base_rtt_excess_ms"] = 1e3 * (column("min_rtt", "vegas") - BASE_RTT)
    return out


def aggregate(runs: pd.DataFrame, keys: list[str], metrics: Iterable[str] = METRICS) -> pd.DataFrame:
    """Mean over seeds and the 95% half width (``<metric>_ci``, NaN for one seed) per group."""
    rows = []
    for key, g in runs.groupby(keys, sort=True):
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        for m in metrics:
            vals = g[m].dropna().to_numpy()
            ci = mean_ci(vals) if len(vals) else None
            row[m] = ci.mean if ci else math.nan
            row[f"{m}_ci"] = ci.half_width if ci else math.nan
        row["n"] = len(g)
        rows.append(row)
    out = pd.DataFrame(rows)
    out["vegas/reno"] = out["vegas_kbps"] / out["reno_kbps"]
    out["unfairness"] = np.log(out["vegas/reno"]).abs()
    out["reno_share"] = _reno_share(out["n_reno"], out["n_vegas"], out["reno_kbps"], out["vegas_kbps"])
    return out


def _reno_share(nr, nv, reno, vegas):
    """Reno's fraction of the delivered traffic, from per-flow means."""
    return nr * reno / (nr * reno + nv * vegas)


def _case(df: pd.DataFrame, nr: int, nv: int, variant: str | None = None) -> pd.DataFrame:
    sel = (df["n_reno"] == nr) & (df["n_vegas"] == nv)
    if variant is not None:
        sel &= df["variant"] == variant
    return df[sel].sort_values("buffer")


# -- the analytical models, in goodput kb/s per flow -----------------------------------------------
def _goodput_kbps(wire_bps: float) -> float:
    return wire_bps * MSS / WIRE / 1e3


def droptail_model_kbps(nr: int, nv: int, buffers: Iterable[float]) -> pd.DataFrame:
    """Eqs. (5)-(12) per buffer: ``buffer``, ``reno_kbps``, ``vegas_kbps`` (NaN outside the model's
    domain, 2 tau mu + B <= W_v)."""
    c = droptail_curve(
        nr,
        nv,
        list(buffers),
        bottleneck_bps=BOTTLENECK_BPS,
        one_way_delay_s=TAU,
        packet_bytes=WIRE,
        alpha_packets=VEGAS["alpha"],
        beta_packets=VEGAS["beta"],
    )
    return pd.DataFrame(
        {
            "buffer": c["buffer_packets"],
            "reno_kbps": c["reno_per_flow_bps"].map(_goodput_kbps),
            "vegas_kbps": c["vegas_per_flow_bps"].map(_goodput_kbps),
        }
    )


def red_model_kbps(nr: int, nv: int, p: float) -> tuple[float, float]:
    """Eqs. (13)-(24) with RTO = the simulator's 0.2 s minimum, mean RTT from the saturated-link fixed
    point: per-flow (Reno, Vegas) goodput, kb/s."""
    m = red_model(
        nr,
        nv,
        p,
        BOTTLENECK_BPS,
        TAU,
        MIN_RTO,
        packet_bytes=WIRE,
        alpha_packets=VEGAS["alpha"],
        beta_packets=VEGAS["beta"],
    )
    return _goodput_kbps(m.reno_per_flow_bps), _goodput_kbps(m.vegas_per_flow_bps)


def _with_model(agg: pd.DataFrame, model: Callable[[int, int, int], tuple[float, float]]) -> pd.DataFrame:
    """Adds the model's per-flow values, its Reno share and the share error |sim - model|."""
    vals = [model(int(r.n_reno), int(r.n_vegas), int(r.buffer)) for r in agg.itertuples()]
    out = agg.copy()
    out["model_reno_kbps"] = [v[0] for v in vals]
    out["model_vegas_kbps"] = [v[1] for v in vals]
    model_share = _reno_share(out["n_reno"], out["n_vegas"], out["model_reno_kbps"], out["model_vegas_kbps"])
    out["share_error"] = (out["reno_share"] - model_share).abs()
    return out


def _droptail_point(nr: int, nv: int, b: int) -> tuple[float, float]:
    row = droptail_model_kbps(nr, nv, [b]).iloc[0]
    return float(row["reno_kbps"]), float(row["vegas_kbps"])


# -- plotting ---------------------------------------------------------------------------------------
XLABEL = "router buffer B (packets)"
CASE_TITLE = "({}) Nr = {}, Nv = {}"


def _panels(rows: int = 1, cols: int = 3):
    fig, axes = plt.subplots(rows, cols, figsize=(4.3 * cols, 3.5 * rows), squeeze=False)
    return fig, axes


def _errorbar(ax, d: pd.DataFrame, metric: str, label: str, fmt: str, **kw) -> None:
    err = d[f"{metric}_ci"].fillna(0.0).to_numpy()
    ax.errorbar(d["buffer"], d[metric], yerr=err, fmt=fmt, label=label, capsize=2, ms=4, **kw)


def _style_row(axes, ylabel: str) -> None:
    for ax in axes:
        ax.set_xlabel(XLABEL)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=7)


def _layout(fig, title: str):
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def _kind_pair(ax, d: pd.DataFrame, metric: str, vegas_name: str, suffix: str = "") -> None:
    """Reno's and the Vegas side's ``<kind>_<metric>`` with 95% CI bars."""
    _errorbar(ax, d, f"reno_{metric}", f"Reno{suffix}", "o-", color="C0")
    _errorbar(ax, d, f"vegas_{metric}", f"{vegas_name}{suffix}", "s-", color="C1")


def _throughput_figure(
    agg: pd.DataFrame,
    variant: str,
    model: Callable[[int, int], pd.DataFrame] | None = None,
    reference: str | None = None,
    vegas_name: str = "Vegas",
    loss_row: bool = False,
):
    """Per-flow Reno and Vegas-side throughput vs B for the three (Nr, Nv) cases; the model's curves
    dashed, a reference variant's simulation faint; optionally a second row with loss rates."""
    fig, axes = _panels(2 if loss_row else 1)
    letters = ("ace", "bdf") if loss_row else ("abc",)
    for i, (nr, nv) in enumerate(CASES):
        ax = axes[0][i]
        d = _case(agg, nr, nv, variant)
        _kind_pair(ax, d, "kbps", vegas_name, " (sim)")
        if reference is not None:
            r = _case(agg, nr, nv, reference)
            faint = {"alpha": 0.45, "ms": 3}
            ax.plot(r["buffer"], r["reno_kbps"], "o:", color="C0", label=f"Reno ({reference})", **faint)
            ax.plot(r["buffer"], r["vegas_kbps"], "s:", color="C1", label=f"Vegas ({reference})", **faint)
        if model is not None:
            md = model(nr, nv)
            ax.plot(md["buffer"], md["reno_kbps"], "--", color="C0", label="Reno (analysis)")
            ax.plot(md["buffer"], md["vegas_kbps"], "--", color="C1", label="Vegas (analysis)")
        ax.set_title(CASE_TITLE.format(letters[0][i], nr, nv), fontsize=10)
        if loss_row:
            _kind_pair(axes[1][i], d, "loss_pct", vegas_name)
            axes[1][i].set_title(CASE_TITLE.format(letters[1][i], nr, nv), fontsize=10)
    _style_row(axes[0], "throughput per flow (kb/s)")
    if loss_row:
        _style_row(axes[1], "packet loss rate (%)")
    return _layout(fig, variant)


def _loss_figure(agg: pd.DataFrame, variant: str):
    fig, axes = _panels()
    for i, (nr, nv) in enumerate(CASES):
        _kind_pair(axes[0][i], _case(agg, nr, nv, variant), "loss_pct", "Vegas")
        axes[0][i].set_title(CASE_TITLE.format("abc"[i], nr, nv), fontsize=10)
    _style_row(axes[0], "packet loss rate (%)")
    return _layout(fig, variant)


# -- claim helpers ------------------------------------------------------------------------------------
def _large(agg: pd.DataFrame) -> pd.DataFrame:
    return agg[agg["buffer"] >= LARGE]


def _mean_over_large(agg: pd.DataFrame, variant: str, nr: int, nv: int, col: str) -> float:
    return float(_large(_case(agg, nr, nv, variant))[col].mean())


def _per_case(fn: Callable[[int, int], tuple[bool, str]]) -> tuple[bool, str]:
    """Applies a per-case check to all three cases; holds if it holds in each."""
    results = [(nr, nv, *fn(nr, nv)) for nr, nv in CASES]
    detail = "; ".join(f"({nr},{nv}): {d}" for nr, nv, _, d in results)
    return every(ok for _, _, ok, _ in results), detail


def _compare_variants(agg: pd.DataFrame, fairer: str, than: str) -> Claim:
    """``fairer`` has a smaller mean unfairness |ln(Vegas/Reno)| than ``than`` over B >= LARGE in
    every case (0 when a Vegas-side flow gets exactly a Reno flow's throughput)."""

    def check(nr, nv):
        a = _mean_over_large(agg, fairer, nr, nv, "unfairness")
        b = _mean_over_large(agg, than, nr, nv, "unfairness")
        return a < b, f"{a:.2f} vs {b:.2f}"

    ok, detail = _per_case(check)
    return claim(f"{fairer} is fairer than {than} (mean |ln(Vegas/Reno)| over B >= {LARGE})", ok, detail)


def _model_agreement(agg: pd.DataFrame, variant: str, text: str) -> Claim:
    d = _large(agg[agg["variant"] == variant]).dropna(subset=["share_error"])
    worst = d.loc[d["share_error"].idxmax()] if len(d) else None
    detail = (
        f"largest |Reno share sim - model| for B >= {LARGE}: {worst['share_error']:.2f} at "
        f"(Nr, Nv, B) = ({int(worst['n_reno'])}, {int(worst['n_vegas'])}, {int(worst['buffer'])}); "
        f"mean {d['share_error'].mean():.2f}"
        if worst is not None
        else "no point inside the model's domain"
    )
    return claim(text, worst is not None and worst["share_error"] <= SHARE_TOLERANCE, detail)


def _table(agg: pd.DataFrame, extra: Iterable[str] = ()) -> pd.DataFrame:
    cols = [
        "variant",
        "n_reno",
        "n_vegas",
        "buffer",
        "reno_kbps",
        "reno_kbps_ci",
        "vegas_kbps",
        "vegas_kbps_ci",
        "vegas/reno",
        "unfairness",
        "total_kbps",
        *extra,
        "n",
    ]
    return agg[[c for c in cols if c in agg.columns]].reset_index(drop=True)


# -- fig. 3: DropTail --------------------------------------------------------------------------------
@register
class Fig3(Experiment):
    name = "hasegawa/fig3"
    paper = "hasegawa"
    title = "Reno vs Vegas behind a DropTail router: simulation and analysis (fig. 3)"
    ablations = stack_ablations("min-rto-1s", "delayed-ack")
    setup = _setup_common(
        " DropTail router; (Nr, Nv) = (5, 5), (5, 10), (10, 5). Analysis: eqs. (5)-(12) with "
        "tau = 6.5 ms and mu = 1.5 Mb/s / 1040 B; it needs 2 tau mu + B > Nv (alpha + beta)/2."
    )
    needs = ("cc:vegas",)

    def runs(self, quick: bool) -> list[Run]:
        return _sweep([DROPTAIL], quick)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        agg = _with_model(
            aggregate(run_table(results), ["variant", "n_reno", "n_vegas", "buffer"]), _droptail_point
        )
        out.tables["per-flow throughput (kb/s), simulation and analysis"] = _table(
            agg,
            [
                "model_reno_kbps",
                "model_vegas_kbps",
                "share_error",
                "vegas_base_rtt_excess_ms",
                "reno_timeouts",
                "vegas_timeouts",
                "vegas_early_retransmits",
            ],
        )
        grid = np.arange(1, 201)
        fig = _throughput_figure(agg, DROPTAIL.label, model=lambda nr, nv: droptail_model_kbps(nr, nv, grid))
        out.figures.append(
            Figure(
                "fig3",
                fig,
                "Fig. 3: per-flow throughput of Reno and Vegas vs the DropTail buffer; simulation (points, "
                "95% CI over seeds) and the analysis of eqs. (5)-(12) (dashed)",
            )
        )
        out.claims += droptail_claims(agg)
        out.notes += droptail_notes(agg, flows_frame(results))
        return out


def droptail_claims(agg: pd.DataFrame) -> list[Claim]:
    d = agg[agg["variant"] == DROPTAIL.label]
    bmax = int(d["buffer"].max())
    claims = []

    def starved(nr, nv):
        r = _case(d, nr, nv).iloc[-1]
        return r["vegas_kbps"] < 0.5 * r["reno_kbps"], f"{r['vegas_kbps']:.0f} vs {r['reno_kbps']:.0f} kb/s"

    ok, detail = _per_case(starved)
    claims.append(
        claim(
            f"With a large buffer (B = {bmax}) a Vegas flow gets less than half a Reno flow's throughput",
            ok,
            detail,
        )
    )

    def worsens(nr, nv):
        c = _case(d, nr, nv)
        lo = c[c["buffer"] >= LARGE].iloc[0]
        hi = c.iloc[-1]
        return (
            hi["vegas/reno"] < lo["vegas/reno"],
            f"Vegas/Reno {lo['vegas/reno']:.2f} at B={int(lo['buffer'])} -> "
            f"{hi['vegas/reno']:.2f} at B={bmax}",
        )

    ok, detail = _per_case(worsens)
    claims.append(
        claim("The larger the buffer, the worse the fairness (Vegas/Reno falls with B)", ok, detail)
    )
    claims.append(
        _model_agreement(
            agg,
            DROPTAIL.label,
            f"The analysis estimates each kind's share of the link well for realistic buffers "
            f"(|Reno share sim - model| <= {SHARE_TOLERANCE} for all B >= {LARGE})",
        )
    )
    small = d[(d["buffer"] < 20) & d["model_reno_kbps"].notna()]
    if len(small):
        under = every(small["reno_kbps"] > small["model_reno_kbps"])
        over = every(small["vegas_kbps"] < small["model_vegas_kbps"])
        detail = "; ".join(
            f"({int(r.n_reno)},{int(r.n_vegas)},B={int(r.buffer)}): Reno {r.reno_kbps:.0f} vs model "
            f"{r.model_reno_kbps:.0f}, Vegas {r.vegas_kbps:.0f} vs {r.model_vegas_kbps:.0f}"
            for r in small.itertuples()
        )
        claims.append(
            claim(
                "Below 20 packets the analysis under-estimates Reno and over-estimates Vegas",
                under and over,
                detail,
            )
        )
    return claims


def droptail_notes(agg: pd.DataFrame, flows: pd.DataFrame) -> list[str]:
    d = agg[agg["variant"] == DROPTAIL.label]
    small = d[d["buffer"] == d["buffer"].min()]
    excess = d[d["buffer"] >= LARGE]["vegas_base_rtt_excess_ms"].mean()
    good = d[d["buffer"] >= 100]["share_error"].mean()
    return [
        "003 prints fig. 3 as a plot only, so the comparison is with its analytical model and its "
        f"qualitative statements, not with published numbers. The model's share error averages {good:.2f} "
        "for B >= 100.",
        "Vegas's baseRTT is its minimum RTT; a flow that starts after the others have filled the queue "
        f"never sees the empty-queue RTT ({BASE_RTT * 1e3:.1f} ms) again because Reno keeps the DropTail "
        f"queue from draining, so it over-estimates baseRTT (by {excess:.0f} ms on average for B >= {LARGE} "
        "here) and holds more than beta packets in the queue. " + _base_rtt_effect(flows) + " This is why "
        "our Vegas flows get more than the model's Nv (alpha + beta)/2 packets, and why seeds differ.",
        "At the smallest buffers the windows are a few packets: Reno cannot collect three duplicate ACKs "
        "and recovers by timeouts (RTO >= 0.2 s, doubling), while Vegas's fine-grained retransmission "
        "repairs on the first duplicate ACK; so Reno, not Vegas, collapses "
        f"(B = {int(small['buffer'].iloc[0])}: "
        + "; ".join(
            f"({int(r.n_reno)},{int(r.n_vegas)}) Reno {r.reno_kbps:.0f} kb/s with {r.reno_timeouts:.0f} "
            f"timeouts per flow, Vegas {r.vegas_kbps:.0f} kb/s with {r.vegas_timeouts:.0f} timeouts and "
            f"{r.vegas_early_retransmits:.0f} fine-grained retransmissions"
            for r in small.itertuples()
        )
        + "). The paper reports the opposite sign of model error below 20 packets.",
    ]


def _base_rtt_effect(flows: pd.DataFrame) -> str:
    """How the Vegas flows that measured the true baseRTT fare against those that did not (B >= LARGE)."""
    v = flows[(flows["cc"] != "reno") & (flows["buffer"] >= LARGE)].copy()
    if v.empty:
        return ""
    v["relative"] = v["goodput_bps"] / v.groupby("run")["goodput_bps"].transform("mean")
    exact = v["min_rtt"] < BASE_RTT + 1e-3
    return (
        f"Of the Vegas flows with B >= {LARGE}, {exact.mean():.0%} measured the true baseRTT (within 1 ms); "
        f"they got {v.loc[exact, 'relative'].mean():.2f} times their run's mean Vegas throughput, the others "
        f"{v.loc[~exact, 'relative'].mean():.2f} times."
    )


# -- figs. 4 and 5: RED --------------------------------------------------------------------------------
def _red_point(p: float) -> Callable[[int, int, int], tuple[float, float]]:
    return lambda nr, nv, _b: red_model_kbps(nr, nv, p)


@register
class Fig4(Experiment):
    name = "hasegawa/fig4"
    paper = "hasegawa"
    title = "Reno vs Vegas behind a RED router, p = 1/30 and 1/10: simulation and analysis (figs. 4, 5)"
    setup = _setup_common(
        " Router: the constant-probability RED of section 4.1.2 (kind red_const: each arrival dropped "
        "with probability p once RED's average queue reaches th_min = 5; every arrival once it reaches "
        "th_max = 0.6 B), p = 1/30 (fig. 4) and 1/10 (fig. 5); the DropTail runs of fig. 3 for reference. "
        "Analysis: eqs. (13)-(24) with RTO = 0.2 s (the simulator's minimum RTO) and the mean RTT of a "
        "saturated link; it does not depend on B."
    )
    needs = ("cc:vegas", "queue:red_const")
    probabilities = {RED_30.label: 1 / 30, RED_10.label: 1 / 10}

    def runs(self, quick: bool) -> list[Run]:
        return _sweep([DROPTAIL, RED_30, RED_10], quick)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        agg = aggregate(run_table(results), ["variant", "n_reno", "n_vegas", "buffer"])
        parts = [_with_model(agg[agg["variant"] == DROPTAIL.label], _droptail_point)]
        parts += [_with_model(agg[agg["variant"] == v], _red_point(p)) for v, p in self.probabilities.items()]
        agg = pd.concat(parts, ignore_index=True)
        out.tables["per-flow throughput (kb/s), simulation and analysis"] = _table(
            agg, ["model_reno_kbps", "model_vegas_kbps", "share_error"]
        )
        for fig_no, (variant, p) in zip((4, 5), self.probabilities.items(), strict=True):

            def model(nr, nv, p=p):
                reno, vegas = red_model_kbps(nr, nv, p)
                return pd.DataFrame({"buffer": [0, 200], "reno_kbps": [reno] * 2, "vegas_kbps": [vegas] * 2})

            fig = _throughput_figure(agg, variant, model=model, reference=DROPTAIL.label)
            out.figures.append(
                Figure(
                    f"fig{fig_no}",
                    fig,
                    f"Fig. {fig_no}: per-flow throughput behind RED with p = {p:.3g} vs the buffer; "
                    "simulation "
                    "(points, 95% CI), the analysis of eqs. (13)-(24) (dashed, independent of B) and the "
                    "DropTail simulation of fig. 3 (dotted, faint)",
                )
            )
        out.claims += red_claims(agg)
        out.notes.append(
            "003 prints figs. 4 and 5 as plots only; the comparison is with its RED model and its "
            "statements. "
            "The model's RTO is our choice (0.2 s, the simulator's floor; 003 does not give one)."
        )
        return out


def red_claims(agg: pd.DataFrame) -> list[Claim]:
    claims = [_compare_variants(agg, RED_30.label, DROPTAIL.label)]

    def same_total(nr, nv):
        red = _case(agg, nr, nv, RED_30.label).iloc[-1]["total_kbps"]
        dt = _case(agg, nr, nv, DROPTAIL.label).iloc[-1]["total_kbps"]
        return abs(red - dt) <= 0.03 * dt, f"{red:.0f} vs {dt:.0f} kb/s"

    ok, detail = _per_case(same_total)
    claims.append(
        claim(
            "For the largest buffer RED's total throughput is almost that of DropTail (within 3%)", ok, detail
        )
    )
    claims.append(_compare_variants(agg, RED_10.label, RED_30.label))
    for variant in (RED_30.label, RED_10.label):

        def flat(nr, nv, variant=variant):
            c = _large(_case(agg, nr, nv, variant))
            spread = (c["reno_kbps"].max() - c["reno_kbps"].min()) / c["reno_kbps"].mean()
            return spread <= 0.2, f"Reno per-flow range {spread:.0%} of its mean"

        ok, detail = _per_case(flat)
        claims.append(
            claim(
                f"{variant}: for B >= {LARGE} throughput hardly depends on B (Reno's range <= 20%), "
                "as in the analysis",
                ok,
                detail,
            )
        )
        claims.append(
            _model_agreement(
                agg,
                variant,
                f"{variant}: the analysis gives each kind's share within {SHARE_TOLERANCE} for B >= {LARGE}",
            )
        )

        def small_worse(nr, nv, variant=variant):
            c = _case(agg, nr, nv, variant)
            return (
                c.iloc[0]["share_error"] > c.iloc[-1]["share_error"],
                f"error {c.iloc[0]['share_error']:.2f} at B={int(c.iloc[0]['buffer'])} vs "
                f"{c.iloc[-1]['share_error']:.2f} at B={int(c.iloc[-1]['buffer'])}",
            )

        ok, detail = _per_case(small_worse)
        claims.append(
            claim(f"{variant}: simulation departs from the analysis most at small buffers", ok, detail)
        )
    return claims


# -- fig. 6: RED p sweep --------------------------------------------------------------------------------
@register
class Fig6(Experiment):
    name = "hasegawa/fig6"
    paper = "hasegawa"
    title = "RED's fairness/throughput trade-off: throughput vs the drop probability p (fig. 6)"
    setup = _setup_common(
        " Nr = Nv = 5, B = 100, constant-probability RED (th_min 5, th_max 60) with p from 0.001 to 0.2 "
        "(quick: 0.001, 0.01, 0.05, 0.2). Analysis of eqs. (13)-(24) beside it (RTO 0.2 s)."
    )
    needs = ("cc:vegas", "queue:red_const")
    full_p = (0.001, 0.002, 0.005, 0.01, 0.02, 1 / 30, 0.05, 0.1, 0.15, 0.2)
    quick_p = (0.001, 0.01, 0.05, 0.2)
    buffer = 100

    def runs(self, quick: bool) -> list[Run]:
        m = _mode(quick)
        runs = []
        for p in self.quick_p if quick else self.full_p:
            for seed in m.seeds:
                sc = hasegawa_scenario(
                    5,
                    5,
                    self.buffer,
                    queue=red_const(p, self.buffer),
                    duration=m.duration,
                    measure=m.measure,
                    seed=seed,
                )
                runs.append(Run({"p": p, "n_reno": 5, "n_vegas": 5, "buffer": self.buffer, "seed": seed}, sc))
        return runs

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        agg = aggregate(run_table(results), ["p", "n_reno", "n_vegas", "buffer"])
        model = [red_model_kbps(5, 5, p) for p in agg["p"]]
        agg["model_reno_kbps"] = [m[0] for m in model]
        agg["model_vegas_kbps"] = [m[1] for m in model]
        cols = [
            "p",
            "reno_kbps",
            "reno_kbps_ci",
            "vegas_kbps",
            "vegas_kbps_ci",
            "total_kbps",
            "total_kbps_ci",
        ]
        out.tables["throughput vs p (kb/s)"] = agg[
            [*cols, "vegas/reno", "model_reno_kbps", "model_vegas_kbps", "n"]
        ]

        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        agg = agg.sort_values("p")
        for metric, label, fmt, color in (
            ("reno_kbps", "Reno, per flow", "o-", "C0"),
            ("vegas_kbps", "Vegas, per flow", "s-", "C1"),
        ):
            ax.errorbar(
                agg["p"],
                agg[metric],
                yerr=agg[f"{metric}_ci"].fillna(0),
                fmt=fmt,
                color=color,
                label=label,
                capsize=2,
                ms=4,
            )
        ax.plot(agg["p"], agg["model_reno_kbps"], "--", color="C0", label="Reno (analysis)")
        ax.plot(agg["p"], agg["model_vegas_kbps"], "--", color="C1", label="Vegas (analysis)")
        ax2 = ax.twinx()
        ax2.errorbar(
            agg["p"],
            agg["total_kbps"],
            yerr=agg["total_kbps_ci"].fillna(0),
            fmt="^-",
            color="C2",
            label="total",
            capsize=2,
            ms=4,
        )
        ax2.set_ylabel("total throughput (kb/s)", color="C2")
        ax2.set_ylim(0, CAPACITY_KBPS * 1.05)
        ax.set_xscale("log")
        ax.set_xlabel("RED packet dropping probability p")
        ax.set_ylabel("throughput per flow (kb/s)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="lower left")
        fig.tight_layout()
        out.figures.append(
            Figure(
                "fig6",
                fig,
                "Fig. 6: per-flow Reno and Vegas throughput (left axis) and total throughput (right axis) vs "
                "RED's p; Nr = Nv = 5, B = 100; dashed: the analysis (which always fills the link)",
            )
        )
        lo, hi = agg.iloc[0], agg.iloc[-1]
        out.claims.append(
            claim(
                "A larger p improves fairness (Vegas/Reno at the largest p is at least twice that at "
                "the smallest)",
                hi["vegas/reno"] >= 2 * lo["vegas/reno"],
                f"Vegas/Reno {lo['vegas/reno']:.2f} at p={lo['p']:.3g} -> "
                f"{hi['vegas/reno']:.2f} at p={hi['p']:.3g}",
            )
        )
        out.claims.append(
            claim(
                "... but costs total throughput (total at the largest p below 95% of that at the smallest)",
                hi["total_kbps"] < 0.95 * lo["total_kbps"],
                ", ".join(f"p={r.p:.3g}: {r.total_kbps:.0f}" for r in agg.itertuples()) + " kb/s",
            )
        )
        small_p = agg[agg["p"] <= 0.01]
        out.claims.append(
            claim(
                "Up to p = 0.01 RED hardly changes the shares (Vegas/Reno varies by less than 0.1)",
                float(small_p["vegas/reno"].max() - small_p["vegas/reno"].min()) < 0.1,
                ", ".join(
                    f"p={p:.3g}: {v:.2f}" for p, v in zip(small_p["p"], small_p["vegas/reno"], strict=True)
                ),
            )
        )
        out.notes.append(
            "003 prints fig. 6 as a plot only. The analysis assigns the whole link to the two kinds "
            "(eq. 12), so it cannot show the loss of total throughput; its curves are ours, not the paper's."
        )
        return out


# -- figs. 7 and 8: Vegas vs Vegas+ with on/off Reno ----------------------------------------------------
PHASES = (
    ("Reno off", 50.0, 250.0),
    ("Reno on", 300.0, 500.0),
    ("Reno off", 550.0, 750.0),
    ("Reno on", 800.0, 1000.0),
)
RENO_ON = [[250.0, 500.0], [750.0, 1000.0]]


def _interval_throughput(series: pd.DataFrame, flow: int, bin_s: float) -> pd.DataFrame:
    """Goodput of one flow in consecutive ``bin_s`` bins from the cumulative bytes delivered."""
    s = series[series["flow"] == flow].sort_values("time")
    t = s["time"].to_numpy()
    edges = np.arange(0.0, t[-1] + 1e-9, bin_s)
    delivered = np.interp(edges, t, s["bytes_delivered"].to_numpy())
    return pd.DataFrame({"time": edges[1:], "kbps": np.diff(delivered) * 8 / bin_s / 1e3})


@register
class Fig7(Experiment):
    name = "hasegawa/fig7-8"
    paper = "hasegawa"
    title = "Vegas and Vegas+ against on/off Reno traffic: window and instantaneous throughput (figs. 7, 8)"
    ablations = (vegasplus_count_ablation(), vegasplus_window_ablation())
    setup = (
        "Fig. 1 network, DropTail B = 100; 1000 s. One Vegas (a) or Vegas+ with count_max = 8 (b) from a "
        "random time in [0, 1] s; five Reno flows active only in 250-500 s and 750-1000 s (on/off "
        "schedule; they resume with their previous state). Other assumptions as for fig. 3. Instantaneous "
        "throughput over 1 s bins; per-phase means skip each phase's first 50 s. Same in quick mode."
    )
    needs = ("cc:vegas", "cc:vegas_plus")
    duration = 1000.0

    def runs(self, quick: bool) -> list[Run]:
        runs = []
        for label, cc in (("Vegas", VEGAS), ("Vegas+", VEGAS_PLUS_8.vegas_cc)):
            sc = hasegawa_scenario(
                5, 1, 100, vegas_cc=cc, duration=self.duration, measure=(0.0, self.duration), seed=1,
                sample_interval=0.2, reno_schedule=RENO_ON,
            )  # fmt: skip
            runs.append(Run({"algorithm": label}, sc))
        return runs

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        traces = {params["algorithm"]: res for params, res in results}
        rows = []
        for algo, res in traces.items():
            vid = int(res.flows.loc[res.flows["cc"] != "reno", "id"].iloc[0])
            reno_ids = res.flows.loc[res.flows["cc"] == "reno", "id"].tolist()
            s = res.series
            thr = _interval_throughput(s, vid, 1.0)
            reno_thr = [_interval_throughput(s, r, 1.0) for r in reno_ids]
            for phase, a, b in PHASES:
                v = s[(s["flow"] == vid) & (s["time"] > a) & (s["time"] <= b)]
                r = s[s["flow"].isin(reno_ids) & (s["time"] > a) & (s["time"] <= b)]
                in_phase = (thr["time"] > a) & (thr["time"] <= b)
                rows.append(
                    {
                        "algorithm": algo,
                        "phase": f"{phase} {a:.0f}-{b:.0f} s",
                        "reno_on": phase == "Reno on",
                        "cwnd_mean": v["cwnd"].mean(),
                        "cwnd_std": v["cwnd"].std(),
                        "kbps": thr.loc[in_phase, "kbps"].mean(),
                        "reno_cwnd_mean": r["cwnd"].mean() if phase == "Reno on" else math.nan,
                        "reno_kbps_per_flow": (
                            np.mean([x.loc[in_phase, "kbps"].mean() for x in reno_thr])
                            if phase == "Reno on"
                            else math.nan
                        ),
                    }
                )
        table = pd.DataFrame(rows)
        out.tables["per phase: the Vegas/Vegas+ flow and the Reno flows"] = table
        out.figures += self._figures(traces)
        out.claims += self._claims(table)
        out.notes.append(
            "003 prints figs. 7 and 8 as plots only. Fair share while Reno is on: "
            f"{CAPACITY_KBPS / 6:.0f} kb/s per flow (1/6 of the {CAPACITY_KBPS:.0f} kb/s goodput capacity)."
        )
        if "Vegas+" in traces:
            out.notes.append(_aggressive_after_reno(traces["Vegas+"]))
        return out

    def _figures(self, traces: dict[str, Result]) -> list[Figure]:
        fig7, ax7 = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
        fig8, ax8 = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
        for i, (algo, res) in enumerate(traces.items()):
            vid = int(res.flows.loc[res.flows["cc"] != "reno", "id"].iloc[0])
            rid = int(res.flows.loc[res.flows["cc"] == "reno", "id"].iloc[0])
            s = res.series
            v, r = s[s["flow"] == vid], s[(s["flow"] == rid) & s["time"].between(250, 1000)]
            ax7[i].plot(
                r["time"],
                r["cwnd"].where(_reno_active(r["time"])),
                color="C0",
                lw=0.6,
                alpha=0.6,
                label="a Reno flow",
            )
            ax7[i].plot(v["time"], v["cwnd"], color="C1", lw=0.8, label=algo)
            ax7[i].set_ylabel("window (packets)")
            thr = _interval_throughput(s, vid, 1.0)
            ax8[i].plot(thr["time"], thr["kbps"], color="C1", lw=0.8, label=algo)
            ax8[i].axhline(
                CAPACITY_KBPS / 6, color="k", ls=":", lw=0.8, label="fair share with Reno on (1/6)"
            )
            ax8[i].set_ylabel("throughput (kb/s)")
            for ax in (ax7[i], ax8[i]):
                ax.set_title(f"({'ab'[i]}) TCP {algo}", fontsize=10)
                for on, off in RENO_ON:
                    ax.axvspan(on, off, color="0.9", zorder=0)
                ax.grid(True, alpha=0.3)
                ax.legend(fontsize=7, loc="upper right")
        for ax in (ax7[-1], ax8[-1]):
            ax.set_xlabel("time (s)  (shaded: five Reno flows active)")
        fig7.tight_layout()
        fig8.tight_layout()
        return [
            Figure(
                "fig7",
                fig7,
                "Fig. 7: congestion window of the Vegas (a) and Vegas+ (b) flow, and of one Reno flow",
            ),
            Figure(
                "fig8",
                fig8,
                "Fig. 8: instantaneous throughput (1 s bins) of the Vegas (a) and Vegas+ (b) flow",
            ),
        ]

    def _claims(self, t: pd.DataFrame) -> list[Claim]:
        def phase(algo, on):
            return t[(t["algorithm"] == algo) & (t["reno_on"] == on)]

        fair = CAPACITY_KBPS / 6
        vegas_on, vegas_off = phase("Vegas", True), phase("Vegas", False)
        plus_on, plus_off = phase("Vegas+", True), phase("Vegas+", False)
        return [
            claim(
                "Vegas does not open its window when Reno joins "
                "(mean cwnd with Reno on <= 1.25 x with Reno off)",
                vegas_on["cwnd_mean"].mean() <= 1.25 * vegas_off["cwnd_mean"].mean(),
                f"{vegas_on['cwnd_mean'].mean():.1f} vs {vegas_off['cwnd_mean'].mean():.1f} packets",
            ),
            claim(
                "Vegas's throughput is degraded while Reno is on (below half its fair share)",
                vegas_on["kbps"].mean() < 0.5 * fair,
                f"{vegas_on['kbps'].mean():.0f} kb/s vs fair share {fair:.0f}",
            ),
            claim(
                "Vegas+ raises its window to about the Reno flows' "
                "(mean cwnd with Reno on >= 75% of Reno's mean)",
                plus_on["cwnd_mean"].mean() >= 0.75 * plus_on["reno_cwnd_mean"].mean(),
                f"Vegas+ {plus_on['cwnd_mean'].mean():.1f} vs "
                f"Reno {plus_on['reno_cwnd_mean'].mean():.1f} packets",
            ),
            claim(
                "Without Reno, Vegas+'s window is as stable as Vegas's (std within 0.5 packet of Vegas's)",
                plus_off["cwnd_std"].mean() <= vegas_off["cwnd_std"].mean() + 0.5,
                f"std {plus_off['cwnd_std'].mean():.2f} vs {vegas_off['cwnd_std'].mean():.2f} packets",
            ),
            claim(
                "Vegas+ gets rather good fairness while Reno is on (at least 75% of its fair share)",
                plus_on["kbps"].mean() >= 0.75 * fair,
                f"Vegas+ {plus_on['kbps'].mean():.0f}, Vegas {vegas_on['kbps'].mean():.0f}, Reno per flow "
                f"{plus_on['reno_kbps_per_flow'].mean():.0f} kb/s; fair share {fair:.0f}",
            ),
        ]


def _aggressive_after_reno(res: Result) -> str:
    """How long Vegas+ stays in aggressive mode after each Reno period ends, and how far its window
    grows meanwhile (section 5.1: only a count of zero returns it to moderate mode)."""
    vid = int(res.flows.loc[res.flows["cc"] != "reno", "id"].iloc[0])
    mode = res.cc_vars[(res.cc_vars["flow"] == vid) & (res.cc_vars["name"] == "aggressive")]
    cwnd = res.series[res.series["flow"] == vid]
    parts = []
    for _on, off in RENO_ON[:-1]:
        after = mode[mode["time"] > off]
        moderate = after[after["value"] == 0.0]
        back = float(moderate["time"].iloc[0]) if len(moderate) else math.nan
        peak = (
            float(cwnd[(cwnd["time"] > off) & (cwnd["time"] <= back)]["cwnd"].max())
            if len(moderate)
            else math.nan
        )
        parts.append(
            f"{back - off:.0f} s after the Reno flows stop at {off:.0f} s (window up to {peak:.0f} packets)"
        )
    return (
        "Vegas+ leaves aggressive mode only when its count falls to 0, which needs falling RTTs; once the "
        "Reno flows stop, its own Reno-like growth keeps the RTT rising, so it stays aggressive until losses "
        "halve the count to 0: back to moderate mode " + "; ".join(parts) + "."
    )


def _reno_active(t: pd.Series) -> pd.Series:
    return pd.concat([t.between(on, off) for on, off in RENO_ON], axis=1).any(axis=1)


# -- figs. 9 and 10: Vegas+ ----------------------------------------------------------------------------
@register
class Fig9(Experiment):
    name = "hasegawa/fig9"
    paper = "hasegawa"
    title = "Reno vs Vegas+ behind DropTail, count_max = 8 and 5, beside Vegas (figs. 9, 10)"
    ablations = (vegasplus_count_ablation(quick=True),)
    setup = _setup_common(
        " As fig. 3 with the Vegas flows replaced by Vegas+ (section 5.1) with count_max = 8 (fig. 9) and "
        "5 (fig. 10); the fig. 3 runs (plain Vegas) are shown beside them."
    )
    needs = ("cc:vegas", "cc:vegas_plus")

    def runs(self, quick: bool) -> list[Run]:
        return _sweep([PLAIN_VEGAS, VEGAS_PLUS_8, VEGAS_PLUS_5], quick)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        agg = aggregate(run_table(results), ["variant", "n_reno", "n_vegas", "buffer"])
        out.tables["per-flow throughput (kb/s)"] = _table(agg)
        for fig_no, v in ((9, VEGAS_PLUS_8), (10, VEGAS_PLUS_5)):
            fig = _throughput_figure(agg, v.label, reference=PLAIN_VEGAS.label, vegas_name="Vegas+")
            out.figures.append(
                Figure(
                    f"fig{fig_no}",
                    fig,
                    f"Fig. {fig_no}: per-flow throughput of Reno and Vegas+ ({v.label.split()[-1]}) "
                    "vs the DropTail "
                    "buffer (solid, 95% CI), with Reno and plain Vegas of fig. 3 (dotted, faint)",
                )
            )

        def gain(nr, nv) -> pd.Series:
            """Reduction of the unfairness |ln(Vegas/Reno)| by Vegas+ (count_max 8), per buffer."""
            plus = _case(agg, nr, nv, VEGAS_PLUS_8.label).set_index("buffer")["unfairness"]
            plain = _case(agg, nr, nv, PLAIN_VEGAS.label).set_index("buffer")["unfairness"]
            return plain - plus

        def halved(nr, nv):
            plus = _case(agg, nr, nv, VEGAS_PLUS_8.label).iloc[-1]["unfairness"]
            plain = _case(agg, nr, nv, PLAIN_VEGAS.label).iloc[-1]["unfairness"]
            return plus <= 0.5 * plain, f"|ln(Vegas/Reno)| {plain:.2f} with Vegas, {plus:.2f} with Vegas+"

        ok, detail = _per_case(halved)
        bmax = int(agg["buffer"].max())
        out.claims.append(
            claim(
                f"Vegas+ (count_max 8) significantly improves fairness at a large buffer whatever Nr and Nv "
                f"(unfairness at B = {bmax} at least halved)",
                ok,
                detail,
            )
        )

        def larger_gain(nr, nv):
            g = gain(nr, nv)
            g = g[g.index >= 20]
            return g.iloc[-1] > g.iloc[
                0
            ], f"{g.iloc[0]:+.2f} at B={g.index[0]} -> {g.iloc[-1]:+.2f} at B={g.index[-1]}"

        ok, detail = _per_case(larger_gain)
        out.claims.append(
            claim(
                "The improvement (drop of |ln(Vegas/Reno)|) is larger at large buffers than at B = 20",
                ok,
                detail,
            )
        )
        out.claims.append(_compare_variants(agg, VEGAS_PLUS_5.label, PLAIN_VEGAS.label))
        out.claims.append(_compare_variants(agg, VEGAS_PLUS_8.label, VEGAS_PLUS_5.label))
        out.notes.append(
            "003 prints figs. 9 and 10 as plots only. Unfairness is |ln(Vegas/Reno)| of the per-flow "
            "means: 0 is fair, and a Vegas-side flow getting twice a Reno flow's throughput counts as "
            "unfair as getting half."
        )
        return out


# -- figs. 11 and 13: ZL-RED; fig. 12: RED loss rates ----------------------------------------------------
@register
class Fig11(Experiment):
    name = "hasegawa/fig11"
    paper = "hasegawa"
    title = "ZL-RED, hit_drop = 0 and 0.8: throughput and packet loss rate of each kind (figs. 11, 13)"
    setup = _setup_common(
        " Router: ZL-RED (section 6) with p_min 1/50, p_max 1/10, th_min 5, th_max 0.6 B, a 1000-entry "
        "zombie list (SRED's replacement probability 0.25), hit_drop = 0 (fig. 11) and 0.8 (fig. 13); the "
        "RED p = 1/30 runs of fig. 4 for reference."
    )
    needs = ("cc:vegas", "queue:zl_red", "queue:red_const")

    def runs(self, quick: bool) -> list[Run]:
        return _sweep([ZL_0, ZL_08, RED_30], quick)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        agg = aggregate(run_table(results), ["variant", "n_reno", "n_vegas", "buffer"])
        out.tables["per-flow throughput (kb/s) and loss rates (%)"] = _table(
            agg, ["reno_loss_pct", "vegas_loss_pct"]
        )
        for fig_no, v in ((11, ZL_0), (13, ZL_08)):
            fig = _throughput_figure(agg, v.label, reference=RED_30.label, loss_row=True)
            out.figures.append(
                Figure(
                    f"fig{fig_no}",
                    fig,
                    f"Fig. {fig_no}: {v.label}: per-flow throughput (top; RED p = 1/30 dotted, faint) "
                    "and packet "
                    "loss rate (bottom) of Reno and Vegas vs the buffer",
                )
            )

        def reno_loses_more(nr, nv, variant=ZL_0.label):
            r = _mean_over_large(agg, variant, nr, nv, "reno_loss_pct")
            v = _mean_over_large(agg, variant, nr, nv, "vegas_loss_pct")
            return r > v, f"Reno {r:.2f}% vs Vegas {v:.2f}%"

        ok, detail = _per_case(reno_loses_more)
        out.claims.append(
            claim(
                f"hit_drop = 0: Reno's packet loss rate exceeds Vegas's (mean over B >= {LARGE})", ok, detail
            )
        )
        out.claims.append(_compare_variants(agg, ZL_0.label, RED_30.label))
        out.claims.append(_compare_variants(agg, ZL_08.label, ZL_0.label))
        out.claims.append(_compare_variants(agg, ZL_08.label, RED_30.label))

        def still_unfair(nr, nv):
            ratio = _mean_over_large(agg, ZL_08.label, nr, nv, "vegas/reno")
            return ratio < 1.0, f"Vegas/Reno {ratio:.2f}"

        ok, detail = _per_case(still_unfair)
        out.claims.append(
            claim("ZL-RED does not eliminate the unfairness (Vegas still below Reno)", ok, detail)
        )
        sep = {
            v.label: (
                _large(agg[agg["variant"] == v.label])["reno_loss_pct"].mean(),
                _large(agg[agg["variant"] == v.label])["vegas_loss_pct"].mean(),
            )
            for v in (ZL_0, ZL_08, RED_30)
        }
        out.notes.append(
            "003 prints figs. 11 and 13 as plots only. Mean loss rates over B >= 50 and the three cases: "
            + "; ".join(f"{k}: Reno {r:.2f}%, Vegas {v:.2f}%" for k, (r, v) in sep.items())
            + ". The hit-based first step (eq. 26) separates the kinds only modestly: with 10-15 flows a "
            "Reno flow's share of the arrivals, hence its hit probability, is at most a few times Vegas's."
        )
        return out


@register
class Fig12(Experiment):
    name = "hasegawa/fig12"
    paper = "hasegawa"
    title = "Packet loss rate of each kind behind RED, p = 1/30 (fig. 12)"
    setup = _setup_common(
        " Router: constant-probability RED, p = 1/30, th_min 5, th_max 0.6 B (the fig. 4 runs)."
    )
    needs = ("cc:vegas", "queue:red_const")

    def runs(self, quick: bool) -> list[Run]:
        return _sweep([RED_30], quick)

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        agg = aggregate(run_table(results), ["variant", "n_reno", "n_vegas", "buffer"])
        cols = [
            "n_reno",
            "n_vegas",
            "buffer",
            "reno_loss_pct",
            "reno_loss_pct_ci",
            "vegas_loss_pct",
            "vegas_loss_pct_ci",
            "n",
        ]
        out.tables["packet loss rate (%)"] = agg[cols]
        out.figures.append(
            Figure(
                "fig12",
                _loss_figure(agg, RED_30.label),
                "Fig. 12: packet loss rate of Reno and Vegas behind RED, p = 1/30",
            )
        )

        def equal(nr, nv):
            c = _large(_case(agg, nr, nv))
            rel = (
                (c["reno_loss_pct"] - c["vegas_loss_pct"]).abs()
                / c[["reno_loss_pct", "vegas_loss_pct"]].mean(axis=1)
            ).max()
            return rel <= 0.2, f"largest relative difference {rel:.0%}"

        ok, detail = _per_case(equal)
        out.claims.append(
            claim(
                f"RED drops both kinds' packets at the same rate (within 20% of each other for B >= {LARGE})",
                ok,
                detail,
            )
        )
        out.notes.append(
            "003 prints fig. 12 as a plot only; the claim is its statement that the rates are identical."
        )
        return out
