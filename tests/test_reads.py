"""The bed receiver's reads (testbed/reads.py) from a synthetic trace and capture: one read per
cluster of tracepoint events, read latencies from the first segment a read found, and each ACK
told by what it followed (a read or an arrival)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tcplab.testbed import lateness as L
from tcplab.testbed import net
from tcplab.testbed import reads as R

SENDER, RECEIVER = L.address_bytes(net.SENDER_ADDR), L.address_bytes(net.RECEIVER_ADDR)


def _event(t: float, port: int = 5301) -> str:
    return (
        f"          python-4714    [000] ..... {t:.6f}: tcp_rcv_space_adjust: family=AF_INET "
        f"sport={port} dport=6301 saddr=10.201.2.1 daddr=10.201.1.1 sock_cookie=2\n"
    )


def test_a_read_is_a_cluster_of_events_at_its_last_one_and_other_sockets_do_not_count():
    trace = "# tracer: nop\n" + "".join(
        _event(t) for t in (10.000100, 10.000101, 10.000103, 10.001000, 10.002000, 10.002004)
    )
    trace += _event(10.0015, port=5302)
    assert R.read_times(trace, 5301) == pytest.approx([10.000103, 10.001000, 10.002004])
    assert R.read_times(trace, 5302) == pytest.approx([10.0015])
    assert len(R.read_times("# tracer: nop\n", 5301)) == 0


def _frames(arrivals: list[float], acks: list[tuple[float, int]]) -> pd.DataFrame:
    rows = [(t, SENDER, 1000 * i, 0, 1000, b"") for i, t in enumerate(arrivals)]
    rows += [(t, RECEIVER, 0, ack, 0, b"") for t, ack in acks]
    return pd.DataFrame(rows, columns=["time", "src", "seq", "ack", "len", "tsval"]).sort_values("time")


def test_acks_are_told_by_the_read_or_arrival_they_follow():
    """Pairs of segments 1 ms apart; the application reads 60 us after each segment. Even
    pairs' ACKs leave 3 us after the read; odd pairs' 15 us after the second arrival, before
    its read (a window with room). A delayed-ACK timer's ACK follows neither."""
    arrivals, reads, acks = [], [], []
    for k in range(100):
        first, second = 1.0 + 2e-3 * k, 1.0 + 2e-3 * k + 1e-3
        arrivals += [first, second]
        reads += [first + 60e-6, second + 60e-6]
        ack_at = second + 63e-6 if k % 2 == 0 else second + 15e-6
        acks.append((ack_at, 2000 * (k + 1)))
    acks.append((1.1505, 0))  # a timer's, 0.5 ms after anything
    run = R.receiver_view(_frames(arrivals, acks), np.array(reads), "synthetic", (0.0, 1.0))
    assert run.acks_after_read == 50 and run.acks_on_arrival == 50 and run.acks_other == 1
    assert np.median(run.read_latency) == pytest.approx(60e-6, abs=1e-9)
    assert sorted({round(x * 1e6) for x in run.kernel_latency}) == [3, 15]
    summary = run.summary()
    assert summary["acks"] == {"after a read": 50, "on arrival": 50, "other": 1}
    assert summary["read_latency"]["p50_us"] == pytest.approx(60.0)


def test_no_reads_in_the_window_is_an_error_not_an_empty_measurement():
    """Reads outside the capture's time (a trace on another clock) are none in the window."""
    with pytest.raises(ValueError, match="0 reads in the measured window.*tai"):
        R.receiver_view(_frames([1.0, 1.001], []), np.array([]), "empty", (0.0, 1.0))
    with pytest.raises(ValueError, match="0 reads in the measured window"):
        R.receiver_view(_frames([1.0, 1.001], []), np.array([38.0, 38.1]), "offset", (0.0, 1.0))
    with pytest.raises(ValueError, match="no data frames"):
        R.receiver_view(_frames([], []), np.array([1.0, 1.1]), "silent", (0.0, 1.0))


def test_data_becomes_readable_when_the_in_order_point_moves():
    """Segments 0, 2, 3 arrive, then 1 (a retransmission): 2 and 3 make nothing readable;
    1 makes 1-3 readable at once. A duplicate of 0 makes nothing readable."""
    arrivals = [1.0, 1.1, 1.2, 1.3, 1.4]
    frames = _frames(arrivals, [])
    frames["seq"] = [2**32 - 500 + 1000 * i for i in (0, 2, 3, 1, 0)]  # wraps past 2^32
    assert R.readable_times(frames, SENDER) == pytest.approx([1.0, 1.3])


def test_entries_name_an_algorithm_and_a_point_of_the_matrix():
    algo, point = R.parse_entry("reno@loss 0.5%")
    assert algo == "reno" and point.loss == 0.005
    with pytest.raises(ValueError, match="algorithm 'tahoe'"):
        R.parse_entry("tahoe@base")
    with pytest.raises(ValueError, match="point 'nowhere'"):
        R.parse_entry("reno@nowhere")
