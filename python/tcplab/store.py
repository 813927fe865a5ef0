"""The result store: one directory per run, keyed by a hash of the scenario and engine version.

Each run is written to a temporary directory and renamed into place, so a run is either
completely stored or absent: an interrupted sweep never leaves a half-written result, and a
restarted sweep reuses every finished run. Tables are Arrow IPC files (see tables.py); runs
stored by earlier versions as Parquet still load.

Sweeps sharing a store share the work: a sweep claims a run (a lock on a file per run,
:meth:`ResultStore.try_claim`) before it simulates it, and a sweep that finds a run claimed
waits for it and loads it. The kernel releases a dead process's locks, so a killed sweep
leaves no stale claim.
"""

from __future__ import annotations

import datetime
import fcntl
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from . import _engine
from .result import Result
from .tables import SUFFIX, TABLES, EncodedRun, encode_run, read_table
from .worker_pool import pid_alive

DEFAULT_ROOT = Path("results")


def run_key(canonical_toml: str, engine_version: str = _engine.ENGINE_VERSION) -> str:
    """The store key: SHA-256 of the engine version and the canonical scenario document."""
    h = hashlib.sha256()
    h.update(engine_version.encode())
    h.update(b"\n")
    h.update(canonical_toml.encode())
    return h.hexdigest()[:32]


#: Versions the test bed's measurements in kernel runs' store keys: a kernel run is keyed
#: by the document the bed ran (not by the engine's version or canonical form, so a new
#: simulator never re-runs hours of real-time measurements); bump it when what the bed
#: measures changes (testbed-3: flows from traffic.py, every one connected before any sends;
#: testbed-4: the sampler looks each connection up instead of dumping the socket table).
TESTBED_VERSION = "testbed-4"


def kernel_run_key(source_toml: str, backend: str) -> str:
    """The store key of a run on the kernel test bed (``backend`` "kernel" or
    "kernel-native"): the document the bed runs, as the experiment wrote it, and the bed's
    version. The key also names the run in the archive of kernel measurements
    (testbed/archive.py)."""
    return run_key(f"{source_toml}\n# backend = {backend}\n", TESTBED_VERSION)


class ResultStore:
    """Runs on disk under ``root/runs/<k[:2]>/<k>/``: one Arrow IPC file per table plus meta.json."""

    def __init__(self, root: str | Path = DEFAULT_ROOT):
        self.root = Path(root)

    def _dir(self, key: str) -> Path:
        return self.root / "runs" / key[:2] / key

    @property
    def staging(self) -> Path:
        """Where workers on this machine write a run's streamed series before it is stored
        (entries are named ``<key>-<pid>-<id>``, so :meth:`clean_stale` removes those of
        killed workers)."""
        return self.root / "tmp"

    def try_claim(self, key: str) -> RunClaim | None:
        """Claims the run ``key`` for this process, or returns None if another holds it."""
        return RunClaim.take(self._lock_path(key), wait=False)

    def claim(self, key: str) -> RunClaim:
        """Claims the run ``key``, waiting while another process holds it (until it stored
        the run, or gave up: check :meth:`has`)."""
        claim = RunClaim.take(self._lock_path(key), wait=True)
        assert claim is not None
        return claim

    def _lock_path(self, key: str) -> Path:
        return self.root / "locks" / key

    def has(self, key: str) -> bool:
        return (self._dir(key) / "meta.json").is_file()

    def put(self, key: str, raw: dict[str, Any], info: dict[str, Any]) -> None:
        """Stores a run's raw engine records atomically; a concurrent duplicate is dropped."""
        self.put_encoded(key, encode_run(raw), info)

    def put_encoded(self, key: str, run: EncodedRun, info: dict[str, Any]) -> None:
        """Stores an encoded run (see :func:`tcplab.tables.encode_run`) atomically; its staged
        files are moved in (and removed if the run is already stored)."""
        final = self._dir(key)
        stage_dirs = {Path(p).parent for p in run.staged.values()}
        tmp = self.staging / f"{key}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            if self.has(key):
                return
            tmp.mkdir(parents=True)
            for name, data in run.files.items():
                (tmp / f"{name}{SUFFIX}").write_bytes(data)
            for name, path in run.staged.items():
                shutil.move(path, tmp / f"{name}{SUFFIX}")
            meta = {"key": key, "engine_version": _engine.ENGINE_VERSION, "run_meta": run.meta, **info}
            (tmp / "meta.json").write_text(json.dumps(meta, indent=1, default=str))
            final.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.rename(tmp, final)
            except OSError:
                if not self.has(key):
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            for d in stage_dirs:
                shutil.rmtree(d, ignore_errors=True)

    def clean_stale(self) -> int:
        """Removes temporary directories left by writers that no longer run (a killed
        sweep); returns how many were removed."""
        tmp = self.staging
        removed = 0
        if not tmp.is_dir():
            return 0
        for d in tmp.iterdir():
            parts = d.name.split("-")
            pid = int(parts[1]) if len(parts) >= 3 and parts[1].isdigit() else None
            if pid is not None and pid_alive(pid):
                continue
            shutil.rmtree(d, ignore_errors=True)
            removed += 1
        return removed

    def load(self, key: str) -> Result:
        """The stored run; each table is read from disk the first time it is used."""
        d = self._dir(key)
        meta = json.loads((d / "meta.json").read_text())
        return StoredResult(d, meta["run_meta"])

    def load_many(self, keys: list[str], prefetch: tuple[str, ...] = ("flows",)) -> list[Result]:
        """Several stored runs, with the ``prefetch`` tables read in one batch: one Arrow
        concatenation and one pandas conversion for all runs instead of one per run (about
        five times faster for the thousands of small tables an experiment reads)."""
        runs = [self.load(k) for k in keys]
        for name in prefetch:
            paths = [self._dir(k) / f"{name}{SUFFIX}" for k in keys]
            if not keys or not all(p.exists() for p in paths):
                continue  # older Parquet runs or a table some run lacks: load lazily
            tables = [read_table(p) for p in paths]
            try:
                frame = pa.concat_tables(tables).to_pandas()
            except pa.ArrowInvalid:
                continue  # schemas differ between runs
            start = 0
            for run, t in zip(runs, tables, strict=True):
                part = frame.iloc[start : start + t.num_rows].reset_index(drop=True)
                setattr(run, name, part)
                start += t.num_rows
        return runs

    def stored_on(self, key: str) -> str:
        """The day the run was stored (ISO date), from its files."""
        stamp = (self._dir(key) / "meta.json").stat().st_mtime
        return datetime.date.fromtimestamp(stamp).isoformat()

    def info(self, key: str) -> dict[str, Any]:
        return json.loads((self._dir(key) / "meta.json").read_text())

    def run_keys(self) -> list[str]:
        runs = self.root / "runs"
        if not runs.is_dir():
            return []
        return sorted(p.parent.name for p in runs.glob("*/*/meta.json"))

    def index(self) -> pd.DataFrame:
        """One row per stored run: key, experiment, parameters, seed, duration."""
        rows = []
        for k in self.run_keys():
            m = self.info(k)
            rows.append(
                {
                    "key": k,
                    "experiment": m.get("experiment", ""),
                    **{f"param.{p}": v for p, v in m.get("params", {}).items()},
                    "seed": m["run_meta"].get("seed"),
                    "duration": m["run_meta"].get("duration"),
                    "engine_version": m.get("engine_version"),
                }
            )
        return pd.DataFrame(rows)

    def export(
        self,
        path: str | Path,
        table: str = "flows",
        experiment: str | Callable[[str], bool] | None = None,
    ) -> int:
        """Concatenates one table of every stored run (with key, experiment and parameter
        columns) into a single Parquet file; returns the number of rows written.
        ``experiment``: only the runs of this experiment, or of those it accepts."""
        if table not in TABLES:
            raise ValueError(f"table {table!r} is unknown; one of {', '.join(TABLES)}")
        frames = []
        for k in self.run_keys():
            m = self.info(k)
            name = m.get("experiment", "")
            if experiment and not (experiment(name) if callable(experiment) else name == experiment):
                continue
            df = load_table(self._dir(k), table)
            if df is None:
                continue
            df.insert(0, "run_key", k)
            df.insert(1, "experiment", m.get("experiment", ""))
            for name, v in m.get("params", {}).items():
                df[f"param.{name}"] = v
            frames.append(df)
        out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        out.to_parquet(path, index=False)
        return len(out)


class RunClaim:
    """A process's claim on a run: an exclusive lock on the run's lock file, released by
    :meth:`release` (or the end of a ``with`` block) or by the process's death."""

    def __init__(self, fd: int):
        self._fd: int | None = fd

    @classmethod
    def take(cls, path: Path, wait: bool) -> RunClaim | None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        return cls(fd)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # (closing the file releases the lock)
            self._fd = None

    def __enter__(self) -> RunClaim:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class StoredResult(Result):
    """A stored run whose tables load lazily: most analyses read only `flows`."""

    def __init__(self, directory: Path, meta: dict[str, Any]):
        self._directory = directory
        self.meta = meta

    def __getattr__(self, name: str) -> Any:
        if name not in TABLES:
            raise AttributeError(name)
        table = load_table(self._directory, name)
        setattr(self, name, table)
        return table


def load_table(directory: Path, name: str) -> pd.DataFrame | None:
    """One stored table, or None if the run did not produce it."""
    path = directory / f"{name}{SUFFIX}"
    if path.exists():
        return read_table(path).to_pandas()
    legacy = directory / f"{name}.parquet"
    return pd.read_parquet(legacy) if legacy.exists() else None
