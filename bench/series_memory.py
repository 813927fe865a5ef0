"""Peak memory of a run with time series, kept in memory or streamed to the store's files.

Runs scenario (b) (10 NewReno flows, 100 Mb/s) with every series sampled every 10 ms for
several simulated durations, each in a fresh Python process, two ways:

* in memory: ``tcplab.runner.run_raw`` (the engine keeps every row, then hands NumPy
  columns to Python), then encodes the run for the store, as workers did before streaming;
* streamed: ``tcplab.executors.execute`` with a staging directory, as the local executor
  runs every sweep: the engine hands the series over in chunks while it runs and they are
  appended to Arrow files.

Prints peak resident memory (VmHWM) and its growth per simulated second over the three
longest durations (a streamed run first fills one chunk, 65536 rows, about 55 simulated
seconds here, before memory stops growing), and writes
``docs/perf/results-series-memory.json``. Nothing is asserted.

With ``--losses`` the run has no series at all but many loss responses, the other table
that grows with the run: 1000 NewReno flows on the flow sweep's dumbbell of bench/run.py
(10 Gb/s, 20000 packets of buffer), about 2800 loss responses per simulated second; it
writes ``docs/perf/results-loss-memory.json``.

    python bench/series_memory.py             # 25 to 400 simulated seconds (about 2 min)
    python bench/series_memory.py --quick     # 5 to 40 s
    python bench/series_memory.py --losses    # 10 to 80 simulated seconds (about 6 min)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import sys, tempfile, pathlib
from tcplab.executors import Task, execute
from tcplab.runner import run_raw
from tcplab.tables import encode_run

toml, way = sys.stdin.read(), sys.argv[1]
if way == "in memory":
    raw = run_raw(toml)
    rows = len(raw["series"]["time"]) + len(raw["cc_vars"]["time"]) + len(raw["queues"]["time"])
    encoded = encode_run(raw)
    stored = sum(len(b) for b in encoded.files.values())
else:
    staging = tempfile.mkdtemp()
    _, encoded = execute(Task("k", toml, staging))
    rows = None
    stored = sum(len(b) for b in encoded.files.values())
    stored += sum(pathlib.Path(p).stat().st_size for p in encoded.staged.values())
status = pathlib.Path("/proc/self/status").read_text()
hwm = next(int(l.split()[1]) for l in status.splitlines() if l.startswith("VmHWM"))
print(hwm, stored)
"""


def scenario(duration: float, losses: bool) -> str:
    if losses:
        sys.path.insert(0, str(ROOT / "bench"))
        from run import dumbbell_toml

        return dumbbell_toml(1000, 1000 * 10e6, 0.010, 20 * 1000, duration)
    text = (ROOT / "bench" / "scenarios" / "b.toml").read_text()
    text = text.replace("duration = 100", f"duration = {duration:g}", 1)
    return text.replace("sample_interval = 0", "sample_interval = 0.01", 1)


def peak(duration: float, way: str, losses: bool) -> tuple[float, int]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, way],
        input=scenario(duration, losses),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return int(out[0]) / 1024, int(out[1])


def slope(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="5 to 40 simulated seconds")
    ap.add_argument("--losses", action="store_true", help="a run with many loss responses, no series")
    ap.add_argument(
        "--out",
        type=Path,
        help="results file (default: docs/perf/results-{series,loss}-memory.json)",
    )
    args = ap.parse_args()
    name = "results-loss-memory.json" if args.losses else "results-series-memory.json"
    args.out = args.out or ROOT / "docs" / "perf" / name
    if args.losses:
        durations = [2, 4, 8, 16] if args.quick else [10, 20, 40, 80]
    else:
        durations = [5, 10, 20, 40] if args.quick else [25, 50, 100, 200, 400]
    results = {}
    for way in ("in memory", "streamed"):
        rows = []
        for d in durations:
            mib, stored = peak(d, way, args.losses)
            rows.append({"duration_s": d, "peak_mib": round(mib, 1), "stored_bytes": stored})
            print(f"  {way:<10} {d:>5} s: peak {mib:7.1f} MiB, stored {stored / 2**20:6.2f} MiB", flush=True)
        last = rows[-3:]
        kib_per_s = slope([r["duration_s"] for r in last], [r["peak_mib"] for r in last]) * 1024
        span = f"{last[0]['duration_s']}-{last[-1]['duration_s']} s"
        print(f"  {way}: peak grows by {kib_per_s:.1f} KiB per simulated second over {span}", flush=True)
        results[way] = {"rows": rows, "peak_growth_kib_per_sim_s": round(kib_per_s, 2)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    label = "1000 flows, 10 Gb/s dumbbell, series off" if args.losses else "b, series every 0.01 s"
    args.out.write_text(json.dumps({"scenario": label, **results}, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
