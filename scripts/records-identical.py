#!/usr/bin/env python3
"""Checks that an engine change leaves every record identical (issue 19's "behaviour unchanged").

Each run is reduced to one SHA-256 per table (Arrow schema and values, chunking ignored), one for
the run's meta data and one per pcap file it wrote. Three ways to use it:

    # before the change: hash every scenario of some directories (or files), save the hashes
    scripts/records-identical.py examples tests/records --save /tmp/before.json
    # after it (rebuilt engine): the same scenarios, compared with the saved hashes
    scripts/records-identical.py examples tests/records --against /tmp/before.json

    # a store of runs made by the old engine (`tcplab reproduce ... --store DIR`): re-simulate
    # every stored run with this engine and compare it with its stored tables
    scripts/records-identical.py --store results --rerun
    # ... or a deterministic sample of them: every 20th run in key order
    scripts/records-identical.py --store results --rerun --every 20

``--store DIR`` without ``--rerun`` hashes the stored tables themselves (to compare two stores
with ``--save``/``--against``). Kernel test-bed runs in a store are skipped. Exit status: 0 when
everything compared is identical, 1 when something differs (each difference is printed), 2 on
bad arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from tcplab.runner import run_raw
from tcplab.store import ResultStore
from tcplab.tables import SUFFIX, TABLES, engine_tables, read_table

Hashes = dict[str, str]


def table_hash(table: pa.Table) -> str:
    """SHA-256 of a table's schema and values, independent of how its rows are chunked."""
    table = table.replace_schema_metadata(None).combine_chunks()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        for batch in table.to_batches():
            writer.write_batch(batch)
    return hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()


def meta_hash(meta: dict) -> str:
    return hashlib.sha256(json.dumps(meta, sort_keys=True, default=str).encode()).hexdigest()


def simulate(toml_text: str) -> Hashes:
    """Runs a scenario and hashes its tables, meta data and the pcap files it writes."""
    with tempfile.TemporaryDirectory() as out:
        raw = run_raw(toml_text, out_dir=out)
        hashes = {name: table_hash(t) for name, t in engine_tables(raw).items()}
        hashes["meta"] = meta_hash(dict(raw["meta"]))
        for f in sorted(Path(out).rglob("*")):
            if f.is_file():
                hashes[f"file:{f.relative_to(out)}"] = hashlib.sha256(f.read_bytes()).hexdigest()
    return hashes


def stored(directory: Path, run_meta: dict) -> Hashes:
    """The hashes of a stored run's tables and meta data."""
    hashes = {}
    for name in TABLES:
        path = directory / f"{name}{SUFFIX}"
        if path.exists():
            hashes[name] = table_hash(read_table(path))
    hashes["meta"] = meta_hash(run_meta)
    return hashes


def scenario_files(paths: list[Path]) -> Iterator[Path]:
    for p in paths:
        if p.is_dir():
            yield from sorted(p.rglob("*.toml"))
        else:
            yield p


def differences(name: str, before: Hashes, after: Hashes) -> list[str]:
    """One line per table that differs, is new or is gone."""

    def change(key: str) -> str:
        if key in before and key in after:
            return "differs"
        return "is new" if key in after else "is gone"

    return [
        f"{name}: {key} {change(key)}"
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path, help="scenario files or directories of them")
    ap.add_argument("--store", type=Path, help="a result store (its runs/ directory's parent)")
    ap.add_argument("--rerun", action="store_true", help="re-simulate each stored run and compare")
    ap.add_argument(
        "--every",
        type=int,
        default=1,
        metavar="N",
        help="with --store: only every N-th stored run in key order (a deterministic sample)",
    )
    ap.add_argument("--save", type=Path, help="write the hashes to this JSON file")
    ap.add_argument("--against", type=Path, help="compare with hashes saved before")
    args = ap.parse_args(argv)
    if not args.paths and not args.store:
        ap.error("give scenario files or directories, or --store DIR")
    if args.rerun and not args.store:
        ap.error("--rerun needs --store")
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        ap.error(f"no such file or directory: {', '.join(missing)}")
    if args.every < 1:
        ap.error(f"--every {args.every}: give a whole number of at least 1")

    hashes: dict[str, Hashes] = {}
    problems: list[str] = []
    for f in scenario_files(args.paths):
        hashes[str(f)] = simulate(f.read_text())
        print(f"{f}: {len(hashes[str(f)])} tables and files hashed", file=sys.stderr)
    if args.store:
        store = ResultStore(args.store)
        keys = store.run_keys()[:: args.every]
        if not keys:
            ap.error(f"{args.store} holds no stored runs")
        for n, key in enumerate(keys, 1):
            info = store.info(key)
            if info.get("backend", "sim") != "sim":
                continue
            hashes[key] = stored(store._dir(key), info["run_meta"])
            if args.rerun:
                found = differences(key, hashes[key], simulate(info["scenario"]))
                problems += found
                verdict = f"{len(found)} differences" if found else "identical"
                print(f"[{n}/{len(keys)}] {key} {info.get('experiment', '')}: {verdict}", file=sys.stderr)
        print(f"{args.store}: {len(hashes)} runs hashed", file=sys.stderr)

    if args.save:
        args.save.write_text(json.dumps(hashes, indent=1, sort_keys=True))
    if args.against:
        before = json.loads(args.against.read_text())
        for name in sorted(set(before) | set(hashes)):
            if name not in hashes or name not in before:
                problems.append(f"{name}: only {'before' if name in before else 'now'}")
            else:
                problems += differences(name, before[name], hashes[name])
    for p in problems:
        print(p)
    compared = "compared" if (args.against or args.rerun) else "hashed"
    print(f"{len(hashes)} runs {compared}, {len(problems)} differences", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
