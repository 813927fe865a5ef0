"""Hashimoto, Hasegawa & Murata, "Performance evaluation and improvement of hybrid TCP
congestion control mechanisms in wireless LAN environment" (004): TCP variants over an
IEEE 802.11a WLAN, the ACK-loss unfairness at the access point, and the proposed reaction
to lost ACKs.

Topology (fig. 1): stations ``w0..`` -- 802.11a (54 Mb/s, table I) -- access point ``ap``
-- 100 Mb/s, 100 ms one way -- wired node ``h0``. Stations 4 m from the AP, AP buffer 100
packets (DropTail), one flow per station, every flow starts at 0, 200 s, throughput over the
last 160 s. 004 runs each point once; so do we (seed 1).

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

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..result import Result, jain_index
from ..scenario import Scenario
from . import register
from .ablation import pifs_backoff_ablation, stack_ablations, vegas_ns2_module_ablation
from .base import Experiment, Figure, Outcome, Published, Run
from .common import claim, comparison, every

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
    "200 s, throughput over the last 160 s, one run (seed 1). Assumed: 1000-byte segments, an ACK per "
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
) -> Scenario:
    """004 fig. 1 with ``up`` uplink flows (``up<i>``: w_i -> h0) and ``down`` downlink flows
    (``down<j>``: h0 -> w_{up+j}), one per station; throughput over the last 80% of the run."""
    sim: dict[str, Any] = {
        "duration": duration,
        "seed": 1,
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
    return QUICK_DURATION if quick else DURATION


# -- the fairness methods of 004 section III-B ------------------------------------------------


@dataclass(frozen=True)
class Method:
    """One of fig. 8's four configurations (or an alternative reading of one)."""

    key: str
    label: str
    topology: dict[str, Any] = field(default_factory=dict)
    tcp: dict[str, Any] = field(default_factory=dict)
    ack_loss: bool = False

    def scenario(self, up: int, down: int, duration: float, distances=None, tcp=None) -> Scenario:
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


# -- records -> numbers ------------------------------------------------------------------------


def _ap(res: Result) -> pd.Series:
    return res.wifi[res.wifi["is_ap"]].iloc[0]


def flow_table(res: Result) -> pd.DataFrame:
    """Per flow: direction, station, distance, throughput (Mb/s), timeouts, ACKs dropped."""
    f = res.flows
    direction = np.where(f["name"].str.startswith("up"), "up", "down")
    station = np.where(direction == "up", f["src"], f["dst"])
    dist = dict(zip(res.wifi["name"], res.wifi["distance"], strict=True))
    return pd.DataFrame(
        {
            "flow": f["name"],
            "direction": direction,
            "station": station,
            "distance_m": [dist.get(s, np.nan) for s in station],
            "mbps": f["goodput_bps"] / 1e6,
            "timeouts": f["timeouts"],
            "segments_sent": f["segments_sent"],
            "acks_dropped": f.filter(like="ack_drops_").sum(axis=1),
            "data_dropped": f.filter(like="data_drops_").sum(axis=1),
        }
    )


def starved(mbps: np.ndarray) -> int:
    """Flows below STARVED_SHARE of the fair share."""
    if mbps.size == 0 or mbps.sum() <= 0:
        return int(mbps.size)
    return int((mbps < STARVED_SHARE * mbps.sum() / mbps.size).sum())


def _mean(x: np.ndarray) -> float:
    return float(x.mean()) if x.size else float("nan")


def run_summary(res: Result) -> dict[str, Any]:
    """Totals, fairness and the AP's state over the measurement window."""
    ft = flow_table(res)
    up = ft[ft["direction"] == "up"]
    down = ft[ft["direction"] == "down"]
    ap = _ap(res)
    start = res.meta["measure"][0]
    q = res.ap_queue[res.ap_queue["time"] >= start]
    up_acks = float(res.flows.loc[up.index, "acks_sent"].sum())
    down_segs = float(down["segments_sent"].sum())
    up_m, down_m = _mean(up["mbps"].to_numpy()), _mean(down["mbps"].to_numpy())
    # Frames the AP delivered per segment the receivers got (whole run): the AP's channel load.
    segments = float(res.flows["bytes_delivered"].sum()) / MSS
    return {
        "total_mbps": float(ft["mbps"].sum()),
        "up_mean_mbps": up_m,
        "down_mean_mbps": down_m,
        "up_over_down": up_m / down_m if down_m > 0 else (float("inf") if len(down) else float("nan")),
        "jain_all": jain_index(ft["mbps"]),
        "jain_up": jain_index(up["mbps"]) if len(up) else float("nan"),
        "jain_down": jain_index(down["mbps"]) if len(down) else float("nan"),
        "starved_up": starved(up["mbps"].to_numpy()),
        "timeouts": int(ft["timeouts"].sum()),
        "ap_ack_drops": int(ap["ack_drops_buffer_overflow"]),
        "ap_data_drops": int(ap["data_drops_buffer_overflow"]),
        "ap_ack_drop_share": ap["ack_drops_buffer_overflow"] / up_acks if up_acks else float("nan"),
        "ap_down_data_drop_share": ap["data_drops_buffer_overflow"] / down_segs
        if down_segs
        else float("nan"),
        "ap_acks_queued": float(q["acks"].mean()) if len(q) else float("nan"),
        "ap_data_queued": float(q["data"].mean()) if len(q) else float("nan"),
        "ap_frames_per_segment": float(ap["acked"]) / segments if segments else float("nan"),
    }


def per_second(res: Result, flow: int, start: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Throughput of one flow in 1-s bins (Mb/s) from its bytes_delivered series."""
    s = res.series[res.series["flow"] == flow]
    end = float(s["time"].max())
    grid = np.arange(max(start, 0.0), np.floor(end) + 1e-9, 1.0)
    delivered = np.interp(grid, s["time"].to_numpy(), s["bytes_delivered"].to_numpy(dtype=float))
    return grid[1:], np.diff(delivered) * 8 / 1e6


def longest_stall(t: np.ndarray, mbps: np.ndarray, share: float = 0.1) -> float:
    """Longest run of 1-s bins in which a flow delivered less than ``share`` of its mean rate."""
    if mbps.size == 0 or mbps.mean() <= 0:
        return float(t.size)
    best = run = 0
    for slow in mbps < share * mbps.mean():
        run = run + 1 if slow else 0
        best = max(best, run)
    return float(best)


def ack_drops_per_second(res: Result, flows: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """TCP ACKs dropped at the AP per 1-s bin (from the event log), all flows or ``flows``."""
    ev = res.events
    duration = res.meta["duration"]
    bins = np.arange(0.0, duration + 1.0, 1.0)
    if ev is None or not len(ev):
        return bins[:-1], np.zeros(len(bins) - 1)
    d = ev[(ev["event"] == "drop") & (ev["kind"] == "ack") & (ev["cause"] == "buffer_overflow")]
    if flows is not None:
        d = d[d["flow"].isin(flows)]
    counts, _ = np.histogram(d["time"].to_numpy(), bins=bins)
    return bins[:-1], counts


def _panels(n: int, width: float = 3.3, height: float = 2.6):
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def per_flow_bars(items: list[tuple[str, Result]], colour_by: str = "direction") -> Any:
    """004 figs. 8-10: the throughput of each flow, one panel per configuration."""
    fig, axes = _panels(len(items))
    top = max((float(flow_table(r)["mbps"].max()) for _, r in items), default=1.0) * 1.1
    for ax, (label, res) in zip(axes, items, strict=True):
        ft = flow_table(res)
        if colour_by == "distance":
            colours = ["C0" if d <= 4 else "C3" for d in ft["distance_m"]]
        else:
            colours = ["C0" if d == "up" else "C1" for d in ft["direction"]]
        ax.bar(range(len(ft)), ft["mbps"], color=colours)
        s = run_summary(res)
        ax.set_title(f"{label}\nJain {s['jain_all']:.2f}, total {s['total_mbps']:.1f} Mb/s", fontsize=8)
        ax.set_ylim(0, top if top > 0 else 1)
        ax.set_xlabel("flow", fontsize=8)
        ax.set_ylabel("throughput (Mb/s)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def _by(results, key: str) -> dict[Any, Result]:
    return {p[key]: r for p, r in results}


# -- figs. 2-4: delay fluctuations with two uplink flows ---------------------------------------


@register
class Fig2to4(Experiment):
    name = "wlan/fig2-4"
    paper = "wlan"
    title = "Two uplink flows: cwnd, RTT, wireless delay and throughput (FAST, Reno, CTCP)"
    setup = (
        SETUP + " Two uplink flows of FAST (fig. 2), Reno (fig. 3) and CTCP (fig. 4); every station->AP "
        "frame's wireless delay (head of the MAC queue to its MAC ACK) is logged. Full mode also runs the "
        "three with a 100-packet station queue (second reading of the set-up)."
    )
    needs = ("topology:wlan", "cc:fast", "cc:ctcp")
    variants = ("fast", "reno", "ctcp")
    #: "most" and "rarely" in 004's reading of fig. 2(b) and 4(b), as shares of frames.
    most, rarely = 0.9, 0.01
    #: The second reading of the station queue (see the module doc).
    small_queue = "station queue 100"

    def runs(self, quick: bool) -> list[Run]:
        d = duration_of(quick)
        out = []
        for cc in self.variants:
            sc = wlan_scenario(2, 0, cc_spec(cc), d, sample_interval=0.1, topology={"frame_log": True})
            out.append(Run({"cc": cc, "reading": "paper"}, sc))
        if not quick:
            topo = READINGS[self.small_queue][0]
            for cc in self.variants:
                sc = wlan_scenario(2, 0, cc_spec(cc), d, sample_interval=0.1, topology=topo)
                out.append(Run({"cc": cc, "reading": self.small_queue}, sc))
        return out

    @staticmethod
    def _station_delays(res: Result, station: str = "w0") -> np.ndarray:
        """Wireless delays (ms) of the station's frames; empty without a frame log."""
        if res.frames is None or not len(res.frames):
            return np.array([])
        idx = int(np.flatnonzero(res.wifi["name"].to_numpy() == station)[0])
        return res.frames[res.frames["iface"] == idx]["delay"].to_numpy() * 1e3

    @staticmethod
    def _rtt(res: Result, cc: str) -> tuple[np.ndarray, np.ndarray, str]:
        """The RTT 004 plots: FAST's avgRTT; for the others the sender's smoothed RTT."""
        if cc == "fast":
            v = res.cc_vars[(res.cc_vars["flow"] == 0) & (res.cc_vars["name"] == "avg_rtt")]
            return v["time"].to_numpy(), v["value"].to_numpy(), "avgRTT"
        s = res.series[res.series["flow"] == 0]
        return s["time"].to_numpy(), s["srtt"].to_numpy(), "smoothed RTT"

    def _cwnd_rtt(self, ax, res: Result, cc: str, title: str) -> None:
        s = res.series[res.series["flow"] == 0]
        ax.plot(s["time"], s["cwnd"], color="C0", lw=0.8)
        ax.set_ylabel("cwnd (packets)", fontsize=8)
        t, rtt, rtt_name = self._rtt(res, cc)
        a2 = ax.twinx()
        a2.plot(t, rtt * 1e3, color="C3", lw=0.8)
        a2.set_ylabel(f"{rtt_name} (ms)", color="C3", fontsize=8)
        ax.set_title(f"{title}: cwnd (blue) and {rtt_name} (red) of flow up0", fontsize=9)

    @staticmethod
    def _throughput(ax, res: Result, title: str) -> None:
        for flow in (0, 1):
            x, y = per_second(res, flow)
            ax.plot(x, y, lw=0.8, label=f"up{flow}")
        ax.set_ylabel("throughput (Mb/s)", fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)

    def _paper_figure(self, cc: str, res: Result) -> Figure:
        fig, (a, b, c) = plt.subplots(3, 1, figsize=(6.4, 7.2))
        self._cwnd_rtt(a, res, cc, f"(a) {LABEL[cc]}")
        fr = res.frames[res.frames["iface"] == int(np.flatnonzero(res.wifi["name"].to_numpy() == "w0")[0])]
        b.plot(fr["time"], fr["delay"] * 1e3, ",", color="C2", rasterized=True)
        b.set_ylabel("wireless delay (ms)")
        b.set_title("(b) station w0 -> AP, every frame", fontsize=9)
        self._throughput(c, res, "(c) throughput per second")
        c.set_xlabel("time (s)")
        for ax in (a, b, c):
            ax.grid(True, alpha=0.3)
        fig.tight_layout()
        n = {"fast": 2, "reno": 3, "ctcp": 4}[cc]
        return Figure(
            cc, fig, f"Fig. {n}: {LABEL[cc]}, two uplink flows (cwnd and RTT, wireless delay, throughput)"
        )

    def _reading_figure(self, runs: dict[str, Result], reading: str) -> Figure:
        fig, axes = plt.subplots(len(runs), 2, figsize=(11, 2.6 * len(runs)), squeeze=False)
        for (cc, res), (a, b) in zip(runs.items(), axes, strict=True):
            self._cwnd_rtt(a, res, cc, LABEL[cc])
            self._throughput(b, res, f"{LABEL[cc]}: throughput per second")
            for ax in (a, b):
                ax.grid(True, alpha=0.3)
        for ax in axes[-1]:
            ax.set_xlabel("time (s)")
        fig.tight_layout()
        return Figure(
            "station-queue-100",
            fig,
            f"Figs. 2-4 under the second reading ({reading}): cwnd, RTT and throughput",
        )

    def _row(self, cc: str, reading: str, res: Result) -> dict[str, Any]:
        delay_ms = self._station_delays(res)
        start = res.meta["measure"][0]
        thr = np.concatenate([per_second(res, f, start)[1] for f in (0, 1)])
        share = (lambda m: float(m.mean())) if delay_ms.size else (lambda m: float("nan"))
        whole = res.series[res.series["flow"] == 0]
        flow0 = whole[whole["time"] >= start]
        return {
            "cc": LABEL[cc],
            "reading": reading,
            "total_mbps": float(res.flows["goodput_bps"].sum() / 1e6),
            "frames w0->AP": int(delay_ms.size),
            "share <= 2 ms": share(delay_ms <= 2),
            "share <= 5 ms": share(delay_ms <= 5),
            "share > 10 ms": share(delay_ms > 10),
            "max delay ms": float(delay_ms.max()) if delay_ms.size else float("nan"),
            "per-second throughput std (Mb/s)": float(thr.std()),
            "up0 mean srtt (s)": float(flow0["srtt"].mean()),
            "up0 max srtt (s), whole run": float(whole["srtt"].max()),
            "up0 max cwnd, whole run": float(whole["cwnd"].max()),
            "up0 longest stall (s)": longest_stall(*per_second(res, 0)),
            "timeouts": int(res.flows["timeouts"].sum()),
        }

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        rows = []
        alt: dict[str, Result] = {}
        for p, res in results:
            rows.append(self._row(p["cc"], p["reading"], res))
            if p["reading"] == "paper":
                out.figures.append(self._paper_figure(p["cc"], res))
            else:
                alt[p["cc"]] = res
        if alt:
            out.figures.append(self._reading_figure(alt, self.small_queue))
        table = pd.DataFrame(rows)
        out.tables["wireless delay and throughput stability"] = table
        paper = table[table["reading"] == "paper"].set_index("cc")
        if "FAST" in paper.index:
            f = paper.loc["FAST"]
            out.claims.append(
                claim(
                    f"FAST: most wireless delays are within 5 ms (>= {self.most:.0%} of frames) and delays "
                    f"above 10 ms are rare (<= {self.rarely:.0%})",
                    f["share <= 5 ms"] >= self.most and f["share > 10 ms"] <= self.rarely,
                    f"{f['share <= 5 ms']:.1%} within 5 ms, {f['share > 10 ms']:.2%} above 10 ms",
                )
            )
        if "CTCP" in paper.index:
            c = paper.loc["CTCP"]
            out.claims.append(
                claim(
                    f"CTCP: most wireless delays are below 2 ms (>= {self.most:.0%}) and rarely exceed 5 ms "
                    f"(<= {self.rarely:.0%})",
                    c["share <= 2 ms"] >= self.most and 1 - c["share <= 5 ms"] <= self.rarely,
                    f"{c['share <= 2 ms']:.1%} within 2 ms, {1 - c['share <= 5 ms']:.2%} above 5 ms",
                )
            )
        std = "per-second throughput std (Mb/s)"
        for reading, g in table.groupby("reading", sort=False):
            g = g.set_index("cc")
            if {"FAST", "Reno"} <= set(g.index):
                fs, rs = g.loc["FAST", std], g.loc["Reno", std]
                out.claims.append(
                    claim(
                        f"[{reading}] FAST's throughput is not disturbed by the delay fluctuations: it "
                        "varies no more than Reno's, whose window ignores RTT (figs. 2(c), 3(c))",
                        fs <= rs,
                        f"std of per-second throughput over the measured window: FAST {fs:.2f}, "
                        f"Reno {rs:.2f} Mb/s",
                    )
                )
        if "Reno" in paper.index:
            r = paper.loc["Reno"]
            out.notes.append(
                f"With the 10000-packet station queue of the 'large enough' reading, the loss-based windows "
                f"fill the station's queue: Reno's up0 reaches cwnd {r['up0 max cwnd, whole run']:.0f} and a "
                f"smoothed RTT of {r['up0 max srtt (s), whole run']:.1f} s (mean "
                f"{r['up0 mean srtt (s)']:.1f} s over the measured window), and a lost "
                "retransmission then waits for an RTO of several seconds (up0's longest stall: "
                f"{r['up0 longest stall (s)']:.0f} s). "
                f"The second reading (100-packet station queue) is shown beside it in full mode; the table's "
                "'longest stall' is the longest stretch of seconds in which up0 delivered under 10% of its "
                "mean rate."
            )
        out.notes.append(
            "Fig. 4(a) of 004 plots CTCP's per-round minimum RTT; the engine's CTCP does not export it "
            "(its variables are dwnd and diff), so the sender's smoothed RTT is drawn instead."
        )
        return out


# -- fig. 5: starvation among 16 CTCP uplinks ---------------------------------------------------


@register
class Fig5(Experiment):
    name = "wlan/fig5"
    paper = "wlan"
    title = "16 uplink CTCP flows: a starved flow, ACKs queued and dropped at the AP"
    setup = SETUP + " 16 uplink CTCP flows; the event log gives the ACK drops at the AP over time."
    needs = ("topology:wlan", "cc:ctcp")

    def runs(self, quick: bool) -> list[Run]:
        sc = wlan_scenario(16, 0, cc_spec("ctcp"), duration_of(quick), event_log=True)
        return [Run({"cc": "ctcp", "uplinks": 16}, sc)]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        ((_, res),) = results
        ft = flow_table(res)
        s = run_summary(res)
        order = ft.sort_values("mbps").index.to_numpy()
        starved_i, normal_i = int(order[0]), int(order[len(order) // 2])
        start = res.meta["measure"][0]
        ev = res.events
        sends = ev[(ev["event"] == "send") & (ev["time"] >= start)].groupby("flow").size()

        fig, (a, b, c) = plt.subplots(3, 1, figsize=(6.4, 7.2), sharex=True)
        for i, lab, col in ((normal_i, "normal_flow", "C0"), (starved_i, "starved_flow", "C3")):
            sr = res.series[res.series["flow"] == i]
            a.plot(sr["time"], sr["cwnd"], color=col, lw=0.8, label=f"{lab} ({ft.loc[i, 'flow']})")
        a.set_ylabel("cwnd (packets)")
        a.set_title("(a) congestion window", fontsize=9)
        a.legend(fontsize=7)
        b.plot(res.ap_queue["time"], res.ap_queue["acks"], color="C2", lw=0.8)
        b.axhline(AP_BUFFER, color="grey", ls=":", lw=0.8)
        b.set_ylabel("ACKs at the AP")
        b.set_title("(b) TCP ACKs queued at the AP (all flows)", fontsize=9)
        for flows, lab, col in (
            (None, "all flows", "grey"),
            ([normal_i], "normal_flow", "C0"),
            ([starved_i], "starved_flow", "C3"),
        ):
            t, n = ack_drops_per_second(res, flows)
            c.plot(t, n, lw=0.8, color=col, label=lab)
        c.set_ylabel("ACKs dropped / s")
        c.set_xlabel("time (s)")
        c.set_title("(c) ACKs dropped at the AP per second", fontsize=9)
        c.legend(fontsize=7)
        for ax in (a, b, c):
            ax.grid(True, alpha=0.3)
        fig.tight_layout()
        out.figures.append(
            Figure("starvation", fig, "Fig. 5: 16 uplink CTCP flows, a normal and a starved flow")
        )
        out.figures.append(
            Figure(
                "per-flow", per_flow_bars([("16 CTCP uplinks", res)]), "Throughput of each CTCP uplink flow"
            )
        )
        out.tables["summary"] = pd.DataFrame([s])
        out.tables["flows"] = ft.assign(sent_in_window=[int(sends.get(i, 0)) for i in ft.index])

        n = len(ft)
        fair = s["total_mbps"] / n
        med = float(ft["mbps"].median())
        out.claims.append(
            claim(
                "Some uplink flows starve while the others keep a normal share",
                s["starved_up"] >= 1 and med >= 0.5 * fair,
                f"{s['starved_up']} of {n} flows below {STARVED_SHARE:.0%} of the fair share "
                f"({fair:.2f} Mb/s); median flow {med:.2f} Mb/s",
            )
        )
        out.claims.append(
            claim(
                "The AP buffer is full of ACKs (mean ACK occupancy >= 90% of its 100 packets)",
                s["ap_acks_queued"] >= 0.9 * AP_BUFFER,
                f"mean {s['ap_acks_queued']:.1f} ACKs queued over the measured window",
            )
        )
        out.claims.append(
            claim(
                "Many ACKs are dropped at the AP",
                s["ap_ack_drops"] > 0,
                f"{s['ap_ack_drops']} ACKs dropped, {s['ap_ack_drop_share']:.0%} of the ACKs the "
                "receiver sent",
            )
        )
        late = res.meta["duration"] / 2
        sr = res.series[(res.series["flow"] == starved_i) & (res.series["time"] >= late)]
        nr = res.series[(res.series["flow"] == normal_i) & (res.series["time"] >= late)]
        out.claims.append(
            claim(
                "The starved flow's cwnd stays small while the normal flow keeps its window (second half of "
                "the run)",
                float(sr["cwnd"].max()) < float(nr["cwnd"].mean()),
                f"after {late:.0f} s: starved max cwnd {sr['cwnd'].max():.1f}, normal mean cwnd "
                f"{nr['cwnd'].mean():.1f}",
            )
        )
        sent_s, sent_n = int(sends.get(starved_i, 0)), int(sends.get(normal_i, 0))
        out.claims.append(
            claim(
                "The starved flow sends almost no data (< 10% of the normal flow's segments)",
                sent_s < 0.1 * max(sent_n, 1),
                f"segments sent in the measured window: starved {sent_s}, normal {sent_n}",
            )
        )
        if quick:
            out.notes.append(
                "Quick mode runs 30 s; in 004 the starved flow stops growing only after about 55 s, so the "
                "starvation claims need the full run."
            )
        return out


# -- fig. 6: 16 Vegas uplinks ---------------------------------------------------------------------


@register
class Fig6(Experiment):
    name = "wlan/fig6"
    paper = "wlan"
    title = "16 uplink Vegas flows: ACKs queued at the AP"
    setup = SETUP + " 16 uplink Vegas flows (Linux variant, alpha 2, beta 4)."
    needs = ("topology:wlan", "cc:vegas")
    ablations = (vegas_ns2_module_ablation(),)
    published = (
        Published(
            "ACKs queued at the AP (measured window)", 45, "packets", SOURCE.format("fig. 6, sec. II-B2")
        ),
        Published("ACKs lost at the AP (whole run)", 0, "packets", SOURCE.format("sec. II-B2")),
        Published("ACKs lost at the AP (measured window)", 0, "packets", SOURCE.format("sec. II-B2")),
    )

    def runs(self, quick: bool) -> list[Run]:
        sc = wlan_scenario(16, 0, cc_spec("vegas"), duration_of(quick), event_log=True)
        return [Run({"cc": "vegas", "uplinks": 16}, sc)]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        ((_, res),) = results
        s = run_summary(res)
        start = res.meta["measure"][0]
        q = res.ap_queue[res.ap_queue["time"] >= start]["acks"].to_numpy(dtype=float)
        t, drops = ack_drops_per_second(res)
        late_drops = int(drops[t >= start].sum())
        fig, (a, b) = plt.subplots(2, 1, figsize=(6.4, 5.0), sharex=True)
        a.plot(res.ap_queue["time"], res.ap_queue["acks"], color="C2", lw=0.8, label="tcplab")
        pub = self.published[0].value
        a.axhline(pub, color="k", ls="--", lw=0.8, label=f"004: about {pub:g}")
        a.set_ylabel("ACKs at the AP")
        a.legend(fontsize=7)
        b.plot(t, drops, color="C3", lw=0.8)
        b.set_ylabel("ACKs dropped / s")
        b.set_xlabel("time (s)")
        for ax in (a, b):
            ax.grid(True, alpha=0.3)
        fig.tight_layout()
        out.figures.append(
            Figure(
                "ap-acks",
                fig,
                "Fig. 6: TCP ACKs queued (top) and dropped (bottom) at the AP, 16 Vegas uplinks",
            )
        )
        out.figures.append(
            Figure(
                "per-flow", per_flow_bars([("16 Vegas uplinks", res)]), "Throughput of each Vegas uplink flow"
            )
        )
        out.tables["summary"] = pd.DataFrame(
            [{**s, "ap_ack_drops_in_window": late_drops, "ap_acks_std": float(q.std())}]
        )
        v, n = CC["vegas"], len(res.flows)
        lo, hi = n * v["alpha"], n * v["beta"]

        def where(x: float) -> str:
            return "inside" if lo <= x <= hi else "outside"

        out.notes.append(
            f"Each Vegas flow keeps alpha..beta = {v['alpha']}..{v['beta']} packets queued at its "
            f"bottleneck, so {n} flows aim for {lo}..{hi}; the uplinks' bottleneck queue is the AP's ACK "
            f"queue. Ours settles at {s['ap_acks_queued']:.1f} ({where(s['ap_acks_queued'])} that range), "
            f"004's at about {pub:g} ({where(pub)})."
        )
        out.comparison = comparison(
            zip(
                self.published,
                (s["ap_acks_queued"], float(s["ap_ack_drops"]), float(late_drops)),
                strict=True,
            )
        )
        out.claims.append(
            claim(
                "No ACK is lost at the AP once the flows have settled (measured window)",
                late_drops == 0,
                f"{late_drops} dropped after {start:.0f} s, {s['ap_ack_drops']} over the whole run",
            )
        )
        out.claims.append(
            claim(
                "The number of queued ACKs stays about constant (coefficient of variation < 0.25)",
                q.size > 0 and q.std() < 0.25 * q.mean(),
                f"mean {q.mean():.1f}, std {q.std():.1f}",
            )
        )
        out.claims.append(
            claim(
                f"No unfairness among the Vegas uplinks (Jain >= {FAIR_JAIN}, no starved flow)",
                s["jain_up"] >= FAIR_JAIN and s["starved_up"] == 0,
                f"Jain {s['jain_up']:.3f}, {s['starved_up']} starved",
            )
        )
        return out


# -- fig. 7: 8 uplink + 8 downlink, AP buffer swept ---------------------------------------------


@register
class Fig7(Experiment):
    name = "wlan/fig7"
    paper = "wlan"
    title = "8 uplink + 8 downlink flows: mean throughput per direction vs AP buffer"
    setup = (
        SETUP + " 8 uplink and 8 downlink flows of one variant; (a) Reno, HighSpeed, Scalable, CUBIC, CTCP, "
        "AReno; (b) Vegas, FAST. Assumed AP buffers (004 does not list them): 25, 50, 100, 150, 200, 300 "
        "packets (quick: 50, 200)."
    )
    needs = (
        "topology:wlan",
        "cc:ctcp",
        "cc:areno",
        "cc:vegas",
        "cc:fast",
        "cc:highspeed",
        "cc:scalable",
        "cc:cubic",
    )
    buffers = (25, 50, 100, 150, 200, 300)
    quick_buffers = (50, 200)

    def runs(self, quick: bool) -> list[Run]:
        d = duration_of(quick)
        return [
            Run({"cc": cc, "ap_buffer": b}, wlan_scenario(8, 8, cc_spec(cc), d, ap_buffer=b))
            for cc in (*LOSS_BASED, *DELAY_BASED)
            for b in (self.quick_buffers if quick else self.buffers)
        ]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        rows = [{"cc": p["cc"], "ap_buffer": p["ap_buffer"], **run_summary(r)} for p, r in results]
        table = pd.DataFrame(rows).sort_values(["cc", "ap_buffer"])
        cols = [
            "cc",
            "ap_buffer",
            "up_mean_mbps",
            "down_mean_mbps",
            "up_over_down",
            "jain_all",
            "total_mbps",
            "ap_acks_queued",
            "ap_data_queued",
            "ap_ack_drop_share",
            "ap_down_data_drop_share",
            "timeouts",
        ]
        out.tables["mean throughput per direction (Mb/s)"] = table[cols].reset_index(drop=True)

        fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
        for ax, group, lab in (
            (axes[0], LOSS_BASED, "(a) loss-based and hybrid"),
            (axes[1], DELAY_BASED, "(b) delay-based"),
        ):
            for k, cc in enumerate(group):
                g = table[table["cc"] == cc]
                if not len(g):
                    continue
                ax.plot(g["ap_buffer"], g["up_mean_mbps"], "o-", color=f"C{k}", label=f"{LABEL[cc]} up")
                ax.plot(g["ap_buffer"], g["down_mean_mbps"], "s--", color=f"C{k}", label=f"{LABEL[cc]} down")
            ax.set_title(lab, fontsize=9)
            ax.set_xlabel("AP buffer (packets)")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=6, ncol=2)
        axes[0].set_ylabel("mean throughput per flow (Mb/s)")
        fig.tight_layout()
        out.figures.append(
            Figure(
                "directions",
                fig,
                "Fig. 7: mean throughput of uplink (solid) and downlink (dashed) flows vs AP buffer",
            )
        )

        lb = table[table["cc"].isin(LOSS_BASED)]
        worst = lb.sort_values("up_over_down").iloc[0] if len(lb) else None
        out.claims.append(
            claim(
                f"Loss-based and hybrid TCP: uplinks get at least {UNFAIR_RATIO:g}x the downlinks' "
                "throughput at every AP buffer size",
                every(lb["up_over_down"] >= UNFAIR_RATIO),
                ""
                if worst is None
                else f"smallest up/down ratio {worst['up_over_down']:.2f} ({LABEL[worst['cc']]}, "
                f"buffer {worst['ap_buffer']})",
            )
        )
        db = table[table["cc"].isin(DELAY_BASED)]
        if len(db):
            big = db[db["ap_buffer"] == db["ap_buffer"].max()]
            out.claims.append(
                claim(
                    "Delay-based TCP is fair between directions with a large AP buffer "
                    f"(up/down < {UNFAIR_RATIO:g} at {int(big['ap_buffer'].iloc[0])} packets)",
                    every(big["up_over_down"] < UNFAIR_RATIO),
                    ", ".join(f"{LABEL[r.cc]} {r.up_over_down:.2f}" for r in big.itertuples()),
                )
            )
            small = db[db["ap_buffer"] == db["ap_buffer"].min()]
            out.claims.append(
                claim(
                    "Delay-based TCP is fairer with a large AP buffer than with a small one",
                    every(big.set_index("cc")["jain_all"] >= small.set_index("cc")["jain_all"]),
                    ", ".join(
                        f"{LABEL[cc]} Jain {small.set_index('cc').loc[cc, 'jain_all']:.2f} -> "
                        f"{big.set_index('cc').loc[cc, 'jain_all']:.2f}"
                        for cc in big["cc"]
                    ),
                )
            )
        reno = table[(table["cc"] == "reno") & (table["ap_buffer"] == AP_BUFFER)]
        if len(reno):
            r = reno.iloc[0]
            starve = r["down_mean_mbps"] < STARVED_SHARE * r["up_mean_mbps"]
            out.notes.append(
                ("Why the downlinks starve" if starve else "Uplinks against downlinks")
                + f" (Reno, AP buffer {AP_BUFFER}): the AP dropped "
                f"{r['ap_ack_drop_share']:.0%} of the uplinks' ACKs and "
                f"{r['ap_down_data_drop_share']:.0%} of the downlinks' data segments. Uplink windows keep "
                "growing (ACK loss does not trigger congestion control, and cumulative ACKs hide it), so "
                "the AP queue stays full "
                f"({r['ap_acks_queued']:.0f} ACKs on average); a downlink segment finds room only by "
                "chance, "
                f"and a flow that loses that many segments lives in backed-off retransmission timeouts "
                f"({r['timeouts']} timeouts in all). 004 calls it 'significant unfairness'; how much its "
                "downlinks got cannot be read from the text (our copy has no figures). Fig. 10 runs the "
                "same configuration under other readings of the set-up (station queue 100, rwnd 1000, "
                "delayed ACKs)."
            )
        vegas, fast = CC["vegas"], CC["fast"]
        n = len(results[0][1].flows) if results else 0
        out.notes.append(
            "Backlog the delay-based flows aim for: Vegas keeps alpha..beta = "
            f"{vegas['alpha']}..{vegas['beta']} packets per flow queued, "
            f"{n * vegas['alpha']}..{n * vegas['beta']} for {n} flows; FAST keeps "
            f"alpha = {fast['alpha']} per flow, {n * fast['alpha']} in all. An AP buffer below that "
            "backlog overflows (see ap_ack_drop_share and ap_down_data_drop_share); 004 puts the "
            "converged queue at about 100 packets."
        )
        return out


# -- figs. 8 and 10: the four methods --------------------------------------------------------------


class _Methods(Experiment):
    """Shared runs and tables of figs. 8 and 10: Reno under the four methods."""

    paper = "wlan"
    needs = ("topology:wlan", "queue:split")
    up, down = 16, 0

    def runs(self, quick: bool) -> list[Run]:
        d = duration_of(quick)
        out = [
            Run({"method": k, "reading": "paper"}, m.scenario(self.up, self.down, d))
            for k, m in METHODS.items()
        ]
        if quick:
            return out
        out += [
            Run(
                {"method": k, "reading": "delayed ACKs"},
                m.scenario(self.up, self.down, d, tcp={"delayed_ack": True}),
            )
            for k, m in METHODS.items()
        ]
        for reading, (topo, tcp) in READINGS.items():
            sc = wlan_scenario(self.up, self.down, cc_spec("reno"), d, topology=topo, tcp=tcp or None)
            out.append(Run({"method": "a", "reading": reading}, sc))
        return out

    def _tables(self, results, out: Outcome) -> pd.DataFrame:
        rows = [
            {
                "method": METHODS[p["method"]].label,
                "key": p["method"],
                "reading": p["reading"],
                **run_summary(r),
            }
            for p, r in results
        ]
        table = pd.DataFrame(rows)
        cols = [
            "method",
            "reading",
            "total_mbps",
            "jain_all",
            "jain_up",
            "jain_down",
            "up_mean_mbps",
            "down_mean_mbps",
            "starved_up",
            "timeouts",
            "ap_acks_queued",
            "ap_ack_drops",
            "ap_ack_drop_share",
            "ap_down_data_drop_share",
        ]
        out.tables["methods"] = table[cols]
        paper = {p["method"]: r for p, r in results if p["reading"] == "paper"}
        out.figures.append(
            Figure(
                "per-flow",
                per_flow_bars([(METHODS[k].label, paper[k]) for k in METHODS if k in paper]),
                f"Throughput of each flow ({self.up} up"
                + (f", {self.down} down; uplinks blue, downlinks orange)" if self.down else ")"),
            )
        )
        delayed = {p["method"]: r for p, r in results if p["reading"] == "delayed ACKs"}
        if delayed:
            out.figures.append(
                Figure(
                    "per-flow-delack",
                    per_flow_bars([(METHODS[k].label, delayed[k]) for k in METHODS if k in delayed]),
                    "The same with delayed ACKs (second reading of the receiver)",
                )
            )
        per_flow = {
            p["method"]: flow_table(r).set_index("flow")["mbps"]
            for p, r in results
            if p["reading"] == "paper"
        }
        out.tables["throughput of each flow (Mb/s)"] = pd.DataFrame(per_flow).reset_index()
        return table

    @staticmethod
    def _window_cuts(results, method: str) -> dict[str, float]:
        """Per flow of one method (the paper's reading), means by direction: ACK-loss reductions
        (the wrapper's own counter), data-loss responses and timeouts."""
        for p, r in results:
            if p["method"] != method or p["reading"] != "paper":
                continue
            ft = flow_table(r)
            up = ft.index[ft["direction"] == "up"]
            down = ft.index[ft["direction"] == "down"]
            cuts = r.cc_vars[r.cc_vars["name"] == "ack_loss_reductions"].groupby("flow")["value"].max()
            losses = r.losses.groupby("flow").size()

            def mean(series, idx):
                return float(series.reindex(idx, fill_value=0).mean()) if len(idx) else float("nan")

            return {
                "up_ack_cuts": mean(cuts, up),
                "up_loss_responses": mean(losses, up),
                "down_loss_responses": mean(losses, down),
                "down_timeouts": float(ft.loc[down, "timeouts"].mean()) if len(down) else float("nan"),
            }
        return {}

    @staticmethod
    def _row(table: pd.DataFrame, key: str, reading: str = "paper") -> pd.Series | None:
        r = table[(table["key"] == key) & (table["reading"] == reading)]
        return r.iloc[0] if len(r) else None

    def _readings_note(self, table: pd.DataFrame, out: Outcome) -> None:
        rows = table[(table["key"] == "a")]
        if len(rows) < 2:
            return
        parts = [
            f"{r.reading}: Jain {r.jain_all:.2f}, total {r.total_mbps:.1f} Mb/s"
            + (f", downlink mean {r.down_mean_mbps:.3f} Mb/s" if self.down else f", {r.starved_up} starved")
            for r in rows.itertuples()
        ]
        out.notes.append("Unmodified Reno under each reading of the set-up: " + "; ".join(parts) + ".")


@register
class Fig8(_Methods):
    name = "wlan/fig8"
    title = "16 uplink Reno flows: unmodified, PIFS, split buffer, ACK-loss reaction"
    ablations = stack_ablations("bytes-growth", "delayed-ack")
    setup = (
        SETUP + " 16 uplink Reno flows. (a) unmodified; (b) the AP uses PIFS instead of DIFS (ref. [12]; "
        "(b*) also without backoff); (c) AP buffer split into 50 data + 50 ACK packets with advertised "
        "window 160 (ref. [13]); (d) the ACK-loss reaction, thresh_ack_losses = 1. Full mode also runs "
        "every method with delayed ACKs, and (a) with a 100-packet station queue and with rwnd 1000."
    )
    up, down = 16, 0
    published = (
        Published(
            "largest difference in total throughput among (a)-(d)",
            10,
            "% (at most)",
            SOURCE.format("sec. III-B"),
        ),
    )

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        table = self._tables(results, out)
        row = {k: self._row(table, k) for k in METHODS}
        totals = {k: row[k]["total_mbps"] for k in PAPER_METHODS if row[k] is not None}
        spread = 100 * (max(totals.values()) - min(totals.values())) / max(totals.values())
        out.comparison = comparison([(self.published[0], spread)])
        a, b, c, d = (row[k] for k in PAPER_METHODS)

        def fair(r):
            return r["jain_up"] >= FAIR_JAIN and r["starved_up"] == 0

        def desc(r):
            return f"Jain {r['jain_up']:.3f}, {r['starved_up']} starved"

        out.claims += [
            claim(
                "(a) unmodified Reno: serious unfairness among uplinks (a starved flow or Jain < 0.9)",
                not fair(a),
                desc(a),
            ),
            claim("(b) PIFS at the AP alleviates it (Jain >= 0.9, no starved flow)", fair(b), desc(b)),
            claim("(c) the split buffer does not (unfair as (a))", not fair(c), desc(c)),
            claim("(d) the ACK-loss reaction alleviates it (Jain >= 0.9, no starved flow)", fair(d), desc(d)),
            claim(
                "The total throughput of the four methods differs by at most 10%",
                spread <= 10,
                ", ".join(f"({k}) {v:.2f}" for k, v in totals.items()) + f" Mb/s: {spread:.1f}%",
            ),
        ]
        bs = row["b*"]
        if bs is not None:
            out.notes.append(
                f"Second reading of [12], PIFS without AP backoff (b*): {desc(bs)}, total "
                f"{bs['total_mbps']:.2f} Mb/s."
            )
        dl = {k: self._row(table, k, "delayed ACKs") for k in PAPER_METHODS}
        sp = None
        if all(v is not None for v in dl.values()):
            t = {k: v["total_mbps"] for k, v in dl.items()}
            sp = 100 * (max(t.values()) - min(t.values())) / max(t.values())
            out.notes.append(
                "With delayed ACKs: "
                + ", ".join(f"({k}) {desc(v)}, {v['total_mbps']:.2f} Mb/s" for k, v in dl.items())
                + f"; spread of totals {sp:.1f}%."
            )
        out.notes.append(
            f"Total throughput and ACK thinning: unmodified Reno loses {a['ap_ack_drop_share']:.0%} of its "
            f"ACKs at the AP, so the AP sends {a['ap_frames_per_segment']:.2f} frames per delivered segment "
            f"and the stations get more of the channel for data ({a['total_mbps']:.2f} Mb/s); the ACK-loss "
            f"reaction keeps the AP queue short ({d['ap_acks_queued']:.0f} ACKs on average, "
            f"{d['ap_ack_drop_share']:.1%} dropped), so the AP sends {d['ap_frames_per_segment']:.2f} frames "
            f"per segment ({d['total_mbps']:.2f} Mb/s)."
            + (
                f" With delayed ACKs (one ACK per two segments) the totals differ by {sp:.1f}% instead of "
                f"{spread:.1f}%."
                if sp is not None
                else ""
            )
        )
        self._readings_note(table, out)
        return out


@register
class Fig10(_Methods):
    name = "wlan/fig10"
    title = "8 uplink + 8 downlink Reno flows: unmodified, PIFS, split buffer, ACK-loss reaction"
    ablations = (pifs_backoff_ablation(), *stack_ablations("bytes-growth", "delayed-ack"))
    setup = (
        SETUP + " 8 uplink and 8 downlink Reno flows, stations at 4 m; methods (a)-(d) as fig. 8 (and (b*)). "
        "Full mode also runs every method with delayed ACKs, and (a) with a 100-packet station queue and "
        "with rwnd 1000."
    )
    up, down = 8, 8

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        table = self._tables(results, out)
        row = {k: self._row(table, k) for k in METHODS}
        a, b, c, d = (row[k] for k in PAPER_METHODS)

        def ratio(r):
            up, down = r["up_mean_mbps"], r["down_mean_mbps"]
            return f"up {up:.2f}, down {down:.3f} Mb/s (ratio {r['up_over_down']:.2f})"

        out.claims += [
            claim(
                f"(a) unmodified: uplinks get at least {UNFAIR_RATIO:g}x the downlinks",
                a["up_over_down"] >= UNFAIR_RATIO,
                ratio(a),
            ),
            claim(
                f"(a) unmodified: also unfair among the uplinks (a starved uplink or Jain < {FAIR_JAIN})",
                a["starved_up"] > 0 or a["jain_up"] < FAIR_JAIN,
                f"uplink Jain {a['jain_up']:.3f}, {a['starved_up']} starved",
            ),
            claim(
                f"(b) PIFS improves fairness between uplink and downlink (ratio < {UNFAIR_RATIO:g})",
                b["up_over_down"] < UNFAIR_RATIO,
                ratio(b),
            ),
            claim(
                f"(c) split buffer: unfair among uplinks (starved uplink or Jain < {FAIR_JAIN}) but "
                "fair among "
                f"downlinks (Jain >= {FAIR_JAIN})",
                (c["starved_up"] > 0 or c["jain_up"] < FAIR_JAIN) and c["jain_down"] >= FAIR_JAIN,
                f"uplink Jain {c['jain_up']:.3f} ({c['starved_up']} starved), downlink Jain "
                f"{c['jain_down']:.3f}",
            ),
            claim(
                "(d) ACK-loss reaction improves fairness between uplink and downlink (ratio < "
                f"{UNFAIR_RATIO:g})",
                d["up_over_down"] < UNFAIR_RATIO,
                ratio(d),
            ),
            claim(
                "(d) the downlinks get only slightly less than the uplinks (down/up between 0.75 and 1)",
                0.75 <= 1 / d["up_over_down"] <= 1,
                ratio(d),
            ),
        ]
        cuts, cuts_a = self._window_cuts(results, "d"), self._window_cuts(results, "a")
        bs = row["b*"]
        if bs is not None:
            out.notes.append(
                f"Second reading of [12], PIFS without AP backoff (b*): {ratio(bs)}, Jain "
                f"{bs['jain_all']:.3f}."
            )
        dl = [self._row(table, k, "delayed ACKs") for k in PAPER_METHODS]
        if all(v is not None for v in dl):
            out.notes.append(
                "With delayed ACKs: "
                + "; ".join(f"({k}) {ratio(v)}" for k, v in zip(PAPER_METHODS, dl, strict=True))
                + "."
            )
        out.notes.append(
            f"In (a) the AP drops {a['ap_down_data_drop_share']:.0%} of the downlink data segments it "
            f"receives (its queue holds {a['ap_acks_queued']:.0f} uplink ACKs on average), and each "
            f"downlink flow spends the run in backed-off timeouts ({cuts_a.get('down_timeouts', np.nan):.0f} "
            "per flow). In (d) the AP drops "
            f"{d['ap_down_data_drop_share']:.1%} of the downlink segments and "
            f"{d['ap_ack_drop_share']:.1%} of the uplinks' ACKs; a single lost segment halves a "
            "downlink's window while an uplink reacts only to more than thresh_ack_losses = 1 lost ACKs "
            "in a window. Per flow over the run: "
            f"{cuts.get('up_ack_cuts', float('nan')):.0f} ACK-loss reductions and "
            f"{cuts.get('up_loss_responses', float('nan')):.0f} data-loss responses per uplink, "
            f"{cuts.get('down_loss_responses', float('nan')):.0f} data-loss responses per downlink, "
            f"{cuts.get('down_timeouts', float('nan')):.0f} of them timeouts (Reno recovery after several "
            "losses in one window)."
        )
        self._readings_note(table, out)
        return out


# -- fig. 9: stations at 1 m and 10 m ------------------------------------------------------------


@register
class Fig9(Experiment):
    name = "wlan/fig9"
    paper = "wlan"
    title = "16 uplink Reno flows, 8 stations at 1 m and 8 at 10 m: PIFS vs ACK-loss reaction"
    setup = (
        SETUP + " 16 uplink Reno flows; stations w0-w7 at 1 m, w8-w15 at 10 m from the AP (free-space path "
        "loss, capture when a frame is 10 dB above the interference); (a) the AP uses PIFS [12] (and (b*) "
        "without backoff), (b) the ACK-loss reaction. 004's panels: (a) PIFS, (b) proposal."
    )
    needs = ("topology:wlan",)
    distances = [1.0] * 8 + [10.0] * 8

    def runs(self, quick: bool) -> list[Run]:
        d = duration_of(quick)
        return [
            Run({"method": k}, METHODS[k].scenario(16, 0, d, distances=self.distances))
            for k in ("b", "b*", "d")
        ]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        runs = _by(results, "method")
        rows = []
        for k, res in runs.items():
            ft = flow_table(res)
            near = ft[ft["distance_m"] <= 1.0]["mbps"].to_numpy()
            far = ft[ft["distance_m"] > 1.0]["mbps"].to_numpy()
            rows.append(
                {
                    "method": METHODS[k].label,
                    "key": k,
                    **{x: run_summary(res)[x] for x in ("total_mbps", "jain_up", "starved_up")},
                    "near_mean_mbps": near.mean(),
                    "far_mean_mbps": far.mean(),
                    "near_over_far": near.mean() / far.mean() if far.mean() > 0 else float("inf"),
                }
            )
        table = pd.DataFrame(rows)
        out.tables["near (1 m) vs far (10 m) stations"] = table.drop(columns="key")
        out.figures.append(
            Figure(
                "per-flow",
                per_flow_bars([(METHODS[k].label, runs[k]) for k in runs], colour_by="distance"),
                "Fig. 9: throughput of each flow; blue stations at 1 m, red at 10 m",
            )
        )
        t = table.set_index("key")
        if "b" in t.index:
            b = t.loc["b"]
            out.claims.append(
                claim(
                    "PIFS [12] is unfair by distance: the near stations get more (near/far > 1.25, Jain "
                    "< 0.9)",
                    b["near_over_far"] > 1.25 and b["jain_up"] < FAIR_JAIN,
                    f"near/far {b['near_over_far']:.2f}, Jain {b['jain_up']:.3f}",
                )
            )
        if "d" in t.index:
            d = t.loc["d"]
            out.claims.append(
                claim(
                    "The ACK-loss reaction is fair regardless of location (Jain >= 0.9, near/far within "
                    "0.8-1.25)",
                    d["jain_up"] >= FAIR_JAIN and 0.8 <= d["near_over_far"] <= 1.25,
                    f"near/far {d['near_over_far']:.2f}, Jain {d['jain_up']:.3f}",
                )
            )
        if "b*" in t.index:
            bs = t.loc["b*"]
            out.notes.append(
                f"Second reading of [12], PIFS without AP backoff: near/far {bs['near_over_far']:.2f}, "
                f"Jain {bs['jain_up']:.3f}, total {bs['total_mbps']:.2f} Mb/s."
            )
        return out
