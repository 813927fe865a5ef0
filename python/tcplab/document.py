"""Scenario documents built in Python, reduced to what TOML can hold.

A document can come from anywhere: a dict built by hand, NumPy numbers, a dict that
contains itself. Before it is copied or written as TOML it is walked once here, so what
TOML cannot hold is refused with the package's :class:`ScenarioError` naming the field,
not a TypeError, OverflowError or RecursionError from deep inside a library.
"""

from __future__ import annotations

import datetime
import numbers
import reprlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from .errors import ScenarioError

# The engine's TOML reader stops at 80 levels; real scenarios use fewer than ten.
MAX_DEPTH = 32
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
_TIMES = (datetime.datetime, datetime.date, datetime.time)


def plain_document(doc: Any) -> dict[str, Any]:
    """A copy of ``doc`` made only of dicts with string keys, lists, strings, bools, 64-bit
    integers, floats and dates; keys whose value is None are left out ("not set")."""
    if not isinstance(doc, Mapping):
        raise ScenarioError("", f"a scenario document is a table of sections (a dict), not {_kind(doc)}")
    return _plain(doc, "", 0, set())


def _plain(x: Any, field: str, depth: int, open_containers: set[int]) -> Any:
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, Mapping | list | tuple):
        if id(x) in open_containers:
            raise ScenarioError(field, "contains itself; a document must be a tree")
        if depth >= MAX_DEPTH:
            raise ScenarioError(field, f"nested more than {MAX_DEPTH} levels deep")
        open_containers.add(id(x))
        try:
            if isinstance(x, Mapping):
                return {
                    _key(k, field): _plain(v, _join(field, k), depth + 1, open_containers)
                    for k, v in x.items()
                    if v is not None
                }
            return [_plain(v, f"{field}[{i}]", depth + 1, open_containers) for i, v in enumerate(x)]
        finally:
            open_containers.discard(id(x))
    if isinstance(x, (bool, *_TIMES)):
        return x
    if isinstance(x, str):
        return _text(x, field)
    if isinstance(x, numbers.Integral):
        v = int(x)
        if not INT_MIN <= v <= INT_MAX:
            raise ScenarioError(field, f"{v} does not fit a TOML integer (-2^63 to 2^63-1)")
        return v
    if isinstance(x, numbers.Real):
        return float(x)
    what = "None (in a list)" if x is None else _kind(x)
    raise ScenarioError(
        field,
        f"{what} is not a value a scenario can hold; use a string, number, boolean, list or table",
    )


def _key(k: Any, field: str) -> str:
    if not isinstance(k, str):
        raise ScenarioError(field, f"the key {_kind(k)} is not a string; keys must be strings")
    return _text(k, field)


def _text(s: str, field: str) -> str:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ScenarioError(
            field, f"{_short(s)} is not valid Unicode text ({e.reason} at character {e.start})"
        ) from None
    return s


def _join(field: str, key: str) -> str:
    return f"{field}.{key}" if field else key


def _kind(x: Any) -> str:
    return f"{_short(x)} of type {type(x).__name__}"


def _short(x: Any) -> str:
    try:
        r = reprlib.repr(x)  # bounded: a huge list is not printed whole
    except Exception:  # a user object whose repr fails still gets an error naming the field
        r = f"<{type(x).__name__}>"
    return r if len(r) <= 40 else r[:37] + "..."
