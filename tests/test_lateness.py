"""The bed's delay-path lateness (testbed/lateness.py) from synthetic captures: frames matched
across the two ends, the per-run offset taken out, the distribution's quantiles."""

from __future__ import annotations

import json

import dpkt
import numpy as np
import pandas as pd
import pytest

from tcplab.testbed import lateness as L
from tcplab.testbed import net

SENDER = bytes(int(x) for x in net.SENDER_ADDR.split("."))
RECEIVER = bytes(int(x) for x in net.RECEIVER_ADDR.split("."))


def _frame(src: bytes, dst: bytes, seq: int, ack: int, payload: int, tsval: int) -> bytes:
    opts = bytes([1, 1, 8, 10]) + tsval.to_bytes(4, "big") + bytes(4)
    tcp = dpkt.tcp.TCP(sport=5301, dport=6301, seq=seq, ack=ack, off=8, opts=opts, data=bytes(payload))
    ip = dpkt.ip.IP(src=src, dst=dst, p=dpkt.ip.IP_PROTO_TCP, data=tcp)
    ip.len = len(ip)
    return bytes(dpkt.ethernet.Ethernet(type=dpkt.ethernet.ETH_TYPE_IP, data=ip))


def _write(path, frames: list[tuple[float, bytes]]) -> None:
    with open(path, "wb") as f:
        w = dpkt.pcap.Writer(f, nano=True)
        for t, buf in sorted(frames, key=lambda x: x[0]):
            w.writepkt(buf, ts=t)


def _captures(tmp_path, data_delay, ack_delay, n: int = 200):
    """Data frames leave r1 1 ms apart and reach h0 after ``data_delay(i)``; each one's ACK
    leaves h0 0.1 ms later and reaches r1 after ``ack_delay(i)``."""
    router, receiver = [], []
    for i in range(n):
        sent = 1.0 + i * 1e-3
        data = _frame(SENDER, RECEIVER, 1000 * i, 1, 1000, i)
        router.append((sent, data))
        arrived = sent + data_delay(i)
        receiver.append((arrived, data))
        ack = _frame(RECEIVER, SENDER, 1, 1000 * (i + 1), 0, 10_000 + i)
        receiver.append((arrived + 1e-4, ack))
        router.append((arrived + 1e-4 + ack_delay(i), ack))
    _write(tmp_path / L.ROUTER_CAPTURE, router)
    _write(tmp_path / L.RECEIVER_CAPTURE, receiver)


def test_each_direction_is_its_delay_over_the_running_median(tmp_path):
    """A steady offset (0.3 ms) is not lateness; a 2 ms spike on one data frame and a 0.5 ms
    one on one ACK are, on the frame they hit and nowhere else."""
    _captures(
        tmp_path,
        lambda i: 0.020 + 3e-4 + (2e-3 if i == 100 else 0.0),
        lambda i: 0.020 + 3e-4 + (5e-4 if i == 50 else 0.0),
    )
    run = L.from_captures(tmp_path, "synthetic")
    assert len(run.forward) == 200 and len(run.reverse) == 200
    assert run.forward[100] == pytest.approx(2e-3, abs=1e-6)
    assert run.reverse[50] == pytest.approx(5e-4, abs=1e-6)
    assert np.delete(run.forward, 100).max() < 1e-6 and np.delete(run.reverse, 50).max() < 1e-6
    # (the spiked data frame arrives after the next one: one of their ACKs is not exact)
    assert len(run.ack_latency) >= 198 and np.allclose(run.ack_latency, 1e-4, atol=1e-6)


def test_the_ack_latency_counts_only_acks_of_the_last_segment_received(tmp_path):
    """A duplicate ACK (it acknowledges less than the last segment that arrived) and an ACK
    of a segment other than the latest are not a receiver's reaction time."""
    frames = [
        (1.0000, _frame(SENDER, RECEIVER, 0, 1, 1000, 1)),
        (1.0001, _frame(RECEIVER, SENDER, 1, 1000, 0, 2)),  # 100 us after its segment
        (1.0004, _frame(RECEIVER, SENDER, 1, 1000, 0, 20)),  # a window update: not a reaction
        (1.0010, _frame(SENDER, RECEIVER, 2000, 1, 1000, 3)),  # a hole at 1000
        (1.0011, _frame(RECEIVER, SENDER, 1, 1000, 0, 4)),  # duplicate ACK
        (1.0020, _frame(SENDER, RECEIVER, 1000, 1, 1000, 5)),
        (1.00206, _frame(RECEIVER, SENDER, 1, 3000, 0, 6)),  # 60 us, fills the hole
    ]
    _write(tmp_path / "r.pcap", frames)
    got = L.ack_latencies(L.read_frames(tmp_path / "r.pcap"), SENDER, RECEIVER, min_len=1000)
    assert got == pytest.approx([1e-4], abs=1e-7), "the hole-filling ACK acknowledges past its segment"
    empty = L.read_frames(tmp_path / "r.pcap").query("len == 0")
    assert len(L.ack_latencies(empty, SENDER, RECEIVER)) == 0, "ACKs without data: nothing to measure"


def test_a_frame_seen_twice_is_left_out(tmp_path):
    """A retransmission that carries the same seq, ack and timestamp as its original cannot
    be matched one to one: neither copy counts."""
    _captures(tmp_path, lambda i: 0.02, lambda i: 0.02, n=60)
    router = L.read_frames(tmp_path / L.ROUTER_CAPTURE)
    receiver = L.read_frames(tmp_path / L.RECEIVER_CAPTURE)
    doubled = router[(router["src"] == SENDER)].iloc[[10]].assign(time=lambda f: f["time"] + 0.5)
    delays = L.path_delays(pd.concat([router, doubled]), receiver, SENDER)
    assert len(delays) == 59


def test_short_segments_are_not_data_frames(tmp_path):
    """Only full-sized segments count on the data direction (the distribution is per frame of
    the conformance matrix's segment size)."""
    _captures(tmp_path, lambda i: 0.02, lambda i: 0.02, n=30)
    router = L.read_frames(tmp_path / L.ROUTER_CAPTURE)
    receiver = L.read_frames(tmp_path / L.RECEIVER_CAPTURE)
    assert len(L.path_delays(router, receiver, SENDER, min_len=1000)) == 30
    assert len(L.path_delays(router, receiver, SENDER, min_len=1001)) == 0


def test_the_distribution_leaves_out_the_rarest_stalls():
    """Quantiles from 0, non-decreasing, 201 of them; the top 0.1 % does not reach the table."""
    rng = np.random.default_rng(1)
    body = rng.exponential(20e-6, 9990)
    stalls = np.full(10, 5e-3)
    q = L.distribution([body, stalls])
    assert len(q) == L.PROBABILITIES and q[0] >= 0 and all(b >= a for a, b in zip(q, q[1:], strict=False))
    assert q[-1] < 1e-3, "the 5 ms stalls are above the 99.9th percentile"
    with pytest.raises(ValueError, match="no frames matched"):
        L.distribution([np.array([])])


def test_the_document_names_its_runs_and_how_it_was_measured():
    rng = np.random.default_rng(2)
    runs = [
        L.RunLateness(
            f"r{i}", rng.exponential(1e-5, 500), rng.exponential(1e-5, 300), rng.exponential(4e-5, 250)
        )
        for i in range(2)
    ]
    doc = L.document(runs, "2026-11-27, test")
    assert doc["frames"] == {"forward": 1000, "reverse": 600, "ack_latency": 500}
    assert all(len(doc[m]) == L.PROBABILITIES for m in L.MEASURES)
    assert [r["run"] for r in doc["runs"]] == ["r0", "r1"] and "2026-11-27, test" in doc["source"]
    json.dumps(doc)


def test_an_algorithm_outside_the_matrix_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        L.main(["/tmp/x.json", "--algorithms", "cubic,westwood"])
    assert e.value.code == 2 and "westwood" in capsys.readouterr().err
