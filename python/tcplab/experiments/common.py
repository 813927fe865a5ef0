"""Building blocks shared by the experiment modules: topologies, flow mixes, tables, plots."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["figure.max_open_warning"] = 0  # a report holds many figures until written
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ..analysis.stats import concat_flows, in_most_runs, mean_ci  # noqa: E402
from ..result import Result  # noqa: E402
from .base import Claim, Published  # noqa: E402

KB = 1000.0


def flows_frame(results: list[tuple[dict[str, Any], Result]]) -> pd.DataFrame:
    """All runs' flow tables stacked, each row tagged with its run's parameters and index
    (an empty frame for no runs)."""
    return concat_flows(results) if results else pd.DataFrame()


def claim(
    text: str, holds: bool | None, detail: str = "", *, cause: str | None = None, why: str = ""
) -> Claim:
    """A checked claim. ``holds`` None (or NaN) means the check had no data to decide on: the
    claim is "not evaluated", never "holds". ``cause``/``why`` explain a claim the paper's own
    numbers make unsatisfiable (tcplab.experiments.causes), with the arithmetic in ``why``."""
    if holds is None or (isinstance(holds, float) and math.isnan(holds)):
        return Claim(text, None, detail)
    ok = bool(holds)
    if cause is not None and not ok:
        return Claim(text, ok, detail, cause=cause, explanation=why)
    return Claim(text, ok, detail)


def every(values: Iterable[Any] | pd.Series | pd.DataFrame) -> bool | None:
    """``all()`` that refuses to decide on nothing: None for no values (a claim on no data
    is not evaluated), else whether every value is true. NaN or None values are not data
    either and make the verdict None."""
    if isinstance(values, pd.DataFrame):
        values = values.to_numpy().ravel().tolist()
    elif isinstance(values, pd.Series):
        values = values.tolist()
    seen = False
    result = True
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return None
        seen = True
        result = result and bool(v)
    return result if seen else None


def range_claim(
    text: str,
    lows: Sequence[float],
    highs: Sequence[float],
    allowed: tuple[float, float],
    detail: str = "",
    shown: str = "",
) -> Claim:
    """A claim that every figure lies in the range ``allowed`` (inclusive; +-inf for a one-sided
    one), each figure known only to its confidence interval [low, high]: it holds when every
    interval lies inside, fails when one lies wholly outside, and is undecided when none is
    outside but one straddles an edge (more runs could decide). A figure of one run, whose
    interval is its value (pass low = high), decides alone. No figure, or a NaN one, is "not
    evaluated". ``shown`` names the range in the detail (default: from ``allowed``)."""
    lo, hi = allowed
    shown = shown or _range(lo, hi)
    pairs = list(zip(lows, highs, strict=True))
    if not pairs or not all(known(a, b) for a, b in pairs):
        return Claim(text, None, detail)
    outside = sum(1 for a, b in pairs if b < lo or a > hi)
    across = sum(1 for a, b in pairs if not (b < lo or a > hi) and (a < lo or b > hi))

    def said(what: str) -> str:
        return f"{detail}; {what}" if detail else what

    if outside:
        return Claim(text, False, said(f"{outside} of {len(pairs)} outside {shown}"))
    if across:
        straddling = f"{across} of {len(pairs)} with an interval across {shown}, none outside"
        return Claim(text, None, said(straddling), undecided=True)
    return Claim(text, True, detail)


def seeds_claim(text: str, per_seed: Sequence[bool | None], detail: str = "") -> Claim:
    """A claim about something a paper saw in its one run (a starved flow, a quiet queue),
    checked in each of our seeds and read as "it happens in most runs": decided by the sign
    test of :func:`~tcplab.analysis.stats.in_most_runs` (with five seeds it holds when all five
    show it, fails when none does, and is undecided in between; one seed decides alone). Seeds
    without the data (None or NaN) are left out and counted in the detail; none with data is
    "not evaluated"."""
    seen = [bool(v) for v in per_seed if known(v)]
    if not seen:
        return Claim(text, None, detail)
    k, n = sum(seen), len(seen)
    missing = len(per_seed) - n
    said = f"in {k} of {n} seeds" + (f" ({missing} without data)" if missing else "")
    said += f"; {detail}" if detail else ""
    verdict = in_most_runs(k, n)
    if verdict is None:
        return Claim(text, None, said, undecided=True)
    return Claim(text, verdict, said)


def _range(lo: float, hi: float) -> str:
    if math.isinf(hi):
        return f">= {lo:g}"
    if math.isinf(lo):
        return f"<= {hi:g}"
    return f"[{lo:g}, {hi:g}]"


def known(*values: float) -> bool:
    """Whether every value is a number (not NaN, not None): a comparison of unknowns is not
    evidence, so ``claim(text, a < b if known(a, b) else None)``."""
    return all(v is not None and not (isinstance(v, float) and math.isnan(v)) for v in values)


def comparison(rows: Iterable[tuple[Published, float]]) -> pd.DataFrame:
    """Published numbers beside ours, with the ratio ours/published."""
    out = []
    for pub, ours in rows:
        out.append(
            {
                "quantity": pub.quantity,
                "published": pub.value,
                "ours": ours,
                "unit": pub.unit,
                "ours/published": ours / pub.value if pub.value else float("nan"),
                "source": pub.source,
            }
        )
    return pd.DataFrame(out)


def summarize(
    df: pd.DataFrame, by: list[str], value: str = "goodput_bps", scale: float = 1e3
) -> pd.DataFrame:
    """Mean and 95% Student-t half width of ``value`` (scaled, default kb/s) per group."""
    rows = []
    for key, g in df.groupby(by, sort=True):
        ci = mean_ci(g[value].to_numpy() / scale)
        rows.append(
            {
                **dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
                "mean": ci.mean,
                "ci95": ci.half_width,
                "n": len(g),
            }
        )
    return pd.DataFrame(rows)


def label_axes(ax, xlabel: str, ylabel: str, title: str = "", **title_options: Any) -> None:
    """One panel's labels, title (if any), grid and legend (if anything is labelled)."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, **title_options)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)


def figure(plot: Callable[[Any], None], xlabel: str, ylabel: str, title: str = "", size=(6.4, 4.0)):
    """One panel drawn by ``plot(ax)``, labelled."""
    fig, ax = plt.subplots(figsize=size)
    plot(ax)
    label_axes(ax, xlabel, ylabel, title)
    fig.tight_layout()
    return fig


def panels(n: int, ncols: int, panel_size: tuple[float, float], size=None, **subplots: Any):
    """A grid of ``n`` panels, ``ncols`` to a row, each ``panel_size`` inches (or the whole
    figure ``size``); the grid's unused cells are hidden. Returns the figure and its 2-D
    array of axes; ``subplots`` go to :func:`matplotlib.pyplot.subplots` (``sharex=True``)."""
    nrows = math.ceil(n / ncols)
    width, height = panel_size
    fig, axes = plt.subplots(
        nrows, ncols, figsize=size or (width * ncols, height * nrows), squeeze=False, **subplots
    )
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, axes


def panel_figure(
    items: Sequence[Any],
    plot: Callable[[Any, Any], None],
    xlabel: str,
    ylabel: str,
    titles: Sequence[str],
    ncols: int = 2,
    size: tuple[float, float] | None = None,
):
    """One labelled panel per item, drawn by ``plot(ax, item)``, sharing the x axis."""
    fig, axes = panels(len(items), ncols, (5.2, 3.6), size, sharex=True)
    for ax, item, title in zip(axes.flat, items, titles, strict=False):
        plot(ax, item)
        label_axes(ax, xlabel, ylabel, title, fontsize=10)
    fig.tight_layout()
    return fig
