"""001 table I: Veno's loss classification (its 4/5 and 1/2 branches) against the true cause
of every loss, on the fig. 3(b) wireless test bed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from .. import register
from ..ablation import veno_basertt_ablation
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim, comparison, every, figure
from .measure import frac, transfer_kBps
from .paper import (
    BRANCH,
    CAUSE,
    CELLS,
    FF12,
    FF45,
    MB,
    TABLE1_PUBLISHED,
    TABLE1_PUBLISHED_NUMBERS,
    kbps_label,
    wireless_scenario,
)

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
    published = TABLE1_PUBLISHED_NUMBERS

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
                    "UDP": kbps_label(params["udp_bps"]),
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
                            row[f"{kbps_label(rate)}: {cause}"] = int(c.n(loss, rate, branch, cause, k))
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
                    row[f"{kbps_label(rate)}: congestion"] = vals[2 * i]
                    row[f"{kbps_label(rate)}: random"] = vals[2 * i + 1]
                pub_rows.append(row)
        out.tables["published: table I, three runs"] = pd.DataFrame(pub_rows)

        acc_rows = []
        for rate in rates:
            pub = _published_cells(rate)
            pr, pt = pub[(FF45, "random")], pub[(FF45, "random")] + pub[(FF45, "congestion")]
            pm, pc = pub[(FF45, "congestion")], pub[(FF45, "congestion")] + pub[(FF12, "congestion")]
            row = {
                "UDP": kbps_label(rate),
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
                ours[f"first run, UDP {kbps_label(rate)}: {branch} {cause}"] = (
                    c.n(main, rate, branch, cause) / nruns
                )
        r, t = c.accuracy_45(main, 500e3)
        ours["UDP 500 kb/s: #FF4/5 that were random losses"] = frac(r, t)
        a, b = c.n(main, 500e3, FF12, "congestion"), c.n(main, 500e3, FF12, "random")
        ours["UDP 500 kb/s: #FF1/2 that were congestion losses"] = frac(a, a + b)
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
            pub45 = [frac(p[(FF45, "random")], p[(FF45, "random")] + p[(FF45, "congestion")]) for p in pub]
            ax.bar(x - 0.4 + w / 2, pub45, w, color="grey", label="4/5 cuts that were random (published)")
            for i, loss in enumerate(losses):
                acc = [frac(*c.accuracy_45(loss, r)) for r in rates]
                ax.bar(
                    x - 0.4 + w * (i + 1.5),
                    acc,
                    w,
                    color=f"C{2 + i}",
                    label=f"ours, {loss:.0%} wireless loss",
                )
            pubm = [
                frac(p[(FF45, "congestion")], p[(FF45, "congestion")] + p[(FF12, "congestion")]) for p in pub
            ]
            ax.plot(
                x - 0.4 + w / 2, pubm, "v", color="k", ms=8, label="congestion losses cut by 4/5 (published)"
            )
            for i, loss in enumerate(losses):
                mis = [frac(*c.misdiagnosed(loss, r)) for r in rates]
                ax.plot(x - 0.4 + w * (i + 1.5), mis, "v", color=f"C{2 + i}", mec="k", ms=8)
            ax.set_xticks(x, [kbps_label(r) for r in rates])
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
            return ", ".join(f"{kbps_label(r)}: {a:.0f}/{b:.0f}" for r in rates for a, b in [fn(loss, r)])

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


def _share_text(a: float, b: float) -> str:
    """'3/4 = 75%'; a share of nothing is shown as such, not as 'nan%'."""
    return f"{a:.0f}/{b:.0f} = {a / b:.0%}" if b else f"{a:.0f}/{b:.0f} (no events)"


Count = Callable[[float, float], tuple[float, float]]


def _shares(rates: list[float], count: Count, loss: float) -> list[float]:
    """``count``'s share at each background rate that has events: a share of no events says
    nothing, so a claim over the rates is decided on these (and on none: not evaluated)."""
    return [a / b for a, b in (count(loss, r) for r in rates) if b]
