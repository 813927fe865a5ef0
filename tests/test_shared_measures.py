"""What every experiment shares: the measurements on the Result (flows by algorithm, bytes
delivered, goodput per time bin, logged events per time bin) and the panel grid."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tcplab
from tcplab.experiments.common import panel_figure, panels


@pytest.fixture(scope="module")
def res():
    sc = tcplab.Scenario.dumbbell(
        pairs=3, bottleneck=tcplab.link("10Mbps", "20ms", buffer=20), duration=10, sample_interval=0.5
    )
    sc.doc["simulation"]["event_log"] = True
    sc.add_flow("s0", "d0", cc="reno").add_flow("s1", "d1", cc="vegas").add_flow("s2", "d2", cc="reno")
    return tcplab.run(sc)


def test_flows_by_algorithm(res):
    assert res.flow_ids("reno") == [0, 2]
    assert res.flow_ids("vegas", "reno") == [0, 1, 2]
    assert res.flow_ids("cubic") == []
    reno = res.flows.loc[res.flows["cc"] == "reno", "goodput_bps"]
    assert res.goodput_bps("reno") == pytest.approx(reno.mean())
    assert math.isnan(res.goodput_bps("cubic"))


def test_delivered_starts_at_the_origin_and_ends_with_the_flows_bytes(res):
    t, b = res.delivered(1)
    assert (t[0], b[0]) == (0.0, 0.0)
    assert np.all(np.diff(t) > 0) and np.all(np.diff(b) >= 0)
    assert b[-1] == res.flows.loc[1, "bytes_delivered"]
    assert res.delivered_at(1, t[-1]) == b[-1]
    assert res.delivered_at(1, 0.25) == pytest.approx((b[0] + b[1]) / 2)


def test_throughput_bins_add_up_to_the_bytes_delivered(res):
    ends, bps = res.throughput_bins(0, 2.0)
    assert list(ends) == [2.0, 4.0, 6.0, 8.0, 10.0]
    assert bps.sum() * 2.0 / 8 == pytest.approx(res.flows.loc[0, "bytes_delivered"])
    later, later_bps = res.throughput_bins(0, 2.0, start=4.0)
    assert list(later) == [6.0, 8.0, 10.0]
    assert list(later_bps) == list(bps[2:])


def test_events_per_bin_counts_the_matching_events(res):
    ev = res.events
    starts, sent = res.events_per_bin(1.0, [2], event="send", kind="data")
    assert list(starts) == [float(i) for i in range(10)]
    assert sent.sum() == ((ev["event"] == "send") & (ev["kind"] == "data") & (ev["flow"] == 2)).sum()
    _, every_send = res.events_per_bin(1.0, event="send")
    assert every_send.sum() == (ev["event"] == "send").sum() > sent.sum()


def test_events_per_bin_is_zero_without_an_event_log(small_dumbbell):
    starts, counts = tcplab.run(small_dumbbell).events_per_bin(2.5, event="drop")
    assert list(starts) == [0.0, 2.5, 5.0, 7.5]
    assert not counts.any()


def test_panels_hide_the_cells_a_grid_has_left_over():
    fig, axes = panels(5, 2, (3.0, 2.0), sharex=True)
    assert axes.shape == (3, 2)
    assert [ax.get_visible() for ax in axes.flat] == [True] * 5 + [False]
    assert tuple(fig.get_size_inches()) == (6.0, 6.0)


def test_panel_figure_draws_and_labels_one_panel_per_item():
    fig = panel_figure([1, 2, 3], lambda ax, k: ax.plot([0, k], label=f"k={k}"), "x", "y", ["a", "b", "c"])
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in shown] == ["a", "b", "c"]
    assert all(ax.get_xlabel() == "x" and ax.get_legend() is not None for ax in shown)
