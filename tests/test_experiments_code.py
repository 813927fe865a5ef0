"""CODE TCP (paper 000) experiments: registration, quick runs through the public sweep functions,
and claim evaluation on real records."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from tcplab import _engine
from tcplab.executors import SerialExecutor
from tcplab.experiments import resolve
from tcplab.experiments.code_tcp.fig10_13 import RTT_BOTTLENECK_DELAY, rtt_access
from tcplab.experiments.code_tcp.sweep import pair_table
from tcplab.experiments.code_tcp.table2 import QUICK_SEEDS, per_point
from tcplab.store import ResultStore
from tcplab.sweep import analyze, execute_plan, plan

NAMES = {
    "code/fig3",
    "code/fig9",
    "code/fig10-13",
    "code/fig14",
    "code/fig15",
    "code/table2",
    "code/fig16",
    "code/fig17-18",
    "code/table1",
    "code/eq18",
    "code/linux-fig19",
    "code/table3",
}


def _run(names, tmp_path, keep=lambda p: True):
    exps = resolve(names)
    planned = [p for p in plan(exps, quick=True) if keep(p)]
    store = ResultStore(tmp_path / "store")
    execute_plan(planned, store, SerialExecutor(), show_progress=False)
    return {o.experiment.name: o for o in analyze(exps, planned, store, quick=True)}


def test_every_entry_of_the_paper_is_registered():
    exps = resolve(["code"])
    assert {e.name for e in exps} == NAMES
    caps = _engine.capabilities()
    blocked = {e.name: e.missing(caps) for e in exps if e.missing(caps)}
    assert blocked == {"code/linux-fig19": ["testbed:kernel"]}
    for e in exps:
        assert e.setup and e.title


def test_quick_plans_are_valid_and_repeat_with_distinct_seeds():
    exps = resolve(["code/fig9", "code/fig10-13", "code/fig15"])
    # Ablations and quick controls may repeat a default run on purpose (same key, one result).
    planned = [p for p in plan(exps, quick=True) if p.experiment in exps]
    assert len({p.key for p in planned}) == len(planned), "two runs would share a stored result"
    fig9 = [p for p in planned if p.experiment.name == "code/fig9"]
    assert {p.params["variant"] for p in fig9} == {"vegas", "vegas_a", "newvegas", "code"}
    assert {p.params["rep"] for p in fig9} == {0, 1}


def test_rtt_access_gives_the_target_propagation_rtt():
    for rtt_ms in (20, 50, 200):
        a = rtt_access(rtt_ms)
        rtt = 2 * (a["delay"] + RTT_BOTTLENECK_DELAY + a["receiver_delay"])
        assert math.isclose(rtt, rtt_ms / 1e3)
    with pytest.raises(ValueError, match="10 ms"):
        rtt_access(8)


def test_analytic_and_record_experiments(tmp_path):
    out = _run(["code/eq18", "code/table3", "code/table1"], tmp_path)
    eq = out["code/eq18"]
    assert all(c.passed for c in eq.claims)
    assert abs(eq.comparison.set_index("quantity").loc["chosen epsilon", "ours"] - 0.68) < 0.005
    t3 = out["code/table3"]
    assert all(c.passed for c in t3.claims), [c.detail for c in t3.claims]
    assert out["code/table1"].claims[0].passed is True  # the engine driven through the six rounds


def test_fig9_at_one_bandwidth_compares_every_variant_with_reno(tmp_path):
    out = _run(["code/fig9"], tmp_path, keep=lambda p: p.params["bandwidth_mbps"] == 10)
    o = out["code/fig9"]
    table = next(iter(o.tables.values()))
    assert set(table["variant"]) == {"vegas", "vegas_a", "newvegas", "code"}
    assert (table["runs"] == 2).all()
    assert ((table["ratio_low"] <= table["ratio"]) & (table["ratio"] <= table["ratio_high"])).all()
    vegas = o.claims[0]
    assert vegas.text.startswith("Vegas gets considerably less")
    assert vegas.passed is not None
    # Vegas's 1..3 queued packets against Reno's 100-packet buffer: a result that could fail.
    assert vegas.passed, vegas.detail
    assert len(o.figures) == 2


def test_window_experiments_produce_dynamics_and_claims(tmp_path):
    out = _run(["code/fig3", "code/fig17-18"], tmp_path)
    f3 = out["code/fig3"]
    dyn = next(iter(f3.tables.values()))
    assert len(dyn) == 4 and (dyn["loss_cycles"] > 0).all()
    reno = dyn[dyn["flow"] == "Reno"]["growth_pkts_per_round"]
    assert ((reno > 0.7) & (reno < 1.3)).all(), "Reno grows one packet per round in avoidance"
    assert len(f3.claims) == 6 and all(c.passed is not None for c in f3.claims)
    f17 = out["code/fig17-18"]
    after = next(iter(f17.tables.values()))
    assert list(after["variant"]) == ["Vegas", "CODE"]
    assert len(f17.claims) == 4 and len(f17.figures) == 2


def test_two_code_flows_and_the_ratio_table_needs_reno(tmp_path):
    out = _run(["code/fig16"], tmp_path)
    f16 = out["code/fig16"]
    flows = next(iter(f16.tables.values()))
    assert len(flows) == 2 and (flows["throughput_mbps"] > 0).all()
    assert all(c.passed is not None for c in f16.claims)
    store = ResultStore(tmp_path / "store")
    (planned,) = [p for p in plan(resolve(["code/fig16"]), quick=True) if p.experiment.name == "code/fig16"]
    with pytest.raises(ValueError, match="reno"):
        pair_table([({"variant": "code", "x": 1}, store.load(planned.key))], ["x"])


def test_homogeneous_unfairness_note_reads_the_run_it_explains():
    from types import SimpleNamespace

    import pandas as pd

    from tcplab.experiments.code_tcp.table2 import homogeneous_unfairness_note

    cc_vars = pd.DataFrame(
        {
            "flow": [0, 1, 0, 1, 0, 1],
            "name": ["diff"] * 6,
            "time": [10.0, 10.0, 60.0, 60.0, 70.0, 70.0],
            "value": [9.0, 9.0, 1.0, 3.0, 1.0, 3.0],  # before 50 s does not count
        }
    )
    res = SimpleNamespace(cc_vars=cc_vars, losses=pd.DataFrame({"time": [2.15, 2.24]}))
    note = homogeneous_unfairness_note({"variant": "newvegas", "bandwidth_mbps": 15}, res, 0.9)
    assert "NewVegas at 15 Mb/s" in note and "Jain 0.900" in note
    assert "2 loss responses came between 2.15 and 2.24 s" in note
    assert "1.00 to 3.00 packets, Jain's index of those 0.800" in note  # 4^2 / (2 * (1 + 9))


def test_loss_responses_count_each_kind_from_50_s_on():
    from types import SimpleNamespace

    import pandas as pd

    from tcplab.experiments.code_tcp.fig9 import loss_responses, newvegas_ahead_note

    def run(bw, reno_times, nv_times):
        flows = pd.DataFrame({"id": [0, 1], "cc": ["reno", "newvegas"]})
        times = [*reno_times, *nv_times]
        flow = [0] * len(reno_times) + [1] * len(nv_times)
        res = SimpleNamespace(flows=flows, losses=pd.DataFrame({"time": times, "flow": flow}))
        return {"bandwidth_mbps": bw, "variant": "newvegas"}, res

    t = loss_responses([run(50, [10, 60, 70, 80], [60]), run(50, [55, 56], [])], "bandwidth_mbps")
    row = t.iloc[0]
    assert (row["reno"], row["delay-based"]) == (2.5, 0.5), "the loss at 10 s is before 50 s"
    note = newvegas_ahead_note(t, [50])
    assert "(50 Mb/s)" in note and "0.5 losses per run from 50 s on to Reno's 2.5" in note


def test_table2_points_have_seeds_and_an_interval(tmp_path):
    """Ten flows starting together are one deterministic run; table 2 spreads their starts
    over a fifth of the RTT, so each seed is a run of its own and each point has an interval."""
    out = _run(["code/table2"], tmp_path)["code/table2"]
    t = out.tables["Jain's index by variant and bandwidth: mean, 95 % interval, utilisation"]
    assert (t["seeds"] == QUICK_SEEDS).all() and len(t) == 6
    assert (t["high"] >= t["low"]).all() and (t["high"] > t["low"]).any(), "the seeds' runs differ"
    (fair,) = [c for c in out.claims if "at least 0.95" in c.text]
    assert fair.verdict in ("holds", "unexplained", "undecided") and "lowest mean" in fair.detail


def test_table2_points_of_one_seed_are_their_own_interval():
    runs = pd.DataFrame(
        {"variant": ["code", "code", "vegas"], "bandwidth_mbps": [10, 10, 10], "seed": [1, 2, 1]}
        | {"jain": [0.96, 0.98, 0.94], "utilisation": [0.9, 0.9, 0.9]}
    )
    t = per_point(runs).set_index("variant")
    assert t.loc["vegas", "low"] == t.loc["vegas", "high"] == 0.94 and t.loc["vegas", "seeds"] == 1
    assert t.loc["code", "low"] < 0.97 < t.loc["code", "high"] and t.loc["code", "seeds"] == 2


def test_fig10_13_runs_reno_in_the_delay_based_flows_place(tmp_path):
    """The RTTs alone: Reno against Reno at each point, and section 4.2's fig. 13 statement
    checked against it only where CODE has the smaller RTT (else not evaluated)."""
    out = _run(
        ["code/fig10-13"],
        tmp_path,
        keep=lambda p: p.params["rtt_ms"] == 20 and p.params["variant"] in ("code", "reno"),
    )
    o = out["code/fig10-13"]
    base = next(t for name, t in o.tables.items() if name.startswith("Reno in the delay-based flow's place"))
    assert sorted(base["case"]) == ["Reno swept", "delay-based swept"] and (base["runs"] == 2).all()
    by_case = base.set_index("case")["ratio"]
    # 20 ms against 50 ms: the shorter-RTT Reno gets more, whichever of the two it is.
    assert by_case["delay-based swept"] > 1 > by_case["Reno swept"]
    fair = {
        c.text.split("(")[1].split(")")[0]: c for c in o.claims if "CODE" in c.text and "fair share" in c.text
    }
    assert fair["delay-based swept"].passed is not None, fair["delay-based swept"].detail
    assert fair["Reno swept"].passed is None and "no such point" in fair["Reno swept"].detail
    assert not any("close throughputs" in c.text for c in o.claims), "fig. 9's statement, not 4.2's"
    # The baseline's senders are randomised (no phase lock); the pairs' are not.
    exp = resolve(["code/fig10-13"])[0]
    reno = exp.scenario("reno", ("Reno swept", 60), 1, 100.0).doc["topology"]["pair_access"]
    code = exp.scenario("code", ("Reno swept", 60), 1, 100.0).doc["topology"]["pair_access"]
    assert all("jitter" in p for p in reno) and not any("jitter" in p for p in code)


def test_vegas_a_fair_share_claim_compares_with_reno_in_its_place():
    """000 section 4.2 on fig. 11: Vegas-A "cannot obtain a fair share": below 1/1.5 of Reno in
    its place at every RTT, not below Reno itself (at 200 ms it gets more than Reno, less than
    its share)."""
    from tcplab.experiments.code_tcp.fig10_13 import vegas_a_fair_share_claim

    table = pd.DataFrame(
        {"variant": "vegas_a", "case": "Reno swept", "rtt_ms": [20, 200], "ratio": [0.1, 1.3]}
    )
    baseline = pd.DataFrame({"case": "Reno swept", "rtt_ms": [20, 200], "ratio": [0.4, 3.5]})
    c = vegas_a_fair_share_claim(table, baseline, "Reno swept")
    assert c.passed is True and c.detail == "20: 0.10 vs Reno's 0.40, 200: 1.30 vs Reno's 3.50"
    # 0.3 is below Reno's 0.4 but within the margin (0.4 / 1.5 = 0.27): a fair enough share.
    assert vegas_a_fair_share_claim(table.assign(ratio=[0.3, 1.3]), baseline, "Reno swept").passed is False
    nan = baseline.assign(ratio=[0.4, float("nan")])
    assert vegas_a_fair_share_claim(table, nan, "Reno swept").passed is None
    assert vegas_a_fair_share_claim(table, baseline.iloc[:1], "Reno swept").passed is None, (
        "a point without Reno in its place decides nothing"
    )


def test_rtt_sweeps_check_section_4_2s_statements_only():
    from tcplab.experiments.code_tcp.sweep import pair_claims

    rows = [
        {"variant": v, "x": x, "ratio": r}
        for v, r in (("vegas", 0.1), ("vegas_a", 0.3), ("newvegas", 0.6), ("code", 0.9))
        for x in (1, 2)
    ]
    table = pd.DataFrame(rows)
    full = [c.text for c in pair_claims(table, "x", "point")]
    rtt = [c.text for c in pair_claims(table, "x", "point", section="4.2")]
    assert len(full) == 7 and len(rtt) == 4
    assert [t.split(" ")[0] for t in rtt] == ["Vegas", "NewVegas", "NewVegas's", "CODE's"]
    assert set(rtt) - set(full) == {
        "NewVegas's ratio is above Vegas's at every point (section 4.2: a limited improvement)"
    }
    assert all("over every point" in t for t in full if t.startswith("CODE's ratio is closer"))
    with pytest.raises(ValueError, match="section must be"):
        pair_claims(table, "x", "point", section="4.3")


def test_fair_share_claim_compares_with_reno_in_codes_place():
    from tcplab.experiments.code_tcp.fig10_13 import fair_share_claim

    table = pd.DataFrame(
        {"variant": "code", "case": "Reno swept", "rtt_ms": [20, 100, 200], "ratio": [0.4, 3.0, 9.0]}
    )
    baseline = pd.DataFrame({"case": "Reno swept", "rtt_ms": [20, 100, 200], "ratio": [0.1, 4.0, 5.0]})
    c = fair_share_claim(table, baseline, "Reno swept")
    nan = baseline.assign(ratio=[0.1, float("nan"), 5.0])
    assert fair_share_claim(table, nan, "Reno swept").passed is None, "a point without data decides nothing"
    # 20 ms is Reno's smaller RTT (not judged); 100: 3.0 <= 1.5 * 4.0; 200: 9.0 > 1.5 * 5.0.
    assert c.passed is False and "20:" not in c.detail and "200: 9.00 vs Reno's 5.00" in c.detail
    baseline.loc[2, "ratio"] = 6.0
    assert fair_share_claim(table, baseline, "Reno swept").passed is True


def test_fig19_claims_need_every_point_of_a_side():
    """Section 4.6's claims average each partner's ratio over the sweep: decided on a complete
    side, not evaluated on a side with a point missing (a kernel run not made or failed)."""
    from tcplab.experiments.code_tcp.linux_fig19 import fig19_claims

    table = pd.DataFrame(
        {
            "partner": ["vegas", "newvegas", "code"] * 2,
            "bandwidth_mbps": [10] * 3 + [30] * 3,
            "ratio_kernel": [0.1, 0.3, 0.5, 0.1, 0.4, 0.6],
            "ratio_sim": [0.1, 0.3, 1.0, 0.2, 0.5, 0.9],
        }
    )
    kernel_order, kernel_code, sim_order, sim_code = fig19_claims(table)
    assert kernel_order.passed is True and kernel_code.passed is False, kernel_code.detail
    assert kernel_code.detail == "mean ratio 0.55 (means over 2 bandwidths, one run each)"
    assert sim_order.passed is True and sim_code.passed is True
    gap = table.assign(ratio_kernel=[0.1, 0.3, 0.5, 0.1, float("nan"), 0.6])
    claims = fig19_claims(gap)
    assert [c.verdict for c in claims[:2]] == ["not evaluated"] * 2 and claims[2].passed is True
    assert all(c.verdict == "not evaluated" for c in fig19_claims(table.drop(columns="ratio_kernel"))[:2])
    assert all(c.verdict == "not evaluated" for c in fig19_claims(table.drop(index=5))), (
        "CODE without the 30 Mb/s point is a shorter sweep than the others'"
    )
