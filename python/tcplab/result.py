"""Run results as pandas DataFrames."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .tables import TABLES, engine_tables


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


def jain_index(x: Any) -> float:
    """Jain, Chiu and Hawe (1984): 1 for equal shares, 1/n when one takes all. NaN when
    it is undefined (no flows, or none got anything), so "nobody was served" never reads
    as perfectly fair; comparisons with NaN are false and pandas' mean and min skip it."""
    a = np.asarray(x, dtype=float)
    sq = float(np.sum(a * a))
    if a.size == 0 or sq == 0.0:
        return float("nan")
    return float(np.sum(a) ** 2 / (a.size * sq))
