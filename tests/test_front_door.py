"""The front door: what a newcomer meets first (version, validate, the run table, typos)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import tcplab

BIN = Path(sys.executable).parent / "tcplab"


def tcplab_cli(*args: str, columns: int = 80) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN), *args], capture_output=True, text=True, timeout=120, env={"COLUMNS": str(columns)}
    )


def test_version_names_package_engine_and_commit():
    r = tcplab_cli("--version")
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip()
    assert line.startswith(f"tcplab {version('tcplab')} (engine {tcplab.ENGINE_VERSION}")
    if tcplab.ENGINE_COMMIT:
        assert re.fullmatch(r"[0-9a-f]{7,40}(-dirty)?", tcplab.ENGINE_COMMIT)
        assert f"commit {tcplab.ENGINE_COMMIT})" in line
    assert tcplab.__version__ == version("tcplab")
