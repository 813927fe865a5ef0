"""CODE TCP's threshold factor epsilon: Chan, Lin, Chan and Ho (Computer Communications 2010, paper 000),
section 3.3, eqs. (3)-(19).

One CODE and one Reno flow share a bottleneck with equal RTTs; over one loss cycle both must send the same
number of packets (eq. 3). With ``V = W_Vmax`` and ``R = W_Rmax``: after a loss CODE's window falls to
``d V`` (``d = 3/4``, eq. 4), shrinks by one packet per round for ``t = (d - eps) V`` rounds to ``eps V``
(eqs. 5, 13-14), then grows at ``s`` packets per round (``s = 2/3``: two packets every three RTTs) back to
``V`` in ``(1 - eps) V / s`` rounds. Reno climbs from ``R/2`` to ``R`` in ``R/2`` rounds, sending
``3 R^2 / 8`` packets (eq. 12). Equal cycle lengths (eq. 17) give ``R = 2 V [(d - eps) + (1 - eps)/s]``;
equal packet counts (eq. 16) then give a quadratic in ``eps`` that does not depend on ``V``:

``(d^2 - eps^2)/2 + (1 - eps^2)/(2s) = (3/2) [(d - eps) + (1 - eps)/s]^2``,

which for ``d = 3/4, s = 2/3`` is ``34 eps^2 - 54 eps + 21 = 0`` (eq. 18), roots 0.68 and 0.91 (eq. 19).
The paper keeps 0.68 because 0.91 > d makes ``t`` of eq. (14) negative (it also makes eq. 17's ``W_Rmax``
negative).
"""

from __future__ import annotations

import numpy as np

from . import _check

__all__ = ["code_epsilon_polynomial", "code_epsilon_roots", "code_epsilon", "code_reno_cycle_ratio"]

_P = np.polynomial.Polynomial


def _check_shape(decrease_factor: float, code_increase_per_round: float) -> tuple[float, float]:
    d = _check.open_unit("decrease_factor", decrease_factor)
    s = _check.positive("code_increase_per_round", code_increase_per_round)
    return d, s


def _sides(d: float, s: float) -> tuple[np.polynomial.Polynomial, np.polynomial.Polynomial]:
    """CODE's and Reno's packets per cycle over ``V^2``, as polynomials in epsilon (eqs. 15-17)."""
    eps = _P([0.0, 1.0])
    code = (d * d - eps**2) / 2 + (1 - eps**2) / (2 * s)  # eqs. (7)-(10), (15)
    half_reno = (d - eps) + (1 - eps) / s  # R / (2V), eq. (17)
    reno = 1.5 * half_reno**2  # 3 R^2 / 8 over V^2, eq. (12)
    return code, reno


def code_epsilon_polynomial(
    decrease_factor: float = 0.75, code_increase_per_round: float = 2 / 3
) -> np.ndarray:
    """Coefficients, highest power first and scaled to a leading 1, of the quadratic whose roots make CODE
    and Reno send equally per cycle; for the paper's ``d = 3/4, s = 2/3`` it is eq. (18) divided by 34."""
    d, s = _check_shape(decrease_factor, code_increase_per_round)
    code, reno = _sides(d, s)
    poly = reno - code
    coef = poly.coef[::-1]
    return coef / coef[0]


def code_epsilon_roots(
    decrease_factor: float = 0.75, code_increase_per_round: float = 2 / 3
) -> tuple[float, ...]:
    """The real roots of :func:`code_epsilon_polynomial` in ``(0, 1)``, ascending (eq. 19: 0.68 and 0.91)."""
    roots = np.roots(code_epsilon_polynomial(decrease_factor, code_increase_per_round))
    real = sorted(float(r.real) for r in roots if abs(r.imag) < 1e-12 and 0 < r.real < 1)
    return tuple(real)


def code_epsilon(decrease_factor: float = 0.75, code_increase_per_round: float = 2 / 3) -> float:
    """The admissible root: the one with ``t = (d - eps) V >= 0`` rounds of decrease (eq. 14), i.e.
    ``eps <= d``, and a cycle of positive length (eq. 17); 0.6802 for the paper's values. Raises
    ValueError when no root qualifies."""
    d, s = _check_shape(decrease_factor, code_increase_per_round)
    roots = code_epsilon_roots(decrease_factor, code_increase_per_round)
    ok = [r for r in roots if r <= d + 1e-12 and (d - r) + (1 - r) / s > 0]
    if not ok:
        raise ValueError(
            f"no epsilon in (0, decrease_factor = {d}] equalises CODE and Reno for "
            f"code_increase_per_round = {code_increase_per_round}"
        )
    return ok[0]


def code_reno_cycle_ratio(
    epsilon: float, decrease_factor: float = 0.75, code_increase_per_round: float = 2 / 3
) -> float:
    """CODE's packets over Reno's packets in one loss cycle for a given ``epsilon`` (eqs. 15-17, the
    ratio of eq. 3); 1 at the roots of eq. (18). Needs ``0 < epsilon`` and a cycle of positive length,
    ``eps < (d s + 1)/(s + 1)`` (0.9 for the paper's values: so eq. 18's root 0.91 also makes eq. 17's
    ``W_Rmax`` negative, a second reason to discard it)."""
    eps = _check.open_unit("epsilon", epsilon)
    d, s = _check_shape(decrease_factor, code_increase_per_round)
    if (d - eps) + (1 - eps) / s <= 0:
        raise ValueError(
            f"epsilon = {eps} gives a cycle of no rounds "
            f"(eq. 17: W_Rmax = 2 V [(d - eps) + (1 - eps)/s] <= 0); "
            f"it must be < (d s + 1)/(s + 1) = {(d * s + 1) / (s + 1):.4g}"
        )
    code, reno = _sides(d, s)
    return float(code(eps) / reno(eps))
