"""The bed receiver's reads and its kernel's own ACK latency, measured while flows run: what
the simulator's ``conformance.BED_APP_READ`` and ``conformance.BED_ACK_LATENCY`` model.

    python -m tcplab.testbed.reads OUT.json [--entries "reno@base,bbr@base,..."] [--seed 1]

runs each entry (algorithm @ matrix point) with a capture at the receiver's interface (h0) and
the kernel's ``tcp:tcp_rcv_space_adjust`` tracepoint, which fires as a read copies data to the
application, on the receiver's sockets, with the capture's clock (tracefs ``tai``, which is
the realtime clock on a machine that has no TAI offset set). Needs root, tracefs and the bed.

A read is a cluster of tracepoint events (one per buffer copied) less than ``CLUSTER`` apart;
its time is the cluster's last event. Per run:

- the read latency: for each read, from the arrival of the first data frame it found (the one
  that woke the application) to the read;
- the kernel's ACK latency: for an ACK sent within ``REACTION`` of a read that came after the
  last arrival, the time from the read; for one sent within ``REACTION`` of an arrival, the
  time from that arrival;
- how many of the receiver's ACKs followed a read, and how many an arrival.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import conformance as cf
from . import lateness, net
from .runner import BASE_PORT

#: Tracepoint events of one read lie closer together than this (seconds).
CLUSTER = 10e-6
#: An ACK this soon after a read or an arrival is that event's (seconds).
REACTION = 30e-6
#: Where runs are measured: loss-based bursts (reno, cubic), paced (bbr), delay-based (vegas)
#: at the base point, and Reno where random loss lets bursts through the token bucket.
ENTRIES = ("reno@base", "cubic@base", "bbr@base", "vegas@base", "reno@loss 0.5%")
TRACEFS = Path("/sys/kernel/tracing")
EVENT = "tcp/tcp_rcv_space_adjust"
_READ = re.compile(r" (\d+\.\d+): tcp_rcv_space_adjust: .*?sport=(\d+)")


@contextlib.contextmanager
def traced_reads(ports: range, out: Path) -> Iterator[None]:
    """Records ``EVENT`` on sockets whose local port is in ``ports`` into ``out`` while the
    block runs, with the ``tai`` clock; restores the clock and disables the event after."""
    if not (TRACEFS / "trace").exists():
        subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], check=True)
    clock_file, event = TRACEFS / "trace_clock", TRACEFS / "events" / EVENT
    clock = re.search(r"\[(\w+)\]", clock_file.read_text())
    (TRACEFS / "tracing_on").write_text("0")
    clock_file.write_text("tai")
    (TRACEFS / "trace").write_text("")
    (event / "filter").write_text(f"sport >= {ports.start} && sport < {ports.stop}")
    (event / "enable").write_text("1")
    (TRACEFS / "tracing_on").write_text("1")
    try:
        yield
    finally:
        (TRACEFS / "tracing_on").write_text("0")
        (event / "enable").write_text("0")
        (event / "filter").write_text("0")
        out.write_text((TRACEFS / "trace").read_text())
        (TRACEFS / "trace").write_text("")
        if clock:
            clock_file.write_text(clock.group(1))


def read_times(trace_text: str, port: int) -> np.ndarray:
    """The times (s) of the reads on the socket with local ``port``: each cluster of events
    closer than ``CLUSTER`` is one read, at its last event."""
    events = np.array([float(m[1]) for m in _READ.finditer(trace_text) if int(m[2]) == port])
    if not len(events):
        return events
    return events[np.r_[np.diff(events) > CLUSTER, True]]


@dataclass
class ReceiverRun:
    """One run's read latencies, kernel ACK latencies and ACK counts."""

    label: str
    read_latency: np.ndarray
    kernel_latency: np.ndarray
    acks_after_read: int
    acks_on_arrival: int
    acks_other: int

    def summary(self) -> dict[str, object]:
        def q(x: np.ndarray) -> dict[str, float]:
            p = np.quantile(x, [0.5, 0.9, 0.99]) * 1e6 if len(x) else [float("nan")] * 3
            return {f"p{k}_us": round(float(v), 1) for k, v in zip(("50", "90", "99"), p, strict=True)}

        return {
            "run": self.label,
            "reads": len(self.read_latency),
            "read_latency": q(self.read_latency),
            "kernel_ack_latency": q(self.kernel_latency),
            "acks": {
                "after a read": self.acks_after_read,
                "on arrival": self.acks_on_arrival,
                "other": self.acks_other,
            },
        }


def receiver_view(frames, reads: np.ndarray, label: str, window: tuple[float, float]) -> ReceiverRun:
    """The receiver's reads and ACKs in ``window`` (seconds after the first data frame) from
    its capture's ``frames`` (``lateness.read_frames``) and its ``reads``."""
    sender, receiver = lateness.address_bytes(net.SENDER_ADDR), lateness.address_bytes(net.RECEIVER_ADDR)
    arrivals = np.sort(frames.loc[(frames["src"] == sender) & (frames["len"] > 0), "time"].to_numpy())
    acks = np.sort(frames.loc[(frames["src"] == receiver) & (frames["len"] == 0), "time"].to_numpy())
    if not len(arrivals) or not len(reads):
        raise ValueError(f"{label}: no data frames or no reads to measure")
    lo, hi = arrivals[0] + window[0], arrivals[0] + window[1]
    reads = reads[(reads > lo) & (reads < hi)]
    first = np.searchsorted(arrivals, reads[:-1], side="right")
    woke = (first < len(arrivals)) & (arrivals[np.minimum(first, len(arrivals) - 1)] < reads[1:])
    read_latency = reads[1:][woke] - arrivals[first[woke]]
    acks = acks[(acks > lo) & (acks < hi)]
    last_read = np.searchsorted(reads, acks, side="right") - 1
    last_arrival = np.searchsorted(arrivals, acks, side="right") - 1
    since_read = np.where(last_read >= 0, acks - reads[np.maximum(last_read, 0)], np.inf)
    since_arrival = acks - arrivals[np.maximum(last_arrival, 0)]
    after_read = (since_read < REACTION) & (since_read < since_arrival)
    on_arrival = ~after_read & (since_arrival < REACTION)
    kernel = np.r_[since_read[after_read], since_arrival[on_arrival]]
    other = int((~after_read & ~on_arrival).sum())
    return ReceiverRun(label, read_latency, kernel, int(after_read.sum()), int(on_arrival.sum()), other)


def parse_entry(entry: str) -> tuple[str, cf.Point]:
    """``"algo@point name"`` -> (algorithm, matrix point), with an error naming what is allowed."""
    algo, _, name = entry.partition("@")
    points = {p.name: p for p in cf.matrix()}
    if algo not in cf.ALGORITHMS:
        raise ValueError(f"entry {entry!r}: algorithm {algo!r} is not one of {', '.join(cf.ALGORITHMS)}")
    if name not in points:
        raise ValueError(f"entry {entry!r}: point {name!r} is not one of {', '.join(points)}")
    return algo, points[name]


def measure(entries: Sequence[str], seed: int, work: Path) -> list[ReceiverRun]:
    """Runs each entry on the bed with the receiver's capture and reads traced (root)."""
    from ..experiments.linux import LinuxConformance
    from .runner import run_scenario

    runs = []
    for entry in entries:
        algo, point = parse_entry(entry)
        out = work / entry.replace("@", "_").replace(" ", "_").replace("%", "pc")
        kernel = cf.kernel_scenario(LinuxConformance().scenario(point, algo, seed=seed))
        with traced_reads(range(BASE_PORT, BASE_PORT + 10), out / "reads.trace"):
            run_scenario(kernel, out_dir=out, native=True, receiver_capture=True)
        frames = lateness.read_frames(out / lateness.RECEIVER_CAPTURE)
        reads = read_times((out / "reads.trace").read_text(), BASE_PORT)
        label = f"{algo} on {point.name}, seed {seed}"
        runs.append(receiver_view(frames, reads, label, point.measure))
    return runs


def document(runs: Sequence[ReceiverRun], when: str) -> dict[str, object]:
    """The json document of ``conformance.BED_APP_READ`` and ``BED_ACK_LATENCY``."""
    return {
        "source": (
            "app_read: the bed receiver's time from the arrival of the first data frame a read found "
            "to the read (tracepoint tcp:tcp_rcv_space_adjust, clustered); ack_latency: its kernel's "
            "time from the event an ACK answers (a read, or an arrival) to the ACK's departure, both "
            f"at h0. Quantiles at {lateness.PROBABILITIES} probabilities pooled over the runs, below "
            f"the {lateness.CUT:g} quantile. Measured by `python -m tcplab.testbed.reads` ({when})."
        ),
        "runs": [r.summary() for r in runs],
        "app_read": lateness.distribution(r.read_latency for r in runs),
        "ack_latency": lateness.distribution(r.kernel_latency for r in runs),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the json to write (e.g. testbed/data/bed_receiver.json)")
    parser.add_argument("--entries", default=",".join(ENTRIES), help="comma-separated algo@point")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--when", default="", help="date, kernel and machine, for the provenance")
    parser.add_argument("--keep", type=Path, help="keep the captures and traces in this directory")
    args = parser.parse_args(argv)
    entries = [e for e in args.entries.split(",") if e]
    try:
        for e in entries:
            parse_entry(e)
    except ValueError as e:
        parser.error(f"--entries: {e}")
    with tempfile.TemporaryDirectory(prefix="tcplab-reads-") as tmp:
        work = args.keep or Path(tmp)
        doc = document(measure(entries, args.seed, work), args.when or "no date given")
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    for r in doc["runs"]:
        print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
