"""The congestion controls' parameters, as the engine describes them (``_engine.cc_parameters``:
keys from the parameter structs, defaults from their ``Default``, meanings from their doc
comments), and the Markdown of docs/scenario.md's generated part.

``python -m tcplab.cc_params docs/scenario.md`` rewrites that part; a test fails while it
differs from what the engine says, so the documentation cannot drift from the code.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

from . import _engine

BEGIN = "<!-- BEGIN generated -->"
END = "<!-- END generated -->"


def parameter_sets(algorithms: list[str] | None = None) -> list[dict[str, Any]]:
    """Every parameter set, or those that apply to one of ``algorithms``; each set's
    ``algorithms`` is empty when it applies to every algorithm."""
    sets = _engine.cc_parameters()
    if not algorithms:
        return sets
    return [s for s in sets if not s["algorithms"] or set(s["algorithms"]) & set(algorithms)]


def value_text(v: Any) -> str:
    """A value as a scenario writes it: ``0.5``, ``true``, ``"min"``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


def default_text(param: dict[str, Any], algorithms: list[str]) -> str:
    """The default; where members of a set differ, the common one and the exceptions
    (``"last" (code: "min")``)."""
    texts = [value_text(v) for v in param["defaults"]]
    common, _ = Counter(texts).most_common(1)[0]
    exceptions = [f"{a}: {t}" for a, t in zip(algorithms, texts, strict=False) if t != common]
    return common + (f" ({'; '.join(exceptions)})" if exceptions else "")


def set_title(s: dict[str, Any]) -> str:
    """``reno, newreno, tahoe`` or, for a set every algorithm takes, what it is."""
    if s["algorithms"]:
        return ", ".join(s["algorithms"])
    key = s["params"][0]["key"].split(".")[0]
    return f"every algorithm, in the table {key}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """docs/scenario.md's generated part: one table per parameter set."""
    out = [BEGIN]
    for s in parameter_sets():
        names = ", ".join(f"`{a}`" for a in s["algorithms"]) or set_title(s)
        out += ["", f"### {names} (`{s['name']}`)", "", "| key | default | meaning |", "|---|---|---|"]
        for p in s["params"]:
            meaning = p["doc"]
            if p["values"]:
                meaning += " Values: " + " ".join(f"`{value_text(n)}`: {d}" for n, d in p["values"])
            default = default_text(p, s["algorithms"])
            out.append(f"| `{p['key']}` | {_cell(default)} | {_cell(meaning)} |")
    out += ["", END]
    return "\n".join(out)


def generated_part(text: str) -> str:
    """The generated part of a document, markers included ("" if it has none)."""
    start, end = text.find(BEGIN), text.find(END)
    return text[start : end + len(END)] if 0 <= start < end else ""


def main(argv: list[str]) -> int:
    """Rewrites the generated part of each file named (it must have the markers)."""
    for name in argv:
        path = Path(name)
        text = path.read_text()
        old = generated_part(text)
        if not old:
            print(f"{path}: no generated part ({BEGIN} ... {END})", file=sys.stderr)
            return 2
        path.write_text(text.replace(old, markdown()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
