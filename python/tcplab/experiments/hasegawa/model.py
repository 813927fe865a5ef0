"""003's analytical models in goodput per flow (kb/s), for the simulations to be shown beside:
eqs. (5)-(12) behind DropTail and eqs. (13)-(24) behind constant-probability RED."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pandas as pd

from ...analysis.reno_vegas import droptail_curve, red_model
from .measure import reno_share
from .paper import BOTTLENECK_BPS, MIN_RTO, MSS, TAU, VEGAS, WIRE


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


def with_model(agg: pd.DataFrame, model: Callable[[int, int, int], tuple[float, float]]) -> pd.DataFrame:
    """Adds the model's per-flow values, its Reno share and the share error |sim - model|."""
    vals = [model(int(r.n_reno), int(r.n_vegas), int(r.buffer)) for r in agg.itertuples()]
    out = agg.copy()
    out["model_reno_kbps"] = [v[0] for v in vals]
    out["model_vegas_kbps"] = [v[1] for v in vals]
    model_kbps = out["model_reno_kbps"], out["model_vegas_kbps"]
    out["model_share"] = reno_share(out["n_reno"], out["n_vegas"], *model_kbps)
    out["share_error"] = (out["reno_share"] - out["model_share"]).abs()
    return out


def droptail_point(nr: int, nv: int, b: int) -> tuple[float, float]:
    row = droptail_model_kbps(nr, nv, [b]).iloc[0]
    return float(row["reno_kbps"]), float(row["vegas_kbps"])
