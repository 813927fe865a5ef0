"""The runs and tables figs. 8 and 10 share: Reno under the four fairness methods of 004
section III-B, each over several seeds, and the second readings of the set-up (one seed each,
for the notes)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..base import Experiment, Figure, Outcome, Run
from .measure import flow_table, per_flow_bars, run_summary, seed_means, up_over_down
from .paper import METHODS, READINGS, cc_spec, duration_of, seeds_of, wlan_scenario

#: The figures of a configuration whose 95% interval over seeds the tables show.
WITH_CI = ("total_mbps", "jain_all", "jain_up", "jain_down", "starved_up")


class MethodsExperiment(Experiment):
    """Shared runs and tables of figs. 8 and 10: Reno under the four methods."""

    paper = "wlan"
    needs = ("topology:wlan", "queue:split")
    up, down = 16, 0

    def runs(self, quick: bool) -> list[Run]:
        d = duration_of(quick)
        out = [
            Run({"method": k, "reading": "paper", "seed": s}, m.scenario(self.up, self.down, d, seed=s))
            for s in seeds_of(quick)
            for k, m in METHODS.items()
        ]
        if quick:
            return out
        out += [
            Run(
                {"method": k, "reading": "delayed ACKs", "seed": 1},
                m.scenario(self.up, self.down, d, tcp={"delayed_ack": True}),
            )
            for k, m in METHODS.items()
        ]
        for reading, (topo, tcp) in READINGS.items():
            sc = wlan_scenario(self.up, self.down, cc_spec("reno"), d, topology=topo, tcp=tcp or None)
            out.append(Run({"method": "a", "reading": reading, "seed": 1}, sc))
        return out

    def _tables(self, results, out: Outcome) -> pd.DataFrame:
        """The table of every configuration: each figure's mean over its runs (seeds), with the
        95% interval of those in WITH_CI, the number of runs, and up/down as the ratio of the
        mean rates."""
        rows = [
            {
                "method": METHODS[p["method"]].label,
                "key": p["method"],
                "reading": p["reading"],
                "seed": p["seed"],
                **run_summary(r),
            }
            for p, r in results
        ]
        runs = pd.DataFrame(rows)
        table = seed_means(runs.drop(columns="seed"), ["method", "key", "reading"], WITH_CI)
        # The ratio of the mean rates, not the mean of each run's ratio: a run whose downlinks
        # are all but starved would make that mean thousands.
        table["up_over_down"] = [
            up_over_down(u, d) for u, d in zip(table["up_mean_mbps"], table["down_mean_mbps"], strict=True)
        ]
        cols = [
            "method",
            "reading",
            "runs",
            "total_mbps",
            "total_mbps_ci95",
            "jain_all",
            "jain_up",
            "jain_up_ci95",
            "jain_down",
            "up_mean_mbps",
            "down_mean_mbps",
            "up_over_down",
            "starved_up",
            "timeouts",
            "ap_acks_queued",
            "ap_ack_drops",
            "ap_ack_drop_share",
            "ap_down_data_drop_share",
        ]
        out.tables["methods"] = table[cols]
        paper = {p["method"]: r for p, r in results if p["reading"] == "paper" and p["seed"] == 1}
        out.figures.append(
            Figure(
                "per-flow",
                per_flow_bars([(METHODS[k].label, paper[k]) for k in METHODS if k in paper]),
                f"Throughput of each flow in one run (seed 1) ({self.up} up"
                + (f", {self.down} down; uplinks blue, downlinks orange)" if self.down else ")"),
            )
        )
        delayed = {p["method"]: r for p, r in results if p["reading"] == "delayed ACKs"}
        if delayed:
            out.figures.append(
                Figure(
                    "per-flow-delack",
                    per_flow_bars([(METHODS[k].label, delayed[k]) for k in METHODS if k in delayed]),
                    "The same with delayed ACKs (second reading of the receiver)",
                )
            )
        per_flow = {k: flow_table(r).set_index("flow")["mbps"] for k, r in paper.items()}
        out.tables["throughput of each flow in one run (seed 1, Mb/s)"] = pd.DataFrame(per_flow).reset_index()
        return table

    @staticmethod
    def _window_cuts(results, method: str) -> dict[str, float]:
        """Per flow of one method (the paper's reading), means by direction over its runs:
        ACK-loss reductions (the wrapper's own counter), data-loss responses and timeouts."""
        per_run = [_cuts_of(r) for p, r in results if p["method"] == method and p["reading"] == "paper"]
        if not per_run:
            return {}
        return {k: float(np.mean([c[k] for c in per_run])) for k in per_run[0]}

    @staticmethod
    def _row(table: pd.DataFrame, key: str, reading: str = "paper") -> pd.Series | None:
        r = table[(table["key"] == key) & (table["reading"] == reading)]
        return r.iloc[0] if len(r) else None

    def _readings_note(self, table: pd.DataFrame, out: Outcome) -> None:
        rows = table[(table["key"] == "a")]
        if len(rows) < 2:
            return
        parts = [
            f"{r.reading}: Jain {r.jain_all:.2f}, total {r.total_mbps:.1f} Mb/s"
            + (
                f", downlink mean {r.down_mean_mbps:.3f} Mb/s"
                if self.down
                else f", {r.starved_up:.0f} starved"
            )
            for r in rows.itertuples()
        ]
        out.notes.append("Unmodified Reno under each reading of the set-up: " + "; ".join(parts) + ".")


def _cuts_of(r) -> dict[str, float]:
    """One run's means by direction: ACK-loss reductions, data-loss responses, timeouts."""
    ft = flow_table(r)
    up = ft.index[ft["direction"] == "up"]
    down = ft.index[ft["direction"] == "down"]
    cuts = r.cc_vars[r.cc_vars["name"] == "ack_loss_reductions"].groupby("flow")["value"].max()
    losses = r.losses.groupby("flow").size()

    def mean(series, idx):
        return float(series.reindex(idx, fill_value=0).mean()) if len(idx) else float("nan")

    return {
        "up_ack_cuts": mean(cuts, up),
        "up_loss_responses": mean(losses, up),
        "down_loss_responses": mean(losses, down),
        "down_timeouts": float(ft.loc[down, "timeouts"].mean()) if len(down) else float("nan"),
    }
