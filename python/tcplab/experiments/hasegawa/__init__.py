"""Hasegawa, Kurata & Murata, "Analysis and improvement of fairness between TCP Reno and Vegas
for deployment of TCP Vegas to the Internet" (ICNP 2000, paper 003): Reno against Vegas behind
DropTail and RED, Vegas+ and ZL-RED.

One module per figure (``fig7_8.py`` is ``hasegawa/fig7-8``); ``paper.py`` holds the fig. 1
network as a scenario, its routers and Vegas-side variants and the settings all simulations
share (003 prints plots only: no published numbers); ``measure.py`` what the buffer sweeps
measure and check, ``model.py`` the paper's analytical models, ``plots.py`` the sweeps' figures.
The imports below register the experiments in the report's order.
"""

# Registration: the experiments appear in the report in this order.
# isort: off
from . import fig3, fig4, fig6, fig7_8, fig9, fig11, fig12  # noqa: F401
# isort: on

from .paper import hasegawa_scenario

__all__ = ["hasegawa_scenario"]
