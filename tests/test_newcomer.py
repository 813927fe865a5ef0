"""What a newcomer types first works unchanged: ``--help`` of every command, the README's
commands (those that need neither root nor a long run) and its Python example."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from tcplab.cli import app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BIN = Path(sys.executable).parent


def command_paths(group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and group of the command line, as the words that name it."""
    paths = [prefix]
    for name, command in group.commands.items():
        if hasattr(command, "commands"):  # a group
            paths += command_paths(command, (*prefix, name))
        else:
            paths.append((*prefix, name))
    return paths


COMMANDS = command_paths(typer.main.get_command(app))


def test_every_command_is_found():
    for words in [("run",), ("validate",), ("reproduce",), ("kernel", "load"), ("testbed", "cleanup")]:
        assert words in COMMANDS


@pytest.mark.parametrize("words", COMMANDS, ids=lambda w: " ".join(w) or "tcplab")
def test_help_of_every_command(words):
    r = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)
    assert "Usage: " in r.output and "Traceback" not in r.output
    assert max(len(line) for line in r.output.splitlines()) <= 80


def readme_block(heading: str, language: str) -> str:
    """The first ``language`` code block after ``heading`` in the README."""
    after = README[README.index(heading) :]
    return re.search(rf"```{language}\n(.*?)```", after, re.S).group(1)


#: README commands left out here: they need root or run every experiment (CI runs
#: `make reproduce-quick` and the kernel tests for those).
EXPENSIVE = ("sudo ", "tcplab reproduce all")


def readme_commands() -> list[str]:
    lines = [line.split("#")[0].strip() for line in readme_block("## Command line", "sh").splitlines()]
    return [line for line in lines if line.startswith("tcplab ") and not line.startswith(EXPENSIVE)]


def newcomer(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {"PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "COLUMNS": "80", "HOME": str(cwd)}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_readme_commands_work_unchanged(tmp_path):
    commands = readme_commands()
    assert any(c.startswith("tcplab run ") for c in commands)
    assert any(c.startswith("tcplab reproduce ") for c in commands)
    assert any(c.startswith("tcplab report ") for c in commands)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    for command in commands:  # in the README's order: reproduce stores what report reads
        r = newcomer(shlex.split(command), tmp_path)
        assert r.returncode == 0, f"{command}: {r.stderr}"
        assert "Traceback" not in r.stderr, command
        wide = [line for line in r.stdout.splitlines() if len(line) > 80]
        assert not wide, f"{command}: {wide[:2]}"
    assert (tmp_path / "out" / "reno" / "flows.parquet").exists()
    assert (tmp_path / "report" / "index.html").exists()
    assert (tmp_path / "all-flows.parquet").exists()


def test_readme_python_example_runs(tmp_path):
    code = readme_block("## Five lines of Python", "python")
    r = newcomer([sys.executable, "-c", code], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "goodput_bps" in r.stdout and "reno" in r.stdout and "code" in r.stdout
