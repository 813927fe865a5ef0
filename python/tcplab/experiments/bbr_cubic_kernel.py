"""beyond/bbr-vs-cubic-kernel: Linux's own bbr against Linux's cubic on the kernel test bed, on
the path of beyond/bbr-vs-cubic, beside tcplab's BBR and CUBIC and the model of Ware et al.

beyond/bbr-vs-cubic finds BBR's share below the model's from 1 BDP up, and the simulator alone
cannot tell whether tcplab's BBR or the model is off. Ware et al. validated the model with
Linux's BBR, so the referee is Linux's bbr on the same path: where the kernel misses the model
by what tcplab does, the gap is the model's on this path, not tcplab's.

The bed cannot start flows at random times, so both flows start at 0 on both sides; runs are
shorter than beyond/bbr-vs-cubic's (real time), which the simulated side shows the effect of.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..analysis import WARE_STATED_MEDIAN_ERROR, mean_ci, ware_bbr_share
from ..testbed.conformance import KERNEL_DEFAULTS, kernel_scenario
from . import register
from .base import Claim, Experiment, Figure, Outcome, Results, Run
from .bbr_cubic import BASE_RTT_S, BDP_PACKETS, CAPACITY_PPS, bbr_cubic_scenario, buffer_axis, buffer_packets
from .common import claim, every, figure

BUFFERS_BDP = (1, 2, 4)
QUICK_BUFFERS_BDP = (2,)
SEEDS = (1, 2)
QUICK_SEEDS = (1,)
#: Long enough at 4 BDP for ten PROBE_RTT periods and dozens of gain cycles after convergence.
DURATION, MEASURE_FROM = 150.0, 50.0
QUICK_DURATION, QUICK_MEASURE_FROM = 40.0, 10.0
BACKENDS = ("kernel", "sim")
#: tcplab's share counts as the kernel's when the means differ by at most this (the model's
#: own stated accuracy, so that the comparison is held to the yardstick the model is).
AGREEMENT = WARE_STATED_MEDIAN_ERROR


def scenario(buffer_bdp: float, seed: int, quick: bool):
    """The simulated side's document. Its CUBIC is the kernel's (tcp_cubic.c's arithmetic and
    HyStart, ``conformance.KERNEL_DEFAULTS``), which ``kernel_scenario`` turns back into the
    kernel's own ``cubic`` for the bed."""
    duration, since = (QUICK_DURATION, QUICK_MEASURE_FROM) if quick else (DURATION, MEASURE_FROM)
    sc = bbr_cubic_scenario(buffer_bdp, 1, duration=duration, measure_from=since, seed=seed, start=0.0)
    for f in sc.doc["flows"]:
        if f["cc"] == "cubic":
            f["cc"] = {"name": "cubic", **KERNEL_DEFAULTS["cubic"]}
    return sc


def share_row(params: dict[str, Any], res) -> dict[str, Any]:
    """BBR's share of the goodput over the measured window, the total goodput, and BBR's mean
    RTT (the kernel's from tcp_info, the simulator's from its samples)."""
    f = res.flows
    bbr = f[f["cc"] == "bbr"]
    total = float(f["goodput_bps"].sum())
    rtt = float(bbr["mean_rtt"].iloc[0]) * 1e3 if "mean_rtt" in bbr and len(bbr) else float("nan")
    return {
        **params,
        "bbr_share": float(bbr["goodput_bps"].sum()) / total if total > 0 else float("nan"),
        "total_mbps": total / 1e6,
        "bbr_mean_rtt_ms": rtt,
    }


def point_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per buffer: each back end's mean share (95% half width over seeds), the model's share and
    each back end's difference to it."""
    out = []
    for bdp, g in rows.groupby("buffer_bdp", sort=True):
        row: dict[str, Any] = {
            "buffer_bdp": bdp,
            "model_share": ware_bbr_share(buffer_packets(bdp), CAPACITY_PPS, BASE_RTT_S).bbr_share,
        }
        for b in BACKENDS:
            side = g[g["backend"] == b]
            shares = side["bbr_share"].dropna().to_numpy()  # a run with no goodput has none
            ci = mean_ci(shares) if len(shares) else None
            row[f"{b}_share"] = ci.mean if ci else float("nan")
            row[f"{b}_ci95"] = ci.half_width if ci else float("nan")
            row[f"{b}_minus_model"] = row[f"{b}_share"] - row["model_share"]
            row[f"{b}_total_mbps"] = float(side["total_mbps"].mean()) if len(side) else float("nan")
            row[f"{b}_bbr_rtt_ms"] = float(side["bbr_mean_rtt_ms"].mean()) if len(side) else float("nan")
            row[f"{b}_runs"] = len(side)
        out.append(row)
    return pd.DataFrame(out)


def both(points: pd.DataFrame) -> pd.DataFrame:
    """The buffers with runs on both back ends."""
    return points[(points["kernel_runs"] > 0) & (points["sim_runs"] > 0)]


def agreement_claim(points: pd.DataFrame) -> Claim:
    compared = both(points)
    diff = (compared["sim_share"] - compared["kernel_share"]).abs()
    return claim(
        f"tcplab's BBR takes the share Linux's bbr takes against CUBIC: means within {AGREEMENT:.2f} "
        "at every buffer",
        every(diff <= AGREEMENT) if len(compared) else None,
        ", ".join(
            f"{r.buffer_bdp:g} BDP: kernel {r.kernel_share:.3f}, tcplab {r.sim_share:.3f}"
            for r in compared.itertuples()
        ),
    )


def model_gap_claim(points: pd.DataFrame) -> Claim:
    """Whether the kernel misses the model as tcplab does: then the gap found by
    beyond/bbr-vs-cubic is the model's on this path, not tcplab's."""
    compared = both(points)
    gap = (compared["sim_minus_model"] - compared["kernel_minus_model"]).abs()
    return claim(
        "Where tcplab's BBR misses the model of Ware et al., Linux's bbr misses it as much: "
        f"|tcplab - model| and |kernel - model| within {AGREEMENT:.2f} of each other at every buffer",
        every(gap <= AGREEMENT) if len(compared) else None,
        ", ".join(
            f"{r.buffer_bdp:g} BDP: model {r.model_share:.3f}, kernel {r.kernel_minus_model:+.3f}, "
            f"tcplab {r.sim_minus_model:+.3f}"
            for r in compared.itertuples()
        ),
    )


def kernel_model_claim(points: pd.DataFrame) -> Claim:
    err = points["kernel_minus_model"].abs().dropna()  # buffers without a kernel share
    return claim(
        "Linux's bbr follows the model within its stated accuracy on this path: median |kernel - model| "
        f"<= {WARE_STATED_MEDIAN_ERROR:.2f}",
        bool(err.median() <= WARE_STATED_MEDIAN_ERROR) if len(err) else None,
        f"median {err.median():.3f} over {len(err)} buffers" if len(err) else "",
    )


def share_figure(points: pd.DataFrame):
    def plot(ax):
        x = np.geomspace(min(BUFFERS_BDP) / 2, max(BUFFERS_BDP) * 2, 100)
        model = [ware_bbr_share(b * BDP_PACKETS, CAPACITY_PPS, BASE_RTT_S).bbr_share for b in x]
        ax.plot(x, model, "k-", lw=1.5, label="model (Ware et al., eqs. 9-11)")
        for b, style, color in (("kernel", "o-", "C3"), ("sim", "s--", "C0")):
            ax.errorbar(
                points["buffer_bdp"],
                points[f"{b}_share"],
                yerr=points[f"{b}_ci95"].fillna(0),
                fmt=style,
                capsize=2,
                color=color,
                label="Linux bbr vs cubic (test bed)" if b == "kernel" else "tcplab BBR vs CUBIC",
            )
        ax.axhline(0.5, color="grey", lw=0.6, ls=":")
        buffer_axis(ax, BUFFERS_BDP)
        ax.set_ylim(0, 1.02)

    return figure(plot, "buffer (bandwidth-delay products)", "BBR's share of the link")


@register
class BbrVsCubicKernel(Experiment):
    name = "beyond/bbr-vs-cubic-kernel"
    paper = "beyond"
    title = "Linux's bbr against cubic on the test bed, beside tcplab and the model of Ware et al."
    setup = (
        "beyond/bbr-vs-cubic's path (10 Mb/s, 40 ms base RTT, 1500-byte packets, linux stack) with one BBR "
        "and one CUBIC flow starting together (the bed cannot start flows at random times), drop-tail "
        "buffers of 1, 2 and 4 BDP (quick: 2), 150 s runs measured from 50 s (quick: 40 s from 10 s), "
        "2 seeds (quick: 1). Kernel side: the test bed with the kernel's own bbr and cubic; simulated side: "
        'the same scenario, its CUBIC as Linux\'s (variant = "linux", HyStart). The model is eq. 10 at '
        "each buffer."
    )
    needs = ("cc:bbr", "testbed:kernel")
    kernel_time = "about 16 min of real time (quick: one 40 s run)"

    def runs(self, quick: bool) -> list[Run]:
        out = []
        for bdp in QUICK_BUFFERS_BDP if quick else BUFFERS_BDP:
            for seed in QUICK_SEEDS if quick else SEEDS:
                sim = scenario(bdp, seed, quick)
                params = {"buffer_bdp": bdp, "seed": seed}
                out.append(Run({**params, "backend": "sim"}, sim))
                out.append(Run({**params, "backend": "kernel"}, kernel_scenario(sim), "kernel-native"))
        return out

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        rows = pd.DataFrame([share_row(params, res) for params, res in results])
        if rows.empty:
            out.notes.append("No run is stored: nothing to compare.")
            return out
        points = point_table(rows)
        out.tables["BBR's share against one CUBIC flow: test bed, tcplab, model"] = points
        out.tables["per run"] = rows
        out.figures.append(
            Figure(
                "share",
                share_figure(points),
                "BBR's share against one CUBIC flow: Linux's bbr on the test bed, tcplab, and the model",
            )
        )
        out.claims += [agreement_claim(points), model_gap_claim(points), kernel_model_claim(points)]
        return out
