"""Hasegawa, Kurata & Murata (paper 003) experiments: scenarios, model helpers, and quick runs through
the public sweep functions into a temporary store."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import tcplab
from tcplab.executors import SerialExecutor
from tcplab.experiments import resolve
from tcplab.experiments.hasegawa import model
from tcplab.experiments.hasegawa import paper as h
from tcplab.experiments.hasegawa.fig7_8 import RENO_ON
from tcplab.experiments.hasegawa.measure import compare_variants, model_agreement
from tcplab.store import ResultStore
from tcplab.sweep import analyze, execute_plan, plan


def test_every_entry_of_the_paper_is_registered():
    names = {e.name for e in resolve(["hasegawa"])}
    assert names == {
        "hasegawa/fig3",
        "hasegawa/fig4",
        "hasegawa/fig6",
        "hasegawa/fig7-8",
        "hasegawa/fig9",
        "hasegawa/fig11",
        "hasegawa/fig12",
    }


def test_scenario_puts_each_flow_on_its_own_sender_and_validates():
    sc = h.hasegawa_scenario(5, 10, 40, queue=h.zl_red(0.8, 40))
    flows = sc.doc["flows"]
    assert [f["src"] for f in flows] == [f"s{i}" for i in range(15)]
    assert [f["cc"] == "reno" for f in flows] == [True] * 5 + [False] * 10
    assert sc.doc["topology"]["bottleneck"]["queue"]["max_th"] == pytest.approx(24.0)
    sc.validate()  # raises on a document the engine rejects


def test_on_off_reno_schedule_replaces_random_starts():
    sc = h.hasegawa_scenario(5, 1, 100, reno_schedule=RENO_ON, duration=1000.0, measure=(0.0, 1000.0))
    reno, vegas = sc.doc["flows"][0], sc.doc["flows"][-1]
    assert reno["schedule"] == RENO_ON and "start" not in reno
    assert "schedule" not in vegas and vegas["start"] == {"uniform": [0.0, h.START_WINDOW]}
    sc.validate()


def test_base_rtt_is_what_a_lone_flow_measures_through_an_empty_queue():
    sc = h.hasegawa_scenario(0, 1, 100, duration=2.0, measure=(0.0, 2.0))
    flow = tcplab.run(sc).flows.iloc[0]
    assert flow["min_rtt"] == pytest.approx(h.BASE_RTT, abs=1e-5)


def test_droptail_model_is_undefined_where_vegas_alone_fills_pipe_and_buffer():
    # Nv = 10: W_v = 20 packets; 2 tau mu = 2.34 packets, so B = 17 leaves Reno no room.
    m = model.droptail_model_kbps(5, 10, [17, 18, 100])
    assert math.isnan(m["reno_kbps"].iloc[0])
    assert m["reno_kbps"].iloc[1] > 0
    # The two kinds share the link: 5 Reno + 10 Vegas per-flow rates add up to the goodput capacity.
    total = 5 * m["reno_kbps"].iloc[2] + 10 * m["vegas_kbps"].iloc[2]
    assert total == pytest.approx(h.CAPACITY_KBPS)


def test_red_model_gives_vegas_more_at_larger_p():
    low = model.red_model_kbps(5, 5, 1 / 30)
    high = model.red_model_kbps(5, 5, 1 / 10)
    assert high[1] / high[0] > low[1] / low[0]


@pytest.fixture(scope="module")
def quick_outcomes(tmp_path_factory):
    exps = resolve(["hasegawa/fig3", "hasegawa/fig7-8"])
    planned = plan(exps, quick=True)
    store = ResultStore(tmp_path_factory.mktemp("store"))
    execute_plan(planned, store, SerialExecutor(), show_progress=False)
    return {o.experiment.name: o for o in analyze(exps, planned, store, quick=True)}


def test_fig3_quick_reports_table_figure_and_evaluated_claims(quick_outcomes):
    out = quick_outcomes["hasegawa/fig3"]
    (table,) = out.tables.values()
    assert len(table) == len(h.CASES) * len(h.QUICK.buffers)
    assert {"reno_kbps", "vegas_kbps", "model_reno_kbps", "share_error"} <= set(table.columns)
    # Per-flow goodput times flow counts cannot exceed the bottleneck's goodput capacity.
    per_run = table["n_reno"] * table["reno_kbps"] + table["n_vegas"] * table["vegas_kbps"]
    assert (per_run <= h.CAPACITY_KBPS * 1.01).all()
    assert [f.name for f in out.figures] == ["fig3"]
    assert out.claims and all(c.passed is not None for c in out.claims)
    large = next(c for c in out.claims if c.text.startswith("With a large buffer"))
    assert large.passed, large.detail


def test_fig7_quick_tracks_the_reno_phases(quick_outcomes):
    out = quick_outcomes["hasegawa/fig7-8"]
    (table,) = out.tables.values()
    assert set(table["algorithm"]) == {"Vegas", "Vegas+"}
    vegas = table[table["algorithm"] == "Vegas"]
    # Alone on the link, Vegas fills it; with five Reno flows it gets far less.
    alone = vegas[~vegas["reno_on"]]["kbps"].min()
    shared = vegas[vegas["reno_on"]]["kbps"].max()
    assert alone > 0.9 * h.CAPACITY_KBPS
    assert shared < 0.5 * alone
    assert {f.name for f in out.figures} == {"fig7", "fig8"}
    assert any("aggressive mode" in n for n in out.notes)


def test_run_table_per_kind_measures_with_a_kind_missing():
    """run_table's vectorised per-kind measures, checked by hand; a run without Vegas gives NaN."""
    from types import SimpleNamespace

    from tcplab.experiments.hasegawa.measure import run_table
    from tcplab.experiments.hasegawa.paper import BASE_RTT

    def flows(rows):
        cols = ["cc", "goodput_bps", "segments_sent", "timeouts", "early_retransmits", "min_rtt"]
        df = pd.DataFrame(rows, columns=cols)
        df["data_drops_buffer_overflow"] = [r[2] // 10 for r in rows]
        df["data_drops_aqm_early"] = 1
        return SimpleNamespace(flows=df)

    both = flows(
        [
            ("reno", 300e3, 1000, 2, 0, 0.03),
            ("reno", 100e3, 500, 0, 0, 0.03),
            ("vegas", 50e3, 200, 1, 3, 0.05),
        ]
    )
    reno_only = flows([("reno", 400e3, 800, 1, 0, 0.03)])
    t = run_table([({"buffer": 10}, both), ({"buffer": 20}, reno_only)])
    assert list(t["buffer"]) == [10, 20]
    assert t.loc[0, "reno_kbps"] == pytest.approx(200.0)
    assert t.loc[0, "reno_loss_pct"] == pytest.approx(100 * (100 + 50 + 2) / 1500)
    assert t.loc[0, "vegas_loss_pct"] == pytest.approx(100 * 21 / 200)
    assert t.loc[0, "reno_timeouts"] == pytest.approx(1.0)
    assert t.loc[0, "vegas_early_retransmits"] == pytest.approx(3.0)
    assert t.loc[0, "total_kbps"] == pytest.approx(450.0)
    assert t.loc[0, "vegas_base_rtt_excess_ms"] == pytest.approx(1e3 * (0.05 - BASE_RTT))
    assert t.loc[1, "reno_kbps"] == pytest.approx(400.0)
    assert np.isnan(t.loc[1, "vegas_kbps"]) and np.isnan(t.loc[1, "vegas_loss_pct"])


def _fairness_runs(spread: dict[str, tuple[float, float]], seeds: int = 5) -> pd.DataFrame:
    """A runs table (measure.run_table's columns the comparison reads) in which each variant's
    Vegas flows get exp(unfairness) times a Reno flow's throughput, the unfairness drawn per
    seed around a centre with the given noise, in every case and at every buffer."""
    rng = np.random.default_rng(7)
    rows = []
    for variant, (centre, noise) in spread.items():
        for nr, nv in h.CASES:
            for seed in range(1, seeds + 1):
                u = centre + noise * rng.standard_normal()
                for b in (20, h.LARGE, 100, 200):
                    rows.append(
                        {"variant": variant, "n_reno": nr, "n_vegas": nv, "buffer": b, "seed": seed}
                        | {"reno_kbps": 100.0, "vegas_kbps": 100.0 * math.exp(u)}
                    )
    return pd.DataFrame(rows)


def test_a_fairer_variant_needs_its_difference_clear_of_the_seeds_spread():
    """compare_variants is a paired test over seeds: a difference well outside the spread
    holds or fails; one inside it is undecided, not a pass or a failure; one seed decides by
    the point difference; a variant without runs leaves it not evaluated."""
    clear = _fairness_runs({"A": (0.2, 0.02), "B": (0.8, 0.02)})
    assert compare_variants(clear, "A", "B").verdict == "holds"
    assert compare_variants(clear, "B", "A").verdict == "unexplained"
    close = _fairness_runs({"A": (0.50, 0.1), "B": (0.51, 0.1)})
    claim = compare_variants(close, "A", "B")
    assert claim.verdict == "undecided" and "difference" in claim.detail, claim.detail
    one = _fairness_runs({"A": (0.50, 0.0), "B": (0.51, 0.0)}, seeds=1)
    assert compare_variants(one, "A", "B").verdict == "holds"
    assert compare_variants(clear, "A", "C").verdict == "not evaluated"


def test_the_models_share_is_checked_against_the_runs_interval():
    """model_agreement is an equivalence test per point: inside model +- tolerance with the
    whole 95 % interval holds, an interval across an edge is undecided, one wholly outside
    fails; one seed (no interval) decides by the mean; no point is not evaluated."""

    def agg(offsets, half):
        rows = [
            {"variant": "V", "n_reno": 5, "n_vegas": 5, "buffer": b, "model_share": 0.5}
            | {"run_reno_share": 0.5 + off, "run_reno_share_ci": half, "share_error": abs(off)}
            | {"n": 1 if math.isnan(half) else 5}
            for b, off in zip((h.LARGE, 100, 200), offsets, strict=True)
        ]
        return pd.DataFrame(rows)

    tol = h.SHARE_TOLERANCE
    assert model_agreement(agg([0.0, 0.02, -0.03], 0.02), "V", "t").verdict == "holds"
    assert model_agreement(agg([0.0, tol - 0.01, 0.0], 0.02), "V", "t").verdict == "undecided"
    assert model_agreement(agg([0.0, -(tol + 0.05), 0.0], 0.02), "V", "t").verdict == "unexplained"
    assert model_agreement(agg([0.0, tol - 0.01, 0.0], np.nan), "V", "t").verdict == "holds"
    assert model_agreement(agg([0.0, tol + 0.01, 0.0], np.nan), "V", "t").verdict == "unexplained"
    assert model_agreement(agg([0.0, 0.0, 0.0], 0.0).iloc[:0], "V", "t").verdict == "not evaluated"


def test_a_tie_is_not_fairer_and_a_run_without_throughput_is_not_evaluated():
    tie = _fairness_runs({"A": (0.5, 0.0), "B": (0.5, 0.0)})
    assert compare_variants(tie, "A", "B").verdict == "unexplained", "equal is not fairer"
    starved = _fairness_runs({"A": (0.2, 0.02), "B": (0.8, 0.02)})
    starved.loc[starved.index[-1], "vegas_kbps"] = 0.0
    claim = compare_variants(starved, "A", "B")
    assert claim.verdict == "not evaluated" and "delivered nothing" in claim.detail
