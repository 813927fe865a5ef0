"""The engine's records as Arrow tables, and their on-disk encoding.

One function turns the engine's column dicts into Arrow tables (with the derived columns
every user sees, such as ``link_name``), so an in-memory :class:`~tcplab.result.Result` and
a stored one have the same columns and dtypes by construction.

Stored runs hold each table as an Arrow IPC file (``<table>.arrow``, LZ4-compressed): it is
written and read several times faster than Parquet and needs no pandas on the way in, which
matters when a sweep stores thousands of runs. Encoding happens where the run was simulated
(a pool or Ray worker), so the process that writes the store only moves bytes. The tables
that grow with the simulated duration (the sampled series, the per-event log and the loss
responses) are not held in memory at all: the engine hands them to a :class:`SeriesFiles`
in chunks while it runs, and the files it writes are moved into the store.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import _engine

#: Every table a run can have, in the order the documentation lists them.
TABLES = (
    "flows",
    "udp_flows",
    "links",
    "series",
    "queues",
    "cc_vars",
    "queue_vars",
    "losses",
    "traces",
    "wifi",
    "ap_queue",
    "frames",
    "events",
)

#: The tables that grow with the simulated duration (the sampled series, the per-event log
#: and the loss responses): a run can stream these to files instead of keeping them.
SERIES_TABLES = ("series", "queues", "cc_vars", "queue_vars", "ap_queue", "events", "losses")

#: Tables whose ``link`` column gets a ``link_name`` beside it.
_LINK_TABLES = ("queues", "queue_vars")

#: File suffix of a stored table.
SUFFIX = ".arrow"
_WRITE_OPTIONS = pa.ipc.IpcWriteOptions(compression="lz4")


def engine_tables(raw: dict[str, Any]) -> dict[str, pa.Table]:
    """Arrow tables of a run's engine records; tables the run did not produce are absent."""
    tables = {name: pa.table(raw[name]) for name in TABLES if raw.get(name) is not None}
    link_names = list(raw["links"]["name"])
    for name in _LINK_TABLES:
        if name in tables:
            tables[name] = _with_link_names(tables[name], link_names)
    return tables


def _with_link_names(table: pa.Table, link_names: list[str]) -> pa.Table:
    """Adds ``link_name`` after ``link`` (link ids index ``link_names``)."""
    if not table.num_rows:
        return table
    names = pa.array(link_names, pa.string()).take(table.column("link"))
    return table.add_column(2, "link_name", names)


class SeriesFiles:
    """Receives a run's series while it runs (the engine's ``series_sink``) and appends each
    chunk to ``directory/<table>.arrow`` (LZ4 Arrow IPC, the store's format) or, with
    ``parquet=True``, ``<table>.parquet`` (one row group per chunk). A table without rows gets
    no file. ``chunk_rows``: rows the engine collects, over all series, before it hands them
    over. Use it as a context manager: each file is written under a temporary name and takes
    its own once the block ends without an exception, so an interrupted or failed run leaves
    no partial table and does not replace a complete one written before."""

    def __init__(
        self, directory: str | Path, parquet: bool = False, chunk_rows: int = _engine.DEFAULT_CHUNK_ROWS
    ):
        if chunk_rows < 1:
            raise ValueError(f"chunk_rows = {chunk_rows} is not allowed; give at least 1")
        self.directory = Path(directory)
        self.parquet = parquet
        self.chunk_rows = chunk_rows
        self.paths: dict[str, Path] = {}
        self._writers: dict[str, Any] = {}
        self._partial: dict[str, Path] = {}
        self._link_names: list[str] = []

    def begin(self, link_names: list[str]) -> None:
        """Called by the engine before the run, with the names of the wired links."""
        self._link_names = list(link_names)

    def write(self, chunk: dict[str, dict[str, Any]]) -> None:
        """Called by the engine with each chunk: a column dict per series table."""
        for name, columns in chunk.items():
            table = pa.table(columns)
            if not table.num_rows:
                continue
            if name in _LINK_TABLES:
                table = _with_link_names(table, self._link_names)
            writer = self._writers.get(name) or self._open(name, table.schema)
            writer.write_table(table)

    def _open(self, name: str, schema: pa.Schema) -> Any:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{name}{'.parquet' if self.parquet else SUFFIX}"
        partial = path.with_name(f"{path.name}.partial")
        self._partial[name] = partial  # first: Ctrl-C may land while the writer creates it
        if self.parquet:
            writer = pq.ParquetWriter(partial, schema)
        else:
            writer = pa.ipc.new_file(str(partial), schema, options=_WRITE_OPTIONS)
        self._writers[name] = writer
        self.paths[name] = path
        return writer

    def close(self) -> None:
        """Completes the files: each takes its name in :attr:`paths`."""
        try:
            for name in list(self._writers):
                self._writers.pop(name).close()
                self._partial.pop(name).replace(self.paths[name])
        except BaseException:
            self.abort()
            raise

    def abort(self) -> None:
        """Removes the files written so far (the run failed or was interrupted)."""
        for name, partial in self._partial.items():
            writer = self._writers.get(name)
            if writer is not None:
                with suppress(Exception):  # the error that stopped the run is the one to report
                    writer.close()
            partial.unlink(missing_ok=True)
        self._writers.clear()
        self._partial.clear()
        self.paths.clear()

    def __enter__(self) -> SeriesFiles:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


@dataclass(frozen=True)
class EncodedRun:
    """A run ready to be written: one IPC file's bytes per table, and the run's meta data.
    Small and cheap to pickle, so workers can hand it to the process that owns the store.
    ``staged`` names tables already written as files on this machine (streamed series),
    which the store moves into place instead of copying bytes."""

    files: dict[str, bytes]
    meta: dict[str, Any]
    staged: dict[str, str] = field(default_factory=dict)


def encode_run(
    raw: dict[str, Any], streamed: dict[str, Path] | None = None, inline: bool = False
) -> EncodedRun:
    """Encodes a run's tables. ``streamed``: tables a :class:`SeriesFiles` already wrote (they
    replace the run's empty in-memory ones); ``inline`` reads those files into the result
    too, for a worker whose files the store cannot reach (a Ray node)."""
    streamed = streamed or {}
    files = {}
    for name, table in engine_tables(raw).items():
        if name in streamed:
            continue
        sink = pa.BufferOutputStream()
        with pa.ipc.new_file(sink, table.schema, options=_WRITE_OPTIONS) as writer:
            writer.write_table(table)
        files[name] = sink.getvalue().to_pybytes()
    if inline:
        files.update({name: Path(path).read_bytes() for name, path in streamed.items()})
        return EncodedRun(files, dict(raw["meta"]))
    return EncodedRun(files, dict(raw["meta"]), {name: str(path) for name, path in streamed.items()})


def encode_frames(frames: dict[str, pd.DataFrame | None], meta: dict[str, Any]) -> EncodedRun:
    """Encodes tables that exist only as DataFrames (a kernel test-bed run) the way
    :func:`encode_run` encodes the engine's, so the store keeps both alike."""
    files = {}
    for name, df in frames.items():
        if df is None:
            continue
        table = pa.Table.from_pandas(df, preserve_index=False)
        sink = pa.BufferOutputStream()
        with pa.ipc.new_file(sink, table.schema, options=_WRITE_OPTIONS) as writer:
            writer.write_table(table)
        files[name] = sink.getvalue().to_pybytes()
    return EncodedRun(files, dict(meta))


def read_table(path: Any) -> pa.Table:
    """A table written by :func:`encode_run`."""
    with pa.OSFile(str(path)) as source:
        return pa.ipc.open_file(source).read_all()
