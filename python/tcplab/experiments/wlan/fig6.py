"""004 fig. 6: sixteen Vegas uplinks keep a steady number of ACKs queued at the access point and
lose none."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from .. import register
from ..ablation import vegas_ns2_module_ablation
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim, comparison, seeds_claim
from .measure import ack_drops_per_second, decided, per_flow_bars, run_summary, runs_note, seed_means, with_ci
from .paper import CC, FAIR_JAIN, FIG6_PUBLISHED, SETUP, cc_spec, duration_of, seeds_of, wlan_scenario


@register
class Fig6(Experiment):
    name = "wlan/fig6"
    paper = "wlan"
    title = "16 uplink Vegas flows: ACKs queued at the AP"
    setup = SETUP + " 16 uplink Vegas flows (Linux variant, alpha 2, beta 4)."
    needs = ("topology:wlan", "cc:vegas")
    ablations = (vegas_ns2_module_ablation(),)
    published = FIG6_PUBLISHED

    def runs(self, quick: bool) -> list[Run]:
        return [
            Run(
                {"cc": "vegas", "uplinks": 16, "seed": seed},
                wlan_scenario(16, 0, cc_spec("vegas"), duration_of(quick), event_log=True, seed=seed),
            )
            for seed in seeds_of(quick)
        ]

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        results = sorted(results, key=lambda pr: pr[0]["seed"])
        if not results:
            return out
        rows = [{"seed": p["seed"], **_settled(res)} for p, res in results]
        per_seed = pd.DataFrame(rows)
        out.tables["summary per seed"] = per_seed
        m = seed_means(per_seed.drop(columns="seed"), (), ("ap_acks_queued", "ap_acks_cv", "jain_up")).iloc[0]
        (params, res), n = results[0], len(results[0][1].flows)
        out.figures.append(self._figure(res, params["seed"]))
        out.figures.append(
            Figure(
                "per-flow",
                per_flow_bars([("16 Vegas uplinks", res)]),
                f"Throughput of each Vegas uplink flow (seed {params['seed']})",
            )
        )
        v = CC["vegas"]
        lo, hi = n * v["alpha"], n * v["beta"]
        pub = self.published[0].value

        def where(x: float) -> str:
            return "inside" if lo <= x <= hi else "outside"

        out.notes.append(
            f"Each Vegas flow keeps alpha..beta = {v['alpha']}..{v['beta']} packets queued at its "
            f"bottleneck, so {n} flows aim for {lo}..{hi}; the uplinks' bottleneck queue is the AP's ACK "
            f"queue. Ours settles at {m['ap_acks_queued']:.1f} ({where(m['ap_acks_queued'])} that range"
            f"{runs_note(m)}), 004's at about {pub:g} ({where(pub)})."
        )
        out.comparison = comparison(
            zip(
                self.published,
                (m["ap_acks_queued"], m["ap_ack_drops"], m["ap_ack_drops_in_window"]),
                strict=True,
            )
        )
        start = results[0][1].meta["measure"][0]
        out.claims.append(
            seeds_claim(
                "No ACK is lost at the AP once the flows have settled (measured window)",
                [decided(r, r["ap_ack_drops_in_window"] == 0, "ap_ack_drops_in_window") for r in rows],
                f"ACKs dropped after {start:.0f} s (whole run): "
                + ", ".join(
                    f"seed {r['seed']}: {r['ap_ack_drops_in_window']:.0f} ({r['ap_ack_drops']})" for r in rows
                ),
            )
        )
        out.claims.append(
            claim(
                "The number of queued ACKs stays about constant (coefficient of variation < 0.25)",
                decided(m, m["ap_acks_cv"] < 0.25, "ap_acks_cv"),
                f"each run's coefficient of variation, {with_ci(m, 'ap_acks_cv')} (queue mean "
                f"{m['ap_acks_queued']:.1f}, std {m['ap_acks_std']:.1f}{runs_note(m)})",
            )
        )
        out.claims.append(
            claim(
                f"No unfairness among the Vegas uplinks (Jain >= {FAIR_JAIN})",
                decided(m, m["jain_up"] >= FAIR_JAIN, "jain_up"),
                f"Jain {with_ci(m, 'jain_up')}{runs_note(m)}",
            )
        )
        out.claims.append(
            seeds_claim(
                "No Vegas uplink starves",
                [r["starved_up"] == 0 for r in rows],
                ", ".join(f"seed {r['seed']}: {r['starved_up']} starved" for r in rows),
            )
        )
        return out

    def _figure(self, res, seed: int) -> Figure:
        t, drops = ack_drops_per_second(res)
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
        return Figure(
            "ap-acks",
            fig,
            f"Fig. 6: TCP ACKs queued (top) and dropped (bottom) at the AP, 16 Vegas uplinks (seed {seed})",
        )


def _settled(res) -> dict:
    """One run's summary with the AP's ACK queue and ACK drops over the measured window (NaN
    when the event log cannot say: it is empty, or it holds none of the drops the AP counted)."""
    s = run_summary(res)
    start = res.meta["measure"][0]
    q = res.ap_queue[res.ap_queue["time"] >= start]["acks"].to_numpy(dtype=float)
    t, drops = ack_drops_per_second(res)
    logged = len(res.events) > 0 and (drops.sum() > 0 or s["ap_ack_drops"] == 0)
    return {
        **s,
        "ap_ack_drops_in_window": float(drops[t >= start].sum()) if logged else float("nan"),
        "ap_acks_std": float(q.std()) if q.size else float("nan"),
        "ap_acks_cv": float(q.std() / q.mean()) if q.size and q.mean() > 0 else float("nan"),
    }
