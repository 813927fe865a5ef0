"""Fahmy & Sharma, "Deployment considerations for the TCP Vegas congestion control algorithm"
(Purdue TR 03-022, 2003; paper 002): Reno against Vegas on a 0.5 Mb/s bottleneck.

One module per figure or table (``fig1_2.py`` is ``fahmy/fig1-2``); ``paper.py`` holds the
fig. 1 topology as a scenario, the repetitions over start phases and the numbers the paper
prints; ``measure.py`` what the two-flow experiments measure and claim; ``hops.py`` the runs
tables 4 and 5 share. The imports below register the experiments in the report's order.
"""

# Registration: the experiments appear in the report in this order.
# isort: off
from . import fig1_2, fig3, fig4, table4, table5  # noqa: F401
# isort: on

from .paper import fahmy_scenario

__all__ = ["fahmy_scenario"]
