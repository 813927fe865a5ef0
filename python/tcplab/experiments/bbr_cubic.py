"""beyond/bbr-vs-cubic: one BBR flow against 1, 2, 4 and 8 CUBIC flows over drop-tail buffers
of 1/4 to 16 bandwidth-delay products, beside the model of Ware et al. (IMC 2019,
:mod:`tcplab.analysis.bbr_model`).

Not a paper's experiment: the papers ask whether a delay-aware algorithm can live beside
loss-based ones, and BBR is today's form of that question. The path is the one Ware et al.
validated their model on: 10 Mb/s, 40 ms base RTT, 1500-byte packets (the ``linux`` stack:
1448-byte segments, SACK, delayed ACKs), one sender/receiver pair per flow. The model
predicts BBR's share from the buffer alone, whatever the number of CUBIC flows; where ours
differs the analysis shows which of the model's inputs (BBR's RTT estimate, eq. 7; its time in
PROBE_RTT, eq. 11; its being window-limited) our runs contradict.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..analysis import WARE_STATED_MEDIAN_ERROR, mean_ci, ware_bbr_share, ware_rtt_estimate_s
from ..result import Result
from ..scenario import Scenario
from . import register
from .base import Claim, Experiment, Figure, Outcome, Published, Results, Run
from .common import claim, comparison, every, figure, plt

RATE_BPS = 10e6
WIRE_BYTES = 1500
BASE_RTT_S = 0.040
#: One way: 1 ms access + 18 ms bottleneck + 1 ms access = 20 ms.
BOTTLENECK_DELAY_S = 0.018
ACCESS = {"rate": "1Gbps", "delay": "1ms", "buffer": 1000}
CAPACITY_PPS = RATE_BPS / (8 * WIRE_BYTES)
BDP_PACKETS = CAPACITY_PPS * BASE_RTT_S
BUFFERS_BDP = (0.25, 0.5, 1, 2, 4, 8, 16)
QUICK_BUFFERS_BDP = (0.5, 2, 8)
CUBIC_FLOWS = (1, 2, 4, 8)
QUICK_CUBIC_FLOWS = (1, 4)
SEEDS = (1, 2, 3, 4, 5)
QUICK_SEEDS = (1,)
#: Convergence takes up to about two minutes at 16 BDP (BBR's gain cycle lasts 8 RTTs of up to
#: 0.7 s there), so the full runs measure from 200 s on.
DURATION, MEASURE_FROM = 600.0, 200.0
QUICK_DURATION, QUICK_MEASURE_FROM = 120.0, 60.0
START = {"uniform": [0.0, 1.0]}
#: BBR counts as window-limited in a sample where its data in flight is within this many
#: segments of its cwnd (the linux stack's pacing quantum).
WINDOW_SLACK = 2
#: BBR's mode variable in PROBE_RTT (docs/scenario.md).
PROBE_RTT_MODE = 3
#: The buffers of Ware et al.'s validation figures: 1 to 64 BDP.
VALIDATED_FROM_BDP = 1.0


def buffer_packets(buffer_bdp: float) -> int:
    """The drop-tail buffer of ``buffer_bdp`` bandwidth-delay products, whole packets."""
    return max(1, round(buffer_bdp * BDP_PACKETS))


def bbr_cubic_scenario(
    buffer_bdp: float,
    cubic_flows: int,
    *,
    duration: float,
    measure_from: float,
    seed: int,
    start: float | dict[str, Any] = START,
) -> Scenario:
    """BBR (``s0 -> d0``, named ``bbr``) and ``cubic_flows`` CUBIC flows (``cubic<i>``) on
    the dumbbell, each starting at ``start`` (by default a random time in the first second)."""
    sc = Scenario.dumbbell(
        pairs=1 + cubic_flows,
        bottleneck={"rate": RATE_BPS, "delay": BOTTLENECK_DELAY_S, "buffer": buffer_packets(buffer_bdp)},
        access=ACCESS,
        duration=duration,
        seed=seed,
        measure=[measure_from, duration],
        sample_interval=0.5,
    )
    sc.set_tcp(stack="linux")
    sc.add_flow("s0", "d0", cc="bbr", name="bbr", start=start)
    for i in range(cubic_flows):
        sc.add_flow(f"s{i + 1}", f"d{i + 1}", cc="cubic", name=f"cubic{i}", start=start)
    return sc


# -- one run -> numbers ------------------------------------------------------------------------


def bbr_var(res: Result, name: str, since: float) -> pd.Series:
    """BBR's (flow 0's) algorithm variable ``name`` from ``since`` on."""
    v = res.cc_vars
    return v.loc[(v["flow"] == 0) & (v["name"] == name) & (v["time"] >= since), "value"]


def run_row(params: dict[str, Any], res: Result) -> dict[str, Any]:
    """BBR's share of what was delivered over the measured window, and the model's inputs as
    BBR saw them: its RTT estimate (median of min_rtt), its time in PROBE_RTT, how often it was
    window-limited, its bandwidth estimate over its delivery rate; the queue's fill."""
    since = float(res.meta["measure"][0])
    f = res.flows
    bbr = f[f["cc"] == "bbr"]
    total = float(f["goodput_bps"].sum())
    share = float(bbr["goodput_bps"].sum()) / total if total > 0 else float("nan")
    s = res.series[(res.series["flow"] == 0) & (res.series["time"] >= since)]
    link = res.links[res.links["name"] == "r0->r1"].iloc[0]
    q = buffer_packets(params["buffer_bdp"])
    mode = bbr_var(res, "mode", since)
    delivered_Bps = float(bbr["goodput_bps"].sum()) / 8
    return {
        **params,
        "bbr_share": share,
        "utilisation": float(link["utilization"]),
        "queue_fill": float(link["mean_queue"]) / q,
        "bbr_min_rtt_ms": float(bbr_var(res, "min_rtt", since).median()) * 1e3,
        "eq7_at_our_share_ms": ware_rtt_estimate_s(min(1.0, max(0.0, 1 - share)), q, CAPACITY_PPS, BASE_RTT_S)
        * 1e3
        if np.isfinite(share)
        else float("nan"),
        "probe_rtt_share": float((mode == PROBE_RTT_MODE).mean()) if len(mode) else float("nan"),
        "window_limited_share": float((s["in_flight"] >= s["cwnd"] - WINDOW_SLACK).mean())
        if len(s)
        else float("nan"),
        "bw_over_delivery": float(bbr_var(res, "bw", since).mean()) / delivered_Bps
        if delivered_Bps > 0
        else float("nan"),
    }


#: Per-run diagnostics averaged per point (beside the share's mean and interval).
DIAGNOSTICS = (
    "utilisation",
    "queue_fill",
    "bbr_min_rtt_ms",
    "eq7_at_our_share_ms",
    "probe_rtt_share",
    "window_limited_share",
    "bw_over_delivery",
)


def point_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per buffer and number of CUBIC flows: BBR's mean share with its 95% half width over
    seeds, the model's share (eq. 10), ours minus the model's, the model's RTT estimate and
    PROBE_RTT time (eqs. 7, 11) and the mean of each diagnostic."""
    rows = []
    for (bdp, n), g in runs.groupby(["buffer_bdp", "cubic_flows"], sort=True):
        ci = mean_ci(g["bbr_share"].to_numpy())
        m = ware_bbr_share(buffer_packets(bdp), CAPACITY_PPS, BASE_RTT_S)
        rows.append(
            {
                "buffer_bdp": bdp,
                "cubic_flows": n,
                "bbr_share": ci.mean,
                "ci95": ci.half_width,
                "model_share": m.bbr_share,
                "ours_minus_model": ci.mean - m.bbr_share,
                "runs": ci.n,
                "eq7_ms": m.rtt_estimate_s * 1e3,
                "eq11_probe_share": m.probe_rtt_share,
                **{d: float(g[d].mean()) for d in DIAGNOSTICS},
            }
        )
    return pd.DataFrame(rows)


# -- claims -------------------------------------------------------------------------------------


def _fmt_point(r: Any) -> str:
    return f"{r.buffer_bdp:g} BDP x {int(r.cubic_flows)} CUBIC"


def validated(points: pd.DataFrame) -> pd.DataFrame:
    """The points in the range of buffers the model was validated on."""
    return points[points["buffer_bdp"] >= VALIDATED_FROM_BDP]


def median_model_error(points: pd.DataFrame) -> float:
    """Median |ours - model| over the points the model was validated on (NaN for none)."""
    err = validated(points)["ours_minus_model"].abs()
    return float(err.median()) if len(err) else float("nan")


def model_claim(points: pd.DataFrame) -> Claim:
    """BBR's share within the model's stated accuracy, as the median absolute difference over
    the points in the range the model was validated on. Where it fails the detail names the
    points beyond the accuracy and what BBR measured there against the model's inputs."""
    text = (
        "BBR's share follows the model of Ware et al. within its stated accuracy: median |ours - model| "
        f"<= {WARE_STATED_MEDIAN_ERROR:.2f} of the link over the buffers of "
        f"{VALIDATED_FROM_BDP:g} BDP and more (the range the model was validated on)"
    )
    inside = validated(points)
    if inside.empty:
        return claim(text, None)
    err = inside["ours_minus_model"].abs()
    median = median_model_error(points)
    holds = median <= WARE_STATED_MEDIAN_ERROR
    worst = inside.loc[err.idxmax()]
    detail = (
        f"median |ours - model| {median:.3f} over {len(inside)} points; largest at "
        f"{_fmt_point(worst)}: ours {worst['bbr_share']:.3f}, model {worst['model_share']:.3f}"
    )
    if not holds:
        detail += (
            "; "
            + model_gap_reason(inside[err > WARE_STATED_MEDIAN_ERROR])
            + "; beyond/bbr-vs-cubic-kernel puts Linux's own bbr beside the model on this path"
        )
    return claim(text, holds, detail)


def model_gap_reason(off: pd.DataFrame) -> str:
    """Where the model misses and what our runs show about its inputs there (measured, not
    fitted): BBR's RTT estimate against eq. 7 at our share, its PROBE_RTT time against eq. 11,
    how often it was window-limited (the model's premise)."""
    below = off[off["ours_minus_model"] < 0]
    rtt_low = off["bbr_min_rtt_ms"] < off["eq7_at_our_share_ms"]
    where = ", ".join(f"{r.buffer_bdp:g}" for r in off.drop_duplicates("buffer_bdp").itertuples())
    return (
        f"beyond it at {len(off)} points (buffers {where} BDP), BBR below the model at {len(below)}; "
        f"there BBR's RTT estimate (median min_rtt) is {off['bbr_min_rtt_ms'].mean():.0f} ms against "
        f"{off['eq7_at_our_share_ms'].mean():.0f} ms by eq. 7 at our share (lower at {int(rtt_low.sum())} "
        f"of {len(off)} points: when BBR takes its minimum the queue holds less than the CUBIC flows' "
        f"share of a full buffer; its mean fill is {off['queue_fill'].mean():.2f}), so its in-flight cap "
        "is smaller than the model's; it is "
        f"window-limited in {off['window_limited_share'].mean():.0%} of the samples (the model assumes "
        f"always); its time in PROBE_RTT, {off['probe_rtt_share'].mean():.3f}, is close to eq. 11's "
        f"{off['eq11_probe_share'].mean():.3f}"
    )


def independence_claim(points: pd.DataFrame) -> Claim:
    """At each buffer the shares against 1-8 CUBIC flows lie within the model's accuracy of
    each other: the model has no term for the number of loss-based flows."""
    text = (
        "BBR's share does not depend on the number of CUBIC flows: at each buffer the mean shares "
        f"against {', '.join(str(n) for n in sorted(points['cubic_flows'].unique()))} CUBIC flows lie "
        f"within {WARE_STATED_MEDIAN_ERROR:.2f} of each other (the model's accuracy)"
    )
    spread = points.groupby("buffer_bdp")["bbr_share"].agg(lambda s: s.max() - s.min())
    if points["cubic_flows"].nunique() < 2:
        return claim(text, None)
    ok = spread <= WARE_STATED_MEDIAN_ERROR
    detail = "spread of BBR's share by buffer: " + ", ".join(f"{b:g} BDP {v:.3f}" for b, v in spread.items())
    if not every(ok):
        fails = points[points["buffer_bdp"].isin(spread[~ok].index)]
        lim = fails.groupby("buffer_bdp")["window_limited_share"].mean()
        detail += (
            "; beyond it at "
            + ", ".join(f"{b:g}" for b in spread[~ok].index)
            + " BDP, where BBR is window-limited in only "
            + ", ".join(f"{v:.0%}" for v in lim)
            + " of the samples: the model's premise, a cap that always binds, holds there part of the "
            "time, and more CUBIC flows take more"
        )
    return claim(text, every(ok), detail)


def falling_claim(points: pd.DataFrame) -> Claim:
    """For every number of CUBIC flows, no larger buffer gives BBR a larger share than a
    smaller one beyond their confidence intervals, and the largest buffer gives less than the
    smallest (the model's share never grows with the buffer)."""
    text = "BBR's share falls as the buffer grows, for every number of CUBIC flows (as in the model)"
    verdicts, parts = [], []
    for n, g in points.groupby("cubic_flows"):
        g = g.sort_values("buffer_bdp")
        share, ci = g["bbr_share"].to_numpy(), g["ci95"].fillna(0).to_numpy()
        if len(g) < 2:
            continue
        rises = share[1:] > share[:-1] + ci[1:] + ci[:-1]
        verdicts.append(not rises.any() and share[-1] < share[0])
        parts.append(f"{n} CUBIC: {share[0]:.2f} -> {share[-1]:.2f}" + (" (rises)" if rises.any() else ""))
    return claim(text, every(verdicts), "; ".join(parts))


def shallow_claim(points: pd.DataFrame) -> Claim:
    """Below one BDP BBR takes most of the link against any number of CUBIC flows: there the
    model's cap exceeds the pipe and the buffer together (p = 0)."""
    shallow = points[points["buffer_bdp"] < VALIDATED_FROM_BDP]
    text = "Below 1 BDP BBR takes most of the link (share > 1/2) against any number of CUBIC flows"
    return claim(
        text,
        every(shallow["bbr_share"] > 0.5),
        ", ".join(f"{_fmt_point(r)}: {r.bbr_share:.2f}" for r in shallow.itertuples()),
    )


# -- figures ------------------------------------------------------------------------------------


def buffer_axis(ax, buffers) -> None:
    """A log2 axis of buffer sizes, labelled with the sizes themselves."""
    ax.set_xscale("log", base=2)
    ax.set_xticks([float(b) for b in buffers], [f"{b:g}" for b in buffers])
    ax.minorticks_off()


def _model_curve() -> tuple[np.ndarray, np.ndarray]:
    x = np.geomspace(min(BUFFERS_BDP), max(BUFFERS_BDP), 200)
    return x, np.array([ware_bbr_share(b * BDP_PACKETS, CAPACITY_PPS, BASE_RTT_S).bbr_share for b in x])


def share_figure(points: pd.DataFrame):
    def plot(ax):
        x, y = _model_curve()
        ax.plot(x, y, "k-", lw=1.5, label="model (Ware et al., eqs. 9-11)")
        for k, (n, g) in enumerate(points.groupby("cubic_flows")):
            ax.errorbar(
                g["buffer_bdp"] * (1 + 0.04 * (k - 1.5)),  # spread the markers apart
                g["bbr_share"],
                yerr=g["ci95"].fillna(0),
                fmt="o-",
                ms=4,
                capsize=2,
                color=f"C{k}",
                label=f"tcplab: 1 BBR vs {n} CUBIC",
            )
        ax.axhline(0.5, color="grey", lw=0.6, ls=":")
        buffer_axis(ax, BUFFERS_BDP)
        ax.set_ylim(0, 1.02)

    return figure(plot, "buffer (bandwidth-delay products)", "BBR's share of the link")


def inputs_figure(points: pd.DataFrame):
    """The model's inputs as BBR saw them (1 CUBIC flow): RTT estimate against eq. 7, time in
    PROBE_RTT against eq. 11, and how often BBR was window-limited."""
    one = points[points["cubic_flows"] == points["cubic_flows"].min()].sort_values("buffer_bdp")
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(12, 3.6))
    a.plot(one["buffer_bdp"], one["bbr_min_rtt_ms"], "o-", label="BBR's min_rtt (median)")
    a.plot(one["buffer_bdp"], one["eq7_ms"], "k--", label="eq. 7 at the model's share")
    a.plot(one["buffer_bdp"], one["eq7_at_our_share_ms"], "k:", label="eq. 7 at our share")
    a.set_ylabel("RTT estimate (ms)")
    b.plot(one["buffer_bdp"], one["probe_rtt_share"], "o-", label="tcplab")
    b.plot(one["buffer_bdp"], one["eq11_probe_share"], "k--", label="eq. 11")
    b.set_ylabel("share of time in PROBE_RTT")
    c.plot(one["buffer_bdp"], one["window_limited_share"], "o-", label="in flight >= cwnd - 2")
    c.plot(one["buffer_bdp"], one["queue_fill"], "s-", label="bottleneck queue fill (mean)")
    c.set_ylim(0, 1.02)
    c.set_ylabel("share")
    for ax in (a, b, c):
        buffer_axis(ax, one["buffer_bdp"])
        ax.set_xlabel("buffer (BDP)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def convergence_figure(results: Results):
    """BBR's share in 10-s bins over one run per buffer (1 CUBIC flow, the first seed)."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    picked = [(p, r) for p, r in results if p["cubic_flows"] == min(q["cubic_flows"] for q, _ in results)]
    first = min(p["seed"] for p, _ in picked)
    for k, (p, res) in enumerate(
        sorted((x for x in picked if x[0]["seed"] == first), key=lambda x: x[0]["buffer_bdp"])
    ):
        s = res.series.pivot_table(index="time", columns="flow", values="bytes_delivered")
        binned = s[np.isclose(np.mod(s.index, 10.0), 0.0)].diff().dropna()
        ax.plot(
            binned.index,
            binned[0] / binned.sum(axis=1),
            color=f"C{k}",
            lw=1,
            label=f"{p['buffer_bdp']:g} BDP",
        )
    ax.axvline(float(results[0][1].meta["measure"][0]), color="grey", ls=":", lw=0.8)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("BBR's share in 10-s bins")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


@register
class BbrVsCubic(Experiment):
    name = "beyond/bbr-vs-cubic"
    paper = "beyond"
    title = "One BBR flow against 1-8 CUBIC flows over 1/4 to 16 BDP buffers, beside Ware et al.'s model"
    setup = (
        "Dumbbell, one pair per flow: bottleneck 10 Mb/s, 18 ms one way, drop-tail buffer of 0.25, 0.5, 1, "
        "2, 4, 8 and 16 BDP (BDP 33.3 packets of 1500 bytes at 40 ms), access links 1 Gb/s, 1 ms: base RTT "
        "40 ms (Ware et al.'s 10 Mb/s x 40 ms path). One BBR flow against 1, 2, 4 and 8 CUBIC flows, linux "
        "stack (1448-byte segments, SACK, delayed ACKs), every flow starting at a random time in [0, 1] s; "
        "600 s, BBR's share of the delivered bytes over 200-600 s; 5 seeds, mean and 95% CI. The model "
        "(IMC 2019, section 4, eqs. 7-11) is computed for the same buffer in packets. Quick: buffers 0.5, "
        "2 and 8 BDP against 1 and 4 CUBIC flows, one seed, 120 s measured over 60-120 s."
    )
    needs = ("cc:bbr", "cc:cubic")
    published = (
        Published(
            "median |BBR's share - model| against CUBIC, buffers of 1 BDP and more",
            WARE_STATED_MEDIAN_ERROR,
            "of the link",
            "Ware et al. (IMC 2019), the model's stated accuracy",
        ),
    )

    def runs(self, quick: bool) -> list[Run]:
        buffers, counts, seeds = (
            (QUICK_BUFFERS_BDP, QUICK_CUBIC_FLOWS, QUICK_SEEDS)
            if quick
            else (BUFFERS_BDP, CUBIC_FLOWS, SEEDS)
        )
        duration, since = (QUICK_DURATION, QUICK_MEASURE_FROM) if quick else (DURATION, MEASURE_FROM)
        return [
            Run(
                {"buffer_bdp": b, "cubic_flows": n, "seed": s},
                bbr_cubic_scenario(b, n, duration=duration, measure_from=since, seed=s),
            )
            for b in buffers
            for n in counts
            for s in seeds
        ]

    def analyze(self, results: Results, quick: bool) -> Outcome:
        out = Outcome(self)
        runs = pd.DataFrame([run_row(p, r) for p, r in results])
        points = point_table(runs)
        out.comparison = comparison([(self.published[0], median_model_error(points))])
        out.tables["BBR's share by buffer and CUBIC flows, beside the model (mean over seeds, 95% CI)"] = (
            points
        )
        out.figures += [
            Figure(
                "share",
                share_figure(points),
                "BBR's share of the link against the buffer, 1 BBR vs 1-8 CUBIC flows (mean and 95% CI over "
                "seeds), and Ware et al.'s model (eqs. 9-11), which does not depend on the number of CUBIC "
                "flows",
            ),
            Figure(
                "model-inputs",
                inputs_figure(points),
                "The model's inputs as BBR measured them against one CUBIC flow: its RTT estimate against "
                "eq. 7, its time in PROBE_RTT against eq. 11, how often it was window-limited and the "
                "queue's mean fill",
            ),
            Figure(
                "convergence",
                convergence_figure(results),
                "BBR's share over time against one CUBIC flow, one run per buffer; the dotted line is where "
                "the measurement starts",
            ),
        ]
        out.claims += [
            model_claim(points),
            independence_claim(points),
            falling_claim(points),
            shallow_claim(points),
        ]
        out.notes.append(
            "Model: p = max(0, 1/2 - 1/(2X) - 4N/q) (eq. 9), BBR's share "
            "(1 - p)(1 - (q/c + 0.2 s + l) / 10 s) (eqs. 10-11), N = 1 BBR flow, q the buffer in packets, "
            "c = 833 packets/s, l = 40 ms. Its stated accuracy, a median error of 5 % against CUBIC, is read "
            "here as 0.05 of the link (a relative reading would be stricter)."
        )
        return out
