"""Fu & Liew, "TCP Veno: TCP enhancement for transmission over wireless access networks"
(IEEE JSAC 21(2), 2003; paper 001): Reno against Veno under random loss, Veno's loss
classification, and Reno/Veno coexistence.

One module per figure or table (``fig5.py`` is ``veno/fig5``); ``paper.py`` holds the test
beds as scenarios and every number the paper prints, ``measure.py`` what several figures
measure. The imports below register the experiments in the report's order.
"""

# Registration: the experiments appear in the report in this order.
# isort: off
from . import fig4, fig5, table1, fig6, fig7, fig1_2, tables2_4  # noqa: F401
# isort: on

from .paper import router_scenario, wireless_scenario

__all__ = ["router_scenario", "wireless_scenario"]
