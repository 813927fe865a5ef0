"""What the WLAN experiments measure from a run's records: each flow's direction, station and
throughput, the run's totals and fairness, the access point's state, stalls and ACK drops; and
the per-flow bar chart of figs. 5-10."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...analysis.stats import mean_ci
from ...result import Result, jain_index
from ..common import known, panels
from .paper import MSS, STARVED_SHARE


def _ap(res: Result) -> pd.Series:
    return res.wifi[res.wifi["is_ap"]].iloc[0]


def flow_table(res: Result) -> pd.DataFrame:
    """Per flow: direction, station, distance, throughput (Mb/s), timeouts, ACKs dropped."""
    f = res.flows
    direction = np.where(f["name"].str.startswith("up"), "up", "down")
    station = np.where(direction == "up", f["src"], f["dst"])
    dist = dict(zip(res.wifi["name"], res.wifi["distance"], strict=True))
    return pd.DataFrame(
        {
            "flow": f["name"],
            "direction": direction,
            "station": station,
            "distance_m": [dist.get(s, np.nan) for s in station],
            "mbps": f["goodput_bps"] / 1e6,
            "timeouts": f["timeouts"],
            "segments_sent": f["segments_sent"],
            "acks_dropped": f.filter(like="ack_drops_").sum(axis=1),
            "data_dropped": f.filter(like="data_drops_").sum(axis=1),
        }
    )


def starved(mbps: np.ndarray) -> int:
    """Flows below STARVED_SHARE of the fair share."""
    if mbps.size == 0 or mbps.sum() <= 0:
        return int(mbps.size)
    return int((mbps < STARVED_SHARE * mbps.sum() / mbps.size).sum())


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if x.size else float("nan")


def run_summary(res: Result) -> dict[str, Any]:
    """Totals, fairness and the AP's state over the measurement window."""
    ft = flow_table(res)
    up = ft[ft["direction"] == "up"]
    down = ft[ft["direction"] == "down"]
    ap = _ap(res)
    start = res.meta["measure"][0]
    q = res.ap_queue[res.ap_queue["time"] >= start]
    up_acks = float(res.flows.loc[up.index, "acks_sent"].sum())
    down_segs = float(down["segments_sent"].sum())
    up_m, down_m = _mean(up["mbps"].to_numpy()), _mean(down["mbps"].to_numpy())
    # Frames the AP delivered per segment the receivers got (whole run): the AP's channel load.
    segments = float(res.flows["bytes_delivered"].sum()) / MSS
    return {
        "total_mbps": float(ft["mbps"].sum()),
        "up_mean_mbps": up_m,
        "down_mean_mbps": down_m,
        "up_over_down": up_over_down(up_m, down_m),
        "jain_all": jain_index(ft["mbps"]),
        "jain_up": jain_index(up["mbps"]) if len(up) else float("nan"),
        "jain_down": jain_index(down["mbps"]) if len(down) else float("nan"),
        "starved_up": starved(up["mbps"].to_numpy()),
        "timeouts": int(ft["timeouts"].sum()),
        "ap_ack_drops": int(ap["ack_drops_buffer_overflow"]),
        "ap_data_drops": int(ap["data_drops_buffer_overflow"]),
        "ap_ack_drop_share": ap["ack_drops_buffer_overflow"] / up_acks if up_acks else float("nan"),
        "ap_down_data_drop_share": ap["data_drops_buffer_overflow"] / down_segs
        if down_segs
        else float("nan"),
        "ap_acks_queued": float(q["acks"].mean()) if len(q) else float("nan"),
        "ap_data_queued": float(q["data"].mean()) if len(q) else float("nan"),
        "ap_frames_per_segment": float(ap["acked"]) / segments if segments else float("nan"),
    }


def seed_means(rows: pd.DataFrame, by: Sequence[str], ci_of: Sequence[str]) -> pd.DataFrame:
    """One row per group of ``by`` (in order of appearance; no ``by``: one row of all runs):
    every other numeric column's mean over the group's runs, the 95% half width of those in
    ``ci_of`` (``<column>_ci95``, NaN for one run) and the number of runs."""
    out = []
    numeric = [c for c in rows.select_dtypes("number").columns if c not in by]
    groups = rows.groupby(list(by), sort=False) if by else [((), rows)]
    for key, g in groups:
        row: dict[str, Any] = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        for col in numeric:
            values = g[col].to_numpy(dtype=float)
            row[col] = float(values.mean())
            if col in ci_of:
                row[f"{col}_ci95"] = mean_ci(values).half_width if np.isfinite(values).all() else np.nan
        row["runs"] = len(g)
        out.append(row)
    return pd.DataFrame(out)


def with_ci(row: pd.Series, col: str, digits: int = 3, percent: bool = False) -> str:
    """``row[col]`` with its 95% half width over runs (from :func:`seed_means`) when it has one;
    ``percent`` shows a share in per cent."""
    half = row.get(f"{col}_ci95", np.nan)
    scale, unit = (100.0, "%") if percent else (1.0, "")
    value = f"{row[col] * scale:.{digits}f}{unit}"
    return f"{value} +- {half * scale:.{digits}f}{unit}" if np.isfinite(half) else value


def runs_note(rows: pd.Series | pd.DataFrame) -> str:
    """The suffix ``, means of N runs`` for a row (or a table: its fewest runs) of
    :func:`seed_means` over more than one run; empty for single runs."""
    runs = int(rows["runs"].min()) if isinstance(rows, pd.DataFrame) else int(rows["runs"])
    return f", means of {runs} runs" if runs > 1 else ""


def decided(row: pd.Series | dict[str, Any], holds: Any, *cols: str) -> bool | None:
    """``holds`` as a verdict when the figures ``cols`` of ``row`` it rests on are all known,
    else None: a claim on a NaN figure is not evaluated."""
    return bool(holds) if known(*(row[c] for c in cols)) else None


def up_over_down(up_mbps: float, down_mbps: float) -> float:
    """Uplink over downlink throughput: infinite when the downlinks got nothing, NaN when
    there are none (their mean is NaN)."""
    if down_mbps > 0:
        return up_mbps / down_mbps
    return float("inf") if down_mbps == 0 else float("nan")


def longest_stall(t: np.ndarray, mbps: np.ndarray, share: float = 0.1) -> float:
    """Longest run of 1-s bins in which a flow delivered less than ``share`` of its mean rate."""
    if mbps.size == 0 or mbps.mean() <= 0:
        return float(t.size)
    best = run = 0
    for slow in mbps < share * mbps.mean():
        run = run + 1 if slow else 0
        best = max(best, run)
    return float(best)


def ack_drops_per_second(res: Result, flows: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """TCP ACKs dropped at the AP per 1-s bin (from the event log), all flows or ``flows``."""
    return res.events_per_bin(1.0, flows, event="drop", kind="ack", cause="buffer_overflow")


def per_flow_bars(items: list[tuple[str, Result]], colour_by: str = "direction") -> Any:
    """004 figs. 8-10: the throughput of each flow, one panel per configuration."""
    fig, grid = panels(len(items), min(len(items), 3), (3.3, 2.6))
    axes = list(grid.flat[: len(items)])
    top = max((float(flow_table(r)["mbps"].max()) for _, r in items), default=1.0) * 1.1
    for ax, (label, res) in zip(axes, items, strict=True):
        ft = flow_table(res)
        if colour_by == "distance":
            colours = ["C0" if d <= 4 else "C3" for d in ft["distance_m"]]
        else:
            colours = ["C0" if d == "up" else "C1" for d in ft["direction"]]
        ax.bar(range(len(ft)), ft["mbps"], color=colours)
        s = run_summary(res)
        ax.set_title(f"{label}\nJain {s['jain_all']:.2f}, total {s['total_mbps']:.1f} Mb/s", fontsize=8)
        ax.set_ylim(0, top if top > 0 else 1)
        ax.set_xlabel("flow", fontsize=8)
        ax.set_ylabel("throughput (Mb/s)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig
