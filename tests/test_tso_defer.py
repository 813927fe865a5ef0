"""TSO deferral (`[tcp] tso_defer`, the linux profile's default) in a whole run: it shapes the
bursts (tcp/tso_defer.rs and tcp/recovery.rs test that), never the window's growth: Linux
counts a sender that defers for cwnd as cwnd-limited, so congestion avoidance goes on."""

from __future__ import annotations

from tcplab.runner import run
from tcplab.scenario import Scenario, link


def reno_in_congestion_avoidance(**tcp) -> Scenario:
    """One linux-profile Reno flow over 100 Mb/s and 48 ms, in congestion avoidance from 20
    segments on: at these rates a room below the GSO goal comes on every other ACK."""
    s = Scenario.dumbbell(1, link("100Mbps", "22ms", 2000), duration=10, sample_interval=0.1)
    s.set_tcp(stack="linux", initial_ssthresh=20, **tcp)
    s.add_flow("s0", "d0", "reno")
    return s


def cwnd_at_end(**tcp) -> float:
    series = run(reno_in_congestion_avoidance(**tcp)).series
    return float(series["cwnd"].iloc[-1])


def test_deferral_leaves_congestion_avoidance_growing_a_segment_per_rtt():
    deferred, eager = cwnd_at_end(), cwnd_at_end(tso_defer=False)
    # About 200 RTTs of one segment each, from 20: both near 220, within a few per cent
    # (counted as not cwnd-limited, the deferring sender reached 153 against 214 at 10 s).
    assert eager > 180, eager
    assert abs(deferred - eager) <= 0.05 * eager, (deferred, eager)
