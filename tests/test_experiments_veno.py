"""Veno (paper 001) experiments: registration, scenario shapes, and quick runs through the
public sweep functions into a temporary store."""

from __future__ import annotations

import math

import pytest

from tcplab.executors import SerialExecutor
from tcplab.experiments import resolve
from tcplab.experiments.base import Claim, Outcome
from tcplab.experiments.veno.fig5 import FIG5_QUICK_LOSSES
from tcplab.experiments.veno.paper import RTT, TABLE1_PUBLISHED, router_scenario, wireless_scenario
from tcplab.runner import run
from tcplab.store import ResultStore
from tcplab.sweep import analyze, execute_plan, plan

NAMES = [
    "veno/fig4",
    "veno/fig5",
    "veno/table1",
    "veno/fig6",
    "veno/fig7",
    "veno/fig1-2",
    "veno/tables2-4",
]


def test_every_entry_of_the_paper_is_registered():
    assert [e.name for e in resolve(["veno"])] == NAMES
    for e in resolve(["veno"]):
        assert e.setup and e.title
        if e.name != "veno/tables2-4":
            assert e.runs(quick=True), e.name
            assert len(e.runs(quick=True)) <= len(e.runs(quick=False)), e.name


def test_router_scenario_has_the_papers_round_trip_and_loses_only_data():
    res = run(router_scenario(["reno"], 0.05, duration=20.0))
    f = res.flows.iloc[0]
    assert f["min_rtt"] >= RTT, "propagation + transmission is at least the paper's 120 ms"
    assert f["min_rtt"] < RTT + 0.02
    assert f["data_drops_random_loss"] > 0
    assert f["ack_drops_random_loss"] == 0
    bottleneck = res.links[res.links["name"] == "r0->r1"].iloc[0]
    assert bottleneck["rate_bps"] == 1.6e6


def test_wireless_scenario_keeps_udp_off_the_lossy_hop():
    res = run(wireless_scenario(500e3, loss=0.02, duration=30.0, file_bytes=1_000_000))
    links = res.links.set_index("name")
    udp = res.udp_flows.iloc[0]
    assert udp["datagrams_received"] > 0
    assert udp["drops_random_loss"] == 0, "the CBR never crosses the wireless hop"
    assert links.loc["ap->dst1", "packets_sent"] == udp["datagrams_received"]
    assert res.flows.iloc[0]["data_drops_random_loss"] > 0
    lossy = set(links.index[links["drops_random_loss"] > 0])
    assert lossy == {"ap->wc1"}, "only the wireless last hop loses packets at random"
    assert links.loc["router->ap", "rate_bps"] == 1.6e6


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, Outcome]:
    exps = resolve(["veno/fig5", "veno/table1", "veno/fig1-2", "veno/tables2-4"])
    store = ResultStore(tmp_path_factory.mktemp("veno-store"))
    planned = plan(exps, quick=True)
    execute_plan(planned, store, SerialExecutor(), show_progress=False)
    return {o.experiment.name: o for o in analyze(exps, planned, store, quick=True)}


def _claims_evaluated(o: Outcome) -> None:
    assert o.claims, o.experiment.name
    for c in o.claims:
        assert isinstance(c, Claim)
        # Not evaluated only where the data has no events to decide on (a quick run may lack them).
        assert c.passed in (True, False) or "0 of 0" in c.detail, c


def test_fig5_reports_published_numbers_and_all_loss_rates(outcomes):
    o = outcomes["veno/fig5"]
    assert o.status == "ok"
    comp = o.comparison
    assert set(comp["quantity"]) == {p.quantity for p in o.experiment.published}
    assert comp["ours"].notna().all()
    table = o.tables["throughput and retransmission counters per 32 MB transfer (means over seeds)"]
    assert sorted(table["loss"].unique()) == sorted(FIG5_QUICK_LOSSES)
    # Throughput falls with the loss rate for both algorithms.
    for cc in ("reno", "veno"):
        t = table[table["cc"] == cc].sort_values("loss")["throughput (kB/s)"].to_numpy()
        assert t[0] > t[-1]
        assert t[0] <= 1.6e6 / 8 / 1e3, "no goodput above the link rate"
    _claims_evaluated(o)
    assert o.figures and o.notes


def test_table1_cross_tab_accounts_for_every_fast_retransmit(outcomes):
    o = outcomes["veno/table1"]
    ours = next(t for name, t in o.tables.items() if name.startswith("ours, wireless loss 1%"))
    per_run = o.tables["ours: per run"]
    counted = ours.drop(columns=["run", "Veno branch"]).to_numpy().sum()
    at_1pct = per_run[per_run["wireless loss"] == 0.01]["fast retransmits"].sum()
    # Every fast retransmit is in the table except those that resent an undropped segment.
    assert 0 < counted <= at_1pct
    published = o.tables["published: table I, three runs"]
    assert published.drop(columns=["run", "Veno branch"]).to_numpy().sum() == sum(
        sum(v) for v in TABLE1_PUBLISHED.values()
    )
    assert len(o.comparison) == len(o.experiment.published)
    _claims_evaluated(o)


def test_fig1_2_counts_losses_after_the_initial_slow_start(outcomes):
    o = outcomes["veno/fig1-2"]
    t = o.tables["loss responses after the initial slow start"]
    no_loss = t[t["fig"] == 1]
    assert (no_loss["random losses"] == 0).all(), "fig. 1 has no random loss"
    assert (no_loss["initial slow start losses"] >= 1).all()
    veno = t[(t["fig"] == 2) & (t["cc"] == "veno")].iloc[0]
    assert veno["4/5 cuts"] + veno["1/2 cuts (Veno)"] == veno["fast retransmits"]
    reno = t[(t["fig"] == 2) & (t["cc"] == "reno")].iloc[0]
    assert reno["4/5 cuts"] == 0, "Reno does not classify"
    assert len(o.figures) == 2
    _claims_evaluated(o)


def test_tables2_4_are_for_the_record(outcomes):
    o = outcomes["veno/tables2-4"]
    assert o.experiment.runs(quick=False) == []
    assert len(o.tables) == 3
    assert not math.isnan(
        o.tables["published table III (single connection, CUHK-HKU, WLAN access)"].iloc[0, 1]
    )
