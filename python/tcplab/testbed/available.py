"""Whether this machine can run the kernel test bed (root, and the tools it drives)."""

from __future__ import annotations

import os
import shutil

TOOLS = ("clang", "bpftool", "iperf3", "tc", "ip", "make", "cc")


def missing_tools() -> list[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


def available() -> bool:
    """True when running as root with every tool the test bed needs on PATH."""
    return os.geteuid() == 0 and not missing_tools()
