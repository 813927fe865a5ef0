"""The engine's records as Arrow tables, and their on-disk encoding.

One function turns the engine's column dicts into Arrow tables (with the derived columns
every user sees, such as ``link_name``), so an in-memory :class:`~tcplab.result.Result` and
a stored one have the same columns and dtypes by construction.

Stored runs hold each table as an Arrow IPC file (``<table>.arrow``, LZ4-compressed): it is
written and read several times faster than Parquet and needs no pandas on the way in, which
matters when a sweep stores thousands of runs. Encoding happens where the run was simulated
(a pool or Ray worker), so the process that writes the store only moves bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

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

#: File suffix of a stored table.
SUFFIX = ".arrow"
_WRITE_OPTIONS = pa.ipc.IpcWriteOptions(compression="lz4")


def engine_tables(raw: dict[str, Any]) -> dict[str, pa.Table]:
    """Arrow tables of a run's engine records; tables the run did not produce are absent."""
    tables = {name: pa.table(raw[name]) for name in TABLES if raw.get(name) is not None}
    link_names = dict(zip(raw["links"]["id"], raw["links"]["name"], strict=True))
    for name in ("queues", "queue_vars"):
        t = tables.get(name)
        if t is not None and t.num_rows:
            names = pa.array([link_names[i] for i in t.column("link").to_pylist()], pa.string())
            tables[name] = t.add_column(2, "link_name", names)
    return tables


@dataclass(frozen=True)
class EncodedRun:
    """A run ready to be written: one IPC file's bytes per table, and the run's meta data.
    Small and cheap to pickle, so workers can hand it to the process that owns the store."""

    files: dict[str, bytes]
    meta: dict[str, Any]


def encode_run(raw: dict[str, Any]) -> EncodedRun:
    files = {}
    for name, table in engine_tables(raw).items():
        sink = pa.BufferOutputStream()
        with pa.ipc.new_file(sink, table.schema, options=_WRITE_OPTIONS) as writer:
            writer.write_table(table)
        files[name] = sink.getvalue().to_pybytes()
    return EncodedRun(files, dict(raw["meta"]))


def read_table(path: Any) -> pa.Table:
    """A table written by :func:`encode_run`."""
    with pa.OSFile(str(path)) as source:
        return pa.ipc.open_file(source).read_all()
