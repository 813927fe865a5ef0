"""The test bed's network: four namespaces joined by veths, torn down on every exit.

    sender (s0) -- (r0) router (r1) -- (da) delay (db) -- (h0) receiver
                              TBF + pfifo    tl_delay

The router's egress towards the receiver is the bottleneck: TBF gives the rate and a
pfifo child the buffer in packets. The delay namespace runs tl_delay, an Ethernet bridge
that holds frames for the propagation delay (this kernel has no netem). Offloads are off
on every veth so that the bottleneck and the bridge see real packets. Addresses are in
10.201.0.0/16 and exist only inside these namespaces.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import TestbedError
from . import owner
from .available import BED, missing_message
from .plan import BURST_SLACK

ROLES = ("s", "r", "d", "h")
SENDER_ADDR = "10.201.1.1"
ROUTER_IN = "10.201.1.254"
ROUTER_OUT = "10.201.2.254"
RECEIVER_ADDR = "10.201.2.1"


def require(tools: tuple[str, ...]) -> None:
    """Raises a TestbedError naming every missing tool and its package."""
    message = missing_message(tools)
    if message is not None:
        raise TestbedError(message)


def sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    p = owner.run(*cmd)
    if check and p.returncode != 0:
        raise TestbedError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p


@dataclass
class Bed:
    """A running test bed: namespace names and the processes started in them (each dies
    with this process: ``owner.preexec``)."""

    tag: str
    procs: list[subprocess.Popen] = field(default_factory=list)
    #: The delay element, whose counters ``delay_counters`` reads when it stops.
    delay: subprocess.Popen | None = None

    def ns(self, role: str) -> str:
        return f"{self.tag}-{role}"

    @property
    def namespaces(self) -> list[str]:
        return [self.ns(role) for role in ROLES]

    def run(self, role: str, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        return sh("ip", "netns", "exec", self.ns(role), *cmd, check=check)

    def spawn(self, role: str, *cmd: str, stdout=subprocess.PIPE, stderr=subprocess.PIPE) -> subprocess.Popen:
        p = subprocess.Popen(
            ["ip", "netns", "exec", self.ns(role), *cmd],
            stdout=stdout,
            stderr=stderr,
            text=True,
            preexec_fn=owner.preexec(),
        )
        self.procs.append(p)
        return p


#: The dumbbell's access links' rate when a scenario does not set one (the simulator's).
ACCESS_RATE_BPS = 100e6


def transmission_ns_per_byte(rate_bps: float, access_rate_bps: float) -> float:
    """Nanoseconds per frame byte that the simulator's dumbbell spends transmitting a frame,
    on the bottleneck and the two access links (the bottleneck is duplex: ACKs too). The
    bed's TBF releases a frame when its transmission would start and its veths take no
    time, so the delay element adds this to each frame it holds."""
    return 8e9 / rate_bps + 2 * 8e9 / access_rate_bps


#: Runs the delay element under SCHED_FIFO (util-linux chrt; root, which the bed needs anyway).
REALTIME = ("chrt", "--fifo", "50")


def _quiet_offloads(bed: Bed, role: str, dev: str) -> None:
    """Checksum offload, segmentation and receive coalescing off: the bottleneck and the
    delay element must see every packet as it is on the wire. A failure is an error, never
    a bed that quietly measures 64 KB super-packets."""
    bed.run(
        role,
        "ethtool",
        "-K",
        dev,
        "tx",
        "off",
        "rx",
        "off",
        "gso",
        "off",
        "tso",
        "off",
        "gro",
        "off",
    )


def build(
    bed: Bed,
    rate_bps: float,
    buffer_packets: int,
    mtu: int,
    delay_exe: Path,
    delay_fwd_us: int,
    delay_rev_us: int,
    loss: float,
    seed: int,
    window_bytes: int = 0,
    access_rate_bps: float = ACCESS_RATE_BPS,
) -> None:
    """Builds the four namespaces. ``window_bytes``: the most a connection may need in
    flight; the receiver's and sender's buffer limits are raised to twice that (never below
    Linux's defaults) so that the kernel's own windows do not limit the flows."""
    for role in ROLES:
        sh("ip", "netns", "add", bed.ns(role))
        bed.run(role, "ip", "link", "set", "lo", "up")
    pairs = [("s", "s0", "r", "r0"), ("r", "r1", "d", "da"), ("d", "db", "h", "h0")]
    for a, da, b, db in pairs:
        sh(
            "ip",
            "link",
            "add",
            da,
            "netns",
            bed.ns(a),
            "type",
            "veth",
            "peer",
            "name",
            db,
            "netns",
            bed.ns(b),
        )
    for role, dev in (("s", "s0"), ("r", "r0"), ("r", "r1"), ("d", "da"), ("d", "db"), ("h", "h0")):
        bed.run(role, "ip", "link", "set", dev, "mtu", str(mtu), "up")
        _quiet_offloads(bed, role, dev)
    bed.run("s", "ip", "addr", "add", f"{SENDER_ADDR}/24", "dev", "s0")
    bed.run("r", "ip", "addr", "add", f"{ROUTER_IN}/24", "dev", "r0")
    bed.run("r", "ip", "addr", "add", f"{ROUTER_OUT}/24", "dev", "r1")
    bed.run("h", "ip", "addr", "add", f"{RECEIVER_ADDR}/24", "dev", "h0")
    bed.run("s", "ip", "route", "add", "default", "via", ROUTER_IN)
    bed.run("h", "ip", "route", "add", "default", "via", ROUTER_OUT)
    bed.run("r", "sysctl", "-qw", "net.ipv4.ip_forward=1")
    _raise_buffers(bed, window_bytes)
    # The bottleneck: TBF for the rate, a pfifo child for the buffer in packets. The bucket
    # holds a frame and BURST_SLACK of the rate: the qdisc watchdog that releases the next
    # frame fires late on this machine, and a bucket too small to bank the lateness loses
    # it for good (docs/kernel.md: 2-4 % of the rate with 0.2 ms, 1 % with 0.85 ms).
    burst = (mtu + 14) + int(rate_bps / 8 * BURST_SLACK)
    bed.run(
        "r",
        "tc",
        "qdisc",
        "add",
        "dev",
        "r1",
        "root",
        "handle",
        "1:",
        "tbf",
        "rate",
        f"{int(rate_bps)}bit",
        "burst",
        str(burst),
        "limit",
        str(10 * burst + 100000),
    )
    bed.run(
        "r",
        "tc",
        "qdisc",
        "add",
        "dev",
        "r1",
        "parent",
        "1:1",
        "handle",
        "10:",
        "pfifo",
        "limit",
        str(buffer_packets),
    )
    # Real-time priority: the delay element's wake-up latency is the bed's RTT jitter, and
    # under the machine's other work it grows tenfold (docs/kernel.md, "The bed's own RTT jitter").
    cmd = [*REALTIME, str(delay_exe), "da", "db", str(delay_fwd_us), str(delay_rev_us)]
    per_byte = transmission_ns_per_byte(rate_bps, access_rate_bps)
    cmd += [repr(loss), str(seed), repr(per_byte), repr(per_byte)]
    p = bed.spawn("d", *cmd, stdout=subprocess.DEVNULL)
    assert p.stderr is not None
    line = p.stderr.readline()
    if "ready" not in line:
        raise TestbedError(f"delay element did not start: {line.strip()}")
    bed.delay = p
    # Resolve neighbours through the bridge before any measurement. No reply (exit code 1)
    # can be the bed's random loss; anything else is a failure.
    p = bed.run("s", "ping", "-c", "1", "-W", "2", RECEIVER_ADDR, check=False)
    if p.returncode not in (0, 1):
        raise TestbedError(f"ping through the bed failed ({p.returncode}): {p.stderr.strip()}")


#: Linux's default ``tcp_rmem`` and ``tcp_wmem`` (min, default, max bytes).
TCP_RMEM = (4096, 131072, 6291456)
TCP_WMEM = (4096, 16384, 4194304)
#: Buffers are not raised past this (sysctl values are ints).
BUFFER_CAP = 1 << 30


def _raise_buffers(bed: Bed, window_bytes: int) -> None:
    need = min(BUFFER_CAP, 2 * window_bytes)
    for role, key, (lo, default, high) in (("h", "tcp_rmem", TCP_RMEM), ("s", "tcp_wmem", TCP_WMEM)):
        if need > high:
            bed.run(role, "sysctl", "-qw", f"net.ipv4.{key}={lo} {default} {need}")


_COUNTERS = re.compile(r"forwarded (\d+)/(\d+), dropped \(random\) (\d+), dropped \(ring full\) (\d+)/(\d+)")


def parse_delay_counters(text: str) -> dict[str, int]:
    """The counters tl_delay prints when it stops (empty if it printed none): frames it
    forwarded each way, data frames its random loss dropped, frames a full ring dropped."""
    m = _COUNTERS.search(text)
    if not m:
        return {}
    names = ("forwarded_data", "forwarded_acks", "dropped_random", "dropped_full_data", "dropped_full_acks")
    return dict(zip(names, map(int, m.groups()), strict=True))


def delay_counters(bed: Bed) -> dict[str, int]:
    """Stops the delay element (the flows have ended) and returns its counters: the random
    losses the path really applied, beside the nominal rate."""
    p = bed.delay
    if p is None:
        return {}
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        return {}
    return parse_delay_counters(err or "")


def teardown(bed: Bed) -> None:
    """Stops every process the bed started (by pid), then releases its namespaces."""
    for p in bed.procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 3
    for p in bed.procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    for name in bed.namespaces:
        owner.release_namespace(name)


def present() -> list[str]:
    """Every test-bed namespace on this machine, live or left behind."""
    return owner.bed_namespaces()


def cleanup() -> list[str]:
    """Removes what runs whose process is gone left behind (never a live run's); returns
    the namespaces removed."""
    return owner.reap()


#: Signals that end a run with a teardown (Ctrl-C is Python's KeyboardInterrupt already).
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


@contextmanager
def testbed(**kwargs) -> Iterator[Bed]:
    """Builds the bed, yields it, and always tears it down (errors, Ctrl-C, SIGTERM,
    SIGHUP); if this process is killed outright its guardian does (``owner``). Leftovers
    of dead runs are reaped first."""
    if os.geteuid() != 0:
        raise TestbedError("the test bed needs root (network namespaces, tc, BPF)")
    require(BED)
    owner.reap()
    bed = Bed(tag=f"{owner.PREFIX}{os.getpid()}")

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, on_signal) for sig in ENDING_SIGNALS} if main else {}
    try:
        with owner.claim(bed.tag, bed.namespaces):
            try:
                build(bed, **kwargs)
                yield bed
            finally:
                teardown(bed)
    except owner.OwnershipError as e:
        raise TestbedError(str(e)) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def idle_testbed(
    rate_bps: float = 10e6,
    one_way_us: int = 5000,
    mtu: int = 1500,
    buffer_packets: int = 100,
    window_bytes: int = 0,
    access_rate_bps: float = ACCESS_RATE_BPS,
):
    """A bed without loss and with the same delay both ways, for probes (``jitter``) and
    tests; a context manager like ``testbed``."""
    from .. import kernel

    return testbed(
        rate_bps=rate_bps,
        buffer_packets=buffer_packets,
        mtu=mtu,
        delay_exe=kernel.build_delay(),
        delay_fwd_us=one_way_us,
        delay_rev_us=one_way_us,
        loss=0.0,
        seed=1,
        window_bytes=window_bytes,
        access_rate_bps=access_rate_bps,
    )
