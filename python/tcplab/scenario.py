"""Scenario documents: load TOML files or build them in Python.

A :class:`Scenario` is a thin wrapper around the same document a TOML file holds, so a
scenario built in Python can be saved, diffed and re-run from the command line.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from . import _engine
from .document import plain_document
from .errors import OutputError, ScenarioError


def link(
    rate: str | float,
    delay: str | float,
    buffer: int = 100,
    *,
    jitter: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A link spec: ``link("10Mbps", "23ms", buffer=100, loss={"model": "bernoulli", "p": 0.01})``.

    ``jitter`` adds a random extra delay per packet in the forward direction that never
    reorders packets, e.g. ``{"kind": "uniform", "max": "0.3ms"}`` or
    ``{"kind": "exponential", "mean": "0.1ms", "max": "1ms"}`` (docs/scenario.md); the
    default, None, is no jitter.
    """
    spec = {"rate": rate, "delay": delay, "buffer": buffer, **extra}
    if jitter is not None:
        spec["jitter"] = jitter
    return spec


class Scenario:
    """A scenario document (``simulation``, ``topology``, ``tcp``, ``flows``)."""

    def __init__(self, doc: dict[str, Any]):
        self.doc: dict[str, Any] = plain_document(doc)

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_toml(cls, text: str) -> Scenario:
        if not isinstance(text, str):
            raise ScenarioError("", f"TOML text must be a str, not {type(text).__name__}")
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError("", f"not valid TOML: {e}") from None
        except RecursionError:
            raise ScenarioError("", "not valid TOML: arrays or tables nested too deeply") from None
        return cls(doc)

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Reads a UTF-8 scenario file (a leading byte-order mark is allowed)."""
        p = Path(path)
        if not p.is_file():
            raise ScenarioError("", f"no scenario file at {str(p)!r}")
        try:
            data = p.read_bytes()
        except OSError as e:
            raise ScenarioError("", f"cannot read the file: {e.strerror}") from None
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = data[: e.start].count(b"\n") + 1
            raise ScenarioError(
                "",
                f"not UTF-8 text: byte 0x{data[e.start]:02x} on line {line} cannot be read; "
                "save the file as UTF-8",
            ) from None
        return cls.from_toml(text)

    @classmethod
    def _preset(cls, topology: dict[str, Any], duration: float, seed: int, **sim: Any) -> Scenario:
        return cls(
            {"simulation": {"duration": duration, "seed": seed, **sim}, "topology": topology, "flows": []}
        )

    @classmethod
    def dumbbell(
        cls,
        pairs: int,
        bottleneck: dict[str, Any],
        access: dict[str, Any] | None = None,
        pair_access: list[dict[str, Any]] | None = None,
        duration: float = 60.0,
        seed: int = 1,
        **sim: Any,
    ) -> Scenario:
        """Senders ``s0..`` -- ``r0`` == bottleneck == ``r1`` -- receivers ``d0..``."""
        topo: dict[str, Any] = {"kind": "dumbbell", "pairs": pairs, "bottleneck": bottleneck}
        if access is not None:
            topo["access"] = access
        if pair_access:
            topo["pair_access"] = pair_access
        return cls._preset(topo, duration, seed, **sim)

    @classmethod
    def chain(
        cls,
        hops: int,
        pairs: int,
        hop: dict[str, Any],
        access: dict[str, Any] | None = None,
        duration: float = 60.0,
        seed: int = 1,
        **sim: Any,
    ) -> Scenario:
        """``s_i -- r0 == r1 == ... == r_hops -- d_i``."""
        topo: dict[str, Any] = {"kind": "chain", "hops": hops, "pairs": pairs, "hop": hop}
        if access is not None:
            topo["access"] = access
        return cls._preset(topo, duration, seed, **sim)

    @classmethod
    def star(
        cls,
        senders: int,
        bottleneck: dict[str, Any],
        access: dict[str, Any] | None = None,
        duration: float = 60.0,
        seed: int = 1,
        **sim: Any,
    ) -> Scenario:
        """Senders ``s0..`` -- ``r0`` == bottleneck == ``d0``."""
        topo: dict[str, Any] = {"kind": "star", "senders": senders, "bottleneck": bottleneck}
        if access is not None:
            topo["access"] = access
        return cls._preset(topo, duration, seed, **sim)

    # -- editing ------------------------------------------------------------------------
    def add_flow(self, src: str, dst: str, cc: str | dict[str, Any] = "reno", **options: Any) -> Scenario:
        """Adds a flow entry (``count``, ``start``, ``stop``, ``bytes``, ``tcp``, ``name``...)."""
        self.doc.setdefault("flows", []).append({"src": src, "dst": dst, "cc": cc, **options})
        return self

    def set_tcp(self, **options: Any) -> Scenario:
        """Sets TCP defaults for every flow (``mss``, ``rwnd``, ``delayed_ack``...)."""
        self.doc.setdefault("tcp", {}).update(options)
        return self

    def with_seed(self, seed: int) -> Scenario:
        s = Scenario(self.doc)
        s.doc.setdefault("simulation", {})["seed"] = seed
        return s

    # -- output -------------------------------------------------------------------------
    def to_toml(self) -> str:
        return tomli_w.dumps(plain_document(self.doc))

    def save(self, path: str | Path) -> None:
        text = self.to_toml()
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as e:
            raise OutputError(f"cannot write the scenario to {str(path)!r}: {e.strerror}") from None

    def validate(self) -> str:
        """Checks the document; returns its canonical form or raises :class:`ScenarioError`."""
        try:
            return _engine.validate(self.to_toml())
        except _engine.ScenarioError as e:
            raise ScenarioError(*e.args) from None

    def __repr__(self) -> str:
        doc = self.doc if isinstance(self.doc, dict) else {}
        topo = doc.get("topology")
        kind = topo.get("kind", "?") if isinstance(topo, dict) else "?"
        flows = doc.get("flows")
        return f"Scenario({kind}, {len(flows) if isinstance(flows, list) else 0} flow entries)"
