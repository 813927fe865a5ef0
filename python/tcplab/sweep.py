"""Runs experiments through the result store and an executor, with a progress bar."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import as_completed
from contextlib import closing
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
from .experiments.ablation import AblatedExperiment, QuickControl, ablated, explain
from .experiments.base import Experiment, Outcome
from .result import Result
from .store import ResultStore, RunClaim, kernel_run_key, run_key
from .worker_pool import worker_pool

_COLUMNS = (
    TextColumn("[bold]{task.description}"),
    BarColumn(),
    MofNCompleteColumn(),
    TimeElapsedColumn(),
    TextColumn("ETA"),
    TimeRemainingColumn(),
)


@dataclass
class Planned:
    experiment: Experiment
    params: dict[str, Any]
    key: str
    toml: str
    backend: str = "sim"
    #: The scenario as the experiment wrote it: the test bed takes it (it refuses options it
    #: cannot apply, which the engine's canonical form spells out as defaults).
    source: str = ""


def plan(experiments: list[Experiment], quick: bool) -> list[Planned]:
    """Every run of the experiments and of their ablations (tcplab.experiments.ablation).
    A kernel run's key differs from the simulated run of the same scenario."""
    out = []
    for exp in [*experiments, *ablated(experiments)]:
        for run in exp.runs(quick):
            canonical = _engine.validate(run.scenario.to_toml())
            if run.backend == "sim":
                key, source = run_key(canonical), ""
            else:
                source = run.scenario.to_toml()
                key = kernel_run_key(source, run.backend)
            out.append(Planned(exp, run.params, key, canonical, run.backend, source))
    return out


def execute_plan(
    planned: list[Planned],
    store: ResultStore,
    executor: Executor,
    show_progress: bool = True,
    on_stored: Callable[[str], None] | None = None,
    failures: list[str] | None = None,
) -> tuple[int, int]:
    """Runs what the store lacks; returns (runs reused, runs executed). A run that another
    sweep into the same store is simulating is waited for and reused, not simulated again
    (see store.py); if that sweep dies first, this one simulates the run. A kernel run the
    test bed fails is not stored; its error goes to ``failures`` and the rest go on (the
    next sweep runs it again)."""
    store.clean_stale()
    todo: dict[str, Planned] = {}
    kernel: dict[str, Planned] = {}
    for p in planned:
        if not store.has(p.key) and p.key not in todo and p.key not in kernel:
            (todo if p.backend == "sim" else kernel)[p.key] = p
    unique = len({p.key for p in planned})
    executed = _simulate(todo, store, executor, show_progress, on_stored) if todo else 0
    failed: list[str] = []
    if kernel:  # after the simulations, alone, so that nothing disturbs the real-time runs
        failed = _on_kernel(kernel, store, show_progress, on_stored)
        executed += len(kernel) - len(failed)
        if failures is not None:
            failures.extend(failed)
    return unique - executed - len(failed), executed


def _simulate(
    todo: dict[str, Planned],
    store: ResultStore,
    executor: Executor,
    show_progress: bool,
    on_stored: Callable[[str], None] | None,
) -> int:
    """Simulates the runs with the executor, each stored as it arrives; returns how many
    this process simulated (the others were simulated by a concurrent sweep)."""
    executed = 0
    with Progress(*_COLUMNS, disable=not show_progress) as progress:
        bar = progress.add_task(f"simulating ({executor.name})", total=len(todo))

        def stored(key: str) -> None:
            progress.advance(bar)
            if on_stored:
                on_stored(key)

        waiting = list(todo)
        while waiting:
            elsewhere: list[str] = []
            executed += _execute_claimed(waiting, todo, store, executor, stored, elsewhere)
            # Holding no claim now (so no two sweeps wait for each other): wait for the runs
            # other sweeps claimed; those they gave up are tried again.
            waiting = []
            for key in elsewhere:
                with store.claim(key):
                    if store.has(key):
                        stored(key)
                    else:
                        waiting.append(key)
    return executed


def _execute_claimed(
    keys: list[str],
    todo: dict[str, Planned],
    store: ResultStore,
    executor: Executor,
    stored: Callable[[str], None],
    elsewhere: list[str],
) -> int:
    """Simulates and stores each of ``keys`` that this process can claim, claiming each just
    before it starts; appends those claimed by other processes to ``elsewhere``. Returns
    how many were simulated."""
    claims: dict[str, RunClaim] = {}
    staging = str(store.staging) if executor.local_files else None

    def claimed_tasks() -> Iterator[Task]:
        for key in keys:
            claim = store.try_claim(key)
            if claim is None:
                elsewhere.append(key)
            elif store.has(key):  # stored by another sweep since the plan was made
                claim.release()
                stored(key)
            else:
                claims[key] = claim
                yield Task(key, todo[key].toml, staging)

    executed = 0
    try:
        # Closed on an exception here too (Ctrl-C while a run is stored), which stops the workers.
        with closing(executor.map(claimed_tasks())) as results:
            for key, encoded in results:
                p = todo[key]
                info = {"experiment": p.experiment.name, "params": p.params, "scenario": p.toml}
                store.put_encoded(key, encoded, info)
                claims.pop(key).release()
                executed += 1
                stored(key)
    finally:
        for claim in claims.values():
            claim.release()
    return executed


def _on_kernel(
    todo: dict[str, Planned],
    store: ResultStore,
    show_progress: bool,
    on_stored: Callable[[str], None] | None,
) -> list[str]:
    """Runs scenarios on the kernel test bed one after another, each stored when done (an
    interrupted series keeps the runs it finished). A run the bed fails (a sampler that
    died, a traffic generator without a report) is left unstored and named in the list returned."""
    from . import testbed
    from .console import warn
    from .scenario import Scenario
    from .tables import TABLES, encode_frames

    failed: list[str] = []
    with Progress(*_COLUMNS, disable=not show_progress) as progress:
        bar = progress.add_task("kernel test bed (real time)", total=len(todo))
        for key, p in todo.items():
            native = p.backend == "kernel-native"
            try:
                res = testbed.run_scenario(Scenario.from_toml(p.source), capture=False, native=native)
            except testbed.TestbedError as e:
                failed.append(f"{p.experiment.name} {p.params}: {e}")
                warn(f"kernel run failed, not stored: {failed[-1]}")
                progress.advance(bar)
                continue
            frames = {name: getattr(res, name, None) for name in TABLES}
            info = {
                "experiment": p.experiment.name,
                "params": p.params,
                "scenario": p.toml,
                "backend": p.backend,
            }
            store.put_encoded(key, encode_frames(frames, res.meta), info)
            progress.advance(bar)
            if on_stored:
                on_stored(key)
    return failed


def analyze(
    experiments: list[Experiment],
    planned: list[Planned],
    store: ResultStore,
    quick: bool,
    jobs: int = 1,
    show_progress: bool = True,
) -> list[Outcome]:
    """Each experiment's outcome, figures rendered. With ``jobs`` > 1 experiments are analysed
    in parallel worker processes (largest first); real-time ones (the kernel test bed) run
    afterwards in this process, alone, so no other work disturbs their measurements."""
    variants = ablated(experiments)
    runs: dict[str, list[tuple[dict[str, Any], str]]] = {e.name: [] for e in [*experiments, *variants]}
    for p in planned:
        if p.experiment.name in runs:
            runs[p.experiment.name].append((p.params, p.key))
    every_one = [*experiments, *variants]
    offline = [e for e in every_one if not e.realtime]
    done: dict[str, Outcome] = {}
    with Progress(*_COLUMNS, disable=not show_progress, transient=True) as progress:
        bar = progress.add_task("analysing", total=len(every_one))
        if jobs > 1 and len(offline) > 1:
            biggest_first = sorted(offline, key=lambda e: -len(runs[e.name]))
            with worker_pool(min(jobs, len(offline))) as pool:
                futures = {
                    pool.submit(_analyze_one, e.name, runs[e.name], str(store.root), quick): e.name
                    for e in biggest_first
                }
                for f in as_completed(futures):
                    done[futures[f]] = f.result()
                    progress.advance(bar)
        for e in every_one:
            if e.name not in done:
                done[e.name] = _analyze_one(e.name, runs[e.name], str(store.root), quick)
                progress.advance(bar)
            done[e.name].experiment = e
    for e in experiments:
        mine = [v for v in variants if v.base is e and not isinstance(v, QuickControl)]
        control = next((done[v.name] for v in variants if v.base is e and isinstance(v, QuickControl)), None)
        explain(done[e.name], [(v.ablation, len(runs[v.name]), done[v.name]) for v in mine], control)
    return [done[e.name] for e in experiments]


def _analyze_one(name: str, runs: list[tuple[dict[str, Any], str]], root: str, quick: bool) -> Outcome:
    """Analyses one experiment (or ablation) from the store and renders its figures (in a
    worker or here); an ablation's figures are dropped, only its claims are used."""
    from .experiments import lookup

    exp = lookup(name)
    store = ResultStore(root)
    loaded = store.load_many([key for _, key in runs])
    results: list[tuple[dict[str, Any], Result]] = [
        (params, res) for (params, _), res in zip(runs, loaded, strict=True)
    ]
    outcome = exp.analyze(results, quick)
    if isinstance(exp, AblatedExperiment):
        import matplotlib.pyplot as plt

        for fig in outcome.figures:
            plt.close(fig.figure)
        outcome.figures = []
    for fig in outcome.figures:
        if quick:  # the figure itself says so, wherever it is copied to
            fig.figure.text(0.995, 0.005, "quick run", ha="right", va="bottom", fontsize=7, color="#a33")
        fig.render()
    return outcome
