"""001 fig. 4: the sending rate of one Reno or Veno flow under random loss."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import register
from ..base import Experiment, Figure, Outcome, Run
from ..common import claim, every, plt
from .measure import loss_label
from .paper import CCS, COLOR, KB, LABEL, MSS, router_scenario

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
            cc, p = params["cc"], params["loss"]
            t, sent = res.events_per_bin(BIN, [0], event="send", kind="data")
            r = sent * MSS / BIN / KB
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
                ax.set_title(f"{LABEL[cc]}, loss {loss_label(p)}", fontsize=9)
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
                ", ".join(f"{loss_label(p)}: Veno/Reno = {ratio(p):.2f}" for p in low),
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
