"""001 fig. 6: four connections on a 4 Mb/s bottleneck, Reno alone and Reno beside Veno, with and
without random loss: sequence number against time."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import register
from ..ablation import stack_ablations, veno_basertt_ablation
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim, plt
from .measure import transfer_kBps, veno_cuts
from .paper import COLOR, FILE_32MB, KB, MB, RANDOM_START, SHARED_LINK, router_scenario

FIG6_CASES = {
    "a": (("reno", "reno", "reno", "reno"), 0.0),
    "b": (("reno", "reno", "veno", "veno"), 0.0),
    "c": (("reno", "reno", "reno", "reno"), 1e-2),
    "d": (("reno", "reno", "veno", "veno"), 1e-2),
}
FIG6_DURATION = 1500.0
FIG6_SEEDS = 3
FIG6_QUICK_SEEDS = 1


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
                    start=RANDOM_START,
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
                        "rate while all active (kB/s)": res.delivered_at(int(f["id"]), first) / first / KB,
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
        cuts = veno_cuts(results, ("case",))
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
                    t, b = res.delivered(int(f["id"]))
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
