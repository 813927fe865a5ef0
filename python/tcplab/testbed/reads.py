"""The bed receiver's reads and its kernel's own ACK latency, measured while flows run: what
the simulator's ``conformance.BED_APP_READ`` and ``conformance.BED_ACK_LATENCY`` model.

    python -m tcplab.testbed.reads OUT.json [--entries "reno@base,bbr@base,..."] [--seed 1]

runs each entry (algorithm @ matrix point) with a capture at the receiver's interface (h0) and
the kernel's ``tcp:tcp_rcv_space_adjust`` tracepoint, which fires as a read copies data to the
application, on the receiver's sockets, with the capture's clock (tracefs ``tai``, which is
the realtime clock on a machine that has no TAI offset set). Needs root, tracefs and the bed.

A read is a cluster of tracepoint events (one per buffer copied) less than ``CLUSTER`` apart;
its time is the cluster's last event. Per run:

- the read latency: for each read, from the arrival of the first data frame since the read
  before it that made data readable (advanced the in-order point: the one that woke the
  application) to the read;
- the kernel's ACK latency: for an ACK sent within ``REACTION`` of a read that came after the
  last arrival, the time from the read; for one sent within ``REACTION`` of an arrival, the
  time from that arrival;
- how many of the receiver's ACKs followed a read, and how many an arrival.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

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


#: Per-CPU ring buffer while tracing (KB): a 35 s run writes about 3 MB of events.
BUFFER_KB = 65536


@contextlib.contextmanager
def traced_reads(ports: range, out: Path) -> Iterator[None]:
    """Records ``EVENT`` on sockets whose local port is in ``ports`` into ``out`` while the
    block runs, with the ``tai`` clock. Whatever happens, the event is disabled and its filter
    cleared, and tracing, the clock and the buffer size are restored to what they were; a
    trace that lost events to a full buffer is an error, not a shorter measurement."""
    if not (TRACEFS / "trace").exists():
        subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], check=True)
    clock_file, event = TRACEFS / "trace_clock", TRACEFS / "events" / EVENT
    saved = {
        "tracing_on": (TRACEFS / "tracing_on").read_text().strip(),
        "buffer_size_kb": (TRACEFS / "buffer_size_kb").read_text().strip(),
    }
    clock = re.search(r"\[(\w+)\]", clock_file.read_text())
    text = ""
    try:
        (TRACEFS / "tracing_on").write_text("0")
        clock_file.write_text("tai")
        (TRACEFS / "buffer_size_kb").write_text(str(BUFFER_KB))
        (TRACEFS / "trace").write_text("")
        (event / "filter").write_text(f"sport >= {ports.start} && sport < {ports.stop}")
        (event / "enable").write_text("1")
        (TRACEFS / "tracing_on").write_text("1")
        yield
        (TRACEFS / "tracing_on").write_text("0")
        text = (TRACEFS / "trace").read_text()
        overrun = sum(int(m) for m in re.findall(r"overrun: (\d+)", _per_cpu_stats()))
        if overrun:
            raise RuntimeError(f"the trace lost {overrun} events to a full buffer: raise BUFFER_KB")
    finally:
        (event / "enable").write_text("0")
        (event / "filter").write_text("0")
        (TRACEFS / "trace").write_text("")
        if clock:
            clock_file.write_text(clock.group(1))
        for name, value in saved.items():
            if "(" not in value:  # buffer_size_kb reads "7 (expanded: 1408)" when never set
                (TRACEFS / name).write_text(value)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)


def _per_cpu_stats() -> str:
    return "".join(p.read_text() for p in sorted((TRACEFS / "per_cpu").glob("cpu*/stats")))


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


def readable_times(frames: pd.DataFrame, sender: bytes) -> np.ndarray:
    """When data became readable at the receiver: the arrivals (at its capture) of the data
    frames that advanced the in-order point, out-of-order data counted when a frame fills the
    hole below it. Sequence numbers are taken relative to the first frame's, modulo 2^32."""
    data = frames[(frames["src"] == sender) & (frames["len"] > 0)].sort_values("time")
    if data.empty:
        return np.array([])
    seq = ((data["seq"].to_numpy(np.int64) - int(data["seq"].iloc[0])) % 2**32).tolist()
    ends = [s + n for s, n in zip(seq, data["len"].to_numpy(np.int64).tolist(), strict=True)]
    point, held, out = 0, {}, []
    for t, s, e in zip(data["time"].to_numpy(), seq, ends, strict=True):
        if s <= point < e:
            point = e
            while point in held:
                point = held.pop(point)
            out.append(t)
        elif s > point:
            held[s] = max(e, held.get(s, e))
    return np.array(out)


def receiver_view(
    frames: pd.DataFrame, reads: np.ndarray, label: str, window: tuple[float, float]
) -> ReceiverRun:
    """The receiver's reads and ACKs in ``window`` (seconds after the first data frame) from
    its capture's ``frames`` (``lateness.read_frames``) and its ``reads``. A read's latency
    counts from the first frame after the read before it that made data readable."""
    sender, receiver = lateness.address_bytes(net.SENDER_ADDR), lateness.address_bytes(net.RECEIVER_ADDR)
    arrivals = np.sort(frames.loc[(frames["src"] == sender) & (frames["len"] > 0), "time"].to_numpy())
    if not len(arrivals):
        raise ValueError(f"{label}: no data frames to measure")
    readable = readable_times(frames, sender)
    acks = np.sort(frames.loc[(frames["src"] == receiver) & (frames["len"] == 0), "time"].to_numpy())
    lo, hi = arrivals[0] + window[0], arrivals[0] + window[1]
    reads = reads[(reads > lo) & (reads < hi)]
    if len(reads) < 2:
        raise ValueError(
            f"{label}: {len(reads)} reads in the measured window: is the trace's clock (tai) the capture's?"
        )
    first = np.searchsorted(readable, reads[:-1], side="right")
    woke = (first < len(readable)) & (readable[np.minimum(first, len(readable) - 1)] < reads[1:])
    read_latency = reads[1:][woke] - readable[first[woke]]
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
    if not points[name].runs(algo):
        raise ValueError(f"entry {entry!r}: {algo} does not run the point {name!r} (Point.only)")
    return algo, points[name]


def entry_dir(work: Path, entry: str) -> Path:
    """Where one entry's captures and trace are kept."""
    return work / entry.replace("@", "_").replace(" ", "_").replace("%", "pc")


def measure(entries: Sequence[str], seed: int, work: Path) -> list[ReceiverRun]:
    """Runs each entry on the bed with the receiver's capture and reads traced (root), then
    analyses what it kept."""
    from ..experiments.linux import LinuxConformance
    from .runner import run_scenario

    for entry in entries:
        algo, point = parse_entry(entry)
        out = entry_dir(work, entry)
        kernel = LinuxConformance().bed_scenario(point, algo, seed=seed)
        with traced_reads(range(BASE_PORT, BASE_PORT + 10), out / "reads.trace"):
            run_scenario(kernel, out_dir=out, native=True, receiver_capture=True)
    return analyse(entries, seed, work)


def analyse(entries: Sequence[str], seed: int, work: Path) -> list[ReceiverRun]:
    """Each entry's receiver view from the capture and trace kept in ``work``."""
    runs = []
    for entry in entries:
        algo, point = parse_entry(entry)
        out = entry_dir(work, entry)
        frames = lateness.read_frames(out / lateness.RECEIVER_CAPTURE)
        reads = read_times((out / "reads.trace").read_text(), BASE_PORT)
        runs.append(receiver_view(frames, reads, f"{algo} on {point.name}, seed {seed}", point.measure))
    return runs


def document(runs: Sequence[ReceiverRun], when: str = "") -> dict[str, object]:
    """The json document of ``conformance.BED_APP_READ`` and ``BED_ACK_LATENCY``."""
    return {
        "source": (
            "app_read: the bed receiver's time from the arrival of the first data frame that made data "
            "readable since the read before to the read (tracepoint tcp:tcp_rcv_space_adjust, "
            "clustered); ack_latency: its kernel's "
            "time from the event an ACK answers (a read, or an arrival) to the ACK's departure, both "
            f"at h0. Quantiles at {lateness.PROBABILITIES} probabilities pooled over the runs, below "
            f"the {lateness.CUT:g} quantile. Measured by `python -m tcplab.testbed.reads` "
            f"({when or 'no date given'})."
        ),
        "runs": [r.summary() for r in runs],
        "app_read": lateness.distribution(r.read_latency for r in runs),
        "ack_latency": lateness.distribution(r.kernel_latency for r in runs),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = lateness.measurement_parser(__doc__, "bed_receiver.json")
    parser.add_argument("--entries", default=",".join(ENTRIES), help="comma-separated algo@point")
    parser.add_argument(
        "--analyse",
        type=Path,
        help="no bed runs: analyse the captures and traces an earlier --keep left here",
    )
    args = parser.parse_args(argv)
    entries = [e for e in args.entries.split(",") if e]
    try:
        for e in entries:
            parse_entry(e)
    except ValueError as e:
        parser.error(f"--entries: {e}")
    if args.analyse is not None:
        runs = analyse(entries, args.seed, args.analyse)
        lateness.write_measurement(
            args.out, args.analyse, "tcplab-reads-", lambda _: document(runs, args.when)
        )
        return 0
    lateness.write_measurement(
        args.out,
        args.keep,
        "tcplab-reads-",
        lambda work: document(measure(entries, args.seed, work), args.when),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
