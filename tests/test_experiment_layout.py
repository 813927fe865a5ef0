"""The experiments' layout (docs/ARCHITECTURE.md): one package per paper, every experiment in
the module named after it, figure modules independent of each other, so that adding a figure
touches its own module."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tcplab.experiments import PAPERS, resolve

#: Each paper's package (the short name, but ``code`` would shadow the standard library's).
PACKAGES = {"code": "code_tcp", "veno": "veno", "fahmy": "fahmy", "hasegawa": "hasegawa", "wlan": "wlan"}
#: A package's modules that are not one experiment each.
SHARED = {"__init__", "paper", "measure", "model", "plots", "sweep", "windows", "methods", "hops"}


def _package_dir(paper: str) -> Path:
    return Path(importlib.import_module(f"tcplab.experiments.{PACKAGES[paper]}").__file__).parent


@pytest.mark.parametrize("paper", sorted(PACKAGES))
def test_every_experiment_lives_in_the_module_named_after_it(paper):
    assert paper in PAPERS
    exps = resolve([paper])
    assert exps
    for e in exps:
        figure = e.name.split("/", 1)[1].replace("-", "_")
        assert type(e).__module__ == f"tcplab.experiments.{PACKAGES[paper]}.{figure}", e.name
    modules = {p.stem for p in _package_dir(paper).glob("*.py")} - SHARED
    assert modules == {e.name.split("/", 1)[1].replace("-", "_") for e in exps}


@pytest.mark.parametrize("paper", sorted(PACKAGES))
def test_figure_modules_import_no_other_figure_module(paper):
    figures = {p.stem for p in _package_dir(paper).glob("*.py")} - SHARED
    for name in figures:
        tree = ast.parse((_package_dir(paper) / f"{name}.py").read_text())
        imported = {
            alias.name if node.module is None else node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 1
            for alias in node.names
        }
        assert not imported & figures, f"{paper}/{name} imports {sorted(imported & figures)}"
