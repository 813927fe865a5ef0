"""Reno and Vegas sharing one bottleneck: Hasegawa, Kurata and Murata (ICNP 2000, paper 003), section 4.1,
and Mo, La, Anantharam and Walrand (INFOCOM 1999) as summarised by Fahmy and Sharma (paper 002).

Notation of paper 003, section 3: ``Nr`` Reno and ``Nv`` Vegas senders, bottleneck ``mu`` packets/s, router
buffer ``B`` packets, one-way propagation delay ``tau`` (sender -> receiver), so ``2 tau mu`` is the
bandwidth-delay product in packets. All windows are in packets.

Both models share the last step, eqs. (11)-(12): each kind's throughput is proportional to its buffer
occupancy, which is its mean total window times ``B / (2 tau mu + B)``. That factor is common to both kinds,
so it cancels and ``rho_r = mu W_r / (W_r + W_v)``; the RED results therefore do not depend on ``B``, as the
paper remarks in section 4.2.2. Eq. (12) allots the whole link to the two kinds (``rho_r + rho_v = mu``):
the models have no term for an idle link, which is why they cannot show fig. 6's loss of total throughput.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd
from scipy.optimize import brentq

from . import _check

__all__ = [
    "RenoVegasThroughput",
    "DropTailModel",
    "RedModel",
    "RedRenoWindow",
    "bottleneck_packets_per_s",
    "droptail_model",
    "red_timeout_probability",
    "red_reno_window",
    "red_model",
    "droptail_curve",
    "red_curve",
    "mo_vegas_reno_ratio",
]


@dataclass(frozen=True)
class RenoVegasThroughput:
    """Throughput of each kind as a model gives it; totals over all flows of the kind, packets/s."""

    n_reno: int
    n_vegas: int
    packet_bytes: int
    reno_total_pps: float
    vegas_total_pps: float
    #: Mean total window of all Reno flows (``W_r`` bar of eq. 10 or eq. 24), packets.
    reno_window_packets: float
    #: Mean total window of all Vegas flows, ``N_v (alpha + beta) / 2`` (eqs. 6 and 13), packets.
    vegas_window_packets: float

    @property
    def reno_per_flow_pps(self) -> float:
        return self.reno_total_pps / self.n_reno if self.n_reno else math.nan

    @property
    def vegas_per_flow_pps(self) -> float:
        return self.vegas_total_pps / self.n_vegas if self.n_vegas else math.nan

    @property
    def reno_per_flow_bps(self) -> float:
        return self.reno_per_flow_pps * 8 * self.packet_bytes

    @property
    def vegas_per_flow_bps(self) -> float:
        return self.vegas_per_flow_pps * 8 * self.packet_bytes

    @property
    def reno_share(self) -> float:
        """Reno's fraction of the bottleneck, ``rho_r / mu``."""
        return self.reno_total_pps / (self.reno_total_pps + self.vegas_total_pps)


@dataclass(frozen=True)
class DropTailModel(RenoVegasThroughput):
    """Eqs. (5)-(12), with the intermediate quantities of the cycle of fig. 2."""

    #: ``W_r`` of eq. (7): total Reno window when the buffer overflows, packets.
    reno_peak_window_packets: float
    #: ``W'_r`` of eq. (9): total Reno window just after the overflow, packets.
    reno_after_loss_window_packets: float
    #: ``B_r`` and ``B_v`` bar of eq. (11): mean buffer occupancy of each kind, packets.
    reno_buffer_packets: float
    vegas_buffer_packets: float


@dataclass(frozen=True)
class RedRenoWindow:
    """One Reno flow under constant-probability dropping, eqs. (14)-(23)."""

    #: ``w_r`` bar of eqs. (15)-(22): the flow's window when a loss is detected, packets.
    loss_window_packets: float
    #: ``p_to`` of eq. (15): probability that a loss is detected by a timeout.
    timeout_probability: float
    #: ``w_r`` bar of eq. (23): the flow's mean window over a cycle (throughput x rtt), packets.
    mean_window_packets: float


@dataclass(frozen=True)
class RedModel(RenoVegasThroughput):
    """Eqs. (13)-(24) with eqs. (11)-(12)."""

    reno_flow: RedRenoWindow
    #: The mean RTT used in eq. (23), seconds (given, or the saturated-link fixed point).
    rtt_s: float


def bottleneck_packets_per_s(bottleneck_bps: float, packet_bytes: int) -> float:
    """``mu`` of section 3: the bottleneck rate in packets of ``packet_bytes`` per second."""
    bps = _check.positive("bottleneck_bps", bottleneck_bps)
    size = _check.count("packet_bytes", packet_bytes, minimum=1)
    return bps / (8 * size)


def _vegas_total_window(n_vegas: int, alpha_packets: float, beta_packets: float) -> float:
    """Eqs. (6) and (13): ``W_v = N_v (alpha + beta) / 2``."""
    alpha = _check.non_negative("alpha_packets", alpha_packets)
    beta = _check.positive("beta_packets", beta_packets)
    if alpha > beta:
        raise ValueError(f"alpha_packets must be <= beta_packets, got alpha {alpha} > beta {beta}")
    return n_vegas * (alpha + beta) / 2


def _flow_counts(n_reno: object, n_vegas: object) -> tuple[int, int]:
    nr = _check.count("n_reno", n_reno)
    nv = _check.count("n_vegas", n_vegas)
    if nr + nv == 0:
        raise ValueError("n_reno + n_vegas must be >= 1, got no flows at all")
    return nr, nv


def _shares(mu: float, w_reno: float, w_vegas: float) -> tuple[float, float]:
    """Eq. (12) after the common factor of eq. (11) cancels."""
    total = w_reno + w_vegas
    return mu * w_reno / total, mu * w_vegas / total


def droptail_model(
    n_reno: int,
    n_vegas: int,
    buffer_packets: float,
    bottleneck_bps: float,
    one_way_delay_s: float,
    *,
    packet_bytes: int = 1000,
    alpha_packets: float = 1.0,
    beta_packets: float = 3.0,
) -> DropTailModel:
    """Reno and Vegas throughput behind a DropTail router: paper 003, eqs. (5)-(12).

    Vegas keeps its total window at ``W_v = N_v (alpha + beta)/2`` (eq. 6). The Reno flows fill the rest of
    pipe and buffer, ``W_r = 2 tau mu + B - W_v`` (eq. 7); each overflow costs ``N_r`` packets (one per Reno
    flow, since each grows by one packet per RTT), shared between the kinds in proportion to their windows
    (eq. 8); a Reno flow that lost one halves (eq. 9). The total Reno window then climbs back by ``N_r``
    per RTT for ``(W_r - W'_r)/N_r`` RTTs and stays at ``W_r`` for the one RTT it takes to detect the loss
    (eq. 10, the time average over fig. 2's cycle). Eqs. (11)-(12) turn windows into shares of ``mu``.

    Reading: eq. (7) uses ``W_v`` for the Vegas window, which we take to be its mean of eq. (6). The model
    needs ``2 tau mu + B > W_v`` (some room for Reno); outside it a ValueError says so. ``one_way_delay_s``
    is ``tau = tau_sx + tau_xd`` of section 3 (0.0065 s in the paper's set-up).
    """
    nr, nv = _flow_counts(n_reno, n_vegas)
    buffer = _check.positive("buffer_packets", buffer_packets)
    tau = _check.non_negative("one_way_delay_s", one_way_delay_s)
    mu = bottleneck_packets_per_s(bottleneck_bps, packet_bytes)
    w_v = _vegas_total_window(nv, alpha_packets, beta_packets)
    pipe = 2 * tau * mu
    occupancy = buffer / (pipe + buffer)  # the factor of eq. (11)

    if nr == 0:
        return DropTailModel(
            n_reno=0, n_vegas=nv, packet_bytes=packet_bytes, reno_total_pps=0.0, vegas_total_pps=mu,
            reno_window_packets=0.0, vegas_window_packets=w_v, reno_peak_window_packets=0.0,
            reno_after_loss_window_packets=0.0, reno_buffer_packets=0.0, vegas_buffer_packets=w_v * occupancy,
        )  # fmt: skip

    w_peak = pipe + buffer - w_v  # eq. (7)
    if w_peak <= 0:
        raise ValueError(
            f"buffer_packets = {buffer} leaves no room for Reno: the model needs 2 tau mu + B > W_v, "
            f"here 2 tau mu = {pipe:.4g} and W_v = N_v (alpha + beta)/2 = {w_v:.4g} packets"
        )
    w_after = w_peak * (w_peak + 2 * w_v) / (2 * (w_peak + w_v))  # eqs. (8)-(9)
    rounds = (w_peak - w_after) / nr  # RTTs of linear growth from W'_r back to W_r
    w_mean = (0.5 * (w_peak + w_after) * rounds + w_peak) / (rounds + 1)  # eq. (10)
    reno, vegas = _shares(mu, w_mean, w_v)
    return DropTailModel(
        n_reno=nr,
        n_vegas=nv,
        packet_bytes=packet_bytes,
        reno_total_pps=reno,
        vegas_total_pps=vegas,
        reno_window_packets=w_mean,
        vegas_window_packets=w_v,
        reno_peak_window_packets=w_peak,
        reno_after_loss_window_packets=w_after,
        reno_buffer_packets=w_mean * occupancy,
        vegas_buffer_packets=w_v * occupancy,
    )


def red_timeout_probability(window_packets: float, drop_probability: float) -> float:
    """``p_to`` of paper 003, eq. (15): the chance that a loss is detected by a timeout.

    The paper writes ``sum_{i=2}^{w} C(w, i) p^i (1-p)^(w+1-i)``: two or more drops in a window of ``w``.
    For whole ``w`` that sum is ``(1-p) [1 - (1-p)^w - w p (1-p)^(w-1)]`` (the binomial sum from 0 to ``w``
    minus its first two terms, times the extra ``1-p`` of the printed exponent ``w+1-i``); we use this closed
    form, which also serves the non-integer mean windows the model produces. Reading: we keep the printed
    ``w+1-i`` (a textbook binomial would have ``w-i``; the two differ by the factor ``1-p``). Windows below
    2 packets cannot hold two drops, so they give 0.
    """
    w = _check.non_negative("window_packets", window_packets)
    p = _check.open_unit("drop_probability", drop_probability)
    if w < 2:
        return 0.0
    q = 1.0 - p
    return q * (1.0 - q**w - w * p * q ** (w - 1))


def _cycle_packets(w: float, p_to: float) -> float:
    """Right side of eq. (22): packets sent per cycle for loss window ``w``, eqs. (16)-(21)."""
    ca = 0.5 * (w + w / 2) * (w - w / 2)  # A_to,2 = A_fr,2, eqs. (18) and (21)
    slow_start = w / 2 - 1  # A_to,1, eq. (16); A_fr,1 = 0, eq. (19)
    return p_to * (slow_start + ca) + (1 - p_to) * ca


def red_reno_window(drop_probability: float, rtt_s: float, rto_s: float) -> RedRenoWindow:
    """One Reno flow whose packets are dropped with constant probability ``p``: paper 003, eqs. (14)-(23).

    A cycle carries ``N_p = 1/p`` packets (eq. 14). The window ``w`` at which a loss is detected solves
    eq. (22), ``1/p = p_to (A_to,1 + A_to,2) + (1 - p_to)(A_fr,1 + A_fr,2)``, with ``p_to = p_to(w)`` from
    eq. (15) and the slow-start and congestion-avoidance packet counts of eqs. (16)-(21). Its right side
    increases with ``w`` from 1.5 packets at ``w = 2``, so the root is unique; we bracket it in
    ``[2, sqrt(8/(3p))]`` (the upper end is the timeout-free solution ``3w^2/8 = 1/p``) and solve it with
    Brent's method. Eq. (23) then gives the mean
    window: ``rtt`` times the packets-per-time of the timeout cycle (slow start ``rtt log2(w/2)``, congestion
    avoidance ``rtt w/2``, plus ``rto``) and of the fast-retransmit cycle (``rtt w/2``), weighted by
    ``p_to`` and ``1 - p_to``.

    Reading: the paper uses one symbol, ``w_r`` bar, both for the window at loss detection (eqs. 15-22) and
    for the mean window that eq. (23) defines and eq. (24) sums; we keep them apart. Eq. (23) averages the
    two cycles' rates rather than dividing mean packets by mean time; we follow the paper. Requires
    ``p <= 2/3`` (``1/p`` at least the 1.5 packets of the smallest cycle the equations allow).
    """
    p = _check.open_unit("drop_probability", drop_probability)
    rtt = _check.positive("rtt_s", rtt_s)
    rto = _check.non_negative("rto_s", rto_s)
    n_p = 1.0 / p  # eq. (14)
    if n_p < 1.5:
        raise ValueError(
            f"drop_probability must be <= 2/3 for eqs. (16)-(22) (a cycle of at least 1.5 packets), got {p}"
        )

    def excess(w: float) -> float:
        return _cycle_packets(w, red_timeout_probability(w, p)) - n_p

    upper = math.sqrt(8.0 * n_p / 3.0)
    w = 2.0 if excess(2.0) >= 0 else brentq(excess, 2.0, upper, xtol=1e-12, rtol=1e-12, maxiter=200)
    p_to = red_timeout_probability(w, p)
    half = w / 2
    ca_packets = 0.5 * (w + half) * (w - half)
    to_rate = (half - 1 + ca_packets) / (rtt * math.log2(half) + rtt * (w - half) + rto)  # eqs. (16)-(18)
    fr_rate = ca_packets / (rtt * (w - half))  # eqs. (19)-(21)
    mean = rtt * (p_to * to_rate + (1 - p_to) * fr_rate)  # eq. (23)
    return RedRenoWindow(loss_window_packets=w, timeout_probability=p_to, mean_window_packets=mean)


def red_model(
    n_reno: int,
    n_vegas: int,
    drop_probability: float,
    bottleneck_bps: float,
    one_way_delay_s: float,
    rto_s: float,
    *,
    rtt_s: float | None = None,
    packet_bytes: int = 1000,
    alpha_packets: float = 1.0,
    beta_packets: float = 3.0,
) -> RedModel:
    """Reno and Vegas throughput behind a RED router that drops with constant probability: paper 003,
    eqs. (13)-(24), finished by eqs. (11)-(12).

    Vegas again holds ``N_v (alpha + beta)/2`` packets (eq. 13); each Reno flow's mean window comes from
    :func:`red_reno_window` and the Reno total is ``N_r`` times it (eq. 24). The buffer size drops out (see
    the module notes), so it is not a parameter.

    ``rtt_s`` is eq. (23)'s mean RTT. The paper does not say how to obtain it; when it is None we take the
    RTT of a saturated bottleneck, ``rtt = max(2 tau, (W_r + W_v)/mu)``, which depends on ``W_r`` through
    eq. (23) and is found as a fixed point by Brent's method (bracketed by the windows with and without the
    timeout term's rate). ``rto_s`` is the flow's retransmission timeout, which the caller must choose (for
    example the simulator's minimum RTO).
    """
    nr, nv = _flow_counts(n_reno, n_vegas)
    p = _check.open_unit("drop_probability", drop_probability)
    tau = _check.non_negative("one_way_delay_s", one_way_delay_s)
    rto = _check.non_negative("rto_s", rto_s)
    mu = bottleneck_packets_per_s(bottleneck_bps, packet_bytes)
    w_v = _vegas_total_window(nv, alpha_packets, beta_packets)

    def flow_at(rtt: float) -> RedRenoWindow:
        return red_reno_window(p, rtt, rto)

    if rtt_s is not None:
        rtt = _check.positive("rtt_s", rtt_s)
    elif nr == 0:
        rtt = max(2 * tau, w_v / mu) or math.nan
    else:
        probe = flow_at(1.0)
        w, p_to = probe.loss_window_packets, probe.timeout_probability
        # Eq. (23) lies between (1 - p_to) 3w/4 (timeout cycles contribute nothing) and 1 + 3w/4.
        low = max(2 * tau, (nr * (1 - p_to) * 0.75 * w + w_v) / mu)
        high = max(2 * tau, (nr * (1 + 0.75 * w) + w_v) / mu)

        def gap(rtt: float) -> float:
            return max(2 * tau, (nr * flow_at(rtt).mean_window_packets + w_v) / mu) - rtt

        rtt = low if gap(low) <= 0 else (high if gap(high) >= 0 else brentq(gap, low, high, xtol=1e-12))

    if nr == 0:
        return RedModel(
            n_reno=0, n_vegas=nv, packet_bytes=packet_bytes, reno_total_pps=0.0, vegas_total_pps=mu,
            reno_window_packets=0.0, vegas_window_packets=w_v,
            reno_flow=RedRenoWindow(math.nan, math.nan, math.nan), rtt_s=rtt,
        )  # fmt: skip
    flow = flow_at(rtt)
    w_r = nr * flow.mean_window_packets  # eq. (24)
    reno, vegas = _shares(mu, w_r, w_v)
    return RedModel(
        n_reno=nr,
        n_vegas=nv,
        packet_bytes=packet_bytes,
        reno_total_pps=reno,
        vegas_total_pps=vegas,
        reno_window_packets=w_r,
        vegas_window_packets=w_v,
        reno_flow=flow,
        rtt_s=rtt,
    )


def _curve(column: str, xs: Iterable[float], model: Callable[[float], RenoVegasThroughput]) -> pd.DataFrame:
    rows = []
    for x in xs:
        try:
            m = model(x)
            row = (m.reno_per_flow_bps, m.vegas_per_flow_bps, m.reno_share)
        except ValueError as e:
            if "no room for Reno" not in str(e):
                raise
            row = (math.nan, math.nan, math.nan)
        rows.append((x, *row))
    return pd.DataFrame(rows, columns=[column, "reno_per_flow_bps", "vegas_per_flow_bps", "reno_share"])


def droptail_curve(
    n_reno: int, n_vegas: int, buffers_packets: Iterable[float], **kwargs: Any
) -> pd.DataFrame:
    """:func:`droptail_model` over a buffer sweep (fig. 3's analysis curves): one row per buffer with
    ``buffer_packets``, ``reno_per_flow_bps``, ``vegas_per_flow_bps`` and ``reno_share``; NaN where the
    buffer leaves Reno no room (outside the model's domain). ``kwargs`` go to :func:`droptail_model`."""
    return _curve("buffer_packets", buffers_packets, lambda b: droptail_model(n_reno, n_vegas, b, **kwargs))


def red_curve(n_reno: int, n_vegas: int, drop_probabilities: Iterable[float], **kwargs: Any) -> pd.DataFrame:
    """:func:`red_model` over a sweep of ``p`` (fig. 6's axis; one point each for figs. 4 and 5): one row per
    ``drop_probability`` with the per-flow throughputs and ``reno_share``. ``kwargs`` go to
    :func:`red_model` (``bottleneck_bps``, ``one_way_delay_s``, ``rto_s`` are required there)."""
    return _curve("drop_probability", drop_probabilities, lambda p: red_model(n_reno, n_vegas, p, **kwargs))


def mo_vegas_reno_ratio(buffer_packets: float, vegas_queue_packets: float = 3.0) -> float:
    """Vegas-to-Reno throughput ratio of one Vegas and one Reno flow behind a DropTail buffer:
    Mo, La, Anantharam and Walrand (INFOCOM 1999), as stated by Fahmy and Sharma (paper 002, section 3).

    Vegas keeps ``k`` packets in the buffer (``k <= beta``, 3 by default); Reno's backlog sweeps the rest,
    taken as uniform on ``[0, B - k]``, so its mean is ``(B - k)/2``. With throughput proportional to
    backlog the ratio is ``k / ((B - k)/2) = 2k / (B - k)``.

    Source: we could not consult Mo et al.'s own text; this is the statement as paper 002 gives it, whose
    derivation is reproduced above. It needs ``0 < k < B``.
    """
    buffer = _check.positive("buffer_packets", buffer_packets)
    k = _check.positive("vegas_queue_packets", vegas_queue_packets)
    if k >= buffer:
        raise ValueError(
            f"vegas_queue_packets must be < buffer_packets (Reno needs room), got k = {k}, B = {buffer}"
        )
    return 2 * k / (buffer - k)
