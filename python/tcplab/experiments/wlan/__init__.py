"""Hashimoto, Hasegawa & Murata, "Performance evaluation and improvement of hybrid TCP
congestion control mechanisms in wireless LAN environment" (paper 004): TCP variants over an
IEEE 802.11a WLAN, the ACK-loss unfairness at the access point, and the proposed reaction to
lost ACKs.

One module per figure (``fig2_4.py`` is ``wlan/fig2-4``); ``paper.py`` holds the WLAN of fig. 1
as a scenario, every variant's parameters, the fairness methods of section III-B and the
numbers the paper prints; ``measure.py`` what the experiments measure from a run's records;
``methods.py`` the runs and tables figs. 8 and 10 share. The imports below register the
experiments in the report's order.
"""

# Registration: the experiments appear in the report in this order.
# isort: off
from . import fig2_4, fig5, fig6, fig7, fig8, fig10, fig9  # noqa: F401
# isort: on

# The paper's set-up and measures, for experiments built on it (beyond/...).
from .measure import per_flow_bars, run_summary
from .paper import (
    AP_BUFFER,
    DELAY_BASED,
    FAIR_JAIN,
    LABEL,
    LOSS_BASED,
    MSS,
    SETUP,
    UNFAIR_RATIO,
    cc_spec,
    duration_of,
    wlan_scenario,
)

__all__ = [
    "AP_BUFFER",
    "DELAY_BASED",
    "FAIR_JAIN",
    "LABEL",
    "LOSS_BASED",
    "MSS",
    "SETUP",
    "UNFAIR_RATIO",
    "cc_spec",
    "duration_of",
    "per_flow_bars",
    "run_summary",
    "wlan_scenario",
]
