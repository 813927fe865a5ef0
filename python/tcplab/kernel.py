"""tcplab's congestion controls as Linux BPF struct_ops programs (bpf/ in the repository).

``build()`` compiles every algorithm with clang against the running kernel's BTF,
``load(name)`` registers one with bpftool (the kernel's verifier checks it then),
``unload(name)`` unregisters it and ``loaded()`` lists what is registered. Names are the
simulator's (``vegas``, ``code``, ...); the kernel knows them as ``tl_<name>``. The list of
ports is the manifest bpf/ports.toml.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from . import kernel_ports

#: The ports, from the manifest bpf/ports.toml (python/tcplab/kernel_ports.py).
PORTS = kernel_ports.load()

#: Simulator name -> kernel congestion-control name (bpf/<kernel name>.c).
KERNEL_NAMES = PORTS.kernel_names()

#: One object per kernel algorithm.
OBJECTS = PORTS.objects()

CONTROLS = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


class KernelError(RuntimeError):
    """A build, load or unload step failed; the message carries the tool's output."""


def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def bpf_dir() -> Path:
    return Path(os.environ.get("TCPLAB_BPF_DIR", repo_root() / "bpf"))


def build_dir() -> Path:
    return Path(os.environ.get("TCPLAB_KERNEL_BUILD", bpf_dir() / "build"))


def kernel_name(name: str) -> str:
    """The kernel's name for a simulator algorithm name (kernel names pass through)."""
    if name in OBJECTS:
        return name
    try:
        return KERNEL_NAMES[name]
    except KeyError:
        known = ", ".join(sorted(KERNEL_NAMES))
        raise KernelError(f"no kernel port of {name!r}; known: {known}") from None


def _run(cmd: list[str], cwd: Path | None = None) -> str:
    exe = shutil.which(cmd[0])
    if exe is None:
        raise KernelError(f"{cmd[0]} not found; run scripts/install-kernel-deps.sh")
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise KernelError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}{p.stderr}")
    return p.stdout


def build(harness: bool = False) -> Path:
    """Compiles the BPF objects (and with ``harness`` the native conformance harnesses, plus
    the test bed's delay element); returns the build directory."""
    out = build_dir()
    targets = ["all", "harness"] if harness else ["all"]
    _run(["make", "-s", f"OUT={out}", *targets], cwd=bpf_dir())
    build_delay()
    return out


def build_delay() -> Path:
    """Compiles the test bed's delay element (testbed/tl_delay.c)."""
    out = build_dir()
    out.mkdir(parents=True, exist_ok=True)
    src = repo_root() / "testbed" / "tl_delay.c"
    exe = out / "tl_delay"
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        _run(["cc", "-O2", "-Wall", "-Werror", "-o", str(exe), str(src)])
    return exe


def build_object(kname: str, trace: bool = False) -> Path:
    """One algorithm's BPF object, rebuilt when its source, a header or the kernel's BTF
    dump is newer (make decides, as for ``build``). ``trace``: the build whose Vegas-family
    ports print one trace_pipe line per round (``make TRACE=1``, testbed/ca_trace.py), in a
    directory of its own."""
    out = build_dir() / "trace" if trace else build_dir()
    out.mkdir(parents=True, exist_ok=True)
    obj = out / f"{kname}.bpf.o"
    _run(["make", "-s", f"OUT={out}", *(["TRACE=1"] if trace else []), str(obj)], cwd=bpf_dir())
    return obj


#: What ``load`` registered: ``<kernel name>.json`` with the map id and the object's digest.
#: Under /run, so it goes with the registrations at reboot.
RECORDS = Path(os.environ.get("TCPLAB_KERNEL_STATE", "/run/tcplab/kernel"))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _record(kname: str) -> dict:
    try:
        return json.loads((RECORDS / f"{kname}.json").read_text())
    except (OSError, ValueError):
        return {}


def _registered(kname: str) -> list[StructOps]:
    return [m for m in struct_ops_maps() if m.name == kname and m.state == "INUSE"]


def loaded() -> list[str]:
    """Congestion controls the kernel offers now."""
    return CONTROLS.read_text().split()


def load(name: str, trace: bool = False) -> str:
    """Registers one algorithm as built from the current source; returns its kernel name.

    The object is rebuilt when its source is newer. A registration that ``load`` made from
    the very same object is kept; any other (an older build, the traced build or the plain
    one, or one made by someone else) is replaced, so an edited bpf/*.c always reaches the
    next run. Connections that use the replaced one keep it until they close. ``trace``: the
    build that traces each round (``build_object``)."""
    kname = kernel_name(name)
    obj = build_object(kname, trace)
    digest = _digest(obj)
    now = _registered(kname)
    if kname in loaded() and len(now) == 1 and _record(kname) == {"map_id": now[0].id, "sha256": digest}:
        return kname
    if now:
        unload(kname)
    _run(["bpftool", "struct_ops", "register", str(obj)])
    now = _registered(kname)
    if kname not in loaded() or len(now) != 1:
        raise KernelError(f"{kname} registered but the kernel does not list it")
    RECORDS.mkdir(parents=True, exist_ok=True)
    (RECORDS / f"{kname}.json").write_text(json.dumps({"map_id": now[0].id, "sha256": digest}))
    return kname


@dataclass(frozen=True)
class StructOps:
    """A congestion control's struct_ops map: ``INUSE`` while registered; ``TOBEFREE`` once
    unregistered but still held by connections that use it (until they close)."""

    id: int
    name: str
    state: str


def struct_ops_maps() -> list[StructOps]:
    """Every tcp_congestion_ops struct_ops map in the kernel, registered or not yet freed."""
    # bpftool dumps a JSON array alternating each map's info and its value.
    docs = json.loads(_run(["bpftool", "-j", "struct_ops", "dump"]) or "[]")
    maps, info = [], None
    for doc in docs:
        if "bpf_map_info" in doc:
            info = doc["bpf_map_info"]
        elif info is not None and "bpf_struct_ops_tcp_congestion_ops" in doc:
            state = doc["bpf_struct_ops_tcp_congestion_ops"].get("common", {}).get("state", "")
            maps.append(StructOps(int(info["id"]), info["name"], state.removeprefix("BPF_STRUCT_OPS_STATE_")))
            info = None
    return maps


def unload(name: str) -> str:
    """Unregisters one algorithm; a no-op if not registered.

    By map id, registered maps only: an earlier registration of the same name may still
    exist unregistered (``TOBEFREE``) while connections hold it, and unregistering by name
    would fail on it ("Operation now in progress") although nothing is left to do there."""
    kname = kernel_name(name)
    for m in struct_ops_maps():
        if m.name == kname and m.state == "INUSE":
            _run(["bpftool", "struct_ops", "unregister", "id", str(m.id)])
    if kname in loaded():
        raise KernelError(f"{kname} is still registered after unregistering every map of that name")
    (RECORDS / f"{kname}.json").unlink(missing_ok=True)
    return kname


def held(name: str) -> int:
    """How many unregistered maps of this algorithm connections still hold."""
    kname = kernel_name(name)
    return sum(1 for m in struct_ops_maps() if m.name == kname and m.state != "INUSE")


app = typer.Typer(
    help="tcplab's algorithms as Linux BPF congestion controls (needs root).", no_args_is_help=True
)


def _guard(fn, *args):
    try:
        return fn(*args)
    except KernelError as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(1) from None


@app.command("build")
def build_cmd(
    harness: Annotated[bool, typer.Option(help="Also build the native conformance harnesses.")] = False,
) -> None:
    """Compile every algorithm to a BPF object."""
    out = _guard(build, harness)
    typer.echo(f"built {', '.join(OBJECTS)} in {out}")


@app.command("load")
def load_cmd(name: Annotated[str, typer.Argument(help="Algorithm (vegas, code, ... or tl_*).")]) -> None:
    """Verify and register one algorithm."""
    typer.echo(f"registered {_guard(load, name)}")


@app.command("unload")
def unload_cmd(name: Annotated[str, typer.Argument(help="Algorithm (vegas, code, ... or tl_*).")]) -> None:
    """Unregister one algorithm (connections that use it keep it until they close)."""
    kname = _guard(unload, name)
    typer.echo(f"unregistered {kname}")
    if _guard(held, name):
        typer.echo(f"note: open connections still use {kname}; the kernel frees it when they close")


@app.command("list")
def list_cmd() -> None:
    """The kernel ports and whether each is registered."""
    now = set(loaded())
    for sim, kname in sorted(KERNEL_NAMES.items()):
        typer.echo(f"{sim:12s} {kname:14s} {'registered' if kname in now else '-'}")


@app.command("ports")
def ports_cmd(
    markdown: Annotated[bool, typer.Option(help="docs/kernel.md's table instead.")] = False,
) -> None:
    """The kernel ports (bpf/ports.toml) and how each differs from the simulator."""
    typer.echo(kernel_ports.markdown(PORTS) if markdown else kernel_ports.text(PORTS), nl=False)
