"""tcplab's own BBR experiments (issue 18): what their analyses compute from synthetic runs, and
quick runs through the store."""

from __future__ import annotations

import pytest

from tcplab.analysis import ware_bbr_share
from tcplab.executors import SerialExecutor
from tcplab.experiments import bbr_cubic as bc
from tcplab.experiments import resolve
from tcplab.store import ResultStore
from tcplab.sweep import analyze, execute_plan, plan


def test_the_beyond_group_names_its_experiments():
    assert [e.name for e in resolve(["beyond"])][:1] == ["beyond/bbr-vs-cubic"]
    assert all(e.paper == "beyond" and not e.explicit for e in resolve(["beyond"]))
    assert {e.name for e in resolve(["beyond"])} <= {e.name for e in resolve(["all"])}


# -- beyond/bbr-vs-cubic ----------------------------------------------------------------------


def _model(bdp: float) -> float:
    return ware_bbr_share(bc.buffer_packets(bdp), bc.CAPACITY_PPS, bc.BASE_RTT_S).bbr_share


def _runs(share, buffers=bc.BUFFERS_BDP, counts=(1, 8), seeds=(1, 2)):
    """Synthetic run rows: ``share(bdp, n, seed)`` for BBR, fixed diagnostics."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "buffer_bdp": b,
                "cubic_flows": n,
                "seed": s,
                "bbr_share": share(b, n, s),
                "utilisation": 1.0,
                "queue_fill": 0.8,
                "bbr_min_rtt_ms": 50.0,
                "eq7_at_our_share_ms": 70.0,
                "probe_rtt_share": 0.03,
                "window_limited_share": 0.3,
                "bw_over_delivery": 1.1,
            }
            for b in buffers
            for n in counts
            for s in seeds
        ]
    )


def test_points_average_seeds_with_a_student_t_interval_beside_the_model():
    runs = _runs(lambda b, n, s: 0.4 if s == 1 else 0.6, buffers=(4,), counts=(1,))
    (row,) = bc.point_table(runs).to_dict("records")
    assert row["bbr_share"] == pytest.approx(0.5)
    assert row["ci95"] == pytest.approx(12.706 * 0.1414 / 1.4142, rel=1e-3)  # t(0.975, 1) s / sqrt(2)
    assert row["model_share"] == pytest.approx(_model(4))
    assert row["ours_minus_model"] == pytest.approx(0.5 - _model(4))
    assert row["runs"] == 2 and row["queue_fill"] == 0.8


def test_shares_on_the_model_satisfy_every_claim():
    points = bc.point_table(_runs(lambda b, n, s: _model(b)))
    verdicts = [
        c.verdict
        for c in (
            bc.model_claim(points),
            bc.independence_claim(points),
            bc.falling_claim(points),
            bc.shallow_claim(points),
        )
    ]
    assert verdicts == ["holds"] * 4
    assert bc.median_model_error(points) == pytest.approx(0.0)


def test_a_model_gap_says_where_and_what_bbr_measured_there():
    points = bc.point_table(_runs(lambda b, n, s: _model(b) - (0.1 if b >= 2 else 0.0)))
    c = bc.model_claim(points)
    assert c.verdict == "unexplained"
    assert "median |ours - model| 0.100" in c.detail
    assert "buffers 2, 4, 8, 16 BDP" in c.detail  # 1 BDP is within the accuracy
    assert "50 ms against 70 ms by eq. 7" in c.detail
    # Shallow buffers are outside the validated range: a gap there alone keeps the claim.
    shallow_gap = bc.point_table(_runs(lambda b, n, s: _model(b) - (0.2 if b < 1 else 0.0)))
    assert bc.model_claim(shallow_gap).verdict == "holds"


def test_a_share_that_depends_on_the_cubic_count_fails_independence_where_it_does():
    points = bc.point_table(_runs(lambda b, n, s: _model(b) - (0.06 if (b == 1 and n == 8) else 0.0)))
    c = bc.independence_claim(points)
    assert c.verdict == "unexplained"
    assert "beyond it at 1 BDP" in c.detail and "1 BDP 0.060" in c.detail


def test_a_share_rising_with_the_buffer_beyond_its_interval_fails_the_trend():
    rising = bc.point_table(_runs(lambda b, n, s: _model(b) + (0.2 if b == 16 else 0.0)))
    assert bc.falling_claim(rising).verdict == "unexplained"
    # Within the intervals (seeds 0.1 apart: half width ~0.64 with two seeds) it is noise.
    noisy = bc.point_table(_runs(lambda b, n, s: _model(b) + (0.05 if b == 16 else 0.0) + 0.1 * s))
    assert bc.falling_claim(noisy).verdict == "holds"


def test_scenario_is_wares_path_with_the_buffer_in_packets():
    sc = bc.bbr_cubic_scenario(1, 4, duration=10.0, measure_from=5.0, seed=3)
    doc = sc.doc
    bottleneck = doc["topology"]["bottleneck"]
    assert bottleneck["buffer"] == 33 and bottleneck["rate"] == 10e6
    assert 2 * (bottleneck["delay"] + 0.001 + 0.001) == pytest.approx(bc.BASE_RTT_S)
    assert [f["cc"] for f in doc["flows"]] == ["bbr", "cubic", "cubic", "cubic", "cubic"]
    assert doc["tcp"]["stack"] == "linux" and doc["simulation"]["measure"] == [5.0, 10.0]
    assert bc.buffer_packets(0.25) == 8 and bc.buffer_packets(16) == 533


@pytest.fixture(scope="module")
def quick_outcomes(tmp_path_factory):
    exps = resolve(["beyond/bbr-vs-cubic"])
    store = ResultStore(tmp_path_factory.mktemp("beyond-store"))
    planned = plan(exps, quick=True)
    execute_plan(planned, store, SerialExecutor(), show_progress=False)
    return {o.experiment.name: o for o in analyze(exps, planned, store, quick=True)}


def test_quick_bbr_vs_cubic_measures_every_point_beside_the_model(quick_outcomes):
    o = quick_outcomes["beyond/bbr-vs-cubic"]
    (points,) = o.tables.values()
    assert len(points) == len(bc.QUICK_BUFFERS_BDP) * len(bc.QUICK_CUBIC_FLOWS)
    assert points["bbr_share"].between(0, 1).all()
    assert (points["utilisation"] > 0.9).all()
    assert list(points["model_share"]) == pytest.approx([_model(b) for b in points["buffer_bdp"]])
    # BBR's RTT estimate is at least the base RTT; PROBE_RTT takes some time but not most.
    assert (points["bbr_min_rtt_ms"] >= 40).all() and points["probe_rtt_share"].between(0.005, 0.2).all()
    assert o.comparison.iloc[0]["ours"] == pytest.approx(bc.median_model_error(points))
    assert [c.passed is not None for c in o.claims] == [True] * 4
    assert {f.name for f in o.figures} == {"share", "model-inputs", "convergence"}


def test_report_shows_beyond_experiments_as_tcplabs_own(quick_outcomes, tmp_path):
    from tcplab.report import write_report

    o = quick_outcomes["beyond/bbr-vs-cubic"]
    html = write_report([o], tmp_path / "report", quick=True)
    md = (html.parent / "report.md").read_text()
    assert "## beyond: tcplab's own: BBR beyond the papers" in md
    assert "tcplab's own claims (no paper states them), checked against our data (quick run):" in md
    assert "Claims of the paper" not in md
    assert "the model's stated accuracy" in md  # the published number beside ours
    assert (html.parent / "figures" / "beyond-bbr-vs-cubic-share.svg").exists()
