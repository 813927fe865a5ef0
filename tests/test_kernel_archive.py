"""The archive of kernel measurements (testbed/archive.py): linux/conformance compared with
archived kernel runs when the store has none, without the test bed."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from test_conformance import _synthetic

from tcplab.experiments.base import Outcome
from tcplab.experiments.linux import UNSET_PACING_BPS, LinuxConformance, run_figures
from tcplab.store import TESTBED_VERSION, ResultStore
from tcplab.tables import TABLES, encode_frames
from tcplab.testbed import archive
from tcplab.testbed import conformance as cf

PROVENANCE = {"measured": "2026-11-27", "kernel": "6.18.0-test", "testbed": TESTBED_VERSION}


def _figures(**changes) -> cf.Figures:
    base = cf.metrics(_synthetic([4e6, 5e6]), 10e6, (2.0, 10.0), 1000.0)
    return replace(base, seed=3, **changes)


def _same(a: cf.Figures, b: cf.Figures) -> bool:
    """Equal figure by figure (to the archive's ten digits; NaN equal to NaN)."""
    for name in a.__dataclass_fields__:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, float) and math.isnan(x):
            same = isinstance(y, float) and math.isnan(y)
        elif isinstance(x, float | list):
            same = x == pytest.approx(y, rel=1e-9)
        else:
            same = x == y
        if not same:
            return False
    return True


def test_figures_survive_the_archive_file_whole(tmp_path):
    """Every figure, the shares, the seed and a missing value (NaN) come back as they went in."""
    path = tmp_path / "kernel.csv"
    two = _figures(random_drop_rate=float("nan"))
    one = replace(_figures(), shares=[], seed=None)
    rows = [
        archive.to_row(two, key="k2", scenario="2 flows", algorithm="reno", repeat=2, **PROVENANCE),
        archive.to_row(one, key="k1", scenario="base", algorithm="reno", repeat=0, **PROVENANCE),
    ]
    assert archive.merge(rows, path) == (2, 0)
    held = archive.load(path)
    assert set(held) == {"k1", "k2"}
    assert _same(held["k2"].figures, two) and held["k2"].figures.shares == pytest.approx(two.shares)
    assert _same(held["k1"].figures, one) and held["k1"].figures.shares == []
    assert held["k1"].kernel == "6.18.0-test" and held["k1"].measured == "2026-11-27"


def test_a_run_archived_again_replaces_its_row_and_bad_rows_are_refused(tmp_path):
    path = tmp_path / "kernel.csv"
    row = archive.to_row(_figures(), key="k", scenario="base", algorithm="reno", repeat=0, **PROVENANCE)
    archive.merge([row], path)
    again = archive.to_row(
        _figures(utilisation=0.5), key="k", scenario="base", algorithm="reno", repeat=0, **PROVENANCE
    )
    assert archive.merge([again], path) == (0, 1)
    assert archive.load(path)["k"].figures.utilisation == 0.5 and len(pd.read_csv(path)) == 1
    with pytest.raises(ValueError, match="same run"):
        archive.merge([row, row], path)
    with pytest.raises(ValueError, match="needs kernel"):
        archive.to_row(
            _figures(), key="k", scenario="base", algorithm="reno", repeat=0, measured="x", testbed="t"
        )
    assert archive.load(tmp_path / "none.csv") == {}, "no archive: nothing archived"


def _archive_quick_matrix(exp: LinuxConformance, figures: cf.Figures, only: str = "base") -> int:
    keys = exp.kernel_keys(quick=True)
    rows = [
        archive.to_row(replace(figures, seed=1 + r), key=k, scenario=s, algorithm=a, repeat=r, **PROVENANCE)
        for (s, a, r), k in keys.items()
        if s == only and a == "reno"
    ]
    archive.merge(rows, exp.archive)
    return len(rows)


def test_simulated_runs_are_compared_with_the_archive_where_the_store_has_no_kernel_run(tmp_path):
    exp = LinuxConformance(archive=tmp_path / "kernel.csv")
    point = cf.matrix(quick=True)[0]
    run = _synthetic([9e6], retrans=(100,))
    n = _archive_quick_matrix(exp, cf.metrics(run, 10e6, point.measure, 1000.0))
    assert n == cf.repeats(True) and exp.archived_kernel_runs(quick=True) == n
    sims = [
        ({"scenario": point.name, "algorithm": "reno", "repeat": r, "backend": "sim"}, run)
        for r in range(cf.repeats(True))
    ]
    out = exp.analyze(sims, quick=True)
    table = out.tables["every figure, both sides"]
    reno = table[(table["algorithm"] == "reno") & (table["scenario"] == point.name)]
    assert len(reno) == 1, "the archived kernel side was compared"
    assert reno.iloc[0]["runs"] == f"{n}/{n}" and reno.iloc[0]["retransmissions_kernel"] == 100
    note = next(n for n in out.notes if n.startswith("Kernel side"))
    assert f"{n} run(s) from the archive" in note and "6.18.0-test" in note and "2026-11-27" in note
    # Without an archive the same simulated runs have nothing to be compared with.
    bare = LinuxConformance(archive=None).analyze(sims, quick=True)
    assert "every figure, both sides" not in bare.tables


def test_archived_runs_at_a_random_loss_point_are_paired_with_the_simulated_runs_by_seed(tmp_path):
    """At a random-loss point both sides of one seed lose the same packets: the archived kernel
    runs keep their seeds, so the comparison stays seed by seed."""
    exp = LinuxConformance(archive=tmp_path / "kernel.csv")
    point = next(p for p in cf.matrix(quick=True) if p.loss > 0)
    sims = []
    for r in range(cf.repeats(True)):
        run = _synthetic([(3 + r) * 1e6], retrans=(50 + r,))
        run.meta["seed"] = 1 + r
        sims.append(({"scenario": point.name, "algorithm": "reno", "repeat": r, "backend": "sim"}, run))
    keys = exp.kernel_keys(quick=True)
    rows = [
        archive.to_row(
            run_figures(res, point, kernel=False),
            key=keys[(point.name, "reno", p["repeat"])],
            scenario=point.name,
            algorithm="reno",
            repeat=p["repeat"],
            **PROVENANCE,
        )
        for p, res in sims
    ]
    archive.merge(rows, exp.archive)
    table = exp.analyze(sims, quick=True).tables["every figure, both sides"]
    row = table[(table["algorithm"] == "reno") & (table["scenario"] == point.name)].iloc[0]
    assert row["compared"] == "by seed" and row["retransmissions_check"] == "pass"


def test_a_kernel_run_measured_afresh_takes_precedence_over_the_archive(tmp_path):
    exp = LinuxConformance(archive=tmp_path / "kernel.csv")
    point = cf.matrix(quick=True)[0]
    stored = _synthetic([9e6], retrans=(100,))
    stored.meta["snd_mss"] = 1000
    _archive_quick_matrix(
        exp, replace(cf.metrics(stored, 10e6, point.measure, 1000.0), retransmissions=900.0)
    )
    results = [
        ({"scenario": point.name, "algorithm": "reno", "repeat": r, "backend": b}, stored)
        for r in range(cf.repeats(True))
        for b in ("kernel", "sim")
    ]
    out = exp.analyze(results, quick=True)
    table = out.tables["every figure, both sides"]
    row = table[(table["algorithm"] == "reno") & (table["scenario"] == point.name)].iloc[0]
    assert row["retransmissions_kernel"] == 100, "the stored runs, not the archived 900"
    assert not any(n.startswith("Kernel side") for n in out.notes)


def test_the_archive_takes_a_stores_kernel_runs_by_their_keys(tmp_path):
    """``tcplab testbed archive`` reads the kernel runs of the matrix from a store: each under
    its store key, with the day and kernel it was measured on."""
    from typer.testing import CliRunner

    from tcplab.cli import app

    exp = LinuxConformance()
    store = ResultStore(tmp_path / "store")
    point = cf.matrix(quick=True)[0]
    res = _synthetic([9e6], retrans=(100,))
    res.meta.update({"snd_mss": 1000, "seed": 1, "kernel_release": "6.18.0-bed", "measured": "2026-11-26"})
    key = exp.kernel_keys(quick=True)[(point.name, "cubic", 0)]
    frames = {name: getattr(res, name, None) for name in TABLES}
    store.put_encoded(key, encode_frames(frames, res.meta), {"experiment": exp.name})
    target = tmp_path / "kernel.csv"
    runner = CliRunner()
    r = runner.invoke(app, ["testbed", "archive", "--store", str(store.root), "--archive", str(target)])
    assert r.exit_code == 0, r.output
    assert "1 kernel run(s) added, 0 replaced; 1 trace(s)" in " ".join(r.output.split())
    trace = archive.load_traces(archive.traces_path(target))[key]  # (base, repeat 0: drawn)
    assert len(trace) == len(res.series[res.series["flow"] == 0]) and (trace["flow"] == 0).all()
    held = archive.load(target)[key]
    assert held.kernel == "6.18.0-bed" and held.measured == "2026-11-26"
    assert held.figures.retransmissions == 100 and held.figures.seed == 1
    frame = pd.read_csv(target)
    assert frame.loc[0, "scenario"] == point.name and frame.loc[0, "algorithm"] == "cubic"
    r = runner.invoke(
        app, ["testbed", "archive", "--store", str(tmp_path / "nothing"), "--archive", str(target)]
    )
    assert r.exit_code == 2 and "does not exist" in r.output
    other = ResultStore(tmp_path / "other")
    other.put_encoded("0" * 32, encode_frames(frames, res.meta), {"experiment": "code/fig9"})
    r = runner.invoke(app, ["testbed", "archive", "--store", str(other.root), "--archive", str(target)])
    assert r.exit_code == 2 and "holds no kernel run" in r.output
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("a,b\n1,2\n")
    r = runner.invoke(app, ["testbed", "archive", "--store", str(store.root), "--archive", str(wrong)])
    assert r.exit_code == 2 and f"--archive {wrong}" in r.output and "no column key" in r.output


def test_reproduce_without_kernel_simulates_only_and_needs_no_root_when_archived(monkeypatch, tmp_path):
    import os

    from typer.testing import CliRunner

    import tcplab
    from tcplab import sweep
    from tcplab.cli import app

    monkeypatch.setattr(
        tcplab, "capabilities", lambda: {"testbed": [], "cc": [], "queue": [], "topology": []}
    )
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    planned_backends: list[str] = []

    def execute_plan(planned, *args, **kwargs):
        planned_backends.extend(p.backend for p in planned)
        return 0, 0

    monkeypatch.setattr(sweep, "execute_plan", execute_plan)
    analysed: list = []

    def analyze(experiments, planned, *args, **kwargs):
        analysed.extend(planned)
        return [Outcome(e) for e in experiments]

    monkeypatch.setattr(sweep, "analyze", analyze)
    args = ["reproduce", "linux/conformance", "--quick", "--store", str(tmp_path / "s")]
    args += ["--report", str(tmp_path / "r")]
    monkeypatch.setattr(LinuxConformance, "archived_kernel_runs", lambda self, quick: 0)
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 2 and "add --kernel" in r.output, "nothing archived: as before"
    monkeypatch.setattr(LinuxConformance, "archived_kernel_runs", lambda self, quick: 6)
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert "from the 6 archived ones" in " ".join(r.output.split())
    assert planned_backends and set(planned_backends) == {"sim"}, "the bed is not touched"
    assert analysed and {p.backend for p in analysed} == {"sim"}, "no kernel run stored yet"
    # A kernel run already in the store is analysed (it takes precedence over the archive).
    kernel_run = next(p for p in sweep.plan([LinuxConformance()], quick=True) if p.backend != "sim")
    res = _synthetic([9e6])
    frames = {name: getattr(res, name, None) for name in TABLES}
    ResultStore(tmp_path / "s").put_encoded(kernel_run.key, encode_frames(frames, res.meta), {})
    planned_backends.clear()
    analysed.clear()
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert set(planned_backends) == {"sim"}
    assert [p.key for p in analysed if p.backend != "sim"] == [kernel_run.key]


def test_the_packaged_archive_is_readable_and_keyed_to_this_matrix():
    """Every archived run names a run of the full or the quick matrix as it is now (a changed
    point would have left its rows unused), every entry of both is archived, and every row has
    its provenance."""
    held = archive.load()
    if not held:
        pytest.fail("the package ships an archive of kernel measurements")
    exp = LinuxConformance()
    full, quick = exp.kernel_keys(quick=False), exp.kernel_keys(quick=True)
    frame = pd.read_csv(archive.ARCHIVE, dtype={"key": str})
    for row in frame.itertuples():
        entry = (row.scenario, row.algorithm, row.repeat)
        assert row.key in (full.get(entry), quick.get(entry)), f"{entry}: another matrix's or bed's row"
        assert row.seed == row.repeat + 1, "seeds pair the sides at the random-loss points"
    assert set(frame["key"]) == set(full.values()) | set(quick.values()), "every run of both matrices"
    assert frame[list(archive.PROVENANCE)].notna().all().all()
    assert (frame["testbed"] == TESTBED_VERSION).all()
    assert np.isfinite(frame["utilisation"]).all() and (frame["utilisation"] > 0).all()


def test_the_archive_keys_are_the_keys_the_sweep_stores_kernel_runs_under():
    """An archived run is found by the key its kernel run is stored under (sweep.plan)."""
    from tcplab import sweep

    exp = LinuxConformance()
    planned = {
        (p.params["scenario"], p.params["algorithm"], p.params["repeat"]): p.key
        for p in sweep.plan([exp], quick=True)
        if p.backend != "sim"
    }
    assert planned and exp.kernel_keys(quick=True) == planned


def _trace(n: int = 300, rate: float = 9.5e6) -> pd.DataFrame:
    t = np.arange(n) / 100
    return pd.DataFrame({"time": t, "flow": 0, "cwnd": 10 + t, "pacing_rate": rate + 0 * t})


def test_traces_survive_their_file_and_a_trace_archived_again_replaces_its_own(tmp_path):
    path = archive.traces_path(tmp_path / "kernel.csv")
    assert path.name == "kernel_traces.csv.gz"
    two_flows = pd.concat([_trace(), _trace().assign(flow=1, cwnd=99.0)])
    traces = {"a": archive.trace_of(two_flows), "b": archive.trace_of(_trace(50))}
    assert archive.merge_traces(traces, path) == 2
    held = archive.load_traces(path)
    assert set(held) == {"a", "b"} and len(held["a"]) == 300 and len(held["b"]) == 50
    assert (held["a"]["flow"] == 0).all() and held["a"]["cwnd"].max() < 99, "flow 0 only"
    assert held["a"]["pacing_rate"].iloc[0] == pytest.approx(9.5e6)
    assert archive.merge_traces({"b": archive.trace_of(_trace(20))}, path) == 1
    again = archive.load_traces(path)
    assert len(again["b"]) == 20 and len(again["a"]) == 300
    before = path.read_bytes()
    assert archive.merge_traces({"b": archive.trace_of(_trace(20))}, path) == 1
    assert path.read_bytes() == before, "the same traces archived again give the same bytes (gzip mtime 0)"
    assert archive.merge_traces({}, path) == 0
    assert archive.merge_traces({"a": _trace(0)}, path) == 0, "an empty trace erases nothing"
    assert len(archive.load_traces(path)["a"]) == 300
    truncated = tmp_path / "truncated.csv.gz"
    truncated.write_bytes(path.read_bytes()[:100])
    with pytest.raises(ValueError, match="truncated.csv.gz: not a readable archive"):
        archive.load_traces(truncated)
    assert archive.load_traces(tmp_path / "none.csv.gz") == {}
    bad = tmp_path / "bad.csv.gz"
    pd.DataFrame({"key": ["a"], "t": [0.0]}).to_csv(bad, index=False)
    with pytest.raises(ValueError, match="no column time"):
        archive.load_traces(bad)


def test_the_reports_figures_draw_an_archived_kernel_trace_where_the_store_has_none(tmp_path):
    """The cwnd figure and BBR's pacing-rate figure need the kernel's series: without a stored
    kernel run they draw the archived trace of the base point's first run."""
    exp = LinuxConformance(archive=tmp_path / "kernel.csv")
    point = cf.matrix(quick=True)[0]
    run = _synthetic([9e6])
    figures = cf.metrics(run, 10e6, point.measure, 1000.0)
    keys = exp.kernel_keys(quick=True)
    rows = [
        archive.to_row(replace(figures, seed=1 + r), key=k, scenario=s, algorithm=a, repeat=r, **PROVENANCE)
        for (s, a, r), k in keys.items()
        if s == point.name and a == "bbr"
    ]
    archive.merge(rows, exp.archive)
    sims = [
        ({"scenario": point.name, "algorithm": "bbr", "repeat": r, "backend": "sim"}, run)
        for r in range(cf.repeats(True))
    ]
    names = lambda out: {f.name for f in out.figures}  # noqa: E731
    assert not {"cwnd", "bbr-traces"} & names(exp.analyze(sims, quick=True)), "no trace archived yet"
    archive.merge_traces({keys[(point.name, "bbr", 0)]: _trace()}, archive.traces_path(exp.archive))
    assert set(exp.archived_traces(quick=True)) == {"bbr"}
    drawn = exp.analyze(sims, quick=True)
    assert {"cwnd", "bbr-traces"} <= names(drawn)
    # A kernel run in the store is drawn instead of the archived trace.
    stored = ({"scenario": point.name, "algorithm": "bbr", "repeat": 0, "backend": "kernel"}, run)
    cwnd = next(f for f in exp.analyze([*sims, stored], quick=True).figures if f.name == "cwnd")
    kernel_line = cwnd.figure.axes[0].get_lines()[0]
    assert list(kernel_line.get_ydata()) == list(run.series[run.series["flow"] == 0]["cwnd"])


def test_the_packaged_traces_are_the_base_points_first_runs_of_both_matrices():
    exp = LinuxConformance()
    for quick in (False, True):
        held = exp.archived_traces(quick)
        assert set(held) == {*cf.ALGORITHMS, *cf.PAIRS}, f"every algorithm's trace (quick={quick})"
        bbr = held["bbr"]
        paced = bbr[bbr["pacing_rate"] < UNSET_PACING_BPS]
        assert len(paced) > 100 and paced["pacing_rate"].median() == pytest.approx(10e6, rel=0.1)
        for trace in held.values():
            assert trace["cwnd"].notna().all() and (trace["cwnd"] > 0).all()
            assert (
                trace["time"].is_monotonic_increasing
                and trace["time"].iloc[-1] >= cf.matrix(quick)[0].duration
            )


def test_traces_keep_bbrs_bandwidth_estimate_and_older_files_read_without_it(tmp_path):
    series = _trace(3)
    cc_vars = pd.DataFrame(
        {
            "time": [0.0, 0.01, 0.02, 0.01],
            "flow": [0, 0, 0, 1],
            "name": "bw",
            "value": [1e6, 1.1e6, 1.2e6, 5.0],
        }
    )
    trace = archive.trace_of(series, cc_vars)
    assert list(trace["bw"]) == pytest.approx([8e6, 8.8e6, 9.6e6]), "flow 0's estimate, bits per second"
    assert archive.trace_of(series)["bw"].isna().all(), "no estimate: NaN"
    old = tmp_path / "old.csv.gz"
    _trace(5).assign(key="k").drop(columns="flow").to_csv(old, index=False)  # before bw was kept
    held = archive.load_traces(old)["k"]
    assert len(held) == 5 and held["bw"].isna().all()


def test_archives_written_before_the_bandwidth_estimate_still_read(tmp_path):
    path = tmp_path / "kernel.csv"
    figures = cf.metrics(_synthetic([9e6]), 10e6, (0.0, 3.0), 1000.0)
    row = archive.to_row(figures, key="k", scenario="base", algorithm="reno", repeat=0, **PROVENANCE)
    archive.merge([row], path)
    frame = pd.read_csv(path)
    frame.drop(columns=["bw_estimate", "bw_peak"]).to_csv(path, index=False)
    held = archive.load(path)["k"].figures
    assert math.isnan(held.bw_estimate) and math.isnan(held.bw_peak)
    assert held.utilisation == pytest.approx(figures.utilisation)
