"""What an experiment is: parameters -> scenarios, and records -> tables, figures, checks."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..result import Result
from ..scenario import Scenario


@dataclass
class Run:
    """One simulation of an experiment: its parameters (for tables) and its scenario."""

    params: dict[str, Any]
    scenario: Scenario


@dataclass
class Claim:
    """A qualitative statement of the paper, checked against our data."""

    text: str
    passed: bool | None
    detail: str = ""


@dataclass
class Figure:
    name: str
    figure: Any  # matplotlib.figure.Figure
    caption: str


@dataclass
class Published:
    """A number printed in a paper, typed in with its source."""

    quantity: str
    value: float
    unit: str
    source: str


@dataclass
class Outcome:
    """What an experiment reports."""

    experiment: Experiment
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: list[Figure] = field(default_factory=list)
    comparison: pd.DataFrame | None = None
    claims: list[Claim] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    status: str = "ok"


class Experiment(ABC):
    """Base class. Subclasses set the class attributes and implement runs() and analyze()."""

    name: str = ""
    paper: str = ""
    title: str = ""
    setup: str = ""
    #: Mechanisms needed, as "cc:vegas", "queue:red", "topology:wlan".
    needs: tuple[str, ...] = ()
    published: tuple[Published, ...] = ()

    @abstractmethod
    def runs(self, quick: bool) -> list[Run]:
        """The scenarios to simulate, each with its parameters."""

    @abstractmethod
    def analyze(self, results: list[tuple[dict[str, Any], Result]], quick: bool) -> Outcome:
        """Tables, figures, published-vs-ours and checked claims from the runs' records."""

    def missing(self, capabilities: dict[str, list[str]]) -> list[str]:
        """The needed mechanisms this engine build lacks."""
        out = []
        for need in self.needs:
            kind, _, name = need.partition(":")
            if name not in capabilities.get(kind, []):
                out.append(need)
        return out

    def __repr__(self) -> str:
        return f"<experiment {self.name}>"
