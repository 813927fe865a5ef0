"""The buffer sweeps' figures: per-flow throughput or loss rate of each kind against the buffer,
one panel per (Nr, Nv) case."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from ..common import panels
from .measure import case_rows
from .paper import CASES

XLABEL = "router buffer B (packets)"
CASE_TITLE = "({}) Nr = {}, Nv = {}"


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


def throughput_figure(
    agg: pd.DataFrame,
    variant: str,
    model: Callable[[int, int], pd.DataFrame] | None = None,
    reference: str | None = None,
    vegas_name: str = "Vegas",
    loss_row: bool = False,
):
    """Per-flow Reno and Vegas-side throughput vs B for the three (Nr, Nv) cases; the model's curves
    dashed, a reference variant's simulation faint; optionally a second row with loss rates."""
    fig, axes = panels(6 if loss_row else 3, 3, (4.3, 3.5))
    letters = ("ace", "bdf") if loss_row else ("abc",)
    for i, (nr, nv) in enumerate(CASES):
        ax = axes[0][i]
        d = case_rows(agg, nr, nv, variant)
        _kind_pair(ax, d, "kbps", vegas_name, " (sim)")
        if reference is not None:
            r = case_rows(agg, nr, nv, reference)
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


def loss_figure(agg: pd.DataFrame, variant: str):
    fig, axes = panels(3, 3, (4.3, 3.5))
    for i, (nr, nv) in enumerate(CASES):
        _kind_pair(axes[0][i], case_rows(agg, nr, nv, variant), "loss_pct", "Vegas")
        axes[0][i].set_title(CASE_TITLE.format("abc"[i], nr, nv), fontsize=10)
    _style_row(axes[0], "packet loss rate (%)")
    return _layout(fig, variant)
