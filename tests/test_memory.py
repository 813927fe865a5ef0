"""Peak memory of ``tcplab run`` without --out does not grow with the simulated duration:
it prints only the flow table, so the engine drops the sampled series as it goes (they
grew by about 23 MB per simulated second at this sampling rate, and one flow for 60 s at
1 us peaked at 7.9 GB)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCENARIO = """
[simulation]
duration = {duration}
sample_interval = 1e-5
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = {{ rate = "10Mbps", delay = "20ms", buffer = 50 }}
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
"""

#: Peak RSS of the command given as arguments, in KiB (a fresh process, so no other child
#: of the test run counts).
PEAK_RSS = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak_rss_kib(tmp_path, duration: float) -> int:
    path = tmp_path / f"run{duration:g}.toml"
    path.write_text(SCENARIO.format(duration=duration))
    cmd = [sys.executable, "-c", PEAK_RSS, sys.executable, "-m", "tcplab.cli", "run", str(path)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return int(out.stdout)


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux")
def test_run_without_out_has_flat_memory(tmp_path):
    short, long = peak_rss_kib(tmp_path, 2), peak_rss_kib(tmp_path, 10)
    # Kept series would add about 180 MB to the long run.
    assert long - short < 20 * 1024, f"peak RSS {short} KiB for 2 s, {long} KiB for 10 s"
