"""Fahmy & Sharma (002): the fig. 1 topology as a scenario, the repetitions over start phases,
and every number the paper prints that the experiments compare with.

Topology (fig. 1): n0, n1 -> r1 -> r2 -> n2, n3; every link 5 Mb/s and 2 ms except the
0.5 Mb/s bottleneck(s). Reno runs n0 -> n3, Vegas n1 -> n2. Assumed (the paper does not
say): 1000-byte packets and a 20-packet receiver window (NS-2 defaults; the paper itself
says throughput stops changing above 25 packets of buffer "because the sender cannot send
faster than the receiver advertised window"), no delayed ACKs, 100 s. Throughput at t0 is
bytes received in [0, t0] / t0; we report t0 = 100 s.

002 reports one deterministic run per point. With Reno and Vegas together the outcome of
such a run hinges on its phase: Vegas holds its window wherever its queue estimate Diff lies
between alpha and beta, a band several packets wide on this slow link, and which window of
the band it settles on depends on how the flows met. So every two-flow point is repeated
with both flows starting at a random time in [0, 1] s (20 seeds; quick: 3), reported as the
mean with a 95% interval, and with the number of runs in which Vegas is ahead.
"""

from __future__ import annotations

from typing import Any

from ...scenario import Scenario
from ..base import Published, Run

SOURCE = "002, table {}"
DURATION = 100.0
QUICK_DURATION = 40.0
#: Start phases of the two-flow experiments: seeds, and the window of random start times (s).
SEEDS = tuple(range(1, 21))
QUICK_SEEDS = (1, 2, 3)
START_WINDOW = 1.0

#: The set-up text of the two-flow experiments.
PHASES = (
    "Both flows start at a random time in [0, 1] s; 20 seeds per point (quick: 3, 40 s runs); "
    "mean and 95% CI over seeds."
)


def seeds(quick: bool) -> tuple[int, ...]:
    """The start phases of a two-flow point."""
    return QUICK_SEEDS if quick else SEEDS


def fahmy_scenario(
    buffer: int,
    hops: int = 1,
    queue: dict[str, Any] | None = None,
    flows=("reno", "vegas"),
    duration: float = DURATION,
    seed: int = 1,
    start_window: float = 0.0,
) -> Scenario:
    """The fig. 1 topology with ``hops`` identical bottleneck links; flows in the order
    Reno (n0 -> n3 = s0 -> d1) and Vegas (n1 -> n2 = s1 -> d0), or a subset; each flow starts
    at a random time in [0, ``start_window``] s (at 0 if the window is 0)."""
    hop: dict[str, Any] = {"rate": "0.5Mbps", "delay": "2ms", "buffer": buffer}
    if queue:
        hop["queue"] = queue
    sc = Scenario.chain(
        hops=hops,
        pairs=2,
        hop=hop,
        access={"rate": "5Mbps", "delay": "2ms", "buffer": 1000},
        duration=duration,
        seed=seed,
        sample_interval=0.5,
    )
    sc.set_tcp(mss=1000, rwnd=20)
    ends = {"reno": ("s0", "d1"), "vegas": ("s1", "d0")}
    timing = {"start": {"uniform": [0.0, start_window]}} if start_window > 0 else {}
    for cc in flows:
        src, dst = ends[cc]
        sc.add_flow(src, dst, cc=cc, name=cc, **timing)
    return sc


def pair_runs(key: str, values: tuple[Any, ...], quick: bool, **options: Any) -> list[Run]:
    """Reno and Vegas together at each of ``values`` of ``key`` (a keyword of
    :func:`fahmy_scenario`), once per start phase."""
    d = QUICK_DURATION if quick else DURATION
    return [
        Run(
            {key: v, "seed": seed},
            fahmy_scenario(**{key: v, **options}, duration=d, seed=seed, start_window=START_WINDOW),
        )
        for v in values
        for seed in seeds(quick)
    ]


# -- published numbers ------------------------------------------------------------------------

#: 002's table 2: (Reno, Vegas) kb/s by buffer.
TABLE2 = {6: (231, 269), 9: (232, 267), 15: (374, 125), 25: (435, 66), 50: (435, 66)}
TABLE2_PUBLISHED = tuple(
    Published(f"{kind} throughput, queue {b}", v, "kb/s", SOURCE.format(2))
    for b, (r, vg) in TABLE2.items()
    for kind, v in (("Reno", r), ("Vegas", vg))
)
TABLE3_PUBLISHED = (
    Published("DropTail: Reno throughput", 435, "kb/s", SOURCE.format(3)),
    Published("DropTail: Vegas throughput", 65, "kb/s", SOURCE.format(3)),
    Published("RED: Reno throughput", 310, "kb/s", SOURCE.format(3)),
    Published("RED: Vegas throughput", 190, "kb/s", SOURCE.format(3)),
)
#: 002's table 4: (Reno, Vegas) kb/s by the number of 6-packet bottleneck hops.
TABLE4 = {2: (232, 268), 3: (162, 338), 4: (194, 306), 5: (173, 327)}
TABLE4_PUBLISHED = tuple(
    Published(f"{kind} throughput, {h} hops", v, "kb/s", SOURCE.format(4))
    for h, (r, vg) in TABLE4.items()
    for kind, v in (("Reno", r), ("Vegas", vg))
)
