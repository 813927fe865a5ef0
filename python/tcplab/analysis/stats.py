"""Statistics over repeated runs: Student-t confidence intervals, per-run throughput ratios, Jain's index
and per-kind summaries.

The functions take a "flows" table: one row per flow per run, as the concatenation of ``Result.flows`` of
several runs with a run identifier column (see :func:`concat_flows`). Column names are parameters; the
defaults are the engine's (``cc``, ``goodput_bps``) and ``run``.

Code/table3 and code/fig9-15 (paper 000) report the mean and the 95% confidence interval of the per-run
ratio of delay-based to Reno throughput over 20 repetitions; veno/fig7 (paper 001) the mean and standard
deviation of per-flow throughput of each kind; code/table2 Jain's index.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as _st

from ..result import Result, jain_index
from . import _check

__all__ = [
    "ConfidenceInterval",
    "mean_ci",
    "concat_flows",
    "per_run_kind_means",
    "per_run_ratio",
    "ratio_ci",
    "per_kind_stats",
    "jain_per_run",
    "jain_index",
    "in_most_runs",
]


@dataclass(frozen=True)
class ConfidenceInterval:
    """A sample mean with its Student-t confidence interval (``low``/``high`` are NaN for one sample)."""

    mean: float
    low: float
    high: float
    #: Sample standard deviation (``ddof = 1``); NaN for one sample.
    std: float
    n: int
    confidence: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    @property
    def bounds(self) -> tuple[float, float]:
        """(low, high); for one sample, which has no interval, the value itself twice: a
        check on one run is decided by that run."""
        return (self.low, self.high) if self.n > 1 else (self.mean, self.mean)


def in_most_runs(shown: int, runs: int, alpha: float = 0.05) -> bool | None:
    """Whether something seen in ``shown`` of ``runs`` independent runs happens in most runs:
    the one-sided sign test at level ``alpha`` against a chance of one half. True when the
    chance is above one half (with five runs: all five show it), False when below (none of
    five), None when the runs cannot tell (more runs could). One run decides alone, as a
    one-run figure does (:attr:`ConfidenceInterval.bounds`)."""
    if not 0 <= shown <= runs or runs < 1:
        raise ValueError(f"shown must be in 0..runs and runs at least 1; got {shown} of {runs}")
    if runs == 1:
        return bool(shown)
    if _st.binomtest(shown, runs, 0.5, alternative="greater").pvalue <= alpha:
        return True
    if _st.binomtest(shown, runs, 0.5, alternative="less").pvalue <= alpha:
        return False
    return None


def _values(name: str, values: Any) -> np.ndarray:
    a = np.asarray(values, dtype=float).ravel()
    if a.size == 0:
        raise ValueError(f"{name} is empty: a mean needs at least one value")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite, got {a[~np.isfinite(a)][:3].tolist()}")
    return a


def mean_ci(values: Any, confidence: float = 0.95) -> ConfidenceInterval:
    """Mean and the two-sided Student-t interval ``mean +- t_{(1+c)/2, n-1} s / sqrt(n)``."""
    c = _check.open_unit("confidence", confidence)
    a = _values("values", values)
    n = a.size
    mean = float(a.mean())
    if n == 1:
        return ConfidenceInterval(mean, math.nan, math.nan, math.nan, 1, c)
    std = float(a.std(ddof=1))
    half = float(_st.t.ppf((1 + c) / 2, n - 1)) * std / math.sqrt(n)
    return ConfidenceInterval(mean, mean - half, mean + half, std, n, c)


def concat_flows(
    results: Iterable[Result | tuple[dict[str, Any], Result]], run_col: str = "run"
) -> pd.DataFrame:
    """One flows table for several runs: each run's ``Result.flows`` with a ``run_col`` column holding its
    position, plus the run's parameters as columns when the items are ``(params, Result)`` pairs (as an
    experiment's ``analyze`` receives them); a parameter named like a flows column is left out.
    Built with one concatenation, not one copy per run: experiments stack thousands of runs."""
    items = [item if isinstance(item, tuple) else ({}, item) for item in results]
    if not items:
        raise ValueError("results is empty: nothing to concatenate")
    frames = [result.flows for _, result in items]
    flows = pd.concat(frames, ignore_index=True)
    runs = np.repeat(np.arange(len(items)), [len(f) for f in frames])
    params = pd.DataFrame([params for params, _ in items], index=range(len(items)))
    params = params[[c for c in params.columns if c not in flows.columns and c != run_col]]
    out = pd.concat([flows, params.iloc[runs].reset_index(drop=True)], axis=1)
    out.insert(0, run_col, runs)
    return out


def _need_columns(flows: pd.DataFrame, *cols: str) -> None:
    if not isinstance(flows, pd.DataFrame):
        raise ValueError(f"flows must be a pandas DataFrame, got {type(flows).__name__}")
    missing = [c for c in cols if c not in flows.columns]
    if missing:
        raise ValueError(f"flows lacks column(s) {missing}; it has {list(flows.columns)}")


def per_run_kind_means(
    flows: pd.DataFrame, *, run_col: str = "run", kind_col: str = "cc", value_col: str = "goodput_bps"
) -> pd.DataFrame:
    """Mean value per flow of each kind in each run: rows are runs, columns kinds (NaN where a run has
    no flow of that kind)."""
    _need_columns(flows, run_col, kind_col, value_col)
    return flows.groupby([run_col, kind_col])[value_col].mean().unstack(kind_col)


def per_run_ratio(
    flows: pd.DataFrame,
    numerator: str,
    denominator: str,
    *,
    run_col: str = "run",
    kind_col: str = "cc",
    value_col: str = "goodput_bps",
) -> pd.Series:
    """Per run: mean throughput of a ``numerator``-kind flow over that of a ``denominator``-kind flow
    (e.g. ``"code"`` over ``"reno"``). Every run must have both kinds and a non-zero denominator."""
    means = per_run_kind_means(flows, run_col=run_col, kind_col=kind_col, value_col=value_col)
    for kind, name in ((numerator, "numerator"), (denominator, "denominator")):
        if kind not in means.columns:
            raise ValueError(f"{name} kind {kind!r} has no flows; kinds present: {list(means.columns)}")
    lacking = means.index[means[numerator].isna() | means[denominator].isna()].tolist()
    if lacking:
        raise ValueError(f"runs {lacking} lack a {numerator!r} or a {denominator!r} flow")
    zero = means.index[means[denominator] == 0].tolist()
    if zero:
        raise ValueError(f"runs {zero} have zero {value_col} for {denominator!r}: the ratio is undefined")
    ratio = means[numerator] / means[denominator]
    ratio.name = f"{numerator}/{denominator}"
    return ratio


def ratio_ci(
    flows: pd.DataFrame,
    numerator: str,
    denominator: str,
    confidence: float = 0.95,
    *,
    run_col: str = "run",
    kind_col: str = "cc",
    value_col: str = "goodput_bps",
) -> ConfidenceInterval:
    """Mean and Student-t interval of :func:`per_run_ratio` across runs (the repetitions are the samples)."""
    ratios = per_run_ratio(
        flows, numerator, denominator, run_col=run_col, kind_col=kind_col, value_col=value_col
    )
    return mean_ci(ratios.to_numpy(), confidence)


def per_kind_stats(
    flows: pd.DataFrame,
    confidence: float = 0.95,
    *,
    run_col: str = "run",
    kind_col: str = "cc",
    value_col: str = "goodput_bps",
) -> pd.DataFrame:
    """One row per kind: ``flows`` (rows counted), ``runs``, ``mean`` and ``std`` of the per-flow values
    pooled over all runs (``ddof = 1``), and ``ci_low``/``ci_high``: the Student-t interval of the per-run
    mean per flow of the kind across runs (NaN with one run)."""
    c = _check.open_unit("confidence", confidence)
    _need_columns(flows, run_col, kind_col, value_col)
    if flows.empty:
        raise ValueError("flows is empty")
    run_means = per_run_kind_means(flows, run_col=run_col, kind_col=kind_col, value_col=value_col)
    rows = []
    for kind, group in flows.groupby(kind_col, sort=True):
        values = group[value_col].to_numpy(dtype=float)
        ci = mean_ci(run_means[kind].dropna().to_numpy(), c)
        rows.append(
            {
                kind_col: kind,
                "flows": len(values),
                "runs": ci.n,
                "mean": float(values.mean()),
                "std": float(values.std(ddof=1)) if len(values) > 1 else math.nan,
                "ci_low": ci.low,
                "ci_high": ci.high,
            }
        )
    return pd.DataFrame(rows)


def jain_per_run(flows: pd.DataFrame, *, run_col: str = "run", value_col: str = "goodput_bps") -> pd.Series:
    """Jain's index of each run's flows (``tcplab.result.jain_index``), indexed by run."""
    _need_columns(flows, run_col, value_col)
    out = flows.groupby(run_col)[value_col].apply(lambda x: jain_index(x.to_numpy()))
    out.name = "jain"
    return out
