"""Hostile input: user text that looks like markup, and (below) a corpus of malformed
files and API calls. Each must end in the package's own error naming the field (exit
code 2 on the command line), never a traceback, a panic, a hang or a silent misreading."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
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
        assert f"{f}:" in r.output and r.output.rstrip().endswith("valid")


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


# -- every entry point ends bad input in the package's error (exit code 2) ----------------


def test_a_scenario_file_that_is_not_utf8_is_named(tmp_path):
    f = tmp_path / "latin1.toml"
    f.write_bytes(SMALL.replace("reno", "reno\u00e9").encode("latin-1"))
    r = cli("validate", str(f))
    assert r.exit_code == 2, r.output
    assert "latin1.toml: not UTF-8 text: byte 0xe9 on line 13 cannot be read" in r.output


def test_a_byte_order_mark_is_accepted(tmp_path):
    f = tmp_path / "bom.toml"
    f.write_bytes(b"\xef\xbb\xbf" + SMALL.encode())
    r = cli("validate", str(f))
    assert r.exit_code == 0, r.output


def test_deep_nesting_names_the_field(tmp_path):
    f = tmp_path / "deep.toml"
    f.write_text(SMALL.replace("[simulation]", "[simulation]\nx = " + "[" * 300 + "]" * 300))
    r = cli("validate", str(f))
    assert r.exit_code == 2, r.output
    assert "simulation.x[0][0]" in r.output and "nested more than 32 levels" in r.output


def test_seeds_outside_64_bits_are_refused(tmp_path):
    import tcplab

    f = tmp_path / "s.toml"
    f.write_text(SMALL)
    for seed in ("-1", str(2**64)):
        r = cli("run", str(f), "--seed", seed)
        assert r.exit_code == 2 and "--seed" in r.output, r.output
    for seed in (-1, 2**64, 1.5, "3", True):
        try:
            tcplab.run(SMALL, seed=seed)
        except tcplab.ScenarioError as e:
            assert e.field == "seed" and "0 to 2^64-1" in e.message
        else:
            raise AssertionError(f"seed {seed!r} ran")


def test_output_destinations_are_checked_before_any_work(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    store = tmp_path / "store"
    cases = [
        (["--report", str(a_file)], f"--report {a_file}: is a file"),
        (["--report", "/sys/tcplab-report"], "--report /sys/tcplab-report: cannot write there"),
        (["--report", "/sys"], "--report /sys holds files this would replace"),
        (["--store", str(a_file)], f"--store {a_file}: is a file"),
        (["--store", str(a_file / "x")], f"{a_file} is a file, not a directory"),
    ]
    for opts, expected in cases:
        args = ["reproduce", "veno/fig1-2", "--quick", "--executor", "serial", "--store", str(store)]
        r = cli(*args, "--report", str(tmp_path / "rep"), *opts)
        assert r.exit_code == 2, f"{opts}: {r.output}"
        assert expected in r.output
        assert not (store / "runs").exists()  # nothing was simulated
    r = cli("results", "--store", str(store), "--export", str(tmp_path))
    assert r.exit_code == 2 and "is a directory; give a file name" in r.output
    r = cli("report", "veno/fig1-2", "--store", str(store), "--out", str(a_file))
    assert r.exit_code == 2 and f"--out {a_file}: is a file" in r.output
    r = cli("run", str(a_file), "--out", str(a_file))
    assert r.exit_code == 2 and f"--out {a_file}: is a file" in r.output


def test_documents_python_cannot_write_as_toml_name_the_field():
    import tcplab

    def doc_with(value):
        d = tcplab.Scenario.from_toml(SMALL).doc
        d["flows"][0]["cc"] = {"name": "reno", "beta": value}
        return d

    recursive = doc_with(0.5)
    recursive["flows"][0]["cc"]["beta"] = recursive["flows"]
    cases = [
        (doc_with(object()), "flows[0].cc.beta", "is not a value a scenario can hold"),
        (doc_with(2**70), "flows[0].cc.beta", "does not fit a TOML integer"),
        (doc_with({1: 2}), "flows[0].cc.beta", "keys must be strings"),
        (doc_with([1, None]), "flows[0].cc.beta[1]", "None (in a list)"),
        (doc_with("\ud800"), "flows[0].cc.beta", "not valid Unicode"),
        (recursive, "flows[0].cc.beta", "contains itself"),
    ]
    for doc, field, text in cases:
        for entry in (tcplab.Scenario, tcplab.run):
            try:
                entry(doc)
            except tcplab.ScenarioError as e:
                assert (e.field, text in e.message) == (field, True), str(e)
            else:
                raise AssertionError(f"{field}: accepted")
    sc = tcplab.Scenario.from_toml(SMALL)
    sc.doc["simulation"]["duration"] = {1, 2}  # changed after construction: checked again
    try:
        sc.to_toml()
    except tcplab.ScenarioError as e:
        assert e.field == "simulation.duration"
    else:
        raise AssertionError("a set was written as TOML")
    for not_a_scenario in (12, None, ["a"], b"x"):
        try:
            tcplab.run(not_a_scenario)
        except tcplab.ScenarioError as e:
            assert "a scenario is a Scenario, a dict, TOML text or a path" in e.message
        else:
            raise AssertionError(f"{not_a_scenario!r} ran")


def test_numpy_numbers_are_plain_numbers():
    import numpy as np

    import tcplab

    sc = tcplab.Scenario.from_toml(SMALL)
    sc.doc["topology"]["bottleneck"]["buffer"] = np.int64(40)
    sc.doc["simulation"]["duration"] = np.float32(0.5)
    assert "buffer = 40" in sc.to_toml() and "duration = 0.5" in sc.to_toml()


def test_scenario_errors_survive_a_process_boundary():
    import pickle

    import tcplab

    e = pickle.loads(pickle.dumps(tcplab.ScenarioError("flows[0].cc", "bad")))
    assert (e.field, e.message, str(e)) == ("flows[0].cc", "bad", "flows[0].cc: bad")


def test_every_command_ends_package_errors_with_exit_2():
    """The command group maps the package's errors to exit codes for every command,
    including those of sub-command groups added later."""
    import typer

    import tcplab
    from tcplab.exits import Commands

    demo = typer.Typer(cls=Commands)
    sub = typer.Typer()

    @demo.command()
    def bad_input() -> None:
        raise tcplab.ScenarioError("x.y", "[1, 2] is wrong")

    @demo.command()
    def bad_output() -> None:
        raise tcplab.OutputError("--out z: cannot write there")

    @sub.command()
    def engine() -> None:
        raise tcplab.SimulationError("conservation violated")

    demo.add_typer(sub, name="sub")
    runner = CliRunner()
    for args, code, text in [
        (["bad-input"], 2, "error: x.y: [1, 2] is wrong"),
        (["bad-output"], 2, "error: --out z: cannot write there"),
        (["sub", "engine"], 3, "error: conservation violated"),
    ]:
        r = runner.invoke(demo, args)
        assert (r.exit_code, text in r.output) == (code, True), r.output


# -- units are read case-correctly ---------------------------------------------------------


def test_megabytes_per_second_are_not_megabits():
    import tomllib

    import tcplab

    def bottleneck_bps(rate: str) -> float:
        sc = tcplab.Scenario.from_toml(SMALL.replace('"10Mbps"', f'"{rate}"'))
        return tomllib.loads(sc.validate())["topology"]["bottleneck"]["rate"]

    assert bottleneck_bps("10MBps") == 80e6
    assert bottleneck_bps("10 MB/s") == 80e6
    assert bottleneck_bps("10Mbps") == 10e6
    assert bottleneck_bps("500Kbps") == bottleneck_bps("500kbps") == 500e3
    for rate, meant in (("10mbps", "Mbps"), ("10M", "Mbps"), ("1gBps", "GBps")):
        try:
            bottleneck_bps(rate)
        except tcplab.ScenarioError as e:
            assert e.field == "topology.bottleneck.rate"
            assert f'did you mean "{meant}"?' in e.message, e.message
        else:
            raise AssertionError(f"{rate} accepted")


# -- what would be silently dropped or merged is refused or undefined -------------------


CUSTOM = """
[simulation]
duration = 1

[topology]
kind = "custom"
nodes = ["a", "b"]
links = [
  { between = ["a", "b"], rate = "10Mbps", delay = "5ms" },
  { between = ["b", "a"], rate = "1Mbps", delay = "50ms" },
]

[[flows]]
src = "a"
dst = "b"
cc = "reno"
"""


def test_two_links_between_the_same_nodes_are_refused(tmp_path):
    f = tmp_path / "twice.toml"
    f.write_text(CUSTOM)
    r = cli("validate", str(f))
    assert r.exit_code == 2
    assert "topology.links[1].between" in r.output and "already joined by topology.links[0]" in r.output


def test_two_flows_of_one_name_are_refused(tmp_path):
    f = tmp_path / "names.toml"
    flow = '\n[[flows]]\nsrc = "s0"\ndst = "d0"\ncc = "reno"\nname = "bulk"\n'
    f.write_text(SMALL.replace('cc = "reno"', 'cc = "reno"\nname = "bulk"') + flow)
    r = cli("validate", str(f))
    assert r.exit_code == 2
    assert "flows[1].name" in r.output and '"bulk" is also the name of a flow of flows[0]' in r.output


def test_jain_index_is_undefined_without_shares():
    import math

    import pandas as pd

    import tcplab
    from tcplab.analysis import jain_per_run

    assert math.isnan(tcplab.jain_index([]))
    assert math.isnan(tcplab.jain_index([0, 0, 0]))
    assert tcplab.jain_index([1, 1]) == 1.0
    flows = pd.DataFrame({"run": [0, 0, 1, 1], "goodput_bps": [0.0, 0.0, 3.0, 1.0]})
    jain = jain_per_run(flows)
    assert math.isnan(jain.loc[0]) and jain.loc[1] == 0.8
    assert jain.mean() == 0.8 and not (jain >= 0.95).any()  # undefined never counts as fair


def test_a_run_without_goodput_prints_an_undefined_jain_index(tmp_path):
    f = tmp_path / "late.toml"
    f.write_text(SMALL.replace('cc = "reno"', 'cc = "reno"\nstart = 0.99'))
    r = cli("run", str(f))
    assert r.exit_code == 0, r.output
    assert "Jain index undefined (no goodput)" in " ".join(r.output.split())


# -- the corpus: tests/hostile/ -------------------------------------------------------------

HOSTILE = Path(__file__).parent / "hostile"
CORPUS_TIMEOUT = 60  # a hang anywhere in the corpus fails within this bound
PEAK_MB = 1024


def _api_case_names() -> list[str]:
    from hostile.api_cases import CASES

    return [c[0] for c in CASES]


FILE_CASES = sorted(p.name for p in (HOSTILE / "files").glob("*.toml"))
API_CASES = _api_case_names()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict[str, list[dict]]:
    """Runs tests/hostile/run_corpus.py once, in its own process; its records by case."""
    scratch = tmp_path_factory.mktemp("hostile")
    out = scratch / "outcomes.jsonl"
    work = scratch / "work"
    work.mkdir()
    try:
        r = subprocess.run(
            [sys.executable, str(HOSTILE / "run_corpus.py"), str(out), str(work)],
            capture_output=True,
            text=True,
            timeout=CORPUS_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        last = out.read_text().splitlines()[-1:] if out.exists() else []
        pytest.fail(f"the corpus did not finish in {CORPUS_TIMEOUT} s; last outcome: {last}")
    assert r.returncode == 0, r.stderr[-3000:]
    records: dict[str, list[dict]] = {}
    for line in out.read_text().splitlines():
        rec = json.loads(line)
        records.setdefault(rec["case"], []).append(rec)
    return records


def test_the_corpus_has_at_least_150_inputs():
    assert len(FILE_CASES) + len(API_CASES) >= 150
    assert len(set(API_CASES)) == len(API_CASES)


def _refused_naming_the_field(rec: dict) -> None:
    field, says = rec["expect"]
    assert rec["kind"] in ("ScenarioError", "OutputError"), rec["message"]
    assert rec["field"] == field, f"field {rec['field']!r}, expected {field!r}: {rec['message']}"
    assert says in rec["message"], rec["message"]


@pytest.mark.parametrize("name", FILE_CASES)
def test_hostile_file(corpus, name):
    """Through the API the file raises ScenarioError naming the field; `tcplab validate`
    and `tcplab run` exit with 2 and say the same, with no traceback."""
    by_kind = {r.get("kind"): r for r in corpus[name]}
    api = next(r for r in corpus[name] if "expect" in r)
    _refused_naming_the_field(api)
    for command in ("validate", "run"):
        rec = by_kind[command]
        assert rec["exit"] == 2, f"{command}: exit {rec['exit']}\n{rec['output']}"
        assert rec["output"].startswith("error: "), rec["output"]
        assert api["field"] in rec["output"] and "Traceback" not in rec["output"]


@pytest.mark.parametrize("name", API_CASES)
def test_hostile_api_call(corpus, name):
    (rec,) = corpus[name]
    _refused_naming_the_field(rec)


def test_the_real_command_exits_2_without_a_traceback(corpus):
    children = [r for recs in corpus.values() for r in recs if r.get("kind") == "child"]
    assert len(children) >= 4
    for rec in children:
        assert not rec["timed_out"], rec["case"]
        assert rec["exit"] == 2, f"{rec['case']}: exit {rec['exit']}\n{rec['stderr']}"
        assert rec["says"] in rec["stderr"] and "Traceback" not in rec["stderr"], rec["stderr"]
        assert rec["peak_mb"] < PEAK_MB, f"{rec['case']}: {rec['peak_mb']:.0f} MB"


def test_the_corpus_stays_under_1_gb(corpus):
    (rec,) = corpus["corpus-process"]
    assert rec["peak_mb"] < PEAK_MB
