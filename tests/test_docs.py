"""The documentation cannot drift from the engine: every key and named value the scenario
schema accepts (read from the engine's own serde structs, ``_engine.schema()``) appears in
docs/scenario.md, in the section about its table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tcplab import _engine

DOC = Path(__file__).resolve().parents[1] / "docs" / "scenario.md"

#: Which section of docs/scenario.md documents each table of the schema, by the start of
#: the table's path (the longest match wins) and the start of the section's heading.
SECTIONS = {
    "": "",  # the top-level keys: anywhere
    "simulation": "`[simulation]`",
    "simulation.pcap[]": "Traces",
    "topology": "`[topology]`",
    "topology(kind=wlan)": "WLAN",
    "link": "`[topology]`",
    "queue": "Queues",
    "loss": "Loss models",
    "jitter": "Jitter",
    "tcp": "`[tcp]`",
    "flows[]": "`[[flows]]`",
}


def sections(text: str) -> dict[str, str]:
    """Each ``## `` section's heading and body."""
    parts = re.split(r"^## ", text, flags=re.M)
    return {p.split("\n", 1)[0]: p for p in parts[1:]}


def section_for(path: str, all_sections: dict[str, str], text: str) -> str:
    prefix = max((p for p in SECTIONS if path.startswith(p)), key=len)
    start = SECTIONS[prefix]
    if not start:
        return text
    matching = [body for heading, body in all_sections.items() if heading.startswith(start)]
    assert len(matching) == 1, f"docs/scenario.md has {len(matching)} sections titled {start}..."
    return matching[0]


def in_code(word: str, text: str) -> bool:
    """Whether ``word`` appears as a whole word inside a code span of ``text``."""
    return any(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", span) for span in re.findall(r"`([^`]+)`", text))


def schema_words() -> list[tuple[str, str]]:
    """(table path, key or named value) for everything the schema accepts."""
    words = []
    for table in _engine.schema():
        path = table["path"]
        words += [(path, key) for key in table["keys"]]
        words += [(path, value) for values in table["choices"].values() for value in values]
        variant = re.search(r"\((\w+)=(\w+)\)$", path)
        if variant:
            words.append((path, variant.group(2)))
    return words


def test_the_schema_is_read_from_the_engine():
    words = schema_words()
    assert ("tcp", "partial_ack_timer") in words and ("tcp", "slow_but_steady") in words
    assert ("queue(kind=red)", "max_p") in words and ("flows[]", "packet_size") in words


@pytest.mark.parametrize("path", sorted({p for p, _ in schema_words()}))
def test_every_key_of_the_schema_is_documented(path):
    text = DOC.read_text()
    body = section_for(path, sections(text), text)
    missing = [w for p, w in schema_words() if p == path and not in_code(w, body)]
    assert not missing, f"docs/scenario.md does not document {path or 'top-level'} keys/values {missing}"


def test_algorithm_parameters_in_the_docs_are_generated_from_the_engine():
    from tcplab.cc_params import generated_part, markdown

    part = generated_part(DOC.read_text())
    assert part, "docs/scenario.md lost its generated parameter tables"
    assert part == markdown(), "regenerate with: python -m tcplab.cc_params docs/scenario.md"
    for algorithm in _engine.algorithms():
        assert f"`{algorithm}`" in part
    assert "| `threshold_decrease` |" in part and '`"loss_only"`' in part
    assert '| `rtt` | "last" (code: "min") |' in part
