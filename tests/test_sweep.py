"""Sweeps: the result store, resuming after SIGKILL, executors that agree bit for bit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from tcplab.executors import LocalExecutor, SerialExecutor
from tcplab.experiments import resolve
from tcplab.store import ResultStore
from tcplab.sweep import analyze, execute_plan, plan

SWEEP = ["fahmy/fig3", "fahmy/table4"]

SCRIPT = """
import sys
from tcplab.executors import SerialExecutor
from tcplab.experiments import resolve
from tcplab.store import ResultStore
from tcplab.sweep import execute_plan, plan
exps = resolve(sys.argv[2:])
reused, executed = execute_plan(plan(exps, quick=False), ResultStore(sys.argv[1]), SerialExecutor(),
                                show_progress=False)
print(f"reused={reused} executed={executed}")
"""


def stored_tables(store: ResultStore) -> dict[str, pd.DataFrame]:
    return {k: store.load(k).flows for k in store.run_keys()}


def test_store_round_trip_and_export(tmp_path):
    store = ResultStore(tmp_path / "s")
    planned = plan(resolve(["fahmy/fig3"]), quick=True)
    reused, executed = execute_plan(planned, store, SerialExecutor(), show_progress=False)
    assert (reused, executed) == (0, len(planned))
    again = execute_plan(planned, store, SerialExecutor(), show_progress=False)
    assert again == (len(planned), 0), "a second sweep reuses every run"
    n = store.export(tmp_path / "all.parquet")
    df = pd.read_parquet(tmp_path / "all.parquet")
    assert n == len(df) == 2 * len(planned)
    assert set(df["param.buffer"]) == {6, 9, 15, 25, 50}
    outcome = analyze(resolve(["fahmy/fig3"]), planned, store, quick=True)[0]
    assert outcome.comparison is not None and len(outcome.comparison) == 10


def test_killed_sweep_resumes_without_loss_or_duplication(tmp_path):
    root = tmp_path / "killed"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(root), *SWEEP],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    store = ResultStore(root)
    total = len({p.key for p in plan(resolve(SWEEP), quick=False)})
    deadline = time.time() + 120
    while len(store.run_keys()) < 2 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = set(store.run_keys())
    assert 0 < len(finished) < total, f"kill landed after {len(finished)} of {total} runs"
    for k in finished:  # every stored run is complete and loadable
        assert len(store.load(k).flows) == 2

    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(root), *SWEEP],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    assert f"reused={len(finished)} executed={total - len(finished)}" in out
    assert len(store.run_keys()) == total
    assert not any((root / "tmp").iterdir()), "stale temporary directories are cleaned up"

    fresh = ResultStore(tmp_path / "fresh")
    execute_plan(plan(resolve(SWEEP), quick=False), fresh, SerialExecutor(), show_progress=False)
    a, b = stored_tables(store), stored_tables(fresh)
    assert a.keys() == b.keys()
    for k in a:
        pd.testing.assert_frame_equal(a[k], b[k])


def test_local_pool_matches_serial(tmp_path):
    planned = plan(resolve(["fahmy/table4"]), quick=True)
    s1, s2 = ResultStore(tmp_path / "serial"), ResultStore(tmp_path / "pool")
    execute_plan(planned, s1, SerialExecutor(), show_progress=False)
    execute_plan(planned, s2, LocalExecutor(jobs=2), show_progress=False)
    a, b = stored_tables(s1), stored_tables(s2)
    assert a.keys() == b.keys()
    for k in a:
        pd.testing.assert_frame_equal(a[k], b[k])


@pytest.mark.slow
def test_ray_matches_local_bit_for_bit(tmp_path):
    pytest.importorskip("ray", reason="the Ray test needs `pip install ray` (run with -m slow)")
    from tcplab.executors import RayExecutor

    planned = plan(resolve(["fahmy/table4"]), quick=True)
    s1, s2 = ResultStore(tmp_path / "local"), ResultStore(tmp_path / "ray")
    execute_plan(planned, s1, LocalExecutor(jobs=2), show_progress=False)
    execute_plan(planned, s2, RayExecutor(jobs=2), show_progress=False)
    for k in s1.run_keys():
        a, b = s1.load(k), s2.load(k)
        pd.testing.assert_frame_equal(a.flows, b.flows)
        pd.testing.assert_frame_equal(a.series, b.series)
    assert Path(tmp_path / "ray").exists()


def test_runs_stored_as_parquet_by_earlier_versions_still_load(tmp_path):
    store = ResultStore(tmp_path / "s")
    planned = plan(resolve(["fahmy/table4"]), quick=True)[:1]
    execute_plan(planned, store, SerialExecutor(), show_progress=False)
    key = planned[0].key
    directory = tmp_path / "s" / "runs" / key[:2] / key
    expected = store.load(key).flows
    for arrow in directory.glob("*.arrow"):
        getattr(store.load(key), arrow.stem).to_parquet(arrow.with_suffix(".parquet"), index=False)
        arrow.unlink()
    pd.testing.assert_frame_equal(store.load(key).flows, expected)


STREAM_WAYS = ("in memory", "staged files", "inline bytes")


@pytest.mark.parametrize("way", STREAM_WAYS)
def test_streamed_series_store_like_in_memory_ones(tmp_path, way):
    """Every table reads back from the store with the columns and dtypes of run()'s, whether
    the run was encoded in memory or its series were streamed to files by a worker (moved into
    the store, or sent back as bytes by a Ray worker); no staging is left behind."""
    from tcplab import run
    from tcplab.executors import Task, execute
    from tcplab.experiments.code_tcp import code_scenario
    from tcplab.result import TABLES
    from tcplab.store import run_key

    sc = code_scenario(["reno", "code"], duration=60.0, sample_interval=0.1)
    toml = sc.to_toml()
    key = run_key(toml)
    store = ResultStore(tmp_path / "s")
    staging = str(store.staging) if way == "staged files" else None
    _, encoded = execute(Task(key, toml, staging))
    if way == "in memory":
        from tcplab.runner import run_raw

        store.put(key, run_raw(toml), {})
    else:
        assert set(encoded.staged if staging else encoded.files) >= {"series", "queues", "cc_vars"}
        store.put_encoded(key, encoded, {})
    stored, fresh = store.load(key), run(sc)
    assert len(fresh.series) == 2 * 601 and len(fresh.queues) and "link_name" in fresh.queues
    for name in TABLES:
        a, b = getattr(stored, name), getattr(fresh, name)
        if b is None:
            assert a is None, name
        else:
            pd.testing.assert_frame_equal(a, b, obj=name)
    assert not list(store.staging.iterdir()), "staged files are moved, none left behind"


def test_series_in_many_chunks_equal_one_table(tmp_path):
    """Chunks of 7 rows (hundreds of them; a WLAN run so the AP queue streams too, with the
    per-event log)."""
    from tcplab import run
    from tcplab.tables import SERIES_TABLES, SeriesFiles, read_table

    doc = {
        "simulation": {"duration": 2.0, "sample_interval": 0.01, "event_log": True},
        "topology": {"kind": "wlan", "stations": 2},
        "flows": [{"src": f"w{i}", "dst": "h0", "cc": "vegas"} for i in range(2)],
    }
    fresh = run(doc)
    with SeriesFiles(tmp_path, chunk_rows=7) as series:
        streamed = run(doc, series_sink=series)
    assert set(series.paths) == {"series", "queues", "cc_vars", "ap_queue", "events"}
    for name in SERIES_TABLES:
        if name in series.paths:
            assert len(getattr(streamed, name)) == 0, "streamed rows are not also kept"
            got = read_table(series.paths[name]).to_pandas()
            assert len(got) > 100
            pd.testing.assert_frame_equal(got, getattr(fresh, name), obj=name)
        else:
            assert len(getattr(fresh, name)) == 0, name
    pd.testing.assert_frame_equal(streamed.flows, fresh.flows)


def test_loss_responses_stream_with_the_series(tmp_path):
    """The loss table grows with the run too: streamed in chunks, it equals the in-memory one
    (rows in the order the responses were made) and the returned Result keeps none of it."""
    from tcplab import run
    from tcplab.tables import SeriesFiles, read_table

    doc = {
        "simulation": {"duration": 20.0},
        "topology": {
            "kind": "dumbbell",
            "pairs": 2,
            "bottleneck": {"rate": "2Mbps", "delay": "10ms", "buffer": 8},
        },
        "flows": [{"src": "s0", "dst": "d0", "cc": "reno"}, {"src": "s1", "dst": "d1", "cc": "veno"}],
    }
    fresh = run(doc)
    assert len(fresh.losses) > 20 and set(fresh.losses["flow"]) == {0, 1}
    assert fresh.losses["time"].is_monotonic_increasing
    with SeriesFiles(tmp_path, chunk_rows=5) as series:
        streamed = run(doc, series_sink=series)
    assert "losses" in series.paths and len(streamed.losses) == 0
    got = read_table(series.paths["losses"]).to_pandas()
    pd.testing.assert_frame_equal(got, fresh.losses)
    pd.testing.assert_frame_equal(streamed.flows, fresh.flows)


def test_a_failing_series_sink_fails_the_run(tmp_path):
    from tcplab import run
    from tcplab.errors import OutputError
    from tcplab.tables import SeriesFiles

    class Full(SeriesFiles):
        def write(self, chunk):
            raise OSError(28, "No space left on device")

    doc = {
        "simulation": {"duration": 1.0, "sample_interval": 0.01},
        "topology": {"kind": "wlan", "stations": 1},
        "flows": [{"src": "w0", "dst": "h0", "cc": "reno"}],
    }
    with pytest.raises(OutputError, match="No space left on device"), Full(tmp_path, chunk_rows=10) as sink:
        run(doc, series_sink=sink)
    with pytest.raises(ValueError, match="chunk_rows = 0"):
        SeriesFiles(tmp_path, chunk_rows=0)


def test_a_kernel_run_the_bed_fails_is_named_not_stored_and_the_rest_go_on(tmp_path, monkeypatch):
    """A test-bed failure in one real-time run (a sampler that died) must neither stop the
    series (hours of other runs) nor leave a run with a hole in the store."""
    import tcplab.testbed as testbed
    from tcplab.errors import TestbedError
    from tcplab.experiments.linux import LinuxConformance
    from tcplab.result import TABLES, Result

    kernel = [p for p in plan([LinuxConformance()], quick=True) if p.backend != "sim"][:3]
    calls = []

    def fake_bed(scenario, capture, native):
        calls.append(native)
        if len(calls) == 2:
            raise TestbedError("the tcp sampler died during the run (exit 1): netlink went away")
        tables = {name: pd.DataFrame() for name in TABLES}
        tables.update(frames=None, events=None)
        return Result(meta={"snd_mss": 1000}, **tables)

    monkeypatch.setattr(testbed, "run_scenario", fake_bed)
    store = ResultStore(tmp_path / "s")
    failures: list[str] = []
    reused, executed = execute_plan(kernel, store, SerialExecutor(), show_progress=False, failures=failures)
    assert calls == [True, True, True], "every run tried, with the kernel's own modules"
    assert (reused, executed) == (0, 2) and len(failures) == 1
    assert "sampler died" in failures[0] and "linux/conformance" in failures[0]
    assert store.has(kernel[0].key) and not store.has(kernel[1].key) and store.has(kernel[2].key)
