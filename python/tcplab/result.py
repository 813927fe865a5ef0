"""Run results as pandas DataFrames."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .tables import TABLES, engine_tables


def variable_samples(
    cc_vars: pd.DataFrame, name: str, window: tuple[float, float] | None = None
) -> pd.DataFrame:
    """The rows of a ``cc_vars`` table (time, flow, name, value) for variable ``name``, inside
    ``window`` when given; empty when none exports it or the table has no variables at all."""
    if not len(cc_vars) or "name" not in cc_vars:
        return pd.DataFrame(columns=["time", "flow", "name", "value"])
    mine = cc_vars[cc_vars["name"] == name]
    if window is not None:
        mine = mine[(mine["time"] >= window[0]) & (mine["time"] <= window[1])]
    return mine


@dataclass
class Result:
    """The records of one run.

    ``flows``: one row per flow (goodput over the measurement window, counters, drops by
    cause); ``links``: one row per link direction; ``series``: cwnd/ssthresh/srtt samples;
    ``queues``: queue-length samples of monitored links; ``cc_vars``: algorithm internals;
    ``queue_vars``: AQM internals (RED's average, SRED's hit frequency); ``udp_flows``: CBR
    sources; ``traces``: pcap files written; ``wifi``: per 802.11 interface (attempts,
    retries, collisions, drops, wireless delay); ``ap_queue``: the access point's data and
    ACK occupancy; ``frames``: per-frame wireless delays if the WLAN logs them;
    ``losses``: every loss response with the algorithm's classification and the true
    cause; ``events``: the per-event log if the scenario asked for one.
    """

    flows: pd.DataFrame
    udp_flows: pd.DataFrame
    links: pd.DataFrame
    series: pd.DataFrame
    queues: pd.DataFrame
    cc_vars: pd.DataFrame
    queue_vars: pd.DataFrame
    losses: pd.DataFrame
    traces: pd.DataFrame
    wifi: pd.DataFrame
    ap_queue: pd.DataFrame
    frames: pd.DataFrame | None
    events: pd.DataFrame | None
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_engine(cls, raw: dict[str, Any]) -> Result:
        tables = engine_tables(raw)
        frames = {k: (tables[k].to_pandas() if k in tables else None) for k in TABLES}
        return cls(meta=dict(raw["meta"]), **frames)

    def jain_index(self, column: str = "goodput_bps") -> float:
        """Jain's fairness index over flows: (sum x)^2 / (n sum x^2)."""
        return jain_index(self.flows[column].to_numpy())

    def to_parquet(self, directory: str | Path, exclude: Iterable[str] = ()) -> list[Path]:
        """Writes every table as ``<name>.parquet``, except those in ``exclude`` (tables a
        :class:`~tcplab.tables.SeriesFiles` streamed there); returns the paths written."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        written = []
        skip = set(exclude)
        for name in TABLES:
            df = getattr(self, name)
            if df is None or name in skip:
                continue
            path = d / f"{name}.parquet"
            tmp = path.with_suffix(".parquet.tmp")
            df.to_parquet(tmp, index=False)
            tmp.replace(path)
            written.append(path)
        return written

    def cwnd(self, flow: int) -> pd.DataFrame:
        """The cwnd series of one flow."""
        return self.series[self.series["flow"] == flow]

    # -- measurements shared by the experiments ---------------------------------------------

    def flow_ids(self, *ccs: str) -> list[int]:
        """The ids of the flows running any of the algorithms ``ccs``, in flow order."""
        return [int(i) for i in self.flows.loc[self.flows["cc"].isin(ccs), "id"]]

    def goodput_bps(self, cc: str) -> float:
        """The mean goodput over the measurement window of the flows running ``cc``, bits per
        second (NaN when no flow runs it)."""
        return float(self.flows.loc[self.flows["cc"] == cc, "goodput_bps"].mean())

    def cc_var(self, flow: int, name: str) -> pd.DataFrame:
        """The samples of one of a flow's congestion-control variables (``alpha``, ``diff``),
        in time order."""
        v = variable_samples(self.cc_vars, name)
        return v[v["flow"] == flow].sort_values("time", kind="stable")

    def cc_var_samples(self, name: str, window: tuple[float, float] | None = None) -> pd.DataFrame:
        """Every flow's samples of one congestion-control variable (time, flow, name, value),
        inside ``window`` when given; empty when no flow exports it (or the run has no
        variables at all, as kernel runs before the bed read them)."""
        return variable_samples(self.cc_vars, name, window)

    def delivered(self, flow: int) -> tuple[np.ndarray, np.ndarray]:
        """(time, bytes delivered in order to the receiver) of one flow from its sampled
        series, starting at (0, 0)."""
        s = self.series[self.series["flow"] == flow].sort_values("time")
        t = s["time"].to_numpy(dtype=float)
        b = s["bytes_delivered"].to_numpy(dtype=float)
        if not len(t) or t[0] > 0:
            t, b = np.concatenate([[0.0], t]), np.concatenate([[0.0], b])
        return t, b

    def delivered_at(self, flow: int, at: float) -> float:
        """Bytes one flow had delivered by time ``at`` (interpolated between samples)."""
        return float(np.interp(at, *self.delivered(flow)))

    def throughput_bins(
        self, flow: int, bin_s: float = 1.0, start: float = 0.0
    ) -> tuple[np.ndarray, np.ndarray]:
        """One flow's goodput in consecutive ``bin_s`` bins from ``start`` to the last whole
        bin before its last sample, from the bytes delivered: (each bin's end, bits/s)."""
        t, b = self.delivered(flow)
        edges = np.arange(start, t[-1] + 1e-9, bin_s)
        return edges[1:], np.diff(np.interp(edges, t, b)) * 8 / bin_s

    def events_per_bin(
        self, bin_s: float, flows: Iterable[int] | None = None, **match: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """How many logged events have every column of ``match`` at its value (``event="drop",
        kind="ack"``), of ``flows`` or all, in each ``bin_s`` bin of the run: (each bin's
        start, counts). Zeros when the run kept no event log."""
        edges = np.arange(0.0, self.meta["duration"] + bin_s / 2, bin_s)
        ev = self.events
        if ev is None or not len(ev):
            return edges[:-1], np.zeros(len(edges) - 1)
        hit = np.ones(len(ev), dtype=bool)
        for column, value in match.items():
            hit &= (ev[column] == value).to_numpy()
        if flows is not None:
            hit &= ev["flow"].isin(list(flows)).to_numpy()
        counts, _ = np.histogram(ev["time"].to_numpy()[hit], bins=edges)
        return edges[:-1], counts


def jain_index(x: Any) -> float:
    """Jain, Chiu and Hawe (1984): 1 for equal shares, 1/n when one takes all. NaN when
    it is undefined (no flows, or none got anything), so "nobody was served" never reads
    as perfectly fair; comparisons with NaN are false and pandas' mean and min skip it."""
    a = np.asarray(x, dtype=float)
    sq = float(np.sum(a * a))
    if a.size == 0 or sq == 0.0:
        return float("nan")
    return float(np.sum(a) ** 2 / (a.size * sq))
