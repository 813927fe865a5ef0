"""The command line: tables, Parquet output, and exit code 2 with the bad field named."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from tcplab.cli import app

BIN = Path(sys.executable).parent / "tcplab"

VALID = """
[simulation]
duration = 5

[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { rate = "10Mbps", delay = "10ms", buffer = 50 }

[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
"""


def tcplab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN), *args], capture_output=True, text=True, timeout=120, env={"COLUMNS": "200"}
    )


def test_run_prints_table_and_writes_parquet(tmp_path):
    f = tmp_path / "ok.toml"
    f.write_text(VALID)
    out = tmp_path / "out"
    r = tcplab("run", str(f), "--seed", "3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "reno" in r.stdout and "Mb/s" in r.stdout
    flows = pd.read_parquet(out / "flows.parquet")
    assert len(flows) == 1 and flows["goodput_bps"].iloc[0] > 5e6
    assert (out / "scenario.toml").exists()
    # The series were streamed to Parquet while the run went on: the same as run()'s.
    from tcplab import run

    fresh = run(VALID, seed=3)
    for name in ("series", "queues", "cc_vars", "losses"):
        pd.testing.assert_frame_equal(
            pd.read_parquet(out / f"{name}.parquet"), getattr(fresh, name), obj=name
        )
    assert len(fresh.series) == 51 and len(fresh.queues) > 0


def test_validate_accepts_every_example(examples_dir):
    for f in sorted(examples_dir.glob("*.toml")):
        r = tcplab("validate", str(f))
        assert r.returncode == 0, f"{f.name}: {r.stderr}"


def test_examples_run(examples_dir):
    for f in sorted(examples_dir.glob("*.toml")):
        r = tcplab("run", str(f))
        assert r.returncode == 0, f"{f.name}: {r.stderr}"


# (description, edit applied to the valid document, text the error must contain)
MALFORMED = [
    ("unknown key", lambda t: t.replace("duration = 5", "duration = 5\ndurashun = 6"), "durashun"),
    ("negative rate", lambda t: t.replace('rate = "10Mbps"', "rate = -5"), "topology.bottleneck.rate"),
    ("zero buffer", lambda t: t.replace("buffer = 50", "buffer = 0"), "topology.bottleneck.buffer"),
    (
        "start after stop",
        lambda t: t.replace('cc = "reno"', 'cc = "reno"\nstart = 3\nstop = 2'),
        "flows[0].stop",
    ),
    ("route to nowhere", lambda t: t.replace('dst = "d0"', 'dst = "d9"'), "flows[0].dst"),
    ("wrong type", lambda t: t.replace('cc = "reno"', 'cc = "reno"\ncount = "two"'), "flows[0].count"),
    ("wrong type in preset", lambda t: t.replace("pairs = 1", 'pairs = "one"'), "topology.pairs"),
    (
        "unknown loss model",
        lambda t: t.replace("buffer = 50", 'buffer = 50, loss = { model = "gremlins" }'),
        "topology.bottleneck.loss",
    ),
    ("unknown algorithm", lambda t: t.replace('cc = "reno"', 'cc = "warp"'), "flows[0].cc.name"),
    ("bad unit", lambda t: t.replace('delay = "10ms"', 'delay = "10 parsecs"'), "topology.bottleneck.delay"),
    (
        "loss above one",
        lambda t: t.replace("buffer = 50", 'buffer = 50, loss = { model = "bernoulli", p = 1.5 }'),
        "topology.bottleneck.loss.p",
    ),
    ("zero duration", lambda t: t.replace("duration = 5", "duration = 0"), "simulation.duration"),
    ("missing flows", lambda t: t[: t.index("[[flows]]")], "flows"),
    ("self loop flow", lambda t: t.replace('dst = "d0"', 'dst = "s0"'), "flows[0].dst"),
    (
        "unknown cc parameter",
        lambda t: t.replace('cc = "reno"', 'cc = { name = "reno", gamma = 3 }'),
        "flows[0].cc",
    ),
    (
        "bad recovery",
        lambda t: t.replace('cc = "reno"', 'cc = "reno"\nrecovery = "sack"'),
        "flows[0].recovery",
    ),
    (
        "measure window reversed",
        lambda t: t.replace("duration = 5", "duration = 5\nmeasure = [4, 1]"),
        "simulation.measure",
    ),
    ("not toml", lambda t: t + "\n[[[", "not valid TOML"),
    ("unknown topology", lambda t: t.replace('kind = "dumbbell"', 'kind = "torus"'), "topology"),
    ("zero mss", lambda t: t.replace('cc = "reno"', 'cc = "reno"\ntcp = { mss = 0 }'), "flows[0].tcp.mss"),
]


@pytest.mark.parametrize("name,edit,expected", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_scenarios_exit_2_naming_the_field(tmp_path, name, edit, expected):
    f = tmp_path / "bad.toml"
    f.write_text(edit(VALID))
    runner = CliRunner()
    for cmd in ("validate", "run"):
        r = runner.invoke(app, [cmd, str(f)], env={"COLUMNS": "300"})
        assert r.exit_code == 2, f"{name} ({cmd}): exit {r.exit_code}\n{r.output}"
        assert expected in r.output, f"{name}: {r.output!r}"
        assert "Traceback" not in r.output and "panicked" not in r.output


def test_bad_input_exit_code_in_a_real_process(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text(VALID.replace("buffer = 50", "buffer = 0"))
    r = tcplab("run", str(f))
    assert r.returncode == 2
    assert "topology.bottleneck.buffer" in r.stderr and "Traceback" not in r.stderr


def test_missing_file_exits_2(tmp_path):
    r = tcplab("run", str(tmp_path / "nope.toml"))
    assert r.returncode == 2
    assert "nope.toml" in r.stderr
