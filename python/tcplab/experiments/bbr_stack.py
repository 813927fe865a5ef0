"""The TCP under BBR in the experiments that put it beside the papers' algorithms.

The papers' set-ups run the NS-2 stack: cumulative ACKs only, go-back-N after a timeout.
BBR v1 keeps sending at its estimated rate through losses, which assumes Linux's loss
recovery (SACK, RACK, PRR: tcp_bbr.c runs over it). On the NS-2 stack its losses end in
retransmission timeouts. So BBR's flows run the ``linux`` stack with the set-up's segment
size and ACK policy (1000-byte segments, an ACK per segment), and the papers' algorithms keep
the stack their papers ran. The experiments show BBR on the NS-2 stack as a second reading.
"""

from __future__ import annotations

from ..scenario import Scenario
from .ablation import doc_flows_with_cc

#: BBR's TCP: Linux's loss recovery on the papers' 1000-byte segments, an ACK per segment.
LINUX_UNDER_BBR = {"stack": "linux", "mss": 1000, "delayed_ack": False}
#: The readings: "linux" (the default) or "ns2" (the papers' stack, BBR without SACK).
STACKS = ("linux", "ns2")


def with_bbr_stack(sc: Scenario, stack: str = "linux") -> Scenario:
    """``sc`` with every BBR flow on ``stack``: "linux" sets LINUX_UNDER_BBR on its flows;
    "ns2" leaves the scenario's own stack."""
    if stack not in STACKS:
        raise ValueError(f"stack must be one of {', '.join(STACKS)}, got {stack!r}")
    if stack == "linux":
        for flow in doc_flows_with_cc(sc.doc, "bbr"):
            flow["tcp"] = {**flow.get("tcp", {}), **LINUX_UNDER_BBR}
    return sc
