"""The kernel test bed: a simulator scenario on real Linux TCP in network namespaces."""

from .available import available
from .net import TestbedError, cleanup
from .plan import TestbedPlan, plan
from .runner import run_scenario

__all__ = ["TestbedError", "available", "TestbedPlan", "cleanup", "plan", "run_scenario"]
