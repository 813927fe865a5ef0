"""Writing a directory as a whole: its new content is built beside it and renamed into
place once complete, so a reader (or a second writer) never sees a mix of two versions, and
an interrupted writer leaves the previous version as it was.

Two writers of the same directory each build their own copy; the last one to rename wins
and the other's copy is removed, whole. The directory is replaced, not merged into, so it
may hold only what the writer owns: a directory holding anything else is refused rather
than deleted.
"""

from __future__ import annotations

import errno
import os
import shutil
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import OutputError
from .worker_pool import pid_alive

#: How often a writer moves aside what others renamed into place before giving up.
_ATTEMPTS = 100


@contextmanager
def replaced_dir(final: str | Path, owned: Iterable[str]) -> Iterator[Path]:
    """Yields an empty directory beside ``final``; when the block ends without an exception,
    that directory replaces ``final``. ``owned``: the entry names ``final`` may hold (see the
    module doc); raises :class:`~tcplab.errors.OutputError` before the block if it holds
    others or is not a directory."""
    owned = frozenset(owned)
    check_replaceable(final, owned)
    final = Path(os.path.abspath(final))
    new = _sibling(final, "new")
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(final)
        new.mkdir()
    except OSError as e:
        raise OutputError(f"{final}: cannot write there ({e.strerror or e})") from None
    try:
        yield new
        _rename_into_place(new, final, owned)
    finally:
        shutil.rmtree(new, ignore_errors=True)


def check_replaceable(final: str | Path, owned: frozenset[str]) -> None:
    """Raises OutputError unless ``final`` is a directory of ``owned`` entries only, or is
    absent and can be created (its parent directory is created here)."""
    final = Path(final)
    if Path.cwd().is_relative_to(os.path.abspath(final)):
        raise OutputError(f"{final} is the current directory or holds it; give a directory inside it")
    try:
        entries = [p.name for p in final.iterdir()]  # (one look: another writer may move it)
    except FileNotFoundError:
        _check_creatable(final)
        return
    except NotADirectoryError:
        raise OutputError(f"{final}: is a file; give a directory (new, empty or an earlier one's)") from None
    except OSError as e:
        raise OutputError(f"{final}: cannot read it ({e.strerror or e})") from None
    foreign = sorted(name for name in entries if name not in owned)
    if foreign:
        shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise OutputError(
            f"{final} holds files this would replace ({shown}); give a new or empty directory, "
            f"or one holding only {', '.join(sorted(owned))}"
        )


def _check_creatable(final: Path) -> None:
    """Creates the parent directory of ``final``; raises OutputError if it cannot."""
    parent = Path(os.path.abspath(final)).parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError as e:
        raise OutputError(f"{final}: cannot create it ({e.filename} is a file)") from None
    except OSError as e:
        raise OutputError(f"{final}: cannot create it ({e.strerror or e})") from None
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{final}: cannot create it ({parent} is not writable)")


def _rename_into_place(new: Path, final: Path, owned: frozenset[str]) -> None:
    for _ in range(_ATTEMPTS):
        old = _sibling(final, "old")
        try:
            check_replaceable(final, owned)
            os.rename(final, old)
        except FileNotFoundError:
            old = None  # absent, or another writer moved it aside first
        try:
            os.rename(new, final)
            return
        except OSError as e:
            if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            # Another writer renamed its version in since: move that aside too.
        finally:
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
    raise OutputError(f"{final}: other processes kept replacing it; try again")


def _sibling(final: Path, role: str) -> Path:
    """A hidden sibling named after ``final``, this process and ``role``."""
    return final.with_name(f".{final.name}.{role}-{os.getpid()}-{uuid.uuid4().hex[:8]}")


def _remove_abandoned(final: Path) -> None:
    """Removes the siblings of writers that died before they finished."""
    prefixes = (f".{final.name}.new-", f".{final.name}.old-")
    for p in final.parent.iterdir():
        if not p.name.startswith(prefixes):
            continue
        pid = p.name.rsplit("-", 2)[-2]
        if pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)
