"""Chan, Lin, Chan and Ho, "CODE TCP: A competitive delay-based TCP" (Computer Communications
2010, paper 000; short name ``code``): one Reno flow against one Vegas, Vegas-A, NewVegas or
CODE flow, swept over bottleneck bandwidth, RTT, buffer size and flow mix; homogeneous
fairness; the epsilon analysis.

One module per figure or table (``fig9.py`` is ``code/fig9``, ``fig10_13.py`` is
``code/fig10-13``); ``paper.py`` holds the fig. 7 dumbbell as a scenario, the settings the
simulations share and every number the paper prints; ``sweep.py`` the Reno-against-one-flow
sweeps of figs. 9-15, ``windows.py`` the window and queue traces of figs. 16-18. The imports
below register the experiments in the report's order.
"""

# Registration: the experiments appear in the report in this order.
# isort: off
from . import fig3, fig9, fig10_13, fig14, fig15, table2, fig16, fig17_18  # noqa: F401
from . import table1, eq18, linux_fig19, table3  # noqa: F401
# isort: on

# The paper's set-up, for experiments built on it (beyond/...).
from .paper import BOTTLENECK_DELAY, MEASURE_FROM, code_scenario, timing

#: ``timing`` under the private name bbr_vegas.py imports it by (from before this package).

__all__ = ["BOTTLENECK_DELAY", "MEASURE_FROM", "code_scenario", "timing"]
