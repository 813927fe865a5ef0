"""The root causes a failing claim can be traced to.

A claim that does not hold with the papers' default readings is "explained" only with
evidence: an ablation (the same experiment with the one option of the cause changed) under
which it holds, or the arithmetic showing that the paper's own numbers cannot all be met.
This module names the causes; the ablations that test them live with their experiments, and
the report groups the failing claims by cause.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cause:
    key: str
    title: str
    #: The option that changes the reading, as a scenario would set it.
    option: str
    #: Why the paper admits more than one reading, in a sentence or two.
    why: str


CAUSES: dict[str, Cause] = {
    c.key: c
    for c in (
        Cause(
            "threshold-rule",
            "CODE / NewVegas threshold rule",
            'cc = { name = "code" | "newvegas", threshold_decrease = "rtt_not_greater" | '
            '"rtt_decreased" | "loss_only" }',
            "000's pseudocode lowers alpha when RTT <= RTT_old, which fires whenever the queue is "
            "flat; its prose says the RTT 'begins decreasing' (<); its model of section 3.3 "
            "(eqs. 13-17) lowers the thresholds only at a loss.",
        ),
        Cause(
            "veno-basertt-reset",
            "Veno's BaseRTT reset after a loss",
            'cc = { name = "veno", base_rtt_reset = "on_loss" | "never" }',
            "001 (section II) refreshes BaseRTT after each loss in its implementation; with "
            "background traffic the refreshed minimum includes the standing queue.",
        ),
        Cause(
            "vegasplus-count",
            "Vegas+ mode-switch count rule",
            'cc = { name = "vegas_plus", count_every = "ack" | "round", '
            'count_window = "not_increased" | "unchanged" }',
            "003 section 5.1 moves the count 'on every receipt of an ACK' but compares Vegas's "
            "RTT, which Vegas measures once per round; it lowers the count on any falling RTT, "
            "while 002 section 6, summarising the same rule, moves it either way only while the "
            "window is unchanged.",
        ),
        Cause(
            "stack-conventions",
            "TCP conventions the paper does not state",
            "[tcp] min_rto, delayed_ack, window_growth, stack",
            "The papers' simulators (NS-2) fixed these by default; a paper's numbers may rest on "
            "settings it does not print.",
        ),
        Cause(
            "pifs-backoff",
            "PIFS with or without backoff at the access point",
            '[topology] ap_access = "pifs", ap_backoff = true | false',
            "004 gives the AP PIFS access but does not say whether it still draws a backoff.",
        ),
        Cause(
            "ack-loss-pause",
            "How long 004's ACK-loss reaction pauses after a data loss",
            "cc = { ..., ack_loss_reaction = { pause_through_recovery = true | false } }",
            "004 section III-A stops counting lost ACKs for one RTT after a data loss, which covers a "
            "single-loss Reno recovery; NewReno's partial ACKs in a longer recovery jump by design, so "
            "the engine pauses until recovery ends by default.",
        ),
        Cause(
            "code-rtt",
            "CODE's RTT: the window's minimum or the target packet's",
            'cc = { name = "code", rtt = "min" | "last" }',
            "000 section 4.5 says CODE updates its thresholds with 'the minimum of the RTTs "
            "measured within the last window'; its pseudocode (section 3.2) is NewVegas's, whose "
            "RTT is 'the round-trip delay of the target packet' (section 2.4).",
        ),
        Cause(
            "ns2-vegas-diff",
            "NS-2 Vegas's whole-packet Delta",
            'cc = { name = "vegas" | "vegas_a" | "newvegas" | "code", diff_rounding = "exact" | "nearest" }',
            "000 simulated with NS-2 (section 4), whose Agent/TCP/Vegas, the base of its Vegas "
            "variants, rounds Delta to a whole packet (tcp-vegas.cc); eq. (1) as printed is a real "
            "number. Rounding makes Delta equal to a threshold often, where the rules keep still.",
        ),
        Cause(
            "phase-effects",
            "DropTail phase effects of a deterministic simulation",
            '[topology] pair_access = [{ jitter = { kind = "uniform", max = <one packet at the '
            "bottleneck> } }, ...] (a star: access = { ..., jitter = ... })",
            "A simulation without randomness in its packet timing locks flows into phases at a full "
            "DropTail queue: which flow's packet finds the queue full depends on sub-millisecond "
            "offsets, not on the congestion controls (Floyd & Jacobson 1992, who add a random delay of "
            "up to one bottleneck packet time at each sender, as NS-2's overhead_ does). The paper "
            "does not say whether its NS-2 runs were randomised.",
        ),
        Cause(
            "paper-inconsistent",
            "The paper's own numbers are inconsistent",
            "(none: arithmetic on published values)",
            "Two statements or numbers of the paper cannot hold together; the claim's "
            "explanation shows the arithmetic.",
        ),
        Cause(
            "single-run",
            "One deterministic run per point in the paper",
            "each point repeated over start phases (flows start uniformly in [0, 1] s, seeds)",
            "The paper reports a single deterministic simulation per point, whose outcome can "
            "hinge on the phase at which the flows meet; the claim's explanation counts the "
            "phases of ours that show the paper's outcome.",
        ),
        Cause(
            "vegas-module",
            "Which Vegas implementation 004 ran",
            'cc = { name = "vegas", variant = "linux" | "paper", rtt = "min" | "mean" }',
            "004 section II-A says it used each variant's own NS-2 module where one exists (NS-2 "
            "has Agent/TCP/Vegas, which takes the mean of a round's RTT samples) and Linux code "
            "otherwise, yet describes Vegas by Linux's rule (the minimum RTT of each round).",
        ),
    )
}


def cause(key: str) -> Cause:
    try:
        return CAUSES[key]
    except KeyError:
        raise KeyError(f"no root cause named {key!r}; known: {', '.join(CAUSES)}") from None
