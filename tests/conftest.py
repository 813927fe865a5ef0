"""Shared fixtures: small scenarios that run in well under a second."""

from __future__ import annotations

from pathlib import Path

import pytest

import tcplab

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def small_dumbbell() -> tcplab.Scenario:
    sc = tcplab.Scenario.dumbbell(
        pairs=2, bottleneck=tcplab.link("10Mbps", "20ms", buffer=50), duration=10, sample_interval=0.1
    )
    return sc.add_flow("s0", "d0", cc="reno").add_flow("s1", "d1", cc="newreno", start={"uniform": [0, 2]})


@pytest.fixture
def examples_dir() -> Path:
    return ROOT / "examples"
