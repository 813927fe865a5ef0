"""beyond/bbr-wlan: BBR in 004's IEEE 802.11a WLAN, beside the paper's algorithms.

004 finds that loss-based TCP in a WLAN is unfair between directions. The access point's
buffer fills with the uplinks' ACKs, whose losses do not slow the uplinks, and the downlinks'
segments find no room. Delay-based Vegas keeps the AP queue short and stays fair. BBR reacts
to neither loss nor delay directly, so which side it falls on is an open question. Three of
004's set-ups run with BBR and with the paper's algorithms, every set-up choice as in
:mod:`tcplab.experiments.wlan` (1000-byte segments, an ACK per segment), over several seeds;
the paper's algorithms run the NS-2 stack, BBR Linux's loss recovery (:mod:`.bbr_stack`; on
the NS-2 stack as a second reading):

* 8 uplinks and 8 downlinks over AP buffers of 25 to 200 packets (fig. 7): throughput per
  direction, the AP queue, RTT per direction;
* two uplinks (figs. 2-4): the RTT and the wireless delay of every frame;
* 16 uplinks (figs. 5-6): fairness among the uplinks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter

from ..analysis import mean_ci
from ..result import Result
from . import register
from .base import Claim, Experiment, Figure, Outcome, Results, Run
from .bbr_stack import with_bbr_stack
from .common import claim, every, plt
from .wlan import (
    AP_BUFFER,
    DELAY_BASED,
    FAIR_JAIN,
    LABEL,
    LOSS_BASED,
    MSS,
    SETUP,
    UNFAIR_RATIO,
    cc_spec,
    duration_of,
    per_flow_bars,
    run_summary,
    wlan_scenario,
)

PAPER_CCS = (*LOSS_BASED, *DELAY_BASED)
LABELS = {**LABEL, "bbr": "BBR"}
BUFFERS = (25, 50, 100, 200)
QUICK_BUFFERS = (100,)
QUICK_MIXED = ("reno", "vegas", "bbr")
#: Figs. 2-4 ran FAST, Reno and CTCP; Vegas is the paper's other delay-based algorithm.
TWO_UP = ("reno", "ctcp", "fast", "vegas", "bbr")
QUICK_TWO_UP = ("reno", "fast", "bbr")
SIXTEEN_UP = ("reno", "ctcp", "vegas", "bbr")
QUICK_SIXTEEN_UP = ("ctcp", "bbr")
SEEDS = (1, 2, 3, 4, 5)
QUICK_SEEDS = (1,)
#: BBR v1's cwnd gain (Linux tcp_bbr.c bbr_cwnd_gain): its in-flight cap is two estimated BDPs,
#: so the queue it builds is at most one and its RTT at most twice the minimum.
BBR_CWND_GAIN = 2.0
#: Bounds (ms) on the wireless delay of station w0's frames, as in wlan/fig2-4.
DELAY_BOUNDS_MS = (2.0, 5.0, 10.0)
MIXED, TWO, SIXTEEN = "8 up + 8 down", "2 up", "16 up"


def cc_of(name: str) -> str | dict[str, Any]:
    """004's parameters for the paper's algorithms; BBR has none."""
    return "bbr" if name == "bbr" else cc_spec(name)


# -- one run -> numbers ------------------------------------------------------------------------


def window_srtt(res: Result, direction: str) -> float:
    """Mean smoothed RTT (s) of one direction's flows ("up"/"down") over the measured window."""
    since = float(res.meta["measure"][0])
    ids = res.flows.loc[res.flows["name"].str.startswith(direction), "id"]
    s = res.series[(res.series["flow"].isin(ids)) & (res.series["time"] >= since)]
    return float(s["srtt"].mean()) if len(s) else float("nan")


def frame_delay_shares(res: Result, station: str = "w0") -> dict[str, float]:
    """Shares of the station's frames whose wireless delay is within each bound (NaN
    without a frame log)."""
    names = [f"frames <= {b:g} ms" for b in DELAY_BOUNDS_MS]
    if res.frames is None or not len(res.frames):
        return dict.fromkeys(names, float("nan"))
    iface = int(np.flatnonzero(res.wifi["name"].to_numpy() == station)[0])
    delay_ms = res.frames.loc[res.frames["iface"] == iface, "delay"].to_numpy() * 1e3
    if not delay_ms.size:
        return dict.fromkeys(names, float("nan"))
    return {n: float((delay_ms <= b).mean()) for n, b in zip(names, DELAY_BOUNDS_MS, strict=True)}


def bbr_estimates(res: Result) -> dict[str, float]:
    """BBR's bandwidth estimate over its delivery rate, and its data in flight in its own
    estimated BDPs (bw x min_rtt), each averaged over the measured window and its flows."""
    since = float(res.meta["measure"][0])
    v = res.cc_vars[res.cc_vars["time"] >= since]
    bw = v[v["name"] == "bw"].groupby("flow")["value"].mean()
    min_rtt = v[v["name"] == "min_rtt"].groupby("flow")["value"].mean()
    delivery = res.flows.set_index("id")["goodput_bps"].reindex(bw.index) / 8
    in_flight = res.series[res.series["time"] >= since].groupby("flow")["in_flight"].mean()
    return {
        "bw_over_delivery": float((bw / delivery.where(delivery > 0)).mean()),
        "in_flight_bdps": float((in_flight.reindex(bw.index) * MSS / (bw * min_rtt)).mean()),
    }


def run_row(params: dict[str, Any], res: Result) -> dict[str, Any]:
    """004's summary of one run (run_summary), the RTT per direction over the measured
    window, the wireless delays of w0's frames and, for BBR, its estimates."""
    s = run_summary(res)
    keep = (
        "total_mbps",
        "up_mean_mbps",
        "down_mean_mbps",
        "jain_all",
        "jain_up",
        "starved_up",
        "timeouts",
        "ap_acks_queued",
        "ap_data_queued",
        "ap_ack_drop_share",
    )
    return {
        **params,
        **{k: s[k] for k in keep},
        "ap_ack_fill": s["ap_acks_queued"] / params["ap_buffer"],
        "up_srtt_s": window_srtt(res, "up"),
        "down_srtt_s": window_srtt(res, "down"),
        "min_rtt_s": float(res.flows["min_rtt"].min()),
        **frame_delay_shares(res),
        **(bbr_estimates(res) if params["cc"] == "bbr" else {}),
    }


def point_table(runs: pd.DataFrame, keys: list[str], columns: list[str]) -> pd.DataFrame:
    """Per ``keys``: the mean of each column over seeds, and the 95% half width of the first
    (NaN with one seed or where a column is NaN)."""
    rows = []
    for key, g in runs.groupby(keys, sort=False):
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        first = g[columns[0]].dropna().to_numpy()
        ci = mean_ci(first) if first.size else None
        rows.append(
            {
                **row,
                "cc": LABELS[row["cc"]] if "cc" in row else None,
                **{c: float(g[c].mean()) if c in g else float("nan") for c in columns},
                f"{columns[0]}_ci95": ci.half_width if ci else float("nan"),
                "runs": len(g),
            }
        )
    return pd.DataFrame(rows)


# -- claims -------------------------------------------------------------------------------------


def _bbr(points: pd.DataFrame) -> pd.DataFrame:
    """BBR's rows (none for a table without runs)."""
    return points[points["cc"] == LABELS["bbr"]] if "cc" in points else points


def downlinks_claim(mixed: pd.DataFrame) -> Claim:
    """BBR's uplinks take at least UNFAIR_RATIO times the downlinks' throughput at every AP
    buffer, as 004 finds for the loss-based algorithms."""
    b = _bbr(mixed)
    ratio = b["up_mean_mbps"] / b["down_mean_mbps"]
    return claim(
        f"Like the loss-based algorithms, BBR favours the uplinks: with 8 uplinks and 8 downlinks they get "
        f"at least {UNFAIR_RATIO:g}x the downlinks' throughput at every AP buffer",
        every(ratio >= UNFAIR_RATIO) if len(b) else None,
        ", ".join(
            f"{r.ap_buffer}: up {r.up_mean_mbps:.2f}, down {r.down_mean_mbps:.3f} Mb/s per flow"
            for r in b.itertuples()
        ),
    )


def ap_queue_claim(mixed: pd.DataFrame) -> Claim:
    """The uplinks' ACKs fill the AP buffer under BBR (mean ACK occupancy >= 90 %)."""
    b = _bbr(mixed)
    return claim(
        "BBR's uplinks fill the AP buffer with their ACKs as the loss-based algorithms do (mean ACK "
        "occupancy >= 90% of the buffer at every AP buffer)",
        every(b["ap_ack_fill"] >= 0.9) if len(b) else None,
        ", ".join(f"{r.ap_buffer}: {r.ap_ack_fill:.0%}" for r in b.itertuples()),
    )


def rtt_order_claim(two: pd.DataFrame) -> Claim:
    """With two uplinks, BBR's RTT lies above the delay-based algorithms' and below the
    loss-based ones'."""
    rtt = two.set_index("cc")["up_srtt_s"] if "cc" in two else pd.Series(dtype=float)
    loss = [LABELS[c] for c in ("reno", "ctcp") if LABELS[c] in rtt.index]
    delay = [LABELS[c] for c in ("fast", "vegas") if LABELS[c] in rtt.index]
    bbr = LABELS["bbr"]
    holds = None
    if bbr in rtt.index and loss and delay:
        holds = rtt[delay].max() < rtt[bbr] < rtt[loss].min()
    return claim(
        "With two uplinks BBR's RTT lies between the delay-based algorithms' (FAST, Vegas) and the "
        "loss-based ones' (Reno, CTCP)",
        holds,
        ", ".join(f"{cc} {v:.3f} s" for cc, v in rtt.sort_values().items()),
    )


def bbr_queue_bound_claim(two: pd.DataFrame) -> Claim:
    """BBR's in-flight cap of two estimated BDPs bounds its RTT at twice the minimum; where it
    does not, the detail shows by how much its bandwidth estimate exceeds what it delivers."""
    b = _bbr(two)
    text = (
        f"BBR's cap of {BBR_CWND_GAIN:g} estimated BDPs bounds the queue two BBR uplinks build: their mean "
        f"RTT stays within {BBR_CWND_GAIN:g}x their minimum RTT"
    )
    if b.empty:
        return claim(text, None)
    r = b.iloc[0]
    ratio = r["up_srtt_s"] / r["min_rtt_s"]
    detail = f"mean RTT {r['up_srtt_s']:.3f} s = {ratio:.2f}x the minimum {r['min_rtt_s']:.3f} s"
    if ratio > BBR_CWND_GAIN:
        product = r["bw_over_delivery"] * r["in_flight_bdps"]
        detail += (
            f"; each flow keeps {r['in_flight_bdps']:.2f} of its estimated BDPs in flight, and its bandwidth "
            f"estimate (a maximum over 10 rounds) is {r['bw_over_delivery']:.2f}x what it delivers: "
            f"{product:.2f} BDPs of its delivery rate, which makes an RTT of about {product:.2f}x the minimum"
        )
    return claim(text, ratio <= BBR_CWND_GAIN, detail)


def uplink_fairness_claim(sixteen: pd.DataFrame) -> Claim:
    """Among 16 uplinks BBR is fair (Jain >= FAIR_JAIN, none starved); the other algorithms
    are shown beside it."""
    b = _bbr(sixteen)
    text = (
        f"Among 16 uplinks BBR shares fairly (Jain >= {FAIR_JAIN}, no flow below 10% of the fair share), "
        "where 004 finds CTCP unfair"
    )
    if b.empty:
        return claim(text, None)
    r = b.iloc[0]
    others = ", ".join(
        f"{x.cc} Jain {x.jain_up:.2f}, {x.starved_up:.1f} starved" for x in sixteen.itertuples()
    )
    detail = f"mean over seeds: {others}"
    if not (r["jain_up"] >= FAIR_JAIN and r["starved_up"] == 0):
        detail += (
            f"; under BBR the AP drops {r['ap_ack_drop_share']:.0%} of the uplinks' ACKs and the flows "
            f"take {r['timeouts']:.0f} timeouts per run: a flow whose ACKs the AP drops in bursts falls "
            "into retransmission timeouts (004's mechanism), which BBR's model of the path does not prevent"
        )
    return claim(text, r["jain_up"] >= FAIR_JAIN and r["starved_up"] == 0, detail)


def ns2_note(sixteen: pd.DataFrame, second: pd.DataFrame) -> str:
    """16 BBR uplinks on the NS-2 stack against Linux's recovery: fairness and timeouts."""
    linux, ns2 = _bbr(sixteen).iloc[0], second.iloc[0]
    return (
        "Second reading, 16 BBR uplinks on the NS-2 stack (cumulative ACKs, go-back-N after a timeout): "
        f"Jain {ns2['jain_up']:.2f} with {ns2['starved_up']:.1f} starved flows and {ns2['timeouts']:.0f} "
        f"timeouts per run, against Jain {linux['jain_up']:.2f}, {linux['starved_up']:.1f} starved and "
        f"{linux['timeouts']:.0f} timeouts on Linux's recovery: without SACK, the ACKs the AP drops in "
        "bursts leave BBR in retransmission timeouts, as they leave the loss-based algorithms (004)."
    )


# -- figures ------------------------------------------------------------------------------------


def plain_log(ax) -> None:
    """A log y axis labelled with plain numbers."""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def _style(cc: str) -> dict[str, Any]:
    if cc == LABELS["bbr"]:
        return {"color": "k", "lw": 2.2, "marker": "o", "zorder": 5}
    k = list(LABELS.values()).index(cc)
    delay = cc in (LABELS[c] for c in DELAY_BASED)
    return {"color": f"C{k}", "lw": 1, "marker": "s" if delay else ".", "ls": "--" if delay else "-"}


def mixed_figure(mixed: pd.DataFrame):
    """Fig. 7's set-up: up/down ratio, AP ACK occupancy and uplink RTT against the AP buffer."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    panels = (
        ("up_over_down", "uplink / downlink throughput per flow", True),
        ("ap_ack_fill", "AP buffer filled with ACKs (mean)", False),
        ("up_srtt_s", "uplinks' mean smoothed RTT (s)", True),
    )
    for ax, (col, label, log) in zip(axes, panels, strict=True):
        for cc, g in mixed.groupby("cc", sort=False):
            g = g.sort_values("ap_buffer")
            y = g["up_mean_mbps"] / g["down_mean_mbps"] if col == "up_over_down" else g[col]
            ax.plot(g["ap_buffer"], y, label=cc, **_style(cc))
        if col == "up_over_down":
            ax.axhline(UNFAIR_RATIO, color="grey", ls=":", lw=0.8)
        if log:
            plain_log(ax)
        ax.set_xlabel("AP buffer (packets)")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def two_up_figure(two: pd.DataFrame):
    """Two uplinks: mean RTT per algorithm (with its 95% CI) against the minimum and twice it."""
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    order = two.sort_values("up_srtt_s")
    x = np.arange(len(order))
    ax.bar(
        x,
        order["up_srtt_s"],
        yerr=order["up_srtt_s_ci95"].fillna(0),
        capsize=3,
        color=["k" if cc == LABELS["bbr"] else "C0" for cc in order["cc"]],
    )
    base = float(order["min_rtt_s"].min())
    ax.axhline(base, color="C2", ls="--", lw=1, label=f"minimum RTT {base:.2f} s")
    ax.axhline(BBR_CWND_GAIN * base, color="C3", ls=":", lw=1, label=f"{BBR_CWND_GAIN:g}x the minimum")
    ax.set_xticks(x, list(order["cc"]))
    plain_log(ax)
    ax.set_ylabel("uplinks' mean smoothed RTT (s)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _first_seed(results: Results, part: str) -> list[tuple[str, Result]]:
    picked = [(p, r) for p, r in results if p["part"] == part]
    first = min((p["seed"] for p, _ in picked), default=None)
    return [(LABELS[p["cc"]], r) for p, r in picked if p["seed"] == first]


@register
class BbrWlan(Experiment):
    name = "beyond/bbr-wlan"
    paper = "beyond"
    title = "BBR in 004's WLAN beside the paper's algorithms: fairness between directions, AP queue, delays"
    setup = (
        SETUP + " BBR (v1, no parameters) runs Linux's loss recovery (linux stack: SACK, RACK, PRR) on the "
        "same 1000-byte segments with an ACK per segment; the paper's algorithms run the NS-2 stack. "
        "Three set-ups: 8 uplinks + 8 downlinks of one algorithm, AP buffer 25, 50, 100 and 200 packets "
        "(fig. 7; the paper's eight algorithms and BBR); two uplinks with every frame's wireless delay "
        "logged (figs. 2-4; Reno, CTCP, FAST, Vegas, BBR); 16 uplinks (figs. 5-6; Reno, CTCP, Vegas, "
        "BBR). RTTs are the senders' smoothed RTT over the measured window. Quick: AP buffer 100 with "
        "Reno, Vegas and BBR; two uplinks of Reno, FAST and BBR; 16 uplinks of CTCP and BBR; one seed, "
        "30 s. Full mode also runs 16 BBR uplinks on the NS-2 stack (second reading)."
    )
    needs = ("topology:wlan", "cc:bbr", *(f"cc:{c}" for c in PAPER_CCS if c != "reno"))

    def runs(self, quick: bool) -> list[Run]:
        d = duration_of(quick)
        seeds = QUICK_SEEDS if quick else SEEDS

        def run(part: str, cc: str, sc, seed: int, ap_buffer: int = AP_BUFFER, stack: str = "linux") -> Run:
            params = {"part": part, "cc": cc, "ap_buffer": ap_buffer, "seed": seed, "bbr_stack": stack}
            return Run(params, with_bbr_stack(sc.with_seed(seed), stack))

        out = [
            run(MIXED, cc, wlan_scenario(8, 8, cc_of(cc), d, ap_buffer=b), s, b)
            for cc in (QUICK_MIXED if quick else (*PAPER_CCS, "bbr"))
            for b in (QUICK_BUFFERS if quick else BUFFERS)
            for s in seeds
        ]
        two = {"sample_interval": 0.1, "topology": {"frame_log": True}}
        out += [
            run(TWO, cc, wlan_scenario(2, 0, cc_of(cc), d, **two), s)
            for cc in (QUICK_TWO_UP if quick else TWO_UP)
            for s in seeds
        ]
        out += [
            run(SIXTEEN, cc, wlan_scenario(16, 0, cc_of(cc), d), s)
            for cc in (QUICK_SIXTEEN_UP if quick else SIXTEEN_UP)
            for s in seeds
        ]
        if not quick:  # the second reading: BBR on the papers' NS-2 stack
            out += [run(SIXTEEN, "bbr", wlan_scenario(16, 0, "bbr", d), s, stack="ns2") for s in seeds]
        return out

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        every_run = pd.DataFrame([run_row(p, r) for p, r in results])
        runs = every_run[every_run["bbr_stack"] == "linux"]
        part = {k: g for k, g in runs.groupby("part")}
        mixed = point_table(
            part.get(MIXED, runs.iloc[:0]),
            ["cc", "ap_buffer"],
            [
                "up_mean_mbps",
                "down_mean_mbps",
                "jain_all",
                "ap_ack_fill",
                "ap_acks_queued",
                "ap_data_queued",
                "up_srtt_s",
                "down_srtt_s",
                "timeouts",
            ],
        )
        two = point_table(
            part.get(TWO, runs.iloc[:0]),
            ["cc"],
            [
                "up_srtt_s",
                "min_rtt_s",
                "up_mean_mbps",
                "jain_up",
                *[f"frames <= {b:g} ms" for b in DELAY_BOUNDS_MS],
                "bw_over_delivery",
                "in_flight_bdps",
            ],
        )
        sixteen = point_table(
            part.get(SIXTEEN, runs.iloc[:0]),
            ["cc"],
            [
                "jain_up",
                "starved_up",
                "up_mean_mbps",
                "ap_ack_fill",
                "ap_ack_drop_share",
                "timeouts",
                "up_srtt_s",
            ],
        )
        out.tables[f"{MIXED}: per flow and direction by AP buffer (mean over seeds)"] = mixed
        out.tables[f"{TWO}: RTT, wireless delay of w0's frames, BBR's estimates (mean over seeds)"] = two
        out.tables[f"{SIXTEEN}: fairness among the uplinks (mean over seeds)"] = sixteen
        if len(mixed):
            out.figures.append(
                Figure(
                    "directions",
                    mixed_figure(mixed),
                    "8 uplinks + 8 downlinks of one algorithm (004 fig. 7's set-up): uplink/downlink "
                    "throughput ratio, the AP buffer's ACK fill and the uplinks' RTT against the AP buffer; "
                    "BBR in black",
                )
            )
        if len(two):
            out.figures.append(
                Figure(
                    "two-uplinks-rtt",
                    two_up_figure(two),
                    "Two uplinks (004 figs. 2-4's set-up): the uplinks' mean smoothed RTT per algorithm (95% "
                    "CI over seeds), the minimum RTT and twice it (BBR's in-flight cap)",
                )
            )
        ns2 = every_run[every_run["bbr_stack"] == "ns2"]
        if len(ns2):
            second = point_table(ns2, ["cc"], ["jain_up", "starved_up", "up_mean_mbps", "timeouts"])
            out.tables["second reading: 16 BBR uplinks on the NS-2 stack (no SACK)"] = second
            out.notes.append(ns2_note(sixteen, second))
        firsts = _first_seed([(p, r) for p, r in results if p["bbr_stack"] == "linux"], SIXTEEN)
        if firsts:
            out.figures.append(
                Figure(
                    "sixteen-uplinks",
                    per_flow_bars(firsts),
                    "16 uplinks (004 figs. 5-6's set-up): the throughput of each flow, first seed",
                )
            )
        out.claims += [
            downlinks_claim(mixed),
            ap_queue_claim(mixed),
            rtt_order_claim(two),
            bbr_queue_bound_claim(two),
            uplink_fairness_claim(sixteen),
        ]
        return out
