"""Errors raised by tcplab, each saying what to fix."""

from __future__ import annotations


class ScenarioError(ValueError):
    """A scenario document is invalid: ``field`` names where, ``message`` what is allowed."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)

    def __reduce__(self):  # rebuilt from both parts when it crosses a process boundary
        return (type(self), (self.field, self.message))


class SimulationError(RuntimeError):
    """The engine found an internal inconsistency (a packet-accounting violation): a bug."""


class OutputError(OSError):
    """Output could not be written where it was asked for (pcap traces, ``--out``,
    ``--report``, ``--store``, ``--export``, a saved scenario)."""


class TestbedError(RuntimeError):
    """The kernel test bed could not carry out a run it had started (a tool failed, a
    sampler died, a flow delivered nothing): the run is no measurement and is not stored."""
