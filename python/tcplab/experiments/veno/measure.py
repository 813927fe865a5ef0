"""Measures several Veno experiments share: a transfer's throughput, Veno's branch per fast
retransmit, shares and loss-rate labels."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...result import Result
from .paper import KB


def transfer_kBps(row: pd.Series, file_bytes: int, duration: float) -> tuple[float, bool]:
    """A file transfer's throughput: file / transfer time (001 section III-B) if it
    completed, else the bytes delivered / the run's duration; and whether it completed."""
    ct = row["completion_time"]
    if ct is not None and np.isfinite(ct) and ct > 0:
        return file_bytes / ct / KB, True
    return float(row["bytes_delivered"]) / duration / KB, False


def loss_label(p: float) -> str:
    """A loss rate as the paper writes it: 1e-3, not 1e-03."""
    return f"{p:.0e}".replace("e-0", "e-")


def frac(a: float, b: float) -> float:
    """a / b, NaN for a share of nothing."""
    return a / b if b else float("nan")


def veno_cuts(results: list[tuple[dict[str, Any], Result]], keys: tuple[str, ...]) -> pd.DataFrame:
    """Veno's fast retransmits per group of runs: how many took the 4/5 (random) branch and
    how many of those repaired a buffer overflow."""
    rows = []
    for params, res in results:
        L = res.losses
        ff = L[L["flow"].isin(res.flow_ids("veno")) & (L["kind"] == "fast_retransmit")]
        rows.append(
            {
                **{k: params[k] for k in keys},
                "fast retransmits": len(ff),
                "4/5 cuts": int((ff["cc_label"] == "random").sum()),
                "4/5 cuts of buffer overflows": int(
                    ((ff["cc_label"] == "random") & (ff["true_cause"] == "buffer_overflow")).sum()
                ),
                "1/2 cuts": int((ff["cc_label"] == "congestive").sum()),
            }
        )
    df = pd.DataFrame(rows)
    df = df[df["fast retransmits"] > 0]
    if not len(df):
        return df
    g = df.groupby(list(keys)).sum(numeric_only=True).reset_index()
    g["share of 4/5 cuts"] = g["4/5 cuts"] / g["fast retransmits"]
    return g
