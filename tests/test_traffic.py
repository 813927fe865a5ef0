"""The test bed's bulk-transfer generator (testbed/traffic.py) on the loopback interface:
no namespace or root needed, so it runs everywhere."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tcplab.testbed.runner import SAMPLER, read_samples, send_command, serve_command
from tcplab.testbed.sampler import TCP_FIELDS

PORT = 5391


#: Receivers started by the running test, killed when it ends however it ends.
_SERVERS: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _no_receiver_outlives_its_test():
    yield
    while _SERVERS:
        _SERVERS.pop().kill()


def serve(count: int, port: int = PORT) -> subprocess.Popen:
    p = subprocess.Popen(
        list(serve_command(port, count)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _SERVERS.append(p)
    assert p.stderr is not None and p.stderr.readline().startswith("ready")
    return p


def send(flows: list[dict], port: int = PORT) -> subprocess.CompletedProcess:
    cmd = list(send_command("127.0.0.1", port, port + 1000, flows))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


def test_every_flow_is_received_whole_and_the_sender_names_its_zero():
    server = serve(2)
    # The second flow sends for the last sixth only: however loopback's scheduler splits the
    # overlap (it once gave the later flow 1.6 times the first's bytes over a third of the
    # time), the first flow's 0.25 s alone outweigh it.
    flows = [{"cc": "reno", "start": 0.0, "stop": 0.3}, {"cc": "cubic", "start": 0.25, "stop": 0.3}]
    sent = send(flows)
    received = json.loads(server.communicate(timeout=10)[0])["received"]
    assert sent.returncode == 0, sent.stderr
    assert sent.stderr.startswith("start ") and int(sent.stderr.split()[1]) > 0
    report = json.loads(sent.stdout)
    assert report["errors"] == []
    assert report["sent"] == received and min(received) > 100_000
    # The later, shorter flow sent less.
    assert received[1] < received[0]


def test_a_congestion_control_the_kernel_lacks_is_named():
    server = serve(1, PORT + 10)
    sent = send([{"cc": "no_such_cc", "start": 0.0, "stop": 0.1}], PORT + 10)
    server.kill()
    assert sent.returncode == 1
    assert "congestion control 'no_such_cc' refused by the kernel" in sent.stderr


def test_the_sampler_finds_each_flow_by_its_ports_and_skips_absent_ones(tmp_path):
    """The tcp sampler looks connections up by addresses and ports (no dump of the hash
    table): it reports the running flow from its known source port, and none for a port
    pair that has no connection."""
    port = PORT + 20
    server = serve(2, port)
    out = (tmp_path / "tcp.txt").open("w")
    sampler = subprocess.Popen(
        [
            sys.executable,
            str(SAMPLER),
            "tcp",
            "127.0.0.1",
            str(port + 1000),
            "127.0.0.1",
            str(port),
            "3",
            "0.01",
        ],
        stdout=out,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert sampler.stderr is not None and "ready" in sampler.stderr.readline()
    sent = send([{"cc": "reno", "start": 0.0, "stop": 0.4}, {"cc": "cubic", "start": 0.0, "stop": 0.4}], port)
    sampler.terminate()
    sampler.wait(timeout=5)
    server.communicate(timeout=10)
    out.close()
    assert sent.returncode == 0, sent.stderr
    rows = read_samples(tmp_path / "tcp.txt", TCP_FIELDS, 0.0)
    assert set(rows["sport"]) == {port + 1000, port + 1001} and set(rows["dport"]) == {port, port + 1}
    assert rows.groupby("dport")["bytes_acked"].max().min() > 100_000
