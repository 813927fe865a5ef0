"""Where the command line writes, checked before any work: a mistyped or unwritable
``--report``, ``--store``, ``--out`` or ``--export`` fails at once with the package's
:class:`OutputError`, not after every run has been simulated."""

from __future__ import annotations

import tempfile
from pathlib import Path

from .errors import OutputError


def writable_dir(path: Path, option: str, create: bool = True) -> Path:
    """Creates the directory ``path`` if needed and proves a file can be written in it;
    with ``create`` False only refuses a path that is a file (nothing is made on disk)."""
    if path.exists() and not path.is_dir():
        raise OutputError(f"{option} {path}: is a file; give a directory")
    if create:
        _prove(path, f"{option} {path}")
    return path


def writable_file(path: Path, option: str) -> Path:
    """Checks that the file ``path`` can be written (its directory is created if needed)."""
    if path.is_dir():
        raise OutputError(f"{option} {path}: is a directory; give a file name")
    _prove(path.parent, f"{option} {path}")
    return path


def _prove(directory: Path, what: str) -> None:
    existing = next(p for p in (directory, *directory.parents) if p.exists())
    if not existing.is_dir():
        raise OutputError(f"{what}: {existing} is a file, not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as e:
        raise OutputError(f"{what}: cannot write there ({e.strerror})") from None
