"""Kernel test bed and simulator side by side on the same scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..result import Result
from ..scenario import Scenario
from .plan import plan
from .runner import LIMITED_COUNTERS, run_scenario

COLUMNS = ["goodput_bps", "retransmissions", "timeouts", "mean_rtt", "min_rtt"]
#: Figures from the sampled series inside the measurement window (``flow_figures``); the last,
#: BBR's bandwidth estimate (bits per second), from its ``bw`` variable (the kernel's bbr reports
#: it through tcp_bbr_info).
SERIES_COLUMNS = ["mean_cwnd", "mean_srtt", "p95_srtt", "mean_bw_estimate"]
#: The kernel's own account of what held its flows back (testbed/runner.py, seconds over the
#: run): no simulated counterpart, shown for the kernel side only.
KERNEL_ONLY_COLUMNS = list(LIMITED_COUNTERS)
LINK_COLUMNS = ["packets_sent", "mean_queue", "max_queue", "drops_buffer_overflow", "drops_random_loss"]


def flow_figures(result: Result, window: tuple[float, float]) -> pd.DataFrame:
    """Per flow: mean cwnd (segments), mean and 95th percentile of the smoothed RTT (s), from
    the series samples inside ``window``, and BBR's mean bandwidth estimate (b/s) from its
    ``bw`` samples there (NaN where a flow has none)."""
    rows = []
    s = result.series
    bw = result.cc_var_samples("bw", window)
    for i in result.flows["id"]:
        mine = s[(s["flow"] == i) & (s["time"] >= window[0]) & (s["time"] <= window[1])] if len(s) else s
        c = mine["cwnd"].to_numpy(float) if len(mine) else np.array([])
        r = mine["srtt"].to_numpy(float) if len(mine) else np.array([])
        r = r[np.isfinite(r) & (r > 0)]
        rows.append(
            {
                "id": i,
                "mean_cwnd": float(np.nanmean(c)) if np.isfinite(c).any() else np.nan,
                "mean_srtt": float(r.mean()) if len(r) else np.nan,
                "p95_srtt": float(np.percentile(r, 95)) if len(r) else np.nan,
                "mean_bw_estimate": _mean_bits(bw.loc[bw["flow"] == i, "value"]),
            }
        )
    return pd.DataFrame(rows, columns=["id", *SERIES_COLUMNS])


def _mean_bits(bytes_per_second: pd.Series) -> float:
    """The mean of a rate in bytes per second, in bits per second (NaN without samples)."""
    return float(bytes_per_second.astype(float).mean()) * 8 if len(bytes_per_second) else np.nan


def bottleneck(result: Result, kernel: bool) -> dict[str, Any]:
    """The bottleneck's queue and drop figures: the kernel's pfifo, the simulator's r0->r1."""
    links = result.links
    if not len(links):
        return {}
    row = links.iloc[0] if kernel else links[links["name"] == "r0->r1"].iloc[0]
    out = {c: row.get(c, np.nan) for c in LINK_COLUMNS}
    if kernel:  # tl_delay's Bernoulli drops are not counted by the qdisc
        out["drops_random_loss"] = np.nan
    return out


def with_kernel_only(table: pd.DataFrame, kernel_flows: pd.DataFrame) -> pd.DataFrame:
    """``table`` (a row per flow, by ``name``) with the kernel's ``KERNEL_ONLY_COLUMNS`` as
    ``<column>_kernel`` (NaN where a kernel run lacks them)."""
    held = kernel_flows.reindex(columns=["name", *KERNEL_ONLY_COLUMNS]).set_index("name")
    return table.join(held.add_suffix("_kernel"), on="name")


def compare(
    scenario: Scenario | dict[str, Any] | str | Path,
    out_dir: str | Path | None = None,
    capture: bool = False,
    native: bool = False,
) -> pd.DataFrame:
    """Runs ``scenario`` on the kernel test bed and in the simulator; returns one row per
    flow with ``<column>_kernel`` and ``<column>_sim`` for the shared columns (goodput,
    retransmissions, timeouts, RTTs, and from the series mean cwnd and smoothed-RTT mean and
    p95 in the measurement window), and the kernel's time sending and held back by the receiver's
    window or its own send buffer (``KERNEL_ONLY_COLUMNS``). ``attrs["bottleneck"]`` holds the
    bottleneck's queue (mean, max, packets) and drop figures for both."""
    from ..runner import run  # the engine, imported late so the test bed works without it

    if isinstance(scenario, (str, Path)):
        scenario = Scenario.load(scenario)
    if isinstance(scenario, dict):
        scenario = Scenario(scenario)
    p = plan(scenario, native=native)  # refuse unsupported set-ups before spending time on either run
    kern = run_scenario(scenario, out_dir=out_dir, capture=capture, native=native)
    sim = run(scenario)
    sides = []
    for res in (kern, sim):
        f = res.flows.reindex(columns=["id", "name", "cc", *COLUMNS])
        sides.append(f.merge(flow_figures(res, p.measure), on="id").drop(columns="id").set_index("name"))
    k, s = sides
    table = with_kernel_only(
        k.join(s.drop(columns="cc"), lsuffix="_kernel", rsuffix="_sim").reset_index(), kern.flows
    )
    table.attrs["bottleneck"] = pd.DataFrame(
        [{"backend": "kernel", **bottleneck(kern, True)}, {"backend": "sim", **bottleneck(sim, False)}]
    )
    return table
