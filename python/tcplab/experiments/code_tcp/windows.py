"""The windows, thresholds and bottleneck queue of a few flows over time (figs. 16-18): what they
plot and measure, and why CODE's thresholds stay high."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from ...result import Result


def bottleneck_queue(res: Result) -> pd.DataFrame:
    """The samples of the dumbbell's bottleneck queue, in time order."""
    q = res.queues
    return q[q["link_name"] == "r0->r1"].sort_values("time")


def plot_windows(ax, res: Result, label: Callable[[int], str]) -> None:
    """Each flow's window (solid) and, for the adaptive variants, its alpha (dotted, same colour)."""
    for i, (fid, f) in enumerate(res.series.groupby("flow")):
        ax.plot(f["time"], f["cwnd"], lw=0.9, color=f"C{i}", label=f"{label(int(fid))} cwnd")
        a = res.cc_var(int(fid), "alpha")
        if len(a) and a["value"].max() > a["value"].min():
            ax.plot(a["time"], a["value"], lw=0.8, ls=":", color=f"C{i}", label=f"{label(int(fid))} alpha")


def final_alpha(res: Result) -> dict[int, float]:
    """Each flow's last sampled alpha (empty for algorithms without one)."""
    a = res.cc_vars[res.cc_vars["name"] == "alpha"].sort_values("time")
    return {int(k): float(v) for k, v in a.groupby("flow")["value"].last().items()}


RATCHET_NOTE = (
    "Why CODE's thresholds stay high among CODE flows: the rule of section 3.2 adds 2 to alpha and beta "
    "in a round whose RTT grew while the flow's own window did not, and takes only 1 away in a round whose "
    "RTT did not grow. When one CODE flow adds a packet, the other sees its RTT grow with an unchanged "
    "window and raises its thresholds, then adds a packet itself, which the first reads the same way; the "
    "+2/-1 asymmetry settles in a cycle (+2, -1, -1) far above alpha0 instead of returning to it. The "
    "same happens with the round's mean or smoothed RTT in place of the minimum (checked by hand with the "
    "engine's `rtt` option on the fig. 17 pair: queue 86 packets either way), so it is the rule rather "
    "than the RTT estimate (with the last RTT of the round the pair overflows the buffer instead, and "
    "epsilon scales both thresholds below alpha0). The paper's figs. 16-18 "
    "show CODE returning to Vegas-like thresholds; its text gives no mechanism that would stop this "
    "escalation, so we report the disagreement rather than change the rule."
)
