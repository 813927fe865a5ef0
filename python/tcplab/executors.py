"""Where runs execute: this process, all local cores, or a Ray cluster.

An executor takes tasks (key, scenario TOML) and yields (key, encoded records) as runs
finish. Workers encode the records into the store's file format themselves (see tables.py),
so the process that owns the store only writes bytes and never becomes the bottleneck of a
sweep. The choice of executor never changes a result: the engine is deterministic, so
records are bit-identical wherever they are computed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Protocol

from .runner import run_raw
from .tables import EncodedRun, encode_run


@dataclass(frozen=True)
class Task:
    key: str
    toml: str


def execute(task: Task) -> tuple[str, EncodedRun]:
    return task.key, encode_run(run_raw(task.toml))


class Executor(Protocol):
    name: str

    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[str, EncodedRun]]: ...


class SerialExecutor:
    """Runs in this process, one after another (debugging, tiny sweeps)."""

    name = "serial"

    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[str, EncodedRun]]:
        for t in tasks:
            yield execute(t)


class LocalExecutor:
    """All local cores (a process pool); results are yielded as they finish."""

    name = "local"

    def __init__(self, jobs: int | None = None):
        self.jobs = jobs or os.cpu_count() or 1

    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[str, EncodedRun]]:
        tasks = list(tasks)
        if self.jobs == 1 or len(tasks) <= 1:
            yield from SerialExecutor().map(tasks)
            return
        with ProcessPoolExecutor(max_workers=min(self.jobs, len(tasks))) as pool:
            pending = {pool.submit(execute, t) for t in tasks}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()


class RayExecutor:
    """A Ray cluster (``address`` of a running head, or a local instance when None)."""

    name = "ray"

    def __init__(self, address: str | None = None, jobs: int | None = None):
        try:
            import ray
        except ImportError:  # pragma: no cover - depends on the environment
            raise RuntimeError("the Ray executor needs Ray: pip install 'tcplab[ray]'") from None
        self.ray = ray
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False}
            if address:
                kwargs["address"] = address
            elif jobs:
                kwargs["num_cpus"] = jobs
            ray.init(**kwargs)
        self._remote = ray.remote(execute)

    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[str, EncodedRun]]:
        pending = [self._remote.remote(t) for t in tasks]
        while pending:
            done, pending = self.ray.wait(pending, num_returns=1)
            for ref in done:
                yield self.ray.get(ref)


def make_executor(name: str, jobs: int | None = None, address: str | None = None) -> Executor:
    if name == "local":
        return LocalExecutor(jobs)
    if name == "serial":
        return SerialExecutor()
    if name == "ray":
        return RayExecutor(address, jobs)
    raise ValueError(f"executor {name!r} is unknown; use local, serial or ray")
