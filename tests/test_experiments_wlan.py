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
    assert len(o.claims) == 3 and all(c.passed in (True, False) for c in o.claims)
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
