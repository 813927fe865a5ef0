"""Hostile input: user text that looks like markup, and (below) a corpus of malformed
files and API calls. Each must end in the package's own error naming the field (exit
code 2 on the command line), never a traceback, a panic, a hang or a silent misreading."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
from typer.testing import CliRunner

from tcplab.cli import app

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent / "tcplab"

SMALL = """
[simulation]
duration = 1

[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 50 }

[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
"""


def cli(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


# -- user text is printed literally -------------------------------------------------------


def test_flow_named_like_markup_runs_writes_every_table_and_prints_the_name(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(SMALL.replace('cc = "reno"', 'cc = "reno"\nname = "[/x]"'))
    out = tmp_path / "out"
    r = subprocess.run(
        [str(BIN), "run", str(f), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"COLUMNS": "200"},
    )
    assert r.returncode == 0, r.stderr
    assert "[/x]" in r.stdout
    assert pd.read_parquet(out / "flows.parquet")["name"].tolist() == ["[/x]"]
    assert (out / "scenario.toml").is_file()


def test_markup_in_an_error_text_is_shown_not_parsed(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(SMALL.replace('dst = "d0"', 'dst = "[/oops]"'))
    r = cli("validate", str(f))
    assert r.exit_code == 2, r.output
    assert 'no node named "[/oops]"' in r.output


def test_file_names_like_markup_are_printed_as_given(tmp_path):
    for name in ("[red]x.toml", "a[/x]b.toml", "[bold]"):
        f = tmp_path / name
        f.parent.mkdir(exist_ok=True)  # "a[/x]b.toml" is x]b.toml in a directory "a["
        f.write_text(SMALL)
        r = cli("validate", str(f))
        assert r.exit_code == 0, r.output
        assert f"{f} is a valid scenario" in r.output


def test_brackets_of_allowed_ranges_survive_in_errors(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(SMALL.replace('cc = "reno"', 'cc = "reno"\nstart = { uniform = [0.8, 0.2] }'))
    r = cli("validate", str(f))
    assert r.exit_code == 2
    assert "[0.8, 0.2] is reversed; write [low, high]" in r.output


def test_error_helper_prints_brackets(capsys):
    from tcplab.console import error

    error("pip install 'tcplab[ray]' [/x] [red]")
    assert "pip install 'tcplab[ray]' [/x] [red]" in capsys.readouterr().err


def test_only_the_console_module_makes_consoles():
    """Every command prints through tcplab.console (markup off), so no other module may
    make its own rich Console or a status spinner from a plain string."""
    offenders = []
    for p in (ROOT / "python" / "tcplab").rglob("*.py"):
        if p.name == "console.py":
            continue
        text = p.read_text()
        if "Console(" in text or "console.status(" in text or "from_markup" in text:
            offenders.append(p.name)
    assert offenders == []
