"""Fu & Liew, "TCP Veno: TCP enhancement for transmission over wireless access networks"
(IEEE JSAC 21(2), 2003): Reno against Veno under random loss, Veno's loss classification,
and Reno/Veno coexistence.

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

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..analysis.stats import mean_ci
from ..analysis.tcp_models import pftk_throughput_bps
from ..result import Result
from ..scenario import Scenario
from . import register
from .ablation import stack_ablations, veno_basertt_ablation
from .base import Experiment, Figure, Outcome, Published, Run
from .common import claim, comparison, every, figure, flows_frame, plt

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
CCS = ("reno", "veno")
LABEL = {"reno": "Reno", "veno": "Veno"}
COLOR = {"reno": "C0", "veno": "C3"}


def _src(what: str) -> str:
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


# -- measurements ---------------------------------------------------------------------------


def transfer_kBps(row: pd.Series, file_bytes: int, duration: float) -> tuple[float, bool]:
    """A file transfer's throughput: file / transfer time (001 section III-B) if it
    completed, else the bytes delivered / the run's duration; and whether it completed."""
    ct = row["completion_time"]
    if ct is not None and np.isfinite(ct) and ct > 0:
        return file_bytes / ct / KB, True
    return float(row["bytes_delivered"]) / duration / KB, False


def sending_rate(res: Result, flow: int, bin_s: float, duration: float) -> tuple[np.ndarray, np.ndarray]:
    """Payload bytes the sender put on the wire (retransmissions included) per bin / bin,
    kB/s, from the event log; returns (bin starts, rates)."""
    ev = res.events
    edges = np.arange(0.0, duration + bin_s / 2, bin_s)
    if ev is None or not len(ev):
        return edges[:-1], np.zeros(len(edges) - 1)
    sent = ev[(ev["event"] == "send") & (ev["kind"] == "data") & (ev["flow"] == flow)]
    counts, _ = np.histogram(sent["time"].to_numpy(), bins=edges)
    return edges[:-1], counts * MSS / bin_s / KB


def delivered_curve(res: Result, flow: int) -> tuple[np.ndarray, np.ndarray]:
    """(time, bytes delivered in order to the receiver) of one flow, starting at (0, 0)."""
    s = res.series[res.series["flow"] == flow]
    t = np.concatenate([[0.0], s["time"].to_numpy()])
    b = np.concatenate([[0.0], s["bytes_delivered"].to_numpy(dtype=float)])
    return t, b


def delivered_at(res: Result, flow: int, at: float) -> float:
    t, b = delivered_curve(res, flow)
    return float(np.interp(at, t, b))


def _ci_text(values: np.ndarray) -> str:
    if len(values) < 2:
        return f"{values.mean():.1f} (1 run)"
    ci = mean_ci(values)
    return f"{ci.mean:.1f} +- {ci.half_width:.1f}"


def _loss_label(p: float) -> str:
    return f"{p:.0e}".replace("e-0", "e-")


# -- fig. 4 ---------------------------------------------------------------------------------

FIG4_LOSSES = (1e-4, 1e-3, 1e-2, 1e-1)
FIG4_DURATION = 150.0
FIG4_QUICK_DURATION = 60.0
BIN = 0.16


@register
class Fig4(Experiment):
    name = "veno/fig4"
    paper = "veno"
    title = "Sending rate of one Reno or Veno flow under random loss 1e-4 .. 1e-1"
    setup = (
        "Fig. 3(a) test bed as a dumbbell: bottleneck 1.6 Mb/s both ways, 12-packet DropTail buffers both "
        "ways, round-trip propagation 120 ms (access 100 Mb/s, 1 ms; bottleneck 58 ms one way); MSS 1460 B; "
        "one bulk flow, Reno or Veno (beta = 3, N from the smoothed RTT); Bernoulli loss per data packet on "
        "the bottleneck at 1e-4, 1e-3, 1e-2, 1e-1; 150 s (60 s in quick mode); one trace per point, as the "
        "paper. Sending rate = payload bytes the sender transmits (retransmissions included) in 160 ms bins "
        "/ 160 ms, counted from the event log. Project TCP defaults: no delayed ACKs, min RTO 200 ms."
    )
    needs = ("cc:veno",)

    def runs(self, quick: bool) -> list[Run]:
        d = FIG4_QUICK_DURATION if quick else FIG4_DURATION
        return [
            Run(
                {"cc": cc, "loss": p, "duration": d},
                router_scenario([cc], p, duration=d, event_log=True, sample_interval=BIN),
            )
            for p in FIG4_LOSSES
            for cc in CCS
        ]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        rates: dict[tuple[str, float], tuple[np.ndarray, np.ndarray]] = {}
        rows = []
        for params, res in results:
            cc, p, d = params["cc"], params["loss"], params["duration"]
            t, r = sending_rate(res, 0, BIN, d)
            rates[(cc, p)] = (t, r)
            f = res.flows.iloc[0]
            rows.append(
                {
                    "loss": p,
                    "cc": cc,
                    "mean sending rate (kB/s)": float(r.mean()),
                    "goodput (kB/s)": float(f["goodput_bps"]) / 8 / KB,
                    "fast retransmits": int(f["fast_retransmits"]),
                    "timeouts": int(f["timeouts"]),
                    "bins with nothing sent (%)": float((r == 0).mean() * 100),
                }
            )
        table = pd.DataFrame(rows).sort_values(["loss", "cc"]).reset_index(drop=True)
        out.tables["mean sending rate over the run"] = table

        losses = sorted({p for _, p in rates})
        fig, axes = plt.subplots(
            len(losses), 2, figsize=(10, 2.0 * len(losses) + 0.6), sharex=True, sharey=True
        )
        axes = np.atleast_2d(axes)
        for i, p in enumerate(losses):
            for j, cc in enumerate(("veno", "reno")):
                ax = axes[i, j]
                if (cc, p) in rates:
                    t, r = rates[(cc, p)]
                    ax.plot(t, r, lw=0.6, color=COLOR[cc])
                ax.set_title(f"{LABEL[cc]}, loss {_loss_label(p)}", fontsize=9)
                ax.grid(True, alpha=0.3)
                if j == 0:
                    ax.set_ylabel("kB/s")
        for ax in axes[-1]:
            ax.set_xlabel("time (s)")
        fig.tight_layout()
        out.figures.append(
            Figure(
                "sending-rate",
                fig,
                "Sending rate (data sent per 160 ms / 160 ms) of a lone Veno (left, cf. 001 fig. 4(a)) and "
                "Reno (right, fig. 4(b)) flow for random loss 1e-4 .. 1e-1",
            )
        )

        mean = {(r["cc"], r["loss"]): r["mean sending rate (kB/s)"] for r in rows}

        def ratio(p: float) -> float:
            return mean[("veno", p)] / mean[("reno", p)]

        low = [p for p in losses if p <= 1e-3]
        out.claims.append(
            claim(
                "At loss <= 1e-3 Veno and Reno evolve similarly (mean sending rates within 10%)",
                every(abs(ratio(p) - 1) <= 0.10 for p in low),
                ", ".join(f"{_loss_label(p)}: Veno/Reno = {ratio(p):.2f}" for p in low),
            )
        )
        out.claims.append(
            claim(
                "Near 1e-2 Veno sends markedly faster than Reno (more than 20% higher mean sending rate)",
                ratio(1e-2) > 1.2,
                f"Veno {mean[('veno', 1e-2)]:.1f} vs Reno {mean[('reno', 1e-2)]:.1f} kB/s "
                f"(x{ratio(1e-2):.2f})",
            )
        )
        out.claims.append(
            claim(
                "Both degrade badly at 1e-1 (mean sending rate below a third of that at 1e-4)",
                every(mean[(cc, 1e-1)] < mean[(cc, 1e-4)] / 3 for cc in CCS),
                ", ".join(f"{LABEL[cc]} {mean[(cc, 1e-4)]:.0f} -> {mean[(cc, 1e-1)]:.0f} kB/s" for cc in CCS),
            )
        )
        out.notes.append(
            "The paper's fig. 4 is a 3-D surface (rate x time x loss); we draw one panel per loss rate. "
            "Each panel is a single trace, so the sending-rate claims are checked on one run; veno/fig5 "
            "repeats the comparison over several seeds."
        )
        return out


# -- fig. 5 ---------------------------------------------------------------------------------

FIG5_LOSSES = (1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 1e-1)
FIG5_QUICK_LOSSES = (1e-4, 1e-3, 1e-2, 1e-1)
FIG5_SEEDS = 5
FIG5_QUICK_SEEDS = 2
FIG5_DURATION = 3000.0
FIG5_QUICK_DURATION = 1500.0
#: TCP options of the variants at 1e-2 beside the project's defaults.
STACK_VARIANTS: dict[str, dict[str, Any]] = {
    "project defaults (min RTO 0.2 s, ACK every segment)": {},
    "min RTO 1 s": {"min_rto": 1.0},
    "min RTO 1 s + delayed ACKs": {"min_rto": 1.0, "delayed_ack": True},
}
DEFAULT_VARIANT = next(iter(STACK_VARIANTS))


@register
class Fig5(Experiment):
    name = "veno/fig5"
    paper = "veno"
    title = "Throughput of a 32 MB transfer against the random loss rate, Reno vs Veno"
    ablations = stack_ablations("old-stack", "delayed-ack")
    setup = (
        "As veno/fig4 (1.6 Mb/s, buffer 12 both ways, 120 ms, MSS 1460 B), one flow transferring a 32 MB "
        "(32 x 10^6 B) file; Bernoulli data loss 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 1e-1 "
        "(quick: 1e-4, 1e-3, 1e-2, 1e-1); 5 seeds per point (quick: 2); throughput = 32 MB / transfer time "
        "in kB/s (1000 B/s). Runs are capped at 3000 s (quick: 1500 s); a transfer that has not completed "
        "by then counts as bytes delivered / cap (flagged in the table). Project TCP defaults (no delayed "
        "ACKs, min RTO 200 ms, 1 ms clock); extra table at 1e-2: the same with min RTO 1 s, and with min "
        "RTO 1 s and delayed ACKs (2003-era BSD sender timers, Linux receivers)."
    )
    needs = ("cc:veno",)
    published = (
        Published("Veno throughput at loss 1e-2", 146.5, "kB/s", _src("section III-B, fig. 5")),
        Published("Reno throughput at loss 1e-2", 81.9, "kB/s", _src("section III-B, fig. 5")),
        Published("Veno / Reno at loss 1e-2", 146.5 / 81.9, "ratio", _src("section III-B (+80%)")),
    )

    def runs(self, quick: bool) -> list[Run]:
        losses = FIG5_QUICK_LOSSES if quick else FIG5_LOSSES
        seeds = range(1, 1 + (FIG5_QUICK_SEEDS if quick else FIG5_SEEDS))
        d = FIG5_QUICK_DURATION if quick else FIG5_DURATION
        out = []
        for variant, tcp in STACK_VARIANTS.items():
            for p in losses if variant == DEFAULT_VARIANT else (1e-2,):
                for seed in seeds:
                    for cc in CCS:
                        sc = router_scenario(
                            [cc], p, duration=d, file_bytes=FILE_32MB, seed=seed, sample_interval=1.0, tcp=tcp
                        )
                        out.append(
                            Run({"cc": cc, "loss": p, "seed": seed, "variant": variant, "duration": d}, sc)
                        )
        return out

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        rows = []
        for params, res in results:
            f = res.flows.iloc[0]
            thr, done = transfer_kBps(f, FILE_32MB, params["duration"])
            rows.append(
                {
                    **{k: params[k] for k in ("variant", "loss", "cc", "seed")},
                    "throughput_kBps": thr,
                    "completed": done,
                    "timeouts": int(f["timeouts"]),
                    "fast_retransmits": int(f["fast_retransmits"]),
                    "retransmitted_packets": int(f["retransmissions"]),
                    "mean_rtt_ms": float(f["mean_rtt"]) * 1e3,
                }
            )
        df = pd.DataFrame(rows)
        base = df[df["variant"] == DEFAULT_VARIANT]

        summary = []
        for (p, cc), g in base.groupby(["loss", "cc"]):
            summary.append(
                {
                    "loss": p,
                    "cc": cc,
                    "throughput (kB/s)": g["throughput_kBps"].mean(),
                    "ci95": mean_ci(g["throughput_kBps"]).half_width if len(g) > 1 else np.nan,
                    "runs": len(g),
                    "not completed": int((~g["completed"]).sum()),
                    "timeouts": g["timeouts"].mean(),
                    "fast retransmits": g["fast_retransmits"].mean(),
                    "retransmitted packets": g["retransmitted_packets"].mean(),
                    "mean RTT (ms)": g["mean_rtt_ms"].mean(),
                }
            )
        table = pd.DataFrame(summary)
        out.tables["throughput and retransmission counters per 32 MB transfer (means over seeds)"] = table

        ratios = _paired_ratios(base)
        out.tables["Veno / Reno throughput (per-seed ratio, mean and 95% CI)"] = ratios

        var_rows = []
        for (variant, cc), g in df[df["loss"] == 1e-2].groupby(["variant", "cc"], sort=False):
            var_rows.append(
                {
                    "variant": variant,
                    "cc": cc,
                    "throughput (kB/s)": g["throughput_kBps"].mean(),
                    "ci95": mean_ci(g["throughput_kBps"]).half_width if len(g) > 1 else np.nan,
                    "timeouts": g["timeouts"].mean(),
                    "runs": len(g),
                }
            )
        variants = pd.DataFrame(var_rows)
        order = {v: i for i, v in enumerate(STACK_VARIANTS)}
        variants = variants.sort_values(
            ["variant", "cc"], key=lambda s: s.map(order) if s.name == "variant" else s
        )
        out.tables["at loss 1e-2: the project's TCP defaults against 2003-era timer/ACK settings"] = variants

        thr = {(r["loss"], r["cc"]): r["throughput (kB/s)"] for r in summary}
        ratio_at = {r["loss"]: r for r in ratios.to_dict("records")}
        ours = {
            "Veno throughput at loss 1e-2": thr.get((1e-2, "veno"), np.nan),
            "Reno throughput at loss 1e-2": thr.get((1e-2, "reno"), np.nan),
            "Veno / Reno at loss 1e-2": ratio_at.get(1e-2, {}).get("mean", np.nan),
        }
        out.comparison = comparison((p, ours[p.quantity]) for p in self.published)

        def plot(ax):
            for cc in CCS:
                t = table[table["cc"] == cc]
                ax.errorbar(
                    t["loss"],
                    t["throughput (kB/s)"],
                    yerr=t["ci95"].fillna(0),
                    fmt="o-",
                    capsize=3,
                    color=COLOR[cc],
                    label=f"{LABEL[cc]} (tcplab)",
                )
            ax.plot([1e-2], [146.5], "*", ms=13, color=COLOR["veno"], mec="k", label="Veno (published)")
            ax.plot([1e-2], [81.9], "*", ms=13, color=COLOR["reno"], mec="k", label="Reno (published)")
            reno = table[table["cc"] == "reno"]
            p = reno["loss"].to_numpy()
            rtt = reno["mean RTT (ms)"].to_numpy() / 1e3
            cap = 1.6e6 * MSS / (MSS + HEADER) / 8 / KB
            for b, t0, style, what in (
                (1, 0.2, ":", "ACK per segment, RTO 0.2 s"),
                (2, 1.0, "--", "delayed ACKs, RTO 1 s"),
            ):
                model = [
                    min(cap, pftk_throughput_bps(MSS, r, q, t0, acked_per_ack=b) / 8 / KB)
                    for q, r in zip(p, rtt, strict=True)
                ]
                ax.plot(p, model, style, color="grey", label=f"Reno model, PFTK ({what})")
            ax.set_xscale("log")

        out.figures.append(
            Figure(
                "throughput",
                figure(plot, "random loss probability", "throughput (kB/s)", size=(7.0, 4.4)),
                "Throughput of a 32 MB transfer against the loss rate (001 fig. 5): ours (mean and 95% CI "
                "over seeds), the published points at 1e-2, and Padhye et al.'s Reno model at our measured "
                "Reno RTT",
            )
        )

        def r_at(p: float) -> dict[str, Any]:
            return ratio_at.get(p, {"mean": np.nan, "low": np.nan, "high": np.nan})

        losses = sorted(ratio_at)
        out.claims.append(
            claim(
                "Veno's throughput is at least Reno's at every loss rate (per-seed ratio's 95% CI not below "
                "1, or mean >= 0.98 with one seed)",
                every(_not_below_one(ratio_at[p]) for p in losses),
                ", ".join(f"{_loss_label(p)}: {ratio_at[p]['mean']:.2f}" for p in losses),
            )
        )
        low = [p for p in losses if p <= 1e-3]
        out.claims.append(
            claim(
                "At loss <= 1e-3 Veno and Reno have roughly the same throughput (within 10%)",
                every(abs(ratio_at[p]["mean"] - 1) <= 0.10 for p in low),
                ", ".join(f"{_loss_label(p)}: x{ratio_at[p]['mean']:.2f}" for p in low),
            )
        )
        r2 = r_at(1e-2)
        out.claims.append(
            claim(
                "At 1e-2 Veno is significantly faster than Reno (95% CI of the per-seed ratio above 1)",
                (r2["low"] > 1) if np.isfinite(r2["low"]) else r2["mean"] > 1.05,
                f"Veno/Reno = {r2['mean']:.2f} [{r2['low']:.2f}, {r2['high']:.2f}]",
            )
        )
        out.claims.append(
            claim(
                "At 1e-2 Veno's gain is of the paper's size, +80% (checked: at least +60%)",
                r2["mean"] >= 1.6,
                f"ours +{(r2['mean'] - 1) * 100:.0f}%: Veno {ours['Veno throughput at loss 1e-2']:.1f}, Reno "
                f"{ours['Reno throughput at loss 1e-2']:.1f} kB/s",
            )
        )
        if (1e-1, "reno") in thr and (1e-4, "reno") in thr:
            out.claims.append(
                claim(
                    "Both collapse at 1e-1 (below a quarter of their 1e-4 throughput) and time out "
                    "frequently",
                    every(thr[(1e-1, cc)] < thr[(1e-4, cc)] / 4 for cc in CCS),
                    ", ".join(
                        f"{LABEL[cc]} {thr[(1e-4, cc)]:.0f} -> {thr[(1e-1, cc)]:.0f} kB/s, "
                        f"{table[(table['cc'] == cc) & (table['loss'] == 1e-1)]['timeouts'].iloc[0]:.0f} "
                        "timeouts"
                        for cc in CCS
                    ),
                )
            )
        fr = {(r["loss"], r["cc"]): r["fast retransmits"] for r in summary}
        out.claims.append(
            claim(
                "Veno is no more aggressive than Reno: at loss <= 1e-3 it triggers fewer fast retransmits "
                "(the paper's tables II-IV show fewer timeouts, fast retransmits and retransmissions)",
                every(fr[(p, "veno")] < fr[(p, "reno")] for p in low),
                ", ".join(f"{_loss_label(p)}: {fr[(p, 'veno')]:.0f} vs {fr[(p, 'reno')]:.0f}" for p in low),
            )
        )
        if len(variants):
            v = {(r["variant"], r["cc"]): r["throughput (kB/s)"] for r in var_rows}
            reno_span = ", ".join(f"{k}: {v[(k, 'reno')]:.1f}" for k in STACK_VARIANTS if (k, "reno") in v)
            out.notes.append(
                "Our Reno is much faster at 1e-2 than the paper's (published 81.9 kB/s) while our Veno is "
                "close to the published 146.5 kB/s, so the gain is smaller than +80%. Reno at 1e-2 by TCP "
                f"settings: {reno_span} kB/s. Slower timers and delayed ACKs lower both algorithms but do "
                "not bring our Reno down to 82 kB/s. Padhye et al.'s Reno model (dashed) with delayed ACKs "
                "and a 1 s timeout gives about the published Reno throughput at our RTT, so a 2003 NetBSD "
                "1.1 Reno behind Linux delayed-ACK receivers (500 ms timer ticks, 1 s minimum RTO, more "
                "retransmission timeouts after multiple losses in a window) plausibly explains the "
                "published value; the paper does not give enough about its stacks to settle it. The default "
                "experiment uses the project's TCP defaults."
            )
        incomplete = int((~df["completed"]).sum())
        if incomplete:
            out.notes.append(
                f"{incomplete} transfer(s) did not complete within the cap; their throughput is bytes "
                "delivered / cap."
            )
        return out


def _paired_ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Per loss rate: the Veno/Reno throughput ratio of each seed (the two runs share the
    link's loss draws), its mean and 95% Student-t interval."""
    rows = []
    for p, g in df.groupby("loss"):
        piv = g.pivot_table(index="seed", columns="cc", values="throughput_kBps")
        if not {"reno", "veno"} <= set(piv.columns):
            continue
        r = (piv["veno"] / piv["reno"]).dropna().to_numpy()
        ci = mean_ci(r)
        rows.append({"loss": p, "mean": ci.mean, "low": ci.low, "high": ci.high, "seeds": ci.n})
    return pd.DataFrame(rows)


def _not_below_one(r: dict[str, Any]) -> bool:
    if np.isfinite(r["high"]):
        return r["high"] >= 1.0
    return r["mean"] >= 0.98


# -- table I ---------------------------------------------------------------------------------

TABLE1_RATES = (0.0, 500e3, 1e6)
#: The assumed wireless loss rate (EXPERIMENTS.md), and the rate the paper's own counts
#: imply: 169-225 random-loss fast retransmits per 12 MB (8,219-segment) transfer without
#: background, i.e. at least 2.1-2.7% (losses repaired by timeouts come on top).
TABLE1_LOSS = 0.01
TABLE1_IMPLIED_LOSS = 0.03
TABLE1_FILE = 12 * MB
TABLE1_RUNS = 3
TABLE1_QUICK_RUNS = 1
TABLE1_DURATION = 1200.0
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
BRANCH = {"random": FF45, "congestive": FF12}
CAUSE = {"buffer_overflow": "congestion", "random_loss": "random", "none": "no drop"}


def _kbps_label(rate: float) -> str:
    return "none" if rate == 0 else f"{rate / 1e3:.0f} kb/s"


def _published_cells(rate: float) -> dict[tuple[str, str], int]:
    """Table I's counts at one background rate, summed over the three runs."""
    return {cell: sum(TABLE1_PUBLISHED[(k, rate)][i] for k in (1, 2, 3)) for i, cell in enumerate(CELLS)}


class _Counts:
    """Fast retransmits by (wireless loss, UDP rate, run, Veno branch, true cause)."""

    def __init__(self, frame: pd.DataFrame):
        self.frame = frame

    def n(self, loss: float, rate: float, branch: str, cause: str, run: int | None = None) -> float:
        f = self.frame
        m = (f["loss"] == loss) & (f["udp_bps"] == rate) & (f["branch"] == branch) & (f["cause"] == cause)
        if run is not None:
            m &= f["run"] == run
        return float(f.loc[m, "n"].sum())

    def accuracy_45(self, loss: float, rate: float) -> tuple[float, float]:
        """(random losses, all losses) among the 4/5 cuts."""
        r, c = self.n(loss, rate, FF45, "random"), self.n(loss, rate, FF45, "congestion")
        return r, r + c

    def misdiagnosed(self, loss: float, rate: float) -> tuple[float, float]:
        """(congestion losses cut by 4/5, all congestion losses)."""
        a, b = self.n(loss, rate, FF45, "congestion"), self.n(loss, rate, FF12, "congestion")
        return a, a + b


@register
class Table1(Experiment):
    name = "veno/table1"
    paper = "veno"
    title = "Veno's loss classification against the true cause of each loss (table I)"
    ablations = (veno_basertt_ablation(),)
    setup = (
        "Fig. 3(b) test bed as a custom graph: Src2 (Veno) and Src1 (UDP) -- Router, Router == AP at 1.6 "
        "Mb/s both ways with 12-packet DropTail buffers both ways, AP -- WC1 the wireless last hop, AP -- "
        "Dst1; round-trip propagation 60 ms (access links 100 Mb/s, 1 ms; router link 27 ms). Assumed: the "
        "wireless hop is an 11 Mb/s, 1 ms link losing 1% of data packets (Bernoulli; ACKs are not lost); "
        "UDP CBR background Src1 -> Dst1 of 0, 500 kb/s and 1 Mb/s in 1500 B datagrams, which crosses the "
        "router's link only. One Veno flow (beta = 3) transfers 12 MB (12 x 10^6 B); 3 runs (seeds) per "
        "background rate as the paper (quick: 1); run cap 1200 s. Every fast retransmit is counted by "
        "Veno's branch (N < beta: #FF4/5, else #FF1/2) against the true cause of the retransmitted "
        "segment's loss (buffer overflow at the router = congestion, the wireless hop's loss = random). "
        "Extra: the same at 3% wireless loss, about what the paper's own counts imply."
    )
    needs = ("cc:veno",)
    published = tuple(
        Published(
            f"first run, UDP {_kbps_label(rate)}: {branch} {cause}", v, "fast retransmits", _src("table I")
        )
        for (run, rate), values in TABLE1_PUBLISHED.items()
        if run == 1
        for (branch, cause), v in zip(CELLS, values, strict=True)
    ) + (
        Published(
            "UDP 500 kb/s: #FF4/5 that were random losses",
            83 / 84,
            "fraction",
            _src("section III-A.2 (83/84)"),
        ),
        Published(
            "UDP 500 kb/s: #FF1/2 that were congestion losses",
            10 / 156,
            "fraction",
            _src("section III-A.2 (10/156)"),
        ),
    )

    def runs(self, quick: bool) -> list[Run]:
        n = TABLE1_QUICK_RUNS if quick else TABLE1_RUNS
        return [
            Run(
                {"loss": loss, "udp_bps": rate, "run": k},
                wireless_scenario(rate, loss=loss, duration=TABLE1_DURATION, file_bytes=TABLE1_FILE, seed=k),
            )
            for loss in (TABLE1_LOSS, TABLE1_IMPLIED_LOSS)
            for rate in TABLE1_RATES
            for k in range(1, n + 1)
        ]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        frames, meta = [], []
        for params, res in results:
            L = res.losses[res.losses["flow"] == 0].sort_values("time")
            # Time since the previous loss response, and its kind: Veno resets BaseRTT there.
            L = L.assign(gap=L["time"].diff(), previous=L["kind"].shift())
            ff = L[L["kind"] == "fast_retransmit"].copy()
            ff["branch"] = ff["cc_label"].map(BRANCH).fillna("untagged")
            ff["cause"] = ff["true_cause"].map(CAUSE).fillna(ff["true_cause"])
            for k in ("loss", "udp_bps", "run"):
                ff[k] = params[k]
            frames.append(ff)
            f = res.flows.iloc[0]
            thr, done = transfer_kBps(f, TABLE1_FILE, TABLE1_DURATION)
            meta.append(
                {
                    "wireless loss": params["loss"],
                    "UDP": _kbps_label(params["udp_bps"]),
                    "run": params["run"],
                    "fast retransmits": len(ff),
                    "timeouts": int(f["timeouts"]),
                    "router overflow drops": int(f["data_drops_buffer_overflow"]),
                    "wireless drops": int(f["data_drops_random_loss"]),
                    "Veno throughput (kB/s)": thr,
                    "completed": done,
                }
            )
        ff = pd.concat(frames, ignore_index=True)
        c = _Counts(
            ff.groupby(["loss", "udp_bps", "run", "branch", "cause"]).size().rename("n").reset_index()
        )
        runs = sorted({p["run"] for p, _ in results})
        rates = sorted({p["udp_bps"] for p, _ in results})
        losses = sorted({p["loss"] for p, _ in results})

        for loss in losses:
            rows = []
            for k in runs:
                for branch in (FF45, FF12):
                    row: dict[str, Any] = {"run": k, "Veno branch": branch}
                    for rate in rates:
                        for cause in ("congestion", "random"):
                            row[f"{_kbps_label(rate)}: {cause}"] = int(c.n(loss, rate, branch, cause, k))
                    rows.append(row)
            out.tables[
                f"ours, wireless loss {loss:.0%}: fast retransmits by Veno's branch and true cause (cf. "
                "table I)"
            ] = pd.DataFrame(rows)
        pub_rows = []
        for k in (1, 2, 3):
            for i, branch in enumerate((FF45, FF12)):
                row = {"run": k, "Veno branch": branch}
                for rate in TABLE1_RATES:
                    vals = TABLE1_PUBLISHED[(k, rate)]
                    row[f"{_kbps_label(rate)}: congestion"] = vals[2 * i]
                    row[f"{_kbps_label(rate)}: random"] = vals[2 * i + 1]
                pub_rows.append(row)
        out.tables["published: table I, three runs"] = pd.DataFrame(pub_rows)

        acc_rows = []
        for rate in rates:
            pub = _published_cells(rate)
            pr, pt = pub[(FF45, "random")], pub[(FF45, "random")] + pub[(FF45, "congestion")]
            pm, pc = pub[(FF45, "congestion")], pub[(FF45, "congestion")] + pub[(FF12, "congestion")]
            row = {
                "UDP": _kbps_label(rate),
                "published: 4/5 cuts that were random": _share_text(pr, pt),
                "published: congestion losses cut by 4/5": _share_text(pm, pc),
            }
            for loss in losses:
                r, t = c.accuracy_45(loss, rate)
                m, cg = c.misdiagnosed(loss, rate)
                row[f"ours {loss:.0%}: 4/5 cuts that were random"] = _share_text(r, t)
                row[f"ours {loss:.0%}: congestion losses cut by 4/5"] = _share_text(m, cg)
            acc_rows.append(row)
        out.tables["classification accuracy (all runs pooled)"] = pd.DataFrame(acc_rows)
        out.tables["ours: per run"] = pd.DataFrame(meta)

        nruns = len(runs)
        main = TABLE1_LOSS
        ours: dict[str, float] = {}
        for rate in rates:
            for branch, cause in CELLS:
                ours[f"first run, UDP {_kbps_label(rate)}: {branch} {cause}"] = (
                    c.n(main, rate, branch, cause) / nruns
                )
        r, t = c.accuracy_45(main, 500e3)
        ours["UDP 500 kb/s: #FF4/5 that were random losses"] = _frac(r, t)
        a, b = c.n(main, 500e3, FF12, "congestion"), c.n(main, 500e3, FF12, "random")
        ours["UDP 500 kb/s: #FF1/2 that were congestion losses"] = _frac(a, a + b)
        out.comparison = comparison((p, ours[p.quantity]) for p in self.published if p.quantity in ours)

        spurious = ff[ff["cause"] == "no drop"]
        if len(spurious):
            after_timeout = int((spurious["previous"] == "timeout").sum())
            out.notes.append(
                f"{len(spurious)} fast retransmit(s) resent a segment that had never been dropped; "
                f"{after_timeout} of them followed a timeout, whose go-back-N retransmissions provoke "
                "duplicate ACKs (a known Reno behaviour that NewReno's 'recover' check avoids). They are "
                "left out of the tables."
            )
        out.notes.append(
            f"In the comparison 'ours' is the mean over our {nruns} run(s) per background rate at the "
            "assumed 1% wireless loss, 'published' the paper's first run. The paper's counts imply much "
            "more random loss than 1% (about 2-3% of the segments), so our absolute counts at 1% are lower; "
            "the fractions and the 3% variant compare more directly."
        )
        wrong = ff[(ff["branch"] == FF45) & (ff["cause"] == "congestion")]
        if len(wrong):
            soon = wrong[(wrong["gap"] < 1.0) & (wrong["previous"] == "fast_retransmit")]
            out.notes.append(
                "With background traffic our flow sees far more buffer overflows than the paper's (it had "
                "11-19 congestion losses per run; see 'router overflow drops' in the per-run table): a "
                f"12-packet buffer shared with periodic 1500 B datagrams overflows often. {len(soon)} of the "
                f"{len(wrong)} congestion losses cut by 4/5 came less than 1 s after a previous fast "
                "retransmit, which had reset BaseRTT (001 section II-A): the new BaseRTT then includes the "
                "standing queue, N comes out small and the next overflow is taken as random."
            )

        def plot(ax):
            x = np.arange(len(rates))
            w = 0.8 / (1 + len(losses))
            pub = [_published_cells(r) for r in rates]
            pub45 = [_frac(p[(FF45, "random")], p[(FF45, "random")] + p[(FF45, "congestion")]) for p in pub]
            ax.bar(x - 0.4 + w / 2, pub45, w, color="grey", label="4/5 cuts that were random (published)")
            for i, loss in enumerate(losses):
                acc = [_frac(*c.accuracy_45(loss, r)) for r in rates]
                ax.bar(
                    x - 0.4 + w * (i + 1.5),
                    acc,
                    w,
                    color=f"C{2 + i}",
                    label=f"ours, {loss:.0%} wireless loss",
                )
            pubm = [
                _frac(p[(FF45, "congestion")], p[(FF45, "congestion")] + p[(FF12, "congestion")]) for p in pub
            ]
            ax.plot(
                x - 0.4 + w / 2, pubm, "v", color="k", ms=8, label="congestion losses cut by 4/5 (published)"
            )
            for i, loss in enumerate(losses):
                mis = [_frac(*c.misdiagnosed(loss, r)) for r in rates]
                ax.plot(x - 0.4 + w * (i + 1.5), mis, "v", color=f"C{2 + i}", mec="k", ms=8)
            ax.set_xticks(x, [_kbps_label(r) for r in rates])
            ax.set_ylim(0, 1.05)

        out.figures.append(
            Figure(
                "accuracy",
                figure(plot, "UDP background", "fraction", size=(7.0, 4.2)),
                "Bars: share of Veno's 4/5 cuts that were random losses; triangles: share of congestion "
                "losses wrongly cut by 4/5; published (grey, 001 table I, three runs pooled) and ours",
            )
        )

        def per_rate(fn, loss: float) -> str:
            return ", ".join(f"{_kbps_label(r)}: {a:.0f}/{b:.0f}" for r in rates for a, b in [fn(loss, r)])

        for loss in losses:
            tag = f"[{loss:.0%} wireless loss] "
            out.claims.append(
                claim(
                    tag + "At every background rate at least 90% of the fast retransmits taken as random "
                    "(N < beta) are random losses (paper: 83/84 at 500 kb/s, 'consistently high' at 0 and 1 "
                    "Mb/s)",
                    every(f >= 0.9 for f in _shares(rates, c.accuracy_45, loss)),
                    per_rate(c.accuracy_45, loss),
                )
            )
            out.claims.append(
                claim(
                    tag
                    + "At most 17% of congestion losses are misdiagnosed as random at any background rate "
                    "(paper: 2 of 14 in the worst case)",
                    every(f <= 0.17 for f in _shares(rates, c.misdiagnosed, loss)),
                    per_rate(c.misdiagnosed, loss),
                )
            )
            if 0.0 in rates:
                a, b = c.misdiagnosed(loss, 0.0)
                out.claims.append(
                    claim(
                        tag + "Without background traffic no congestion loss is cut by 4/5 (paper: none)",
                        a == 0 if b else None,
                        f"{a:.0f} of {b:.0f}",
                    )
                )

            def half(loss_: float, r: float) -> tuple[float, float]:
                ran = c.n(loss_, r, FF12, "random")
                return ran, ran + c.n(loss_, r, FF12, "congestion")

            out.claims.append(
                claim(
                    tag
                    + "At every background rate most fast retransmits taken as congestive (N >= beta) are in "
                    "fact random losses: the 1/2 branch has low accuracy (paper: 146 of 156 at 500 kb/s)",
                    every(f > 0.5 for f in _shares(rates, half, loss)),
                    per_rate(half, loss) + " random",
                )
            )
        return out


def _veno_cuts(results: list[tuple[dict[str, Any], Result]], keys: tuple[str, ...]) -> pd.DataFrame:
    """Veno's fast retransmits per group of runs: how many took the 4/5 (random) branch and
    how many of those repaired a buffer overflow."""
    rows = []
    for params, res in results:
        veno = set(res.flows.loc[res.flows["cc"] == "veno", "id"])
        L = res.losses
        ff = L[L["flow"].isin(veno) & (L["kind"] == "fast_retransmit")]
        rows.append(
            {
                **{k: params[k] for k in keys},
                "fast retransmits": len(ff),
                "4/5 cuts": int((ff["cc_label"] == "random").sum()),
                "4/5 cuts of buffer overflows": int(
                    ((ff["cc_label"] == "random") & (ff["true_cause"] == "buffer_overflow")).sum()
                ),
                "1/2 cuts": int((ff["cc_label"] == "congestive").sum()),
            }
        )
    df = pd.DataFrame(rows)
    df = df[df["fast retransmits"] > 0]
    if not len(df):
        return df
    g = df.groupby(list(keys)).sum(numeric_only=True).reset_index()
    g["share of 4/5 cuts"] = g["4/5 cuts"] / g["fast retransmits"]
    return g


def _frac(a: float, b: float) -> float:
    return a / b if b else float("nan")


def _share_text(a: float, b: float) -> str:
    """'3/4 = 75%'; a share of nothing is shown as such, not as 'nan%'."""
    return f"{a:.0f}/{b:.0f} = {a / b:.0%}" if b else f"{a:.0f}/{b:.0f} (no events)"


Count = Callable[[float, float], tuple[float, float]]


def _shares(rates: list[float], count: Count, loss: float) -> list[float]:
    """``count``'s share at each background rate that has events: a share of no events says
    nothing, so a claim over the rates is decided on these (and on none: not evaluated)."""
    return [a / b for a, b in (count(loss, r) for r in rates) if b]


# -- fig. 6 ---------------------------------------------------------------------------------

FIG6_CASES = {
    "a": (("reno", "reno", "reno", "reno"), 0.0),
    "b": (("reno", "reno", "veno", "veno"), 0.0),
    "c": (("reno", "reno", "reno", "reno"), 1e-2),
    "d": (("reno", "reno", "veno", "veno"), 1e-2),
}
FIG6_DURATION = 1500.0
FIG6_SEEDS = 3
FIG6_QUICK_SEEDS = 1
FIG6_START = {"uniform": [0.0, 1.0]}


@register
class Fig6(Experiment):
    name = "veno/fig6"
    paper = "veno"
    title = "Four connections sharing 4 Mb/s: sequence number against time, Reno alone vs Reno with Veno"
    ablations = (veno_basertt_ablation(), *stack_ablations("old-stack", "delayed-ack"))
    setup = (
        "Fig. 3(a) test bed as a dumbbell with 4 pairs: bottleneck 4 Mb/s both ways, 28-packet DropTail "
        "buffers both ways, round-trip propagation 120 ms; MSS 1460 B; each connection transfers 32 MB (32 "
        "x 10^6 B). (a) 4 Reno, (b) 2 Reno + 2 Veno without random loss; (c), (d) the same with Bernoulli "
        "data loss 1e-2 on the bottleneck. Assumed: connections start uniformly at random in [0, 1] s (the "
        "paper does not say; it makes seeds differ). 3 seeds (quick: 1); the figure shows seed 1; run cap "
        "1500 s. 'Sequence number' is the bytes delivered in order to the receiver (the cumulative ACK). "
        "Rates compare the connections while all four are active: bytes delivered by the first completion / "
        "that time."
    )
    needs = ("cc:veno",)

    def runs(self, quick: bool) -> list[Run]:
        seeds = range(1, 1 + (FIG6_QUICK_SEEDS if quick else FIG6_SEEDS))
        return [
            Run(
                {"case": case, "loss": loss, "seed": seed},
                router_scenario(
                    list(ccs),
                    loss,
                    link=SHARED_LINK,
                    duration=FIG6_DURATION,
                    file_bytes=FILE_32MB,
                    seed=seed,
                    sample_interval=1.0,
                    start=FIG6_START,
                ),
            )
            for case, (ccs, loss) in FIG6_CASES.items()
            for seed in seeds
        ]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        rows = []
        for params, res in results:
            fl = res.flows
            cts = fl["completion_time"].to_numpy(dtype=float) + fl["start"].to_numpy(dtype=float)
            first = float(np.nanmin(cts)) if np.isfinite(cts).any() else FIG6_DURATION
            for _, f in fl.iterrows():
                thr, done = transfer_kBps(f, FILE_32MB, FIG6_DURATION)
                rows.append(
                    {
                        "case": params["case"],
                        "loss": params["loss"],
                        "seed": params["seed"],
                        "flow": f["name"],
                        "cc": f["cc"],
                        "rate while all active (kB/s)": delivered_at(res, int(f["id"]), first) / first / KB,
                        "file throughput (kB/s)": thr,
                        "completion (s)": float(f["completion_time"]) if done else np.nan,
                        "fast retransmits": int(f["fast_retransmits"]),
                        "timeouts": int(f["timeouts"]),
                    }
                )
        df = pd.DataFrame(rows)
        out.tables["per connection (all seeds)"] = df
        by = (
            df.groupby(["case", "cc"])["rate while all active (kB/s)"]
            .agg(["mean", "std", "count"])
            .reset_index()
            .rename(columns={"mean": "mean (kB/s)", "std": "std (kB/s)", "count": "connections"})
        )
        out.tables["rate while all four are active, by case and kind"] = by
        cuts = _veno_cuts(results, ("case",))
        if len(cuts):
            out.tables["Veno's fast retransmits by branch and true cause (all seeds)"] = cuts
        fr_b = df[df["case"] == "b"].groupby("cc")["fast retransmits"].mean()
        if {"reno", "veno"} <= set(fr_b.index):
            out.notes.append(
                "In (b) Veno gets more than Reno without any random loss, with fewer losses "
                f"({fr_b['veno']:.0f} against {fr_b['reno']:.0f} fast retransmits per connection): near the "
                "buffer limit it adds packets half as fast and so takes fewer of the overflow losses (see "
                "veno/fig7's notes)."
            )

        fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharex=True, sharey=True)
        shown = {
            p["case"]: (p, r) for p, r in reversed(results) if p["seed"] == min(q["seed"] for q, _ in results)
        }
        titles = {
            "a": "(a) 4 Reno, no random loss",
            "b": "(b) 2 Reno + 2 Veno, no random loss",
            "c": "(c) 4 Reno, loss 1e-2",
            "d": "(d) 2 Reno + 2 Veno, loss 1e-2",
        }
        for ax, case in zip(axes.ravel(), "abcd", strict=True):
            if case in shown:
                _, res = shown[case]
                for _, f in res.flows.iterrows():
                    t, b = delivered_curve(res, int(f["id"]))
                    ax.plot(
                        t, b / MB, "-" if f["cc"] == "reno" else "--", color=COLOR[f["cc"]], label=f["name"]
                    )
                ax.legend(fontsize=7)
            ax.set_title(titles[case], fontsize=9)
            ax.grid(True, alpha=0.3)
        shown_ends = [
            float((r.flows["start"] + r.flows["completion_time"].fillna(FIG6_DURATION)).max())
            for _, r in shown.values()
        ]
        for ax in axes[-1]:
            ax.set_xlabel("time (s)")
            ax.set_xlim(0, 1.05 * max(shown_ends, default=FIG6_DURATION))
        for ax in axes[:, 0]:
            ax.set_ylabel("sequence number (MB delivered)")
        fig.tight_layout()
        out.figures.append(
            Figure(
                "sequence",
                fig,
                "Sequence number (bytes delivered) against time of four connections on a 4 Mb/s bottleneck "
                "(001 fig. 6): Reno solid, Veno dashed; seed 1",
            )
        )

        m = {(r["case"], r["cc"]): r["mean (kB/s)"] for r in by.to_dict("records")}
        seed_rates = df.groupby(["case", "seed", "cc"])["rate while all active (kB/s)"].mean().unstack("cc")
        b_ratio = (seed_rates.loc["b", "veno"] / seed_rates.loc["b", "reno"]).to_numpy()
        out.claims.append(
            claim(
                "Without random loss Veno and Reno share fairly (b): Veno/Reno mean rate within 0.8 .. 1.25",
                0.8 <= b_ratio.mean() <= 1.25,
                f"Veno {m[('b', 'veno')]:.1f} vs Reno {m[('b', 'reno')]:.1f} kB/s (x{b_ratio.mean():.2f})",
            )
        )
        out.claims.append(
            claim(
                "With 1e-2 loss the Veno connections get substantially more than the Reno ones (d)",
                m[("d", "veno")] > 1.2 * m[("d", "reno")],
                f"Veno {m[('d', 'veno')]:.1f} vs Reno {m[('d', 'reno')]:.1f} kB/s",
            )
        )
        out.claims.append(
            claim(
                "Veno does not take its gain from Reno: Reno in (d) is close to Reno in (c) (within 15%)",
                abs(m[("d", "reno")] / m[("c", "reno")] - 1) <= 0.15,
                f"Reno {m[('c', 'reno')]:.1f} kB/s alone (c), {m[('d', 'reno')]:.1f} beside Veno (d)",
            )
        )
        out.claims.append(
            claim(
                "Veno is hardly affected by 1e-2 loss: its rate in (d) is within 20% of (b)",
                abs(m[("d", "veno")] / m[("b", "veno")] - 1) <= 0.2,
                f"Veno {m[('b', 'veno')]:.1f} kB/s without loss (b), {m[('d', 'veno')]:.1f} with (d)",
            )
        )
        return out


# -- fig. 7 ---------------------------------------------------------------------------------

FIG7_FLOWS = 5
FIG7_DURATION = 300.0
FIG7_QUICK_DURATION = 100.0
FIG7_WARMUP = 10.0
FIG7_SEEDS = 5
FIG7_QUICK_SEEDS = 1


@register
class Fig7(Experiment):
    name = "veno/fig7"
    paper = "veno"
    title = "Five connections, k Veno + (5 - k) Reno: mean and spread of per-connection throughput"
    ablations = (veno_basertt_ablation(),)
    setup = (
        "As veno/fig6 (4 Mb/s both ways, buffer 28 both ways, 120 ms, MSS 1460 B) with five connections, k "
        "Veno and 5 - k Reno, k = 0..5; (a) no random loss, (b) Bernoulli data loss 1e-2. Assumed: bulk "
        "transfers (the paper does not give the file size for fig. 7) starting uniformly in [0, 1] s; "
        "throughput = goodput over [10, 300] s ([10, 100] s in quick mode); 5 seeds (quick: 1). Plotted: "
        "mean per connection of each kind over all connections of all seeds, with the standard deviation "
        "across connections."
    )
    needs = ("cc:veno",)

    def runs(self, quick: bool) -> list[Run]:
        d = FIG7_QUICK_DURATION if quick else FIG7_DURATION
        seeds = range(1, 1 + (FIG7_QUICK_SEEDS if quick else FIG7_SEEDS))
        out = []
        for loss in (0.0, 1e-2):
            for k in range(FIG7_FLOWS + 1):
                ccs = ["veno"] * k + ["reno"] * (FIG7_FLOWS - k)
                for seed in seeds:
                    sc = router_scenario(
                        ccs,
                        loss,
                        link=SHARED_LINK,
                        duration=d,
                        seed=seed,
                        sample_interval=1.0,
                        start=FIG6_START,
                        measure=[FIG7_WARMUP, d],
                    )
                    out.append(Run({"loss": loss, "k": k, "seed": seed}, sc))
        return out

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        df = flows_frame(results)
        df["kBps"] = df["goodput_bps"] / 8 / KB
        stats = (
            df.groupby(["loss", "k", "cc"])["kBps"]
            .agg(["mean", "std", "count"])
            .reset_index()
            .rename(columns={"mean": "mean (kB/s)", "std": "std (kB/s)", "count": "connections"})
        )
        out.tables["per-connection throughput by kind"] = stats
        cuts = _veno_cuts(results, ("loss", "k"))
        if len(cuts):
            out.tables["Veno's fast retransmits by branch and true cause (all seeds)"] = cuts
        jain = (
            df.groupby(["loss", "k", "seed", "cc"])["kBps"]
            .apply(lambda x: float(x.sum() ** 2 / (len(x) * (x**2).sum())) if len(x) > 1 else 1.0)
            .reset_index(name="jain")
        )

        fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
        for ax, loss, title in zip(
            axes, (0.0, 1e-2), ("(a) no random loss", "(b) random loss 1e-2"), strict=True
        ):
            for cc in CCS:
                s = stats[(stats["loss"] == loss) & (stats["cc"] == cc)]
                ax.errorbar(
                    s["k"],
                    s["mean (kB/s)"],
                    yerr=s["std (kB/s)"].fillna(0),
                    fmt="o-" if cc == "reno" else "s--",
                    capsize=3,
                    color=COLOR[cc],
                    label=LABEL[cc],
                )
            ax.set_title(title, fontsize=9)
            ax.set_xlabel("number of Veno connections k (of 5)")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
        axes[0].set_ylabel("throughput per connection (kB/s)")
        fig.tight_layout()
        out.figures.append(
            Figure(
                "mix",
                fig,
                "Mean throughput per connection of each kind (error bars: standard deviation across "
                "connections) against the number of Veno connections among five (001 fig. 7)",
            )
        )

        m = {(r["loss"], r["k"], r["cc"]): r["mean (kB/s)"] for r in stats.to_dict("records")}
        min_jain = jain[jain["k"].between(0, FIG7_FLOWS)].groupby("cc")["jain"].min()
        out.claims.append(
            claim(
                "Fairness within each kind: Jain's index among the connections of one kind is at least 0.9 "
                "in every run",
                every(jain["jain"] >= 0.9),
                ", ".join(f"lowest {LABEL[c]}: {v:.3f}" for c, v in min_jain.items()),
            )
        )
        for loss, name in ((0.0, "(a)"), (1e-2, "(b)")):
            reno0 = m.get((loss, 0, "reno"))
            worst = min(
                (m[(loss, k, "reno")] / reno0, k) for k in range(1, FIG7_FLOWS) if (loss, k, "reno") in m
            )
            out.claims.append(
                claim(
                    f"{name} Veno does not starve Reno: Reno's per-connection throughput with k Veno "
                    "connections stays within 20% of its value with none",
                    worst[0] >= 0.8,
                    f"lowest: x{worst[0]:.2f} at k = {worst[1]} (Reno alone {reno0:.1f} kB/s)",
                )
            )
        mixed = range(1, FIG7_FLOWS)

        def mean_ratio(loss: float) -> float:
            return float(np.mean([m[(loss, k, "veno")] / m[(loss, k, "reno")] for k in mixed]))

        out.claims.append(
            claim(
                "(a) Without random loss Veno gets somewhat more than Reno (mean Veno/Reno over k = 1..4 "
                "above 1)",
                mean_ratio(0.0) > 1.0,
                f"x{mean_ratio(0.0):.2f}",
            )
        )
        out.claims.append(
            claim(
                "(b) With 1e-2 loss Veno gets significantly more than Reno (mean Veno/Reno over k = 1..4 "
                "above 1.2)",
                mean_ratio(1e-2) > 1.2,
                f"x{mean_ratio(1e-2):.2f}",
            )
        )
        responses = (
            df.groupby(["loss", "k", "cc"])[["fast_retransmits", "timeouts"]]
            .mean()
            .reset_index()
            .rename(columns={"fast_retransmits": "fast retransmits", "timeouts": "timeouts"})
        )
        out.tables["loss responses per connection (means over connections and seeds)"] = responses
        fr = {(r["loss"], r["k"], r["cc"]): r["fast retransmits"] for r in responses.to_dict("records")}
        mixed_fr = [(fr[(0.0, k, "veno")], fr[(0.0, k, "reno")]) for k in mixed if (0.0, k, "veno") in fr]
        if mixed_fr:
            v, r = (float(np.mean(x)) for x in zip(*mixed_fr, strict=True))
            out.notes.append(
                "Without random loss a Veno connection takes fewer losses than a Reno one beside it "
                f"({v:.0f} against {r:.0f} fast retransmits per connection, k = 1..4): once N >= beta it "
                "adds a packet every other RTT, so it offers fewer of the packets that meet a full DropTail "
                "queue, and with fewer cuts it keeps a larger share. The paper saw the same direction "
                "('somewhat higher'); ours is larger, plausibly because without random loss our runs have "
                "no noise to break DropTail's phase effects."
            )
        if len(cuts):
            allveno = cuts[(cuts["loss"] == 0.0) & (cuts["k"] == FIG7_FLOWS)]
            if len(allveno):
                a = allveno.iloc[0]
                out.notes.append(
                    f"With {FIG7_FLOWS} Veno connections and no random loss, "
                    f"{a['4/5 cuts of buffer overflows']:.0f} of {a['fast retransmits']:.0f} fast "
                    f"retransmits ({a['share of 4/5 cuts']:.0%}) repaired buffer overflows yet took the 4/5 "
                    "branch: the 28-packet buffer shared by five flows leaves each only a few packets of "
                    "its own backlog, and after each loss BaseRTT is reset (001 section II-A) to an RTT "
                    "that includes the others' standing queue, so N < beta. Veno's classification, checked "
                    "in the paper for a single connection (table I), does not carry over to many Veno "
                    "connections sharing one buffer."
                )
        return out


# -- figs. 1 and 2 ------------------------------------------------------------------------------

FIG1_DURATION = 400.0
FIG1_QUICK_DURATION = 150.0
FIG2_DURATION = 120.0
FIG2_RTT = 0.18
FIG2_LOSS = 0.01


@register
class Fig1(Experiment):
    name = "veno/fig1-2"
    paper = "veno"
    title = (
        "Window evolution of one Veno and one Reno flow: no loss (fig. 1), 1% loss and RTT 180 ms (fig. 2)"
    )
    setup = (
        "The paper's figs. 1 and 2 are campus-network and test-bed traces without a stated link. Assumed: "
        "the fig. 4 link (1.6 Mb/s both ways, buffer 12 both ways, MSS 1460 B) with one bulk flow. Fig. 1: "
        "no random loss, round-trip propagation 120 ms, 400 s (quick: 150 s). Fig. 2: Bernoulli data loss "
        "1%, round-trip propagation 180 ms, 120 s. cwnd sampled every 0.1 s. Congestion losses = loss "
        "responses (fast retransmits and timeouts) whose segment overflowed the buffer, not counting those "
        "that repair the window that overflowed at the end of the initial slow start (the first loss's "
        "segment and the cwnd segments after it)."
    )
    needs = ("cc:veno",)

    def runs(self, quick: bool) -> list[Run]:
        d1 = FIG1_QUICK_DURATION if quick else FIG1_DURATION
        out = []
        for cc in CCS:
            out.append(
                Run({"fig": 1, "cc": cc}, router_scenario([cc], 0.0, duration=d1, sample_interval=0.1))
            )
            out.append(
                Run(
                    {"fig": 2, "cc": cc},
                    router_scenario(
                        [cc], FIG2_LOSS, rtt=FIG2_RTT, duration=FIG2_DURATION, sample_interval=0.1
                    ),
                )
            )
        return out

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        rows = []
        traces: dict[tuple[int, str], Result] = {}
        for params, res in results:
            fig, cc = params["fig"], params["cc"]
            traces[(fig, cc)] = res
            L = res.losses[res.losses["flow"] == 0]
            overshoot = _initial_overshoot(L)
            after = L[~overshoot]
            fr = after[after["kind"] == "fast_retransmit"]
            rows.append(
                {
                    "fig": fig,
                    "cc": cc,
                    "congestion losses": int((after["true_cause"] == "buffer_overflow").sum()),
                    "random losses": int((after["true_cause"] == "random_loss").sum()),
                    "initial slow start losses": int(overshoot.sum()),
                    "fast retransmits": len(fr),
                    "4/5 cuts": int((fr["cc_label"] == "random").sum()),
                    "1/2 cuts (Veno)": int((fr["cc_label"] == "congestive").sum()),
                    "timeouts": int((after["kind"] == "timeout").sum()),
                    "mean cwnd (packets)": float(res.series["cwnd"].mean()),
                    "goodput (kB/s)": float(res.flows.iloc[0]["goodput_bps"]) / 8 / KB,
                }
            )
        table = pd.DataFrame(rows).sort_values(["fig", "cc"]).reset_index(drop=True)
        out.tables["loss responses after the initial slow start"] = table

        for fig_no, caption in (
            (1, "cwnd of a lone Veno (a) and Reno (b) flow without random loss (cf. 001 fig. 1)"),
            (
                2,
                "cwnd of a lone Veno (a) and Reno (b) flow with 1% random loss, RTT 180 ms (cf. 001 fig. "
                "2); markers: Veno's 4/5 (x) and 1/2 (o) cuts",
            ),
        ):
            fig, axes = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True, sharey=True)
            for ax, cc, tag in zip(axes, ("veno", "reno"), ("(a)", "(b)"), strict=True):
                res = traces.get((fig_no, cc))
                if res is None:
                    continue
                s = res.series
                ax.plot(s["time"], s["cwnd"], lw=0.8, color=COLOR[cc], label="cwnd")
                ax.plot(
                    s["time"],
                    s["ssthresh"].clip(upper=s["cwnd"].max() * 1.2),
                    lw=0.6,
                    color="grey",
                    alpha=0.6,
                    label="ssthresh",
                )
                if fig_no == 2 and cc == "veno":
                    L = res.losses[res.losses["kind"] == "fast_retransmit"]
                    for label, marker in (("random", "x"), ("congestive", "o")):
                        pts = L[L["cc_label"] == label]
                        ax.plot(
                            pts["time"],
                            pts["cwnd_before"],
                            marker,
                            ms=5,
                            color="k",
                            mfc="none",
                            label=f"{label} cut",
                        )
                ax.set_title(f"{tag} {LABEL[cc]}", fontsize=9)
                ax.set_ylabel("packets")
                ax.grid(True, alpha=0.3)
                ax.legend(fontsize=7, loc="upper right")
            axes[-1].set_xlabel("time (s)")
            fig.tight_layout()
            out.figures.append(Figure(f"cwnd-fig{fig_no}", fig, caption))

        t = {(r["fig"], r["cc"]): r for r in rows}
        veno1, reno1 = t[(1, "veno")], t[(1, "reno")]
        cut = (
            1 - veno1["congestion losses"] / reno1["congestion losses"]
            if reno1["congestion losses"]
            else np.nan
        )
        out.claims.append(
            claim(
                "Without random loss Veno has fewer congestion losses than Reno (paper: almost 40% fewer "
                "over 400 s)",
                veno1["congestion losses"] < reno1["congestion losses"],
                f"Veno {veno1['congestion losses']}, Reno {reno1['congestion losses']} ({cut:.0%} fewer)",
            )
        )
        out.claims.append(
            claim(
                "Without random loss Veno loses no throughput by growing more slowly (goodput within 2% of "
                "Reno's)",
                abs(veno1["goodput (kB/s)"] / reno1["goodput (kB/s)"] - 1) <= 0.02,
                f"Veno {veno1['goodput (kB/s)']:.1f}, Reno {reno1['goodput (kB/s)']:.1f} kB/s",
            )
        )
        veno2, reno2 = t[(2, "veno")], t[(2, "reno")]
        frac = _frac(veno2["4/5 cuts"], veno2["4/5 cuts"] + veno2["1/2 cuts (Veno)"])
        out.claims.append(
            claim(
                "With 1% random loss Veno cuts by 1/5 at most of its fast retransmits (paper: 10 of 14 "
                "losses)",
                frac > 0.5,
                f"{veno2['4/5 cuts']} of {veno2['4/5 cuts'] + veno2['1/2 cuts (Veno)']} ({frac:.0%})",
            )
        )
        out.claims.append(
            claim(
                "With 1% random loss Veno's window stays larger than Reno's (mean cwnd)",
                veno2["mean cwnd (packets)"] > reno2["mean cwnd (packets)"],
                f"Veno {veno2['mean cwnd (packets)']:.1f}, Reno {reno2['mean cwnd (packets)']:.1f} packets",
            )
        )
        out.notes.append(
            "The paper's fig. 2 induces losses at chosen instants (14 in 120 s); ours are Bernoulli, so the "
            "counts differ; the share of 4/5 cuts is what compares."
        )
        return out


def _initial_overshoot(losses: pd.DataFrame) -> pd.Series:
    """Which loss responses repair segments of the window that overflowed at the end of
    the initial slow start: those from the first loss's segment up to one window
    (its cwnd) above it."""
    if not len(losses):
        return pd.Series(False, index=losses.index)
    first = losses.sort_values("time").iloc[0]
    return (losses["seq"] >= first["seq"]) & (losses["seq"] < first["seq"] + first["cwnd_before"])


# -- tables II-IV -------------------------------------------------------------------------------

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


@register
class Tables2to4(Experiment):
    name = "veno/tables2-4"
    paper = "veno"
    title = "Live Internet measurements (tables II-IV), for the record"
    setup = (
        "Live Internet transfers (16 MB between CUHK and HKU or Tsinghua, partly over a WLAN); the paths "
        "are not known well enough to simulate. For the record only: the published numbers, no runs. The "
        "three counters the tables report are recorded by tcplab for every flow (flows table: timeouts, "
        "fast_retransmits, retransmissions); veno/fig5 reports them per 32 MB transfer."
    )
    published = tuple(
        Published(
            f"table {table.split()[0]}, {slot}: {kind} {q}",
            vals[qi][ki],
            "per transfer",
            _src(f"table {table.split()[0]}"),
        )
        for table, slots in LIVE_TABLES.items()
        for slot, vals in slots.items()
        for qi, q in enumerate(LIVE_QUANTITIES)
        for ki, kind in enumerate(("Reno", "Veno"))
    )

    def runs(self, quick: bool) -> list[Run]:
        return []

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        for table, slots in LIVE_TABLES.items():
            rows = []
            for slot, vals in slots.items():
                row: dict[str, Any] = {"time slot": slot}
                for q, (reno, veno) in zip(LIVE_QUANTITIES, vals, strict=True):
                    row[f"{q}: Reno"] = reno
                    row[f"{q}: Veno"] = veno
                rows.append(row)
            out.tables[f"published table {table}"] = pd.DataFrame(rows)
        fewer = sum(
            vals[q][1] < vals[q][0]
            for slots in LIVE_TABLES.values()
            for vals in slots.values()
            for q in (1, 2, 3)
        )
        total = sum(3 for slots in LIVE_TABLES.values() for _ in slots)
        out.notes.append(
            "Published: Veno has fewer timeouts, fast retransmits and retransmitted packets than Reno in "
            f"{fewer} of {total} (slot, counter) pairs. No simulation: the live paths are unknown. tcplab "
            "counts all three per flow; the matching comparison on a simulated lossy path is veno/fig5's "
            "counter table."
        )
        return out
