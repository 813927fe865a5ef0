"""The Vegas-family BPF ports' round trace on the test bed: what the kernel's algorithm decided
at the end of each round, read beside a run (``run_scenario(..., ca_trace=True)``).

A port built with ``make TRACE=1`` (bpf/tl_vegas_family.h, ``tl_trace_round``) prints one line
per finished round to the kernel's trace buffer: ``tlround`` and the sender's port, the round's
last and minimum RTT (us), alpha, beta and cwnd in 1/256ths. The bed reads ``trace_pipe`` on
the monotonic clock (the sampler's), and the lines become the run's ``cc_vars`` under the
simulator's names (``alpha``, ``beta``, ``round_rtt`` in seconds, ``round_min_rtt``), so the
kernel's threshold path can be drawn beside the simulator's (docs/kernel.md). Each loss
response (the port's ``ssthresh`` hook) prints ``tlloss``: the window it cut from, the new
ssthresh and alpha after the rule's reaction (``loss_cwnd``, ``loss_ssthresh``, ``loss_alpha``).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pandas as pd

TRACEFS = Path("/sys/kernel/tracing")
#: One round or one loss response: the trace buffer's timestamp (s), the kind, then the port's
#: fields.
_LINE = re.compile(r"\s(\d+\.\d+): bpf_trace_printk: (tlround|tlloss) (\d+)((?: \d+)+)\s*$")
#: The cc_vars names of each kind's fields after the port (None: not kept), and their scale.
_FIELDS = {
    "tlround": (
        ("round_rtt", 1e-6),
        ("round_min_rtt", 1e-6),
        ("alpha", 1 / 256),
        ("beta", 1 / 256),
        (None, 1),
    ),
    "tlloss": (("loss_cwnd", 1 / 256), ("loss_ssthresh", 1 / 256), ("loss_alpha", 1 / 256)),
}


def start(out: Path) -> subprocess.Popen:
    """Mounts tracefs if it is not, puts the trace buffer on the monotonic clock, empties it
    and starts copying ``trace_pipe`` to ``out`` (root)."""
    try:
        if not (TRACEFS / "trace_pipe").exists():
            subprocess.run(["mount", "-t", "tracefs", "nodev", str(TRACEFS)], check=True, capture_output=True)
        (TRACEFS / "trace_clock").write_text("mono")
        (TRACEFS / "trace").write_text("")
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError(
            f"the kernel's trace buffer ({TRACEFS}) cannot be used ({e}); the round trace needs root "
            "and a kernel with tracing (CONFIG_TRACING)"
        ) from None
    with out.open("w") as sink:
        return subprocess.Popen(["cat", str(TRACEFS / "trace_pipe")], stdout=sink)


def stop(reader: subprocess.Popen) -> None:
    reader.terminate()
    reader.wait(timeout=5)


def rounds(text: str, t0: float, first_port: int, flows: int) -> pd.DataFrame:
    """The traced rounds of ``flows`` connections whose sender ports run from ``first_port``, as
    ``cc_vars`` rows (time from ``t0`` in seconds, flow, name, value); lines of other sockets
    or programs are left out."""
    rows = []
    for line in text.splitlines():
        m = _LINE.search(line)
        if m is None:
            continue
        fields, values = _FIELDS[m.group(2)], m.group(4).split()
        flow = int(m.group(3)) - first_port
        if not 0 <= flow < flows or len(values) != len(fields):
            continue
        t = float(m.group(1)) - t0
        rows += [
            (t, flow, name, int(raw) * scale)
            for (name, scale), raw in zip(fields, values, strict=True)
            if name
        ]
    return pd.DataFrame(rows, columns=["time", "flow", "name", "value"])
