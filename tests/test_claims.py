"""Claim verdicts: no data is never "holds"; ablations explain only what they flip."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from tcplab.experiments.ablation import Ablation, explain, set_cc_params, set_tcp
from tcplab.experiments.base import Claim, Outcome
from tcplab.experiments.causes import cause
from tcplab.experiments.common import claim, every, known, range_claim, seeds_claim


@pytest.mark.parametrize(
    "values", [[], pd.Series([], dtype=bool), pd.DataFrame(), [True, float("nan")], [None]]
)
def test_every_refuses_to_decide_on_no_data(values):
    assert every(values) is None
    assert claim("x", every(values)).verdict == "not evaluated"


def test_every_decides_on_data():
    assert every([True, True]) is True
    assert every(pd.Series([True, False])) is False


def test_claim_on_nan_is_not_evaluated():
    assert claim("x", float("nan")).verdict == "not evaluated"
    assert claim("x", None).passed is None
    assert not known(1.0, math.nan)
    assert known(1.0, 2)


def test_an_undecided_claim_is_counted_apart_from_one_without_data():
    o = _outcome(Claim("x", None, undecided=True), Claim("y", None), Claim("z", True))
    assert [c.verdict for c in o.claims] == ["undecided", "not evaluated", "holds"]
    assert o.verdicts() == {"holds": 1, "explained": 0, "unexplained": 0, "undecided": 1, "not evaluated": 1}
    assert Claim("w", False, undecided=True).verdict == "unexplained", "only an open claim is undecided"


def test_claim_cause_only_marks_a_failing_claim():
    assert claim("x", True, cause="paper-inconsistent", why="1+1").cause is None
    failed = claim("x", False, cause="paper-inconsistent", why="1+1")
    assert failed.verdict == "explained" and failed.explanation == "1+1"
    assert claim("x", False).verdict == "unexplained"


def _outcome(*claims: Claim) -> Outcome:
    o = Outcome.__new__(Outcome)
    o.claims = list(claims)
    o.ablations = []
    return o


def test_explain_flips_only_claims_that_hold_under_the_ablation():
    ab = Ablation("lt", "threshold-rule", 'threshold_decrease = "rtt_decreased"', lambda d: None)
    base = _outcome(Claim("a", False), Claim("b", False), Claim("c", True))
    under = _outcome(Claim("a", True, "ok"), Claim("b", False), Claim("c", False))
    explain(base, [(ab, 3, under)])
    verdicts = [c.verdict for c in base.claims]
    assert verdicts == ["explained", "unexplained", "holds"]
    assert base.claims[0].cause == "threshold-rule"
    assert "still fails" in base.claims[1].tried[0]
    (record,) = base.ablations
    assert record.flipped == ["a"] and record.unchanged == ["b"] and record.runs == 3


def test_explain_matches_claims_of_the_same_text_in_order():
    """An experiment may state one claim twice (say once per case): the ablation's first is
    compared with the defaults' first, its second with the second; where the two outcomes state
    it a different number of times, which is which cannot be told and nothing is compared."""
    ab = Ablation("lt", "threshold-rule", 'threshold_decrease = "rtt_decreased"', lambda d: None)
    base = _outcome(Claim("same", False), Claim("same", True))
    under = _outcome(Claim("same", True, "first"), Claim("same", False, "second"))
    explain(base, [(ab, 2, under)])
    assert [c.verdict for c in base.claims] == ["explained", "holds"]
    assert base.claims[0].explanation.endswith(": first")
    assert base.claims[1].tried == ['threshold_decrease = "rtt_decreased": fails (second)']

    base = _outcome(Claim("same", False), Claim("same", False))
    explain(base, [(ab, 1, _outcome(Claim("same", True)))])
    assert [c.verdict for c in base.claims] == ["unexplained", "unexplained"]
    assert all(c.tried == ['threshold_decrease = "rtt_decreased": not evaluated'] for c in base.claims)


def test_explain_does_not_count_unevaluated_ablation_as_evidence():
    ab = Ablation("x", "stack-conventions", "min_rto = 1", lambda d: None, claims=("a",))
    base = _outcome(Claim("a", False))
    explain(base, [(ab, 1, _outcome(Claim("a", None)))])
    assert base.claims[0].verdict == "unexplained"
    assert "not evaluated" in base.claims[0].tried[0]


def test_ablation_rejects_unknown_cause():
    with pytest.raises(KeyError, match="no root cause"):
        Ablation("k", "nosuch", "x", lambda d: None)
    assert cause("threshold-rule").title


def test_edits_change_only_the_named_algorithm():
    doc = {"flows": [{"cc": "code"}, {"cc": {"name": "reno"}}]}
    set_cc_params("code", alpha=2)(doc)
    set_tcp(min_rto=1.0)(doc)
    assert doc["flows"][0]["cc"] == {"name": "code", "alpha": 2}
    assert doc["flows"][1]["cc"] == {"name": "reno"}
    assert doc["tcp"]["min_rto"] == 1.0


def test_kernel_runs_are_planned_apart_from_simulated_ones():
    from tcplab.experiments import resolve
    from tcplab.sweep import plan

    (fig19,) = resolve(["code/linux-fig19"])
    assert fig19.on_kernel and fig19.kernel_time
    planned = plan([fig19], quick=True)
    by_backend = {b: [p for p in planned if p.backend == b] for b in ("sim", "kernel")}
    assert len(by_backend["sim"]) == len(by_backend["kernel"]) > 0
    assert not {p.key for p in by_backend["sim"]} & {p.key for p in by_backend["kernel"]}
    assert all(p.source for p in by_backend["kernel"]) and not any(p.source for p in by_backend["sim"])


def test_kernel_experiment_runs_only_with_the_flag(tmp_path):
    from typer.testing import CliRunner

    from tcplab.cli import app

    args = ["reproduce", "code/linux-fig19", "--quick", "--store", str(tmp_path / "s")]
    r = CliRunner().invoke(app, [*args, "--report", str(tmp_path / "r")], env={"COLUMNS": "200"})
    assert r.exit_code == 2, r.output
    assert "--kernel" in r.output and "kernel test bed" in r.output
    assert not (tmp_path / "s" / "runs").exists(), "nothing was simulated or stored"


def test_report_marks_only_quick_runs(tmp_path):
    from tcplab.experiments.base import Experiment, Outcome
    from tcplab.report import write_report

    class Demo(Experiment):
        name = "demo/x"
        paper = "demo"
        title = "demo"

        def runs(self, quick):
            return []

        def analyze(self, results, quick):
            return Outcome(self)

    o = Outcome(
        Demo(),
        claims=[Claim("a fails", False), Claim("b holds", True)],
        tables={"t": pd.DataFrame({"x": [1]})},
    )
    for quick in (False, True):
        text = (write_report([o], tmp_path / str(quick), quick, "").parent / "report.md").read_text()
        assert ("(quick run)" in text) == quick
        assert ("t (quick run):" if quick else "t:") in text, "a claim's mark leaked into a caption"


def test_reading_ablations_edit_only_their_algorithm_into_valid_scenarios():
    from tcplab.experiments.ablation import vegas_ns2_module_ablation, vegasplus_window_ablation
    from tcplab.experiments.hasegawa import paper as hasegawa
    from tcplab.experiments.wlan import paper as wlan
    from tcplab.scenario import Scenario

    doc = Scenario(wlan.wlan_scenario(2, 0, wlan.cc_spec("vegas"), 1.0).doc).doc
    vegas_ns2_module_ablation().edit(doc)
    assert {f["cc"]["variant"] for f in doc["flows"]} == {"paper"}
    assert doc["flows"][0]["cc"]["rtt"] == "mean" and doc["flows"][0]["cc"]["alpha"] == 2
    Scenario(doc).validate()
    plus = {**hasegawa.VEGAS_PLUS_8.vegas_cc}
    doc = Scenario(
        hasegawa.hasegawa_scenario(1, 1, 50, vegas_cc=plus, duration=1.0, measure=(0.0, 1.0)).doc
    ).doc
    vegasplus_window_ablation().edit(doc)
    assert [f["cc"] if f["cc"] == "reno" else f["cc"]["count_window"] for f in doc["flows"]] == [
        "reno",
        "unchanged",
    ]
    Scenario(doc).validate()


def test_quick_ablation_counts_only_where_the_quick_defaults_fail_too():
    ab = Ablation("q", "threshold-rule", "x", lambda d: None, quick=True)
    base = _outcome(Claim("every point", False), Claim("other", False))
    under = _outcome(Claim("every point", True), Claim("other", True))
    control = _outcome(Claim("every point", True), Claim("other", False))
    explain(base, [(ab, 2, under)], control)
    assert [c.verdict for c in base.claims] == ["unexplained", "explained"]
    assert "not comparable" in base.claims[0].tried[0]
    (record,) = base.ablations
    assert record.flipped == ["other"] and record.unchanged == ["every point"]


def test_quick_controls_are_planned_for_quick_ablations_only():
    from tcplab.experiments import lookup, resolve
    from tcplab.experiments.ablation import QUICK_CONTROL, QuickControl, ablated

    fig9, fig17 = resolve(["code/fig9", "code/fig17-18"])
    controls = [v for v in ablated([fig9, fig17]) if isinstance(v, QuickControl)]
    assert [c.base for c in controls] == [fig9], "fig17-18's ablations run at full size"
    control = lookup(f"code/fig9@{QUICK_CONTROL}")
    assert isinstance(control, QuickControl)
    assert [r.scenario.doc for r in control.runs(False)] == [r.scenario.doc for r in fig9.runs(True)]


def test_code_rtt_ablation_sets_the_target_packet_rtt_on_code_only():
    from tcplab.experiments.ablation import code_rtt_ablation

    ab = code_rtt_ablation()
    doc = {"flows": [{"cc": "code"}, {"cc": "reno"}, {"cc": "newvegas"}]}
    ab.edit(doc)
    assert doc["flows"] == [{"cc": {"name": "code", "rtt": "last"}}, {"cc": "reno"}, {"cc": "newvegas"}]
    assert ab.addresses("CODE and Reno get close throughputs") and not ab.addresses("Vegas-A only")
    assert cause(ab.cause).title


def test_ns2_diff_ablation_rounds_the_vegas_family_or_one_member():
    from tcplab.experiments.ablation import ns2_diff_ablation

    doc = {"flows": [{"cc": "vegas_a"}, {"cc": "reno"}, {"cc": {"name": "code", "rtt": "min"}}]}
    ns2_diff_ablation().edit(doc)
    assert doc["flows"][0]["cc"] == {"name": "vegas_a", "diff_rounding": "nearest"}
    assert doc["flows"][1]["cc"] == "reno"
    assert doc["flows"][2]["cc"] == {"name": "code", "rtt": "min", "diff_rounding": "nearest"}
    one = ns2_diff_ablation(cc="vegas_a", claims=("Vegas-A",))
    doc = {"flows": [{"cc": "vegas_a"}, {"cc": "code"}]}
    one.edit(doc)
    assert doc["flows"][1]["cc"] == "code" and one.key != ns2_diff_ablation().key
    assert one.addresses("Vegas-A stays below") and not one.addresses("CODE and Reno")


def test_ack_loss_pause_ablation_edits_only_flows_with_the_reaction():
    from tcplab.experiments.ablation import ack_loss_pause_ablation
    from tcplab.experiments.wlan import paper as wlan
    from tcplab.scenario import Scenario

    ab = ack_loss_pause_ablation(claims=("(d)",))
    doc = {"flows": [{"cc": wlan.cc_spec("reno", ack_loss=True)}, {"cc": wlan.cc_spec("reno")}]}
    ab.edit(doc)
    assert doc["flows"][0]["cc"]["ack_loss_reaction"] == {
        "thresh_ack_losses": 1,
        "pause_through_recovery": False,
    }
    assert doc["flows"][1]["cc"] == wlan.cc_spec("reno")
    assert ab.addresses("(d) ACK-loss reaction") and not ab.addresses("(b) PIFS")
    full = Scenario(wlan.wlan_scenario(1, 1, wlan.cc_spec("reno", ack_loss=True), 1.0).doc).doc
    ab.edit(full)
    Scenario(full).validate()
    assert cause(ab.cause).title


def test_a_range_claim_decides_by_whole_intervals():
    """Inside with every interval holds; one interval wholly outside fails; one across an edge
    (none outside) is undecided; a one-run figure (low = high) decides alone; no figure or a
    NaN one is not evaluated."""

    def verdict(lows, highs, allowed=(0.95, 1.0)):
        return range_claim("t", lows, highs, allowed).verdict

    assert verdict([0.96, 0.97], [0.99, 0.98]) == "holds"
    assert verdict([0.96, 0.90], [0.99, 0.94]) == "unexplained"
    assert verdict([0.96, 0.93], [0.99, 0.97]) == "undecided"
    assert verdict([0.97], [0.97]) == "holds" and verdict([0.94], [0.94]) == "unexplained"
    assert verdict([-0.2], [0.05], (-0.1, 0.1)) == "undecided"
    assert verdict([], []) == "not evaluated" and verdict([float("nan")], [1.0]) == "not evaluated"
    claim = range_claim("t", [0.9], [0.94], (0.95, 1.0), "lowest 0.92")
    assert claim.detail == "lowest 0.92; 1 of 1 outside [0.95, 1]"


def test_a_seeds_claim_asks_whether_most_runs_show_it():
    """Something a paper saw in its one run, checked in each seed, is decided by the sign test:
    with five seeds it holds when all five show it, fails when none does, and is undecided in
    between; one seed decides alone; seeds without data are left out and counted, and none
    with data is not evaluated."""

    def verdict(*seeds):
        return seeds_claim("t", list(seeds)).verdict

    assert verdict(*[True] * 5) == "holds" and verdict(*[False] * 5) == "unexplained"
    assert verdict(True, True, True, True, False) == "undecided"
    assert verdict(True, False, False, False, False) == "undecided"
    assert verdict(True, True, True) == "undecided", "three of three: p = 1/8, not below 0.05"
    assert verdict(True) == "holds" and verdict(False) == "unexplained", "one seed decides alone"
    assert verdict(*[True] * 5, None, float("nan")) == "holds", "seeds without data are left out"
    assert verdict() == "not evaluated" and verdict(None) == "not evaluated"
    c = seeds_claim("t", [True, False, None], "x")
    assert c.detail == "in 1 of 2 seeds (1 without data); x" and c.verdict == "undecided"


def test_phase_ablation_randomises_only_the_senders_and_breaks_the_phase_lock():
    """One packet time at the bottleneck (0.832 ms for 1000 + 40 bytes at 10 Mb/s) on each sender's
    link, on dumbbells (per pair) and stars (the shared access, all senders'); two Reno flows
    of 40 and 50 ms, locked in phase without it, share the link about as their RTTs say."""
    import copy

    from tcplab import run
    from tcplab.experiments.ablation import phase_ablation
    from tcplab.experiments.code_tcp.fig10_13 import RTT_BOTTLENECK_DELAY, rtt_access
    from tcplab.experiments.code_tcp.paper import code_scenario
    from tcplab.experiments.hasegawa import paper as hasegawa
    from tcplab.scenario import Scenario

    ab = phase_ablation()
    assert cause(ab.cause).title and not ab.claims
    ratios = {False: [], True: []}
    for seed in (1, 2):
        base = code_scenario(
            ["reno", "reno"],
            bottleneck_delay=RTT_BOTTLENECK_DELAY,
            pair_access=[rtt_access(50), rtt_access(40)],
            seed=seed,
            duration=100.0,
        )
        doc = copy.deepcopy(base.doc)
        ab.edit(doc)
        pairs = doc["topology"]["pair_access"]
        assert [p["jitter"] for p in pairs] == [{"kind": "uniform", "max": pytest.approx(8.32e-4)}] * 2
        assert "jitter" not in doc["topology"]["access"], "the receivers' links keep still"
        for randomised, sc in ((False, base), (True, Scenario(doc))):
            g = run(sc).flows["goodput_bps"].to_numpy()
            assert g.min() > 0
            ratios[randomised].append(g[1] / g[0])
    assert min(ratios[False]) > 2.5, f"phase-locked: the 40 ms flow takes most ({ratios[False]})"
    assert all(0.67 < r < 1.5 for r in ratios[True]), ratios[True]

    star = copy.deepcopy(hasegawa.hasegawa_scenario(1, 1, 50, duration=1.0, measure=(0.0, 1.0)).doc)
    ab.edit(star)
    assert star["topology"]["access"]["jitter"]["max"] == pytest.approx(8320 / hasegawa.BOTTLENECK_BPS)
    Scenario(star).validate()
    with pytest.raises(ValueError, match="dumbbell, chain or star"):
        ab.edit({"topology": {"kind": "wlan"}})


def test_an_ablation_under_which_a_holding_claim_fails_is_listed_with_it():
    ab = Ablation("x", "phase-effects", "the option", lambda d: None)
    base = _outcome(Claim("holds, breaks", True), Claim("holds, stays", True))
    under = _outcome(Claim("holds, breaks", False, "0.4 at 20"), Claim("holds, stays", True))
    explain(base, [(ab, 2, under)])
    assert base.claims[0].tried == ["the option: fails (0.4 at 20)"] and base.claims[0].verdict == "holds"
    assert base.claims[1].tried == []
    quick = Ablation("q", "phase-effects", "the quick option", lambda d: None, quick=True)
    base = _outcome(Claim("holds", True))
    control = _outcome(Claim("holds", False))
    explain(base, [(quick, 2, _outcome(Claim("holds", False)))], control)
    assert base.claims[0].tried == [], "the quick size's defaults fail it too: nothing to say"
