"""Who owns the test bed's resources, and how they are released when the owner dies.

A run claims a *state file* ``STATE_DIR/<tag>.json`` (its namespaces, its owner's pid) and
holds an exclusive ``flock`` on it for as long as it lives. The kernel drops that lock the
moment the owner dies, however it dies (SIGKILL included) and whatever became of its pid,
so "the lock is free" is exactly "the owner is gone". Three things build on that:

* every process the bed starts gets a parent-death signal (``preexec``), so none outlives
  its owner;
* a *guardian* process per run, in its own session (terminal hang-ups and Ctrl-C do not
  reach it), waits for the owner's end and then releases whatever the owner left;
* ``reap()`` (at the start of every run and by ``tcplab testbed cleanup``) releases the
  resources of every run whose lock is free, and never touches a run that holds its lock.

Releasing a namespace kills its processes, aborts its TCP sockets (an orphaned socket
retransmitting into a dead bed would otherwise keep its congestion control, and the
namespace, alive for minutes) and deletes it; its veths and qdiscs go with it.

This module uses the standard library only: the guardian runs it as a script
(``python owner.py guard TAG``) without importing tcplab.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

#: Namespace names start with this, then the owner's pid: ``tlb<pid>-<role>``.
PREFIX = "tlb"
STATE_DIR = Path(os.environ.get("TCPLAB_TESTBED_STATE", "/run/tcplab/testbed"))
#: How long the guardian waits for a dead owner's lock (the kernel frees it at exit).
LOCK_WAIT = 10.0
_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)


class OwnershipError(RuntimeError):
    """A run could not claim its resources."""


def preexec() -> Callable[[], None]:
    """A ``preexec_fn`` for children of this process: SIGKILL when this process dies, and
    exit at once if it died already (between the fork and the prctl)."""
    parent = os.getpid()

    def die_with_parent() -> None:
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return die_with_parent


def run(*cmd: str) -> subprocess.CompletedProcess:
    """A short command that dies with this process."""
    return subprocess.run(list(cmd), capture_output=True, text=True, preexec_fn=preexec())


def bed_namespaces() -> list[str]:
    """Every test-bed namespace on this machine, live or left behind."""
    out = run("ip", "netns", "list").stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(PREFIX)]


def release_namespace(name: str) -> None:
    """Kills the namespace's processes, aborts its TCP sockets, deletes it."""
    deadline = time.monotonic() + 5
    while pids := run("ip", "netns", "pids", name).stdout.split():
        for pid in pids:
            with suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
        if time.monotonic() > deadline:
            break
        time.sleep(0.02)
    run("ip", "netns", "exec", name, "ss", "-K", "-a", "-t")
    run("ip", "netns", "delete", name)


def _state(tag: str) -> Path:
    return STATE_DIR / f"{tag}.json"


def _lock(fd: int, wait: float) -> bool:
    """Takes the exclusive lock on ``fd``, waiting up to ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN) or time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


def _release_if_orphaned(path: Path, wait: float = 0.0) -> list[str]:
    """Releases the run of one state file if its owner is gone (its lock is free)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return []
    try:
        if not _lock(fd, wait) or os.fstat(fd).st_nlink == 0:
            return []  # a live owner, or a run released (and unlinked) meanwhile
        try:
            names = list(json.loads(path.read_text()).get("namespaces", []))
        except (OSError, ValueError, AttributeError):
            names = []
        names = [n for n in names if isinstance(n, str) and n.startswith(PREFIX)]
        present = set(bed_namespaces())
        for name in names:
            if name in present:
                release_namespace(name)
        path.unlink(missing_ok=True)
        return [n for n in names if n in present]
    finally:
        os.close(fd)


def _owner_pid(name: str) -> int | None:
    m = re.match(rf"{PREFIX}(\d+)-", name)
    return int(m.group(1)) if m else None


def reap() -> list[str]:
    """Releases every run whose owner is gone; returns the namespaces removed.

    A run whose owner holds its lock is never touched. A test-bed namespace without a state
    file (left by a tcplab before state files) is removed only when the pid in its name is
    not running."""
    removed: list[str] = []
    if STATE_DIR.is_dir():
        for path in sorted(STATE_DIR.glob(f"{PREFIX}*.json")):
            removed += _release_if_orphaned(path)
    for name in bed_namespaces():
        pid = _owner_pid(name)
        tag = name.rsplit("-", 1)[0]
        if _state(tag).exists() or pid is None:
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            release_namespace(name)
            removed.append(name)
        except PermissionError:
            pass
    return removed


@contextmanager
def claim(tag: str, namespaces: list[str]) -> Iterator[None]:
    """Owns ``namespaces`` for the duration of the block: the state file is written and
    locked before any of them exists, and a guardian releases them if this process dies.
    The block releases them itself; should it not have finished (a second signal during
    teardown), the state file stays, unlocked, and the guardian releases the rest."""
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    path = _state(tag)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    if not _lock(fd, 0.0):
        os.close(fd)
        raise OwnershipError(f"{path} is held by another live run (tag {tag})")
    os.ftruncate(fd, 0)
    os.write(fd, json.dumps({"owner": os.getpid(), "namespaces": namespaces}).encode())
    guardian = subprocess.Popen(
        [sys.executable, __file__, "guard", tag],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield
    finally:
        if not set(namespaces) & set(bed_namespaces()):
            path.unlink(missing_ok=True)
        os.close(fd)
        assert guardian.stdin is not None
        guardian.stdin.close()
        try:
            guardian.wait(timeout=LOCK_WAIT + 5)
        except subprocess.TimeoutExpired:
            guardian.kill()
            guardian.wait()


def _guard(tag: str) -> None:
    """The guardian: waits until its owner closes the pipe (on purpose or by dying), then
    releases the owner's run if the owner is gone without doing so."""
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    while sys.stdin.buffer.read(65536):
        pass
    _release_if_orphaned(_state(tag), wait=LOCK_WAIT)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "guard":
        _guard(sys.argv[2])
    else:
        sys.exit(f"usage: {sys.argv[0]} guard TAG")
