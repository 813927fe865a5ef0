"""CPU time of this engine against another build of tcplab, on the `ns2` path.

Runs twelve code/fig9 scenarios, as the experiment writes them (10, 30 and 50 Mb/s, a Reno
flow against Vegas, Vegas-A, NewVegas or CODE, seed 7, 200 simulated seconds each, the `ns2`
profile; the documents are written by this checkout and read by both engines)
in fresh Python processes, alternating between this checkout's engine and another build given
as a directory to put first on ``sys.path`` (a wheel installed with ``pip install --target``),
and prints the fastest and the median CPU time of each and their ratio. Only the engine's run
is timed (``run_raw``), not Python's conversion of the results. Alternating, and taking the
fastest, is what a virtual machine whose speed swings from one run to the next allows; the
deterministic comparison is an instruction count (docs/reproduction.md). Nothing is asserted.

    git worktree add /tmp/old <commit> && (cd /tmp/old && maturin build --release -o /tmp/w)
    pip install --no-deps --target /tmp/oldpkg /tmp/w/*.whl
    python bench/engine_ab.py --other /tmp/oldpkg --rounds 10
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tcplab.experiments.code_tcp.fig9 import Fig9

RATES_MBPS = (10, 30, 50)
VARIANTS = ("vegas", "vegas_a", "newvegas", "code")
SEED, DURATION = 7, 200.0


def write_scenarios(directory: Path) -> None:
    """code/fig9's documents at the benchmark's rates, one file each."""
    fig9 = Fig9()
    for rate in RATES_MBPS:
        for variant in VARIANTS:
            text = fig9.scenario(variant, rate, SEED, DURATION).to_toml()
            (directory / f"{rate}_{variant}.toml").write_text(text)


# Runs in the child: prints the CPU seconds of the engine's runs.
CHILD = """
import sys, time
from pathlib import Path
from tcplab.runner import run_raw
texts = [p.read_text() for p in sorted(Path(sys.argv[1]).glob("*.toml"))]
t0 = time.process_time()
for t in texts:
    run_raw(t)
print(time.process_time() - t0)
"""


def cpu_seconds(scenarios: Path, other: str | None) -> float:
    env = dict(os.environ)
    if other:
        env["PYTHONPATH"] = other + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(scenarios)], env=env, check=True, capture_output=True, text=True
    )
    return float(out.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--other", required=True, help="directory holding the other build's tcplab package")
    ap.add_argument("--rounds", type=int, default=10, help="runs of each engine, alternating (default 10)")
    args = ap.parse_args()
    if not (Path(args.other) / "tcplab").is_dir():
        sys.exit(f"--other: {args.other!r} holds no tcplab package (pip install --target it first)")
    if args.rounds < 1:
        sys.exit(f"--rounds: {args.rounds} is not allowed; give 1 or more")
    this, other = [], []
    with tempfile.TemporaryDirectory() as tmp:
        scenarios = Path(tmp)
        write_scenarios(scenarios)
        for _ in range(args.rounds):
            other.append(cpu_seconds(scenarios, args.other))
            this.append(cpu_seconds(scenarios, None))
    for name, xs in (("other", other), ("this", this)):
        print(f"{name:5s}: fastest {min(xs):.3f} s, median {statistics.median(xs):.3f} s  {xs}")
    median = statistics.median(this) / statistics.median(other)
    print(f"this / other: fastest {min(this) / min(other):.3f}, median {median:.3f}")


if __name__ == "__main__":
    main()
