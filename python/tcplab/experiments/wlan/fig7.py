"""004 fig. 7: eight uplink and eight downlink flows of each variant: mean throughput per
direction against the access point's buffer."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from .. import register
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim, every, known
from .measure import run_summary, runs_note, seed_means, up_over_down, with_ci
from .paper import (
    AP_BUFFER,
    CC,
    DELAY_BASED,
    LABEL,
    LOSS_BASED,
    SETUP,
    STARVED_SHARE,
    UNFAIR_RATIO,
    cc_spec,
    duration_of,
    seeds_of,
    wlan_scenario,
)

#: The figures of a configuration whose 95% interval over seeds the table shows.
WITH_CI = ("up_mean_mbps", "down_mean_mbps", "jain_all")


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
            Run(
                {"cc": cc, "ap_buffer": b, "seed": seed},
                wlan_scenario(8, 8, cc_spec(cc), d, ap_buffer=b, seed=seed),
            )
            for cc in (*LOSS_BASED, *DELAY_BASED)
            for b in (self.quick_buffers if quick else self.buffers)
            for seed in seeds_of(quick)
        ]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        rows = [
            {"cc": p["cc"], "ap_buffer": p["ap_buffer"], "seed": p["seed"], **run_summary(r)}
            for p, r in results
        ]
        if not rows:
            return out
        runs = pd.DataFrame(rows).sort_values(["cc", "ap_buffer", "seed"])
        table = seed_means(runs.drop(columns="seed"), ["cc", "ap_buffer"], WITH_CI)
        # The ratio of the mean rates (as figs. 8-10): a mean of per-run ratios is dominated by
        # runs whose downlinks all but starve.
        table["up_over_down"] = [
            up_over_down(u, d) for u, d in zip(table["up_mean_mbps"], table["down_mean_mbps"], strict=True)
        ]
        cols = [
            "cc",
            "ap_buffer",
            "runs",
            "up_mean_mbps",
            "up_mean_mbps_ci95",
            "down_mean_mbps",
            "down_mean_mbps_ci95",
            "up_over_down",
            "jain_all",
            "jain_all_ci95",
            "total_mbps",
            "ap_acks_queued",
            "ap_data_queued",
            "ap_ack_drop_share",
            "ap_down_data_drop_share",
            "timeouts",
        ]
        out.tables["mean throughput per direction (Mb/s)"] = table[cols].reset_index(drop=True)
        out.tables["per run"] = runs.reset_index(drop=True)

        fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
        for ax, group, lab in (
            (axes[0], LOSS_BASED, "(a) loss-based and hybrid"),
            (axes[1], DELAY_BASED, "(b) delay-based"),
        ):
            for k, cc in enumerate(group):
                g = table[table["cc"] == cc]
                if not len(g):
                    continue
                for col, style, way in (("up_mean_mbps", "o-", "up"), ("down_mean_mbps", "s--", "down")):
                    ax.errorbar(
                        g["ap_buffer"],
                        g[col],
                        yerr=g[f"{col}_ci95"].fillna(0),
                        fmt=style,
                        color=f"C{k}",
                        capsize=2,
                        label=f"{LABEL[cc]} {way}",
                    )
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
                "Fig. 7: mean throughput of uplink (solid) and downlink (dashed) flows vs AP buffer"
                + (f" ({runs_note(table).removeprefix(', ')}, 95% intervals)" if runs_note(table) else ""),
            )
        )

        seeds = runs_note(table)
        lb = table[table["cc"].isin(LOSS_BASED)]
        worst = lb.sort_values("up_over_down").iloc[0] if len(lb) else None
        out.claims.append(
            claim(
                f"Loss-based and hybrid TCP: uplinks get at least {UNFAIR_RATIO:g}x the downlinks' "
                "throughput at every AP buffer size",
                every(r >= UNFAIR_RATIO if known(r) else None for r in lb["up_over_down"]),
                ""
                if worst is None
                else f"smallest up/down ratio {worst['up_over_down']:.2f} ({LABEL[worst['cc']]}, "
                f"buffer {worst['ap_buffer']:.0f}){seeds}",
            )
        )
        db = table[table["cc"].isin(DELAY_BASED)]
        if len(db):
            big = db[db["ap_buffer"] == db["ap_buffer"].max()]
            out.claims.append(
                claim(
                    "Delay-based TCP is fair between directions with a large AP buffer "
                    f"(up/down < {UNFAIR_RATIO:g} at {int(big['ap_buffer'].iloc[0])} packets)",
                    every(r < UNFAIR_RATIO if known(r) else None for r in big["up_over_down"]),
                    ", ".join(f"{LABEL[r.cc]} {r.up_over_down:.2f}" for r in big.itertuples()) + seeds,
                )
            )
            small = db[db["ap_buffer"] == db["ap_buffer"].min()]
            out.claims.append(
                claim(
                    "Delay-based TCP is fairer with a large AP buffer than with a small one",
                    every(
                        b >= s if known(b, s) else None
                        for b, s in zip(
                            big.set_index("cc")["jain_all"],
                            small.set_index("cc")["jain_all"].reindex(big["cc"]),
                            strict=True,
                        )
                    ),
                    ", ".join(
                        f"{LABEL[cc]} Jain {with_ci(small.set_index('cc').loc[cc], 'jain_all', 2)} -> "
                        f"{with_ci(big.set_index('cc').loc[cc], 'jain_all', 2)}"
                        for cc in big["cc"]
                    )
                    + seeds,
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
                f"({r['timeouts']:.0f} timeouts per run). 004 calls it 'significant unfairness'; how much "
                "its downlinks got cannot be read from the text (our copy has no figures). Fig. 10 runs the "
                "same configuration under other readings of the set-up (station queue 100, rwnd 1000, "
                "delayed ACKs)."
            )
        vegas, fast = CC["vegas"], CC["fast"]
        n = len(results[0][1].flows)
        out.notes.append(
            "Backlog the delay-based flows aim for: Vegas keeps alpha..beta = "
            f"{vegas['alpha']}..{vegas['beta']} packets per flow queued, "
            f"{n * vegas['alpha']}..{n * vegas['beta']} for {n} flows; FAST keeps "
            f"alpha = {fast['alpha']} per flow, {n * fast['alpha']} in all. An AP buffer below that "
            "backlog overflows (see ap_ack_drop_share and ap_down_data_drop_share); 004 puts the "
            "converged queue at about 100 packets."
        )
        return out
