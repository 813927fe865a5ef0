"""Fault injection: killed and interrupted processes, concurrent reproductions.

Each test starts the real ``tcplab`` command in a subprocess, injects the fault (a signal,
a second process) and checks what is left behind: processes, exit codes, stores, reports.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TCPLAB = [sys.executable, "-m", "tcplab.cli"]


def children(pid: int) -> set[int]:
    """Live (not zombie) processes whose parent is ``pid``, from /proc."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == pid and state != "Z":
            found.add(int(entry.name))
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` that still run (a zombie has stopped running)."""
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_of_reproduce_leaves_no_worker(tmp_path):
    """Workers die with the main process, and the output pipe closes (a reader is not left
    waiting, as ``| tee`` was)."""
    proc = subprocess.Popen(
        [*TCPLAB, "reproduce", "hasegawa/fig4", "--quick", "--jobs", "2"]
        + ["--store", str(tmp_path / "store"), "--report", str(tmp_path / "report")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    workers: set[int] = set()
    try:
        workers = wait_for(lambda: c if len(c := children(proc.pid)) >= 2 else None, 120, "workers")
        proc.kill()
        proc.wait()
        wait_for(lambda: not alive(workers), 5, f"workers {sorted(alive(workers))} to die")
        # Every writer of the pipe is gone, so reading it ends (`| tee` waited for ever).
        proc.communicate(timeout=5)
    finally:
        proc.kill()
        for pid in alive(workers):
            os.kill(pid, signal.SIGKILL)


def test_pool_left_by_an_exception_stops_its_workers():
    """A failed or interrupted sweep does not wait for the runs in flight (nor leave them)."""
    from tcplab.worker_pool import worker_pool

    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="a run failed"), worker_pool(2) as pool:
        pids = {pool.submit(os.getpid).result() for _ in range(4)}
        pool.submit(time.sleep, 60)
        raise RuntimeError("a run failed")
    wait_for(lambda: not alive(pids), 5, f"workers {sorted(alive(pids))} to stop")
    assert time.monotonic() - t0 < 30, "the pool waited for the sleeping task"
