"""Telling a user that a name they typed is unknown: the close matches if there are any,
else the names that are known, so a typo never passes silently as "nothing found"."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def close_matches(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` known names that look like ``name``, best first."""
    return difflib.get_close_matches(name, sorted(set(known)), n=n, cutoff=0.6)


def unknown_name(what: str, name: str, candidates: Iterable[str], known: str) -> str:
    """``unknown <what> 'name'; did you mean a or b?``, or ``...; known: <known>`` when
    nothing in ``candidates`` (every name that would have been accepted) is close."""
    close = close_matches(name, candidates)
    if close:
        options = close[0] if len(close) == 1 else f"{', '.join(close[:-1])} or {close[-1]}"
        return f"unknown {what} {name!r}; did you mean {options}?"
    return f"unknown {what} {name!r}; known: {known}"
