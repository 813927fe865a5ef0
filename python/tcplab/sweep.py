"""Runs experiments through the result store and an executor, with a progress bar."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from . import _engine
from .executors import Executor, Task
from .experiments.base import Experiment, Outcome
from .result import Result
from .store import ResultStore, run_key


@dataclass
class Planned:
    experiment: Experiment
    params: dict[str, Any]
    key: str
    toml: str


def plan(experiments: list[Experiment], quick: bool) -> list[Planned]:
    out = []
    for exp in experiments:
        for run in exp.runs(quick):
            canonical = _engine.validate(run.scenario.to_toml())
            out.append(Planned(exp, run.params, run_key(canonical), canonical))
    return out


def execute_plan(
    planned: list[Planned],
    store: ResultStore,
    executor: Executor,
    show_progress: bool = True,
    on_stored: Callable[[str], None] | None = None,
) -> tuple[int, int]:
    """Runs what the store lacks; returns (runs reused, runs executed)."""
    store.clean_stale()
    todo: dict[str, Planned] = {}
    for p in planned:
        if not store.has(p.key) and p.key not in todo:
            todo[p.key] = p
    reused = len({p.key for p in planned}) - len(todo)
    if not todo:
        return reused, 0
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, disable=not show_progress) as progress:
        bar = progress.add_task(f"simulating ({executor.name})", total=len(todo))
        tasks = [Task(k, p.toml) for k, p in todo.items()]
        for key, encoded in executor.map(tasks):
            p = todo[key]
            store.put_encoded(
                key, encoded, {"experiment": p.experiment.name, "params": p.params, "scenario": p.toml}
            )
            progress.advance(bar)
            if on_stored:
                on_stored(key)
    return reused, len(todo)


def analyze(
    experiments: list[Experiment], planned: list[Planned], store: ResultStore, quick: bool
) -> list[Outcome]:
    outcomes = []
    for exp in experiments:
        results: list[tuple[dict[str, Any], Result]] = [
            (p.params, store.load(p.key)) for p in planned if p.experiment is exp
        ]
        outcomes.append(exp.analyze(results, quick))
    return outcomes
