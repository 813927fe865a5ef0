"""Hostile calls of the Python API: each must raise the package's own error (ScenarioError
with the field, or OutputError naming the destination), never anything else.

Each case is (name, call, field, text): ``call(tmp)`` gets a scratch directory, ``field``
is the ScenarioError's field (None for an OutputError) and ``text`` a part of the message.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import tcplab
from tcplab import Scenario, link

Case = tuple[str, Callable[[Path], Any], str | None, str]


def doc() -> dict[str, Any]:
    """A small valid document, fresh for each case to spoil."""
    return {
        "simulation": {"duration": 1},
        "topology": {
            "kind": "dumbbell",
            "pairs": 1,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "buffer": 50},
        },
        "flows": [{"src": "s0", "dst": "d0", "cc": "reno"}],
    }


def spoil(path: str, value: Any) -> dict[str, Any]:
    """``doc()`` with the value at a dotted path (list indices as numbers) replaced."""
    d = doc()
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    target: Any = d
    for p in parents:
        target = target[p] if isinstance(target, list) else target.setdefault(p, {})
    target[last] = value
    return d


def self_containing() -> dict[str, Any]:
    d = doc()
    d["simulation"]["me"] = d
    return d


def mutually_containing() -> dict[str, Any]:
    d = doc()
    a: dict[str, Any] = {}
    a["b"] = {"a": a}
    d["flows"][0]["x"] = a
    return d


def list_containing_itself() -> dict[str, Any]:
    d = doc()
    loop: list[Any] = []
    loop.append(loop)
    d["simulation"]["measure"] = loop
    return d


def nested(levels: int) -> dict[str, Any]:
    inner: Any = 1
    for _ in range(levels):
        inner = {"x": inner}
    return spoil("flows.0.x", inner)


def custom(nodes: list[str], links: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "simulation": {"duration": 1},
        "topology": {
            "kind": "custom",
            "nodes": nodes,
            "links": [{"between": [a, b], "rate": 1e6, "delay": 0.01} for a, b in links],
        },
        "flows": [{"src": nodes[0], "dst": nodes[1], "cc": "reno"}],
    }


def many_flows(n: int) -> dict[str, Any]:
    d = doc()
    d["flows"] = [{"src": "s0", "dst": "d0", "cc": "reno", "name": f"f{i}"} for i in range(n)]
    d["flows"].append({"src": "s0", "dst": "nowhere", "cc": "reno"})
    return d


def validate(d: Any) -> Callable[[Path], Any]:
    return lambda tmp: Scenario(d).validate()


def built(build: Callable[..., Any], *args: Any) -> Callable[[Path], Any]:
    """Validates ``build(*args)``, made only when the case runs (large documents)."""
    return lambda tmp: Scenario(build(*args)).validate()


def run(d: Any, **kw: Any) -> Callable[[Path], Any]:
    return lambda tmp: tcplab.run(d, **kw)


def later_doc(value: Any) -> Callable[[Path], Any]:
    """A document changed after the Scenario was made: checked again when written."""

    def call(tmp: Path) -> Any:
        sc = Scenario(doc())
        sc.doc = value
        return sc.validate()

    return call


def write_file(data: bytes) -> Callable[[Path], Any]:
    def call(tmp: Path) -> Any:
        f = tmp / "s.toml"
        f.write_bytes(data)
        return tcplab.run(f)

    return call


def save_to_directory(tmp: Path) -> Any:
    return Scenario(doc()).save(tmp)


UNHASHABLE_SET = {1, 2}
NOT_A_VALUE = "is not a value a scenario can hold"
NOT_A_SCENARIO = "a scenario is a Scenario, a dict, TOML text or a path"
SEED = "a seed is an integer from 0 to 2^64-1"

CASES: list[Case] = [
    # what is not a document at all
    ("doc-none", lambda tmp: Scenario(None), "", "table of sections"),
    ("doc-list", lambda tmp: Scenario([1, 2]), "", "table of sections"),
    ("doc-text-as-dict", lambda tmp: Scenario("[simulation]"), "", "table of sections"),
    ("doc-replaced-later", later_doc([1]), "", "table of sections"),
    ("run-int", run(12), "", NOT_A_SCENARIO),
    ("run-none", run(None), "", NOT_A_SCENARIO),
    ("run-bytes", run(b"[simulation]\nduration = 1\n"), "", NOT_A_SCENARIO),
    ("run-list", run([doc()]), "", NOT_A_SCENARIO),
    ("from-toml-bytes", lambda tmp: Scenario.from_toml(b"x = 1"), "", "must be a str"),
    ("from-toml-deep", lambda tmp: Scenario.from_toml("a = " + "[" * 50_000), "", "not valid TOML"),
    ("run-missing-file", run("no/such/dir/s.toml"), "", "no scenario file"),
    ("run-directory", lambda tmp: tcplab.run(tmp), "", "no scenario file"),
    ("run-latin1-file", write_file("# caf\xe9\n".encode("latin-1")), "", "not UTF-8 text"),
    ("run-utf16-file", write_file("x = 1\n".encode("utf-16")), "", "not UTF-8 text"),
    # values TOML cannot hold
    ("value-object", validate(spoil("simulation.duration", object())), "simulation.duration", NOT_A_VALUE),
    ("value-set", validate(spoil("simulation.duration", UNHASHABLE_SET)), "simulation.duration", NOT_A_VALUE),
    ("value-bytes", validate(spoil("flows.0.name", b"bulk")), "flows[0].name", NOT_A_VALUE),
    ("value-complex", validate(spoil("simulation.duration", 1 + 2j)), "simulation.duration", NOT_A_VALUE),
    (
        "value-decimal",
        validate(spoil("simulation.duration", decimal.Decimal("1.5"))),
        "simulation.duration",
        NOT_A_VALUE,
    ),
    ("value-function", validate(spoil("flows.0.cc", print)), "flows[0].cc", NOT_A_VALUE),
    (
        "value-ndarray",
        validate(spoil("simulation.measure", np.array([0.0, 1.0]))),
        "simulation.measure",
        NOT_A_VALUE,
    ),
    ("value-generator", validate(spoil("flows", (f for f in doc()["flows"]))), "flows", NOT_A_VALUE),
    (
        "value-cc-param-set",
        validate(spoil("flows.0.cc", {"name": "vegas", "alpha": {1, 2}})),
        "flows[0].cc.alpha",
        NOT_A_VALUE,
    ),
    (
        "none-in-list",
        validate(spoil("simulation.measure", [0, None])),
        "simulation.measure[1]",
        "None (in a list)",
    ),
    ("int-key", validate(spoil("simulation", {1: 2})), "simulation", "keys must be strings"),
    ("tuple-key", validate(spoil("flows.0.tcp", {("mss",): 536})), "flows[0].tcp", "keys must be strings"),
    ("surrogate-value", validate(spoil("flows.0.name", "bulk\udc80")), "flows[0].name", "not valid Unicode"),
    (
        "surrogate-key",
        validate(spoil("flows.0.tcp", {"ms\ud800s": 536})),
        "flows[0].tcp",
        "not valid Unicode",
    ),
    (
        "int-too-big",
        validate(spoil("topology.pairs", 10**20)),
        "topology.pairs",
        "does not fit a TOML integer",
    ),
    (
        "int-too-small",
        validate(spoil("topology.pairs", -(10**20))),
        "topology.pairs",
        "does not fit a TOML integer",
    ),
    (
        "numpy-uint64-max",
        validate(spoil("simulation.seed", np.uint64(2**64 - 1))),
        "simulation.seed",
        "does not fit",
    ),
    ("self-containing", validate(self_containing()), "simulation.me", "contains itself"),
    ("mutually-containing", validate(mutually_containing()), "flows[0].x.b.a", "contains itself"),
    (
        "list-containing-itself",
        validate(list_containing_itself()),
        "simulation.measure[0]",
        "contains itself",
    ),
    ("nested-100", validate(nested(100)), "flows[0]" + ".x" * 30, "nested more than 32 levels"),
    ("nested-100000", validate(nested(100_000)), "flows[0]" + ".x" * 30, "nested more than 32 levels"),
    # values of the wrong kind or range, caught by the engine with the field
    ("bool-pairs", validate(spoil("topology.pairs", True)), "topology.pairs", "invalid type"),
    (
        "nan-duration",
        validate(spoil("simulation.duration", float("nan"))),
        "simulation.duration",
        "not allowed",
    ),
    (
        "inf-rate",
        validate(spoil("topology.bottleneck.rate", float("inf"))),
        "topology.bottleneck.rate",
        "not allowed",
    ),
    (
        "negative-zero-duration",
        validate(spoil("simulation.duration", -0.0)),
        "simulation.duration",
        "not allowed",
    ),
    (
        "numpy-nan",
        validate(spoil("simulation.duration", np.float64("nan"))),
        "simulation.duration",
        "not allowed",
    ),
    (
        "date-start",
        validate(spoil("flows.0.start", datetime.date(2024, 1, 1))),
        "flows[0].start",
        "not a duration",
    ),
    (
        "megabytes-shouted",
        validate(spoil("topology.bottleneck.rate", "10MBPS")),
        "topology.bottleneck.rate",
        "case-sensitive",
    ),
    (
        "rate-as-duration",
        validate(spoil("simulation.duration", "10MBps")),
        "simulation.duration",
        "unknown time unit",
    ),
    ("src-missing", validate(spoil("flows.0.src", None)), "flows[0]", "missing field `src`"),
    ("empty-dict", validate({}), "", "missing field"),
    ("unknown-section", validate({**doc(), "simulator": {}}), "simulator", "unknown field"),
    (
        "huge-cc-name",
        built(spoil, "flows.0.cc", "x" * 1_000_000),
        "flows[0].cc.name",
        "unknown congestion control",
    ),
    # huge arrays: refused quickly, the field named
    ("flows-10k-last-bad", built(many_flows, 10_000), "flows[10000].dst", "no node named"),
    (
        "pair-access-50k",
        built(spoil, "topology.pair_access", [{"delay": "1ms"}] * 50_000),
        "topology.pair_access",
        "at most one per pair",
    ),
    (
        "measure-200k",
        built(spoil, "simulation.measure", list(range(200_000))),
        "simulation.measure",
        "invalid length",
    ),
    (
        "nodes-100k-duplicate",
        built(custom, [f"n{i}" for i in range(100_000)] + ["n5"], [("n0", "n1")]),
        "topology.nodes[100000]",
        "named twice",
    ),
    (
        "links-10k-duplicate",
        built(
            lambda: custom(
                [f"n{i}" for i in range(10_001)],
                [(f"n{i}", f"n{i + 1}") for i in range(10_000)] + [("n7", "n6")],
            )
        ),
        "topology.links[10000].between",
        "already joined by topology.links[6]",
    ),
    # the builders
    (
        "dumbbell-negative",
        lambda tmp: Scenario.dumbbell(-1, link("10Mbps", "1ms")).add_flow("s0", "d0").validate(),
        "topology.pairs",
        "invalid value",
    ),
    (
        "chain-zero-hops",
        lambda tmp: Scenario.chain(0, 1, link("10Mbps", "1ms")).add_flow("s0", "d0").validate(),
        "topology.hops",
        "not allowed",
    ),
    (
        "star-ten-million",
        lambda tmp: Scenario.star(10**7, link("10Mbps", "1ms")).add_flow("s0", "d0").validate(),
        "topology.senders",
        "more than",
    ),
    (
        "link-object-rate",
        lambda tmp: Scenario.dumbbell(1, link(object(), "1ms")),
        "topology.bottleneck.rate",
        NOT_A_VALUE,
    ),
    (
        "link-mbps-lower",
        lambda tmp: Scenario.dumbbell(1, link("10mbps", "1ms")).add_flow("s0", "d0").validate(),
        "topology.bottleneck.rate",
        'did you mean "Mbps"',
    ),
    (
        "add-flow-object-cc",
        lambda tmp: Scenario.dumbbell(1, link("10Mbps", "1ms")).add_flow("s0", "d0", cc=object()).validate(),
        "flows[0].cc",
        NOT_A_VALUE,
    ),
    (
        "set-tcp-negative-mss",
        lambda tmp: Scenario(doc()).set_tcp(mss=-1).validate(),
        "tcp.mss",
        "invalid value",
    ),
    (
        "set-tcp-nan-mss",
        lambda tmp: Scenario(doc()).set_tcp(mss=float("nan")).validate(),
        "tcp.mss",
        "invalid type",
    ),
    (
        "with-seed-negative",
        lambda tmp: Scenario(doc()).with_seed(-1).validate(),
        "simulation.seed",
        "invalid value",
    ),
    (
        "duplicate-flow-names",
        lambda tmp: Scenario(doc()).add_flow("s0", "d0", name="flow0").validate(),
        "flows[1].name",
        "also the name",
    ),
    # seeds
    ("seed-negative", run(doc(), seed=-1), "seed", SEED),
    ("seed-2-64", run(doc(), seed=2**64), "seed", SEED),
    ("seed-float", run(doc(), seed=1.0), "seed", SEED),
    ("seed-string", run(doc(), seed="7"), "seed", SEED),
    ("seed-bool", run(doc(), seed=True), "seed", SEED),
    ("seed-numpy-negative", run(doc(), seed=np.int64(-5)), "seed", SEED),
    # output
    ("save-to-directory", save_to_directory, None, "cannot write the scenario"),
]
