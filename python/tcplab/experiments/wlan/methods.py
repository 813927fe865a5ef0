"""The runs and tables figs. 8 and 10 share: Reno under the four fairness methods of 004
section III-B (and the second readings of the set-up)."""

from __future__ import annotations

import pandas as pd

from ..base import Experiment, Figure, Outcome, Run
from .measure import flow_table, per_flow_bars, run_summary
from .paper import METHODS, READINGS, cc_spec, duration_of, wlan_scenario


class MethodsExperiment(Experiment):
    """Shared runs and tables of figs. 8 and 10: Reno under the four methods."""

    paper = "wlan"
    needs = ("topology:wlan", "queue:split")
    up, down = 16, 0

    def runs(self, quick: bool) -> list[Run]:
        d = duration_of(quick)
        out = [
            Run({"method": k, "reading": "paper"}, m.scenario(self.up, self.down, d))
            for k, m in METHODS.items()
        ]
        if quick:
            return out
        out += [
            Run(
                {"method": k, "reading": "delayed ACKs"},
                m.scenario(self.up, self.down, d, tcp={"delayed_ack": True}),
            )
            for k, m in METHODS.items()
        ]
        for reading, (topo, tcp) in READINGS.items():
            sc = wlan_scenario(self.up, self.down, cc_spec("reno"), d, topology=topo, tcp=tcp or None)
            out.append(Run({"method": "a", "reading": reading}, sc))
        return out

    def _tables(self, results, out: Outcome) -> pd.DataFrame:
        rows = [
            {
                "method": METHODS[p["method"]].label,
                "key": p["method"],
                "reading": p["reading"],
                **run_summary(r),
            }
            for p, r in results
        ]
        table = pd.DataFrame(rows)
        cols = [
            "method",
            "reading",
            "total_mbps",
            "jain_all",
            "jain_up",
            "jain_down",
            "up_mean_mbps",
            "down_mean_mbps",
            "starved_up",
            "timeouts",
            "ap_acks_queued",
            "ap_ack_drops",
            "ap_ack_drop_share",
            "ap_down_data_drop_share",
        ]
        out.tables["methods"] = table[cols]
        paper = {p["method"]: r for p, r in results if p["reading"] == "paper"}
        out.figures.append(
            Figure(
                "per-flow",
                per_flow_bars([(METHODS[k].label, paper[k]) for k in METHODS if k in paper]),
                f"Throughput of each flow ({self.up} up"
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
        per_flow = {
            p["method"]: flow_table(r).set_index("flow")["mbps"]
            for p, r in results
            if p["reading"] == "paper"
        }
        out.tables["throughput of each flow (Mb/s)"] = pd.DataFrame(per_flow).reset_index()
        return table

    @staticmethod
    def _window_cuts(results, method: str) -> dict[str, float]:
        """Per flow of one method (the paper's reading), means by direction: ACK-loss reductions
        (the wrapper's own counter), data-loss responses and timeouts."""
        for p, r in results:
            if p["method"] != method or p["reading"] != "paper":
                continue
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
        return {}

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
            + (f", downlink mean {r.down_mean_mbps:.3f} Mb/s" if self.down else f", {r.starved_up} starved")
            for r in rows.itertuples()
        ]
        out.notes.append("Unmodified Reno under each reading of the set-up: " + "; ".join(parts) + ".")
