"""bench/ns3/dumbbell's arguments from tcplab documents (bench/run.py, dumbbell_args): the
translation bench/bbr_side_by_side.py runs ns-3 with (no ns-3 needed)."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from tcplab.testbed import conformance as cf

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import run as bench  # noqa: E402


def args_of(doc: dict) -> dict[str, str]:
    out = {}
    for a in bench.dumbbell_args(doc, sack=True):
        key, _, value = a.removeprefix("--").partition("=")
        out[key] = value
    return out


def point(name: str) -> cf.Point:
    return next(p for p in cf.matrix() if p.name == name)


def test_the_base_point_against_cubic_keeps_segments_frames_buffer_and_seed():
    doc = cf.scenario(point("base"), "bbr+cubic", seed=2, jitter=None, burst=None, shared_hosts=False).doc
    a = args_of(doc)
    assert a["cc"] == "bbr,cubic"
    assert a["stack"] == "linux"
    assert a["segmentSize"] == "1000"
    # A 1000-byte segment is 1054 bytes on ns-3's wire and 1066 in tcplab: rates scaled so a
    # frame takes as long, which keeps cf.metrics' capacity (rate x 1000 / 1066) the same.
    assert a["bottleneckRate"] == f"{10e6 * 1054 / 1066:.0f}bps"
    assert a["accessRate"] == f"{1e9 * 1054 / 1066:.0f}bps"
    assert a["bottleneckDelay"] == "18000000ns"
    assert a["accessDelay"] == "1000000ns"
    assert a["bottleneckBuffer"] == str(point("base").buffer_packets) == "47"
    assert a["accessBuffer"] == "100"  # tcplab's default for an access table without one
    assert a["seed"] == "2"
    assert a["sampleInterval"] == "0.01"
    assert a["duration"] == "30.0"
    assert "loss" not in a and "starts" not in a


def test_loss_and_staggered_starts_are_carried():
    lossy = cf.scenario(point("loss 0.5%"), "bbr", jitter=None, burst=None, shared_hosts=False).doc
    assert lossy["topology"]["bottleneck"]["loss"]["stream"] == "drand48"  # ns-3 draws its own
    assert args_of(lossy)["loss"] == "0.005"
    apart = cf.scenario(point("2 flows staggered"), "bbr", jitter=None, burst=None, shared_hosts=False)
    staggered = args_of(apart.doc)
    assert staggered["starts"] == "0.0,5.0"
    assert staggered["cc"] == "bbr,bbr"


def test_the_suite_scenarios_translate_as_before():
    doc = tomllib.loads((BENCH / "scenarios" / "a.toml").read_text())
    a = args_of(doc)
    assert a["bottleneckRate"] == "10000000bps"
    assert a["accessBuffer"] == "1000"
    assert a["stack"] == "ns2"
    assert not {"segmentSize", "loss", "starts", "seed"} & set(a)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["flows"][1].update(cc="cubic"), "hystart = true"),
        (
            lambda d: d["flows"][1].update(cc={"name": "cubic", "hystart": True, "variant": "rfc9438"}),
            "hystart = true",
        ),
        (lambda d: d["tcp"].update(rack=False), "rack"),
        (
            lambda d: d["topology"]["bottleneck"].update(loss={"model": "gilbert_elliott", "p": 0.1}),
            "Bernoulli",
        ),
        (lambda d: d["topology"]["bottleneck"].update(jitter={"kind": "uniform", "max": "1ms"}), "jitter"),
        (lambda d: d["topology"]["bottleneck"].update(burst="3ms"), "burst"),
        (lambda d: d["flows"][0].update(schedule=[[0, 1]]), "schedule"),
        (lambda d: d["flows"][1].update(src="s0", dst="d0"), "its own sender and receiver"),
        (lambda d: d["flows"][1].update(src="s0"), "share a host"),
    ],
)
def test_what_ns3_cannot_model_is_refused_by_name(change, message):
    doc = cf.scenario(point("base"), "bbr+cubic", jitter=None, burst=None, shared_hosts=False).doc
    change(doc)
    with pytest.raises(SystemExit, match=message):
        bench.dumbbell_args(doc, sack=True)
