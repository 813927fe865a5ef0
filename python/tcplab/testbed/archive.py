"""The kernel side of linux/conformance, kept in the repository.

The matrix takes about 4 h of real time on the test bed, and its runs live in a result
store, which a new machine does not have: one session's 350 kernel runs were lost with the
machine that held them. The archive keeps each kernel run's normalised figures
(``conformance.Figures``, all the comparison needs), named by the run's store key (the
document the bed ran and the bed's version, ``store.kernel_run_key``) and with when and on
which kernel it was measured. linux/conformance compares fresh simulated runs with it when
the store lacks a kernel run, on any machine and without root, and says so; a run measured
afresh always takes precedence. A changed matrix point or bed version changes the key, so
figures of another set-up are never used for it.

Beside it, the traces the report draws (flow 0's cwnd and pacing rate, 10 ms samples) of the
runs it draws them from: each algorithm's first run on the base point (``traces_path``).

``tcplab testbed archive`` adds a store's kernel runs to it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path

import pandas as pd

from ..result import variable_samples
from .conformance import Figures

#: The archive in the package (python/tcplab/testbed/data/).
ARCHIVE = Path(__file__).with_name("data") / "conformance_kernel.csv"

#: The columns of an archived trace (flow 0 of the run under ``key``).
TRACE_COLUMNS = ("key", "time", "cwnd", "pacing_rate", "bw")
#: Columns the files gained later (2026-11-27, BBR's bandwidth estimate): a file without them
#: is read with NaN in them.
_LATER = ("bw_estimate", "bw_peak", "bw")

#: Where a run was measured, beside its figures.
PROVENANCE = ("key", "scenario", "algorithm", "repeat", "measured", "kernel", "testbed")
#: The figures' scalar fields, one column each (the shares are ``share_0``, ``share_1``, ...).
_SCALARS = tuple(f.name for f in fields(Figures) if f.name not in ("shares", "seed"))


@dataclass(frozen=True)
class Archived:
    """One archived kernel run: its figures and where they come from."""

    figures: Figures
    measured: str
    kernel: str
    testbed: str


def to_row(figures: Figures, **provenance: object) -> dict[str, object]:
    """One archive row: the provenance columns (``PROVENANCE``), then the figures."""
    missing = set(PROVENANCE) - set(provenance)
    if missing:
        raise ValueError(f"an archive row needs {', '.join(sorted(missing))}")
    row: dict[str, object] = {k: provenance[k] for k in PROVENANCE}
    row["seed"] = figures.seed
    row |= {name: getattr(figures, name) for name in _SCALARS}
    row |= {f"share_{i}": s for i, s in enumerate(figures.shares)}
    return row


def from_row(row: dict[str, object]) -> Figures:
    """The figures of one archive row (a missing value is NaN, as in a fresh run's)."""

    def number(name: str) -> float:
        v = row.get(name)
        return float(v) if v is not None and v == v else math.nan  # (NaN != NaN)

    shares: list[float] = []
    while not math.isnan(share := number(f"share_{len(shares)}")):  # (a one-flow run has none)
        shares.append(share)
    seed = number("seed")
    return Figures(
        **{name: number(name) for name in _SCALARS},
        shares=shares,
        seed=None if math.isnan(seed) else int(seed),
    )


def _read_csv(path: Path, holds: str, columns: tuple[str, ...], dtype: dict[str, type]) -> pd.DataFrame:
    """The rows of one of the archive's files (``holds``: what it holds), with every one of
    ``columns`` (those of ``_LATER`` NaN where the file predates them); a file that is not one
    (unreadable, truncated, without the other ``columns``) is a ValueError naming it."""
    try:
        frame = pd.read_csv(path, dtype=dtype)
    except (OSError, EOFError, ValueError, pd.errors.ParserError) as e:
        raise ValueError(f"{path}: not a readable archive of {holds} ({e})") from None
    missing = [c for c in columns if c not in frame.columns and c not in _LATER]
    if missing:
        raise ValueError(f"{path}: not an archive of {holds}: no column {', '.join(missing)}")
    return frame.reindex(columns=[*frame.columns, *(c for c in columns if c not in frame.columns)])


def _write_whole(frame: pd.DataFrame, path: Path, **to_csv: object) -> None:
    """Writes ``frame`` to ``path`` through a temporary file: the file is whole or as before."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    frame.to_csv(tmp, index=False, **to_csv)
    tmp.replace(path)


def _read(path: Path) -> pd.DataFrame:
    """The archive file's rows."""
    text = {"key": str, "measured": str, "kernel": str, "testbed": str}
    return _read_csv(path, "kernel measurements", (*PROVENANCE, *_SCALARS), text)


def load(path: Path = ARCHIVE) -> dict[str, Archived]:
    """The archived runs by store key (none if there is no archive)."""
    if not path.exists():
        return {}
    frame = _read(path)
    out = {}
    for row in frame.to_dict("records"):
        out[str(row["key"])] = Archived(
            from_row(row), str(row["measured"]), str(row["kernel"]), str(row["testbed"])
        )
    return out


def merge(rows: list[dict[str, object]], path: Path = ARCHIVE) -> tuple[int, int]:
    """Adds ``rows`` to the archive, a row replacing the archived one of the same key;
    returns (rows added, rows replaced). The file is rewritten whole, sorted by algorithm,
    scenario, repeat and key, so that its diff shows what changed."""
    old = _read(path) if path.exists() else pd.DataFrame(columns=["key"])
    new = pd.DataFrame(rows)
    if len(new) and new["key"].duplicated().any():
        twice = new.loc[new["key"].duplicated(), "key"].iloc[0]
        raise ValueError(f"two rows of the same run (store key {twice}) in one merge")
    replaced = int(old["key"].isin(new["key"]).sum()) if len(new) else 0
    kept = old[~old["key"].isin(new["key"])] if len(new) else old
    both = pd.concat([kept, new], ignore_index=True) if len(kept) else new
    shares = sorted((c for c in both.columns if c.startswith("share_")), key=lambda c: int(c[6:]))
    columns = [*PROVENANCE, "seed", *_SCALARS, *shares]
    both = both.reindex(columns=columns).sort_values(["algorithm", "scenario", "repeat", "key"])
    _write_whole(both, path, float_format="%.10g")
    return len(new) - replaced, replaced


def traces_path(archive: Path = ARCHIVE) -> Path:
    """The file of the traces archived beside ``archive`` (gzipped CSV)."""
    return archive.with_name(f"{archive.stem}_traces.csv.gz")


def trace_of(series: pd.DataFrame, cc_vars: pd.DataFrame | None = None) -> pd.DataFrame:
    """What the report draws of a kernel run: flow 0's time, cwnd, pacing rate and BBR's
    bandwidth estimate (``cc_vars``' ``bw`` at the same samples), rates in bits per second;
    NaN where the run has none."""
    mine = series[series["flow"] == 0]
    rate = mine["pacing_rate"] if "pacing_rate" in mine else float("nan")
    out = pd.DataFrame({"time": mine["time"], "cwnd": mine["cwnd"], "pacing_rate": rate}).reset_index(
        drop=True
    )
    bw = variable_samples(cc_vars if cc_vars is not None else pd.DataFrame(), "bw")
    bw = bw[bw["flow"] == 0]
    by_time = bw.drop_duplicates("time").set_index("time")["value"].astype(float) * 8
    out["bw"] = out["time"].map(by_time).astype(float)
    return out


def _read_traces(path: Path) -> pd.DataFrame:
    """The traces file's rows."""
    return _read_csv(path, "kernel traces", TRACE_COLUMNS, {"key": str})


def load_traces(path: Path) -> dict[str, pd.DataFrame]:
    """The archived traces by store key, each as a series table of flow 0 (none without a
    file)."""
    if not path.exists():
        return {}
    frame = _read_traces(path)
    return {
        key: g.drop(columns="key").assign(flow=0).reset_index(drop=True)
        for key, g in frame.groupby("key", sort=False)
    }


def merge_traces(traces: dict[str, pd.DataFrame], path: Path) -> int:
    """Adds traces (by store key; ``trace_of``'s columns) to the file, replacing those of the
    same keys; returns how many were written (an empty trace is not: it would only erase one).
    Rewritten whole, sorted by key."""
    traces = {key: t for key, t in traces.items() if len(t)}
    if not traces:
        return 0
    old = _read_traces(path) if path.exists() else pd.DataFrame(columns=list(TRACE_COLUMNS))
    new = [t.assign(key=key).reindex(columns=list(TRACE_COLUMNS)) for key, t in traces.items()]
    kept = old.loc[~old["key"].isin(traces), list(TRACE_COLUMNS)]
    both = pd.concat([kept, *new], ignore_index=True) if len(kept) else pd.concat(new, ignore_index=True)
    both = both.sort_values(["key", "time"], kind="stable")
    # mtime 0: the same traces give the same bytes, so re-archiving leaves git's copy as it is.
    _write_whole(both, path, float_format="%.6g", compression={"method": "gzip", "mtime": 0})
    return len(traces)
