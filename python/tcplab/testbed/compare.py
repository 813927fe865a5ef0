"""Kernel test bed and simulator side by side on the same scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ..scenario import Scenario
from .plan import plan
from .runner import run_scenario

COLUMNS = ["goodput_bps", "retransmissions", "mean_rtt", "min_rtt"]


def compare(
    scenario: Scenario | dict[str, Any] | str | Path, out_dir: str | Path | None = None, capture: bool = False
) -> pd.DataFrame:
    """Runs ``scenario`` on the kernel test bed and in the simulator; returns one row per
    flow with ``<column>_kernel`` and ``<column>_sim`` for the shared columns."""
    from ..runner import run  # the engine, imported late so the test bed works without it

    if isinstance(scenario, (str, Path)):
        scenario = Scenario.load(scenario)
    if isinstance(scenario, dict):
        scenario = Scenario(scenario)
    plan(scenario)  # refuse unsupported set-ups before spending time on either run
    kern = run_scenario(scenario, out_dir=out_dir, capture=capture).flows
    sim = run(scenario).flows
    k = kern[["name", "cc", *COLUMNS]].set_index("name")
    s = sim[["name", *COLUMNS]].set_index("name")
    return k.join(s, lsuffix="_kernel", rsuffix="_sim").reset_index()
