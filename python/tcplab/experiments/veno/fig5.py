"""001 fig. 5: the throughput of a 32 MB transfer against the random loss rate, Reno and Veno,
with the paper's Reno beside Padhye et al.'s model."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...analysis.stats import mean_ci
from ...analysis.tcp_models import pftk_throughput_bps
from .. import register
from ..ablation import stack_ablations
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim, comparison, every, figure
from .measure import loss_label, transfer_kBps
from .paper import (
    CCS,
    COLOR,
    FIG5_PUBLISHED,
    FIG5_RENO_KBPS,
    FIG5_VENO_KBPS,
    FILE_32MB,
    HEADER,
    KB,
    LABEL,
    MSS,
    router_scenario,
)

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
    published = FIG5_PUBLISHED

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
            ax.plot(
                [1e-2], [FIG5_VENO_KBPS], "*", ms=13, color=COLOR["veno"], mec="k", label="Veno (published)"
            )
            ax.plot(
                [1e-2], [FIG5_RENO_KBPS], "*", ms=13, color=COLOR["reno"], mec="k", label="Reno (published)"
            )
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
                ", ".join(f"{loss_label(p)}: {ratio_at[p]['mean']:.2f}" for p in losses),
            )
        )
        low = [p for p in losses if p <= 1e-3]
        out.claims.append(
            claim(
                "At loss <= 1e-3 Veno and Reno have roughly the same throughput (within 10%)",
                every(abs(ratio_at[p]["mean"] - 1) <= 0.10 for p in low),
                ", ".join(f"{loss_label(p)}: x{ratio_at[p]['mean']:.2f}" for p in low),
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
                ", ".join(f"{loss_label(p)}: {fr[(p, 'veno')]:.0f} vs {fr[(p, 'reno')]:.0f}" for p in low),
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
