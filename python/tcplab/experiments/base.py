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
    #: "sim" (the engine), "kernel" (the namespace test bed, in real time; stored like a
    #: simulated run, run only by ``tcplab reproduce --kernel``) or "kernel-native" (the
    #: same, with reno and cubic the kernel's own modules instead of tcplab's BPF ports).
    backend: str = "sim"


#: What an experiment's analysis gets: each run's parameters and records, in ``runs()`` order.
Results = list[tuple[dict[str, Any], Result]]


#: A claim's verdict, in the order the report counts them.
VERDICTS = ("holds", "explained", "unexplained", "undecided", "not evaluated")


@dataclass
class Claim:
    """A qualitative statement of the paper, checked against our data.

    ``passed`` is None when the check had no data to decide on ("not evaluated", never
    "holds"), or, with ``undecided``, when it had data that settles neither way (a statistical
    test whose interval straddles its tolerance: more runs could decide it). A failing claim
    is "explained" when ``cause`` names an entry of :data:`tcplab.experiments.causes.CAUSES`
    and ``explanation`` shows the evidence: an
    ablation under which the claim holds, or the arithmetic that makes the paper's own
    statement unsatisfiable. ``tried`` lists ablations that did not flip it, and for a claim
    that holds, those under which it fails.
    """

    text: str
    passed: bool | None
    detail: str = ""
    cause: str | None = None
    explanation: str = ""
    tried: list[str] = field(default_factory=list)
    undecided: bool = False

    @property
    def verdict(self) -> str:
        if self.passed is None:
            return "undecided" if self.undecided else "not evaluated"
        if self.passed:
            return "holds"
        return "explained" if self.cause else "unexplained"


@dataclass
class Figure:
    """A figure of an experiment. Rendering turns it into PNG and SVG bytes and frees the
    matplotlib figure, so an outcome can travel from an analysis worker to the report."""

    name: str
    figure: Any  # matplotlib.figure.Figure, None once rendered
    caption: str
    rendered: dict[str, bytes] | None = None

    #: Formats written for every figure: PNG for Markdown, SVG (vector) for HTML and papers.
    FORMATS = (("png", {"dpi": 130}), ("svg", {}))

    def render(self) -> dict[str, bytes]:
        if self.rendered is None:
            import io

            import matplotlib.pyplot as plt

            out = {}
            for fmt, options in self.FORMATS:
                buf = io.BytesIO()
                self.figure.savefig(buf, format=fmt, bbox_inches="tight", **options)
                out[fmt] = buf.getvalue()
            plt.close(self.figure)
            self.figure, self.rendered = None, out
        return self.rendered


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
    #: The ablations run beside the defaults (see tcplab.experiments.ablation).
    ablations: list[Any] = field(default_factory=list)

    def verdicts(self) -> dict[str, int]:
        """How many claims have each verdict (every verdict present, zeros included)."""
        counts = dict.fromkeys(VERDICTS, 0)
        for c in self.claims:
            counts[c.verdict] += 1
        return counts


class Experiment(ABC):
    """Base class. Subclasses set the class attributes and implement runs() and analyze()."""

    name: str = ""
    paper: str = ""
    title: str = ""
    setup: str = ""
    #: Mechanisms needed, as "cc:vegas", "queue:red", "topology:wlan".
    needs: tuple[str, ...] = ()
    #: Whether analyze() measures something in real time (the kernel test bed): such an
    #: experiment is analysed alone, after the others, so no other work disturbs it.
    realtime: bool = False
    #: Whether the experiment runs only when named (its name or its paper), never by "all"
    #: (the kernel conformance matrix: root and half an hour of real time).
    explicit: bool = False
    published: tuple[Published, ...] = ()
    #: For experiments with kernel test-bed runs: what running them costs, for the user.
    kernel_time: str = ""
    #: Runs of the same experiment with one option changed, each testing a suspected cause
    #: of a failing claim (tcplab.experiments.ablation.Ablation).
    ablations: tuple[Any, ...] = ()

    @abstractmethod
    def runs(self, quick: bool) -> list[Run]:
        """The scenarios to simulate, each with its parameters."""

    @abstractmethod
    def analyze(self, results: list[tuple[dict[str, Any], Result]], quick: bool) -> Outcome:
        """Tables, figures, published-vs-ours and checked claims from the runs' records."""

    @property
    def on_kernel(self) -> bool:
        """Whether some runs go to the kernel test bed (root, real time): such experiments
        run only when asked (``tcplab reproduce --kernel``)."""
        return "testbed:kernel" in self.needs

    def archived_kernel_runs(self, quick: bool) -> int:
        """How many of the experiment's kernel runs the archive of kernel measurements holds
        (testbed/archive.py): with some, it runs without ``--kernel`` (and without root),
        comparing its simulated runs with the archived ones."""
        return 0

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
