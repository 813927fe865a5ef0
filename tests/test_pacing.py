"""Pacing, delivery-rate estimation and BBR as the Python API shows them (issue 18)."""

from __future__ import annotations

import tcplab


def _run(pacing: bool) -> tcplab.Result:
    sc = tcplab.Scenario.dumbbell(
        pairs=3, bottleneck=tcplab.link("10Mbps", "18ms", buffer=33), duration=4, sample_interval=0.1
    )
    sc.set_tcp(stack="linux")
    sc.add_flow("s0", "d0", cc="bbr")
    sc.add_flow("s1", "d1", cc="cubic", tcp={"pacing": pacing})
    sc.add_flow("s2", "d2", cc="cubic")
    return tcplab.run(sc, seed=2)


def test_paced_flows_show_delivery_and_pacing_rates_in_cc_vars():
    res = _run(pacing=True)
    names = res.cc_vars.groupby("flow")["name"].agg(set)
    # BBR: its own variables beside the rates (bytes of payload per second).
    assert {"mode", "bw", "min_rtt", "pacing_gain", "delivery_rate", "pacing_rate"} <= names[0]
    # CUBIC with `pacing = true`: the rates; CUBIC unpaced: neither.
    assert {"delivery_rate", "pacing_rate"} <= names[1]
    assert not {"delivery_rate", "pacing_rate"} & names.get(2, set())
    late = res.cc_vars[(res.cc_vars["time"] >= 2) & (res.cc_vars["name"] == "delivery_rate")]
    payload_rate = 10e6 / 8 * 1448 / 1500
    assert (late["value"] > 0).all()
    assert late["value"].max() <= payload_rate * 1.05


def test_bbr_is_listed_and_names_its_mode():
    assert "bbr" in tcplab.algorithms()
    res = _run(pacing=False)
    modes = res.cc_vars[(res.cc_vars["flow"] == 0) & (res.cc_vars["name"] == "mode")]["value"]
    assert modes.iloc[0] == 0  # STARTUP
    assert set(modes) <= {0, 1, 2, 3}
    assert (modes == 2).any()  # PROBE_BW within 4 s
