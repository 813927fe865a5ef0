"""Fahmy & Sharma (paper 002): start phases of the two-flow runs and the claim that Vegas is
ahead, explained by the paper's single run only when our phases show its ordering."""

from __future__ import annotations

import pandas as pd

import tcplab
from tcplab.experiments.fahmy import paper as f
from tcplab.experiments.fahmy.fig3 import Fig3
from tcplab.experiments.fahmy.measure import vegas_ahead_claim


def _points(*rows: tuple[int, float, float, int]) -> pd.DataFrame:
    """Points (buffer, Reno, Vegas kb/s, runs with Vegas ahead) of 20 runs each."""
    return pd.DataFrame(
        [
            {
                "buffer": b,
                "reno_kbps": reno,
                "vegas_kbps": vegas,
                "vegas_min": vegas - 50,
                "vegas_max": vegas + 50,
                "runs_vegas_ahead": ahead,
                "vegas_cwnd_min": 2.0,
                "vegas_cwnd_max": 4.0,
                "vegas_in_band": 1.0,
                "runs": 20,
            }
            for b, reno, vegas, ahead in rows
        ]
    )


def test_vegas_ahead_holds_on_the_means():
    c = vegas_ahead_claim("x", _points((6, 200, 280, 15), (9, 230, 240, 11)), "buffer", "packets", False)
    assert c.verdict == "holds"
    assert "15/20 runs" in c.detail


def test_failing_point_without_a_run_in_the_papers_order_stays_unexplained():
    c = vegas_ahead_claim("x", _points((6, 200, 280, 15), (9, 300, 170, 0)), "buffer", "packets", False)
    assert c.verdict == "unexplained"


def test_failing_point_with_runs_in_the_papers_order_is_explained_by_the_single_run():
    c = vegas_ahead_claim("x", _points((6, 200, 280, 15), (9, 300, 170, 1)), "buffer", "packets", False)
    assert c.verdict == "explained" and c.cause == "single-run"
    assert "9 packets: Vegas ahead in 1 of 20 runs" in c.explanation
    assert "6 packets" not in c.explanation  # only the failing point is evidence


def test_strict_claim_fails_on_a_tie():
    tie = _points((2, 250, 250, 10))
    assert vegas_ahead_claim("x", tie, "buffer", "hops", strict=False).verdict == "holds"
    assert vegas_ahead_claim("x", tie, "buffer", "hops", strict=True).passed is False


def test_empty_points_are_not_evaluated():
    assert vegas_ahead_claim("x", _points(), "buffer", "packets", False).verdict == "not evaluated"


def test_phases_start_each_flow_at_a_random_time_and_differ_by_seed():
    runs = Fig3().runs(quick=False)
    assert len(runs) == len(Fig3.buffers) * len(f.SEEDS)
    doc = runs[0].scenario.doc
    assert all(fl["start"] == {"uniform": [0.0, f.START_WINDOW]} for fl in doc["flows"])
    lone = f.fahmy_scenario(64, flows=("reno",)).doc["flows"][0]
    assert "start" not in lone  # a lone flow has no phase to vary
    a, b = (tcplab.run(f.fahmy_scenario(6, duration=20.0, seed=s, start_window=1.0)).flows for s in (1, 4))
    assert a["goodput_bps"].tolist() != b["goodput_bps"].tolist()
