"""tcplab's own BBR experiments (issue 18): what their analyses compute from synthetic runs, and
quick runs through the store."""

from __future__ import annotations

import pytest

from tcplab.analysis import ware_bbr_share
from tcplab.executors import SerialExecutor
from tcplab.experiments import bbr_cubic as bc
from tcplab.experiments import bbr_cubic_kernel as bk
from tcplab.experiments import bbr_vegas as bv
from tcplab.experiments import bbr_wlan as bw
from tcplab.experiments import resolve
from tcplab.experiments.bbr_stack import LINUX_UNDER_BBR, with_bbr_stack
from tcplab.store import ResultStore
from tcplab.sweep import analyze, execute_plan, plan

BEYOND = ["beyond/bbr-vs-cubic", "beyond/bbr-vs-cubic-kernel", "beyond/bbr-vegas", "beyond/bbr-wlan"]


def test_the_beyond_group_names_its_experiments():
    assert [e.name for e in resolve(["beyond"])] == BEYOND
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


# -- beyond/bbr-vs-cubic-kernel ---------------------------------------------------------------


def _sides(kernel, sim, buffers=bk.BUFFERS_BDP, seeds=(1, 2)):
    """Synthetic share rows: ``kernel(bdp)`` and ``sim(bdp)`` for every seed."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "buffer_bdp": b,
                "seed": s,
                "backend": side,
                "bbr_share": f(b),
                "total_mbps": 9.5,
                "bbr_mean_rtt_ms": 60.0,
            }
            for b in buffers
            for s in seeds
            for side, f in (("kernel", kernel), ("sim", sim))
        ]
    )


def test_kernel_and_tcplab_missing_the_model_alike_put_the_gap_on_the_model():
    points = bk.point_table(_sides(lambda b: _model(b) - 0.2, lambda b: _model(b) - 0.17))
    assert points["kernel_minus_model"].tolist() == pytest.approx([-0.2] * 3)
    assert [c.verdict for c in (bk.agreement_claim(points), bk.model_gap_claim(points))] == ["holds"] * 2
    c = bk.kernel_model_claim(points)
    assert c.verdict == "unexplained" and "median 0.200 over 3 buffers" in c.detail


def test_tcplab_off_the_kernel_fails_agreement_and_the_gap_claim_where_it_is():
    points = bk.point_table(_sides(lambda b: _model(b), lambda b: _model(b) - (0.1 if b == 4 else 0.0)))
    agreement, gap = bk.agreement_claim(points), bk.model_gap_claim(points)
    assert agreement.verdict == gap.verdict == "unexplained"
    assert "4 BDP: kernel" in agreement.detail
    assert bk.kernel_model_claim(points).verdict == "holds"


def test_without_kernel_runs_nothing_is_compared():
    rows = _sides(lambda b: 0.5, lambda b: 0.5)
    points = bk.point_table(rows[rows["backend"] == "sim"])
    verdicts = [
        c.verdict
        for c in (bk.agreement_claim(points), bk.model_gap_claim(points), bk.kernel_model_claim(points))
    ]
    assert verdicts == ["not evaluated"] * 3
    # Kernel runs that carried nothing (no goodput: no share) are no data either.
    empty = rows.assign(bbr_share=rows["bbr_share"].where(rows["backend"] == "sim"))
    assert bk.kernel_model_claim(bk.point_table(empty)).verdict == "not evaluated"


def test_kernel_experiment_pairs_every_simulated_run_with_a_native_kernel_run():
    runs = bk.BbrVsCubicKernel().runs(quick=False)
    assert len(runs) == 2 * len(bk.BUFFERS_BDP) * len(bk.SEEDS)
    for sim, kernel in zip(runs[::2], runs[1::2], strict=True):
        assert (sim.backend, kernel.backend) == ("sim", "kernel-native")
        assert sim.params | {"backend": "kernel"} == kernel.params
        flows = sim.scenario.doc["flows"]
        assert [f["cc"] for f in flows] == ["bbr", {"name": "cubic", "hystart": True, "variant": "linux"}]
        assert all(f["start"] == 0.0 for f in flows)
        # The bed runs the kernel's own cubic: its document names the module and nothing else.
        assert [f["cc"] for f in kernel.scenario.doc["flows"]] == ["bbr", "cubic"]
        assert kernel.scenario.doc["tcp"]["stack"] == "linux"


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
    exps = [e for e in resolve(["beyond"]) if not e.on_kernel]  # the bed is tested on its own
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


# -- BBR's TCP beside the papers' algorithms --------------------------------------------------


def test_bbr_flows_alone_get_linux_recovery_on_the_setups_segments():
    from tcplab.experiments.code_tcp import code_scenario

    sc = with_bbr_stack(code_scenario(["bbr", "vegas"], duration=10.0))
    bbr, vegas = sc.doc["flows"]
    assert bbr["tcp"] == LINUX_UNDER_BBR and "tcp" not in vegas
    assert LINUX_UNDER_BBR["mss"] == 1000 and LINUX_UNDER_BBR["delayed_ack"] is False
    assert "tcp" not in with_bbr_stack(code_scenario(["bbr"], duration=10.0), "ns2").doc["flows"][0]
    with pytest.raises(ValueError, match="stack must be one of linux, ns2, got 'bsd'"):
        with_bbr_stack(sc, "bsd")


# -- beyond/bbr-vegas ----------------------------------------------------------------------------


def _dumbbell_runs(share, queue=lambda peer, b: 20.0, reps=(0, 1)):
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "peer": peer,
                "buffer": b,
                "rep": r,
                "bbr_stack": "linux",
                "bbr_share": share(peer, b),
                "bbr_mbps": 9.6 * share(peer, b),
                "peer_mbps": 9.6 * (1 - share(peer, b)),
                "queue_packets": queue(peer, b),
                "bbr_srtt_ms": 60.0,
                "peer_srtt_ms": 60.0,
                "bbr_timeouts": 0,
                "utilisation": 0.98,
                "peer_loss_responses": 10 if peer == "code" else 30,
                "peer_diff": 32.0 if peer in ("vegas", "code") else float("nan"),
                "peer_beta": 33.5 if peer in ("vegas", "code") else float("nan"),
            }
            for peer in bv.PEERS
            for b in bv.BUFFERS
            for r in reps
        ]
    )


def test_dumbbell_points_give_shares_in_bdps_beside_the_queue():
    points = bv.point_table(_dumbbell_runs(lambda p, b: 0.9 if p == "vegas" else 0.5))
    assert len(points) == len(bv.PEERS) * len(bv.BUFFERS)
    row = points[(points["peer"] == "vegas") & (points["buffer"] == 100)].iloc[0]
    assert row["bbr_share"] == pytest.approx(0.9) and row["ci95"] == pytest.approx(0.0)
    assert pytest.approx(10e6 * 0.05 / (8 * 1040)) == bv.BDP_PACKETS
    assert row["queue_bdp"] == pytest.approx(20 / bv.BDP_PACKETS) and row["buffer_bdp"] == pytest.approx(
        100 / 60.1, 1e-3
    )


def test_dumbbell_claims_follow_the_shares():
    shallow = {25, 50}

    def share(peer, b):
        if b in shallow:
            return 0.95
        return {"vegas": 0.92, "code": 0.60, "veno": 0.50, "reno": 0.53}[peer]

    points = bv.point_table(_dumbbell_runs(share))
    assert bv.vegas_yields_claim(points).verdict == "holds"
    code = bv.as_reno_claim(points, "code", "x")
    assert code.verdict == "unexplained"  # 0.60 vs 0.53 at 100 and 200, not in the shallow buffers
    assert "(100 packets) CODE answers 10 losses per run against Reno's 30" in code.detail
    assert (
        "Diff averaging 32.0 packets against its beta 33.5" in code.detail
        and "(50 packets)" not in code.detail
    )
    veno = bv.as_reno_claim(points, "veno", "x")
    assert veno.verdict == "holds" and "100: against Veno 0.50, Reno 0.53" in veno.detail
    assert bv.shallow_claim(points).verdict == "holds"
    deep_queue = bv.point_table(_dumbbell_runs(share, queue=lambda p, b: 70.0 if b == 200 else 20.0))
    assert bv.short_queue_claim(points).verdict == "holds"
    assert bv.short_queue_claim(deep_queue).verdict == "unexplained"


# -- beyond/bbr-wlan -----------------------------------------------------------------------------


def test_wlan_plan_gives_bbr_linux_recovery_and_a_second_reading_in_full_mode_only():
    quick, full = bw.BbrWlan().runs(True), bw.BbrWlan().runs(False)
    for r in quick + full:
        tcp = [f.get("tcp") for f in r.scenario.doc["flows"]]
        wanted = LINUX_UNDER_BBR if r.params["cc"] == "bbr" and r.params["bbr_stack"] == "linux" else None
        assert all(t == wanted for t in tcp), r.params
    assert {r.params["bbr_stack"] for r in quick} == {"linux"}
    second = [r.params for r in full if r.params["bbr_stack"] == "ns2"]
    assert {(p["part"], p["cc"]) for p in second} == {(bw.SIXTEEN, "bbr")} and len(second) == len(bw.SEEDS)
    mixed = [r for r in full if r.params["part"] == bw.MIXED]
    assert len(mixed) == (len(bw.PAPER_CCS) + 1) * len(bw.BUFFERS) * len(bw.SEEDS)
    assert {r.scenario.doc["simulation"]["seed"] for r in mixed} == set(bw.SEEDS)


def _wlan_table(rows):
    import pandas as pd

    return pd.DataFrame(rows)


def test_wlan_claims_on_synthetic_tables():
    mixed = _wlan_table(
        [
            {"cc": "BBR", "ap_buffer": b, "up_mean_mbps": 2.5, "down_mean_mbps": down, "ap_ack_fill": fill}
            for b, down, fill in ((25, 0.001, 0.95), (100, 2.0, 0.5))
        ]
    )
    assert bw.downlinks_claim(mixed).verdict == "unexplained"  # 2.5 / 2.0 < 2 at 100
    assert bw.downlinks_claim(mixed[mixed["ap_buffer"] == 25]).verdict == "holds"
    assert bw.ap_queue_claim(mixed).verdict == "unexplained"
    base = {"min_rtt_s": 0.2, "bw_over_delivery": 1.13, "in_flight_bdps": 1.85}
    two = _wlan_table(
        [
            {"cc": "Reno", "up_srtt_s": 6.0},
            {"cc": "CTCP", "up_srtt_s": 3.0},
            {"cc": "FAST", "up_srtt_s": 0.22},
            {"cc": "Vegas", "up_srtt_s": 0.21},
            {"cc": "BBR", "up_srtt_s": 0.44, **base},
        ]
    )
    assert bw.rtt_order_claim(two).verdict == "holds"
    bound = bw.bbr_queue_bound_claim(two)
    assert (
        bound.verdict == "unexplained" and "2.20x the minimum" in bound.detail and "2.09 BDPs" in bound.detail
    )
    two.loc[two["cc"] == "BBR", "up_srtt_s"] = 0.39
    assert bw.bbr_queue_bound_claim(two).verdict == "holds"
    assert bw.rtt_order_claim(two.iloc[:2]).verdict == "not evaluated"  # no BBR, no delay-based
    sixteen = _wlan_table(
        [
            {"cc": "CTCP", "jain_up": 0.3, "starved_up": 10.0, "ap_ack_drop_share": 0.6, "timeouts": 89.0},
            {"cc": "BBR", "jain_up": 0.6, "starved_up": 3.0, "ap_ack_drop_share": 0.7, "timeouts": 80.0},
        ]
    )
    fair = bw.uplink_fairness_claim(sixteen)
    assert fair.verdict == "unexplained" and "drops 70% of the uplinks' ACKs" in fair.detail


def test_quick_wlan_and_dumbbell_measure_what_their_claims_use(quick_outcomes):
    w = quick_outcomes["beyond/bbr-wlan"]
    mixed, two, sixteen = w.tables.values()
    assert set(mixed["cc"]) == {"Reno", "Vegas", "BBR"} and (mixed["ap_ack_fill"] <= 1).all()
    bbr_two = two[two["cc"] == "BBR"].iloc[0]
    assert bbr_two["up_srtt_s"] >= bbr_two["min_rtt_s"] >= 0.2  # 2 x 100 ms wired link
    assert 0 < bbr_two["frames <= 2 ms"] <= bbr_two["frames <= 10 ms"] <= 1
    assert bbr_two["bw_over_delivery"] > 0.5 and bbr_two["in_flight_bdps"] > 0.5
    assert len(sixteen) == 2 and all(c.passed is not None for c in w.claims)
    v = quick_outcomes["beyond/bbr-vegas"]
    (points,) = v.tables.values()
    assert len(points) == len(bv.PEERS) * len(bv.QUICK_BUFFERS) and (points["runs"] == 2).all()
    assert (points["utilisation"] > 0.9).all() and (points["bbr_timeouts"] == 0).all()
    assert all(c.passed is not None for c in v.claims)
