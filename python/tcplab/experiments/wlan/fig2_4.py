"""004 figs. 2-4: two uplink flows of FAST, Reno and CTCP: window, RTT, every frame's wireless
delay and the throughput per second."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ...result import Result
from .. import register
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim, known
from .measure import decided, longest_stall, runs_note, seed_means, with_ci
from .paper import CC, LABEL, READINGS, SETUP, cc_spec, duration_of, seeds_of, wlan_scenario

#: The table's column of the throughput's variability, which the FAST-Reno claim compares.
STD = "per-second throughput std (Mb/s)"
#: The figures of a configuration whose 95% interval over seeds the table shows.
WITH_CI = ("share <= 2 ms", "share <= 5 ms", "share > 5 ms", "share > 10 ms", STD)


def _mbps_per_second(res: Result, flow: int, start: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """One flow's throughput in 1-s bins from ``start``: (each bin's end, Mb/s)."""
    end, bps = res.throughput_bins(flow, 1.0, start)
    return end, bps / 1e6


@register
class Fig2to4(Experiment):
    name = "wlan/fig2-4"
    paper = "wlan"
    title = "Two uplink flows: cwnd, RTT, wireless delay and throughput (FAST, Reno, CTCP)"
    setup = (
        SETUP + " Two uplink flows of FAST (fig. 2), Reno (fig. 3) and CTCP (fig. 4); every station->AP "
        "frame's wireless delay (head of the MAC queue to its MAC ACK) is logged. Full mode also runs the "
        "three with a 100-packet station queue (second reading of the set-up)."
    )
    needs = ("topology:wlan", "cc:fast", "cc:ctcp")
    variants = ("fast", "reno", "ctcp")
    #: "most" and "rarely" in 004's reading of fig. 2(b) and 4(b), as shares of frames.
    most, rarely = 0.9, 0.01
    #: The second reading of the station queue (see the module doc).
    small_queue = "station queue 100"

    def runs(self, quick: bool) -> list[Run]:
        d = duration_of(quick)
        out = []
        readings = {"paper": {"frame_log": True}}
        if not quick:
            readings[self.small_queue] = READINGS[self.small_queue][0]
        for reading, topo in readings.items():
            for cc in self.variants:
                for seed in seeds_of(quick):
                    sc = wlan_scenario(2, 0, cc_spec(cc), d, sample_interval=0.1, topology=topo, seed=seed)
                    out.append(Run({"cc": cc, "reading": reading, "seed": seed}, sc))
        return out

    @staticmethod
    def _station_delays(res: Result, station: str = "w0") -> np.ndarray:
        """Wireless delays (ms) of the station's frames; empty without a frame log."""
        if res.frames is None or not len(res.frames):
            return np.array([])
        idx = int(np.flatnonzero(res.wifi["name"].to_numpy() == station)[0])
        return res.frames[res.frames["iface"] == idx]["delay"].to_numpy() * 1e3

    @staticmethod
    def _rtt(res: Result, cc: str) -> tuple[np.ndarray, np.ndarray, str]:
        """The RTT 004 plots: FAST's avgRTT, CTCP's minRTT (the smallest sample of each round,
        which its delay-based rule uses); for Reno the sender's smoothed RTT."""
        own = {"fast": ("avg_rtt", "avgRTT"), "ctcp": ("min_rtt", "minRTT")}
        if cc in own:
            var, label = own[cc]
            v = res.cc_vars[(res.cc_vars["flow"] == 0) & (res.cc_vars["name"] == var)]
            return v["time"].to_numpy(), v["value"].to_numpy(), label
        s = res.series[res.series["flow"] == 0]
        return s["time"].to_numpy(), s["srtt"].to_numpy(), "smoothed RTT"

    def _cwnd_rtt(self, ax, res: Result, cc: str, title: str) -> None:
        s = res.series[res.series["flow"] == 0]
        ax.plot(s["time"], s["cwnd"], color="C0", lw=0.8)
        ax.set_ylabel("cwnd (packets)", fontsize=8)
        t, rtt, rtt_name = self._rtt(res, cc)
        a2 = ax.twinx()
        a2.plot(t, rtt * 1e3, color="C3", lw=0.8)
        if cc == "ctcp":  # the baseRTT its backlog estimate compares minRTT with
            v = res.cc_vars[(res.cc_vars["flow"] == 0) & (res.cc_vars["name"] == "base_rtt")]
            a2.plot(v["time"], v["value"] * 1e3, color="C3", lw=0.8, ls="--")
        a2.set_ylabel(f"{rtt_name} (ms)", color="C3", fontsize=8)
        base = ", baseRTT dashed" if cc == "ctcp" else ""
        ax.set_title(f"{title}: cwnd (blue) and {rtt_name} (red{base}) of flow up0", fontsize=9)

    @staticmethod
    def _throughput(ax, res: Result, title: str) -> None:
        for flow in (0, 1):
            x, y = _mbps_per_second(res, flow)
            ax.plot(x, y, lw=0.8, label=f"up{flow}")
        ax.set_ylabel("throughput (Mb/s)", fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)

    def _paper_figure(self, cc: str, res: Result, seed: int) -> Figure:
        fig, (a, b, c) = plt.subplots(3, 1, figsize=(6.4, 7.2))
        self._cwnd_rtt(a, res, cc, f"(a) {LABEL[cc]}")
        fr = res.frames[res.frames["iface"] == int(np.flatnonzero(res.wifi["name"].to_numpy() == "w0")[0])]
        b.plot(fr["time"], fr["delay"] * 1e3, ",", color="C2", rasterized=True)
        b.set_ylabel("wireless delay (ms)")
        b.set_title("(b) station w0 -> AP, every frame", fontsize=9)
        self._throughput(c, res, "(c) throughput per second")
        c.set_xlabel("time (s)")
        for ax in (a, b, c):
            ax.grid(True, alpha=0.3)
        fig.tight_layout()
        n = {"fast": 2, "reno": 3, "ctcp": 4}[cc]
        return Figure(
            cc,
            fig,
            f"Fig. {n}: {LABEL[cc]}, two uplink flows (cwnd and RTT, wireless delay, throughput; "
            f"seed {seed})",
        )

    def _reading_figure(self, runs: dict[str, Result], reading: str, seed: int) -> Figure:
        fig, axes = plt.subplots(len(runs), 2, figsize=(11, 2.6 * len(runs)), squeeze=False)
        for (cc, res), (a, b) in zip(runs.items(), axes, strict=True):
            self._cwnd_rtt(a, res, cc, LABEL[cc])
            self._throughput(b, res, f"{LABEL[cc]}: throughput per second")
            for ax in (a, b):
                ax.grid(True, alpha=0.3)
        for ax in axes[-1]:
            ax.set_xlabel("time (s)")
        fig.tight_layout()
        return Figure(
            "station-queue-100",
            fig,
            f"Figs. 2-4 under the second reading ({reading}): cwnd, RTT and throughput (seed {seed})",
        )

    def _row(self, cc: str, reading: str, seed: int, res: Result) -> dict[str, Any]:
        delay_ms = self._station_delays(res)
        start = res.meta["measure"][0]
        thr = np.concatenate([_mbps_per_second(res, f, start)[1] for f in (0, 1)])
        share = (lambda m: float(m.mean())) if delay_ms.size else (lambda m: float("nan"))
        whole = res.series[res.series["flow"] == 0]
        flow0 = whole[whole["time"] >= start]
        return {
            "cc": LABEL[cc],
            "reading": reading,
            "seed": seed,
            "total_mbps": float(res.flows["goodput_bps"].sum() / 1e6),
            "frames w0->AP": int(delay_ms.size),
            "share <= 2 ms": share(delay_ms <= 2),
            "share <= 5 ms": share(delay_ms <= 5),
            "share > 5 ms": share(delay_ms > 5),
            "share > 10 ms": share(delay_ms > 10),
            "max delay ms": float(delay_ms.max()) if delay_ms.size else float("nan"),
            STD: float(thr.std()),
            "up0 mean srtt (s)": float(flow0["srtt"].mean()),
            "up0 max srtt (s), whole run": float(whole["srtt"].max()),
            "up0 max cwnd, whole run": float(whole["cwnd"].max()),
            "up0 longest stall (s)": longest_stall(*_mbps_per_second(res, 0)),
            "timeouts": int(res.flows["timeouts"].sum()),
        }

    def analyze(self, results, quick) -> Outcome:
        out = Outcome(self)
        rows = []
        alt: dict[str, Result] = {}
        ctcp: dict[str, tuple[int, Result]] = {}
        first = min((p["seed"] for p, _ in results), default=None)
        for p, res in results:
            rows.append(self._row(p["cc"], p["reading"], p["seed"], res))
            if p["seed"] != first:  # the time series are drawn from one seed
                continue
            if p["cc"] == "ctcp":
                ctcp[p["reading"]] = (p["seed"], res)
            if p["reading"] == "paper":
                out.figures.append(self._paper_figure(p["cc"], res, first))
            else:
                alt[p["cc"]] = res
        if alt:
            out.figures.append(self._reading_figure(alt, self.small_queue, first))
        if not rows:
            return out
        runs = pd.DataFrame(rows)
        table = seed_means(runs.drop(columns="seed"), ["cc", "reading"], WITH_CI)
        out.tables["wireless delay and throughput stability"] = table
        out.tables["per run"] = runs
        seeds = runs_note(table)
        paper = table[table["reading"] == "paper"].set_index("cc")
        if "FAST" in paper.index:
            f = paper.loc["FAST"]
            out.claims.append(
                claim(
                    f"FAST: most wireless delays are within 5 ms (>= {self.most:.0%} of frames) and delays "
                    f"above 10 ms are rare (<= {self.rarely:.0%})",
                    decided(
                        f,
                        f["share <= 5 ms"] >= self.most and f["share > 10 ms"] <= self.rarely,
                        "share <= 5 ms",
                        "share > 10 ms",
                    ),
                    f"{with_ci(f, 'share <= 5 ms', 1, percent=True)} within 5 ms, "
                    f"{with_ci(f, 'share > 10 ms', 2, percent=True)} above 10 ms{seeds}",
                )
            )
        if "CTCP" in paper.index:
            c = paper.loc["CTCP"]
            out.claims.append(
                claim(
                    f"CTCP: most wireless delays are below 2 ms (>= {self.most:.0%}) and rarely exceed 5 ms "
                    f"(<= {self.rarely:.0%})",
                    decided(
                        c,
                        c["share <= 2 ms"] >= self.most and c["share > 5 ms"] <= self.rarely,
                        "share <= 2 ms",
                        "share > 5 ms",
                    ),
                    f"{with_ci(c, 'share <= 2 ms', 1, percent=True)} within 2 ms, "
                    f"{with_ci(c, 'share > 5 ms', 2, percent=True)} above 5 ms{seeds}",
                )
            )
        for reading, g in table.groupby("reading", sort=False):
            g = g.set_index("cc")
            if {"FAST", "Reno"} <= set(g.index):
                fs, rs = g.loc["FAST", STD], g.loc["Reno", STD]
                out.claims.append(
                    claim(
                        f"[{reading}] FAST's throughput is not disturbed by the delay fluctuations: it "
                        "varies no more than Reno's, whose window ignores RTT (figs. 2(c), 3(c))",
                        fs <= rs if known(fs, rs) else None,
                        "std of per-second throughput over the measured window: FAST "
                        f"{with_ci(g.loc['FAST'], STD, 2)}, Reno {with_ci(g.loc['Reno'], STD, 2)} "
                        f"Mb/s{seeds}",
                    )
                )
        if "Reno" in paper.index:
            r = paper.loc["Reno"]
            out.notes.append(
                f"With the 10000-packet station queue of the 'large enough' reading, the loss-based windows "
                f"fill the station's queue ({seeds.removeprefix(', ') or 'one run'}): Reno's up0 "
                f"reaches cwnd {r['up0 max cwnd, whole run']:.0f} and a "
                f"smoothed RTT of {r['up0 max srtt (s), whole run']:.1f} s (mean "
                f"{r['up0 mean srtt (s)']:.1f} s over the measured window), and a lost "
                "retransmission then waits for an RTO of several seconds (up0's longest stall: "
                f"{r['up0 longest stall (s)']:.0f} s). "
                f"The second reading (100-packet station queue) is shown beside it in full mode; the table's "
                "'longest stall' is the longest stretch of seconds in which up0 delivered under 10% of its "
                "mean rate."
            )
        for reading, (seed, res) in ctcp.items():
            out.notes.append(_ctcp_note(reading, seed, res))
        return out


def _ctcp_note(reading: str, seed: int, res: Result) -> str:
    """Whether CTCP's delay-based window opened in a run, and why not: without it CTCP is
    Reno, which the tables then show. diff is sampled over time (the last round's value)."""
    v = res.cc_vars[res.cc_vars["flow"] == 0]
    dwnd = v[v["name"] == "dwnd"]["value"].to_numpy(dtype=float)
    diff = v[v["name"] == "diff"].dropna(subset=["value"])
    if not dwnd.size:
        return f"[{reading}, seed {seed}] CTCP's variables were not sampled in this run: nothing to say."
    opened = float(dwnd.max())
    head = f"[{reading}, seed {seed}] CTCP's delay-based window dwnd (flow up0) reached {opened:.0f} packets"
    if not len(diff):
        s = res.series[res.series["flow"] == 0]
        left = s[s["ssthresh"] < s["ssthresh"].iloc[0]]["time"] if len(s) else s["time"]
        when = f"left slow start at {left.min():.1f} s" if len(left) else "never left slow start"
        return (
            f"{head}: no round of congestion avoidance ended above CTCP's low window (up0 {when}; "
            "dwnd is off in slow start, draft-sridharan section 3), so CTCP ran as Reno here."
        )
    values = diff["value"].to_numpy(dtype=float)
    gamma = CC["ctcp"]["gamma"]
    low = float((values < gamma).mean())
    said = (
        f"its backlog estimate diff had a median of {np.median(values):.1f} packets and was below "
        f"gamma = {gamma:g}, where dwnd grows, {low:.0%} of the time"
    )
    if opened < 1 and low < 0.01:
        return f"{head}: {said}. The station's queue holds that backlog, so CTCP ran as Reno."
    return f"{head} (mean {dwnd.mean():.1f}): {said}."
