"""Building blocks shared by the experiment modules: topologies, flow mixes, tables, plots."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["figure.max_open_warning"] = 0  # a report holds many figures until written
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ..analysis.stats import concat_flows, mean_ci  # noqa: E402
from ..result import Result  # noqa: E402
from .base import Claim, Published  # noqa: E402

KB = 1000.0


def flows_frame(results: list[tuple[dict[str, Any], Result]]) -> pd.DataFrame:
    """All runs' flow tables stacked, each row tagged with its run's parameters and index
    (an empty frame for no runs)."""
    return concat_flows(results) if results else pd.DataFrame()


def claim(text: str, holds: bool, detail: str = "") -> Claim:
    return Claim(text, bool(holds), detail)


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


def figure(plot: Callable[[Any], None], xlabel: str, ylabel: str, title: str = "", size=(6.4, 4.0)):
    fig, ax = plt.subplots(figsize=size)
    plot(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
