"""code/linux-fig19 (000 section 4.6): one Reno flow and one delay-based flow (Vegas,
NewVegas or CODE) through a 100-packet DropTail queue with 23 ms one-way bottleneck delay,
bandwidth swept; throughput of each, on the kernel test bed and in the simulator.

The scenario is the simulator's own document (``scenario(...)``); the test bed and the
simulator run the same one (``run_point``)."""

from __future__ import annotations

import pandas as pd

from ..scenario import Scenario, link
from .runner import run_scenario

BANDWIDTHS_MBPS = (5, 10, 20, 30, 40, 50)
PARTNERS = ("vegas", "newvegas", "code")


def scenario(bandwidth_mbps: float, partner: str, duration: float = 60.0, seed: int = 1) -> Scenario:
    """The set-up of 000 section 4.6 (EXPERIMENTS.md: queue 100, 23 ms): a dumbbell with
    one Reno and one ``partner`` flow, both bulk, starting together; throughput measured
    after the first fifth of the run."""
    s = Scenario.dumbbell(
        2,
        link(f"{bandwidth_mbps}Mbps", "23ms", 100),
        duration=duration,
        seed=seed,
        measure=[duration / 5, duration],
    )
    s.add_flow("s0", "d0", "reno", name="reno")
    s.add_flow("s1", "d1", partner, name=partner)
    return s


def run_point(
    bandwidth_mbps: float,
    partner: str,
    duration: float = 60.0,
    seed: int = 1,
    backends: tuple[str, ...] = ("kernel", "sim"),
) -> pd.DataFrame:
    """One bandwidth, one partner: a row per (backend, flow) with goodput."""
    from ..runner import run

    sc = scenario(bandwidth_mbps, partner, duration, seed)
    rows = []
    for backend in backends:
        flows = run_scenario(sc, capture=False).flows if backend == "kernel" else run(sc).flows
        for _, f in flows.iterrows():
            rows.append(
                {
                    "backend": backend,
                    "bandwidth_mbps": bandwidth_mbps,
                    "partner": partner,
                    "flow": f["name"],
                    "cc": f["cc"],
                    "goodput_bps": f["goodput_bps"],
                }
            )
    return pd.DataFrame(rows)


def sweep(
    bandwidths=BANDWIDTHS_MBPS, partners=PARTNERS, duration: float = 60.0, seed: int = 1
) -> pd.DataFrame:
    """The whole figure: every partner at every bandwidth, kernel and simulator."""
    return pd.concat(
        [run_point(b, p, duration, seed) for p in partners for b in bandwidths], ignore_index=True
    )


def side_by_side(points: pd.DataFrame) -> pd.DataFrame:
    """One row per (partner, bandwidth): Reno's and the partner's goodput in Mb/s and the
    partner/Reno ratio, for the kernel and the simulator."""
    t = points.assign(
        mbps=points["goodput_bps"] / 1e6, role=points["cc"].where(points["cc"] == "reno", "partner")
    )
    wide = t.pivot_table(index=["partner", "bandwidth_mbps"], columns=["backend", "role"], values="mbps")
    wide.columns = [f"{role}_{backend}_mbps" for backend, role in wide.columns]
    for backend in ("kernel", "sim"):
        if f"partner_{backend}_mbps" in wide:
            wide[f"ratio_{backend}"] = wide[f"partner_{backend}_mbps"] / wide[f"reno_{backend}_mbps"]
    return wide.reset_index()
