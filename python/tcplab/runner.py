"""Running scenarios through the engine."""

from __future__ import annotations

import numbers
from pathlib import Path
from typing import Any

from . import _engine
from .errors import OutputError, ScenarioError, SimulationError
from .result import Result
from .scenario import Scenario
from .tables import SeriesFiles

ScenarioLike = Scenario | str | Path | dict[str, Any]
SEED_MAX = 2**64 - 1


def as_scenario(scenario: ScenarioLike) -> Scenario:
    """Accepts a Scenario, a document dict, TOML text or a path to a TOML file."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return Scenario(scenario)
    if isinstance(scenario, Path) or (
        isinstance(scenario, str) and "\n" not in scenario and scenario.endswith(".toml")
    ):
        return Scenario.load(scenario)
    if isinstance(scenario, str):
        return Scenario.from_toml(scenario)
    raise ScenarioError(
        "",
        "a scenario is a Scenario, a dict, TOML text or a path to a .toml file, "
        f"not {type(scenario).__name__}",
    )


def check_seed(seed: Any) -> int | None:
    """``seed`` as the engine takes it (None keeps the document's), or :class:`ScenarioError`."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ScenarioError("seed", f"{seed!r} is not allowed; a seed is an integer from 0 to 2^64-1")
    if not 0 <= int(seed) <= SEED_MAX:
        raise ScenarioError("seed", f"{seed} is not allowed; a seed is an integer from 0 to 2^64-1")
    return int(seed)


def run_raw(
    toml_text: str,
    seed: int | None = None,
    out_dir: str | Path | None = None,
    series_sink: SeriesFiles | None = None,
    keep_series: bool = True,
) -> dict[str, Any]:
    """Runs TOML text and returns the engine's column dicts (for executors and stores).
    ``out_dir`` receives the pcap traces the scenario asks for; with ``series_sink`` the
    tables of :data:`~tcplab.tables.SERIES_TABLES` (sampled series, event log, loss
    responses) go there while the run goes on, and the returned ones are empty; with
    ``keep_series=False`` (and no sink) they are dropped as they are sampled."""
    seed = check_seed(seed)
    try:
        chunk_rows = series_sink.chunk_rows if series_sink else 1
        return _engine.run(
            toml_text, seed, None if out_dir is None else str(out_dir), series_sink, chunk_rows, keep_series
        )
    except _engine.ScenarioError as e:
        raise ScenarioError(*e.args) from None
    except _engine.SimulationError as e:
        raise SimulationError(str(e)) from None
    except _engine.OutputError as e:
        raise OutputError(str(e)) from None


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    out_dir: str | Path | None = None,
    series_sink: SeriesFiles | None = None,
    keep_series: bool = True,
) -> Result:
    """Runs a scenario and returns its records as DataFrames. ``seed`` overrides the
    document's; ``out_dir`` is where pcap traces (``[[simulation.pcap]]``) are written.
    ``series_sink`` (a :class:`~tcplab.tables.SeriesFiles`) takes the sampled series, the
    event log and the loss responses while the run goes on, for runs too long to hold them;
    those tables of the Result are then empty. ``keep_series=False`` drops them instead (the
    summaries alone, in memory that does not grow with the duration)."""
    toml = as_scenario(scenario).to_toml()
    return Result.from_engine(run_raw(toml, seed, out_dir, series_sink, keep_series))
