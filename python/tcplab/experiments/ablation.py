"""Ablations: an experiment run again with one option changed, to test a suspected cause.

An :class:`Ablation` edits every scenario of its experiment the same way (one option, named
in ``change`` as a user would write it). The ablated runs are planned, stored and analysed like
any other experiment's (under the name ``<experiment>@<key>``); :func:`explain` then marks each
claim that fails with the defaults and holds under the ablation as explained by the ablation's
cause, and records the ablations that did not flip it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..result import Result
from ..scenario import Scenario
from .base import Experiment, Outcome, Run
from .causes import cause as lookup_cause

#: Separates an experiment's name from its ablation's key.
SEP = "@"

Edit = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Ablation:
    key: str
    cause: str
    #: The changed option as a scenario would set it, e.g. 'veno: reset_base_rtt = "never"'.
    change: str
    #: Edits a scenario document in place.
    edit: Edit = field(compare=False)
    #: Substrings of the claims the ablation addresses; empty: every failing claim.
    claims: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        lookup_cause(self.cause)  # an unknown cause is a programming error, found at import
        if SEP in self.key:
            raise ValueError(f"ablation key {self.key!r} must not contain {SEP!r}")

    def addresses(self, claim_text: str) -> bool:
        return not self.claims or any(s in claim_text for s in self.claims)


@dataclass
class AblationResult:
    """What one ablation showed, for the report's root-cause table."""

    ablation: Ablation
    runs: int
    flipped: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


class AblatedExperiment(Experiment):
    """The runs of ``base`` with ``ablation`` applied to each scenario; same analysis."""

    def __init__(self, base: Experiment, ablation: Ablation):
        self.base = base
        self.ablation = ablation
        self.name = f"{base.name}{SEP}{ablation.key}"
        self.paper = base.paper
        self.title = f"{base.title} ({ablation.change})"
        self.setup = base.setup
        self.needs = base.needs
        self.realtime = base.realtime
        self.explicit = base.explicit

    def runs(self, quick: bool) -> list[Run]:
        out = []
        for run in self.base.runs(quick):
            doc = Scenario(run.scenario.doc).doc
            self.ablation.edit(doc)
            out.append(Run(run.params, Scenario(doc)))
        return out

    def analyze(self, results: list[tuple[dict[str, Any], Result]], quick: bool) -> Outcome:
        return self.base.analyze(results, quick)


def ablated(experiments: list[Experiment]) -> list[AblatedExperiment]:
    """Every ablation of the given experiments, as experiments of their own."""
    return [AblatedExperiment(e, a) for e in experiments for a in e.ablations]


def explain(outcome: Outcome, ablations: list[tuple[Ablation, int, Outcome]]) -> None:
    """Marks the failing claims of ``outcome`` that hold under an ablation (by identical claim
    text) as explained by its cause; ``ablations`` holds (ablation, run count, its outcome)."""
    for ablation, runs, ab_outcome in ablations:
        record = AblationResult(ablation, runs)
        under = {c.text: c for c in ab_outcome.claims}
        for c in outcome.claims:
            if c.passed is not False or not ablation.addresses(c.text):
                continue
            other = under.get(c.text)
            if other is not None and other.passed is True:
                record.flipped.append(c.text)
                if c.cause is None:
                    c.cause = ablation.cause
                    c.explanation = f"holds with {ablation.change}" + (
                        f": {other.detail}" if other.detail else ""
                    )
                else:
                    c.explanation += f"; also holds with {ablation.change}"
            else:
                record.unchanged.append(c.text)
                state = "not evaluated" if other is None or other.passed is None else "still fails"
                c.tried.append(
                    f"{ablation.change}: {state}" + (f" ({other.detail})" if other and other.detail else "")
                )
        outcome.ablations.append(record)


def doc_flows_with_cc(doc: dict[str, Any], cc: str) -> list[dict[str, Any]]:
    """The flow entries of a scenario document whose congestion control is ``cc``."""
    out = []
    for f in doc.get("flows", []):
        spec = f.get("cc")
        name = spec.get("name") if isinstance(spec, dict) else spec
        if name == cc:
            out.append(f)
    return out


def set_cc_params(cc: str, **params: Any) -> Edit:
    """An edit that sets parameters of every flow running ``cc``."""

    def edit(doc: dict[str, Any]) -> None:
        for f in doc_flows_with_cc(doc, cc):
            spec = f["cc"]
            f["cc"] = {"name": spec, **params} if isinstance(spec, str) else {**spec, **params}

    return edit


def set_tcp(**options: Any) -> Edit:
    """An edit that sets TCP defaults for every flow (a flow's own ``tcp`` keys still win)."""

    def edit(doc: dict[str, Any]) -> None:
        doc.setdefault("tcp", {}).update(options)

    return edit


def set_topology(**options: Any) -> Edit:
    """An edit that sets keys of the scenario's topology."""

    def edit(doc: dict[str, Any]) -> None:
        doc.setdefault("topology", {}).update(options)

    return edit
