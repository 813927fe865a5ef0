"""Statistics over repeated runs: Student-t intervals, per-run ratios, per-kind summaries, Jain's index."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import tcplab
from tcplab.analysis import (
    concat_flows,
    jain_per_run,
    mean_ci,
    per_kind_stats,
    per_run_kind_means,
    per_run_ratio,
    ratio_ci,
)


def test_mean_ci_by_hand():
    # 1..5: mean 3, s = sqrt(2.5), t(0.975, 4) = 2.776445,
    # half-width 2.776445 * 1.581139 / 2.236068 = 1.963243.
    ci = mean_ci([1, 2, 3, 4, 5])
    assert (ci.mean, ci.n) == (3.0, 5)
    assert ci.std == pytest.approx(math.sqrt(2.5))
    assert ci.half_width == pytest.approx(1.963243, abs=1e-6)
    assert (ci.low, ci.high) == (pytest.approx(3 - 1.963243, abs=1e-6), pytest.approx(3 + 1.963243, abs=1e-6))
    # 20 repetitions (paper 000): t(0.975, 19) = 2.093 from the printed tables.
    twenty = mean_ci(np.arange(20.0))
    assert twenty.half_width / (twenty.std / math.sqrt(20)) == pytest.approx(2.093, abs=5e-4)
    assert mean_ci([1, 2, 3], confidence=0.99).half_width > mean_ci([1, 2, 3]).half_width


def test_mean_ci_one_sample_and_errors():
    one = mean_ci([4.0])
    assert one.mean == 4.0 and math.isnan(one.low) and math.isnan(one.high) and math.isnan(one.std)
    with pytest.raises(ValueError, match="values is empty"):
        mean_ci([])
    with pytest.raises(ValueError, match="finite"):
        mean_ci([1.0, float("nan")])
    with pytest.raises(ValueError, match="confidence"):
        mean_ci([1.0, 2.0], confidence=95)


def test_student_t_interval_covers_the_mean_at_its_level():
    # Samples of 5 from N(10, 2): a z-interval would cover about 88%; Student's t covers 95%.
    rng = np.random.default_rng(7)
    trials = 4000
    hits = sum(1 for _ in range(trials) if (ci := mean_ci(rng.normal(10, 2, 5))).low <= 10 <= ci.high)
    assert 0.935 < hits / trials < 0.965


def _flows() -> pd.DataFrame:
    # Three runs; per-run means: run 0 reno 4, vegas 2; run 1 reno 5, vegas 4; run 2 reno 2, vegas 3.
    rows = [
        (0, "reno", 3.0), (0, "reno", 5.0), (0, "vegas", 2.0),
        (1, "reno", 5.0), (1, "vegas", 3.0), (1, "vegas", 5.0),
        (2, "reno", 2.0), (2, "vegas", 3.0),
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=["run", "cc", "goodput_bps"])


def test_per_run_ratio_by_hand():
    ratios = per_run_ratio(_flows(), "vegas", "reno")
    assert ratios.tolist() == pytest.approx([0.5, 0.8, 1.5])
    ci = ratio_ci(_flows(), "vegas", "reno")
    # mean 2.8/3; s^2 = ((0.5-m)^2 + (0.8-m)^2 + (1.5-m)^2)/2; t(0.975, 2) = 4.302653.
    m = 2.8 / 3
    s = math.sqrt(((0.5 - m) ** 2 + (0.8 - m) ** 2 + (1.5 - m) ** 2) / 2)
    assert ci.mean == pytest.approx(m)
    assert ci.half_width == pytest.approx(4.302653 * s / math.sqrt(3), rel=1e-6)


def test_per_run_ratio_errors():
    flows = _flows()
    with pytest.raises(ValueError, match="'code'"):
        per_run_ratio(flows, "code", "reno")
    with pytest.raises(ValueError, match=r"runs \[3\]"):
        per_run_ratio(
            pd.concat([flows, pd.DataFrame([(3, "reno", 1.0)], columns=flows.columns)]), "vegas", "reno"
        )
    zero = flows.assign(goodput_bps=np.where(flows["cc"] == "reno", 0.0, flows["goodput_bps"]))
    with pytest.raises(ValueError, match="zero goodput_bps"):
        per_run_ratio(zero, "vegas", "reno")
    with pytest.raises(ValueError, match="seed"):
        per_run_ratio(flows, "vegas", "reno", run_col="seed")


def test_per_kind_stats_by_hand():
    table = per_kind_stats(_flows()).set_index("cc")
    # Reno flows 3, 5, 5, 2: mean 3.75, s = sqrt((0.5625 + 1.5625 + 1.5625 + 3.0625)/3) = 1.5.
    assert table.loc["reno", "flows"] == 4 and table.loc["reno", "runs"] == 3
    assert table.loc["reno", "mean"] == pytest.approx(3.75)
    assert table.loc["reno", "std"] == pytest.approx(1.5)
    # The interval is over the per-run means 4, 5, 2 (mean 11/3, s = sqrt(7/3)).
    half = 4.302653 * math.sqrt(7 / 3) / math.sqrt(3)
    assert table.loc["reno", "ci_low"] == pytest.approx(11 / 3 - half, abs=1e-5)
    assert table.loc["vegas", "mean"] == pytest.approx(13 / 4)
    assert per_run_kind_means(_flows()).loc[1, "vegas"] == 4.0


def test_jain_per_run():
    flows = pd.DataFrame({"run": [0, 0, 0, 1, 1, 1], "goodput_bps": [2.0, 2.0, 2.0, 6.0, 0.0, 0.0]})
    jain = jain_per_run(flows)
    assert jain.loc[0] == pytest.approx(1.0)
    assert jain.loc[1] == pytest.approx(1 / 3)


def test_concat_flows_on_engine_runs(small_dumbbell):
    runs = [({"seed": s}, tcplab.run(small_dumbbell, seed=s)) for s in (1, 2, 3)]
    flows = concat_flows(runs)
    assert flows["run"].tolist() == [0, 0, 1, 1, 2, 2]
    assert flows["seed"].tolist() == [1, 1, 2, 2, 3, 3]
    ratios = per_run_ratio(flows, "newreno", "reno")
    assert len(ratios) == 3 and np.all(ratios > 0)
    by_kind = per_kind_stats(flows).set_index("cc")
    assert set(by_kind.index) == {"reno", "newreno"}
    assert by_kind.loc["reno", "mean"] == pytest.approx(flows[flows["cc"] == "reno"]["goodput_bps"].mean())
    with pytest.raises(ValueError, match="empty"):
        concat_flows([])


def test_bounds_are_the_interval_or_the_one_value():
    two = mean_ci([1.0, 3.0])
    assert two.bounds == (two.low, two.high) and two.low < 2.0 < two.high
    assert mean_ci([2.5]).bounds == (2.5, 2.5)


def test_in_most_runs_is_the_one_sided_sign_test():
    """p(all of n | 1/2) = 2^-n: four of four runs is 0.0625, above 0.05, five of five decides."""
    from tcplab.analysis.stats import in_most_runs

    assert in_most_runs(5, 5) is True and in_most_runs(0, 5) is False
    assert in_most_runs(4, 4) is None and in_most_runs(4, 5) is None and in_most_runs(1, 5) is None
    assert in_most_runs(8, 10) is None and in_most_runs(9, 10) is True and in_most_runs(1, 10) is False
    assert in_most_runs(1, 1) is True and in_most_runs(0, 1) is False, "one run decides alone"
    with pytest.raises(ValueError, match="shown must be in 0..runs"):
        in_most_runs(3, 2)
