"""The front door: what a newcomer meets first (version, validate, the run table, typos)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pandas as pd
from rich.console import Console
from test_cli import VALID
from typer.testing import CliRunner

import tcplab
from tcplab.cli import app
from tcplab.views import run_view

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


def assert_fits(text: str, width: int = 80) -> list[str]:
    lines = text.splitlines()
    too_wide = [line for line in lines if len(line) > width]
    assert not too_wide, f"{len(too_wide)} lines wider than {width}: {too_wide[:3]}"
    return lines


def test_validate_prints_topology_and_flows(examples_dir):
    r = tcplab_cli("validate", str(examples_dir / "custom_asymmetric.toml"))
    assert r.returncode == 0, r.stderr
    lines = assert_fits(r.stdout)
    assert lines[-1] == "valid"
    assert "3 nodes: server, router, client" in r.stdout
    # A duplex link with the same settings both ways is one row; an asymmetric one is two.
    row = next(line for line in lines if line.startswith("server<->router"))
    assert row.split() == ["server<->router", "100", "Mb/s", "10", "ms", "200", "droptail"]
    assert re.search(r"router->client +20 Mb/s +5 ms +50 +droptail", r.stdout)
    assert re.search(r"client->router +1 Mb/s +5 ms +20 +droptail", r.stdout)
    assert re.search(r"flow0 +3 +newreno +server->client +0 +-", r.stdout)


WLAN_AND_CBR = """
[simulation]
duration = 2

[topology]
kind = "wlan"
stations = 4

[[flows]]
name = "up[/x] [bold]a flow name long enough to need wrapping in its column"
src = "w0"
dst = "h0"
cc = { name = "vegas", alpha = 2, beta = 4 }
start = { uniform = [0, 0.5] }

[[flows]]
kind = "cbr"
src = "h0"
dst = "w1"
rate = "1Mbps"
schedule = [[0.5, 1], [1.5, 2]]
"""


def test_validate_shows_wireless_cbr_and_parameters_and_names_as_typed(tmp_path):
    f = tmp_path / "wlan.toml"
    f.write_text(WLAN_AND_CBR)
    r = tcplab_cli("validate", str(f))
    assert r.returncode == 0, r.stderr
    assert_fits(r.stdout)
    assert re.search(r"h0<->ap +100 Mb/s +100 ms +1000 +droptail", r.stdout)
    assert re.search(r"ap~w0..w3 +54 Mb/s +- +100 +droptail +802.11a, 4 stations", r.stdout)
    assert "up[/x] [bold]a" in r.stdout  # brackets shown as typed, not read as markup
    assert "vegas(alpha=2," in r.stdout and "U[0, 500 ms]" in r.stdout
    assert re.search(r"flow1 +1 +cbr 1 Mb/s +h0->w1 +on 500 ms +2 on periods", r.stdout)


def test_run_table_fits_80_columns_and_includes_udp_flows(tmp_path):
    f = tmp_path / "wlan.toml"
    f.write_text(WLAN_AND_CBR)
    r = tcplab_cli("run", str(f))
    assert r.returncode == 0, r.stderr
    lines = assert_fits(r.stdout)
    cbr = next(line for line in lines if line.startswith("flow1 "))
    assert re.fullmatch(r"flow1 +cbr +h0->w1 +\d+(\.\d+)? kb/s +- +- +\d+ +-", cbr.strip())
    assert "all 2 flows: goodput" in r.stdout


def test_run_with_10000_flows_prints_a_bounded_summary(tmp_path):
    f = tmp_path / "many.toml"
    f.write_text(
        """
[simulation]
duration = 0.2
sample_interval = 0

[topology]
kind = "dumbbell"
pairs = 2
bottleneck = { rate = "1Gbps", delay = "5ms", buffer = 1000 }

[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
count = 10000

[[flows]]
kind = "cbr"
src = "s1"
dst = "d1"
rate = "1Mbps"
count = 5
"""
    )
    out = tmp_path / "out"
    r = tcplab_cli("run", str(f), "--out", str(out))
    assert r.returncode == 0, r.stderr
    lines = assert_fits(r.stdout)
    assert len(lines) < 40
    flat = " ".join(r.stdout.split())
    where = f"... 9,985 more flows; per-flow results in {out}/flows.parquet, udp_flows.parquet"
    assert "".join(where.split()) in "".join(flat.split())  # a long path may be folded anywhere
    assert "all 10,005 flows: goodput" in flat
    rows = [line for line in lines if line.startswith("flow0.")]
    assert [row.split()[0] for row in rows] == [f"flow0.{i}" for i in range(20)]
    r = tcplab_cli("validate", str(f))
    assert r.returncode == 0, r.stderr
    assert "10,005 flows in 2 entries:" in r.stdout
    assert re.search(r"flow0 +10,000 +reno", r.stdout)


def render(renderable, width: int = 80) -> str:
    console = Console(width=width, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def test_run_view_fits_80_columns_whatever_the_names_and_numbers():
    long = "x" * 70  # no space to wrap at: the column must fold it
    flows = pd.DataFrame(
        {
            "id": [0, 1],
            "name": [long, "[red]b"],
            "cc": ["vegas_plus", "highspeed"],
            "src": [long, "s1"],
            "dst": ["d0", long],
            "goodput_bps": [9.99e11, 0.0],
            "retransmissions": [1234567, 0],
            "timeouts": [9999, 0],
            "mean_rtt": [123.456, float("nan")],
            "data_drops_buffer_overflow": [2345678, 0],
        }
    )
    udp = pd.DataFrame(
        {
            "id": [2],
            "name": ["cbr0"],
            "src": ["s2"],
            "dst": ["d2"],
            "throughput_bps": [5e5],
            "drops_buffer_overflow": [3],
        }
    )
    text = render(run_view(flows, udp, "t" * 200, None))
    assert_fits(text)
    assert "1,234,567" in text and "999 Gb/s" in text and "[red]b" in text
    assert "x" * 70 in "".join(line.split()[0] for line in text.splitlines() if line.startswith("x"))
    assert re.search(r"cbr0 +cbr +s2->d2 +500 kb/s +- +- +3 +-", text)


def test_run_view_bounds_rows_and_summarises_all_flows():
    n = 10_000
    flows = pd.DataFrame(
        {
            "id": range(n),
            "name": [f"f{i}" for i in range(n)],
            "cc": "reno",
            "src": "s0",
            "dst": "d0",
            "goodput_bps": [1e3 * (i + 1) for i in range(n)],
            "retransmissions": 1,
            "timeouts": 0,
            "mean_rtt": 0.05,
            "data_drops_buffer_overflow": 2,
        }
    )
    text = render(run_view(flows, None, "heading", Path("out")))
    lines = assert_fits(text)
    assert len(lines) < 40
    flat = " ".join(text.split())
    assert "... 9,980 more flows; per-flow results in out/flows.parquet" in flat
    assert "all 10,000 flows: goodput 50 Gb/s in all, per flow min 1 kb/s" in flat
    assert "max 10 Mb/s; 10,000 retx, 0 RTOs, 20,000 drops; mean RTT 50 ms" in flat


def store_with_one_run(root: Path, experiment: str = "code/fig9") -> Path:
    from tcplab.runner import run_raw
    from tcplab.store import ResultStore, run_key

    canonical = tcplab.Scenario.from_toml(VALID).validate()
    ResultStore(root).put(
        run_key(canonical),
        run_raw(canonical),
        {"experiment": experiment, "params": {}, "scenario": canonical},
    )
    return root


def cli(*args: str):
    """Runs the command line in this process (quicker than a new process for each call)."""
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "80"})


def test_results_refuses_an_unknown_experiment_naming_close_matches(tmp_path):
    store = str(store_with_one_run(tmp_path / "store"))
    r = cli("results", "--store", store, "--experiment", "code/fgi9")
    assert r.exit_code == 2
    assert "unknown experiment 'code/fgi9'; did you mean code/fig9" in " ".join(r.stderr.split())
    r = cli("results", "--store", store, "--experiment", "nosuch")
    assert r.exit_code == 2
    flat = " ".join(r.stderr.split())
    assert "unknown experiment 'nosuch'; known: the papers code, veno, fahmy, hasegawa, wlan" in flat
    assert "code/fig9" in flat and "Traceback" not in r.stderr
    export = tmp_path / "x.parquet"
    r = cli("results", "--store", store, "--experiment", "nosuch", "--export", str(export))
    assert r.exit_code == 2 and not export.exists()
    # A paper selects its experiments; an experiment itself; both in listing and export.
    for name in ("code", "code/fig9"):
        r = cli("results", "--store", store, "--experiment", name)
        assert r.exit_code == 0, r.stderr
        assert re.search(r"code/fig9 +│ +1", r.stdout)
        r = cli("results", "--store", store, "--experiment", name, "--export", str(export))
        assert r.exit_code == 0, r.stderr
        assert pd.read_parquet(export)["experiment"].tolist() == ["code/fig9"]
    r = cli("results", "--store", store, "--experiment", "veno")
    assert r.exit_code == 0 and "no stored runs of veno" in r.stdout


def test_results_and_report_refuse_a_store_that_is_not_there(tmp_path):
    report = tmp_path / "report"
    for cmd in (["report", "--out", str(report)], ["results"]):
        r = cli(*cmd, "--store", str(tmp_path / "typo"))
        assert r.exit_code == 2, cmd
        assert f"--store {tmp_path / 'typo'} does not exist" in " ".join(r.stderr.split())
        (tmp_path / "file").write_text("")
        r = cli(*cmd, "--store", str(tmp_path / "file"))
        assert r.exit_code == 2 and "is not a directory" in " ".join(r.stderr.split())
    (tmp_path / "empty").mkdir()
    r = cli("report", "--out", str(report), "--store", str(tmp_path / "empty"))
    assert r.exit_code == 2 and "no stored runs in" in r.stderr
    assert not report.exists()


def test_report_of_experiments_without_their_runs_says_why(tmp_path):
    store = str(store_with_one_run(tmp_path / "store"))
    r = cli("report", "code/fig16", "--store", store, "--out", str(tmp_path / "report"))
    assert r.exit_code == 0, r.stderr
    assert "not run" in r.stdout
    assert "if they were reproduced with --quick, add --quick" in " ".join(r.stderr.split())


def test_papers_doc_maps_numbers_to_short_names_and_lists_every_experiment():
    from tcplab.experiments import PAPERS, all_experiments
    from tcplab.papers import NUMBERS

    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "papers.md").read_text()
    assert "docs/papers.md" in (root / "README.md").read_text()
    assert set(NUMBERS) == set(PAPERS) - {"linux", "beyond"}
    sections = {}
    for part in doc.split("\n## ")[1:]:
        number, short = part.split()[:2]
        sections[short.strip("`:")] = (number, part)
    assert {s: n for s, (n, _) in sections.items()} == NUMBERS
    for short, number in NUMBERS.items():
        assert f"| {number} | `{short}` |" in doc
    for e in all_experiments():
        if e.paper in NUMBERS:
            assert f"`{e.name}`" in sections[e.paper][1], f"{e.name} is not in docs/papers.md"
    beyond = (root / "docs" / "beyond.md").read_text()
    assert "docs/beyond.md" in doc and "docs/beyond.md" in (root / "README.md").read_text()
    for e in all_experiments():
        if e.paper == "beyond":
            assert f"| `{e.name}` |" in beyond and f"## `{e.name}`" in beyond, (
                f"{e.name} is not in docs/beyond.md"
            )


def test_experiments_and_report_show_paper_number_and_short_name(tmp_path):
    r = cli("experiments")
    assert r.exit_code == 0, r.output
    assert re.search(r"veno/fig4 +│ 001 veno +│", r.stdout)
    assert "003 hasegawa: Hasegawa, Kurata & Murata" in r.stdout
    store = str(store_with_one_run(tmp_path / "store"))
    r = cli("report", "veno/fig4", "--store", store, "--out", str(tmp_path / "report"))
    assert r.exit_code == 0, r.output
    assert "## 001 veno: Fu & Liew, TCP Veno" in (tmp_path / "report" / "report.md").read_text()


def test_algorithms_params_shows_each_parameter_of_the_named_algorithms():
    from tcplab.cc_params import parameter_sets

    r = cli("algorithms", "code", "--params")
    assert r.exit_code == 0, r.output
    assert_fits(r.stdout)
    sets = parameter_sets(["code"])
    assert {s["name"] for s in sets} == {"VegasOptions", "ThresholdParams", "CodeParams", "AckLossParams"}
    for s in sets:
        assert s["name"] in r.stdout
        for p in s["params"]:
            assert p["key"].split(".")[-1] in r.stdout
    assert re.search(r"epsilon +0\.68 +Threshold scaling", r.stdout)
    assert "RenoParams" not in r.stdout
    everything = cli("algorithms", "--params")
    assert (
        everything.exit_code == 0 and "RenoParams" in everything.stdout and "VenoParams" in everything.stdout
    )
    assert_fits(everything.stdout)
    r = cli("algorithms", "vegsa", "--params")
    assert r.exit_code == 2 and "unknown algorithm 'vegsa'; did you mean vegas" in " ".join(r.stderr.split())
