"""beyond/bbr-vegas: BBR against the papers' delay-aware algorithms (Vegas, CODE, Veno) and
against Reno, on the papers' dumbbell.

The set-up is 000's fig. 7 dumbbell as code/fig14 runs it (:func:`tcplab.experiments.code_tcp.
code_scenario`): 10 Mb/s, 50 ms base RTT, 1000-byte packets, flows starting uniformly in
[0, 25] s, throughput over 50-200 s, 20 repetitions, buffers of 25 to 200 packets. One BBR
flow meets one flow of Vegas, CODE, Veno or Reno; the papers' algorithms run the NS-2 stack,
BBR Linux's loss recovery (:mod:`.bbr_stack`; on the NS-2 stack as a second reading).

BBR's in-flight cap of two estimated BDPs lets it keep up to one BDP queued. That is far more
than the 1 to 3 packets Vegas aims for, so Vegas should yield. CODE is built to compete with
Reno, and Veno grows and backs off as Reno does, so both should fare as Reno does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..analysis import mean_ci
from ..result import Result
from . import register
from .base import Claim, Experiment, Figure, Outcome, Results, Run
from .bbr_cubic import buffer_axis
from .bbr_stack import with_bbr_stack
from .code_tcp import BOTTLENECK_DELAY, MEASURE_FROM, code_scenario
from .code_tcp.paper import timing
from .common import claim, every, figure, plt

PEERS = ("vegas", "code", "veno", "reno")
LABEL = {"vegas": "Vegas", "code": "CODE", "veno": "Veno", "reno": "Reno", "bbr": "BBR"}
COLOR = {"vegas": "C0", "code": "C4", "veno": "C2", "reno": "C3"}
BUFFERS = (25, 50, 100, 200)
QUICK_BUFFERS = (25, 100)
#: The NS-2 stack's packets: 1000-byte segments and 40 bytes of headers on the wire.
WIRE_BYTES = 1040
RATE_BPS = 10e6
#: Two 1 ms access links (code_tcp.ACCESS) and the bottleneck, both ways.
BASE_RTT_S = 2 * (BOTTLENECK_DELAY + 2 * 0.001)
BDP_PACKETS = RATE_BPS * BASE_RTT_S / (8 * WIRE_BYTES)
#: Two mean shares count as the same outcome within this distance (one twentieth of the link).
SAME_SHARE = 0.05


def run_row(params: dict[str, Any], res: Result) -> dict[str, Any]:
    """BBR's share of what both flows delivered over the measured window, both flows'
    throughput and smoothed RTT, and the bottleneck's mean queue."""
    f = res.flows.set_index("cc")
    total = float(f["goodput_bps"].sum())
    since = float(res.meta["measure"][0])
    s = res.series[res.series["time"] >= since].groupby("flow")["srtt"].mean()
    ids = res.flows.set_index("cc")["id"]
    link = res.links[res.links["name"] == "r0->r1"].iloc[0]
    return {
        **params,
        "bbr_share": float(f.loc["bbr", "goodput_bps"]) / total if total > 0 else float("nan"),
        "bbr_mbps": float(f.loc["bbr", "goodput_bps"]) / 1e6,
        "peer_mbps": float(f.loc[params["peer"], "goodput_bps"]) / 1e6,
        "queue_packets": float(link["mean_queue"]),
        "bbr_srtt_ms": float(s.get(int(ids["bbr"]), np.nan)) * 1e3,
        "bbr_timeouts": int(f.loc["bbr", "timeouts"]),
        "peer_loss_responses": int(
            f.loc[params["peer"], "fast_retransmits"] + f.loc[params["peer"], "timeouts"]
        ),
        **{f"peer_{v}": peer_var(res, int(ids[params["peer"]]), v, since) for v in ("diff", "beta")},
        "utilisation": float(link["utilization"]),
        "peer_srtt_ms": float(s.get(int(ids[params["peer"]]), np.nan)) * 1e3,
    }


def peer_var(res: Result, flow: int, name: str, since: float) -> float:
    """The mean of a flow's algorithm variable over the measured window (NaN if it has none:
    Vegas, CODE and Veno export ``diff``, the Vegas family ``beta``)."""
    v = res.cc_vars
    v = v.loc[(v["flow"] == flow) & (v["name"] == name) & (v["time"] >= since), "value"]
    return float(v.mean()) if len(v) else float("nan")


def point_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per peer and buffer: BBR's mean share with its 95% half width over repetitions, and the
    mean of every other measure."""
    rows = []
    for (peer, buffer), g in runs.groupby(["peer", "buffer"], sort=False):
        ci = mean_ci(g["bbr_share"].to_numpy())
        rows.append(
            {
                "peer": peer,
                "buffer": buffer,
                "buffer_bdp": buffer / BDP_PACKETS,
                "bbr_share": ci.mean,
                "ci95": ci.half_width,
                **{c: float(g[c].mean()) for c in ("bbr_mbps", "peer_mbps", "queue_packets")},
                "queue_bdp": float(g["queue_packets"].mean()) / BDP_PACKETS,
                **{
                    c: float(g[c].mean())
                    for c in (
                        "bbr_srtt_ms",
                        "peer_srtt_ms",
                        "bbr_timeouts",
                        "utilisation",
                        "peer_loss_responses",
                        "peer_diff",
                        "peer_beta",
                    )
                },
                "runs": ci.n,
            }
        )
    return pd.DataFrame(rows).sort_values(["peer", "buffer"], ignore_index=True)


def _of(points: pd.DataFrame, peer: str) -> pd.DataFrame:
    return points[points["peer"] == peer].set_index("buffer")


def _shares(points: pd.DataFrame, peer: str) -> str:
    return ", ".join(f"{b}: {s:.2f}" for b, s in _of(points, peer)["bbr_share"].items())


# -- claims -------------------------------------------------------------------------------------


def vegas_yields_claim(points: pd.DataFrame) -> Claim:
    v = _of(points, "vegas")
    return claim(
        "Vegas yields to BBR: BBR takes more than half of the link against Vegas at every buffer",
        every(v["bbr_share"] > 0.5),
        "BBR's share by buffer (packets): " + _shares(points, "vegas"),
    )


def as_reno_claim(points: pd.DataFrame, peer: str, why: str) -> Claim:
    """``peer`` fares against BBR as Reno does: BBR's mean share against each lies within
    SAME_SHARE of the other at every buffer."""
    p, r = _of(points, peer), _of(points, "reno")
    both = p.index.intersection(r.index)
    diff = (p.loc[both, "bbr_share"] - r.loc[both, "bbr_share"]).abs()
    detail = ", ".join(
        f"{b}: against {LABEL[peer]} {p.loc[b, 'bbr_share']:.2f}, Reno {r.loc[b, 'bbr_share']:.2f}"
        for b in both
    )
    off = [b for b in both if diff[b] > SAME_SHARE]
    if off:
        detail += "; where it differs " + ", ".join(differs(p.loc[b], r.loc[b], peer, b) for b in off)
    return claim(
        f"{LABEL[peer]} fares against BBR as Reno does ({why}): BBR's mean share against each is within "
        f"{SAME_SHARE:g} of the other at every buffer",
        every(diff <= SAME_SHARE),
        detail,
    )


def differs(p: pd.Series, r: pd.Series, peer: str, buffer: int) -> str:
    """What the peer did that Reno did not at one buffer: the losses it answered and, for the
    Vegas family, where its Diff sat against its beta."""
    out = (
        f"({buffer} packets) {LABEL[peer]} answers {p['peer_loss_responses']:.0f} losses per run against "
        f"Reno's {r['peer_loss_responses']:.0f}"
    )
    if np.isfinite(p["peer_beta"]):
        out += (
            f", its Diff averaging {p['peer_diff']:.1f} packets against its beta {p['peer_beta']:.1f}: it "
            "holds its window at its threshold, where Reno grows to the next loss"
        )
    return out


def shallow_claim(points: pd.DataFrame) -> Claim:
    """Below one BDP BBR takes most of the link from every peer."""
    shallow = points[points["buffer_bdp"] < 1]
    return claim(
        "Below 1 BDP BBR takes most of the link (share > 1/2) from every peer",
        every(shallow["bbr_share"] > 0.5),
        ", ".join(f"{LABEL[r.peer]} at {r.buffer}: {r.bbr_share:.2f}" for r in shallow.itertuples()),
    )


def short_queue_claim(points: pd.DataFrame) -> Claim:
    """BBR and Vegas together queue less than one BDP (BBR and Reno are shown beside)."""
    v, r = _of(points, "vegas"), _of(points, "reno")
    return claim(
        "BBR and Vegas together keep the mean queue below one BDP at every buffer (BBR's cap allows "
        "one BDP queued, Vegas adds 1 to 3 packets)",
        every(v["queue_bdp"] < 1),
        ", ".join(
            f"{b}: with Vegas {v.loc[b, 'queue_packets']:.0f}, with Reno "
            f"{r.loc[b, 'queue_packets']:.0f} packets"
            for b in v.index
            if b in r.index
        )
        + f" (BDP {BDP_PACKETS:.1f} packets)",
    )


def ns2_note(points: pd.DataFrame, second: pd.DataFrame) -> str:
    """What changes with BBR on the NS-2 stack: its timeouts and the link's utilisation."""
    return (
        "Second reading, BBR on the NS-2 stack (cumulative ACKs, go-back-N after a timeout): BBR takes "
        f"{second['bbr_timeouts'].mean():.0f} timeouts per run on average (on Linux's recovery "
        f"{points['bbr_timeouts'].mean():.1f}), and the link's utilisation falls to "
        f"{second['utilisation'].min():.2f} at worst (on Linux's recovery "
        f"{points['utilisation'].min():.2f}): "
        "BBR keeps sending at its rate through losses, which it can repair without timeouts only with SACK."
    )


# -- figures ------------------------------------------------------------------------------------


def share_figure(points: pd.DataFrame):
    def plot(ax):
        for peer in PEERS:
            g = points[points["peer"] == peer]
            if len(g):
                ax.errorbar(
                    g["buffer"],
                    g["bbr_share"],
                    yerr=g["ci95"].fillna(0),
                    fmt="o-",
                    capsize=3,
                    color=COLOR[peer],
                    label=f"BBR vs {LABEL[peer]}",
                )
        ax.axhline(0.5, color="grey", ls=":", lw=0.8)
        ax.axvline(BDP_PACKETS, color="grey", ls="--", lw=0.8)
        buffer_axis(ax, sorted(points["buffer"].unique()))
        ax.set_ylim(0, 1.02)

    return figure(plot, "bottleneck buffer (packets; dashed: 1 BDP)", "BBR's share of the link")


def queue_rtt_figure(points: pd.DataFrame):
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    for peer in PEERS:
        g = points[points["peer"] == peer]
        if not len(g):
            continue
        a.plot(g["buffer"], g["queue_packets"], "o-", color=COLOR[peer], label=f"BBR + {LABEL[peer]}")
        b.plot(g["buffer"], g["peer_srtt_ms"], "o-", color=COLOR[peer], label=LABEL[peer])
        b.plot(g["buffer"], g["bbr_srtt_ms"], "x:", color=COLOR[peer], label=f"BBR (vs {LABEL[peer]})")
    bufs = np.array(sorted(points["buffer"].unique()), dtype=float)
    a.plot(bufs, bufs, color="grey", lw=0.8, ls="--", label="buffer size")
    a.axhline(BDP_PACKETS, color="k", lw=0.8, ls=":", label="1 BDP")
    b.axhline(BASE_RTT_S * 1e3, color="k", lw=0.8, ls=":", label="base RTT")
    a.set_ylabel("mean bottleneck queue (packets)")
    b.set_ylabel("mean smoothed RTT (ms)")
    for ax in (a, b):
        buffer_axis(ax, bufs)
        ax.set_xlabel("bottleneck buffer (packets)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


@register
class BbrVegas(Experiment):
    name = "beyond/bbr-vegas"
    paper = "beyond"
    title = "One BBR flow against one Vegas, CODE, Veno or Reno flow on the papers' dumbbell"
    setup = (
        "000's fig. 7 dumbbell as code/fig14 runs it: bottleneck 10 Mb/s, 23 ms one way, DropTail buffer of "
        "25, 50, 100 and 200 packets (BDP 60 packets at 50 ms); access 100 Mb/s, 1 ms; 1000-byte packets, "
        "unlimited receiver window; flows start uniformly in [0, 25] s; throughput over 50-200 s; 20 "
        "repetitions, mean and 95% CI. One BBR flow (v1) against one flow of Vegas (alpha 1, beta 3), CODE "
        "(epsilon 0.68), Veno (beta 3) or Reno. The papers' algorithms run the NS-2 stack; BBR runs Linux's "
        "loss recovery (linux stack: SACK, RACK, PRR) with the same 1000-byte segments and an ACK per "
        "segment, and, as a second reading in full mode, the NS-2 stack. Quick: buffers 25 and 100, 2 "
        "repetitions, 100 s measured over 50-100 s."
    )
    needs = ("cc:bbr", *(f"cc:{p}" for p in PEERS if p != "reno"))

    def runs(self, quick: bool) -> list[Run]:
        duration, reps = timing(quick)
        return [
            Run(
                {"peer": peer, "buffer": b, "rep": r, "bbr_stack": stack},
                with_bbr_stack(code_scenario(["bbr", peer], buffer=b, seed=r + 1, duration=duration), stack),
            )
            for stack in (("linux",) if quick else ("linux", "ns2"))
            for peer in PEERS
            for b in (QUICK_BUFFERS if quick else BUFFERS)
            for r in range(reps)
        ]

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        runs = pd.DataFrame([run_row(p, r) for p, r in results])
        points = point_table(runs[runs["bbr_stack"] == "linux"])
        out.tables["BBR against each peer by buffer (mean over repetitions, 95% CI)"] = points
        ns2 = runs[runs["bbr_stack"] == "ns2"]
        if len(ns2):
            second = point_table(ns2)
            out.tables["second reading: BBR on the NS-2 stack (no SACK), its timeouts per run"] = second
            out.notes.append(ns2_note(points, second))
        out.figures += [
            Figure(
                "share",
                share_figure(points),
                "BBR's share of the link against one Vegas, CODE, Veno or Reno flow, by buffer (mean and 95% "
                "CI over repetitions)",
            ),
            Figure(
                "queue-rtt",
                queue_rtt_figure(points),
                "The bottleneck's mean queue and each flow's mean smoothed RTT (measured window), by buffer",
            ),
        ]
        out.claims += [
            vegas_yields_claim(points),
            as_reno_claim(points, "code", "CODE is built to compete with Reno"),
            as_reno_claim(points, "veno", "Veno grows and backs off as Reno does"),
            shallow_claim(points),
            short_queue_claim(points),
        ]
        out.notes.append(
            f"Measured from {MEASURE_FROM:g} s. BBR runs Linux's loss recovery (SACK, RACK, PRR) on "
            "1000-byte segments with an ACK per segment; its peers run the NS-2 stack, as in the papers."
        )
        return out
