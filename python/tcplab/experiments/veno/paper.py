"""Fu & Liew (001): the test beds as tcplab scenarios, and every number the paper prints that
the experiments compare with.

The paper's results come from a test bed (fig. 3): NetBSD 1.1 senders, Linux receivers, a
FreeBSD dummynet router with drop-tail queues and artificially induced random loss (fig.
3(a)), or a real wireless last hop (fig. 3(b)). We model:

* fig. 3(a) as a dumbbell: sender -- r0 == bottleneck == r1 -- receiver, access links
  100 Mb/s and 1 ms, the bottleneck's one-way delay chosen so that the round-trip
  propagation delay is the paper's (120 ms: 58 ms); the same rate and buffer both ways.
  The induced random loss is Bernoulli per data packet on the bottleneck's forward
  direction. Our link loses a packet after transmitting it; dummynet drops it on entry
  to the pipe, so there a lost packet takes no link time (a small difference).
* fig. 3(b) as a custom graph: Src2 (Veno) and Src1 (UDP) -- Router == 1.6 Mb/s == AP,
  AP -- WC1 the wireless hop (assumed 11 Mb/s, 1 ms, Bernoulli loss on data), AP -- Dst1.
  The UDP background crosses the router's bottleneck, never the wireless hop.

Everything not stated by the paper is assumed and written in each experiment's setup:
MSS 1460 B (given); 40 B headers; no delayed ACKs, 200 ms minimum RTO and 1 ms clock (the
project's defaults, not NetBSD 1.1's 500 ms timers: see veno/fig5's variants); "32 MB" =
32 x 10^6 bytes and kB/s = 1000 B/s.
"""

from __future__ import annotations

from typing import Any

from ...scenario import Scenario
from ..base import Published

MSS = 1460
HEADER = 40
KB = 1000.0
MB = 1_000_000
ACCESS = {"rate": "100Mbps", "delay": "1ms", "buffer": 1000}
ACCESS_DELAY = 0.001
#: Fig. 4, 5 (001 section III-B): 1.6 Mb/s both ways, 12-packet buffers, 120 ms.
SINGLE_LINK = {"rate": "1.6Mbps", "buffer": 12}
#: Fig. 6, 7 (001 section III-C): 4 Mb/s both ways, 28-packet buffers, 120 ms.
SHARED_LINK = {"rate": "4Mbps", "buffer": 28}
RTT = 0.12
FILE_32MB = 32 * MB
#: Figs. 6 and 7: connections start uniformly at random in [0, 1] s (assumed; the paper does
#: not say; it makes seeds differ).
RANDOM_START = {"uniform": [0.0, 1.0]}
CCS = ("reno", "veno")
LABEL = {"reno": "Reno", "veno": "Veno"}
COLOR = {"reno": "C0", "veno": "C3"}


def source(what: str) -> str:
    """Where in 001 a number is printed."""
    return f"001, {what}"


# -- scenarios ------------------------------------------------------------------------------


def _bottleneck(link: dict[str, Any], rtt: float, loss: float) -> dict[str, Any]:
    """The fig. 3(a) router link: one-way delay such that the round-trip propagation is
    ``rtt`` over the two 1 ms access links, and Bernoulli loss on data if ``loss`` > 0."""
    spec: dict[str, Any] = {**link, "delay": rtt / 2 - 2 * ACCESS_DELAY}
    if loss > 0:
        spec["loss"] = {"model": "bernoulli", "p": loss, "applies_to": "data"}
    return spec


def router_scenario(
    ccs: list[str],
    loss: float,
    *,
    link: dict[str, Any] = SINGLE_LINK,
    rtt: float = RTT,
    duration: float,
    file_bytes: int | None = None,
    seed: int = 1,
    sample_interval: float = 0.16,
    start: Any = 0.0,
    measure: list[float] | None = None,
    event_log: bool = False,
    tcp: dict[str, Any] | None = None,
) -> Scenario:
    """Fig. 3(a): one flow per entry of ``ccs`` (s_i -> d_i) across the router's
    bottleneck, which loses data packets with probability ``loss``."""
    sim: dict[str, Any] = {"sample_interval": sample_interval}
    if measure is not None:
        sim["measure"] = measure
    if event_log:
        sim["event_log"] = True
    sc = Scenario.dumbbell(
        pairs=len(ccs),
        bottleneck=_bottleneck(link, rtt, loss),
        access=ACCESS,
        duration=duration,
        seed=seed,
        **sim,
    )
    sc.set_tcp(mss=MSS, header_bytes=HEADER, **(tcp or {}))
    counts: dict[str, int] = {}
    for i, cc in enumerate(ccs):
        n = counts[cc] = counts.get(cc, 0) + 1
        options: dict[str, Any] = {"name": f"{cc}{n}", "start": start}
        if file_bytes is not None:
            options["bytes"] = file_bytes
        sc.add_flow(f"s{i}", f"d{i}", cc=cc, **options)
    return sc


#: Fig. 3(b) set-up (001 section III-A): round trip "about 60 ms" = 2 x (1 + 27 + 1) ms plus
#: transmission times.
WIRELESS_RTT = 0.06
WIRELESS_HOP = {"rate": "11Mbps", "delay": "1ms", "buffer": 1000}
CBR_PACKET = 1500


def wireless_scenario(
    cbr_bps: float, *, loss: float, duration: float, file_bytes: int, seed: int = 1
) -> Scenario:
    """Fig. 3(b): a Veno transfer Src2 -> WC1 over the router's 1.6 Mb/s link and a lossy
    wireless last hop; a UDP CBR source Src1 -> Dst1 shares only the router's link."""
    fast = {**ACCESS, "monitor": False}
    router = {**SINGLE_LINK, "delay": WIRELESS_RTT / 2 - 3 * ACCESS_DELAY}
    wireless = {
        **WIRELESS_HOP,
        "loss": {"model": "bernoulli", "p": loss, "applies_to": "data"},
        "monitor": False,
    }
    doc = {
        "simulation": {"duration": duration, "seed": seed, "sample_interval": 0.5},
        "topology": {
            "kind": "custom",
            "nodes": ["src2", "src1", "router", "ap", "wc1", "dst1"],
            "links": [
                {"between": ["src2", "router"], **fast},
                {"between": ["src1", "router"], **fast},
                {"between": ["router", "ap"], **router},
                {"between": ["ap", "wc1"], **wireless},
                {"between": ["ap", "dst1"], **fast},
            ],
        },
        "tcp": {"mss": MSS, "header_bytes": HEADER},
        "flows": [],
    }
    sc = Scenario(doc)
    sc.add_flow("src2", "wc1", cc="veno", name="veno", bytes=file_bytes)
    if cbr_bps > 0:
        sc.add_flow("src1", "dst1", cc=None, kind="cbr", rate=cbr_bps, packet_size=CBR_PACKET, name="udp")
    return sc


# -- published numbers ----------------------------------------------------------------------

#: Fig. 5 (001 section III-B): throughput of a 32 MB transfer at loss 1e-2, kB/s.
FIG5_VENO_KBPS = 146.5
FIG5_RENO_KBPS = 81.9
FIG5_PUBLISHED = (
    Published("Veno throughput at loss 1e-2", FIG5_VENO_KBPS, "kB/s", source("section III-B, fig. 5")),
    Published("Reno throughput at loss 1e-2", FIG5_RENO_KBPS, "kB/s", source("section III-B, fig. 5")),
    Published(
        "Veno / Reno at loss 1e-2", FIG5_VENO_KBPS / FIG5_RENO_KBPS, "ratio", source("section III-B (+80%)")
    ),
)

#: 001 table I: (run, UDP rate) -> (#FF4/5 congestion, #FF4/5 random, #FF1/2 congestion,
#: #FF1/2 random).
TABLE1_PUBLISHED: dict[tuple[int, float], tuple[int, int, int, int]] = {
    (1, 0.0): (0, 105, 6, 120),
    (1, 500e3): (1, 83, 10, 146),
    (1, 1e6): (2, 90, 12, 136),
    (2, 0.0): (0, 64, 3, 110),
    (2, 500e3): (1, 78, 8, 102),
    (2, 1e6): (2, 83, 16, 127),
    (3, 0.0): (0, 46, 3, 123),
    (3, 500e3): (1, 67, 9, 139),
    (3, 1e6): (1, 53, 19, 132),
}
FF45, FF12 = "#FF4/5", "#FF1/2"
CELLS = ((FF45, "congestion"), (FF45, "random"), (FF12, "congestion"), (FF12, "random"))
#: Table I's names for Veno's branch (the engine's loss tag) and for a loss's true cause.
BRANCH = {"random": FF45, "congestive": FF12}
CAUSE = {"buffer_overflow": "congestion", "random_loss": "random", "none": "no drop"}


def kbps_label(rate: float) -> str:
    """Table I's name for a UDP background rate."""
    return "none" if rate == 0 else f"{rate / 1e3:.0f} kb/s"


TABLE1_PUBLISHED_NUMBERS = tuple(
    Published(
        f"first run, UDP {kbps_label(rate)}: {branch} {cause}", v, "fast retransmits", source("table I")
    )
    for (run, rate), values in TABLE1_PUBLISHED.items()
    if run == 1
    for (branch, cause), v in zip(CELLS, values, strict=True)
) + (
    Published(
        "UDP 500 kb/s: #FF4/5 that were random losses",
        83 / 84,
        "fraction",
        source("section III-A.2 (83/84)"),
    ),
    Published(
        "UDP 500 kb/s: #FF1/2 that were congestion losses",
        10 / 156,
        "fraction",
        source("section III-A.2 (10/156)"),
    ),
)

#: 001 tables II-IV: time slot -> ((Reno, Veno) throughput kB/s, timeouts, fast retransmits,
#: retransmitted packets).
LIVE_TABLES: dict[str, dict[str, tuple[tuple[float, float], ...]]] = {
    "II (one Reno + one Veno together, CUHK-HKU, no wireless)": {
        "10:00-11:00": ((212.9, 223.6), (19.2, 14.8), (51.8, 36.4), (485, 220)),
        "11:00-12:00": ((183.0, 184.5), (22.5, 15.5), (69.3, 50.3), (602.7, 276.7)),
        "13:00-14:00": ((258.8, 278.6), (16.2, 7.4), (38.6, 22.6), (561.4, 238)),
        "14:00-15:00": ((214.9, 232.4), (16.6, 7.8), (39.4, 24.4), (532.6, 180.8)),
        "15:00-16:00": ((226.8, 244.8), (14.6, 7.2), (38, 22.6), (412.4, 158.6)),
        "16:30-17:30": ((191.9, 198.2), (16.5, 13.0), (42.7, 29.7), (400.5, 248.5)),
    },
    "III (single connection, CUHK-HKU, WLAN access)": {
        "10:30": ((234.3, 307.8), (26, 18.6), (58.6, 41.0), (895.4, 560.6)),
        "11:30": ((243.6, 342.3), (33.2, 16), (60.6, 38.2), (1067, 719)),
        "12:30": ((248.0, 340.2), (26, 12.6), (56.5, 36.5), (1012, 598)),
        "15:00": ((260.6, 328.5), (12, 12.8), (41.7, 36.6), (427, 397)),
        "16:00": ((230.6, 302.5), (33.8, 20.7), (75.6, 40.2), (925, 587)),
        "21:00": ((251.1, 338.2), (26.2, 18), (56.8, 34.3), (997, 580)),
    },
    "IV (single connection, CUHK-TSU cross-country, WLAN access)": {
        "10:00-11:00": ((65.5, 64.4), (8.1, 6.5), (19.9, 11.5), (185.8, 127.5)),
        "11:00-12:00": ((51.3, 60.3), (7.6, 5.8), (21.6, 10.5), (166.7, 103.9)),
        "12:00-13:00": ((45.1, 54.5), (8.9, 5.3), (24.6, 18.5), (170.1, 137.3)),
        "14:00-15:00": ((51.5, 58.7), (9.5, 5.8), (28.3, 18.7), (156.6, 137.2)),
        "15:00-16:00": ((70.2, 73.9), (6.5, 6.4), (14.5, 14.0), (98.5, 97.1)),
    },
}
LIVE_QUANTITIES = ("throughput (kB/s)", "timeouts", "fast retransmits", "retransmitted packets")
LIVE_PUBLISHED = tuple(
    Published(
        f"table {table.split()[0]}, {slot}: {kind} {q}",
        vals[qi][ki],
        "per transfer",
        source(f"table {table.split()[0]}"),
    )
    for table, slots in LIVE_TABLES.items()
    for slot, vals in slots.items()
    for qi, q in enumerate(LIVE_QUANTITIES)
    for ki, kind in enumerate(("Reno", "Veno"))
)
