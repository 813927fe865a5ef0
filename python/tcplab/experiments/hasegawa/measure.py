"""What the buffer sweeps measure: one row per run, the mean over seeds with its interval, and
the per-case checks the claims are made of."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from ...analysis.stats import concat_flows, mean_ci
from ..base import Claim, Results
from ..common import claim, every, range_claim
from .paper import BASE_RTT, CASES, LARGE, SHARE_TOLERANCE

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
    "run_reno_share",
)


def run_table(results: Results) -> pd.DataFrame:
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
        total_bps=("goodput_bps", "sum"),
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
    # Each run's own Reno share: its spread over seeds is the model checks' interval.
    reno, vegas = column("total_bps", "reno"), column("total_bps", "vegas")
    out["run_reno_share"] = reno / (reno + vegas)
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
    out["reno_share"] = reno_share(out["n_reno"], out["n_vegas"], out["reno_kbps"], out["vegas_kbps"])
    return out


def reno_share(nr, nv, reno, vegas):
    """Reno's fraction of the delivered traffic, from per-flow means."""
    return nr * reno / (nr * reno + nv * vegas)


def case_rows(df: pd.DataFrame, nr: int, nv: int, variant: str | None = None) -> pd.DataFrame:
    """The rows of one (Nr, Nv) case (and variant), by buffer."""
    sel = (df["n_reno"] == nr) & (df["n_vegas"] == nv)
    if variant is not None:
        sel &= df["variant"] == variant
    return df[sel].sort_values("buffer")


# -- claim helpers ------------------------------------------------------------------------------------
def large(agg: pd.DataFrame) -> pd.DataFrame:
    """The rows of realistic buffers (B >= LARGE)."""
    return agg[agg["buffer"] >= LARGE]


def mean_over_large(agg: pd.DataFrame, variant: str, nr: int, nv: int, col: str) -> float:
    """``col``'s mean over the realistic buffers of one case and variant."""
    return float(large(case_rows(agg, nr, nv, variant))[col].mean())


def per_case(fn: Callable[[int, int], tuple[bool, str]]) -> tuple[bool, str]:
    """Applies a per-case check to all three cases; holds if it holds in each."""
    results = [(nr, nv, *fn(nr, nv)) for nr, nv in CASES]
    detail = "; ".join(f"({nr},{nv}): {d}" for nr, nv, _, d in results)
    return every(ok for _, _, ok, _ in results), detail


def compare_variants(runs: pd.DataFrame, fairer: str, than: str) -> Claim:
    """``fairer`` is fairer than ``than`` over B >= LARGE in every case: a paired test over
    seeds (the two variants' runs of a seed share its start times). Each seed's unfairness is
    its runs' |ln(Vegas/Reno)| averaged over the realistic buffers; a case holds when the 95 %
    Student-t interval of the seeds' differences (``than`` minus ``fairer``) lies above 0,
    fails when it lies below, and leaves the claim undecided when it straddles 0
    (``range_claim``). With one seed (quick) the point difference decides."""
    large_runs = runs[runs["buffer"] >= LARGE]
    with np.errstate(divide="ignore"):  # a kind with no throughput: infinite, refused below
        per_run = np.log(large_runs["vegas_kbps"] / large_runs["reno_kbps"]).abs()
    keys = ["variant", "n_reno", "n_vegas", "seed"]
    by_seed = large_runs.assign(unfairness=per_run).groupby(keys)["unfairness"].mean().unstack("variant")
    text = f"{fairer} is fairer than {than} (mean |ln(Vegas/Reno)| over B >= {LARGE}, paired by seed)"
    lows, highs, details = [], [], []
    for nr, nv in CASES:
        case = by_seed.query(f"n_reno == {nr} and n_vegas == {nv}")
        pair = case[[fairer, than]].dropna() if {fairer, than} <= set(case) else case.iloc[:0]
        if not len(pair):
            return claim(text, None, f"({nr},{nv}): no runs")
        if not np.isfinite(pair.to_numpy()).all():
            # A kind with no throughput in some run: its unfairness is unbounded, no mean.
            return claim(text, None, f"({nr},{nv}): a run in which one kind delivered nothing")
        ci = mean_ci(pair[than] - pair[fairer])
        low, high = ci.bounds
        lows.append(low)
        highs.append(high)
        spread = f"difference {ci.mean:+.2f} [{low:+.2f}, {high:+.2f}]" if ci.n > 1 else "one seed"
        details.append(f"({nr},{nv}): {pair[fairer].mean():.2f} vs {pair[than].mean():.2f} ({spread})")
    # Strictly above 0: a variant is not fairer than one it ties with.
    return range_claim(text, lows, highs, (1e-12, math.inf), "; ".join(details), shown="> 0")


def model_agreement(agg: pd.DataFrame, variant: str, text: str) -> Claim:
    """The simulated Reno share is within ``SHARE_TOLERANCE`` of the model's at every point of
    B >= LARGE, as an equivalence test (``range_claim``): a point agrees when the 95 % interval
    of its runs' shares (``run_reno_share``, over seeds) lies inside model +- tolerance,
    disagrees when it lies wholly outside, and leaves the claim undecided when it straddles an
    edge; with one seed (quick) the mean decides."""
    d = large(agg[agg["variant"] == variant]).dropna(subset=["run_reno_share", "model_share"])
    if not len(d):
        return claim(text, None, "no point inside the model's domain")
    # The runs' mean share, the figure the verdict is about (the tables' share_error is that
    # of the mean throughputs, a little different).
    off = d["run_reno_share"] - d["model_share"]
    worst = d.loc[off.abs().idxmax()]
    detail = (
        f"largest |Reno share sim - model| for B >= {LARGE}: {abs(off[worst.name]):.2f} at "
        f"(Nr, Nv, B) = ({int(worst['n_reno'])}, {int(worst['n_vegas'])}, {int(worst['buffer'])}); "
        f"mean {off.abs().mean():.2f}"
    )
    # One run: its share is the figure itself (no interval).
    half = d["run_reno_share_ci"].where(d["n"] > 1, 0.0)
    tol = SHARE_TOLERANCE
    return range_claim(text, off - half, off + half, (-tol, tol), detail, shown=f"model +- {tol:g}")


def sweep_table(agg: pd.DataFrame, extra: Iterable[str] = ()) -> pd.DataFrame:
    """The aggregated sweep as reported: per-flow throughputs, their ratio and ``extra`` columns."""
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
