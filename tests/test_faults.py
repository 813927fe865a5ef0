"""Fault injection: killed and interrupted processes, concurrent reproductions.

Each test starts the real ``tcplab`` command in a subprocess, injects the fault (a signal,
a second process) and checks what is left behind: processes, exit codes, stores, reports.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tcplab.store import ResultStore

TCPLAB = [sys.executable, "-m", "tcplab.cli"]

#: One Reno flow for days of simulated time (hours of wall time), sampled every millisecond
#: so the series reach a file within a second or two.
LONG_RUN = """
[simulation]
duration = 1000000
sample_interval = 0.001
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { rate = "10Mbps", delay = "20ms", buffer = 50 }
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
"""


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
    """A failed or interrupted sweep neither waits for the runs in flight nor leaves them."""
    from tcplab.worker_pool import worker_pool

    before = children(os.getpid())
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="a run failed"), worker_pool(2) as pool:
        for _ in range(2):
            pool.submit(time.sleep, 60)
        workers = wait_for(
            lambda: w if len(w := children(os.getpid()) - before) >= 2 else None, 60, "workers"
        )
        raise RuntimeError("a run failed")
    wait_for(lambda: not alive(workers), 5, f"workers {sorted(alive(workers))} to stop")
    assert time.monotonic() - t0 < 30, "the pool waited for the sleeping tasks"


def ctrl_c_able() -> None:
    """Restores SIGINT's default in the child: a shell starts background jobs (``make test
    &``, nohup) with SIGINT ignored, children inherit that, and Python then installs no
    KeyboardInterrupt handler, so the tests below would time out instead of testing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt(proc: subprocess.Popen) -> tuple[float, str, str]:
    """Sends SIGINT; returns the seconds until the process ended, its stdout and stderr."""
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    return time.monotonic() - sent, out, err


def test_sigint_stops_a_long_run_at_once_and_keeps_earlier_tables(tmp_path):
    """Ctrl-C stops ``tcplab run`` within a second with exit code 130 and a short message;
    the tables an earlier run wrote to the same --out directory are not touched."""
    scenario = tmp_path / "long.toml"
    scenario.write_text(LONG_RUN)
    out = tmp_path / "out"
    out.mkdir()
    earlier = out / "series.parquet"
    earlier.write_bytes(b"an earlier run's complete table")
    proc = subprocess.Popen(
        [*TCPLAB, "run", str(scenario), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_able,
    )
    wait_for(lambda: (out / "series.parquet.partial").exists() or proc.poll() is not None, 120, "the run")
    took, stdout, stderr = interrupt(proc)
    assert proc.returncode == 130, stderr
    assert took < 1.0, f"the run went on for {took:.2f} s after Ctrl-C"
    assert stderr.strip() == "interrupted" and "Traceback" not in stdout
    assert earlier.read_bytes() == b"an earlier run's complete table"
    assert sorted(p.name for p in out.iterdir()) == ["series.parquet"]


def test_sigint_stops_tcplab_run_in_the_api(tmp_path):
    """``tcplab.run()`` raises KeyboardInterrupt on Ctrl-C (the engine runs Python's signal
    handlers while it simulates)."""
    scenario = tmp_path / "long.toml"
    scenario.write_text(LONG_RUN)
    script = (
        "import sys, tcplab\n"
        "print('started', flush=True)\n"
        "try:\n"
        "    tcplab.run(sys.argv[1])\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt')\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(scenario)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_able,
    )
    assert proc.stdout.readline() == "started\n"
    time.sleep(0.3)  # into the engine
    took, stdout, stderr = interrupt(proc)
    assert (proc.returncode, stdout, stderr) == (0, "KeyboardInterrupt\n", "")
    assert took < 1.0, f"the run went on for {took:.2f} s after Ctrl-C"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigint_stops_reproduce_and_keeps_stored_runs(tmp_path):
    """Ctrl-C during a sweep: exit 130 within a second, no worker left, and every run stored
    before it is complete (loads) while the interrupted ones are absent."""
    store = ResultStore(tmp_path / "store")
    proc = subprocess.Popen(
        [*TCPLAB, "reproduce", "hasegawa/fig4", "--quick", "--jobs", "2"]
        + ["--store", str(store.root), "--report", str(tmp_path / "report")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_able,
    )
    workers: set[int] = set()
    try:
        wait_for(lambda: store.run_keys() or proc.poll() is not None, 120, "a stored run")
        workers = children(proc.pid)
        took, _, stderr = interrupt(proc)
        assert proc.returncode == 130, stderr
        assert took < 1.0, f"the sweep went on for {took:.2f} s after Ctrl-C"
        assert "Traceback" not in stderr
        wait_for(lambda: not alive(workers), 5, f"workers {sorted(alive(workers))} to stop")
    finally:
        proc.kill()
        for pid in alive(workers):
            os.kill(pid, signal.SIGKILL)
    keys = store.run_keys()
    assert keys and all(len(store.load(k).flows) for k in keys)


def test_concurrent_reproductions_share_the_work(tmp_path):
    """Two reproductions into one store simulate each run once (a run the other claimed is
    waited for and loaded), and both write a complete report."""
    store = tmp_path / "store"

    def reproduce(report: str) -> subprocess.Popen:
        return subprocess.Popen(
            [*TCPLAB, "reproduce", "fahmy/fig3", "fahmy/table4", "--quick", "--jobs", "1"]
            + ["--store", str(store), "--report", str(tmp_path / report)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "COLUMNS": "1000"},  # one line per message
        )

    procs = [reproduce("a"), reproduce("b")]
    counts = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        m = re.search(r"(\d+) runs planned: (\d+) reused from .*, (\d+) simulated", out)
        assert m, out
        counts.append((int(m[2]), int(m[3])))
    (reused_a, simulated_a), (reused_b, simulated_b) = counts
    unique = reused_a + simulated_a
    assert reused_b + simulated_b == unique == len(ResultStore(store).run_keys())
    assert simulated_a + simulated_b == unique, f"runs simulated twice: {counts}"
    reports = [tmp_path / "a", tmp_path / "b"]
    for report in reports:
        assert "fahmy/table4" in (report / "report.md").read_text()
        figures = re.findall(r"figures/([\w.-]+\.svg)", (report / "index.html").read_text())
        assert figures and all((report / "figures" / f).is_file() for f in figures)
    assert {p.name for p in (reports[0] / "figures").iterdir()} == {
        p.name for p in (reports[1] / "figures").iterdir()
    }


def test_a_run_claim_is_exclusive_and_dies_with_its_holder(tmp_path):
    """A sweep killed while it simulates a run leaves no stale claim on it."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from tcplab.store import ResultStore\n"
            "claim = ResultStore(sys.argv[1]).try_claim('k')\n"
            "print(claim is not None, flush=True)\n"
            "time.sleep(120)\n",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "True\n"
        store = ResultStore(tmp_path)
        assert store.try_claim("k") is None
        other = store.try_claim("other")
        assert other is not None
        other.release()
    finally:
        holder.kill()
        holder.wait()
    with store.claim("k"):  # (would wait for ever if the dead holder's claim stayed)
        assert store.try_claim("k") is None
    again = store.try_claim("k")
    assert again is not None
    again.release()


def test_the_ray_path_claims_and_stores_runs(tmp_path, monkeypatch):
    """The Ray executor under the claiming sweep (Ray itself is not installed in CI: a
    stand-in runs each remote call at once, in this process)."""
    import types

    from tcplab.executors import RayExecutor, SerialExecutor
    from tcplab.experiments import resolve
    from tcplab.sweep import execute_plan, plan

    ray = types.SimpleNamespace(
        is_initialized=lambda: True,
        remote=lambda fn: types.SimpleNamespace(remote=fn),
        wait=lambda pending, num_returns: (pending[:num_returns], pending[num_returns:]),
        get=lambda ref: ref,
    )
    monkeypatch.setitem(sys.modules, "ray", ray)
    planned = plan(resolve(["fahmy/fig3"]), quick=True)
    via_ray, serial = ResultStore(tmp_path / "ray"), ResultStore(tmp_path / "serial")
    assert execute_plan(planned, via_ray, RayExecutor(), show_progress=False) == (0, len(planned))
    execute_plan(planned, serial, SerialExecutor(), show_progress=False)
    assert via_ray.run_keys() == serial.run_keys()
    for key in serial.run_keys():
        a, b = via_ray.load(key), serial.load(key)
        assert len(a.series) and a.series.equals(b.series) and a.flows.equals(b.flows)
