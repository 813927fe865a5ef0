"""Steady-state throughput of one bulk Reno flow against a loss rate: Mathis, Semke, Mahdavi and Ott
(CCR 1997) and Padhye, Firoiu, Towsley and Kurose (SIGCOMM 1998; IEEE/ACM ToN 2000), "PFTK".

Throughputs are sending rates in bits per second for segments of ``mss_bytes``; the loss rate ``p`` is
the probability that a packet is lost (PFTK: that it is the first loss of a round), per packet.
"""

from __future__ import annotations

import math

from . import _check

__all__ = [
    "MATHIS_CONSTANT",
    "mathis_throughput_bps",
    "pftk_timeout_probability",
    "pftk_throughput_bps",
    "pftk_approx_throughput_bps",
]

#: ``C = sqrt(3/2)``: Mathis et al.'s constant for periodic loss and an ACK per packet.
MATHIS_CONSTANT = math.sqrt(1.5)


def mathis_throughput_bps(
    mss_bytes: float, rtt_s: float, loss_rate: float, *, constant: float = MATHIS_CONSTANT
) -> float:
    """Mathis et al. (1997), the macroscopic model: ``BW = (MSS / RTT) C / sqrt(p)``, here in bits per second.

    The default ``C = sqrt(3/2)`` is the paper's value for a deterministic sawtooth with an ACK per segment;
    with delayed ACKs (one ACK per ``b`` segments) the same argument gives ``sqrt(3 / (2b))``.
    """
    mss = _check.positive("mss_bytes", mss_bytes)
    rtt = _check.positive("rtt_s", rtt_s)
    p = _check.open_unit("loss_rate", loss_rate)
    c = _check.positive("constant", constant)
    return 8 * mss / rtt * c / math.sqrt(p)


def pftk_timeout_probability(window_packets: float, loss_rate: float) -> float:
    """``Q-hat(w)`` of PFTK (section 2.2): the probability that a loss in a
    window of ``w`` packets is detected by a timeout rather than by three duplicate ACKs,
    ``min(1, (1 - q^3)(1 + q^3 (1 - q^(w-3))) / (1 - q^w))`` with ``q = 1 - p``. It is 1 for ``w <= 3``.
    """
    w = _check.positive("window_packets", window_packets)
    p = _check.open_unit("loss_rate", loss_rate)
    if w <= 3:
        return 1.0
    q = 1.0 - p
    return min(1.0, (1 - q**3) * (1 + q**3 * (1 - q ** (w - 3))) / (1 - q**w))


def _backoff_factor(p: float) -> float:
    """``f(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6`` (PFTK section 2.2): the mean length of a
    timeout sequence in units of ``T0``, times ``1 - p``, with the backoff capped at 64 ``T0``."""
    return 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6


def pftk_throughput_bps(
    mss_bytes: float,
    rtt_s: float,
    loss_rate: float,
    rto_s: float,
    *,
    max_window_packets: float = math.inf,
    acked_per_ack: int = 1,
) -> float:
    """The full PFTK model (SIGCOMM '98 eq. 31: timeouts and the receiver window), in bits per second.

    With ``b = acked_per_ack``, ``q = 1 - p``, ``T0 = rto_s`` and the unconstrained mean window at a loss
    ``E[W_u] = (2+b)/(3b) + sqrt(8q/(3bp) + ((2+b)/(3b))^2)`` (section 2.1), the rate in packets per second is

    * if ``E[W_u] < W_max``: ``(q/p + E[W_u] + Q(E[W_u])/q) / (RTT (b E[W_u]/2 + 1) + Q(E[W_u]) T0 f(p)/q)``;
    * else (receiver window limited): ``(q/p + W_max + Q(W_max)/q) /
      (RTT (b W_max/8 + q/(p W_max) + 2) + Q(W_max) T0 f(p)/q)``,

    with ``Q`` from :func:`pftk_timeout_probability` and ``f`` the backoff polynomial. With
    ``rto_s = 0`` timeouts cost no time; for small ``p`` the rate then tends to Mathis et al.'s
    ``sqrt(3/(2bp)) / RTT``.
    """
    mss = _check.positive("mss_bytes", mss_bytes)
    rtt = _check.positive("rtt_s", rtt_s)
    p = _check.open_unit("loss_rate", loss_rate)
    t0 = _check.non_negative("rto_s", rto_s)
    w_max = _check.positive("max_window_packets", max_window_packets, allow_inf=True)
    b = _check.count("acked_per_ack", acked_per_ack, minimum=1)
    q = 1.0 - p
    k = (2 + b) / (3 * b)
    w_u = k + math.sqrt(8 * q / (3 * b * p) + k * k)  # section 2.1
    timeout_cost = t0 * _backoff_factor(p) / q  # E[Z^TO]: mean duration of a timeout sequence
    if w_u < w_max:
        qhat = pftk_timeout_probability(w_u, p)
        pps = (q / p + w_u + qhat / q) / (rtt * (b * w_u / 2 + 1) + qhat * timeout_cost)
    else:
        qhat = pftk_timeout_probability(w_max, p)
        pps = (q / p + w_max + qhat / q) / (rtt * (b * w_max / 8 + q / (p * w_max) + 2) + qhat * timeout_cost)
    return 8 * mss * pps


def pftk_approx_throughput_bps(
    mss_bytes: float,
    rtt_s: float,
    loss_rate: float,
    rto_s: float,
    *,
    max_window_packets: float = math.inf,
    acked_per_ack: int = 1,
) -> float:
    """The approximate PFTK model (SIGCOMM '98 eq. 32), in bits per second:
    ``min(W_max / RTT, 1 / (RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2)))`` packets/s.
    """
    mss = _check.positive("mss_bytes", mss_bytes)
    rtt = _check.positive("rtt_s", rtt_s)
    p = _check.open_unit("loss_rate", loss_rate)
    t0 = _check.non_negative("rto_s", rto_s)
    w_max = _check.positive("max_window_packets", max_window_packets, allow_inf=True)
    b = _check.count("acked_per_ack", acked_per_ack, minimum=1)
    denominator = rtt * math.sqrt(2 * b * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (
        1 + 32 * p * p
    )
    return 8 * mss * min(w_max / rtt, 1.0 / denominator)
