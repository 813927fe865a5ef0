"""IEEE 802.11 DCF saturation throughput: G. Bianchi, "Performance analysis of the IEEE 802.11 distributed
coordination function", IEEE JSAC 18(3), 2000.

``n`` stations always have a frame to send. Each transmits in a random slot with probability ``tau`` and
collides with conditional probability ``p`` that is the same at every attempt whatever its backoff stage.
The backoff stage ``i`` (``0..m``) draws uniformly from ``[0, W_i - 1]`` slots with ``W_i = 2^i W`` and
``W = CWmin + 1``; Bianchi's model has no retry limit (a frame stays at stage ``m`` until it succeeds).

* eq. (7): ``tau = 2 (1 - 2p) / ((1 - 2p)(W + 1) + p W (1 - (2p)^m))``
* eq. (9): ``p = 1 - (1 - tau)^(n - 1)``
* eq. (13): ``S = P_s P_tr E[P] / ((1 - P_tr) sigma + P_tr P_s T_s + P_tr (1 - P_s) T_c)`` with
  ``P_tr = 1 - (1 - tau)^n`` and ``P_s = n tau (1 - tau)^(n - 1) / P_tr`` (section IV)
* section IV: the busy times ``T_s`` and ``T_c`` for basic access and for RTS/CTS.

All durations are in seconds; ``E[P]`` is the payload's transmission time, so ``S`` is the fraction of
channel time that carries payload bits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from scipy.optimize import brentq

from . import _check

__all__ = [
    "DcfParameters",
    "DcfThroughput",
    "ofdm_frame_duration_s",
    "bianchi_tau",
    "bianchi_fixed_point",
    "bianchi_saturation_throughput",
]

Access = Literal["basic", "rts_cts"]

#: IEEE 802.11a OFDM PHY (clause 17): PLCP preamble 16 us + SIGNAL 4 us, 4 us symbols, 16 SERVICE bits
#: and 6 tail bits around the PSDU.
_OFDM_PREAMBLE_S = 20e-6
_OFDM_SYMBOL_S = 4e-6
_OFDM_SERVICE_TAIL_BITS = 16 + 6


def ofdm_frame_duration_s(mac_bytes: int, rate_bps: float) -> float:
    """Air time of an 802.11a frame of ``mac_bytes`` (MAC header, body and FCS) sent at ``rate_bps``:
    ``20 us + 4 us * ceil((16 + 8 mac_bytes + 6) / (4 us * rate))`` (802.11a clause 17.4.3). E.g. an ACK
    (14 bytes) at 6 Mb/s takes 44 us."""
    size = _check.count("mac_bytes", mac_bytes, minimum=1)
    rate = _check.positive("rate_bps", rate_bps)
    bits_per_symbol = rate * _OFDM_SYMBOL_S
    symbols = math.ceil((_OFDM_SERVICE_TAIL_BITS + 8 * size) / bits_per_symbol - 1e-9)
    return _OFDM_PREAMBLE_S + _OFDM_SYMBOL_S * symbols


@dataclass(frozen=True)
class DcfParameters:
    """The MAC and PHY constants Bianchi's model needs (durations in seconds).

    ``header_s`` is ``H``, the time to send the PHY and MAC headers of a data frame; ``ack_s``, ``rts_s``
    and ``cts_s`` are whole control frames including their PHY headers; ``propagation_s`` is ``delta``.
    ``cw_min`` is the standard's CWmin (15 for 802.11a), so Bianchi's ``W = cw_min + 1``, and
    ``max_backoff_stage`` is ``m`` with ``CWmax + 1 = 2^m W``.
    """

    slot_s: float
    sifs_s: float
    difs_s: float
    cw_min: int
    max_backoff_stage: int
    header_s: float
    ack_s: float
    rts_s: float | None = None
    cts_s: float | None = None
    propagation_s: float = 0.0

    def __post_init__(self) -> None:
        _check.positive("slot_s", self.slot_s)
        _check.non_negative("sifs_s", self.sifs_s)
        _check.non_negative("difs_s", self.difs_s)
        _check.count("cw_min", self.cw_min, minimum=1)
        _check.count("max_backoff_stage", self.max_backoff_stage, minimum=0)
        _check.non_negative("header_s", self.header_s)
        _check.non_negative("ack_s", self.ack_s)
        for name in ("rts_s", "cts_s"):
            value = getattr(self, name)
            if value is not None:
                _check.non_negative(name, value)
        _check.non_negative("propagation_s", self.propagation_s)

    @property
    def cw_max(self) -> int:
        """``2^m W - 1``."""
        return (self.cw_min + 1) * 2**self.max_backoff_stage - 1

    @classmethod
    def ieee80211a(
        cls,
        data_rate_bps: float = 54e6,
        *,
        control_rate_bps: float = 6e6,
        mac_header_bytes: int = 28,
        cw_max: int = 1023,
    ) -> DcfParameters:
        """802.11a as in paper 004, table I: slot 9 us, SIFS 16 us, DIFS 34 us, CWmin 15, CWmax 1023
        (so ``m = 6``), data at 54 Mb/s.

        Our choices where table I is silent: ACK (14 bytes), RTS (20) and CTS (14) at ``control_rate_bps``
        (6 Mb/s, the lowest basic rate) and rounded to whole OFDM symbols; ``H`` is the 20 us preamble and
        SIGNAL plus the SERVICE and tail bits and a ``mac_header_bytes`` MAC header (24-byte header and
        4-byte FCS) at the data rate, without the padding of the last OFDM symbol (at most 4 us), which
        Bianchi's ``H + E[P]`` split cannot place.
        """
        rate = _check.positive("data_rate_bps", data_rate_bps)
        hdr = _check.count("mac_header_bytes", mac_header_bytes, minimum=0)
        cw_min = 15
        stages = math.log2((_check.count("cw_max", cw_max, minimum=cw_min) + 1) / (cw_min + 1))
        if stages != int(stages):
            raise ValueError(f"cw_max + 1 must be 16 times a power of two (CWmin 15), got cw_max = {cw_max}")
        return cls(
            slot_s=9e-6,
            sifs_s=16e-6,
            difs_s=34e-6,
            cw_min=cw_min,
            max_backoff_stage=int(stages),
            header_s=_OFDM_PREAMBLE_S + (_OFDM_SERVICE_TAIL_BITS + 8 * hdr) / rate,
            ack_s=ofdm_frame_duration_s(14, control_rate_bps),
            rts_s=ofdm_frame_duration_s(20, control_rate_bps),
            cts_s=ofdm_frame_duration_s(14, control_rate_bps),
        )

    def busy_times_s(self, payload_s: float, access: Access = "basic") -> tuple[float, float]:
        """``(T_s, T_c)``: the channel's busy time for a success and for a collision (Bianchi, section IV).

        Basic access: ``T_s = H + E[P] + SIFS + delta + ACK + DIFS + delta`` and
        ``T_c = H + E[P*] + DIFS + delta``; RTS/CTS: ``T_s = RTS + SIFS + delta + CTS + SIFS + delta + H
        + E[P] + SIFS + delta + ACK + DIFS + delta`` and ``T_c = RTS + DIFS + delta``. Frames have a fixed
        size, so the longest colliding payload ``E[P*]`` is ``E[P]``. As in the paper, a collision is
        followed by DIFS (the standard's EIFS is not modelled).
        """
        payload = _check.non_negative("payload_s", payload_s)
        d = self.propagation_s
        if access == "basic":
            t_s = self.header_s + payload + self.sifs_s + d + self.ack_s + self.difs_s + d
            t_c = self.header_s + payload + self.difs_s + d
            return t_s, t_c
        if access == "rts_cts":
            if self.rts_s is None or self.cts_s is None:
                raise ValueError("access = 'rts_cts' needs rts_s and cts_s in the DcfParameters")
            t_s = (
                self.rts_s + self.sifs_s + d + self.cts_s + self.sifs_s + d
                + self.header_s + payload + self.sifs_s + d + self.ack_s + self.difs_s + d
            )  # fmt: skip
            t_c = self.rts_s + self.difs_s + d
            return t_s, t_c
        raise ValueError(f"access must be 'basic' or 'rts_cts', got {access!r}")


@dataclass(frozen=True)
class DcfThroughput:
    """Bianchi's saturation operating point."""

    n_stations: int
    #: ``tau``: probability that a station transmits in a random slot.
    tau: float
    #: ``p``: probability that a transmission collides.
    collision_probability: float
    #: ``P_tr``: probability that a slot holds at least one transmission.
    busy_probability: float
    #: ``P_s``: probability that a busy slot is a success.
    success_probability: float
    success_time_s: float
    collision_time_s: float
    #: ``S`` of eq. (13): fraction of channel time carrying payload.
    normalized: float
    #: ``S`` times the data rate: payload bits per second of all stations together.
    throughput_bps: float


def _backoff_denominator(p: float, w: int, m: int) -> float:
    """``(1 + W + p W sum_{k<m} (2p)^k)``: eq. (7)'s denominator over ``(1 - 2p)``, free of its 0/0 at
    ``p = 1/2``."""
    return 1 + w + p * w * sum((2 * p) ** k for k in range(m))


def bianchi_tau(collision_probability: float, cw_min: int, max_backoff_stage: int) -> float:
    """Eq. (7): the per-slot transmission probability of a station whose attempts collide with
    probability ``p``; computed as ``2 / (1 + W + p W sum_{k=0}^{m-1} (2p)^k)``, the same expression with
    the factor ``1 - 2p`` cancelled so that ``p = 1/2`` needs no special case."""
    p = _check.real("collision_probability", collision_probability)
    if not 0 <= p <= 1:
        raise ValueError(f"collision_probability must be in [0, 1], got {collision_probability!r}")
    w = _check.count("cw_min", cw_min, minimum=1) + 1
    m = _check.count("max_backoff_stage", max_backoff_stage, minimum=0)
    return 2.0 / _backoff_denominator(p, w, m)


def bianchi_fixed_point(n_stations: int, cw_min: int, max_backoff_stage: int) -> tuple[float, float]:
    """``(tau, p)`` solving eqs. (7) and (9) together.

    ``tau(p)`` decreases in ``p``, so ``g(p) = 1 - (1 - tau(p))^(n-1) - p`` decreases from ``g(0) >= 0`` to
    ``g(1) < 0``: the root is unique (Bianchi, section III) and Brent's method on ``[0, 1]`` finds it.
    One station never collides: ``p = 0``, ``tau = 2 / (W + 1)``.
    """
    n = _check.count("n_stations", n_stations, minimum=1)
    w = _check.count("cw_min", cw_min, minimum=1) + 1
    m = _check.count("max_backoff_stage", max_backoff_stage, minimum=0)
    if n == 1:
        return 2.0 / (w + 1), 0.0

    def g(p: float) -> float:
        return 1.0 - (1.0 - 2.0 / _backoff_denominator(p, w, m)) ** (n - 1) - p

    p = brentq(g, 0.0, 1.0, xtol=1e-15, rtol=1e-14, maxiter=500)
    return 2.0 / _backoff_denominator(p, w, m), p


def bianchi_saturation_throughput(
    n_stations: int,
    params: DcfParameters,
    payload_bits: float,
    data_rate_bps: float,
    *,
    access: Access = "basic",
) -> DcfThroughput:
    """Saturation throughput of ``n`` stations (Bianchi eq. 13) for frames of ``payload_bits`` sent at
    ``data_rate_bps``, with basic access or RTS/CTS."""
    n = _check.count("n_stations", n_stations, minimum=1)
    if not isinstance(params, DcfParameters):
        raise ValueError(f"params must be a DcfParameters, got {type(params).__name__}")
    bits = _check.positive("payload_bits", payload_bits)
    rate = _check.positive("data_rate_bps", data_rate_bps)
    tau, p = bianchi_fixed_point(n, params.cw_min, params.max_backoff_stage)
    payload_s = bits / rate
    t_s, t_c = params.busy_times_s(payload_s, access)
    idle = (1 - tau) ** n
    p_tr = 1 - idle  # section IV
    success = n * tau * (1 - tau) ** (n - 1)  # P_tr P_s
    mean_slot = idle * params.slot_s + success * t_s + (p_tr - success) * t_c
    s = success * payload_s / mean_slot  # eq. (13)
    return DcfThroughput(
        n_stations=n,
        tau=tau,
        collision_probability=p,
        busy_probability=p_tr,
        success_probability=success / p_tr,
        success_time_s=t_s,
        collision_time_s=t_c,
        normalized=s,
        throughput_bps=s * rate,
    )
