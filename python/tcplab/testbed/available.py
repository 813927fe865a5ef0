"""Whether this machine can run the kernel test bed (root, and the tools it drives), and a
clear error naming what is missing and the Debian package that has it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable

#: Every program the test bed runs -> the Debian package with it
#: (scripts/install-kernel-deps.sh installs them all).
PACKAGES = {
    "ip": "iproute2",  # namespaces, veths, routes
    "tc": "iproute2",  # the bottleneck
    "ss": "iproute2",  # aborting a released namespace's sockets
    "nstat": "iproute2",  # SNMP counters
    "ethtool": "ethtool",  # offloads off
    "ping": "iputils-ping",  # neighbour resolution before measuring
    "tcpdump": "tcpdump",  # the bottleneck's pcap
    "cc": "gcc",  # the delay element
    "chrt": "util-linux",  # the delay element at real-time priority
    "make": "make",  # the BPF objects
    "clang": "clang",
    "bpftool": "bpftool",
}
#: What building and running a bed needs in any case (``run_plan`` adds the rest).
BED = ("ip", "tc", "ss", "ethtool", "ping", "cc", "chrt")
TOOLS = tuple(PACKAGES)


def missing_tools(tools: Iterable[str] = TOOLS) -> list[str]:
    return [t for t in tools if shutil.which(t) is None]


def missing_message(tools: Iterable[str]) -> str | None:
    """What to install for the missing ones among ``tools``, or None when none is missing."""
    missing = missing_tools(tools)
    if not missing:
        return None
    packages = sorted({PACKAGES[t] for t in missing})
    named = ", ".join(f"{t} (Debian package {PACKAGES[t]})" for t in missing)
    return (
        f"the kernel test bed needs {named}: run scripts/install-kernel-deps.sh "
        f"(or apt-get install {' '.join(packages)})"
    )


def available() -> bool:
    """True when running as root with every tool the test bed needs on PATH."""
    return os.geteuid() == 0 and not missing_tools()
