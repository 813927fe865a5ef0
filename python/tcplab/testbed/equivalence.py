"""Whether two sets of runs agree within a tolerance, given how much runs of each vary.

Comparing the means alone decides on noise where runs differ much from each other: at 0.5 %
random loss three 30 s runs of one flow spread by several per cent of utilisation, more than
the 2 % tolerance, so a "pass" or a "miss" on their means may be the draw of the seeds. The
check is an equivalence test (two one-sided t-tests at 5 %, Schuirmann 1987, with Welch's
standard error and degrees of freedom): with d the difference of the means and h the half
width of its 90 % confidence interval,

- ``pass``: |d| + h <= band, the whole interval lies inside the tolerance;
- ``miss``: |d| - h > band, the whole interval lies outside it;
- ``undecided``: the interval straddles an edge: more runs are needed to tell;
- ``not evaluated``: a figure or the band is missing.

Runs that do not vary (h = 0: the simulator without randomness) reduce this to comparing the
means. Runs that share their random draws one to one (a seed that sets the loss sequence on
both sides) are compared as pairs (:func:`decide_paired`): the interval is that of the mean
of the per-seed differences. With a single run on a side there is no spread to estimate and
the means are compared as they are (a partial matrix; the full one has several runs a side).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

#: One-sided level of each of the two tests (a 90 % confidence interval).
ALPHA = 0.05
PASS, MISS, UNDECIDED, NOT_EVALUATED = "pass", "miss", "undecided", "not evaluated"


def half_width(kernel: Sequence[float], sim: Sequence[float]) -> float:
    """Half width of the (1 - 2 ALPHA) confidence interval of mean(sim) - mean(kernel)
    (Welch); 0 when either side has a single run or neither varies."""
    k, s = np.asarray(kernel, float), np.asarray(sim, float)
    if len(k) < 2 or len(s) < 2:
        return 0.0
    vk, vs = k.var(ddof=1) / len(k), s.var(ddof=1) / len(s)
    if vk + vs == 0:
        return 0.0
    df = (vk + vs) ** 2 / (vk**2 / (len(k) - 1) + vs**2 / (len(s) - 1))
    return float(stats.t.ppf(1 - ALPHA, df) * math.sqrt(vk + vs))


def decide(kernel: Sequence[float], sim: Sequence[float], band: float | None) -> str:
    """The verdict on two sets of runs of one figure against an allowed difference ``band``."""
    k, s = np.asarray(kernel, float), np.asarray(sim, float)
    if not _decidable(k, s, band):
        return NOT_EVALUATED
    return _verdict(abs(float(s.mean() - k.mean())), half_width(k, s), band)


def paired_half_width(differences: Sequence[float]) -> float:
    """Half width of the (1 - 2 ALPHA) confidence interval of the mean of paired
    differences (Student t on the differences); 0 for fewer than two pairs."""
    d = np.asarray(differences, float)
    if len(d) < 2:
        return 0.0
    return float(stats.t.ppf(1 - ALPHA, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d)))


def decide_paired(kernel: Sequence[float], sim: Sequence[float], band: float | None) -> str:
    """As :func:`decide`, for runs paired one to one (the same seed on both sides, where the
    seed sets what both sides draw: the loss sequence at a random-loss point): the interval
    is that of the mean difference, which the shared draw does not widen."""
    k, s = np.asarray(kernel, float), np.asarray(sim, float)
    if len(k) != len(s) or not _decidable(k, s, band):
        return NOT_EVALUATED
    diff = s - k
    return _verdict(abs(float(diff.mean())), paired_half_width(diff), band)


def _decidable(k: np.ndarray, s: np.ndarray, band: float | None) -> bool:
    """Both sides have runs, every figure is finite, and there is a band to hold them to."""
    return (
        band is not None
        and math.isfinite(band)
        and bool(len(k))
        and bool(len(s))
        and bool(np.isfinite(k).all() and np.isfinite(s).all())
    )


def _verdict(d: float, h: float, band: float) -> str:
    """Two one-sided tests: the difference ``d`` with its interval's half width ``h``."""
    if d + h <= band:
        return PASS
    if d - h > band:
        return MISS
    return UNDECIDED


def combine(verdicts: Sequence[str]) -> str:
    """A row's verdict from its checks: any miss misses; otherwise any undecided check
    leaves it undecided, any missing figure not evaluated; else it passes. No checks at
    all is "not evaluated", never a pass."""
    if not verdicts:
        return NOT_EVALUATED
    for worst in (MISS, UNDECIDED, NOT_EVALUATED):
        if worst in verdicts:
            return worst
    return PASS
