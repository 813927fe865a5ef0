"""The Python API: scenarios in, DataFrames out."""

from __future__ import annotations

import pandas as pd
import pytest

import tcplab


def test_run_returns_dataframes(small_dumbbell):
    res = tcplab.run(small_dumbbell, seed=4)
    assert isinstance(res.flows, pd.DataFrame)
    assert list(res.flows["cc"]) == ["reno", "newreno"]
    assert (res.flows["goodput_bps"] > 1e6).all()
    assert res.flows["goodput_bps"].sum() < 10e6
    # Series: one row per flow per 0.1 s sample from 0 to 10 s.
    assert len(res.series) == 2 * 101
    assert set(res.queues["link_name"]) >= {"r0->r1"}
    assert 0.0 < res.jain_index() <= 1.0
    assert res.meta["seed"] == 4


def test_same_seed_same_records_and_other_seed_differs(small_dumbbell):
    a = tcplab.run(small_dumbbell, seed=9)
    b = tcplab.run(small_dumbbell, seed=9)
    c = tcplab.run(small_dumbbell, seed=10)
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.series, b.series)
    assert not a.flows["start"].equals(c.flows["start"])


def test_scenario_round_trips_through_toml(small_dumbbell, tmp_path):
    path = tmp_path / "s.toml"
    small_dumbbell.save(path)
    again = tcplab.Scenario.load(path)
    assert again.doc == small_dumbbell.doc
    canonical = again.validate()
    assert "[[flows]]" in canonical and "seed" in canonical


def test_invalid_scenario_names_the_field(small_dumbbell):
    small_dumbbell.doc["flows"][1]["start"] = -3
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(small_dumbbell)
    assert e.value.field == "flows[1].start"
    assert "-3" in e.value.message


def test_new_receiver_and_queue_settings_are_checked_by_name(small_dumbbell):
    """Engine 0.3.10's settings: the receive memory per segment and the round-robin access queue
    take only what they document, and the error names the field, the value and what is allowed."""
    small_dumbbell.doc.setdefault("tcp", {})["rcv_truesize"] = 10
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(small_dumbbell)
    assert e.value.field == "tcp.rcv_truesize" and "64 to 1048576" in e.value.message
    small_dumbbell.doc["tcp"]["rcv_truesize"] = 2280
    small_dumbbell.doc["topology"].setdefault("access", {"rate": "100Mbps", "delay": "1ms"})
    small_dumbbell.doc["topology"]["access"]["queue"] = {"kind": "round_robin", "quantum": 2}
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(small_dumbbell)
    assert e.value.field == "topology.access.queue.quantum"
    small_dumbbell.doc["topology"]["access"]["queue"] = {"kind": "round_robin"}
    assert tcplab.run(small_dumbbell).flows["goodput_bps"].gt(0).all()


def test_parquet_tables_are_readable(small_dumbbell, tmp_path):
    res = tcplab.run(small_dumbbell)
    written = res.to_parquet(tmp_path)
    assert {p.name for p in written} >= {"flows.parquet", "series.parquet", "links.parquet"}
    back = pd.read_parquet(tmp_path / "flows.parquet")
    pd.testing.assert_frame_equal(back, res.flows)


def test_losses_carry_the_true_cause():
    sc = tcplab.Scenario.dumbbell(
        pairs=1,
        bottleneck=tcplab.link("2Mbps", "30ms", buffer=10, loss={"model": "bernoulli", "p": 0.01}),
        duration=30,
    ).add_flow("s0", "d0", cc="newreno")
    res = tcplab.run(sc, seed=2)
    causes = set(res.losses["true_cause"])
    assert {"random_loss", "buffer_overflow"} <= causes
    assert len(res.losses) == int(res.flows["fast_retransmits"].sum() + res.flows["timeouts"].sum())


def test_file_transfer_records_completion_time():
    sc = tcplab.Scenario.dumbbell(pairs=1, bottleneck=tcplab.link("10Mbps", "10ms"), duration=20)
    sc.add_flow("s0", "d0", cc="reno", bytes=1_000_000, start=1.0)
    res = tcplab.run(sc)
    f = res.flows.iloc[0]
    assert f["bytes_delivered"] == 1_000_000
    # 1 MB at 10 Mb/s takes at least 0.8 s; slow start adds a few RTTs.
    assert 0.8 < f["completion_time"] < 3.0


def test_event_log_lists_sends_and_receipts():
    sc = tcplab.Scenario.dumbbell(
        pairs=1, bottleneck=tcplab.link("10Mbps", "10ms"), duration=2, event_log=True
    )
    sc.add_flow("s0", "d0", cc="reno", bytes=20_000)
    res = tcplab.run(sc)
    ev = res.events
    sent = ev[(ev["event"] == "send") & (ev["kind"] == "data")]
    got = ev[(ev["event"] == "recv") & (ev["kind"] == "data")]
    assert len(sent) == len(got) == 20


def test_algorithms_lists_reno_family():
    assert {"reno", "newreno", "tahoe"} <= set(tcplab.algorithms())


def test_link_jitter_spreads_rtts_and_bad_jitter_names_the_field():
    def rtt_spread(jitter):
        sc = tcplab.Scenario.dumbbell(
            pairs=1,
            bottleneck=tcplab.link("10Mbps", "20ms", buffer=50, jitter=jitter),
            duration=10,
            sample_interval=0,
        )
        sc.add_flow("s0", "d0", cc="reno", tcp={"rwnd": 4})
        flow = tcplab.run(sc).flows.iloc[0]
        return flow["mean_rtt"] - flow["min_rtt"]

    assert "jitter" not in tcplab.link("10Mbps", "20ms")
    assert "uniform" in tcplab.capabilities()["jitter"]
    assert rtt_spread(None) < 1e-5
    assert 0.8e-3 < rtt_spread({"kind": "uniform", "max": "2ms"}) < 1.2e-3
    with pytest.raises(tcplab.ScenarioError) as e:
        rtt_spread({"kind": "exponential", "mean": 0, "max": "1ms"})
    assert e.value.field == "topology.bottleneck.jitter.mean"
    assert "positive" in e.value.message
