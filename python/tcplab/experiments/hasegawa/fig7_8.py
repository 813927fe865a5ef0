"""003 figs. 7 and 8: one Vegas or Vegas+ flow against five Reno flows that come and go: window
and instantaneous throughput."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ...result import Result
from .. import register
from ..ablation import vegasplus_count_ablation, vegasplus_window_ablation
from ..base import Claim, Experiment, Figure, Outcome, Run
from ..common import claim
from .paper import CAPACITY_KBPS, VEGAS, VEGAS_PLUS_8, VEGAS_SIDE, hasegawa_scenario

PHASES = (
    ("Reno off", 50.0, 250.0),
    ("Reno on", 300.0, 500.0),
    ("Reno off", 550.0, 750.0),
    ("Reno on", 800.0, 1000.0),
)
RENO_ON = [[250.0, 500.0], [750.0, 1000.0]]


def _per_second(res: Result, flow: int) -> pd.DataFrame:
    """One flow's goodput in 1 s bins: each bin's end (time) and kb/s."""
    end, bps = res.throughput_bins(flow, 1.0)
    return pd.DataFrame({"time": end, "kbps": bps / 1e3})


@register
class Fig7(Experiment):
    name = "hasegawa/fig7-8"
    paper = "hasegawa"
    title = "Vegas and Vegas+ against on/off Reno traffic: window and instantaneous throughput (figs. 7, 8)"
    ablations = (vegasplus_count_ablation(), vegasplus_window_ablation())
    setup = (
        "Fig. 1 network, DropTail B = 100; 1000 s. One Vegas (a) or Vegas+ with count_max = 8 (b) from a "
        "random time in [0, 1] s; five Reno flows active only in 250-500 s and 750-1000 s (on/off "
        "schedule; they resume with their previous state). Other assumptions as for fig. 3. Instantaneous "
        "throughput over 1 s bins; per-phase means skip each phase's first 50 s. Same in quick mode."
    )
    needs = ("cc:vegas", "cc:vegas_plus")
    duration = 1000.0

    def runs(self, quick: bool) -> list[Run]:
        runs = []
        for label, cc in (("Vegas", VEGAS), ("Vegas+", VEGAS_PLUS_8.vegas_cc)):
            sc = hasegawa_scenario(
                5, 1, 100, vegas_cc=cc, duration=self.duration, measure=(0.0, self.duration), seed=1,
                sample_interval=0.2, reno_schedule=RENO_ON,
            )  # fmt: skip
            runs.append(Run({"algorithm": label}, sc))
        return runs

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        traces = {params["algorithm"]: res for params, res in results}
        rows = []
        for algo, res in traces.items():
            vid = res.flow_ids(*VEGAS_SIDE)[0]
            reno_ids = res.flow_ids("reno")
            s = res.series
            thr = _per_second(res, vid)
            reno_thr = [_per_second(res, r) for r in reno_ids]
            for phase, a, b in PHASES:
                v = s[(s["flow"] == vid) & (s["time"] > a) & (s["time"] <= b)]
                r = s[s["flow"].isin(reno_ids) & (s["time"] > a) & (s["time"] <= b)]
                in_phase = (thr["time"] > a) & (thr["time"] <= b)
                rows.append(
                    {
                        "algorithm": algo,
                        "phase": f"{phase} {a:.0f}-{b:.0f} s",
                        "reno_on": phase == "Reno on",
                        "cwnd_mean": v["cwnd"].mean(),
                        "cwnd_std": v["cwnd"].std(),
                        "kbps": thr.loc[in_phase, "kbps"].mean(),
                        "reno_cwnd_mean": r["cwnd"].mean() if phase == "Reno on" else math.nan,
                        "reno_kbps_per_flow": (
                            np.mean([x.loc[in_phase, "kbps"].mean() for x in reno_thr])
                            if phase == "Reno on"
                            else math.nan
                        ),
                    }
                )
        table = pd.DataFrame(rows)
        out.tables["per phase: the Vegas/Vegas+ flow and the Reno flows"] = table
        out.figures += self._figures(traces)
        out.claims += self._claims(table)
        out.notes.append(
            "003 prints figs. 7 and 8 as plots only. Fair share while Reno is on: "
            f"{CAPACITY_KBPS / 6:.0f} kb/s per flow (1/6 of the {CAPACITY_KBPS:.0f} kb/s goodput capacity)."
        )
        if "Vegas+" in traces:
            out.notes.append(_aggressive_after_reno(traces["Vegas+"]))
        return out

    def _figures(self, traces: dict[str, Result]) -> list[Figure]:
        fig7, ax7 = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
        fig8, ax8 = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
        for i, (algo, res) in enumerate(traces.items()):
            vid, rid = res.flow_ids(*VEGAS_SIDE)[0], res.flow_ids("reno")[0]
            s = res.series
            v, r = s[s["flow"] == vid], s[(s["flow"] == rid) & s["time"].between(250, 1000)]
            ax7[i].plot(
                r["time"],
                r["cwnd"].where(_reno_active(r["time"])),
                color="C0",
                lw=0.6,
                alpha=0.6,
                label="a Reno flow",
            )
            ax7[i].plot(v["time"], v["cwnd"], color="C1", lw=0.8, label=algo)
            ax7[i].set_ylabel("window (packets)")
            thr = _per_second(res, vid)
            ax8[i].plot(thr["time"], thr["kbps"], color="C1", lw=0.8, label=algo)
            ax8[i].axhline(
                CAPACITY_KBPS / 6, color="k", ls=":", lw=0.8, label="fair share with Reno on (1/6)"
            )
            ax8[i].set_ylabel("throughput (kb/s)")
            for ax in (ax7[i], ax8[i]):
                ax.set_title(f"({'ab'[i]}) TCP {algo}", fontsize=10)
                for on, off in RENO_ON:
                    ax.axvspan(on, off, color="0.9", zorder=0)
                ax.grid(True, alpha=0.3)
                ax.legend(fontsize=7, loc="upper right")
        for ax in (ax7[-1], ax8[-1]):
            ax.set_xlabel("time (s)  (shaded: five Reno flows active)")
        fig7.tight_layout()
        fig8.tight_layout()
        return [
            Figure(
                "fig7",
                fig7,
                "Fig. 7: congestion window of the Vegas (a) and Vegas+ (b) flow, and of one Reno flow",
            ),
            Figure(
                "fig8",
                fig8,
                "Fig. 8: instantaneous throughput (1 s bins) of the Vegas (a) and Vegas+ (b) flow",
            ),
        ]

    def _claims(self, t: pd.DataFrame) -> list[Claim]:
        def phase(algo, on):
            return t[(t["algorithm"] == algo) & (t["reno_on"] == on)]

        fair = CAPACITY_KBPS / 6
        vegas_on, vegas_off = phase("Vegas", True), phase("Vegas", False)
        plus_on, plus_off = phase("Vegas+", True), phase("Vegas+", False)
        return [
            claim(
                "Vegas does not open its window when Reno joins "
                "(mean cwnd with Reno on <= 1.25 x with Reno off)",
                vegas_on["cwnd_mean"].mean() <= 1.25 * vegas_off["cwnd_mean"].mean(),
                f"{vegas_on['cwnd_mean'].mean():.1f} vs {vegas_off['cwnd_mean'].mean():.1f} packets",
            ),
            claim(
                "Vegas's throughput is degraded while Reno is on (below half its fair share)",
                vegas_on["kbps"].mean() < 0.5 * fair,
                f"{vegas_on['kbps'].mean():.0f} kb/s vs fair share {fair:.0f}",
            ),
            claim(
                "Vegas+ raises its window to about the Reno flows' "
                "(mean cwnd with Reno on >= 75% of Reno's mean)",
                plus_on["cwnd_mean"].mean() >= 0.75 * plus_on["reno_cwnd_mean"].mean(),
                f"Vegas+ {plus_on['cwnd_mean'].mean():.1f} vs "
                f"Reno {plus_on['reno_cwnd_mean'].mean():.1f} packets",
            ),
            claim(
                "Without Reno, Vegas+'s window is as stable as Vegas's (std within 0.5 packet of Vegas's)",
                plus_off["cwnd_std"].mean() <= vegas_off["cwnd_std"].mean() + 0.5,
                f"std {plus_off['cwnd_std'].mean():.2f} vs {vegas_off['cwnd_std'].mean():.2f} packets",
            ),
            claim(
                "Vegas+ gets rather good fairness while Reno is on (at least 75% of its fair share)",
                plus_on["kbps"].mean() >= 0.75 * fair,
                f"Vegas+ {plus_on['kbps'].mean():.0f}, Vegas {vegas_on['kbps'].mean():.0f}, Reno per flow "
                f"{plus_on['reno_kbps_per_flow'].mean():.0f} kb/s; fair share {fair:.0f}",
            ),
        ]


def _aggressive_after_reno(res: Result) -> str:
    """How long Vegas+ stays in aggressive mode after each Reno period ends, and how far its window
    grows meanwhile (section 5.1: only a count of zero returns it to moderate mode)."""
    vid = res.flow_ids(*VEGAS_SIDE)[0]
    mode = res.cc_var(vid, "aggressive")
    cwnd = res.series[res.series["flow"] == vid]
    parts = []
    for _on, off in RENO_ON[:-1]:
        after = mode[mode["time"] > off]
        moderate = after[after["value"] == 0.0]
        back = float(moderate["time"].iloc[0]) if len(moderate) else math.nan
        peak = (
            float(cwnd[(cwnd["time"] > off) & (cwnd["time"] <= back)]["cwnd"].max())
            if len(moderate)
            else math.nan
        )
        parts.append(
            f"{back - off:.0f} s after the Reno flows stop at {off:.0f} s (window up to {peak:.0f} packets)"
        )
    return (
        "Vegas+ leaves aggressive mode only when its count falls to 0, which needs falling RTTs; once the "
        "Reno flows stop, its own Reno-like growth keeps the RTT rising, so it stays aggressive until losses "
        "halve the count to 0: back to moderate mode " + "; ".join(parts) + "."
    )


def _reno_active(t: pd.Series) -> pd.Series:
    return pd.concat([t.between(on, off) for on, off in RENO_ON], axis=1).any(axis=1)
