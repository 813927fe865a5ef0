"""The test bed's bulk-transfer generator (testbed/traffic.py) on the loopback interface:
no namespace or root needed, so it runs everywhere."""

from __future__ import annotations

import json
import subprocess
import sys

from tcplab.testbed.runner import TRAFFIC

PORT = 5391


def serve(count: int) -> subprocess.Popen:
    p = subprocess.Popen(
        [sys.executable, str(TRAFFIC), "serve", str(PORT), str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert p.stderr is not None and p.stderr.readline().startswith("ready")
    return p


def send(flows: list[dict]) -> subprocess.CompletedProcess:
    cmd = [sys.executable, str(TRAFFIC), "send", "127.0.0.1", str(PORT), json.dumps(flows)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


def test_every_flow_is_received_whole_and_the_sender_names_its_zero():
    server = serve(2)
    flows = [{"cc": "reno", "start": 0.0, "stop": 0.3}, {"cc": "cubic", "start": 0.1, "stop": 0.3}]
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
    server = serve(1)
    sent = send([{"cc": "no_such_cc", "start": 0.0, "stop": 0.1}])
    server.kill()
    assert sent.returncode == 1
    assert "congestion control 'no_such_cc' refused by the kernel" in sent.stderr
