"""BBR v1's share of a bottleneck it shares with loss-based flows: the model of Ware, Mukerjee,
Seshan and Sherry, "Modeling BBR's Interactions with Loss-Based Congestion Control" (IMC 2019,
doi:10.1145/3355369.3355604), section 4.

The model's premise: against flows that keep the drop-tail queue full, BBR is limited by its
in-flight cap ``2 * BtlBw_est * RTT_est`` (eq. 1) rather than by its pacing rate. With ``N``
BBR flows on a link of ``c`` packets per second, base RTT ``l`` and a queue of ``q = X c l``
packets, and ``p`` the loss-based flows' share of the queue (and so of the link):

* BBR's bandwidth estimate is its share of the link, ``(1 - p) c`` (eq. 2);
* its RTT estimate, taken in PROBE_RTT when its own packets have left the queue, holds the
  loss-based flows' part of the queue and the ``4N`` packets BBR keeps in flight there:
  ``RTT_est = (p q + 4N) / c + l`` (eq. 7);
* its in-flight data is its share of the queue and of the pipe, ``(1 - p)(q + c l)``; setting
  that equal to the cap ``2 (1 - p) c RTT_est`` (eq. 8) gives
  ``p = 1/2 - 1/(2X) - 4N/q`` (eq. 9), and ``p = 0`` (BBR takes the whole link) where that
  is negative: the cap then exceeds the pipe and the buffer together.
* Every 10 s (the min-RTT filter's window) BBR spends the time the full queue takes to drain,
  200 ms and a round trip in PROBE_RTT, sending almost nothing (eq. 11), so over a run its
  share is ``(1 - p)(1 - (q/c + 0.2 + l) / 10)`` (eq. 10).

The share of BBR does not depend on the number of loss-based flows: no term counts them.
The authors state the model's accuracy as a median error of 5 % against CUBIC and 8 % against
Reno (R. Ware, "Modeling BBRv1's interactions with loss-based congestion control", CMU CSD
blog, 2024, summarising the paper's validation on 1 to 64 BDP buffers).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _check

__all__ = ["WareShare", "ware_bbr_share", "ware_rtt_estimate_s", "WARE_STATED_MEDIAN_ERROR"]

#: The model's stated accuracy against CUBIC: a median error of 5 % (of the link).
WARE_STATED_MEDIAN_ERROR = 0.05
#: Linux tcp_bbr.c: bbr_min_rtt_win_sec, bbr_probe_rtt_mode_ms and bbr_cwnd_min_target.
MIN_RTT_WINDOW_S = 10.0
PROBE_RTT_S = 0.2
PROBE_RTT_PACKETS = 4


@dataclass(frozen=True)
class WareShare:
    """The model's quantities for one bottleneck."""

    #: The buffer in bandwidth-delay products, ``X = q / (c l)``.
    buffer_bdp: float
    #: ``p``: the loss-based flows' share of the queue and the link (eq. 9, at least 0).
    loss_based_share: float
    #: BBR's RTT estimate, s (eq. 7 at ``p``).
    rtt_estimate_s: float
    #: The BBR flows' aggregate in-flight cap, packets (eq. 8 at ``p``).
    in_flight_cap_packets: float
    #: The share of time in PROBE_RTT (eq. 11 over the run's duration).
    probe_rtt_share: float
    #: The BBR flows' aggregate share of the link (eq. 10).
    bbr_share: float


def ware_rtt_estimate_s(
    loss_based_share: float,
    queue_packets: float,
    capacity_pps: float,
    base_rtt_s: float,
    bbr_flows: int = 1,
) -> float:
    """Eq. 7: the RTT BBR measures in PROBE_RTT when the loss-based flows hold
    ``loss_based_share`` of a full queue and the BBR flows ``4`` packets each."""
    p = _check.real("loss_based_share", loss_based_share)
    if not 0 <= p <= 1:
        raise ValueError(f"loss_based_share must be in [0, 1], got {loss_based_share!r}")
    q = _check.non_negative("queue_packets", queue_packets)
    c = _check.positive("capacity_pps", capacity_pps)
    l_s = _check.positive("base_rtt_s", base_rtt_s)
    n = _check.count("bbr_flows", bbr_flows, minimum=1)
    return (p * q + PROBE_RTT_PACKETS * n) / c + l_s


def ware_bbr_share(
    queue_packets: float, capacity_pps: float, base_rtt_s: float, bbr_flows: int = 1
) -> WareShare:
    """Eqs. 7-11 for a drop-tail queue of ``queue_packets`` on a link of ``capacity_pps``
    packets per second with base RTT ``base_rtt_s`` and ``bbr_flows`` BBR flows."""
    q = _check.positive("queue_packets", queue_packets)
    c = _check.positive("capacity_pps", capacity_pps)
    l_s = _check.positive("base_rtt_s", base_rtt_s)
    n = _check.count("bbr_flows", bbr_flows, minimum=1)
    x = q / (c * l_s)
    p = max(0.0, 0.5 - 1 / (2 * x) - PROBE_RTT_PACKETS * n / q)  # eq. 9
    rtt = ware_rtt_estimate_s(p, q, c, l_s, n)  # eq. 7
    cap = 2 * (1 - p) * c * rtt  # eq. 8
    probe = min(1.0, (q / c + PROBE_RTT_S + l_s) / MIN_RTT_WINDOW_S)  # eq. 11 / d
    return WareShare(x, p, rtt, cap, probe, (1 - p) * (1 - probe))  # eq. 10
