"""Which part of a simulator scenario the kernel test bed can reproduce.

Supported: the ``dumbbell`` preset (any number of pairs), a DropTail bottleneck with rate,
delay, buffer in packets and Bernoulli loss on data, access links (their delays, and their
rates as transmission time the delay element adds: veths take none), flows with a kernel-ported algorithm
without parameters, numeric start and stop times, ``[tcp] mss`` and ``[tcp] stack =
"linux"`` (the simulator's Linux profile describes what the kernel does anyway; with it
``mss`` is the payload of a segment carrying the timestamp option, as in Linux's
``snd_mss``, so the veths' MTU is mss + 52 instead of mss + 40). Everything else is
refused with a ScenarioError naming the field, so a comparison never silently differs.

``native`` maps simulator names to the kernel's own congestion controls instead of
tcplab's BPF ports (``NATIVE``: ``reno`` and ``cubic``), for comparisons against the stock
kernel rather than against a port. Algorithms tcplab has no port of because the kernel
ships them (``BUILTIN``: ``bbr``) are always the kernel's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import ScenarioError
from ..kernel import KERNEL_NAMES
from ..scenario import Scenario

#: Simulator names of the kernel's built-in congestion controls (``plan(..., native=True)``).
NATIVE = {"reno": "reno", "newreno": "reno", "cubic": "cubic"}
#: Simulator names the kernel's own module always runs (no BPF port exists or is needed).
BUILTIN = {"bbr": "bbr"}
#: ``[tcp] stack`` values the bed reproduces: the kernel's own stack is the Linux profile.
STACKS = ("linux",)
#: ``tcp.mss`` when the scenario leaves it out, by ``[tcp] stack``: the simulator's own
#: defaults (docs/scenario.md; the linux profile's is Linux's 1448 of a 1500-byte MTU, the ns2
#: profile's NS-2's 1000), so that both sides of a comparison send the same segments.
DEFAULT_MSS = {"linux": 1448, None: 1000}
#: Header bytes on the wire besides the payload: IPv4 20 + TCP 20 (+ 12 of timestamps).
HEADERS = 40
TIMESTAMP_OPTION = 12
#: Seconds of the bottleneck's rate that its token bucket holds beyond one frame: enough to
#: bank the qdisc watchdog's lateness (measured: utilisation 0.999 against 0.989 with 0.85 ms),
#: at the price of a burst of that much after an idle spell (3.5 frames at 10 Mb/s). The
#: simulator models it as the bottleneck's ``burst`` (docs/scenario.md).
BURST_SLACK = 3e-3


def bed_burst() -> str:
    """The bottleneck's ``burst`` that describes the bed's token bucket."""
    return f"{BURST_SLACK * 1e3:g}ms"


#: The Ethernet header, which the bottleneck (TBF on a veth) counts in every frame.
ETHERNET = 14
#: ``tcp.rwnd`` at or above this (packets) never limits in the simulator (its default).
RWND_UNLIMITED = 100000
#: What the bed's kernel always does, by key: the one value it accepts (or the key left
#: out) and why, for the refusal of any other.
FIXED_BEHAVIOUR = {
    "rwnd_autotune": (True, "always autotunes its receive buffer"),
    "rwnd_growth_ack": (True, "always ACKs a segment that widens its window at once"),
    "push_ack": (True, "always ACKs a full-sized segment with PSH at once (Linux >= 6.6)"),
    "app_push": ("gso", "always marks PSH itself, on every GSO packet of two or more segments"),
    "tso_defer": (True, "always defers data that fills less than a GSO packet while an ACK is due"),
    "sack_compress": (True, "always holds the SACKs after the third for a hole (tcp_comp_sack_* defaults)"),
    "pacing_unit": ("gso", "always paces whole GSO packets (tcp_write_xmit checks the pacing per skb)"),
}


def _allowed(value: Any) -> str:
    """A fixed value as a scenario spells it."""
    return "true" if value is True else repr(value)


#: What the bed does with each ``[tcp]`` key it accepts (docs/kernel.md has the table);
#: every other key is refused.
TCP_KEYS = {
    "mss": "applied: the veths' MTU",
    "stack": "only 'linux' (the kernel's own stack)",
    "header_bytes": "must equal the bed's bytes per segment at the bottleneck beside the payload",
    "rwnd": f"only >= {RWND_UNLIMITED} (never limits); a limiting window cannot be held on Linux",
    **{key: f"only {_allowed(value)}: the kernel {what}" for key, (value, what) in FIXED_BEHAVIOUR.items()},
}

_UNITS = {"bps": 1, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "b/s": 1, "kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9}
_TIMES = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "min": 60.0}


def _number(value: Any, units: dict[str, float], where: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        text = value.strip().lower().replace(" ", "")
        for unit in sorted(units, key=len, reverse=True):
            if text.endswith(unit):
                try:
                    return float(text[: -len(unit)]) * units[unit]
                except ValueError:
                    break
    raise ScenarioError(where, f"{value!r} is not a quantity; use a number or e.g. {next(iter(units))}")


def rate_bps(value: Any, where: str) -> float:
    return _number(value, _UNITS, where)


def seconds(value: Any, where: str) -> float:
    return _number(value, _TIMES, where)


@dataclass
class FlowPlan:
    name: str
    cc: str  # simulator name
    kernel_cc: str
    pair: int
    start: float
    stop: float


@dataclass
class TestbedPlan:
    duration: float
    measure: tuple[float, float]
    rate_bps: float
    buffer_packets: int
    delay_fwd: float  # one-way propagation, sender -> receiver, seconds
    delay_rev: float
    loss_data: float
    mss: int
    pairs: int
    stack: str | None = None
    flows: list[FlowPlan] = field(default_factory=list)
    seed: int = 1
    #: The access links' rate: the bed adds their transmission time (``net``).
    access_rate_bps: float = 100e6

    @property
    def mtu(self) -> int:
        """The veths' MTU: with ``stack = "linux"`` segments carry ``mss`` payload bytes beside
        the timestamp option; without it the bed's historical mss + 40."""
        return self.mss + HEADERS + (TIMESTAMP_OPTION if self.stack == "linux" else 0)

    @property
    def window_bytes(self) -> int:
        """The most one connection can have in flight: the path's bandwidth-delay product
        plus a full bottleneck buffer (in frames of the MTU)."""
        bdp = self.rate_bps / 8 * (self.delay_fwd + self.delay_rev)
        return int(bdp + self.buffer_packets * (self.mtu + ETHERNET))

    @property
    def header_bytes(self) -> int:
        """What a segment of ``mss`` payload bytes adds at the bottleneck, in the simulator's
        ``tcp.header_bytes`` terms: the frame (MTU + Ethernet) less ``mss``."""
        return self.mtu + ETHERNET - self.mss


def _unsupported(where: str, what: str) -> ScenarioError:
    return ScenarioError(where, f"{what} is not supported by the kernel test bed")


def _check_access_queue(access: dict[str, Any]) -> None:
    """The bed's sender hands each socket's GSO packets to its device in parallel: what the
    simulator's ``round_robin`` queue models. A document may say so, in either direction (the
    simulated side then runs the same); without the key the bed does it anyway, while the
    simulator's access links are FIFOs (the same for one flow per host). Any other discipline
    at the hosts is not what the bed can do."""
    for where, direction in (
        ("topology.access", access),
        ("topology.access.reverse", access.get("reverse", {})),
    ):
        if not isinstance(direction, dict) or "queue" not in direction:
            continue
        queue = direction["queue"]
        kind = queue.get("kind") if isinstance(queue, dict) else queue
        if kind != "round_robin":
            raise ScenarioError(
                f"{where}.queue.kind",
                f"{kind!r} is not what the kernel test bed's hosts do: they take turns between flows "
                'by GSO packet; give {kind = "round_robin"} (the simulator then does the same) or '
                "leave the queue out (the bed still takes turns; the simulator's access links are FIFOs)",
            )


def plan(scenario: Scenario | dict[str, Any], native: bool = False) -> TestbedPlan:
    doc = scenario.doc if isinstance(scenario, Scenario) else scenario
    sim = doc.get("simulation", {})
    topo = doc.get("topology", {})
    if topo.get("kind") != "dumbbell":
        raise ScenarioError("topology.kind", f"{topo.get('kind')!r}: the test bed supports 'dumbbell' only")
    for key in topo:
        if key not in ("kind", "pairs", "bottleneck", "access"):
            raise _unsupported(f"topology.{key}", "this key")
    pairs = int(topo.get("pairs", 1))
    if not 1 <= pairs <= 16:
        raise ScenarioError("topology.pairs", f"{pairs} is out of range; allowed: 1 to 16")
    bn = topo.get("bottleneck", {})
    for key in bn:
        if key not in ("rate", "delay", "buffer", "loss", "queue", "burst"):
            raise _unsupported(f"topology.bottleneck.{key}", "this key")
    if "burst" in bn and abs(seconds(bn["burst"], "topology.bottleneck.burst") - BURST_SLACK) > 1e-12:
        raise ScenarioError(
            "topology.bottleneck.burst",
            f"{bn['burst']!r} is not the bed's; its bottleneck's token bucket holds "
            f"{bed_burst()} of the rate beyond a frame: give {bed_burst()!r} or leave it out",
        )
    if bn.get("queue", {"kind": "droptail"}).get("kind") != "droptail":
        raise _unsupported("topology.bottleneck.queue.kind", repr(bn["queue"].get("kind")))
    rate = rate_bps(bn.get("rate"), "topology.bottleneck.rate")
    if not 1e5 <= rate <= 1e9:
        raise ScenarioError(
            "topology.bottleneck.rate", f"{rate} b/s is out of range; allowed: 100 kb/s to 1 Gb/s"
        )
    buffer = int(bn.get("buffer", 100))
    if not 1 <= buffer <= 100000:
        raise ScenarioError("topology.bottleneck.buffer", f"{buffer} is out of range; allowed: 1 to 100000")
    bdelay = seconds(bn.get("delay", 0), "topology.bottleneck.delay")
    access = topo.get("access", {})
    _check_access_queue(access)
    adelay = seconds(access.get("delay", "1ms"), "topology.access.delay")
    arate = rate_bps(access.get("rate", 100e6), "topology.access.rate")
    if not 1e3 <= arate <= 1e11:
        raise ScenarioError(
            "topology.access.rate", f"{arate} bit/s is out of range; allowed: 1 kbit/s to 100 Gbit/s"
        )
    loss = 0.0
    if "loss" in bn:
        lm = bn["loss"]
        if lm.get("model") != "bernoulli" or lm.get("applies_to", "data") != "data":
            raise _unsupported("topology.bottleneck.loss", "a loss model other than bernoulli on data")
        loss = float(lm.get("p", 0.0))
        if not 0.0 <= loss < 1.0:
            raise ScenarioError("topology.bottleneck.loss.p", f"{loss} is out of range; allowed: 0 to <1")
        _check_loss_draws(lm, pairs)
    one_way = bdelay + 2 * adelay  # access in, bottleneck, access out
    if not 0.0 <= one_way <= 1.0:
        raise ScenarioError(
            "topology.bottleneck.delay", f"{one_way} s one way is out of range; allowed: 0 to 1 s"
        )
    duration = seconds(sim.get("duration"), "simulation.duration")
    if not 1.0 <= duration <= 3600:
        raise ScenarioError("simulation.duration", f"{duration} is out of range; allowed: 1 to 3600 s")
    measure = tuple(float(x) for x in sim.get("measure", [0.0, duration]))
    tcp = doc.get("tcp", {})
    for key in tcp:
        if key not in TCP_KEYS:
            raise _unsupported(f"tcp.{key}", "this key")
    stack = tcp.get("stack")
    if stack is not None and stack not in STACKS:
        raise ScenarioError(
            "tcp.stack", f"{stack!r}: the kernel test bed is the Linux stack; allowed: {', '.join(STACKS)}"
        )
    mss = int(tcp.get("mss", DEFAULT_MSS[stack]))
    if not 500 <= mss <= 8960:
        raise ScenarioError("tcp.mss", f"{mss} is out of range; allowed: 500 to 8960")
    _check_rwnd(tcp)
    for key, (value, what) in FIXED_BEHAVIOUR.items():
        given = tcp.get(key, value)
        if type(given) is not type(value) or given != value:
            raise ScenarioError(
                f"tcp.{key}", f"{given!r}: the kernel {what}; allowed: {_allowed(value)}, or leave it out"
            )
    p = TestbedPlan(
        duration=duration,
        measure=(measure[0], measure[1]),
        rate_bps=rate,
        buffer_packets=buffer,
        delay_fwd=one_way,
        delay_rev=one_way,
        loss_data=loss,
        mss=mss,
        pairs=pairs,
        stack=stack,
        seed=int(sim.get("seed", 1)),
        access_rate_bps=arate,
    )
    _check_header_bytes(tcp, p)
    index = 0
    for i, f in enumerate(doc.get("flows", [])):
        where = f"flows[{i}]"
        for key in f:
            if key not in ("src", "dst", "cc", "count", "name", "start", "stop"):
                raise _unsupported(f"{where}.{key}", "this key")
        cc = f["cc"] if isinstance(f["cc"], str) else f["cc"].get("name")
        if not isinstance(f["cc"], str) and len(f["cc"]) > 1:
            raise _unsupported(
                f"{where}.cc", "algorithm parameters (the kernel ports use the papers' defaults)"
            )
        names = {**KERNEL_NAMES, **BUILTIN, **(NATIVE if native else {})}
        if cc not in names:
            raise ScenarioError(
                f"{where}.cc", f"{cc!r} has no kernel port; known: {', '.join(sorted(names))}"
            )
        src, dst = str(f["src"]), str(f["dst"])
        if not (src.startswith("s") and dst == "d" + src[1:]):
            raise _unsupported(f"{where}.src", f"a flow {src} -> {dst} (only s_i -> d_i)")
        pair = int(src[1:])
        if not 0 <= pair < pairs:
            raise ScenarioError(f"{where}.src", f"{src!r} is not a sender of this dumbbell")
        start = f.get("start", 0.0)
        if isinstance(start, dict):
            raise _unsupported(f"{where}.start", "a random start")
        start = seconds(start, f"{where}.start")
        stop = seconds(f.get("stop", duration), f"{where}.stop")
        for k in range(int(f.get("count", 1))):
            name = f.get("name", f"flow{i}")
            if int(f.get("count", 1)) > 1:
                name = f"{name}.{k}"
            p.flows.append(FlowPlan(name, cc, names[cc], pair, start, min(stop, duration)))
            index += 1
    if not p.flows:
        raise ScenarioError("flows", "no flows")
    return p


#: Draws the bed's delay element spends on each connection before any data: its SYN and
#: the handshake's ACK (every connection opens before a flow sends, testbed/traffic.py).
HANDSHAKE_DRAWS = 2


def bed_loss_draws(connections: int) -> dict[str, Any]:
    """The loss draws of the bed, as a simulator ``loss`` sets them (common random numbers):
    the delay element (testbed/tl_delay.c) draws POSIX drand48 seeded with the scenario's
    seed once per frame toward the receivers, the first ``HANDSHAKE_DRAWS`` of each
    connection before any data. A simulated bottleneck drawing the same sequence loses the
    same packets by index, give or take the odd frame (an ARP or neighbour probe also takes
    a draw)."""
    return {"stream": "drand48", "skip": HANDSHAKE_DRAWS * connections}


def _check_loss_draws(lm: dict[str, Any], pairs: int) -> None:
    """A simulator ``stream`` or ``skip`` other than the bed's own (:func:`bed_loss_draws`)
    would make the sides differ silently."""
    bed = bed_loss_draws(pairs)
    for key in lm:
        if key not in ("model", "p", "applies_to", *bed):
            raise _unsupported(f"topology.bottleneck.loss.{key}", "this key")
    if lm.get("stream", bed["stream"]) != bed["stream"]:
        raise ScenarioError(
            "topology.bottleneck.loss.stream",
            f"{lm['stream']!r}: the bed's delay element draws {bed['stream']}; allowed: "
            f'"{bed["stream"]}", or leave it out',
        )
    if lm.get("skip", bed["skip"]) != bed["skip"]:
        raise ScenarioError(
            "topology.bottleneck.loss.skip",
            f"{lm['skip']!r}: the bed draws for each connection's SYN and handshake ACK before any data; "
            f"allowed: {bed['skip']} ({pairs} connections), or leave it out",
        )


def _check_rwnd(tcp: dict[str, Any]) -> None:
    """``tcp.rwnd`` is accepted only where it never limits: Linux recomputes a connection's
    window clamp from its receive buffer whenever the measured payload-to-buffer ratio
    changes (``tcp_measure_rcv_mss``), so a route's ``window`` or ``TCP_WINDOW_CLAMP`` does
    not hold, and ``SO_RCVBUF`` gives a window that depends on that ratio."""
    if "rwnd" not in tcp:
        return
    rwnd = tcp["rwnd"]
    if isinstance(rwnd, bool) or not isinstance(rwnd, int) or rwnd < RWND_UNLIMITED:
        raise ScenarioError(
            "tcp.rwnd",
            f"{rwnd!r}: the kernel test bed cannot hold the receive window to a set size (Linux "
            f"recomputes its window clamp from the receive buffer); allowed: an integer >= "
            f"{RWND_UNLIMITED} (never limits), or leave it out",
        )


def _check_header_bytes(tcp: dict[str, Any], p: TestbedPlan) -> None:
    """``tcp.header_bytes`` is accepted only when it is what the bed's segments carry: the
    kernel's headers and the Ethernet header are fixed, so the simulator's figure cannot be
    applied without changing the payload."""
    if "header_bytes" in tcp and tcp["header_bytes"] != p.header_bytes:
        raise ScenarioError(
            "tcp.header_bytes",
            f"{tcp['header_bytes']!r}: on the kernel test bed a segment of tcp.mss = {p.mss} "
            f"payload bytes takes {p.mss + p.header_bytes} bytes at the bottleneck (Ethernet "
            f"{ETHERNET} + IPv4 20 + TCP 20 + timestamps 12, MTU {p.mtu}); allowed: "
            f"{p.header_bytes}, or leave it out",
        )
