"""Ablations: an experiment run again with one option changed, to test a suspected cause.

An :class:`Ablation` edits every scenario of its experiment the same way (one option, named
in ``change`` as a user would write it). The ablated runs are planned, stored and analysed like
any other experiment's (under the name ``<experiment>@<key>``); :func:`explain` then marks each
claim that fails with the defaults and holds under the ablation as explained by the ablation's
cause, and records the ablations that did not flip it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..result import Result
from ..scenario import Scenario
from .base import Claim, Experiment, Outcome, Run
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
    #: Run the ablation at the experiment's quick size even in a full reproduction (for
    #: sweeps of hundreds of runs; the report states the number of runs behind it).
    quick: bool = False

    def __post_init__(self) -> None:
        if self.key != QUICK_CONTROL:  # the control tests no cause
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
        for run in self.base.runs(quick or self.ablation.quick):
            doc = Scenario(run.scenario.doc).doc
            self.ablation.edit(doc)
            out.append(Run(run.params, Scenario(doc)))
        return out

    def analyze(self, results: list[tuple[dict[str, Any], Result]], quick: bool) -> Outcome:
        return self.base.analyze(results, quick or self.ablation.quick)


def ablated(experiments: list[Experiment]) -> list[AblatedExperiment]:
    """Every ablation of the given experiments, as experiments of their own, and for an
    experiment with quick ablations its :class:`QuickControl`."""
    out = [AblatedExperiment(e, a) for e in experiments for a in e.ablations]
    return out + [QuickControl(e) for e in experiments if any(a.quick for a in e.ablations)]


def explain(
    outcome: Outcome,
    ablations: list[tuple[Ablation, int, Outcome]],
    quick_control: Outcome | None = None,
) -> None:
    """Marks the failing claims of ``outcome`` that hold under an ablation (by identical claim
    text, and among claims of the same text by their order) as explained by its cause, and
    lists with a holding claim the ablations under which it fails; ``ablations`` holds
    (ablation, run count, its outcome). A quick ablation counts only where ``quick_control``
    (the defaults at the quick size) fails too: a claim that holds at the quick size's fewer
    points with the defaults says nothing about the option."""
    mine = _by_text(outcome.claims)
    control = _by_text(quick_control.claims, mine) if quick_control is not None else None
    for ablation, runs, ab_outcome in ablations:
        record = AblationResult(ablation, runs)
        under = _by_text(ab_outcome.claims, mine)
        for key, c in mine.items():
            if not ablation.addresses(c.text):
                continue
            other = under.get(key)
            if c.passed is True:
                _note_broken(c, ablation, other, control, key)
                continue
            if c.passed is not False:
                continue
            if ablation.quick and control is not None and _not_failing(control.get(key)):
                record.unchanged.append(c.text)
                c.tried.append(
                    f"{ablation.change}: not comparable (at the quick size the defaults do not fail "
                    "this claim either)"
                )
                continue
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
                # An ablated claim that fails "still fails"; one undecided or without data says so.
                state = (
                    "not evaluated"
                    if other is None
                    else "still fails"
                    if other.passed is False
                    else other.verdict
                )
                c.tried.append(
                    f"{ablation.change}: {state}" + (f" ({other.detail})" if other and other.detail else "")
                )
        outcome.ablations.append(record)


def _by_text(
    claims: list[Claim], like: dict[tuple[str, int], Claim] | None = None
) -> dict[tuple[str, int], Claim]:
    """Claims keyed by text and by how many earlier claims have the same text: an ablated
    outcome's claims are matched to the defaults' by these (an experiment that states the
    same claim twice, say per case, is matched claim by claim, in order). With ``like`` (the
    defaults' claims so keyed), a text stated a different number of times than there is left
    out: which claim matches which cannot be told (the claim is then not compared)."""
    seen: dict[str, int] = {}
    out = {}
    for c in claims:
        k = seen.get(c.text, 0)
        seen[c.text] = k + 1
        out[(c.text, k)] = c
    if like is None:
        return out
    theirs: dict[str, int] = {}
    for text, _ in like:
        theirs[text] = theirs.get(text, 0) + 1
    return {key: c for key, c in out.items() if seen[key[0]] == theirs.get(key[0], seen[key[0]])}


def _note_broken(
    c: Claim,
    ablation: Ablation,
    other: Claim | None,
    control: dict[tuple[str, int], Claim] | None,
    key: tuple[str, int],
) -> None:
    """A claim that holds with the defaults but fails under an ablation says the option
    matters to it too: the report lists it with the claim (a quick ablation only where the
    defaults at the quick size hold as well)."""
    if other is None or other.passed is not False:
        return
    if ablation.quick and control is not None:
        defaults = control.get(key)
        if defaults is None or defaults.passed is not True:
            return
    c.tried.append(f"{ablation.change}: fails" + (f" ({other.detail})" if other.detail else ""))


def doc_flows_with_cc(doc: dict[str, Any], cc: str) -> list[dict[str, Any]]:
    """The flow entries of a scenario document whose congestion control is ``cc``."""
    out = []
    for f in doc.get("flows", []):
        spec = f.get("cc")
        name = spec.get("name") if isinstance(spec, dict) else spec
        if name == cc:
            out.append(f)
    return out


def set_cc_params(cc: str | tuple[str, ...], **params: Any) -> Edit:
    """An edit that sets parameters of every flow running ``cc`` (one name or several)."""
    names = (cc,) if isinstance(cc, str) else cc

    def edit(doc: dict[str, Any]) -> None:
        for name in names:
            for f in doc_flows_with_cc(doc, name):
                spec = f["cc"]
                f["cc"] = {"name": spec, **params} if isinstance(spec, str) else {**spec, **params}

    return edit


def threshold_ablations(quick: bool = False) -> tuple[Ablation, ...]:
    """CODE's and NewVegas's threshold-decrease rule read as 000's prose and as its model."""
    return tuple(
        Ablation(
            key=f"threshold-{reading.replace('_', '-')}",
            cause="threshold-rule",
            change=f'threshold_decrease = "{reading}"',
            edit=set_cc_params(("code", "newvegas"), threshold_decrease=reading),
            quick=quick,
        )
        for reading in ("rtt_decreased", "loss_only")
    )


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


def stack_ablations(*keys: str, quick: bool = False) -> tuple[Ablation, ...]:
    """TCP conventions the papers do not state, each as an ablation of the ``ns2`` profile."""
    return tuple(STACK[k](quick) for k in keys)


def _stack(key: str, change: str, quick: bool = False, **options: Any) -> Ablation:
    return Ablation(key, "stack-conventions", change, set_tcp(**options), quick=quick)


#: The conventions tried: an older minimum RTO (RFC 2988's 1 s), delayed ACKs (RFC 1122,
#: NS-2's DelAck sink), window growth by the segments an ACK covers (RFC 3465, Linux).
STACK: dict[str, Callable[[bool], Ablation]] = {
    "min-rto-1s": lambda q: _stack("min-rto-1s", "[tcp] min_rto = 1.0", q, min_rto=1.0),
    "delayed-ack": lambda q: _stack("delayed-ack", "[tcp] delayed_ack = true", q, delayed_ack=True),
    "old-stack": lambda q: _stack(
        "old-stack", "[tcp] min_rto = 1.0, delayed_ack = true", q, min_rto=1.0, delayed_ack=True
    ),
    "bytes-growth": lambda q: _stack(
        "bytes-growth", '[tcp] window_growth = "bytes"', q, window_growth="bytes"
    ),
}


def veno_basertt_ablation() -> Ablation:
    """Veno's BaseRTT kept across losses (Linux's tcp_veno.c) instead of 001's reset."""
    return Ablation(
        "basertt-never",
        "veno-basertt-reset",
        'veno: base_rtt_reset = "never"',
        set_cc_params("veno", base_rtt_reset="never"),
    )


def vegasplus_count_ablation(quick: bool = False) -> Ablation:
    """Vegas+'s count moved once per round instead of on every ACK."""
    return cc_reading("count-per-round", "vegasplus-count", "vegas_plus", quick, count_every="round")


def pifs_backoff_ablation() -> Ablation:
    """The AP with PIFS and no random backoff (the stronger reading of 004's ref. [12])."""
    return Ablation(
        "pifs-no-backoff",
        "pifs-backoff",
        "[topology] ap_backoff = false",
        _without_pifs_backoff,
        claims=("PIFS",),
    )


def _without_pifs_backoff(doc: dict[str, Any]) -> None:
    """Only the runs whose AP uses PIFS change; the other methods' runs stay the same."""
    topology = doc.get("topology", {})
    if topology.get("ap_access") == "pifs":
        topology["ap_backoff"] = False


def ack_loss_pause_ablation(claims: tuple[str, ...]) -> Ablation:
    """004's ACK-loss reaction paused for one RTT after a data loss, as 004 section III-A
    says, instead of until loss recovery ends (the engine's default, for NewReno's partial
    ACKs, which jump by design)."""
    return Ablation(
        "ack-loss-pause-one-rtt",
        "ack-loss-pause",
        "ack_loss_reaction: pause_through_recovery = false",
        _ack_loss_pause_one_rtt,
        claims=claims,
    )


def _ack_loss_pause_one_rtt(doc: dict[str, Any]) -> None:
    """Only the flows with the ACK-loss reaction change."""
    for f in doc.get("flows", []):
        reaction = f["cc"].get("ack_loss_reaction") if isinstance(f.get("cc"), dict) else None
        if isinstance(reaction, dict):
            reaction["pause_through_recovery"] = False


def vegasplus_window_ablation(quick: bool = False) -> Ablation:
    """Vegas+'s count moved only while the window is unchanged, as 002 section 6 summarises
    003's rule ("count + 1 if rtt > rtt_p and ws = ws_p, count - 1 if rtt < rtt_p and
    ws = ws_p"), instead of 003 section 5.1's wording (only the increment needs a window that
    did not grow)."""
    return cc_reading(
        "count-window-unchanged", "vegasplus-count", "vegas_plus", quick, count_window="unchanged"
    )


def vegas_ns2_module_ablation() -> Ablation:
    """Vegas as NS-2's own module (Agent/TCP/Vegas, tcp-vegas.cc: Delta from the mean of the
    round's RTT samples, fine-grained retransmission, cwnd to 3/4 on a retransmission, 2 after
    a timeout) instead of Linux's tcp_vegas; 004 names both (see the cause)."""
    return cc_reading("vegas-ns2-module", "vegas-module", "vegas", variant="paper", rtt="mean")


def cc_reading(key: str, cause: str, cc: str, quick: bool = False, **params: str) -> Ablation:
    """An ablation that sets string parameters of every flow running ``cc``, shown as
    ``cc: name = "value", ...``."""
    change = f"{cc}: " + ", ".join(f'{k} = "{v}"' for k, v in params.items())
    return Ablation(key, cause, change, set_cc_params(cc, **params), quick=quick)


def code_rtt_ablation(quick: bool = False) -> Ablation:
    """CODE on the target packet's RTT (000 section 2.4, which section 3.2's pseudocode
    inherits) instead of the window's minimum (section 4.5)."""
    return Ablation(
        "code-rtt-target",
        "code-rtt",
        'code: rtt = "last"',
        set_cc_params("code", rtt="last"),
        claims=("CODE",),
        quick=quick,
    )


def phase_ablation(quick: bool = False, claims: tuple[str, ...] = ()) -> Ablation:
    """Each sender's packets reach the bottleneck after a random extra delay, uniform up to
    one packet's transmission time there: Floyd & Jacobson's remedy for DropTail phase
    effects ("On traffic phase effects in packet-switched gateways", 1992), the random
    processing time NS-2's TCP agents draw with ``overhead_``."""
    return Ablation(
        "random-send-delay",
        "phase-effects",
        "[topology] each sender's access link: jitter uniform up to one packet time at the bottleneck",
        randomise_senders,
        claims=claims,
        quick=quick,
    )


#: The ``ns2`` profile's segment and header bytes (docs/scenario.md), for a scenario that
#: leaves them to the profile (its canonical form then omits them).
NS2_MSS, NS2_HEADER_BYTES = 1000, 40


def randomise_senders(doc: dict[str, Any]) -> None:
    """Gives every sender's access link a jitter uniform up to one packet's transmission time at
    the bottleneck (the ``bottleneck`` or chain ``hop`` link; a packet is the scenario's
    ``[tcp]`` segment plus header bytes, the ``ns2`` profile's unless set; flows' own ``tcp``
    keys are not looked at). Per pair on a dumbbell or chain, whose common access links also
    lead to the receivers; on the shared access of a star, whose access links are all
    senders'. Applying it twice changes nothing more."""
    topology = doc["topology"]
    kind = topology.get("kind")
    if kind not in ("dumbbell", "chain", "star"):
        raise ValueError(f"a random send delay needs a dumbbell, chain or star, not {kind!r}")
    canonical = tomllib.loads(Scenario(doc).validate())
    link = canonical["topology"].get("bottleneck") or canonical["topology"]["hop"]
    tcp = canonical.get("tcp", {})
    if tcp.get("stack", "ns2") != "ns2":
        raise ValueError("a random send delay models NS-2's overhead_: the scenario must run the ns2 stack")
    packet = tcp.get("mss", NS2_MSS) + tcp.get("header_bytes", NS2_HEADER_BYTES)
    jitter = {"kind": "uniform", "max": 8 * packet / link["rate"]}
    if kind == "star":
        topology["access"] = {**canonical["topology"]["access"], "jitter": jitter}
        return
    pairs = topology.setdefault("pair_access", [])
    pairs.extend({} for _ in range(topology["pairs"] - len(pairs)))
    for pair in pairs:
        pair["jitter"] = dict(jitter)


#: The key of an experiment's defaults at its quick size (see :class:`QuickControl`).
QUICK_CONTROL = "quick-defaults"


class QuickControl(AblatedExperiment):
    """An experiment's defaults at its quick size: what its quick ablations are compared
    with. A quick ablation runs fewer sweep points than the full experiment, so a claim
    "at every point" may hold there with the defaults too; then its holding under the
    ablation is no evidence for the ablation's cause (:func:`explain`)."""

    def __init__(self, base: Experiment):
        identity = Ablation(QUICK_CONTROL, "", "(the defaults)", _unchanged, quick=True)
        super().__init__(base, identity)
        self.title = f"{base.title} (defaults at the quick size)"


def _unchanged(doc: dict[str, Any]) -> None:
    """The control's edit: none."""


def _not_failing(c: Any) -> bool:
    """Whether a control's claim is missing, not evaluated or holding (so not a failure)."""
    return c is None or c.passed is not False


#: The Vegas family, every member of which NS-2 builds on its Agent/TCP/Vegas.
VEGAS_FAMILY = ("vegas", "vegas_a", "newvegas", "code", "vegas_plus")


def ns2_diff_ablation(quick: bool = False, cc: str | None = None, claims: tuple[str, ...] = ()) -> Ablation:
    """Delta rounded to whole packets as NS-2's Agent/TCP/Vegas computes it (the paper's
    simulator's convention, not stated in 000), for every Vegas-family flow or, with
    ``cc``, for that algorithm's flows only (so that a full-size ablation of a sweep
    re-runs only the runs its claims are about)."""
    return Ablation(
        "ns2-whole-packet-diff" + (f"-{cc.replace('_', '-')}" if cc else ""),
        "ns2-vegas-diff",
        f'{cc or "vegas family"}: diff_rounding = "nearest"',
        set_cc_params(cc or VEGAS_FAMILY, diff_rounding="nearest"),
        claims=claims,
        quick=quick,
    )
