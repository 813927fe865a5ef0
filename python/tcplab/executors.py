"""Where runs execute: this process, all local cores, or a Ray cluster.

An executor takes tasks (key, scenario TOML) and yields (key, encoded records) as runs
finish. Workers encode the records into the store's file format themselves (see tables.py),
so the process that owns the store only writes bytes and never becomes the bottleneck of a
sweep. The sampled series are streamed to files while the run goes on (a worker's memory
does not grow with the simulated duration): into the store's staging area when the worker
shares the store's file system, otherwise into a temporary directory whose files travel back
as bytes. The choice of executor never changes a result: the engine is deterministic, so
records are bit-identical wherever they are computed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import Any, Protocol

from .runner import run_raw
from .tables import EncodedRun, SeriesFiles, encode_run
from .worker_pool import worker_pool


@dataclass(frozen=True)
class Task:
    key: str
    toml: str
    #: Directory on the store's file system for streamed series (see ResultStore.staging);
    #: None for workers elsewhere, which send their series back as bytes.
    staging: str | None = None


def execute(task: Task) -> tuple[str, EncodedRun]:
    if task.staging is None:
        with tempfile.TemporaryDirectory(prefix="tcplab-series-") as d:
            return task.key, _run_streaming(task.toml, Path(d), inline=True)
    stage = Path(task.staging) / f"{task.key}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        return task.key, _run_streaming(task.toml, stage, inline=False)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def _run_streaming(toml: str, stage: Path, inline: bool) -> EncodedRun:
    with SeriesFiles(stage) as series:
        raw = run_raw(toml, series_sink=series)
    return encode_run(raw, series.paths, inline=inline)


class Executor(Protocol):
    name: str
    #: Whether workers write to the file system of the process that owns the store.
    local_files: bool

    def map(self, tasks: Iterable[Task]) -> Generator[tuple[str, EncodedRun], None, None]:
        """Results as runs finish; closing the generator stops the runs still going."""
        ...


class SerialExecutor:
    """Runs in this process, one after another (debugging, tiny sweeps)."""

    name = "serial"
    local_files = True

    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[str, EncodedRun]]:
        for t in tasks:
            yield execute(t)


class LocalExecutor:
    """All local cores (a process pool whose workers die with this process, see
    worker_pool.py); results are yielded as they finish. Tasks are taken from ``tasks`` only
    as workers become free, so a task iterator that claims runs (sweep.py) claims each just
    before it starts."""

    name = "local"
    local_files = True

    def __init__(self, jobs: int | None = None):
        self.jobs = jobs or os.cpu_count() or 1

    def map(self, tasks: Iterable[Task]) -> Iterator[tuple[str, EncodedRun]]:
        source = iter(tasks)
        in_flight = 2 * self.jobs  # a task waits beside each running one: no idle worker
        first = list(islice(source, in_flight))
        if self.jobs == 1 or len(first) <= 1:
            yield from SerialExecutor().map(chain(first, source))
            return
        with worker_pool(min(self.jobs, len(first))) as pool:
            pending = {pool.submit(execute, t) for t in first}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                pending |= {pool.submit(execute, t) for t in islice(source, len(done))}
                for f in done:
                    yield f.result()


class RayExecutor:
    """A Ray cluster (``address`` of a running head, or a local instance when None)."""

    name = "ray"
    local_files = False  # a cluster's nodes need not share a file system

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
