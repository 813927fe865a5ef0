"""linux/conformance without a kernel: the matrix, the documents of both back ends, the
normalisation of the figures and the tolerance checks (tests/test_kernel.py runs it live)."""

from __future__ import annotations

import ctypes
import json
import struct
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tcplab.errors import ScenarioError
from tcplab.experiments import resolve
from tcplab.experiments.linux import DEFAULT_MODEL, LinuxConformance, verdict_grid
from tcplab.result import TABLES, Result
from tcplab.testbed import conformance as cf
from tcplab.testbed import equivalence as eq
from tcplab.testbed import plan
from tcplab.testbed.compare import with_kernel_only
from tcplab.testbed.runner import bbr_mode, limited_seconds, read_samples, tcp_cc_vars, tcp_series
from tcplab.testbed.sampler import TCP_FIELDS, parse_bbr_info, parse_tcp_info


def test_matrix_is_a_base_point_and_one_at_a_time_variations():
    points = cf.matrix()
    base = points[0]
    assert (base.rate_mbps, base.rtt_ms, base.buffer_bdp, base.loss, base.flows) == (10, 40, 1, 0, 1)
    assert base.buffer_packets == 47, "10 Mb/s x 40 ms / 1066-byte frames"
    for p in points[1:]:
        changed = [
            k
            for k in ("rtt_ms", "buffer_bdp", "loss", "flows", "stagger")
            if getattr(p, k) != getattr(base, k)
        ]
        assert 1 <= len(changed) <= 2 and (len(changed) == 1 or changed == ["flows", "stagger"]), p
    assert {p.buffer_bdp for p in points} == {0.5, 1, 2}
    assert {p.loss for p in points} == {0, 0.005, 0.01, 0.02}
    assert {p.rtt_ms for p in points} == {20, 40, 100}
    assert {(p.flows, p.stagger > 0) for p in points} >= {(2, False), (2, True)}
    entries = cf.entries()
    everyone = [p for p in points if p.only is None]
    assert len(everyone) == 9, "the matrix of issue 15: every algorithm runs it"
    assert len(entries) == 9 * len(cf.ALGORITHMS) + 7 * len(cf.PAIRS) + 2, "pairs on one-flow points"
    # Issue 18 names loss 1 % for BBR: BBR alone and against CUBIC, nobody else.
    assert [a for p, a in entries if p.loss == 0.01] == ["bbr", "bbr+cubic"]
    assert all(p.flows == 1 for p, a in entries if a in cf.PAIRS)
    seconds = sum((p.duration + 4) * cf.repeats(False, p.name, a) for p, a in entries)
    assert seconds <= 4.4 * 3600, "the full matrix: about 4 hours of bed time (docs/kernel.md)"
    # The second stage: ten runs for the entries five left undecided, five for the others;
    # the third: twenty for the held algorithms' entries that ten left undecided.
    names = {(p.name, a) for p, a in entries}
    assert names >= cf.SECOND_STAGE, "every second-stage entry is an entry of the matrix"
    assert cf.THIRD_STAGE <= cf.SECOND_STAGE, "a third stage follows a second"
    assert all(a in cf.STRICT for _, a in cf.THIRD_STAGE), "only the algorithms held to the tolerances"
    assert {cf.repeats(False, p.name, a) for p, a in entries} == {5, 10, 20}
    assert all(cf.repeats(True, p.name, a) == 2 for p, a in cf.entries(quick=True))
    quick = sum(p.duration + 4 for p, _ in cf.entries(quick=True)) * cf.repeats(quick=True)
    assert quick <= 13 * 60 and cf.repeats(quick=True) >= 2, "quick: a few minutes, still two runs a side"


def test_documents_carry_the_stack_and_jitter_only_when_asked():
    base = cf.matrix()[0]
    linux_sc = cf.scenario(base, "code")
    linux = linux_sc.doc
    assert linux["tcp"]["stack"] == "linux"
    bottleneck = linux["topology"]["bottleneck"]
    assert bottleneck["jitter"] == cf.BED_JITTER["forward"]
    assert bottleneck["reverse"]["jitter"] == cf.BED_JITTER["reverse"]
    assert cf.scenario(base, "reno").doc["topology"]["bottleneck"]["jitter"]["kind"] == "empirical"
    assert "jitter" not in cf.scenario(base, "reno", jitter=None).doc["topology"]["bottleneck"]
    # The bed has its own jitter: its document carries none, and no empty reverse table.
    assert "reverse" not in cf.kernel_scenario(linux_sc).doc["topology"]["bottleneck"]
    bare = cf.scenario(base, "code", sim_stack=None)
    assert "stack" not in bare.doc["tcp"] and "jitter" not in bare.doc["topology"]["bottleneck"]
    bare.validate()  # today's engine takes it
    # The bed takes the linux document (stack accepted, jitter stripped) with the kernel's own cubic.
    p = plan(cf.kernel_scenario(cf.scenario(base, "cubic")), native=True)
    assert p.stack == "linux" and p.mtu == 1000 + 52 and p.flows[0].kernel_cc == "cubic"
    assert plan(cf.kernel_scenario(linux_sc), native=True).flows[0].kernel_cc == "tl_code"
    with pytest.raises(ScenarioError, match="bottleneck.(jitter|reverse)"):
        plan(linux)  # the bed refuses a jitter it cannot add
    assert "jitter" in linux["topology"]["bottleneck"], "kernel_scenario must not edit the original"


def test_the_beds_token_bucket_is_part_of_the_conformance_model():
    base = cf.matrix()[0]
    assert "burst" not in cf.scenario(base, "reno").doc["topology"]["bottleneck"], "an option"
    sc = cf.scenario(base, "reno", burst=cf.BED_BURST)
    assert sc.doc["topology"]["bottleneck"]["burst"] == cf.BED_BURST == "3ms"
    sc.validate()
    assert "burst" not in cf.scenario(base, "reno", sim_stack=None, burst="3ms").doc["topology"]["bottleneck"]
    assert LinuxConformance().scenario(base, "reno").doc["topology"]["bottleneck"]["burst"] == "3ms"
    assert "burst" not in LinuxConformance(burst=None).scenario(base, "reno").doc["topology"]["bottleneck"]
    # The kernel's document leaves it out (the bed's own bucket is what it models); the bed
    # accepts its own value and no other.
    kernel = cf.kernel_scenario(sc)
    assert "burst" not in kernel.doc["topology"]["bottleneck"]
    kernel.doc["topology"]["bottleneck"]["burst"] = "3ms"
    plan(kernel)
    kernel.doc["topology"]["bottleneck"]["burst"] = "1ms"
    with pytest.raises(ScenarioError, match="bottleneck.burst.*'3ms'"):
        plan(kernel)


def test_the_receivers_reads_and_ack_latency_are_modelled_and_the_bed_leaves_them_to_its_host():
    base = cf.matrix()[0]
    assert "ack_latency" not in cf.scenario(base, "bbr").doc["tcp"], "an option"
    assert "app_read" not in cf.scenario(base, "bbr").doc["tcp"], "an option"
    assert "ack_latency" not in LinuxConformance(ack_latency=None).scenario(base, "bbr").doc["tcp"]
    assert "app_read" not in LinuxConformance(app_read=None).scenario(base, "bbr").doc["tcp"]
    sc = LinuxConformance().scenario(base, "bbr")
    data = Path(cf.__file__).with_name("data")
    receiver = json.loads((data / "bed_receiver.json").read_text())
    assert sc.doc["tcp"]["ack_latency"] == cf.BED_ACK_LATENCY
    assert sc.doc["tcp"]["app_read"] == cf.BED_APP_READ
    assert {"kind": "empirical", "quantiles": receiver["ack_latency"]} == cf.BED_ACK_LATENCY
    assert {"kind": "empirical", "quantiles": receiver["app_read"]} == cf.BED_APP_READ
    jitter = json.loads((data / "bed_jitter.json").read_text())
    assert {"kind": "empirical", "quantiles": jitter["ack_latency"]} == cf.BED_ARRIVAL_ACK_LATENCY
    sc.validate()
    bare = cf.scenario(base, "bbr", sim_stack=None, ack_latency=75e-6, app_read=60e-6).doc["tcp"]
    assert "ack_latency" not in bare and "app_read" not in bare
    kernel = cf.kernel_scenario(sc)
    assert not {"ack_latency", "app_read"} & set(kernel.doc["tcp"])
    assert sc.doc["tcp"]["app_read"] == cf.BED_APP_READ, "the simulated side keeps them"
    plan(kernel, native=True)
    for key in ("ack_latency", "app_read"):
        k = cf.kernel_scenario(sc)
        k.doc["tcp"][key] = 75e-6
        with pytest.raises(ScenarioError, match=f"tcp.{key}"):
            plan(k, native=True)  # the bed cannot set its host's receive path


def test_the_measured_reads_are_slower_than_the_kernel_and_most_of_renos_acks_wait_for_them():
    """data/bed_receiver.json: the application reads tens of microseconds after data becomes
    readable, its kernel sends an ACK within microseconds of the event it answers, and the
    loss-based flows' ACKs followed a read (the window test failed) where the small-queue
    flows' mostly left on arrival."""
    receiver = json.loads((Path(cf.__file__).with_name("data") / "bed_receiver.json").read_text())
    read, kernel = np.array(receiver["app_read"]), np.array(receiver["ack_latency"])
    medians = (np.median(read), np.median(kernel))
    assert 30e-6 < medians[0] < 120e-6 and medians[1] < 15e-6, medians
    runs = {r["run"].split(",")[0]: r["acks"] for r in receiver["runs"]}
    for run in ("reno on base", "cubic on base", "reno on loss 0.5%"):
        acks = runs[run]
        assert acks["after a read"] > 0.75 * sum(acks.values()), (run, acks)
    assert runs["vegas on base"]["on arrival"] > 0.75 * sum(runs["vegas on base"].values())


def test_the_ack_latency_batches_segments_that_arrive_together():
    """At a random-loss point the link idles, the bed's bucket lets a few frames through back
    to back, and the latency gives each such group one ACK (on the bed, groups of two to four:
    docs/kernel.md, "The receiver's ACK latency"). Segments that arrive a transmission time
    apart (0.85 ms at 10 Mb/s) are not batched."""
    from tcplab.runner import run

    point = replace([p for p in cf.matrix() if p.name == "loss 0.5%"][0], duration=20.0)
    latencies = (None, 75e-6)
    runs = [run(cf.scenario(point, "reno", burst=cf.BED_BURST, ack_latency=a)) for a in latencies]
    segments_per_ack = [r.flows["segments_sent"].sum() / r.flows["acks_sent"].sum() for r in runs]
    assert segments_per_ack[1] > segments_per_ack[0] + 0.3, segments_per_ack  # 1.70 -> 2.27
    base = replace(cf.matrix()[0], duration=10.0)
    spaced = [run(cf.scenario(base, "reno", ack_latency=a)) for a in latencies]
    per_ack = [r.flows["segments_sent"].sum() / r.flows["acks_sent"].sum() for r in spaced]
    assert abs(per_ack[1] - per_ack[0]) < 0.05, per_ack


def test_late_reads_merge_the_acks_of_the_bursts_the_bucket_lets_through():
    """At a random-loss point the bed's receiver answers a burst that arrives before its
    application reads with one ACK (data/bed_receiver.json: Reno at 0.5 %, seed 1, 2.36 data
    segments per ACK in the measured window). Engine 0.3.8's receiver, which reads at once and
    draws each ACK's latency, split such bursts (2.16); the modelled reads merge them, while
    segments a transmission time apart still get one ACK per pair."""
    from tcplab.runner import run

    point = replace([p for p in cf.matrix() if p.name == "loss 0.5%"][0], duration=20.0)
    models = ({"app_read": cf.BED_APP_READ}, {"ack_latency": cf.BED_ARRIVAL_ACK_LATENCY})

    def per_ack(p, model):
        settings = {"ack_latency": cf.BED_ACK_LATENCY, **model}
        r = run(cf.scenario(p, "reno", burst=cf.BED_BURST, **settings))
        return r.flows["segments_sent"].sum() / r.flows["acks_sent"].sum()

    reads, at_once = (per_ack(point, m) for m in models)
    assert reads > at_once + 0.15, (reads, at_once)
    base = replace(cf.matrix()[0], duration=10.0)
    spaced = [per_ack(base, m) for m in models]
    assert abs(spaced[0] - spaced[1]) < 0.05, spaced


def test_sack_compression_keeps_cubic_to_one_reduction_per_loss_episode():
    """The bed's receiver holds the SACKs after the third for a hole about 1.1 ms (Linux's
    SACK compression: measured 216-306 us after the latest segment, docs/kernel.md). Without
    it the simulated receiver answered every out-of-order segment at once, and at the base
    point with the bed's ACK latency the simulated CUBIC lost a second segment one RTT into
    its recoveries and reduced twice (96 -> 67 -> 46); the kernel's runs reduce once. With it,
    neither a fixed nor the measured latency does."""
    from tcplab.runner import run

    point = cf.matrix()[0]

    def double_reductions(latency, compress: bool) -> int:
        sc = cf.scenario(point, "cubic", burst=cf.BED_BURST, ack_latency=latency, sack_compress=compress)
        r = run(sc)
        t = r.losses[r.losses["time"] > 1.5]["time"].to_numpy()
        assert len(t) >= 4, "loss episodes to judge (none would make 0 doubles vacuous)"
        return int((np.diff(t) < 0.2).sum())

    assert double_reductions(75e-6, compress=False) >= 2, "the fault this test guards against"
    assert double_reductions(75e-6, compress=True) == 0
    assert double_reductions(cf.BED_ACK_LATENCY, compress=True) == 0


def test_experiment_default_stack_and_explicit_none():
    assert LinuxConformance().sim_stack == "linux"
    runs = LinuxConformance(sim_stack=None).runs(quick=True)
    assert runs and all("stack" not in r.scenario.doc["tcp"] for r in runs if r.backend == "sim")
    assert all(r.scenario.doc["tcp"]["stack"] == "linux" for r in runs if r.backend != "sim"), (
        "the bed is linux"
    )
    assert {r.params["algorithm"] for r in runs} == {*cf.ALGORITHMS, *cf.PAIRS}
    sides = {(r.params["backend"], r.backend) for r in runs}
    assert sides == {("sim", "sim"), ("kernel", "kernel-native")}, "kernel runs are planned and stored"
    kernel = [r for r in runs if r.backend != "sim"]
    assert all("jitter" not in r.scenario.doc["topology"]["bottleneck"] for r in kernel)
    seeds = {r.scenario.doc["simulation"]["seed"] for r in runs if r.params["algorithm"] == "reno"}
    assert seeds == set(range(1, cf.repeats(quick=True) + 1))


def test_bbr_against_cubic_is_one_flow_each_on_both_sides():
    base = cf.matrix()[0]
    sc = cf.scenario(base, "bbr+cubic")
    flows = sc.doc["flows"]
    assert [f["cc"] if isinstance(f["cc"], str) else f["cc"]["name"] for f in flows] == ["bbr", "cubic"]
    assert flows[1]["cc"] == {"name": "cubic", "hystart": True, "variant": "linux"}
    sc.validate()
    assert [f.kernel_cc for f in plan(cf.kernel_scenario(sc), native=True).flows] == ["bbr", "cubic"]
    # bbr is the kernel's own module even without native (tcplab has no port of it).
    assert plan(cf.kernel_scenario(cf.scenario(base, "bbr"))).flows[0].kernel_cc == "bbr"
    assert cf.tolerances("bbr+cubic") is cf.BBR_TOLERANCES and cf.tolerances("reno") is cf.TOLERANCES


def test_the_flows_share_one_sender_and_receiver_as_on_the_bed_and_take_turns_by_gso_packet():
    """The bed's flows all leave one sender namespace for one receiver: the simulated side
    puts them on one host pair, whose sender takes turns between the flows one GSO packet at a
    time (``BED_HOST_EGRESS``), as the bed's sender does when two flows start together; the
    bed's document keeps a pair per flow and no access queue, so its run keys (and the archive)
    are those of every earlier run."""
    two = next(p for p in cf.matrix() if p.name == "2 flows")
    shared = cf.scenario(two, "vegas")
    assert shared.doc["topology"]["pairs"] == 1
    assert [(f["src"], f["dst"]) for f in shared.doc["flows"]] == [("s0", "d0"), ("s0", "d0")]
    assert shared.doc["topology"]["access"]["queue"] == {"kind": "round_robin"}
    assert "queue" not in cf.scenario(two, "vegas", host_egress=None).doc["topology"]["access"]
    assert "queue" not in cf.scenario(cf.matrix()[0], "vegas").doc["topology"]["access"], "one flow"
    apart = cf.scenario(two, "vegas", shared_hosts=False)
    assert [(f["src"], f["dst"]) for f in apart.doc["flows"]] == [("s0", "d0"), ("s1", "d1")]
    assert "queue" not in apart.doc["topology"]["access"]
    assert cf.kernel_scenario(shared).to_toml() == cf.kernel_scenario(apart).to_toml()
    assert cf.kernel_scenario(shared).doc["topology"]["pairs"] == 2
    plan(cf.kernel_scenario(shared))

    import tcplab

    short = replace(two, duration=1.0, warmup=0.2)

    def first_rtts(sc) -> list[float]:
        s = tcplab.run(sc).series
        s = s[s["srtt"] > 0]  # the smoothed RTT is the first sample until the second
        return [float(s[s["flow"] == f]["srtt"].iloc[0]) for f in (0, 1)]

    segment = (cf.MSS + cf.FRAME_OVERHEAD) * 8 / (two.rate_mbps * 1e6)
    # Taking turns, flow 1's first GSO packet waits behind flow 0's first (two segments):
    # their first smoothed RTTs (10 ms samples) differ by about a segment's transmission.
    r0, r1 = first_rtts(cf.scenario(short, "vegas"))
    assert 0.5 * segment < r1 - r0 < 2 * segment
    # Through a FIFO (engine 0.3.9), flow 1's window waits behind flow 0's ten segments at the
    # bottleneck (six segments, once smoothed with the samples after it).
    f0, f1 = first_rtts(cf.scenario(short, "vegas", host_egress=None))
    assert f1 - f0 > 4 * segment
    # From two access links, the windows interleave segment by segment.
    a0, a1 = first_rtts(cf.scenario(short, "vegas", shared_hosts=False))
    assert abs(a1 - a0) < 0.5 * segment


def test_the_bed_takes_only_its_own_sender_order():
    """The bed's sender takes turns between flows by GSO packet: a document may say so, and one
    that asks its hosts for another queue is refused, naming the field and what is allowed."""
    two = next(p for p in cf.matrix() if p.name == "2 flows")
    doc = cf.kernel_scenario(cf.scenario(two, "reno"))
    assert "queue" not in doc.doc["topology"]["access"], "the bed's hosts do it their own way"
    doc.doc["topology"]["access"]["queue"] = {"kind": "round_robin"}
    plan(doc, native=True)  # as the bed's sender does
    doc.doc["topology"]["access"]["queue"] = {"kind": "red"}
    with pytest.raises(ScenarioError, match=r"topology\.access\.queue\.kind: 'red' .*round_robin"):
        plan(doc, native=True)


def test_the_kernels_reno_runs_against_renos_integer_variant():
    """The kernel's reno keeps whole segments (tcp_cong.c); the simulator's default Reno is RFC
    5681's in real numbers, which ran 2-3 % faster at the loss points (docs/kernel.md, "The
    receiver's reads, and Reno in whole segments"). The bed's side is the kernel's own reno."""
    point = [p for p in cf.matrix() if p.name == "loss 2%"][0]
    sc = cf.scenario(point, "reno")
    assert sc.doc["flows"][0]["cc"] == {"name": "reno", "variant": "linux"}
    sc.validate()
    assert plan(cf.kernel_scenario(sc), native=True).flows[0].kernel_cc == "reno"
    assert cf.scenario(point, "reno", sim_stack=None).doc["flows"][0]["cc"] == "reno", "a baseline"


def test_plan_accepts_only_the_linux_stack_and_refuses_other_tcp_keys():
    s = cf.scenario(cf.matrix()[0], "reno", sim_stack=None)
    with pytest.raises(ScenarioError, match=r"tcp\.header_bytes: 66: .* allowed: 54"):
        plan(s)  # the bed's frames are mss + 54 without the linux stack
    k = plan(cf.kernel_scenario(s))
    assert k.mtu == 1052 and k.header_bytes == cf.FRAME_OVERHEAD and k.flows[0].kernel_cc == "tl_reno"
    s.doc["tcp"]["stack"] = "ns2"
    with pytest.raises(ScenarioError, match="tcp.stack"):
        plan(s)
    s.doc["tcp"]["stack"] = "linux"
    s.doc["tcp"]["delayed_ack"] = True
    with pytest.raises(ScenarioError, match="tcp.delayed_ack"):
        plan(s)
    s = cf.kernel_scenario(cf.scenario(cf.matrix()[0], "cubic", sim_stack=None))
    with pytest.raises(ScenarioError, match="no kernel port"):
        plan(s)


def test_all_leaves_out_the_conformance_matrix():
    assert "linux/conformance" not in [e.name for e in resolve(["all"])]
    assert [e.name for e in resolve(["linux"])] == ["linux/conformance"]
    assert [e.name for e in resolve(["linux/conformance"])] == ["linux/conformance"]


def _result(series: pd.DataFrame, flows: pd.DataFrame) -> Result:
    tables = {name: pd.DataFrame() for name in TABLES}
    tables.update(series=series, flows=flows, frames=None, events=None)
    return Result(meta={}, **tables)


def _synthetic(rates_bps, retrans=(3, 4), segment=1000.0, rtt=0.05, cwnd=40.0, nan_rtt=False):
    t = np.round(np.arange(0, 10.001, 0.01), 3)
    rows = []
    for i, r in enumerate(rates_bps):
        rows.append(
            pd.DataFrame(
                {
                    "time": t,
                    "flow": i,
                    "cwnd": cwnd,
                    "srtt": np.nan if nan_rtt else rtt + 0.01 * (t % 1.0),
                    "bytes_delivered": r / 8 * t,
                }
            )
        )
    flows = pd.DataFrame(
        {"id": range(len(rates_bps)), "retransmissions": retrans[: len(rates_bps)], "timeouts": 0}
    )
    return _result(pd.concat(rows, ignore_index=True), flows)


def test_metrics_read_bbrs_bandwidth_estimate_inside_the_window():
    full = 10e6 * 1000 / 1066
    run = _synthetic([full])
    assert np.isnan(cf.metrics(run, 10e6, (2.0, 10.0), 1000.0).bw_estimate), "no estimate: NaN"
    t = np.round(np.arange(0, 10.001, 0.01), 3)
    rise = np.where(t > 6, 1.05, 1.0) * np.where(t < 1, 3.0, 1.0)  # STARTUP's 3 x outside the window
    run.cc_vars = pd.DataFrame({"time": t, "flow": 0, "name": "bw", "value": full / 8 * rise})
    f = cf.metrics(run, 10e6, (2.0, 10.0), 1000.0)
    inside = (t >= 2) & (t <= 10)
    assert f.bw_estimate == pytest.approx(float(np.mean(rise[inside])))
    assert f.bw_peak == pytest.approx(1.05), "the largest sample inside the window"


def test_bbrs_bandwidth_estimate_is_a_diagnostic_beside_the_verdict():
    """Each side's estimate over the runs that recorded one, shown in the summary; runs
    without one (archived before the bed read it) are counted out, and other algorithms
    have no such column."""
    base = cf.matrix()[0]
    run = cf.metrics(_synthetic([9e6]), 10e6, (2.0, 10.0), 1000.0)
    with_bw = [replace(run, bw_estimate=0.98 + 0.01 * i, bw_peak=1.04) for i in range(2)]
    row = cf.compare_point(base, "bbr", [run, *with_bw], [replace(run, bw_estimate=0.99, bw_peak=1.05)] * 3)
    assert row["bw_counted_runs_kernel"] == 2 and row["bw_estimate_kernel"] == pytest.approx(0.985)
    assert (row["bw_estimate_sim"], row["bw_peak_sim"]) == pytest.approx((0.99, 1.05))
    assert row["verdict"] == "pass", "never part of the verdict"
    reno = cf.compare_point(base, "reno", [run], [run])
    assert "bw_estimate_kernel" not in reno
    summary = cf.summary_table(cf.conformance_table([row, reno]))
    column = "BBR's bandwidth estimate / capacity: mean, peak (runs)"
    assert list(summary[column]) == ["0.985, 1.040 (2) / 0.990, 1.050 (3)", ""]
    unread = cf.compare_point(base, "bbr", [run], [run])
    assert cf.summary_table(cf.conformance_table([unread]))[column][0] == "- / -"


def test_compare_reports_bbrs_bandwidth_estimate_per_flow():
    from tcplab.testbed.compare import flow_figures

    run = _synthetic([9e6, 1e6])
    t = np.round(np.arange(0, 10.001, 0.01), 3)
    run.cc_vars = pd.DataFrame({"time": t, "flow": 0, "name": "bw", "value": np.where(t < 2, 5e6, 1.15e6)})
    figures = flow_figures(run, (2.0, 10.0)).set_index("id")
    assert figures.loc[0, "mean_bw_estimate"] == pytest.approx(9.2e6), "bytes/s to b/s, inside the window"
    assert np.isnan(figures.loc[1, "mean_bw_estimate"]), "a flow without an estimate (not BBR)"
    assert np.isnan(flow_figures(_synthetic([9e6]), (2.0, 10.0))["mean_bw_estimate"][0])


def test_metrics_normalise_payload_per_frame_and_shares():
    full = 10e6 * 1000 / 1066  # the most payload 10 Mb/s carries in 1066-byte frames
    f = cf.metrics(_synthetic([0.75 * full, 0.25 * full]), 10e6, (2.0, 10.0), 1000.0)
    assert f.utilisation == pytest.approx(1.0)
    assert f.shares == pytest.approx([0.75, 0.25])
    assert f.retransmissions == 7 and f.timeouts == 0 and f.mean_cwnd == 40
    assert f.mean_rtt == pytest.approx(0.055, abs=1e-3) and f.p95_rtt > f.p50_rtt
    fractional = cf.metrics(_synthetic([0.5 * full], cwnd=40.9), 10e6, (2.0, 10.0), 1000.0)
    assert fractional.mean_cwnd == 40, "whole segments, as the sender uses them and tcp_info shows"
    # A kernel with smaller real segments carries less payload per frame: same utilisation.
    small = 10e6 * 988 / (988 + 66)
    assert cf.metrics(_synthetic([small]), 10e6, (2.0, 10.0), 988.0).utilisation == pytest.approx(1.0)


def test_checks_pass_miss_and_never_pass_on_missing_data():
    point = cf.matrix()[0]
    k = cf.metrics(_synthetic([9e6], retrans=(100,)), 10e6, (2.0, 10.0), 1000.0)
    same = cf.compare_point(point, "reno", k, k)
    assert same["verdict"] == "pass" and same["share_check"] == "-"
    s = cf.metrics(_synthetic([9e6], retrans=(140,), cwnd=45.0), 10e6, (2.0, 10.0), 1000.0)
    row = cf.compare_point(point, "reno", k, s)
    assert (row["retransmissions_check"], row["mean_cwnd_check"], row["verdict"]) == ("miss", "miss", "miss")
    blind = cf.metrics(_synthetic([9e6], retrans=(100,), nan_rtt=True), 10e6, (2.0, 10.0), 1000.0)
    row = cf.compare_point(point, "reno", k, blind)
    assert row["mean_rtt_check"] == "not evaluated" and row["verdict"] == "not evaluated"
    assert cf.retrans_band(3) == 10 and cf.retrans_band(100) == 25 and cf.retrans_band(float("nan")) is None
    assert cf.relative_band(0.0, 0.1) is None and cf.relative_band(-50.0, 0.1) == 5.0
    pair = [cf.metrics(_synthetic([5e6, 5e6]), 10e6, (2.0, 10.0), 1000.0)]
    near = [cf.metrics(_synthetic([5.9e6, 4.1e6]), 10e6, (2.0, 10.0), 1000.0)]
    far = [cf.metrics(_synthetic([6.1e6, 3.9e6]), 10e6, (2.0, 10.0), 1000.0)]
    assert cf.share_check(pair, near) == "pass" and cf.share_check(pair, far) == "miss"
    assert cf.share_check([k], [k]) == "not evaluated", "one flow has no shares to compare"


def test_sides_are_compared_by_their_means_over_runs():
    point = cf.matrix()[0]
    one = cf.metrics(_synthetic([9e6], retrans=(60,)), 10e6, (2.0, 10.0), 1000.0)
    two = cf.metrics(_synthetic([9e6], retrans=(140,)), 10e6, (2.0, 10.0), 1000.0)
    mean = cf.metrics(_synthetic([9e6], retrans=(100,)), 10e6, (2.0, 10.0), 1000.0)
    row = cf.compare_point(point, "reno", [mean], [one, two])
    assert row["retransmissions_sim"] == 100 and row["retransmissions_check"] == "pass"
    assert row["retransmissions_sd_sim"] == pytest.approx(56.57, abs=0.01) and row["runs"] == "1/2"
    assert np.isnan(row["retransmissions_sd_kernel"]), "no spread from one run"
    # Any run lacking a figure makes the mean missing: never a mean over a different subset.
    blind = cf.metrics(_synthetic([9e6], nan_rtt=True), 10e6, (2.0, 10.0), 1000.0)
    assert cf.compare_point(point, "reno", [mean], [one, blind])["mean_rtt_check"] == "not evaluated"
    pair = cf.metrics(_synthetic([6e6, 3e6]), 10e6, (2.0, 10.0), 1000.0)
    row = cf.compare_point(point, "bbr+cubic", [pair], [pair])
    assert row["share_check"] == "pass" and "retransmissions_check" not in row, "BBR: reported only"


def test_tcp_info_parsing_and_sample_files(tmp_path):
    buf = bytearray(248)
    buf[1] = 3  # ca_state: recovery
    struct.pack_into("=I", buf, 16, 1000)  # snd_mss
    struct.pack_into("=I", buf, 68, 40_500)  # srtt, us
    struct.pack_into("=I", buf, 80, 37)  # cwnd
    struct.pack_into("=I", buf, 100, 12)  # total_retrans
    struct.pack_into("=Q", buf, 120, 123_456)  # bytes_acked
    struct.pack_into("=H", buf, 240, 2)  # total_rto
    info = parse_tcp_info(bytes(buf))
    assert (info["ca_state"], info["snd_mss"], info["srtt_us"], info["cwnd"]) == (3, 1000, 40_500, 37)
    assert (info["total_retrans"], info["bytes_acked"], info["total_rto"]) == (12, 123_456, 2)
    assert parse_tcp_info(bytes(buf[:232]))["total_rto"] == -1, "kernels before 6.7"
    # What held the sender back, and the peer's window (tcpi_busy_time and the limited times,
    # microseconds; tcpi_snd_wnd, bytes): the flows table's seconds, NaN where not read.
    struct.pack_into("=QQQ", buf, 168, 30_000_000, 2_500_000, 0)
    struct.pack_into("=I", buf, 228, 360_448)
    held = parse_tcp_info(bytes(buf))
    assert (held["busy_time_us"], held["rwnd_limited_us"], held["sndbuf_limited_us"]) == (
        30_000_000,
        2_500_000,
        0,
    )
    assert held["snd_wnd"] == 360_448
    assert parse_tcp_info(bytes(buf[:168]))["rwnd_limited_us"] == -1, "kernels before 4.10"
    assert limited_seconds(pd.Series(held)) == pytest.approx(
        {"busy_time": 30.0, "rwnd_limited_time": 2.5, "sndbuf_limited_time": 0.0}
    )
    unread = limited_seconds(pd.Series({**held, "rwnd_limited_us": -1}))
    assert np.isnan(unread["rwnd_limited_time"]) and unread["busy_time"] == 30.0
    lines = []
    for k, t in enumerate((1_000_000_000, 1_010_000_000)):
        row = {**info, "dport": 5301, "sport": 40000, "min_rtt_us": 0xFFFFFFFF if k == 0 else 40_000}
        lines.append(" ".join([str(t), *(str(row.get(f, 0)) for f in TCP_FIELDS)]))
    path = tmp_path / "tcp.txt"
    path.write_text("\n".join(lines) + "\n")
    df = read_samples(path, TCP_FIELDS, t0=0.99)
    assert list(df["time"]) == pytest.approx([0.01, 0.02])
    series = tcp_series(df, 0)
    assert series["srtt"].iloc[0] == pytest.approx(0.0405) and series["cwnd"].iloc[0] == 37
    # A file of another sampler version (other columns) is an error, not an empty run.
    older = tmp_path / "older.txt"
    older.write_text("\n".join(" ".join(line.split()[:-3]) for line in lines) + "\n")
    with pytest.raises(ValueError, match="another version"):
        read_samples(older, TCP_FIELDS, t0=0.99)
    assert read_samples(tmp_path / "absent.txt", TCP_FIELDS, t0=0.0).empty, "no file: no samples"
    assert np.isnan(series["min_rtt"].iloc[0]) and series["min_rtt"].iloc[1] == pytest.approx(0.04)


class _TcpInfo(ctypes.Structure):
    """struct tcp_info of include/uapi/linux/tcp.h (Linux 6.x) up to tcpi_total_rto, written
    out field by field: the sampler's offsets are checked against it, not against themselves."""

    _fields_ = [
        ("state", ctypes.c_uint8),
        ("ca_state", ctypes.c_uint8),
        ("retransmits", ctypes.c_uint8),
        ("probes", ctypes.c_uint8),
        ("backoff", ctypes.c_uint8),
        ("options", ctypes.c_uint8),
        ("wscale", ctypes.c_uint8),
        ("flags", ctypes.c_uint8),  # delivery_rate_app_limited:1, fastopen_client_fail:2
        *((n, ctypes.c_uint32) for n in ("rto", "ato", "snd_mss", "rcv_mss", "unacked", "sacked", "lost")),
        *((n, ctypes.c_uint32) for n in ("retrans", "fackets", "last_data_sent", "last_ack_sent")),
        *((n, ctypes.c_uint32) for n in ("last_data_recv", "last_ack_recv", "pmtu", "rcv_ssthresh", "rtt")),
        *((n, ctypes.c_uint32) for n in ("rttvar", "snd_ssthresh", "snd_cwnd", "advmss", "reordering")),
        *((n, ctypes.c_uint32) for n in ("rcv_rtt", "rcv_space", "total_retrans")),
        *((n, ctypes.c_uint64) for n in ("pacing_rate", "max_pacing_rate", "bytes_acked", "bytes_received")),
        *((n, ctypes.c_uint32) for n in ("segs_out", "segs_in", "notsent_bytes", "min_rtt")),
        *((n, ctypes.c_uint32) for n in ("data_segs_in", "data_segs_out")),
        *((n, ctypes.c_uint64) for n in ("delivery_rate", "busy_time", "rwnd_limited", "sndbuf_limited")),
        *((n, ctypes.c_uint32) for n in ("delivered", "delivered_ce")),
        *((n, ctypes.c_uint64) for n in ("bytes_sent", "bytes_retrans")),
        *(
            (n, ctypes.c_uint32)
            for n in ("dsack_dups", "reord_seen", "rcv_ooopack", "snd_wnd", "rcv_wnd", "rehash")
        ),
        ("total_rto", ctypes.c_uint16),
    ]


def test_the_sampler_reads_tcp_info_where_the_kernel_writes_it():
    """Each field the sampler reads, at its offset in an independent mirror of the struct."""
    mirror = {
        "state": "state",
        "ca_state": "ca_state",
        "rto_us": "rto",
        "snd_mss": "snd_mss",
        "unacked": "unacked",
        "sacked": "sacked",
        "lost": "lost",
        "retrans": "retrans",
        "srtt_us": "rtt",
        "rttvar_us": "rttvar",
        "ssthresh": "snd_ssthresh",
        "cwnd": "snd_cwnd",
        "total_retrans": "total_retrans",
        "min_rtt_us": "min_rtt",
        "data_segs_out": "data_segs_out",
        "delivered": "delivered",
        "dsack_dups": "dsack_dups",
        "snd_wnd": "snd_wnd",
        "pacing_rate": "pacing_rate",
        "bytes_acked": "bytes_acked",
        "delivery_rate": "delivery_rate",
        "bytes_sent": "bytes_sent",
        "bytes_retrans": "bytes_retrans",
        "busy_time_us": "busy_time",
        "rwnd_limited_us": "rwnd_limited",
        "sndbuf_limited_us": "sndbuf_limited",
        "total_rto": "total_rto",
    }
    info = _TcpInfo()
    for k, (_, field) in enumerate(sorted(mirror.items())):
        setattr(info, field, 100 + k)
    got = parse_tcp_info(bytes(info))
    assert {name: got[name] for name in mirror} == {
        name: 100 + k for k, (name, _) in enumerate(sorted(mirror.items()))
    }
    assert set(mirror) | {"delivery_rate_app_limited"} >= set(got), "every field read is checked"


def test_bbr_info_and_rates_become_the_simulators_cc_vars():
    info = struct.pack("=IIIII", 1_250_000 & 0xFFFFFFFF, 1, 40_100, 320, 512)  # bw has a high half
    bbr = parse_bbr_info(info)
    assert bbr == {
        "bbr_bw": (1 << 32) + 1_250_000,
        "bbr_min_rtt_us": 40_100,
        "bbr_pacing_gain": 320,
        "bbr_cwnd_gain": 512,
    }
    assert parse_bbr_info(info[:16]) == {}, "a truncated attribute is no sample"
    buf = bytearray(248)
    buf[7] = 1  # delivery_rate_app_limited
    struct.pack_into("=Q", buf, 160, 1_180_000)
    assert parse_tcp_info(bytes(buf))["delivery_rate"] == 1_180_000
    assert parse_tcp_info(bytes(buf))["delivery_rate_app_limited"] == 1
    # The gains of tcp_bbr.c's modes: STARTUP, DRAIN, PROBE_BW (any cycle gain), PROBE_RTT.
    assert [bbr_mode(*g) for g in ((739, 739), (88, 739), (192, 512), (256, 256))] == [0, 1, 2, 3]
    assert np.isnan(bbr_mode(300, 300))
    samples = pd.DataFrame(
        {
            "time": [0.01, 0.02, 0.03],
            "delivery_rate": [-1, 1_000_000, 1_100_000],  # -1: not read (an older sampler)
            "pacing_rate": [2**64 - 1, 2**64 - 1, 1_200_000],  # ~0: not set yet
            "bbr_bw": [1_150_000, 1_160_000, 1_170_000],
            "bbr_min_rtt_us": [40_000, 40_000, 41_000],
            "bbr_pacing_gain": [739, 88, 320],
            "bbr_cwnd_gain": [739, 739, 512],
        }
    )
    v = tcp_cc_vars(samples, 1)
    assert set(v["flow"]) == {1}

    def var(name):
        return list(v.loc[v["name"] == name, "value"])

    assert var("delivery_rate") == [1_000_000, 1_100_000]
    assert var("pacing_rate") == [1_200_000]
    assert var("bw") == [1_150_000, 1_160_000, 1_170_000]
    assert var("min_rtt") == pytest.approx([0.04, 0.04, 0.041])
    assert var("pacing_gain") == pytest.approx([739 / 256, 88 / 256, 1.25])
    assert var("mode") == [0, 1, 2]
    cubic = samples.assign(bbr_bw=-1, bbr_min_rtt_us=-1, bbr_pacing_gain=-1, bbr_cwnd_gain=-1)
    assert set(tcp_cc_vars(cubic, 0)["name"]) == {"delivery_rate", "pacing_rate"}, "no BBR state"


def test_reproduce_refuses_clearly_without_root(monkeypatch, tmp_path):
    import os

    from typer.testing import CliRunner

    import tcplab
    from tcplab.cli import app

    monkeypatch.setattr(tcplab, "capabilities", lambda: {"testbed": []})
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    r = CliRunner().invoke(
        app, ["reproduce", "linux/conformance", "--quick", "--kernel", "--store", str(tmp_path)]
    )
    assert r.exit_code == 2
    assert "needs root" in r.output and "linux/conformance" in r.output


def test_kernel_runs_are_keyed_by_the_beds_document_not_the_engine(monkeypatch):
    """Hours of real-time runs must survive a new simulator: a kernel run's store key comes
    from the document the bed runs, so changing the engine's canonical form re-keys only
    the simulated runs."""
    from tcplab import sweep

    exp = LinuxConformance()
    before = {p.params["backend"] + str(p.params): p.key for p in sweep.plan([exp], quick=True)}
    real = sweep._engine.validate
    monkeypatch.setattr(sweep._engine, "validate", lambda text: real(text) + "\n# a new default\n")
    after = {p.params["backend"] + str(p.params): p.key for p in sweep.plan([exp], quick=True)}
    kernel = [k for k in before if k.startswith("kernel")]
    assert kernel and all(before[k] == after[k] for k in kernel)
    assert all(before[k] != after[k] for k in before if k.startswith("sim"))


def test_the_summary_shows_both_sides_and_names_the_misses():
    point = cf.matrix()[0]
    k = cf.metrics(_synthetic([9e6], retrans=(100,)), 10e6, (2.0, 10.0), 1000.0)
    s = cf.metrics(_synthetic([9e6], retrans=(140,), cwnd=45.0), 10e6, (2.0, 10.0), 1000.0)
    table = cf.conformance_table([cf.compare_point(point, "reno", [k, k], [s])])
    row = cf.summary_table(table).iloc[0]
    assert row["retrans"] == "100±0 / 140" and row["utilisation"] == "0.959±0.000 / 0.959"
    assert row["verdict"] == "miss (retransmissions, mean_cwnd)"


def test_every_scenario_is_not_held_on_the_scenarios_that_happen_to_be_stored():
    """A claim over every point of the matrix is "not evaluated" while points lack runs,
    even when every stored point passes (the archive aside: it holds every point)."""
    exp = LinuxConformance(archive=None)
    point = cf.matrix(quick=True)[0]
    k = _synthetic([9e6], retrans=(100,))
    k.meta["snd_mss"] = 1000
    results = [
        ({"scenario": point.name, "algorithm": "reno", "repeat": 0, "backend": b}, k)
        for b in ("kernel", "sim")
    ]
    out = exp.analyze(results, quick=True)
    reno = next(c for c in out.claims if c.text.startswith("reno"))
    assert reno.passed is None and "2 flows: not evaluated" in reno.detail
    assert reno.verdict == "not evaluated", "points without runs are no data, not an open test"


def test_the_bed_model_ablations_run_beside_the_matrix_and_are_tabled():
    """Each simulated entry runs again without the bed's bucket, with engine 0.3.8's receiver
    (reads at once, the arrival-to-ACK latency drawn per ACK), without any receiver latency,
    without TSO deferral, without SACK compression, with PSH at burst ends, pacing segments
    (engine 0.3.8), with a FIFO at the shared sender (engine 0.3.9), with the receive window
    scaled by the receiver's memory per segment (a measured property the default leaves out),
    with a sender and receiver per flow, with the first windows of flows started together always
    interleaved, and with engine 0.3.3's model, 6.18 receiver;
    the kernel's runs are not repeated, and the report tables each model's verdicts against
    the same kernel runs, naming the entries whose verdict changes."""
    exp = LinuxConformance()
    runs = exp.runs(quick=True)
    models = [r for r in runs if "model" in r.params]
    assert {r.params["model"] for r in models} == set(exp.bed_models()) and len(exp.bed_models()) == 12
    assert len(models) == 12 * sum(1 for r in runs if r.backend == "sim" and "model" not in r.params)
    assert all(r.backend == "sim" for r in models), "the kernel's runs are shared"
    default = next(r for r in runs if r.backend == "sim" and "model" not in r.params)
    assert default.scenario.doc["tcp"]["ack_latency"] == cf.BED_ACK_LATENCY
    assert default.scenario.doc["tcp"]["app_read"] == cf.BED_APP_READ
    at_once = next(r for r in models if r.params["model"] == "reads at once (0.3.8)")
    reads_at_once = at_once.scenario.doc["tcp"]
    assert "app_read" not in reads_at_once and reads_at_once["ack_latency"] == cf.BED_ARRIVAL_ACK_LATENCY
    assert default.scenario.doc["topology"]["bottleneck"]["burst"] == cf.BED_BURST
    assert "app_push" not in default.scenario.doc["tcp"], "the linux profile's own: gso"
    old = next(r for r in models if r.params["model"] == "engine 0.3.3's model, 6.18 receiver")
    assert not {"ack_latency", "app_read"} & set(old.scenario.doc["tcp"])
    assert "burst" not in old.scenario.doc["topology"]["bottleneck"]
    assert old.scenario.doc["tcp"]["app_push"] == "burst" and old.scenario.doc["tcp"]["tso_defer"] is False
    assert old.scenario.doc["tcp"]["sack_compress"] is False
    assert old.scenario.doc["tcp"]["pacing_unit"] == "segment"
    scaled = next(r for r in models if r.params["model"] == "window scaled by memory per segment")
    assert scaled.scenario.doc["tcp"]["rcv_truesize"] == cf.BED_RCV_TRUESIZE
    assert "rcv_truesize" not in default.scenario.doc["tcp"], "half the buffer, the profile's"
    assert "rcv_truesize" not in cf.kernel_scenario(scaled.scenario).doc["tcp"]
    segments = next(r for r in models if r.params["model"] == "paced segments (0.3.8)")
    assert segments.scenario.doc["tcp"]["pacing_unit"] == "segment"
    assert "pacing_unit" not in default.scenario.doc["tcp"], "the linux profile's own: gso"
    two = next(p for p in cf.matrix(quick=True) if p.flows == 2)
    two_runs = [r for r in models if r.params["scenario"] == two.name and r.params["algorithm"] == "reno"]
    pairs = {r.params["model"]: r.scenario.doc["topology"]["pairs"] for r in two_runs}
    assert pairs.pop("a host pair per flow") == 2 and pairs.pop("engine 0.3.3's model, 6.18 receiver") == 2
    assert set(pairs.values()) == {1}, "every other model shares the bed's one host pair"
    egress = {r.params["model"]: r.scenario.doc["topology"]["access"].get("queue") for r in two_runs}
    assert egress.pop("FIFO sender (0.3.9)") is None
    assert (
        egress.pop("a host pair per flow") is None
        and egress.pop("engine 0.3.3's model, 6.18 receiver") is None
    )
    assert egress, "models besides the three above"
    assert all(q == {"kind": cf.BED_HOST_EGRESS} for q in egress.values()), "the bed's sender takes turns"
    kernel = cf.kernel_scenario(old.scenario).doc["tcp"]
    assert not set(cf.MODELLED_HOST_KEYS) & set(kernel), "the kernel has its own rules"
    assert LinuxConformance(burst=None).bed_models() == {}, "an ablation has none of its own"
    point = cf.matrix(quick=True)[0]
    k = _synthetic([9e6], retrans=(100,))
    k.meta["snd_mss"] = 1000
    worse = _synthetic([9e6], retrans=(200,))
    params = {"scenario": point.name, "algorithm": "reno"}
    results = [({**params, "repeat": i, "backend": b}, k) for i in range(2) for b in ("kernel", "sim")]
    results += [({**params, "repeat": i, "backend": "sim", "model": "no bucket"}, worse) for i in range(2)]
    table = exp.analyze(results, quick=True).tables[
        "bed-model ablations: verdicts with each model of the bed's hosts"
    ]
    rows = table.set_index("model")
    # (The synthetic runs lack figures, so the default is "not evaluated"; a miss outranks that.)
    assert rows.loc[DEFAULT_MODEL, "not evaluated"] == 1 and rows.loc["no bucket", "miss"] == 1
    assert (
        rows.loc["no bucket", "verdicts that differ from the default"]
        == f"{point.name}/reno: not evaluated -> miss"
    )


def test_equivalence_decides_only_what_the_runs_spread_allows():
    """Pass needs the whole confidence interval of the difference inside the band, miss
    the whole interval outside; between, undecided. Runs without spread compare means."""
    assert eq.decide([10.0, 10.0, 10.0], [10.4, 10.4, 10.4], 0.5) == "pass"
    assert eq.decide([10.0, 10.0, 10.0], [10.6, 10.6, 10.6], 0.5) == "miss"
    # Same means, but runs spread by more than the band: neither shown.
    assert eq.decide([9.0, 10.0, 11.0], [9.4, 10.4, 11.4], 0.5) == "undecided"
    assert eq.decide([9.0, 10.0, 11.0], [19.0, 20.0, 21.0], 0.5) == "miss"
    # A single run a side has no spread: its means are compared as they are.
    assert eq.decide([10.0], [10.4], 0.5) == "pass" and eq.decide([10.0], [10.6], 0.5) == "miss"
    assert eq.decide([10.0], [float("nan")], 0.5) == "not evaluated"
    assert eq.decide([], [1.0], 0.5) == "not evaluated" and eq.decide([1.0], [1.0], None) == "not evaluated"
    # Welch's interval: difference 1, se sqrt(1/3 + 0) = 0.577, df 2, t(0.95, 2) = 2.92.
    assert eq.half_width([9.0, 10.0, 11.0], [11.0, 11.0, 11.0]) == pytest.approx(2.920 * 0.5774, rel=1e-3)
    assert eq.combine(["pass", "undecided", "not evaluated"]) == "undecided"
    assert eq.combine(["pass", "miss", "undecided"]) == "miss" and eq.combine(["pass"]) == "pass"
    assert eq.combine([]) == "not evaluated", "no checks: never a pass"


def test_a_spread_that_straddles_the_tolerance_leaves_the_point_undecided():
    point = cf.matrix()[0]
    runs = [cf.metrics(_synthetic([g]), 10e6, (2.0, 10.0), 1000.0) for g in (8.0e6, 9.0e6, 10.0e6)]
    shifted = [cf.metrics(_synthetic([g]), 10e6, (2.0, 10.0), 1000.0) for g in (8.1e6, 9.1e6, 10.1e6)]
    row = cf.compare_point(point, "reno", runs, shifted)
    assert row["utilisation_check"] == "undecided" and row["verdict"] == "undecided"
    assert cf.summary_table(cf.conformance_table([row]))["verdict"][0] == "undecided (utilisation)"


def test_the_bed_jitter_is_the_measured_distribution_in_both_directions():
    """Quantiles non-decreasing from 0, the bed's tens of microseconds (testbed-4: no
    millisecond tail), the runs they come from named, and the engine accepts them."""
    doc = json.loads((Path(cf.__file__).with_name("data") / "bed_jitter.json").read_text())
    assert len(doc["runs"]) >= 3 and "python -m tcplab.testbed.lateness" in doc["source"]
    for direction in ("forward", "reverse"):
        q = cf.BED_JITTER[direction]["quantiles"]
        assert q == doc[direction] and doc["frames"][direction] > 10_000
        assert len(q) == 201 and q[0] == 0 and all(b >= a for a, b in zip(q, q[1:], strict=False))
        assert q[100] < 20e-6 and q[-1] < 1e-3, "median microseconds, no millisecond tail"
    cf.scenario(cf.matrix()[0], "cubic").validate()


def test_the_simulated_side_of_a_port_runs_the_ports_spec_and_the_bed_the_bare_name():
    """The bed runs tl_vegas, the Vegas family's kernel variant (bpf/ports.toml); the
    simulator must run the same, not the paper variant's fine-grained retransmission."""
    base = cf.matrix()[0]
    for algo, variant in (("vegas", "kernel"), ("newvegas", "kernel"), ("code", "kernel")):
        sim = cf.scenario(base, algo)
        assert sim.doc["flows"][0]["cc"]["variant"] == variant
        assert cf.kernel_scenario(sim).doc["flows"][0]["cc"] == algo
        sim.validate()
    assert cf.scenario(base, "veno").doc["flows"][0]["cc"]["base_rtt_reset"] == "on_loss"
    reno = cf.scenario(base, "reno")
    assert reno.doc["flows"][0]["cc"] == {"name": "reno", "variant": "linux"}, "the kernel's reno"
    assert cf.kernel_scenario(reno).doc["flows"][0]["cc"] == "reno", "the kernel's own module"


def test_flows_that_start_together_are_compared_by_rank_and_staggered_ones_by_flow():
    """Two Vegas flows that start together split 60/40 one way or the other by chance: a
    kernel 0.6/0.4 and a simulator 0.4/0.6 agree. Staggered flows keep their labels."""
    two = [p for p in cf.matrix() if p.name == "2 flows"][0]
    staggered = [p for p in cf.matrix() if p.name == "2 flows staggered"][0]
    k = [cf.metrics(_synthetic([6e6, 4e6]), 10e6, (2.0, 10.0), 1000.0)]
    s = [cf.metrics(_synthetic([4e6, 6e6]), 10e6, (2.0, 10.0), 1000.0)]
    row = cf.compare_point(two, "vegas", k, s)
    assert row["share_check"] == "pass" and row["shares_by"] == "rank"
    assert row["share_kernel"] == row["share_sim"] == "0.60/0.40"
    row = cf.compare_point(staggered, "vegas", k, s)
    assert row["share_check"] == "miss" and row["shares_by"] == "flow"
    assert not cf.exchangeable(cf.matrix()[0], "bbr+cubic"), "one flow each of two algorithms"


def test_the_loss_draw_is_taken_out_at_random_loss_points_and_nowhere_else():
    """A run that drew more losses than the nominal rate gets less through it; moved to the
    nominal rate by the square-root law the two sides compare the TCP, not the draw. The
    diagnostic never enters the verdict, and is absent without random loss and for BBR."""
    loss = next(p for p in cf.matrix() if p.loss == 0.005)
    sim_meta_flows = dict(data_drops_random_loss=[60], segments_sent=[10000])  # 0.6 %
    sim = _synthetic([3e6])
    sim.flows = sim.flows.assign(**sim_meta_flows)
    kernel = _synthetic([3e6 * (0.6 / 0.45) ** 0.5])
    kernel.meta = {
        "backend": "kernel-testbed",
        "delay_element": {"forwarded_data": 9955, "dropped_random": 45},
    }
    k, s = (cf.metrics(r, 10e6, (2.0, 10.0), 1000.0) for r in (kernel, sim))
    assert (k.random_drop_rate, s.random_drop_rate) == pytest.approx((0.0045, 0.006))
    row = cf.compare_point(loss, "reno", [k, k], [s, s])
    assert row["utilisation_check"] == "miss" and row["verdict"] == "miss"
    assert row["utilisation_at_nominal_loss_kernel"] == pytest.approx(row["utilisation_at_nominal_loss_sim"])
    assert row["utilisation_at_nominal_loss_diagnostic"] == "pass"
    assert (row["random_loss_pct_kernel"], row["random_loss_pct_sim"]) == pytest.approx((0.45, 0.6))
    cell = cf.summary_table(cf.conformance_table([row])).iloc[0]["utilisation at the nominal loss"]
    assert cell.endswith("pass (loss drawn 0.450 / 0.600 %, runs 2/2)")
    # Runs without counters (kernel runs before them) are left out; none at all: not evaluated.
    blind = cf.metrics(_synthetic([3e6]), 10e6, (2.0, 10.0), 1000.0)
    assert np.isnan(blind.random_drop_rate)
    row = cf.compare_point(loss, "reno", [blind, blind], [s, s])
    assert row["utilisation_at_nominal_loss_diagnostic"] == "not evaluated"
    assert row["loss_counted_runs_kernel"] == 0
    assert "utilisation_at_nominal_loss_diagnostic" not in cf.compare_point(cf.matrix()[0], "reno", [s], [s])
    assert "utilisation_at_nominal_loss_diagnostic" not in cf.compare_point(loss, "bbr", [k], [s])


def test_psh_acks_bring_the_simulated_srtt_down_at_the_loss_point():
    """The linux profile ACKs a full-sized PSH segment at once (push_ack). With a sender
    that ends each burst with PSH (app_push "burst", no TSO deferral: engine 0.3.3's) the
    ACKs then close the sender's bursts rather than pairing across them, so the oldest newly
    acked segment, Linux's RTT sample, is younger. At "loss 0.5%" (where the bed's kernel
    has srtt 42.4 ms, the simulator without the rule 43.8) the median srtt falls by well over
    half a millisecond, every seed. (With the 0.3.4 profile's GSO pairs the rule moves it
    0.3-0.4 ms.)"""
    from tcplab.runner import run

    point = next(p for p, a in cf.entries(False) if p.name == "loss 0.5%" and a == "reno")

    def median_srtt_ms(seed: int, **tcp) -> float:
        s = cf.scenario(point, "reno", sim_stack="linux", jitter=cf.BED_JITTER, seed=seed)
        s.set_tcp(app_push="burst", tso_defer=False, **tcp)
        series = run(s).series
        return float(series[series["time"] >= point.warmup]["srtt"].median() * 1e3)

    for seed in (1, 2, 3):
        with_rule, without = median_srtt_ms(seed), median_srtt_ms(seed, push_ack=False)
        assert without - with_rule >= 0.5, (seed, with_rule, without)
        assert 41.5 < with_rule < 43.5, (seed, with_rule)


def test_random_loss_points_draw_the_beds_loss_sequence_on_both_sides():
    """Common random numbers: the simulator's bottleneck draws drand48 with the bed's seed,
    skipping the handshake frames' draws, and so loses the packets the bed's delay element
    loses; the bed's own document keeps only what the bed reads (keys unchanged)."""
    from tcplab.runner import run

    loss = next(p for p in cf.matrix() if p.loss == 0.005)
    sim = cf.scenario(loss, "reno", seed=2)
    assert sim.doc["topology"]["bottleneck"]["loss"] == {
        "model": "bernoulli",
        "p": 0.005,
        "applies_to": "data",
        "stream": "drand48",
        "skip": 2,
    }
    pair = cf.scenario(loss, "bbr+cubic").doc["topology"]["bottleneck"]["loss"]
    assert pair["skip"] == 4
    kernel = cf.kernel_scenario(sim).doc["topology"]["bottleneck"]["loss"]
    assert kernel == {"model": "bernoulli", "p": 0.005, "applies_to": "data"}
    assert "stream" not in cf.scenario(loss, "reno", sim_stack=None).doc["topology"]["bottleneck"]["loss"]
    bare = cf.scenario(loss, "reno", jitter=None)
    bare.doc["flows"][0]["cc"] = "reno"  # the kernel's own module, without the variant
    plan(bare)  # the bed accepts the loss draws as they are

    # The drops are drand48's (seed 2, after two draws) below p, packet by packet.
    a, m = 0x5DEECE66D, 1 << 48
    x, below = ((2 << 16) | 0x330E), []
    for _ in range(2 + 30000):
        x = (a * x + 0xB) % m
        below.append(x / m < 0.005)
    res = run(sim)
    drawn = int(res.links.set_index("name").loc["r0->r1", "packets_sent"])  # transmitted there
    drops = int(res.flows["data_drops_random_loss"].iloc[0])
    assert drops > 0
    # (a transmission still under way at the end has drawn but is not counted as sent)
    assert drops in (sum(below[2 : 2 + drawn]), sum(below[2 : 2 + drawn + 1]))


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("stream", "engine", r"loss\.stream: 'engine': the bed's delay element draws drand48"),
        ("skip", 5, r"loss\.skip: 5: .* allowed: 2 \(1 connections\)"),
        ("seed", 3, r"loss\.seed: .*not supported"),
    ],
)
def test_the_bed_refuses_loss_draws_it_does_not_make(key, value, message):
    loss = next(p for p in cf.matrix() if p.loss == 0.005)
    sim = cf.scenario(loss, "reno", jitter=None)
    sim.doc["topology"]["bottleneck"]["loss"][key] = value
    with pytest.raises(ScenarioError, match=message):
        plan(sim)


def test_runs_that_share_their_loss_draws_are_compared_seed_by_seed():
    """Paired by seed, a steady difference well inside the tolerance passes although the
    seeds spread each side by more than the tolerance; unpaired (Welch) it stays undecided."""
    from tcplab.testbed import equivalence as eq

    kernel = [0.30, 0.36, 0.42]
    sim = [0.301, 0.362, 0.421]
    assert eq.decide(kernel, sim, 0.008) == "undecided"
    assert eq.decide_paired(kernel, sim, 0.008) == "pass"
    assert eq.decide_paired(kernel, [x + 0.02 for x in kernel], 0.008) == "miss"
    assert eq.decide_paired(kernel, sim[:2], 0.008) == "not evaluated", "pairs one to one or none"

    loss = next(p for p in cf.matrix() if p.loss == 0.005)

    def run(u, seed):
        f = cf.metrics(_synthetic([u * 10e6 * 1000 / 1066]), 10e6, (2.0, 10.0), 1000.0)
        return replace(f, seed=seed)

    k = [run(u, s) for u, s in zip(kernel, (1, 2, 3), strict=True)]
    s = [run(u, s) for u, s in zip(sim, (3, 1, 2), strict=True)]  # another order: paired by seed
    row = cf.compare_point(loss, "reno", k, s, paired=True)
    assert row["utilisation_check"] == "undecided", "paired by seed, not by position: the pairs differ"
    s = [run(u, seed) for u, seed in zip(sim, (1, 2, 3), strict=True)]
    row = cf.compare_point(loss, "reno", k, s, paired=True)
    assert (row["compared"], row["utilisation_check"]) == ("by seed", "pass")
    assert cf.compare_point(loss, "reno", k, s)["compared"] == "by means"
    assert cf.summary_table(cf.conformance_table([row])).iloc[0]["runs"] == "3/3 by seed"
    one = cf.compare_point(loss, "reno", k[:1], s[:1], paired=True)
    assert one["compared"] == "by means", "a single pair has no spread to pair"


def test_second_and_third_stage_entries_run_ten_and_twenty_times_on_each_side():
    """An entry of cf.SECOND_STAGE has kernel runs (and so simulated ones) for seeds 1-10, one
    of cf.THIRD_STAGE for seeds 1-20, every other entry for seeds 1-5; the plan stays
    repeat-major, so an interrupted matrix has every entry's first five before any entry's
    sixth."""
    keys = LinuxConformance().kernel_keys(quick=False)
    by_entry: dict[tuple[str, str], set[int]] = {}
    for name, algo, repeat in keys:
        by_entry.setdefault((name, algo), set()).add(repeat)
    for entry, reps in by_entry.items():
        n = 20 if entry in cf.THIRD_STAGE else 10 if entry in cf.SECOND_STAGE else 5
        assert reps == set(range(n)), entry
    order = [repeat for _, _, repeat in keys]
    assert order == sorted(order), "repeat-major"


def test_the_verdict_grid_marks_entries_outside_the_matrix_and_unrun_ones():
    """'–' where the matrix has no entry (BBR's own 1 % point for other algorithms, a pair on a
    two-flow point), 'not evaluated' where an entry lacks runs, the verdict elsewhere."""
    table = pd.DataFrame(
        [
            {"scenario": "base", "algorithm": "reno", "verdict": "pass"},
            {"scenario": "loss 1%", "algorithm": "bbr", "verdict": "miss"},
        ]
    )
    grid = verdict_grid(table, quick=False).set_index("scenario")
    assert grid.loc["base", "reno"] == "pass" and grid.loc["loss 1%", "bbr"] == "miss"
    assert grid.loc["loss 1%", "reno"] == "–" and grid.loc["2 flows", "bbr+cubic"] == "–"
    assert grid.loc["base", "cubic"] == grid.loc["loss 1%", "bbr+cubic"] == "not evaluated"
    assert list(grid.index) == [p.name for p in cf.matrix()]


def test_a_point_limited_to_unknown_algorithms_or_pairs_on_two_flows_is_refused():
    with pytest.raises(ValueError, match="only = \\['bbbr'\\] is not allowed"):
        cf.Point("x", only=("bbbr",))
    with pytest.raises(ValueError, match="cannot run a 2-flow point"):
        cf.Point("x", flows=2, only=("bbr+cubic",))
    assert cf.Point("x", only=("bbr",)).runs("bbr") and not cf.Point("x", only=("bbr",)).runs("reno")


def test_flows_started_together_split_their_first_windows_as_often_as_on_the_bed():
    """Where two flows start together (a two-flow point, or a pair on a one-flow point), a seed's
    run makes one flow (either) start SPLIT_START_DELAY late with the bed's measured share
    (data/bed_start_order.json), drawn from the seed alone; staggered points and single flows
    never split; the bed's own documents keep their flows' starts (their store keys, and so the
    archive, are unchanged); the ablation interleaves always."""
    measured = json.loads((Path(cf.__file__).with_name("data") / "bed_start_order.json").read_text())
    assert (measured["split_runs"], len(measured["runs"])) == (5, 30), "the measurement docs/kernel.md cites"
    assert pytest.approx(5 / 30) == cf.BED_SPLIT_START
    points = {p.name: p for p in cf.matrix()}
    together, staggered, single = points["2 flows"], points["2 flows staggered"], points["base"]
    # The seeds docs/kernel.md names: a changed draw would move verdicts silently.
    split = [s for s in range(1, 21) if cf.split_flow(together, 2, s, cf.BED_SPLIT_START) is not None]
    assert split == [2, 12, 17]
    draws = [cf.split_flow(together, 2, seed, cf.BED_SPLIT_START) for seed in range(1, 2001)]
    assert draws == [cf.split_flow(together, 2, seed, cf.BED_SPLIT_START) for seed in range(1, 2001)]
    share = sum(d is not None for d in draws) / len(draws)
    assert abs(share - cf.BED_SPLIT_START) < 0.03, share
    assert {d for d in draws if d is not None} == {0, 1}, "either flow may go second"
    assert all(
        cf.split_flow(p, p.flows, seed, 1.0) is None for p in (staggered, single) for seed in range(1, 50)
    )
    assert all(cf.split_flow(together, 2, seed, None) is None for seed in range(1, 50))
    seed = next(s for s in range(1, 200) if cf.split_flow(together, 2, s, cf.BED_SPLIT_START) is not None)
    late = cf.split_flow(together, 2, seed, cf.BED_SPLIT_START)
    exp = LinuxConformance()
    starts = [f["start"] for f in exp.scenario(together, "cubic", seed=seed).doc["flows"]]
    assert starts[late] == cf.SPLIT_START_DELAY and starts[1 - late] == 0
    interleaved = exp.scenario(together, "cubic", seed=seed, split_start=None)
    assert [f["start"] for f in interleaved.doc["flows"]] == [0, 0]
    kernel = {
        r.params["repeat"]: r
        for r in exp.runs(quick=False)
        if r.backend == "kernel"
        and r.params["scenario"] == together.name
        and r.params["algorithm"] == "cubic"
    }
    assert all(f["start"] == 0 for r in kernel.values() for f in r.scenario.doc["flows"]), (
        "the bed starts its own way"
    )
    bed = exp.bed_scenario(together, "cubic", seed=seed)
    assert [f["start"] for f in bed.doc["flows"]] == [0, 0], (
        "the bed's document, whichever way the seed splits"
    )
    # A pair on a one-flow point starts its two flows together too.
    pair_seed = next(s for s in range(1, 200) if cf.split_flow(single, 2, s, cf.BED_SPLIT_START) is not None)
    pair_starts = [f["start"] for f in exp.scenario(single, "bbr+cubic", seed=pair_seed).doc["flows"]]
    assert sorted(pair_starts) == [0, cf.SPLIT_START_DELAY]
    ablated = exp.bed_models()["first windows always interleaved"]
    assert [f["start"] for f in exp.scenario(together, "cubic", seed=seed, **ablated).doc["flows"]] == [0, 0]


def test_compare_shows_the_kernels_limited_times_beside_both_sides():
    table = pd.DataFrame(
        {"name": ["cubic0", "cubic1"], "goodput_bps_kernel": [4e6, 5e6], "goodput_bps_sim": [4.5e6, 4.5e6]}
    )
    kernel = pd.DataFrame(
        {"name": ["cubic1", "cubic0"], "busy_time": [30.0, 29.0], "rwnd_limited_time": [0.5, 0.0]}
    )
    got = with_kernel_only(table, kernel)
    assert list(got["busy_time_kernel"]) == [29.0, 30.0] and list(got["rwnd_limited_time_kernel"]) == [
        0.0,
        0.5,
    ]
    assert got["sndbuf_limited_time_kernel"].isna().all(), "a kernel run without the counter: NaN, not 0"
    assert list(got["goodput_bps_sim"]) == [4.5e6, 4.5e6]
