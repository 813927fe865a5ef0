"""The Vegas-family ports' round trace (testbed/ca_trace.py) read from trace_pipe text."""

from __future__ import annotations

import pytest

from tcplab.testbed import ca_trace

TEXT = """\
        tl_delay-32224   [001] ..s31 13712.967000: bpf_trace_printk: tlround 6301 41076 41001 256 768 2816
          <idle>-0       [000] ..s1. 13713.001000: bpf_trace_printk: something else 1 2 3
        tl_delay-32224   [001] ..s31 13713.190242: bpf_trace_printk: tlround 6302 41139 41103 80 241 1444
        tl_delay-32224   [001] ..s31 13713.231466: bpf_trace_printk: tlround 7000 41173 41173 80 241 1700
        tl_delay-32224   [001] ..s31 13713.300000: bpf_trace_printk: tlloss 6301 3072 2304 174
        tl_delay-32224   [001] ..s31 13713.310000: bpf_trace_printk: tlloss 6301 3072
"""


def test_each_round_becomes_cc_vars_rows_under_the_simulators_names():
    rows = ca_trace.rounds(TEXT, t0=13712.0, first_port=6301, flows=2)
    assert set(rows["name"]) == {
        "round_rtt",
        "round_min_rtt",
        "alpha",
        "beta",
        "loss_cwnd",
        "loss_ssthresh",
        "loss_alpha",
    }
    loss = rows[rows["name"].str.startswith("loss_")].set_index("name")["value"]
    assert (loss["loss_cwnd"], loss["loss_ssthresh"]) == (12.0, 9.0) and loss["loss_alpha"] == pytest.approx(
        174 / 256
    )
    assert len(loss) == 3, "a line with fields missing is left out"
    first = rows[rows["flow"] == 0].set_index("name")["value"]
    assert first["round_rtt"] == pytest.approx(0.041076) and first["round_min_rtt"] == pytest.approx(0.041001)
    assert (first["alpha"], first["beta"]) == (1.0, 3.0), "1/256ths"
    assert rows[rows["flow"] == 0]["time"].iloc[0] == pytest.approx(0.967)
    second = rows[rows["flow"] == 1].set_index("name")["value"]
    assert second["alpha"] == pytest.approx(80 / 256)
    assert set(rows["flow"]) == {0, 1}, "another socket's port (7000) and other programs' lines are left out"


def test_no_trace_gives_no_rows():
    assert ca_trace.rounds("", t0=0.0, first_port=6301, flows=1).empty


def test_a_trace_buffer_that_cannot_be_used_is_a_clear_error(tmp_path, monkeypatch):
    not_a_directory = tmp_path / "tracing"
    not_a_directory.write_text("")
    monkeypatch.setattr(ca_trace, "TRACEFS", not_a_directory)
    with pytest.raises(RuntimeError, match="cannot be used.*CONFIG_TRACING"):
        ca_trace.start(tmp_path / "out.txt")
