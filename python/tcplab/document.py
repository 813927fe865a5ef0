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

# Where a value sits: None for the document, else (parent, key or list index). The text
# ("flows[2].cc.alpha") is made only for an error, so large documents are walked quickly.
Where = tuple[Any, str | int] | None


def plain_document(doc: Any) -> dict[str, Any]:
    """A copy of ``doc`` made only of dicts with string keys, lists, strings, bools, 64-bit
    integers, floats and dates; keys whose value is None are left out ("not set")."""
    if not isinstance(doc, Mapping):
        raise ScenarioError("", f"a scenario document is a table of sections (a dict), not {_kind(doc)}")
    return _plain(doc, None, 0, set())


def field_name(where: Where) -> str:
    parts: list[str | int] = []
    while where is not None:
        where, part = where
        parts.append(part)
    text = ""
    for part in reversed(parts):
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _plain(x: Any, where: Where, depth: int, open_containers: set[int]) -> Any:
    kind = type(x)
    if kind is str:
        return x if x.isascii() else _text(x, where)
    if kind is float or kind is bool:
        return x
    if kind is int:
        return x if INT_MIN <= x <= INT_MAX else _integer(x, where)
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, Mapping | list | tuple):
        return _container(x, where, depth, open_containers)
    if isinstance(x, (bool, *_TIMES)):
        return x
    if isinstance(x, str):
        return _text(x, where)
    if isinstance(x, numbers.Integral):
        return _integer(int(x), where)
    if isinstance(x, numbers.Real):
        return float(x)
    what = "None (in a list)" if x is None else _kind(x)
    raise ScenarioError(
        field_name(where),
        f"{what} is not a value a scenario can hold; use a string, number, boolean, list or table",
    )


def _container(x: Any, where: Where, depth: int, open_containers: set[int]) -> Any:
    if id(x) in open_containers:
        raise ScenarioError(field_name(where), "contains itself; a document must be a tree")
    if depth >= MAX_DEPTH:
        raise ScenarioError(field_name(where), f"nested more than {MAX_DEPTH} levels deep")
    open_containers.add(id(x))
    try:
        if isinstance(x, Mapping):
            return {
                _key(k, where): _plain(v, (where, k), depth + 1, open_containers)
                for k, v in x.items()
                if v is not None
            }
        return [_plain(v, (where, i), depth + 1, open_containers) for i, v in enumerate(x)]
    finally:
        open_containers.discard(id(x))


def _integer(v: int, where: Where) -> int:
    if not INT_MIN <= v <= INT_MAX:
        raise ScenarioError(field_name(where), f"{v} does not fit a TOML integer (-2^63 to 2^63-1)")
    return v


def _key(k: Any, where: Where) -> str:
    if not isinstance(k, str):
        raise ScenarioError(field_name(where), f"the key {_kind(k)} is not a string; keys must be strings")
    return k if k.isascii() else _text(k, where)


def _text(s: str, where: Where) -> str:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ScenarioError(
            field_name(where),
            f"{_short(s)} is not valid Unicode text ({e.reason} at character {e.start})",
        ) from None
    return s


def _kind(x: Any) -> str:
    return f"{_short(x)} of type {type(x).__name__}"


def _short(x: Any) -> str:
    try:
        r = reprlib.repr(x)  # bounded: a huge list is not printed whole
    except Exception:  # a user object whose repr fails still gets an error naming the field
        r = f"<{type(x).__name__}>"
    return r if len(r) <= 40 else r[:37] + "..."
