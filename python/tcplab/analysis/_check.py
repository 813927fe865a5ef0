"""Argument checks shared by the models: each error names the parameter, its value and what is allowed."""

from __future__ import annotations

import math
from numbers import Integral, Real


def real(name: str, value: object) -> float:
    """A finite real number (bools are refused: they are almost always a slip)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    if math.isnan(v):
        raise ValueError(f"{name} must be a number, got NaN")
    return v


def positive(name: str, value: object, *, allow_inf: bool = False) -> float:
    v = real(name, value)
    if not v > 0 or (math.isinf(v) and not allow_inf):
        allowed = "> 0" if allow_inf else "finite and > 0"
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return v


def non_negative(name: str, value: object) -> float:
    v = real(name, value)
    if not (v >= 0 and math.isfinite(v)):
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    return v


def open_unit(name: str, value: object) -> float:
    """A probability strictly between 0 and 1."""
    v = real(name, value)
    if not 0 < v < 1:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return v


def count(name: str, value: object, *, minimum: int = 0) -> int:
    """A whole number >= minimum (numpy integers accepted, floats refused)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {v}")
    return v
