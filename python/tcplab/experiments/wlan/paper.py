"""Hashimoto et al. (004): the WLAN of fig. 1 as a scenario, the parameters of every variant,
the fairness methods of section III-B, and every number the paper prints that the experiments
compare with.

Topology (fig. 1): stations ``w0..`` -- 802.11a (54 Mb/s, table I) -- access point ``ap``
-- 100 Mb/s, 100 ms one way -- wired node ``h0``. Stations 4 m from the AP, AP buffer 100
packets (DropTail), one flow per station, every flow starts at 0, 200 s, throughput over the
last 160 s. 004 runs each point once. Every figure runs five seeds here (the MAC's backoff
draws differ from seed to seed; quick mode runs one): claims on a figure of a configuration
are decided on its mean over seeds, shown with its 95% interval, and claims on something 004
saw in its one run (a starved flow, an ACK queue without losses) are checked per seed and
decided by the sign test (``common.seeds_claim``: with five seeds they hold when all five show
it and fail when none does). Time series are drawn from seed 1.

Set-up choices where 004 is silent (all the engine's defaults, written out in ``SETUP``):
1000-byte segments and 40-byte headers (NS-2's packetSize_), an ACK for every segment
(NS-2's TCPSink; delayed ACKs are shown as a second reading in figs. 8 and 10), basic
access without RTS/CTS, MAC ACKs at 24 Mb/s, retry limit 7, free-space propagation with
NS-2's 10 dB capture threshold. "Large enough not to limit" is read as a station interface
queue of 10000 packets and an advertised window of 100000 packets; figs. 2-4, 8 and 10 also
show a 100-packet station queue (NS-2's ifqLen applies to every wireless node), and figs. 8
and 10 a finite advertised window of 1000 packets (above a lone flow's bandwidth-delay
product of about 600). These second readings run in full mode only.
The PIFS method of 004's ref. [12] is read as "the AP waits PIFS instead of DIFS and still
draws backoffs" (004 describes it as changing only the carrier-sense duration); the
stronger reading, PIFS without backoff, is shown beside it as (b*).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...scenario import Scenario
from ..base import Published

SOURCE = "004, {}"
DURATION = 200.0
QUICK_DURATION = 30.0
#: 004 measures throughput over the last 160 of 200 s: the first 20% of a run is excluded.
WARMUP_SHARE = 0.2
AP_BUFFER = 100
#: Segment payload, bytes (the engine's default, NS-2's packetSize_).
MSS = 1000
#: A flow is starved below this share of the fair share (total / flows).
STARVED_SHARE = 0.1
#: Jain's index from which a set of flows counts as fair.
FAIR_JAIN = 0.9
#: Seeds of each configuration (full, quick): 004 ran one.
REPS, QUICK_REPS = 5, 1
#: "Many ACK packet losses at the access point" (004 sec. II-B2, fig. 5(c), against fig. 6's
#: "no ACK packet loss"), read as at least this share of the ACKs the receivers sent.
MANY_ACK_DROPS = 0.1
#: Up/down throughput ratio from which the two directions count as unfair (Jain 0.9 for
#: two equal halves).
UNFAIR_RATIO = 2.0

#: 004 section II-A: the parameters of every variant. Vegas is Linux's tcp_vegas (minimum
#: RTT of each round, Reno's loss response), as 004 evaluates it.
CC: dict[str, str | dict[str, Any]] = {
    "reno": "reno",
    "highspeed": "highspeed",
    "scalable": "scalable",
    "cubic": "cubic",
    "ctcp": {"name": "ctcp", "alpha": 0.125, "gamma": 2, "zeta": 1, "beta": 0.5, "k": 0.75},
    "areno": {"name": "areno", "a": 0.5, "alpha": 16, "beta": 1},
    "vegas": {"name": "vegas", "alpha": 2, "beta": 4, "variant": "linux"},
    "fast": {"name": "fast", "alpha": 20, "gamma": 0.5},
}
LABEL = {
    "reno": "Reno",
    "highspeed": "HighSpeed",
    "scalable": "Scalable",
    "cubic": "CUBIC",
    "ctcp": "CTCP",
    "areno": "AReno",
    "vegas": "Vegas",
    "fast": "FAST",
}
LOSS_BASED = ("reno", "highspeed", "scalable", "cubic", "ctcp", "areno")
DELAY_BASED = ("vegas", "fast")

SETUP = (
    "Stations -- 802.11a (54 Mb/s, slot 9 us, SIFS 16 us, DIFS 34 us, CW 15..1023; assumed: basic "
    "access, MAC ACK at 24 Mb/s, retry limit 7) -- AP -- 100 Mb/s, 100 ms one way -- wired node h0. "
    "Stations 4 m from the AP, AP buffer 100 packets DropTail, one flow per station, all start at 0, "
    "200 s, throughput over the last 160 s; five seeds per configuration (mean and 95% interval; "
    "004 ran one; time series from seed 1). Assumed: 1000-byte segments, an ACK per "
    "segment, station queue 10000 packets and advertised window 100000 packets ('large enough not to "
    "limit'). Vegas alpha 2 beta 4 (Linux variant); FAST alpha 20 gamma 0.5; CTCP alpha 0.125 gamma 2 "
    "zeta 1 beta 0.5 k 0.75; AReno a 0.5 alpha 16 beta 1. Quick mode: 30 s, throughput over the last "
    "24 s."
)


def cc_spec(name: str, ack_loss: bool = False) -> str | dict[str, Any]:
    """004's parameters for ``name``; ``ack_loss`` adds the proposal (thresh_ack_losses = 1)."""
    spec = CC[name]
    if not ack_loss:
        return spec
    base = {"name": spec} if isinstance(spec, str) else dict(spec)
    return {**base, "ack_loss_reaction": {"thresh_ack_losses": 1}}


def wlan_scenario(
    up: int,
    down: int = 0,
    cc: str | dict[str, Any] = "reno",
    duration: float = DURATION,
    *,
    ap_buffer: int = AP_BUFFER,
    topology: dict[str, Any] | None = None,
    tcp: dict[str, Any] | None = None,
    sample_interval: float = 0.5,
    event_log: bool = False,
    seed: int = 1,
) -> Scenario:
    """004 fig. 1 with ``up`` uplink flows (``up<i>``: w_i -> h0) and ``down`` downlink flows
    (``down<j>``: h0 -> w_{up+j}), one per station; throughput over the last 80% of the run."""
    sim: dict[str, Any] = {
        "duration": duration,
        "seed": seed,
        "sample_interval": sample_interval,
        "measure": [WARMUP_SHARE * duration, duration],
    }
    if event_log:
        sim["event_log"] = True
    topo = {"kind": "wlan", "stations": up + down, "ap_buffer": ap_buffer, **(topology or {})}
    sc = Scenario({"simulation": sim, "topology": topo, "flows": []})
    if tcp:
        sc.set_tcp(**tcp)
    for i in range(up):
        sc.add_flow(f"w{i}", "h0", cc=cc, name=f"up{i}")
    for j in range(down):
        sc.add_flow("h0", f"w{up + j}", cc=cc, name=f"down{j}")
    return sc


def duration_of(quick: bool) -> float:
    """A run's duration, full or quick."""
    return QUICK_DURATION if quick else DURATION


def seeds_of(quick: bool) -> range:
    """The seeds of each configuration, full or quick."""
    return range(1, (QUICK_REPS if quick else REPS) + 1)


# -- the fairness methods of 004 section III-B ------------------------------------------------


@dataclass(frozen=True)
class Method:
    """One of fig. 8's four configurations (or an alternative reading of one)."""

    key: str
    label: str
    topology: dict[str, Any] = field(default_factory=dict)
    tcp: dict[str, Any] = field(default_factory=dict)
    ack_loss: bool = False

    def scenario(
        self, up: int, down: int, duration: float, distances=None, tcp=None, seed: int = 1
    ) -> Scenario:
        topo = dict(self.topology)
        if distances is not None:
            topo["distances"] = list(distances)
        return wlan_scenario(
            up,
            down,
            cc_spec("reno", self.ack_loss),
            duration,
            topology=topo,
            tcp={**self.tcp, **(tcp or {})} or None,
            seed=seed,
        )


METHODS = {
    m.key: m
    for m in (
        Method("a", "(a) unmodified"),
        Method("b", "(b) AP uses PIFS [12]", {"ap_access": "pifs"}),
        Method("b*", "(b*) PIFS, AP without backoff", {"ap_access": "pifs", "ap_backoff": False}),
        Method(
            "c",
            "(c) split AP buffer 50+50, rwnd 160 [13]",
            {"ap_queue": {"kind": "split", "data": 50, "acks": 50}},
            {"rwnd": 160},
        ),
        Method("d", "(d) ACK-loss reaction, thresh 1", ack_loss=True),
    )
}
#: The paper's four methods (b* is our second reading of b).
PAPER_METHODS = ("a", "b", "c", "d")

#: Second readings of "large enough not to limit" (see the module doc); the receiver's ACK
#: policy (delayed ACKs) is the other reading figs. 8 and 10 run.
READINGS = {
    "station queue 100": ({"station_buffer": 100}, {}),
    "rwnd 1000": ({}, {"rwnd": 1000}),
}


# -- published numbers ------------------------------------------------------------------------

FIG6_PUBLISHED = (
    Published("ACKs queued at the AP (measured window)", 45, "packets", SOURCE.format("fig. 6, sec. II-B2")),
    Published("ACKs lost at the AP (whole run)", 0, "packets", SOURCE.format("sec. II-B2")),
    Published("ACKs lost at the AP (measured window)", 0, "packets", SOURCE.format("sec. II-B2")),
)
FIG8_PUBLISHED = (
    Published(
        "largest difference in total throughput among (a)-(d)",
        10,
        "% (at most)",
        SOURCE.format("sec. III-B"),
    ),
)
