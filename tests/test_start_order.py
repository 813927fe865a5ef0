"""The order in which two flows started together reach the bed's bottleneck
(testbed/start_order.py) from synthetic captures, and the share the simulator draws from."""

from __future__ import annotations

import dpkt
import pytest

from tcplab.testbed import conformance as cf
from tcplab.testbed import start_order as so


def _segment(sport: int, seq: int, payload: int) -> bytes:
    tcp = dpkt.tcp.TCP(sport=sport, dport=5301, seq=seq, ack=1, off=5, data=bytes(payload))
    ip = dpkt.ip.IP(src=bytes([10, 201, 1, 1]), dst=bytes([10, 201, 2, 1]), p=dpkt.ip.IP_PROTO_TCP, data=tcp)
    ip.len = len(ip)
    return bytes(dpkt.ethernet.Ethernet(type=dpkt.ethernet.ETH_TYPE_IP, data=ip))


def _capture(path, frames: list[tuple[float, int, int]]) -> None:
    """Frames (time, source port, payload bytes) in time order."""
    with open(path, "wb") as f:
        w = dpkt.pcap.Writer(f, nano=True)
        for k, (t, sport, payload) in enumerate(sorted(frames)):
            w.writepkt(_segment(sport, 1000 * k, payload), ts=t)


def test_the_offset_is_between_the_two_connections_first_data_segments(tmp_path):
    """Handshake-like frames without payload do not count; the first connection is the lower
    source port; interleaved windows are microseconds apart, a split one a window's time."""
    interleaved = [(1.0, 40001, 0), (1.0001, 40002, 0)]
    interleaved += [(1.01 + k * 853e-6, 40001 + k % 2, 1000) for k in range(20)]
    _capture(tmp_path / "a.pcap", interleaved)
    assert so.offset_ms(so.first_segments(tmp_path / "a.pcap")) == pytest.approx(0.853, abs=1e-3)
    split = [(1.01 + k * 853e-6, 40002 if k < 10 else 40001, 1000) for k in range(20)]
    _capture(tmp_path / "b.pcap", split)
    assert so.offset_ms(so.first_segments(tmp_path / "b.pcap")) == pytest.approx(-8.53, abs=1e-3)
    _capture(tmp_path / "c.pcap", [(1.0, 40001, 1000)])
    with pytest.raises(ValueError, match="two flows"):
        so.offset_ms(so.first_segments(tmp_path / "c.pcap"))


def test_the_document_counts_split_runs_and_gives_the_simulators_share():
    doc = so.document([0.006, -5.55, 0.004, 5.56, -0.01, 0.9], seed=1, when="today")
    assert doc["split_runs"] == 2 and doc["second_flow_late"] == 1
    assert [r["seed"] for r in doc["runs"]] == [1, 2, 3, 4, 5, 6]
    assert [r["split"] for r in doc["runs"]] == [False, True, False, True, False, False], "1 ms is the line"
    assert "today" in doc["source"]
    assert cf.split_share(doc) == pytest.approx(2 / 6)
    with pytest.raises(ValueError, match="no runs"):
        cf.split_share({"runs": []})


def test_the_measurement_refuses_bad_options(capsys):
    with pytest.raises(SystemExit) as e:
        so.main(["out.json", "--runs", "0"])
    assert e.value.code == 2 and "--runs: 0 is not allowed" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        so.main(["out.json", "--algorithm", "westwood"])
    assert e.value.code == 2 and "westwood" in capsys.readouterr().err


def test_a_measurement_refuses_an_output_it_could_not_write_before_running(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        so.main([str(tmp_path / "missing" / "out.json")])
    assert e.value.code == 2 and "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        so.main([str(tmp_path / "out.json"), "--seed", "-3"])
    assert e.value.code == 2 and "'-3' is not allowed" in capsys.readouterr().err
