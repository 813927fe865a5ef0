"""Chan et al. (000): the fig. 7 dumbbell as a scenario, the settings all its simulations share,
and every number the paper prints that the experiments compare with.

Common settings (section 4 and EXPERIMENTS.md): 1000-byte packets, a receiver window that never
limits, 20 repetitions whose flows start uniformly in [0, 25] s, throughput averaged over
50-200 s, and the mean with the 95% Student-t interval of the per-run throughput ratio
delay-based/Reno. The fig. 7 dumbbell gives every flow its own sender and receiver; assumed
(the paper does not give them): access links 100 Mb/s, 1 ms; a bottleneck of 23 ms one way
(the Linux test bed's, section 4.6) with a 100-packet DropTail queue, so every flow's minimum
RTT is 50 ms plus transmission times. The Vegas family runs with alpha0 = 1, beta0 = 3,
gamma = 1 and CODE with epsilon = 0.68 (the engine's defaults, from the paper).

Quick mode keeps every experiment's shape with 2 repetitions, 100 s runs measured over
50-100 s and fewer sweep points.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from ...scenario import Scenario
from ..base import Published

VARIANTS = ("vegas", "vegas_a", "newvegas", "code")
LABEL = {"reno": "Reno", "vegas": "Vegas", "vegas_a": "Vegas-A", "newvegas": "NewVegas", "code": "CODE"}
COLOR = {"reno": "C3", "vegas": "C0", "vegas_a": "C1", "newvegas": "C2", "code": "C4"}

REPS, QUICK_REPS = 20, 2
DURATION, QUICK_DURATION = 200.0, 100.0
MEASURE_FROM = 50.0
START = {"uniform": [0.0, 25.0]}
BOTTLENECK_DELAY = 0.023
BUFFER = 100
ACCESS = {"rate": "100Mbps", "delay": "1ms", "buffer": 1000}
BANDWIDTHS = tuple(range(5, 55, 5))
#: Bandwidth of the experiments that fix it: figs. 3, 5 and 14 as EXPERIMENTS.md assumes; figs. 10-13,
#: 15 and 16 (no bandwidth given anywhere) by our choice, to match them.
BANDWIDTH = 10
#: A ratio counts as "close to parity" inside [1/PARITY, PARITY]; our reading of "close to each
#: other" (section 4.1) and "reasonable fairness" (section 4.4).
PARITY = 1.5

COMMON_SETUP = (
    "Fig. 7 dumbbell, one sender/receiver pair per flow: access 100 Mb/s, 1 ms (assumed); bottleneck "
    "23 ms one way (assumed, the Linux test bed's) with a DropTail queue; 1000-byte packets, unlimited "
    "receiver window; flows start uniformly in [0, 25] s; throughput averaged over 50-200 s; 20 "
    "repetitions; mean and 95% CI of the per-run ratio delay-based/Reno. Vegas family alpha0 = 1, "
    "beta0 = 3, gamma = 1; CODE epsilon = 0.68. Quick: 2 repetitions, 100 s runs measured over "
    "50-100 s, fewer sweep points."
)


# -- scenarios ------------------------------------------------------------------------------------


def timing(quick: bool) -> tuple[float, int]:
    """(duration, repetitions) of a run."""
    return (QUICK_DURATION, QUICK_REPS) if quick else (DURATION, REPS)


def code_scenario(
    flows: Sequence[str],
    bandwidth_mbps: float = BANDWIDTH,
    buffer: int = BUFFER,
    seed: int = 1,
    duration: float = DURATION,
    bottleneck_delay: float = BOTTLENECK_DELAY,
    pair_access: list[dict[str, Any]] | None = None,
    starts: Sequence[float | dict[str, Any]] | None = None,
    sample_interval: float = 1.0,
) -> Scenario:
    """The fig. 7 (or, with ``pair_access``, fig. 8) dumbbell with one pair per flow: flow ``i``
    runs ``s_i -> d_i`` with congestion control ``flows[i]`` and is named ``<cc><i>`` (the name
    seeds its start-time draw). Throughput is measured from 50 s to the end."""
    sc = Scenario.dumbbell(
        pairs=len(flows),
        bottleneck={"rate": bandwidth_mbps * 1e6, "delay": bottleneck_delay, "buffer": buffer},
        access=ACCESS,
        pair_access=pair_access,
        duration=duration,
        seed=seed,
        measure=[MEASURE_FROM, duration],
        sample_interval=sample_interval,
    )
    for i, cc in enumerate(flows):
        start = starts[i] if starts is not None else START
        sc.add_flow(f"s{i}", f"d{i}", cc=cc, name=f"{cc}{i}", start=start)
    return sc


# -- published numbers ----------------------------------------------------------------------------

TABLE2 = {  # bandwidth: (CODE, NewVegas, Vegas), 000 table 2
    5: (0.99, 0.99, 0.97),
    10: (0.97, 0.96, 0.97),
    15: (0.98, 0.98, 0.95),
    20: (0.99, 0.98, 0.95),
    25: (0.99, 0.98, 0.97),
    30: (0.99, 0.96, 0.97),
    35: (0.99, 0.98, 0.99),
    40: (0.99, 0.99, 0.99),
    45: (0.99, 0.99, 0.99),
    50: (0.99, 0.97, 0.99),
}
TABLE2_VARIANTS = ("code", "newvegas", "vegas")
TABLE2_PUBLISHED = tuple(
    Published(f"{LABEL[v]} fairness index, {bw} Mb/s", vals[i], "", "000, table 2")
    for bw, vals in TABLE2.items()
    for i, v in enumerate(TABLE2_VARIANTS)
)

#: 000 table 1: NewVegas's thresholds and window over six rounds of section 3.1's example.
TABLE1 = pd.DataFrame(
    {
        "RTT": ["RTT_j", "RTT_j+1", "RTT_j+2", "RTT_j+3", "RTT_j+4", "RTT_j+5"],
        "W_old": [20, 20, 21, 21, 22, 22],
        "alpha": ["5 + 1", "6", "6 + 1", "7", "7 + 1", "8"],
        "beta": ["7 + 1", "8", "8 + 1", "9", "9 + 1", "10"],
        "Delta": [5, 5, 6, 6, 7, 7],
        "W": [20, 21, 21, 22, 22, 23],
    }
)

EQ18_PUBLISHED = (
    Published("smaller root of eq. (18)", 0.68, "", "000, eq. (19)"),
    Published("larger root of eq. (18)", 0.91, "", "000, eq. (19)"),
    Published("chosen epsilon", 0.68, "", "000, section 3.3"),
)

#: 000 table 3: ten Internet rounds, NCTU to NCUE, KB/s.
TABLE3 = pd.DataFrame(
    {
        "round": range(1, 11),
        "Reno (vs Vegas)": [547.23, 553.59, 552.21, 552.14, 555.34, 552.82, 553.80, 552.98, 551.96, 552.39],
        "Vegas": [315.69, 339.91, 381.16, 358.31, 275.88, 368.05, 343.03, 315.91, 390.85, 380.89],
        "Reno (vs CODE)": [546.66, 548.96, 535.13, 544.94, 546.05, 546.25, 545.71, 546.04, 546.92, 546.41],
        "CODE": [542.51, 551.91, 540.28, 548.57, 551.51, 542.45, 548.23, 549.97, 543.66, 540.12],
    }
)
TABLE3_AVG = {"Reno (vs Vegas)": 552.45, "Vegas": 346.97, "Reno (vs CODE)": 545.31, "CODE": 545.92}
TABLE3_CI = {  # confidence level: half widths in the columns' order, 000 table 3
    0.99: (1.71, 29.59, 3.03, 3.74),
    0.95: (1.30, 22.52, 2.31, 2.85),
    0.90: (1.09, 18.90, 1.94, 2.39),
}
TABLE3_CI95 = dict(zip(TABLE3_AVG, TABLE3_CI[0.95], strict=True))
TABLE3_PUBLISHED = tuple(
    Published(f"{k}: average throughput", v, "KB/s", "000, table 3") for k, v in TABLE3_AVG.items()
) + tuple(Published(f"{k}: 95% CI half width", v, "KB/s", "000, table 3") for k, v in TABLE3_CI95.items())
