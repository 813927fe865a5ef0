"""A directory written as a whole (publish.py; the report uses it): concurrent writers never
leave a mix, an earlier version is replaced whole, and directories holding anything else
are refused rather than deleted."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tcplab.cli import app
from tcplab.errors import OutputError
from tcplab.publish import replaced_dir

OWNED = ("index.html", "report.md", "figures")


def write_version(final: Path, writer: int, rounds: int = 1) -> None:
    """A version of ``writer``: its id in every file and in the figures' names."""
    for _ in range(rounds):
        with replaced_dir(final, OWNED) as d:
            (d / "index.html").write_text(f"writer {writer}")
            (d / "report.md").write_text(f"writer {writer}")
            (d / "figures").mkdir()
            for i in range(writer + 1):
                (d / "figures" / f"w{writer}-{i}.svg").write_text(f"writer {writer}")


def versions_in(final: Path) -> set[str]:
    files = [final / "index.html", final / "report.md", *(final / "figures").iterdir()]
    return {f.read_text() for f in files}


def test_concurrent_writers_leave_one_whole_version(tmp_path):
    final = tmp_path / "report"
    ctx = multiprocessing.get_context("fork")
    writers = [ctx.Process(target=write_version, args=(final, w, 20)) for w in range(4)]
    for p in writers:
        p.start()
    for p in writers:
        p.join(timeout=120)
        assert p.exitcode == 0
    (version,) = versions_in(final)
    writer = int(version.split()[1])
    assert len(list((final / "figures").iterdir())) == writer + 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"], "a writer's copy was left"


def test_a_version_replaces_the_earlier_one_whole(tmp_path):
    final = tmp_path / "report"
    write_version(final, 3)
    write_version(final, 0)
    assert versions_in(final) == {"writer 0"}
    assert [p.name for p in (final / "figures").iterdir()] == ["w0-0.svg"]


def test_a_failed_writer_leaves_the_earlier_version(tmp_path):
    final = tmp_path / "report"
    write_version(final, 1)
    with pytest.raises(RuntimeError), replaced_dir(final, OWNED) as d:
        (d / "index.html").write_text("half")
        raise RuntimeError
    assert versions_in(final) == {"writer 1"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.write_text("x"), "is a file"),
        (
            lambda p: (p.mkdir(), (p / "notes.txt").write_text("mine")),
            r"holds files this would replace \(notes\.txt\)",
        ),
    ],
)
def test_what_is_not_a_report_is_refused_not_deleted(tmp_path, make, message):
    final = tmp_path / "report"
    make(final)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    with pytest.raises(OutputError, match=message):
        write_version(final, 0)
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_reproduce_refuses_a_report_directory_of_other_files_before_the_work(tmp_path, monkeypatch):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("")
    monkeypatch.chdir(tmp_path)
    for option, target in [("--report", "mine"), ("--report", "."), ("--report", "mine/thesis.tex/sub")]:
        r = CliRunner().invoke(app, ["reproduce", "fahmy/fig3", "--quick", "--store", "s", option, target])
        assert r.exit_code == 2, r.output
        assert f"{option} {target}" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "s").exists(), "nothing was simulated"
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["thesis.tex"]
