"""The bed's delay-path lateness and its receiver's ACK latency, measured while flows run:
what the simulator's ``conformance.BED_JITTER`` and ``conformance.BED_ACK_LATENCY`` model.

    python -m tcplab.testbed.lateness OUT.json [--algorithms cubic,bbr,...] [--seed 1]

runs each algorithm on the conformance matrix's base point with captures at both ends of the
delay element (the router's r1, the bed's own ``bottleneck.pcap``, and the receiver's h0,
``receiver.pcap``), and writes the distribution with its provenance. Needs root and the bed.

Per frame and direction (data r1 -> h0, full-sized segments; ACKs h0 -> r1), the path delay
is one capture's time minus the other's. It is a per-run offset (a tenth of a millisecond or
so, steady within a run) plus spikes; independent per-packet draws of the whole excess over
the minimum would turn the offset into packet-to-packet jitter the bed does not have. So the
lateness of a frame is its delay over the running median of the ``WINDOW`` frames around it,
negative deviations (a few microseconds) as 0, and the distribution is the lateness's
quantiles at ``PROBABILITIES`` probabilities, pooled over the runs, below the ``CUT``
quantile: the rarest stalls hold a burst of frames at once, which independent draws cannot
model.

The receiver's ACK latency is, for each ACK that acknowledges exactly up to the last data
frame the receiver got before it (the ACK the delayed-ACK rule sends; duplicate ACKs and
window updates are left out), the time from that frame's arrival to the ACK's departure,
both at the receiver's interface.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import dpkt
import numpy as np
import pandas as pd

from . import conformance as cf
from . import net

#: Frames around each one whose median delay is its reference.
WINDOW = 51
#: Quantiles of the distribution: probabilities 0, 1/(n-1), ..., 1.
PROBABILITIES = 201
#: The pooled lateness above this quantile is left out (bursts of frames held by one stall).
CUT = 0.999
#: Algorithms measured by default: loss-based bursts (reno, cubic), paced (bbr), delay-based
#: with a small queue (vegas: a BPF port).
ALGORITHMS = ("reno", "cubic", "bbr", "vegas")
#: What a run measures: the delay path's lateness each way, the receiver's ACK latency.
MEASURES = ("forward", "reverse", "ack_latency")
#: The delay element's two sides, as the bed's captures name them.
ROUTER_CAPTURE, RECEIVER_CAPTURE = "bottleneck.pcap", "receiver.pcap"

_KEY = ["src", "seq", "ack", "len", "tsval"]


def read_frames(path: str | Path) -> pd.DataFrame:
    """The IPv4 TCP frames of a pcap: time (s), source address, seq, ack, payload length,
    the timestamp option's value (which tells a retransmission from the original) and the
    source port (which tells the bed's flows apart: they share its hosts)."""
    rows = []
    with open(path, "rb") as f:
        for ts, buf in dpkt.pcap.Reader(f):
            ip = dpkt.ethernet.Ethernet(buf).data
            if not isinstance(ip, dpkt.ip.IP) or not isinstance(ip.data, dpkt.tcp.TCP):
                continue
            tcp = ip.data
            options = dpkt.tcp.parse_opts(tcp.opts)
            tsval = next((v for k, v in options if k == dpkt.tcp.TCP_OPT_TIMESTAMP), b"")
            payload = ip.len - 4 * ip.hl - 4 * (tcp.off or 5)
            rows.append((float(ts), ip.src, tcp.seq, tcp.ack, payload, tsval[:4], tcp.sport))
    return pd.DataFrame(rows, columns=["time", *_KEY, "sport"])


def path_delays(first: pd.DataFrame, second: pd.DataFrame, src: bytes, min_len: int = 0) -> np.ndarray:
    """Delay (s) of each frame from ``src`` seen in both captures, in the order it passed the
    first; frames seen more than once in either capture are left out (no unique match)."""
    a = first[(first["src"] == src) & (first["len"] >= min_len)].drop_duplicates(_KEY, keep=False)
    b = second[second["src"] == src].drop_duplicates(_KEY, keep=False)
    m = a.merge(b, on=_KEY, suffixes=("_a", "_b")).sort_values("time_a")
    return (m["time_b"] - m["time_a"]).to_numpy()


def lateness(delays: np.ndarray, window: int = WINDOW) -> np.ndarray:
    """Each frame's delay over the running median of the ``window`` frames around it
    (negative deviations as 0)."""
    median = pd.Series(delays).rolling(window, center=True, min_periods=1).median().to_numpy()
    return np.maximum(delays - median, 0.0)


def distribution(samples: Iterable[np.ndarray], cut: float = CUT, n: int = PROBABILITIES) -> list[float]:
    """Quantiles at probabilities 0, 1/(n-1), ..., 1 of the pooled samples below their ``cut``
    quantile, rounded to 0.1 us."""
    pooled = np.concatenate(list(samples))
    if not len(pooled):
        raise ValueError("no frames matched in both captures: nothing to measure")
    kept = pooled[pooled <= np.quantile(pooled, cut)]
    return [round(float(q), 7) for q in np.quantile(kept, np.linspace(0.0, 1.0, n))]


def ack_latencies(frames: pd.DataFrame, sender: bytes, receiver: bytes, min_len: int = 0) -> np.ndarray:
    """Seconds from the arrival of each data frame (from ``sender``, at least ``min_len``
    bytes) to the departure of the receiver's first ACK after it, where that ACK
    acknowledges exactly up to it (one capture at the receiver). A later ACK of the same
    frame (a window update, a delayed-ACK timer's) is not a reaction to it, nor is an ACK of
    less (a duplicate)."""
    data = frames[(frames["src"] == sender) & (frames["len"] >= max(min_len, 1))]
    acks = frames[frames["src"] == receiver]
    if data.empty or acks.empty:
        return np.array([])
    arrived = data["time"].to_numpy()
    ends = ((data["seq"] + data["len"]) % 2**32).to_numpy()
    t, ack = acks["time"].to_numpy(), acks["ack"].to_numpy()
    i = np.searchsorted(arrived, t, side="right") - 1
    seen = i >= 0
    t, ack, i = t[seen], ack[seen], i[seen]
    first = np.r_[True, i[1:] != i[:-1]]  # the first ACK after each frame
    exact = first & (ends[i] == ack)
    return t[exact] - arrived[i[exact]]


@dataclass
class RunLateness:
    """One run's lateness in each direction and its receiver's ACK latency, with a summary
    for the provenance."""

    label: str
    forward: np.ndarray
    reverse: np.ndarray
    ack_latency: np.ndarray

    def summary(self) -> dict[str, object]:
        def q(x: np.ndarray) -> dict[str, float]:
            levels = ("50", "90", "99", "99.9")
            p = np.quantile(x, [0.5, 0.9, 0.99, 0.999]) * 1e3 if len(x) else [float("nan")] * 4
            return {f"p{k}_ms": round(float(v), 4) for k, v in zip(levels, p, strict=True)}

        measured = {d: q(getattr(self, d)) for d in MEASURES}
        return {"run": self.label, "frames": [len(getattr(self, d)) for d in MEASURES], **measured}


def from_captures(run_dir: Path, label: str, mss: int = cf.MSS) -> RunLateness:
    """The lateness of one bed run from its two captures."""
    router, receiver = read_frames(run_dir / ROUTER_CAPTURE), read_frames(run_dir / RECEIVER_CAPTURE)
    sender, receiving = address_bytes(net.SENDER_ADDR), address_bytes(net.RECEIVER_ADDR)
    return RunLateness(
        label,
        lateness(path_delays(router, receiver, sender, min_len=mss)),
        lateness(path_delays(receiver, router, receiving)),
        ack_latencies(receiver, sender, receiving, min_len=mss),
    )


def measure(algorithms: Sequence[str], seed: int, work: Path) -> list[RunLateness]:
    """Runs each algorithm on the base point with both captures and returns each run's
    lateness (root and the bed)."""
    from ..experiments.linux import LinuxConformance
    from .runner import run_scenario

    base = cf.matrix()[0]
    runs = []
    for algo in algorithms:
        out = work / algo
        kernel = LinuxConformance().bed_scenario(base, algo, seed=seed)
        run_scenario(kernel, out_dir=out, native=True, receiver_capture=True)
        runs.append(from_captures(out, f"{algo} on {base.name}, seed {seed}"))
    return runs


def document(runs: Sequence[RunLateness], when: str = "") -> dict[str, object]:
    """The json document of ``conformance.BED_JITTER`` and ``BED_ACK_LATENCY``: the
    quantiles of each measure and how they were measured."""
    return {
        "source": (
            f"forward, reverse: per-frame lateness of the test bed's delay path (router r1 -> receiver "
            f"h0 for data, full-sized frames; h0 -> r1 for ACKs) over the running median of the "
            f"{WINDOW} frames around it, negative deviations as 0. ack_latency: the receiver's time "
            "from a full-sized data frame's arrival to the departure of the ACK that acknowledges "
            "exactly up to it, at h0. Quantiles at "
            f"{PROBABILITIES} probabilities of each measure pooled over the runs, below its {CUT:g} "
            "quantile. Measured by "
            f"`python -m tcplab.testbed.lateness` ({when or 'no date given'}) on the base point of "
            "linux/conformance "
            "(10 Mb/s, 40 ms, 1 BDP)."
        ),
        "runs": [r.summary() for r in runs],
        "frames": {d: int(sum(len(getattr(r, d)) for r in runs)) for d in MEASURES},
        **{d: distribution(getattr(r, d) for r in runs) for d in MEASURES},
    }


def address_bytes(dotted: str) -> bytes:
    """A dotted IPv4 address as the 4 bytes dpkt gives."""
    return bytes(int(x) for x in dotted.split("."))


def _json_to_write(value: str) -> Path:
    """The measurement's output, checked before the bed runs for minutes: its directory exists."""
    path = Path(value)
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"{value!r}: its directory {str(path.parent)!r} does not exist")
    return path


def _first_seed(value: str) -> int:
    """A seed of the matrix: a whole number from 1."""
    try:
        seed = int(value)
    except ValueError:
        seed = 0
    if seed < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not allowed; a whole number from 1")
    return seed


def measurement_parser(doc: str, data_file: str) -> argparse.ArgumentParser:
    """The options every bed measurement takes: the json to write (``data_file`` as the
    example), the seed, the provenance's date and where to keep the captures."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("out", type=_json_to_write, help=f"the json to write (e.g. testbed/data/{data_file})")
    parser.add_argument("--seed", type=_first_seed, default=1)
    parser.add_argument("--when", default="", help="date, kernel and machine, for the provenance")
    parser.add_argument("--keep", type=Path, help="keep the captures (and traces) in this directory")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = measurement_parser(__doc__, "bed_jitter.json")
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS), help="comma-separated, of the matrix's")
    args = parser.parse_args(argv)
    algorithms = [a for a in args.algorithms.split(",") if a]
    unknown = [a for a in algorithms if a not in cf.ALGORITHMS]
    if unknown:
        parser.error(f"--algorithms: {', '.join(unknown)} not in the matrix ({', '.join(cf.ALGORITHMS)})")
    write_measurement(
        args.out,
        args.keep,
        "tcplab-lateness-",
        lambda work: document(measure(algorithms, args.seed, work), args.when),
    )
    return 0


def write_measurement(out: Path, keep: Path | None, prefix: str, run: Callable[[Path], dict]) -> None:
    """Runs a bed measurement (``run(work)`` returns its json document) with its captures in
    ``keep``, or in a temporary directory removed afterwards, writes the document to ``out``
    and prints each run's summary."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        doc = run(keep or Path(tmp))
    out.write_text(json.dumps(doc, indent=1) + "\n")
    for r in doc["runs"]:
        print(r)


if __name__ == "__main__":
    sys.exit(main())
