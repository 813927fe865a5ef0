"""004's WLAN experiments: scenarios as 004 describes them, and quick runs through the store."""

from __future__ import annotations

import math

import pytest

from tcplab.executors import SerialExecutor
from tcplab.experiments import resolve
from tcplab.experiments.wlan.measure import run_summary
from tcplab.experiments.wlan.paper import METHODS, cc_spec, wlan_scenario
from tcplab.store import ResultStore
from tcplab.sweep import analyze, execute_plan, plan

NAMES = ["wlan/fig2-4", "wlan/fig5", "wlan/fig6", "wlan/fig7", "wlan/fig8", "wlan/fig9", "wlan/fig10"]


def test_every_entry_of_the_paper_is_registered():
    assert [e.name for e in resolve(["wlan"])] == [
        "wlan/fig2-4",
        "wlan/fig5",
        "wlan/fig6",
        "wlan/fig7",
        "wlan/fig8",
        "wlan/fig10",
        "wlan/fig9",
    ]
    assert sorted(e.name for e in resolve(["wlan"])) == sorted(NAMES)


def test_scenario_follows_004_setup():
    doc = wlan_scenario(8, 8, cc_spec("vegas"), 200.0).doc
    topo = doc["topology"]
    assert topo == {"kind": "wlan", "stations": 16, "ap_buffer": 100}
    assert doc["simulation"]["measure"] == [40.0, 200.0], "throughput over the last 160 s"
    ups = [f for f in doc["flows"] if f["dst"] == "h0"]
    downs = [f for f in doc["flows"] if f["src"] == "h0"]
    assert [f["src"] for f in ups] == [f"w{i}" for i in range(8)]
    assert [f["dst"] for f in downs] == [f"w{i}" for i in range(8, 16)], "one flow per station"
    assert doc["flows"][0]["cc"] == {"name": "vegas", "alpha": 2, "beta": 4, "variant": "linux"}
    wlan_scenario(8, 8, cc_spec("vegas"), 200.0).validate()


def test_methods_are_the_papers_configurations():
    c = METHODS["c"].scenario(16, 0, 10.0).doc
    assert c["topology"]["ap_queue"] == {"kind": "split", "data": 50, "acks": 50}
    assert c["tcp"]["rwnd"] == 160
    d = METHODS["d"].scenario(16, 0, 10.0).doc
    assert d["flows"][0]["cc"] == {"name": "reno", "ack_loss_reaction": {"thresh_ack_losses": 1}}
    assert METHODS["b"].scenario(16, 0, 10.0).doc["topology"]["ap_access"] == "pifs"
    near_far = METHODS["b"].scenario(16, 0, 10.0, distances=[1.0] * 8 + [10.0] * 8).doc
    assert near_far["topology"]["distances"][7:9] == [1.0, 10.0]
    for m in METHODS.values():
        m.scenario(4, 4, 10.0).validate()


def test_quick_mode_is_shorter_than_full():
    for exp in resolve(["wlan"]):
        quick, full = exp.runs(True), exp.runs(False)
        assert 0 < len(quick) <= len(full)
        assert all(r.scenario.doc["simulation"]["duration"] == 30.0 for r in quick)
        assert all(r.scenario.doc["simulation"]["duration"] == 200.0 for r in full)


@pytest.fixture(scope="module")
def quick_outcomes(tmp_path_factory):
    exps = resolve(["wlan/fig6", "wlan/fig9"])
    store = ResultStore(tmp_path_factory.mktemp("wlan-store"))
    planned = plan(exps, quick=True)
    reused, executed = execute_plan(planned, store, SerialExecutor(), show_progress=False)
    assert (reused, executed) == (0, len(planned))
    results = {p.experiment.name: store.load(p.key) for p in planned if p.experiment.name == "wlan/fig6"}
    return {o.experiment.name: o for o in analyze(exps, planned, store, quick=True)}, results


def test_fig6_reports_ap_ack_queue_beside_the_published_45(quick_outcomes):
    outcomes, results = quick_outcomes
    o = outcomes["wlan/fig6"]
    cmp = o.comparison.set_index("quantity")
    assert cmp.loc["ACKs queued at the AP (measured window)", "published"] == 45
    ours = cmp.loc["ACKs queued at the AP (measured window)", "ours"]
    assert 0 < ours <= 100, "the AP holds at most its 100-packet buffer"
    assert len(o.claims) == 4 and all(c.passed in (True, False) for c in o.claims), "one seed decides alone"
    assert {f.name for f in o.figures} == {"ap-acks", "per-flow"}
    s = run_summary(results["wlan/fig6"])
    assert s["total_mbps"] > 1.0, "16 Vegas uplinks carry traffic over the 54 Mb/s WLAN"
    assert math.isnan(s["down_mean_mbps"]), "no downlink flows in fig. 6"


def test_fig9_compares_near_and_far_stations(quick_outcomes):
    outcomes, _ = quick_outcomes
    o = outcomes["wlan/fig9"]
    table = o.tables["near (1 m) vs far (10 m) stations"]
    assert len(table) == 3
    assert (table["near_mean_mbps"] > 0).all()
    assert len(o.claims) == 2
    assert all(isinstance(c.passed, bool) for c in o.claims)


def test_every_figure_runs_several_seeds_and_decides_on_their_mean():
    """004 runs each configuration once; every figure here runs REPS seeds (one in quick mode)
    and the tables give each figure's mean with its 95% half width (NaN from a single run)."""
    import pandas as pd

    from tcplab.experiments import lookup
    from tcplab.experiments.wlan.measure import seed_means, with_ci
    from tcplab.experiments.wlan.paper import REPS

    for name in NAMES:
        e = lookup(name)
        full = [r for r in e.runs(False) if r.params.get("reading", "paper") == "paper"]
        seeds = {r.params["seed"] for r in full}
        assert seeds == set(range(1, REPS + 1)) and REPS > 1, name
        assert len({r.scenario.doc["simulation"]["seed"] for r in full}) == REPS, name
        assert {r.params["seed"] for r in e.runs(True)} == {1}
    assert len([r for r in lookup("wlan/fig8").runs(False) if r.params["reading"] == "paper"]) == REPS * len(
        METHODS
    )

    runs = pd.DataFrame(
        {"key": ["a", "a", "a", "b"], "jain": [0.5, 0.7, 0.6, 0.9], "label": ["x", "x", "x", "y"]}
    )
    t = seed_means(runs, ["key"], ("jain",)).set_index("key")
    assert t.loc["a", "jain"] == pytest.approx(0.6) and t.loc["a", "runs"] == 3
    assert t.loc["a", "jain_ci95"] == pytest.approx(4.303 * 0.1 / 3**0.5, rel=1e-3)
    assert math.isnan(t.loc["b", "jain_ci95"]) and t.loc["b", "runs"] == 1
    assert "label" not in t.columns, "only numeric figures are averaged"
    assert with_ci(t.loc["a"], "jain", 2) == "0.60 +- 0.25" and with_ci(t.loc["b"], "jain") == "0.900"


def test_methods_tables_aggregate_the_seeds(monkeypatch):
    """Two seeds in quick mode: each configuration's row is the mean of its two runs (with a
    half width), up/down is the ratio of the mean rates, and the claims read those rows."""
    from tcplab import run
    from tcplab.experiments import lookup
    from tcplab.experiments.wlan import paper

    monkeypatch.setattr(paper, "QUICK_REPS", 2)
    exp = lookup("wlan/fig10")
    results = [(r.params, run(r.scenario)) for r in exp.runs(True)]
    assert sorted({p["seed"] for p, _ in results}) == [1, 2]
    out = exp.analyze(results, True)
    table = out.tables["methods"].set_index("method")
    assert (table["runs"] == 2).all()
    d = table.loc[METHODS["d"].label]
    per_run = [run_summary(r) for p, r in results if p["method"] == "d"]
    assert d["jain_up"] == pytest.approx(sum(s["jain_up"] for s in per_run) / 2)
    assert d["up_over_down"] == pytest.approx(d["up_mean_mbps"] / d["down_mean_mbps"])
    assert math.isfinite(d["jain_up_ci95"])
    claim_d = next(c for c in out.claims if c.text.startswith("(d) ACK-loss reaction improves"))
    assert claim_d.passed == bool(d["up_over_down"] < paper.UNFAIR_RATIO)
    assert "means of 2 runs" in claim_d.detail


def test_figs_2_to_7_aggregate_their_seeds(monkeypatch):
    """Two seeds in quick mode through figs. 2-7, handed over in reverse order: time series
    from seed 1, tables of means with half widths, and claims on something 004 saw in its one
    run counted per seed (two seeds cannot decide those: all of two has p = 1/4)."""
    from tcplab import run
    from tcplab.experiments import lookup
    from tcplab.experiments.wlan import paper

    monkeypatch.setattr(paper, "QUICK_REPS", 2)
    outcomes = {}
    for name in ("wlan/fig2-4", "wlan/fig5", "wlan/fig6", "wlan/fig7"):
        exp = lookup(name)
        results = [(r.params, run(r.scenario)) for r in exp.runs(True)]
        assert sorted({p["seed"] for p, _ in results}) == [1, 2], name
        outcomes[name] = (results, exp.analyze(results[::-1], True))

    results, out = outcomes["wlan/fig6"]
    per_seed = out.tables["summary per seed"]
    assert list(per_seed["seed"]) == [1, 2]
    quiet = next(c for c in out.claims if c.text.startswith("No ACK is lost"))
    k = int((per_seed["ap_ack_drops_in_window"] == 0).sum())
    assert quiet.detail.startswith(f"in {k} of 2 seeds") and quiet.verdict == "undecided"
    assert all("seed 1" in f.caption for f in out.figures)
    ours = out.comparison.set_index("quantity").loc["ACKs queued at the AP (measured window)", "ours"]
    assert ours == pytest.approx(per_seed["ap_acks_queued"].mean())

    results, out = outcomes["wlan/fig5"]
    drops = next(c for c in out.claims if c.text.startswith("Many ACKs are dropped"))
    shares = [run_summary(r)["ap_ack_drop_share"] for _, r in results]
    assert drops.passed == (sum(shares) / 2 >= paper.MANY_ACK_DROPS) and "means of 2 runs" in drops.detail
    per_seed = [c for c in out.claims if c.text.startswith(("Some uplink", "The starved flow"))]
    assert len(per_seed) == 3
    assert all(c.detail.startswith(("in 0 of 2", "in 1 of 2", "in 2 of 2")) for c in per_seed)
    assert list(out.tables["per seed"]["seed"]) == [1, 2] and "flows (seed 1)" in out.tables

    results, out = outcomes["wlan/fig7"]
    table = out.tables["mean throughput per direction (Mb/s)"]
    assert (table["runs"] == 2).all() and table["up_mean_mbps_ci95"].notna().all()
    row = table.iloc[0]
    assert row["up_over_down"] == pytest.approx(row["up_mean_mbps"] / row["down_mean_mbps"])

    results, out = outcomes["wlan/fig2-4"]
    table = out.tables["wireless delay and throughput stability"]
    assert (table["runs"] == 2).all() and len(out.tables["per run"]) == 6
    assert {f.name for f in out.figures} == {"fast", "reno", "ctcp"}
    assert all("seed 1" in f.caption for f in out.figures)
    ctcp = [r for p, r in results if p["cc"] == "ctcp"]
    assert all({"min_rtt", "base_rtt"} <= set(r.cc_vars["name"]) for r in ctcp), "004 fig. 4(a)'s minRTT"
    (note,) = [n for n in out.notes if "CTCP's delay-based window" in n]
    # 30 s with the 10000-packet station queue: up0 is still in slow start (docs/reproduction.md).
    assert note.startswith("[paper, seed 1]") and "no round of congestion avoidance ended" in note
