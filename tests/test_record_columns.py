"""The engine's record tables keep their columns, their order and their types.

The engine generates each table's columns from its record struct (crates/tcplab/src/record),
so a new field reaches Python without touching the converter; this test pins what the tables
looked like when the converter still listed every column by hand (tests/records/columns.json,
captured from that converter), over the scenarios of tests/records, which produce every table.
Both ways the engine hands tables over are checked: at the end of a run, and in chunks to a
series sink while it runs. A deliberate change of a table: regenerate the file with
``python tests/test_record_columns.py --write`` and review its diff.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tcplab import _engine
from tcplab.tables import TABLES, engine_tables

HERE = Path(__file__).parent / "records"
EXPECTED = HERE / "columns.json"
SCENARIOS = sorted(HERE.glob("*.toml"))


def column_type(values: Any) -> str:
    """How the engine hands a column over: a NumPy array of a dtype, or a list of str."""
    if isinstance(values, np.ndarray):
        return f"ndarray[{values.dtype}]"
    assert isinstance(values, list), type(values)
    assert all(isinstance(v, str) for v in values), values[:5]
    return "list[str]"


def table_columns(table: dict[str, Any]) -> list[str]:
    return [f"{name}: {column_type(values)}" for name, values in table.items()]


class ChunkSink:
    """A series sink that keeps the columns and types of every chunk's tables."""

    chunk_rows = 500

    def __init__(self) -> None:
        self.tables: dict[str, list[str]] = {}

    def begin(self, link_names: list[str]) -> None:
        pass

    def write(self, chunk: dict[str, dict[str, Any]]) -> None:
        for name, table in chunk.items():
            columns = table_columns(table)
            assert self.tables.setdefault(name, columns) == columns, name


def describe(scenario: Path) -> dict[str, Any]:
    """Every table of a run: engine columns and types, and the Arrow schema Python sees."""
    text = scenario.read_text()
    with tempfile.TemporaryDirectory() as out:
        raw = _engine.run(text, None, out)
        sink = ChunkSink()
        _engine.run(text, None, out, sink, sink.chunk_rows)
    return {
        "tables": {k: None if v is None else table_columns(v) for k, v in raw.items() if k != "meta"},
        "meta": {k: type(v).__name__ for k, v in raw["meta"].items()},
        "arrow": {
            name: [f"{f.name}: {f.type}" for f in table.schema] for name, table in engine_tables(raw).items()
        },
        "streamed": sink.tables,
    }


def test_the_scenarios_produce_every_table():
    """Each table has rows in at least one scenario, so every column's type is really seen."""
    produced = set()
    for s in SCENARIOS:
        raw = _engine.run(s.read_text(), None, tempfile.mkdtemp())
        produced |= {k for k, v in raw.items() if k != "meta" and v and len(next(iter(v.values())))}
    assert produced == set(TABLES)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.stem)
def test_tables_have_the_columns_and_types_they_had(scenario):
    expected = json.loads(EXPECTED.read_text())[scenario.name]
    got = describe(scenario)
    for part in ("tables", "meta", "arrow", "streamed"):
        assert got[part] == expected[part], part


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    EXPECTED.write_text(json.dumps({s.name: describe(s) for s in SCENARIOS}, indent=1) + "\n")
