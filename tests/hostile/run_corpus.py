"""Runs the whole hostile corpus in one process and writes one JSON line per outcome.

    python run_corpus.py OUT.jsonl SCRATCH_DIR

Every file goes through the API (``Scenario.load(...).validate()``) and through
``tcplab validate`` (in this process); every API case is called; a few files and option
mistakes go through the real ``tcplab`` command in child processes (in parallel), whose
peak memory is measured. A hang shows as the first case without a line.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FILES = HERE / "files"
TCPLAB = Path(sys.executable).parent / "tcplab"
CHILD_TIMEOUT = 60.0


def expectation(path: Path) -> tuple[str, str]:
    """(field, text) from the file's ``# field:`` and ``# says:`` header lines."""
    head = path.read_bytes()[:4096].removeprefix(b"\xef\xbb\xbf")
    found = dict(re.findall(rb"^# (field|says): ?(.*?)\r?$", head, re.M))
    return found.get(b"field", b"").decode(), found.get(b"says", b"").decode()


def cli_cases(scratch: Path) -> list[tuple[str, list[str], str]]:
    """(name, arguments, text stderr must contain) for the real command: a few, as each
    start costs seconds; every file also goes through both commands in this process."""
    ok = scratch / "ok.toml"
    ok.write_text(OK)
    f = {p.name.split("-", 1)[1].removesuffix(".toml"): str(p) for p in FILES.glob("*.toml")}
    return [
        ("cli-run-latin1", ["run", f["latin1"]], "not UTF-8 text"),
        ("cli-run-dst-markup", ["run", f["dst-markup"]], 'no node named "[/oops]"'),
        ("cli-seed-negative", ["run", str(ok), "--seed", "-1"], "--seed"),
        ("cli-export-directory", ["results", "--store", str(scratch), "--export", str(scratch)], "--export"),
    ]


OK = """
[simulation]
duration = 1
[topology]
kind = "dumbbell"
pairs = 1
bottleneck = { rate = "10Mbps", delay = "10ms" }
[[flows]]
src = "s0"
dst = "d0"
cc = "reno"
"""


def outcome(call: Callable[..., Any], *args: Any) -> dict[str, Any]:
    import tcplab

    t0 = time.perf_counter()
    try:
        call(*args)
        out: dict[str, Any] = {"kind": "accepted"}
    except tcplab.ScenarioError as e:
        out = {"kind": "ScenarioError", "field": e.field, "message": e.message}
    except tcplab.OutputError as e:
        out = {"kind": "OutputError", "field": None, "message": str(e)}
    except BaseException as e:  # anything else is what the corpus exists to find
        out = {"kind": "crash", "message": "".join(traceback.format_exception(e))[-3000:]}
    out["seconds"] = time.perf_counter() - t0
    out["message"] = out.get("message", "")[:3000]
    return out


def start_children(cases, scratch: Path) -> list[tuple[str, str, subprocess.Popen, float, Path]]:
    """Starts the real command for each case, before this process grows: a child's peak
    memory (from wait4) includes what it shared with its parent at fork."""
    env = {**os.environ, "COLUMNS": "200"}
    children = []
    for name, args, says in cases:
        err = scratch / f"{name}.stderr"
        with open(err, "w") as stderr:
            p = subprocess.Popen([str(TCPLAB), *args], stdout=subprocess.DEVNULL, stderr=stderr, env=env)
        children.append((name, says, p, time.monotonic(), err))
    return children


def reap_children(children, write) -> None:
    for name, says, p, start, err in children:
        timed_out = False
        while True:
            done, status, usage = os.wait4(p.pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() - start > CHILD_TIMEOUT:
                timed_out = True
                p.kill()
                _, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.02)
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        write(
            {
                "case": name,
                "kind": "child",
                "exit": p.returncode,
                "timed_out": timed_out,
                "says": says,
                "stderr": err.read_text()[-3000:],
                "peak_mb": usage.ru_maxrss / 1024,
                "seconds": time.monotonic() - start,
            }
        )


def invoke(args: list[str]) -> tuple[int | str | None, str]:
    """The command in this process: its exit code and everything it printed (a traceback
    included, if one escapes)."""
    import typer

    from tcplab.cli import app

    global _COMMAND
    _COMMAND = _COMMAND or typer.main.get_command(app)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            _COMMAND.main(args, prog_name="tcplab", standalone_mode=True)
            code: int | str | None = 0
        except SystemExit as e:
            code = e.code
        except BaseException as e:
            code = "crash"
            out.write("".join(traceback.format_exception(e)))
    return code, out.getvalue()


_COMMAND = None


def main(out_path: str, scratch_dir: str) -> None:
    scratch = Path(scratch_dir)
    children = start_children(cli_cases(scratch), scratch)

    import tcplab

    sys.path.insert(0, str(HERE))
    import api_cases

    with open(out_path, "w") as out:

        def write(record: dict[str, Any]) -> None:
            out.write(json.dumps(record) + "\n")
            out.flush()

        for path in sorted(FILES.glob("*.toml")):
            field, says = expectation(path)
            result = outcome(lambda p: tcplab.Scenario.load(p).validate(), path)
            write({"case": path.name, "expect": [field, says], **result})
            for command in ("validate", "run"):
                code, output = invoke([command, str(path)])
                write({"case": path.name, "kind": command, "exit": code, "output": output[-3000:]})
        for name, call, field, says in api_cases.CASES:
            case_dir = scratch / name
            case_dir.mkdir()
            write({"case": name, "expect": [field, says], **outcome(call, case_dir)})
        reap_children(children, write)
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        write({"case": "corpus-process", "kind": "peak", "peak_mb": own})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
