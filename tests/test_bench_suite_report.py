"""The benchmark suite's report without ns-3 (bench/run.py --ns3-runs 0): tcplab against a
baseline revision alone, the before/after ratios of an engine change (no ns-3 needed)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import run as bench  # noqa: E402


def measured(wall: float, cpu: float, packets: int = 1000) -> dict:
    runs = [
        {"wall_s": wall, "cpu_s": cpu, "peak_rss_mib": 4.0, "packets_delivered": packets, "goodput_bps": 1e6},
        {
            "wall_s": wall * 1.5,
            "cpu_s": cpu * 1.5,
            "peak_rss_mib": 4.5,
            "packets_delivered": packets,
            "goodput_bps": 1e6,
        },
    ]
    return bench.best_of(runs)


def test_without_ns3_the_report_gives_the_baseline_ratios(capsys):
    results = {
        "a": {"tcplab": measured(1.0, 0.8), "tcplab_base": measured(1.1, 1.0)},
        "b": {"tcplab": measured(2.0, 2.0), "tcplab_base": measured(2.0, 1.6, packets=999)},
    }
    bench.print_suite(results)
    bench.print_flows(results)
    out = capsys.readouterr().out
    assert "ns-3" not in out
    assert results["a"]["ratios"]["speedup_vs_baseline"] == 1.1
    assert results["a"]["ratios"]["cpu_speedup_vs_baseline"] == 1.25
    assert results["b"]["ratios"]["cpu_speedup_vs_baseline"] == 0.8
    assert results["a"]["ratios"]["memory_vs_baseline"] == 1.0
    assert "(a) speed-up 1.100x" in out and "identical packet counts" in out
    assert "(b) speed-up 1.000x" in out and "DIFFERENT packet counts" in out


def test_with_ns3_the_report_keeps_its_ratios(capsys):
    results = {"a": {"tcplab": measured(1.0, 1.0), "ns3_sack": measured(100.0, 100.0)}}
    bench.print_suite(results)
    out = capsys.readouterr().out
    assert "ratios tcplab / ns-3 (SACK on)" in out
    assert results["a"]["ratios"]["speed"] == 100.0
    assert "speedup_vs_baseline" not in results["a"]["ratios"]
