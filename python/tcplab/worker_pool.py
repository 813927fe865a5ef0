"""Process pools whose workers cannot outlive the process that started them.

A worker left behind by a killed sweep runs on for nothing, and holds the terminal's stdout
open, so anything reading the output (``| tee``, a subprocess call) waits forever. So every
worker, as it starts: asks the kernel to kill it when its parent dies (Linux's parent-death
signal), watches its parent from a thread as well (for kernels without that signal, and for
the moment before it was set), and leaves Ctrl-C to the parent, which stops the workers
itself. A pool left by an exception (Ctrl-C, a failed run) stops its workers at once
instead of waiting for their runs to finish.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

#: prctl(2) option: the signal a process gets when its parent exits.
_PR_SET_PDEATHSIG = 1
#: How often a worker checks that its parent is still there, in seconds.
WATCH_INTERVAL = 0.2


@contextmanager
def worker_pool(max_workers: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool (see the module doc); on an exception its workers are stopped."""
    pool = ProcessPoolExecutor(max_workers=max_workers, initializer=_die_with_parent, initargs=(os.getpid(),))
    try:
        yield pool
    except BaseException:
        stop_workers(pool)
        raise
    pool.shutdown(wait=True)


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Cancels what has not started and terminates the running workers (their runs are lost;
    finished results were already handed back)."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())  # (shutdown forgets them)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()


def _die_with_parent(owner: int) -> None:
    """Pool initializer: runs in each worker before any task (see the module doc)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        _set_parent_death_signal(signal.SIGKILL)
    # The parent (the owner, or a fork server that exits with it) may have died before the
    # death signal was set.
    if os.getppid() != parent or not pid_alive(owner):
        os._exit(1)
    threading.Thread(target=_watch, args=(parent, owner), name="tcplab-watch-parent", daemon=True).start()


def _set_parent_death_signal(sig: int) -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - no prctl: the watch thread remains
        pass


def _watch(parent: int, owner: int) -> None:
    """Exits the worker once its parent is gone (it is then reparented) or its owner died."""
    while True:
        time.sleep(WATCH_INTERVAL)
        if os.getppid() != parent or not pid_alive(owner):
            os._exit(1)


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (a zombie counts: see the parent check)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
