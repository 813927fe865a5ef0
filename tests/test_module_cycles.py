"""scripts/module-cycles.py: the engine's modules form layers without an import cycle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "module-cycles.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def layers(stdout: str) -> dict[str, str]:
    """Module -> its layer ("0", "1", ..., "-" for those in a cycle)."""
    rows = [line.split() for line in stdout.splitlines() if " -> " in line and not line.startswith(" ")]
    return {row[1]: row[0] for row in rows}


def test_the_engine_has_no_cycle_and_the_schema_is_a_leaf():
    r = run()
    assert r.returncode == 0, r.stdout
    depth = {m: int(d) for m, d in layers(r.stdout).items()}
    assert depth["config"] == 0
    assert any(
        line.split()[1:] == ["config", "->", "(nothing", "of", "the", "engine)"]
        for line in r.stdout.splitlines()
    )
    assert depth["cc"] < depth["tcp"] < depth["world"]
    assert depth["net"] < depth["queue"] < depth["wifi"]


def write_crate(root: Path, files: dict[str, str]) -> Path:
    src = root / "src"
    for name, text in {"lib.rs": "pub mod a;\npub mod b;\npub use a::Thing;\n", **files}.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    return src


def test_a_cycle_is_reported_with_the_files_that_make_it(tmp_path):
    src = write_crate(
        tmp_path,
        {
            "a/mod.rs": "pub mod inner;\npub struct Thing;\n",
            "a/inner.rs": "use crate::{b::Other, sim};\n",
            "b.rs": "// use crate::nothing\npub struct Other(crate::Thing);\n",
        },
    )
    r = run("--src", str(src))
    assert r.returncode == 1
    assert layers(r.stdout) == {"a": "-", "b": "-"}
    assert "cycle between a, b" in r.stdout
    assert "a -> b: a/inner.rs" in r.stdout and "b -> a: b.rs" in r.stdout


def test_test_code_does_not_count(tmp_path):
    src = write_crate(
        tmp_path,
        {
            "a/mod.rs": "pub struct Thing;\n#[cfg(test)]\nmod tests {\n    use crate::b::Other;\n}\n",
            "b.rs": "pub struct Other(crate::a::Thing);\n",
        },
    )
    r = run("--src", str(src))
    assert r.returncode == 0, r.stdout
    assert layers(r.stdout) == {"a": "0", "b": "1"}
