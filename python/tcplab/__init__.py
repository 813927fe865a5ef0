"""tcplab: a congestion-control laboratory.

>>> import tcplab
>>> sc = tcplab.Scenario.dumbbell(1, tcplab.link("10Mbps", "23ms", buffer=100), duration=30)
>>> res = tcplab.run(sc.add_flow("s0", "d0", cc="reno"))
>>> res.flows[["name", "goodput_bps"]]
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _dist_version

from ._engine import ENGINE_COMMIT, ENGINE_VERSION
from ._engine import algorithms as _algorithms
from .errors import OutputError, ScenarioError, SimulationError
from .result import Result, jain_index
from .runner import run
from .scenario import Scenario, link

__all__ = [
    "ENGINE_COMMIT",
    "ENGINE_VERSION",
    "OutputError",
    "Result",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "algorithms",
    "capabilities",
    "jain_index",
    "link",
    "run",
    "__version__",
]

try:
    __version__ = _dist_version("tcplab")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = ENGINE_VERSION


def capabilities() -> dict[str, list[str]]:
    """What this installation can run: the engine's mechanisms by kind ("cc", "queue",
    "topology", "loss", "jitter", "traffic") and "testbed": ["kernel"] when the kernel test bed can run."""
    from . import _engine
    from .testbed.available import available

    caps = {k: list(v) for k, v in _engine.capabilities().items()}
    caps["testbed"] = ["kernel"] if available() else []
    return caps


def algorithms() -> list[str]:
    """Names of the congestion-control algorithms the engine knows."""
    return list(_algorithms())
