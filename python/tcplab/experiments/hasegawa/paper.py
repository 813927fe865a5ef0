"""Hasegawa et al. (003): the fig. 1 network as a scenario, its routers and Vegas-side variants,
and the settings all its simulations share.

Topology (fig. 1): ``Nr`` Reno and ``Nv`` Vegas senders, each on its own 10 Mb/s, 1.5 ms link to
one router, which forwards to the receiver over a 1.5 Mb/s, 5 ms bottleneck with a buffer of
``B`` packets (sections 3 and 4.2). Assumed where the paper is silent (written into every
experiment's setup): 1000-byte segments plus 40 bytes of TCP/IP header on the wire (NS-2's
default), no delayed ACKs, an unlimited receiver window (the paper's Reno flows fill 200-packet
buffers, which NS-2's default 20-packet window would forbid), the engine's 0.2 s minimum RTO,
Vegas alpha 1 and beta 3, sender-side buffers of 1000 packets (never the bottleneck), every flow
starting at a random time in [0, 1] s. The paper states neither the run length nor the number of
repetitions of figs. 3-6 and 9-13: we run 300 s, measure throughput over [100, 300] s and repeat
with 5 seeds (95% Student-t intervals); quick mode runs 100 s measured over [40, 100] s, one seed
and four buffer sizes.

003 prints its results as plots only, so there are no published numbers to type in; each
simulation is shown beside the paper's analytical model (``model.py``) and checked against the
paper's qualitative statements.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ...scenario import Scenario
from ..base import Run

# -- the network of section 3 and 4.2 ----------------------------------------------------------
BOTTLENECK_BPS = 1.5e6
BOTTLENECK = {"rate": "1.5Mbps", "delay": "5ms"}
ACCESS_BPS = 10e6
ACCESS = {"rate": "10Mbps", "delay": "1.5ms", "buffer": 1000}
#: ``tau = tau_sx + tau_xd`` of section 3, seconds.
TAU = 0.0015 + 0.005
MSS = 1000
HEADER = 40
WIRE = MSS + HEADER
MIN_RTO = 0.2
START_WINDOW = 1.0
#: Propagation plus transmission time of a data packet out and its ACK back: the RTT a flow
#: sees through an empty queue, seconds (what Vegas's baseRTT should be).
BASE_RTT = (
    2 * TAU
    + WIRE * 8 / ACCESS_BPS
    + WIRE * 8 / BOTTLENECK_BPS
    + HEADER * 8 / BOTTLENECK_BPS
    + HEADER * 8 / ACCESS_BPS
)
#: The bottleneck's goodput capacity, kb/s (payload share of the wire rate).
CAPACITY_KBPS = BOTTLENECK_BPS * MSS / WIRE / 1e3
VEGAS = {"name": "vegas", "alpha": 1, "beta": 3}
CASES = ((5, 5), (5, 10), (10, 5))
#: Buffers from which the paper calls the buffer "realistic" (section 4.2); our "large" set.
LARGE = 50
#: Our reading of "appropriate estimation" (section 4.2.1): the model gives Reno's share of the
#: link within this absolute error.
SHARE_TOLERANCE = 0.1

#: The algorithms a Vegas-side flow runs.
VEGAS_SIDE = ("vegas", "vegas_plus")


@dataclass(frozen=True)
class Mode:
    """A run's length, measurement window, seeds and the buffers a sweep covers."""

    duration: float
    measure: tuple[float, float]
    seeds: tuple[int, ...]
    buffers: tuple[int, ...]


FULL = Mode(300.0, (100.0, 300.0), (1, 2, 3, 4, 5), (10, 15, 20, 30, 40, 50, 60, 80, 100, 120, 150, 200))
QUICK = Mode(100.0, (40.0, 100.0), (1,), (20, 50, 100, 200))


def mode(quick: bool) -> Mode:
    """The full or the quick mode."""
    return QUICK if quick else FULL


def setup_text(specific: str = "") -> str:
    """The set-up every experiment shares, then its own (``specific``)."""
    return (
        "Fig. 1 star: Nr Reno + Nv Vegas senders (10 Mb/s, 1.5 ms each) -> router -> receiver over "
        "1.5 Mb/s, 5 ms. Assumed: 1000 B segments + 40 B headers, no delayed ACKs, unlimited receiver "
        "window, min RTO 0.2 s, Vegas alpha 1 / beta 3, flows start uniformly in [0, 1] s. "
        "Full: 300 s measured over [100, 300] s, 5 seeds, B = 10..200; quick: 100 s over [40, 100] s, "
        "1 seed, B = 20, 50, 100, 200. Packet loss rate = data packets dropped / sent over the whole run."
        + specific
    )


# -- scenarios ------------------------------------------------------------------------------------
def hasegawa_scenario(
    n_reno: int,
    n_vegas: int,
    buffer: int,
    *,
    queue: dict[str, Any] | None = None,
    vegas_cc: str | dict[str, Any] = VEGAS,
    duration: float = FULL.duration,
    measure: tuple[float, float] = FULL.measure,
    seed: int = 1,
    sample_interval: float = 0.0,
    reno_schedule: list[list[float]] | None = None,
) -> Scenario:
    """The fig. 1 network: Reno on senders ``s0..s{Nr-1}``, the Vegas-side flows (``vegas_cc``)
    on the next ``Nv`` senders, all to ``d0``. Reno flows follow ``reno_schedule`` if given
    (fig. 7-8), else start at a random time in [0, START_WINDOW]."""
    bottleneck: dict[str, Any] = {**BOTTLENECK, "buffer": buffer}
    if queue is not None:
        bottleneck["queue"] = queue
    sc = Scenario.star(
        senders=n_reno + n_vegas,
        bottleneck=bottleneck,
        access=ACCESS,
        duration=duration,
        seed=seed,
        sample_interval=sample_interval,
        measure=list(measure),
    )
    sc.set_tcp(mss=MSS, header_bytes=HEADER, min_rto=MIN_RTO, delayed_ack=False)
    random_start = {"start": {"uniform": [0.0, START_WINDOW]}}
    reno_timing = {"schedule": reno_schedule} if reno_schedule else random_start
    for i in range(n_reno):
        sc.add_flow(f"s{i}", "d0", cc="reno", name=f"reno{i}", **reno_timing)
    for j in range(n_vegas):
        sc.add_flow(f"s{n_reno + j}", "d0", cc=vegas_cc, name=f"vegas{j}", **random_start)
    return sc


def red_const(p: float, buffer: int) -> dict[str, Any]:
    """Section 4.1.2's RED: drop with constant ``p`` from th_min = 5; th_max = 0.6 B (section 4.2)."""
    return {"kind": "red_const", "p": p, "min_th": 5, "max_th": 0.6 * buffer}


def zl_red(hit_drop: float, buffer: int) -> dict[str, Any]:
    """Section 6.2's ZL-RED parameters."""
    return {
        "kind": "zl_red",
        "p_min": 1 / 50,
        "p_max": 1 / 10,
        "min_th": 5,
        "max_th": 0.6 * buffer,
        "zombies": 1000,
        "hit_drop": hit_drop,
    }


@dataclass(frozen=True)
class Variant:
    """One curve family of a buffer sweep: a router queue and the Vegas side's algorithm."""

    label: str
    queue: Callable[[int], dict[str, Any]] | None = None
    vegas_cc: str | dict[str, Any] = field(default_factory=lambda: dict(VEGAS))


DROPTAIL = Variant("DropTail")
#: The fig. 3 runs again (same scenarios, so the store reuses them), named for figs. 9 and 10.
PLAIN_VEGAS = Variant("plain Vegas")
RED_30 = Variant("RED p=1/30", lambda b: red_const(1 / 30, b))
RED_10 = Variant("RED p=1/10", lambda b: red_const(1 / 10, b))
VEGAS_PLUS_8 = Variant("Vegas+ count_max=8", vegas_cc={**VEGAS, "name": "vegas_plus", "count_max": 8})
VEGAS_PLUS_5 = Variant("Vegas+ count_max=5", vegas_cc={**VEGAS, "name": "vegas_plus", "count_max": 5})
ZL_0 = Variant("ZL-RED hit_drop=0", lambda b: zl_red(0.0, b))
ZL_08 = Variant("ZL-RED hit_drop=0.8", lambda b: zl_red(0.8, b))


def sweep_runs(variants: Iterable[Variant], quick: bool, cases=CASES) -> list[Run]:
    """Every variant in every (Nr, Nv) case over the mode's buffers and seeds."""
    m = mode(quick)
    runs = []
    for v in variants:
        for nr, nv in cases:
            for b in m.buffers:
                for seed in m.seeds:
                    sc = hasegawa_scenario(
                        nr,
                        nv,
                        b,
                        queue=v.queue(b) if v.queue else None,
                        vegas_cc=v.vegas_cc,
                        duration=m.duration,
                        measure=m.measure,
                        seed=seed,
                    )
                    params = {"variant": v.label, "n_reno": nr, "n_vegas": nv, "buffer": b, "seed": seed}
                    runs.append(Run(params, sc))
    return runs
