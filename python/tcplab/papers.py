"""The papers' numbers beside their short names.

The documentation and the experiments' texts call the five papers 000-004 (after their files
in ``../shared/seeds/``); the command line calls them code, veno, fahmy, hasegawa and wlan
(:data:`tcplab.experiments.PAPERS`). Every listing that names a paper shows both, and
docs/papers.md gives each paper's citation and experiments.
"""

from __future__ import annotations

#: Paper number by short name; ``linux`` (tcplab's own experiments) has none.
NUMBERS = {"code": "000", "veno": "001", "fahmy": "002", "hasegawa": "003", "wlan": "004"}


def label(short: str) -> str:
    """``000 code``; the short name alone for a group without a number (``linux``)."""
    number = NUMBERS.get(short)
    return f"{number} {short}" if number else short


def heading(short: str) -> str:
    """A paper's heading in the report: ``000 code: Chan et al., CODE TCP (...)``."""
    from .experiments import PAPERS

    return f"{label(short)}: {PAPERS.get(short, short)}"
