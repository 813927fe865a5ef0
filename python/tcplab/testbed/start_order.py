"""In which order the first windows of two flows started together reach the bed's bottleneck:
what the simulator's ``conformance.BED_SPLIT_START`` models.

    python -m tcplab.testbed.start_order OUT.json [--runs 30] [--algorithm cubic] [--seed 1]

runs the conformance matrix's "2 flows" point, shortened to 3 s, ``--runs`` times with the
bed's capture at the router (r1, ``bottleneck.pcap``) and writes, for each run, how much later
the second connection's first data segment left the bottleneck than the first connection's,
and how many runs had one flow's whole first window ahead of the other's. Needs root and the bed.

The bed's sender hands both flows' GSO packets to its device in turns, so their first windows
usually reach the bottleneck interleaved (first segments a few microseconds apart). In some
runs one connection's whole first window leaves before the other's first segment: the other's
first segment then leaves the bottleneck one window later (5.55 ms at 10 Mb/s, the bucket's
burst aside). Which happens decides whether a flow's ACKs come back as one train, which ends
CUBIC's slow start one round early through HyStart's ACK-train rule (docs/kernel.md,
"Two flows started together: one window after the other").
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from . import conformance as cf
from .lateness import ROUTER_CAPTURE, measurement_parser, read_frames, write_measurement

#: Runs whose second flow's first segment left the bottleneck more than this after the first
#: flow's (either way) had one whole window ahead: interleaved windows are microseconds apart,
#: split ones a window's serialisation (milliseconds).
SPLIT_THRESHOLD_MS = 1.0
#: The point measured: the matrix's two flows started together, shortened (only the start counts).
DURATION, WARMUP = 3.0, 1.0


def first_segments(path: str | Path) -> dict[int, float]:
    """The time (s) each TCP source port's first data segment appears in a pcap."""
    frames = read_frames(path)
    return frames[frames["len"] > 0].groupby("sport")["time"].min().to_dict()


def offset_ms(first: dict[int, float]) -> float:
    """How much later (ms, negative: earlier) the second connection's first segment appeared than
    the first's; connections are told apart by source port, the first connection's lowest."""
    if len(first) != 2:
        raise ValueError(f"expected the first segments of two flows, found {len(first)}")
    low, high = sorted(first)
    return (first[high] - first[low]) * 1e3


def document(
    offsets: Sequence[float], seed: int, when: str = "", algorithm: str = "cubic"
) -> dict[str, object]:
    """The json document of ``conformance.BED_SPLIT_START``: every run's offset and whether
    it had one window after the other, with how they were measured."""
    runs = [
        {"seed": seed + k, "offset_ms": round(o, 4), "split": abs(o) > SPLIT_THRESHOLD_MS}
        for k, o in enumerate(offsets)
    ]
    return {
        "source": (
            "Per run of linux/conformance's '2 flows' point (shortened to "
            f"{DURATION:g} s, {algorithm}), how much later the second connection's first data "
            "segment left the bed's bottleneck (capture at the router r1) than the first "
            f"connection's, ms; a run is 'split' when that is more than {SPLIT_THRESHOLD_MS:g} ms "
            "either way (one flow's whole first window ahead of the other's). Measured by "
            f"`python -m tcplab.testbed.start_order` ({when or 'no date given'})."
        ),
        "split_runs": sum(r["split"] for r in runs),
        "second_flow_late": sum(r["split"] and r["offset_ms"] > 0 for r in runs),
        "runs": runs,
    }


def measure(runs: int, seed: int, algorithm: str, work: Path) -> list[float]:
    """Runs the shortened two-flow point ``runs`` times (seeds from ``seed``) with the
    router's capture and returns each run's offset (root and the bed)."""
    from ..experiments.linux import LinuxConformance
    from .runner import run_scenario

    point = replace(next(p for p in cf.matrix() if p.name == "2 flows"), duration=DURATION, warmup=WARMUP)
    exp = LinuxConformance()
    out = []
    for k in range(runs):
        run_dir = work / f"run{k}"
        run_scenario(exp.bed_scenario(point, algorithm, seed=seed + k), out_dir=run_dir, native=True)
        out.append(offset_ms(first_segments(run_dir / ROUTER_CAPTURE)))
        print(f"run {k}: {out[-1]:+.3f} ms", flush=True)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = measurement_parser(__doc__, "bed_start_order.json")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--algorithm", default="cubic", help="one of the matrix's")
    args = parser.parse_args(argv)
    if args.algorithm not in cf.ALGORITHMS:
        parser.error(f"--algorithm: {args.algorithm!r} not in the matrix ({', '.join(cf.ALGORITHMS)})")
    if args.runs < 1:
        parser.error(f"--runs: {args.runs} is not allowed; at least 1")
    write_measurement(
        args.out,
        args.keep,
        "tcplab-start-order-",
        lambda work: document(
            measure(args.runs, args.seed, args.algorithm, work), args.seed, args.when, args.algorithm
        ),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
