"""Every experiment of the five papers, by name (see ../shared/seeds/EXPERIMENTS.md), and
tcplab's own (``linux/...``, ``beyond/...``)."""

from __future__ import annotations

from .base import Claim, Experiment, Figure, Outcome, Published, Run

REGISTRY: dict[str, Experiment] = {}

PAPERS = {
    "code": "Chan et al., CODE TCP (Computer Communications 2010)",
    "veno": "Fu & Liew, TCP Veno (IEEE JSAC 2003)",
    "fahmy": "Fahmy & Sharma, Deployment considerations for TCP Vegas (Purdue TR 2003)",
    "hasegawa": "Hasegawa, Kurata & Murata, Fairness between TCP Reno and Vegas (ICNP 2000)",
    "wlan": "Hashimoto, Hasegawa & Murata, Hybrid TCP in wireless LANs",
    "linux": "tcplab's own: the simulator's linux profile against Linux TCP (root; only when named)",
    "beyond": "tcplab's own: BBR beyond the papers (issue 18; docs/beyond.md)",
}


def register(cls: type[Experiment]) -> type[Experiment]:
    exp = cls()
    if exp.name in REGISTRY:
        raise ValueError(f"experiment {exp.name} registered twice")
    REGISTRY[exp.name] = exp
    return cls


def resolve(names: list[str]) -> list[Experiment]:
    """Expands names: an experiment name, a paper prefix (``code``) or ``all`` (which leaves
    out the experiments that run only when named, ``Experiment.explicit``)."""
    _load()
    out: list[Experiment] = []
    for n in names:
        if n == "all":
            picked = [e for e in REGISTRY.values() if not e.explicit]
        elif n in REGISTRY:
            picked = [REGISTRY[n]]
        elif n in PAPERS:
            picked = [e for e in REGISTRY.values() if e.name.startswith(n + "/")]
        else:
            known = ", ".join(["all", *PAPERS, *sorted(REGISTRY)])
            raise KeyError(f"no experiment or paper named {n!r}; known: {known}")
        out.extend(e for e in picked if e not in out)
    return out


def lookup(name: str) -> Experiment:
    """One experiment by its full name, ablations (``<experiment>@<key>``) included."""
    from .ablation import QUICK_CONTROL, SEP, AblatedExperiment, QuickControl

    base_name, _, key = name.partition(SEP)
    (base,) = resolve([base_name])
    if not key:
        return base
    if key == QUICK_CONTROL:
        return QuickControl(base)
    for a in base.ablations:
        if a.key == key:
            return AblatedExperiment(base, a)
    raise KeyError(f"experiment {base_name} has no ablation {key!r}")


def all_experiments() -> list[Experiment]:
    _load()
    return list(REGISTRY.values())


def _load() -> None:
    from . import (  # noqa: F401  (registration side effect)
        bbr_cubic,
        bbr_cubic_kernel,
        bbr_vegas,
        bbr_wlan,
        code_tcp,
        fahmy,
        hasegawa,
        linux,
        veno,
        wlan,
    )


__all__ = [
    "Claim",
    "Experiment",
    "Figure",
    "Outcome",
    "Published",
    "Run",
    "all_experiments",
    "register",
    "resolve",
]
