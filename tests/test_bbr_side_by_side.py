"""bench/bbr_side_by_side.py without ns-3: ns-3's samples read back as tcplab's tables give
the conformance figures, and the side-by-side table."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd
import pytest

from tcplab.testbed import conformance as cf

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import bbr_side_by_side as side  # noqa: E402


def point(name: str) -> cf.Point:
    return next(p for p in cf.matrix() if p.name == name)


def samples_text() -> str:
    """Two flows sampled every 10 ms for 10 s: flow 0 has 1.0e6 B/s acknowledged, cwnd
    40 000 bytes, srtt 40 ms; flow 1 0.25e6 B/s, 10 000 bytes, 60 ms."""
    lines = []
    for k in range(1001):
        t = k / 100
        lines.append(f"{t} 0 40000 0.04 {int(1.0e6 * t)} 9000000")
        lines.append(f"{t} 1 10000 0.06 {int(0.25e6 * t)} 4000000000")
    return "\n".join(lines) + "\n"


def test_ns3_samples_give_the_conformance_figures():
    summary = {"flows": 2, "flow_retransmissions": [3, 4], "flow_timeouts": [0, 1]}
    res = side.ns3_result(samples_text(), summary, segment=1000.0)
    f = cf.metrics(res, 10e6, (2.0, 10.0), 1000.0)
    assert f.goodput_bps == pytest.approx(1.25e6 * 8, rel=1e-4)
    assert f.utilisation == pytest.approx(1.25e6 * 8 / (10e6 * 1000 / 1066), rel=1e-4)
    assert f.shares == pytest.approx([0.8, 0.2], abs=1e-4)
    assert f.mean_cwnd == pytest.approx((40 + 10) / 2)
    assert f.mean_rtt == pytest.approx(0.05)
    assert f.p95_rtt == pytest.approx(0.06)
    assert (f.retransmissions, f.timeouts) == (7, 1)
    rate = side.pacing_rate_bps(res)
    assert rate["bps"].iloc[0] == pytest.approx(9e6)
    # Flow 0 paces at 9 Mb/s: its bandwidth estimate is that over the 1 % margin.
    capacity = 10e6 * 1000 / 1066
    assert side.bw_over_capacity(res, point("base")) == pytest.approx(9e6 / 0.99 / capacity)


def test_nearer_names_the_simulator_closer_to_the_kernel():
    assert side.nearer(100.0, 101.0, 120.0) == "tcplab"
    assert side.nearer(100.0, 130.0, 95.0) == "ns-3"
    assert side.nearer(100.0, 104.0, 96.5) == "tie"
    assert side.nearer(float("nan"), 1.0, 2.0) == "-"


def test_the_table_without_kernel_runs_leaves_the_kernel_blank():
    figs = cf.Figures(0.95, 9e6, 10, 0, 0.05, 0.05, 0.06, 40.0)
    entry = side.Entry(point("base"), "bbr", {"kernel": [], "tcplab": [figs], "ns3": [figs]}, {})
    r = side.row(entry)
    assert r["runs"] == "0/1/1"
    assert r["utilisation_tcplab"] == pytest.approx(0.95)
    assert math.isnan(r["utilisation_kernel"])  # blank, not zero
    assert r["nearer_utilisation"] == "-"
    table = side.markdown(pd.DataFrame([r]))
    assert "| base | bbr | 0/1/1 | – / 0.950 / 0.950 |" in table
    assert "(no kernel runs)" in table


def test_archived_kernel_figures_fill_the_kernel_column_in_repeat_order():
    from tcplab.testbed import archive

    lookup = side.archived_figures(archive.ARCHIVE, quick=False)
    runs = lookup(point("base"), "bbr")
    assert [f.seed for f in runs] == [1, 2, 3, 4, 5]  # the archive's five runs, repeat by repeat
    assert all(0.9 < f.utilisation <= 1.01 for f in runs)
    assert lookup(point("base"), "reno") != runs  # each entry its own runs
    assert side.archived_figures(None, quick=False)(point("base"), "bbr") == []
    traces = side.archived_traces(archive.ARCHIVE, quick=False)
    assert "bbr" in traces and side.pacing_rate_bps(traces["bbr"])["bps"].median() > 5e6, "the figure's line"
    assert side.archived_traces(None, quick=False) == {}


@pytest.mark.parametrize(
    "argv, named",
    [
        (["--seeds", "0"], "--seeds: 0"),
        (["--kernel-store", "/nonexistent/store"], "--kernel-store"),
        (["--archive", "/nonexistent/archive.csv"], "--archive"),
    ],
)
def test_bad_arguments_exit_2_naming_the_option(argv, named, capsys):
    with pytest.raises(SystemExit) as e:
        side.main([*argv, "--no-build"])
    assert e.value.code == 2
    assert named in capsys.readouterr().err
