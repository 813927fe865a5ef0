"""Issue acceptance item 3: one Reno flow of the ``ns2`` profile under Bernoulli loss against PFTK.

PFTK (Padhye, Firoiu, Towsley and Kurose, SIGCOMM 1998, eq. 31; :mod:`tcplab.analysis.tcp_models`)
with ``b = 2`` for delayed ACKs and ``b = 1`` without, over loss rates 0.001 to 0.05 and round-trip
times 20 to 200 ms. The full grid is ``@pytest.mark.slow`` (``pytest -m slow tests/test_pftk.py``);
``python tests/test_pftk.py`` prints its table (docs/reproduction.md, "PFTK check"). The default run
keeps a few points.

Set-up, so that the only losses are the random ones and the model's assumptions hold:

* one link ``a -> b`` of 1 Gb/s with a propagation delay of RTT/2 each way and a 100000-packet
  buffer; Bernoulli loss on data only (ACKs are never lost). The largest mean window of the grid
  (p = 0.001, b = 1) is about 50 segments, its largest windows a few hundred, against a
  bandwidth-delay product of 2400 segments at 20 ms: the link never queues more than a burst and
  never limits the rate; the receiver's window (100000 segments) never limits either, so the
  model runs with ``W_max`` unlimited;
* RTT in the model: the flow's mean measured RTT (``mean_rtt``), which includes any delayed-ACK wait;
* T0 in the model: the retransmission timeout the sender really used, measured in a run with the
  event log as the time from the timer's last start (the last ACK that advanced, or the fast
  retransmit) to the expiry, averaged over first timeouts (not backed-off ones). The 200 ms
  minimum RTO makes it 200-220 ms (10 RTTs at 20 ms) except with delayed ACKs at 100 and 200 ms,
  where RTT samples that waited for the delayed-ACK timer inflate RTTVAR (up to 400 ms);
* throughput: goodput over the measurement window in segments per second,
  ``goodput_bps / (8 mss)``, averaged over seeds (standard error across seeds).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import pytest

import tcplab
from tcplab.analysis.tcp_models import pftk_throughput_bps, pftk_timeout_probability

MSS = 1000  # the ns2 profile's segment (NS-2 packetSize_)
MIN_RTO = 0.2
LOSS_RATES = (0.001, 0.003, 0.01, 0.02, 0.05)
RTTS = (0.02, 0.05, 0.1, 0.2)


def scenario(
    p: float, rtt: float, delayed_ack: bool, duration: float, warmup: float, growth: str | None = None
) -> tcplab.Scenario:
    """One Reno flow ``a -> b`` over a 1 Gb/s link of round trip ``rtt`` with Bernoulli loss ``p`` on data."""
    tcp: dict[str, object] = {"stack": "ns2", "delayed_ack": delayed_ack}
    if growth is not None:
        tcp["window_growth"] = growth
    link = {
        "between": ["a", "b"],
        "rate": "1Gbps",
        "delay": rtt / 2,
        "buffer": 100000,
        "loss": {"model": "bernoulli", "p": p, "applies_to": "data"},
    }
    doc = {
        "simulation": {"duration": duration, "sample_interval": 0, "measure": [warmup, duration]},
        "topology": {"kind": "custom", "nodes": ["a", "b"], "links": [link]},
        "tcp": tcp,
        "flows": [],
    }
    return tcplab.Scenario(doc).add_flow("a", "b", cc="reno")


def pftk_pps(p: float, rtt: float, t0: float, b: int) -> float:
    """PFTK (eq. 31, no receiver-window limit) in segments per second."""
    return pftk_throughput_bps(MSS, rtt, p, t0, acked_per_ack=b) / (8 * MSS)


def first_timeouts(losses) -> np.ndarray:
    """Times of the first expiry of each timeout sequence (a backed-off expiry of the same segment
    right after a timeout is part of the same sequence, as in PFTK)."""
    t, kind, seq = losses.time.to_numpy(), losses.kind.to_numpy(), losses.seq.to_numpy()
    to = kind == "timeout"
    backoff = np.zeros_like(to)
    backoff[1:] = to[1:] & to[:-1] & (seq[1:] == seq[:-1])
    return t[to & ~backoff]


def timer_values(res: tcplab.Result, after: float) -> np.ndarray:
    """The timeout values of the first expiries after ``after``: expiry time minus the timer's last
    start, the latest ACK that advanced ``snd_una`` at the sender or fast retransmit before it."""
    ev = res.events
    acks = ev[(ev.event == "recv") & (ev.kind == "ack")]
    t_ack, a = acks.time.to_numpy(), acks.ack.to_numpy()
    advanced = np.ones(len(a), dtype=bool)
    advanced[1:] = a[1:] > np.maximum.accumulate(a)[:-1]
    starts = np.sort(
        np.concatenate([t_ack[advanced], res.losses.time[res.losses.kind == "fast_retransmit"].to_numpy()])
    )
    expiries = first_timeouts(res.losses)
    expiries = expiries[expiries >= after]
    i = np.searchsorted(starts, expiries, side="left") - 1
    ok = i >= 0
    return expiries[ok] - starts[i[ok]]


@dataclass
class Point:
    p: float
    rtt: float
    delayed_ack: bool
    growth: str | None
    seeds: int
    measured: float  # segments/s, mean over seeds
    se: float  # its standard error across seeds
    mean_rtt: float
    t0: float
    t0_samples: int
    timeouts: int  # first timeouts in the measurement windows
    fast_retransmits: int
    retransmitted: float  # retransmissions / segments sent
    per_indication: float  # segments sent per loss indication (fast retransmit or timeout sequence)

    @property
    def b(self) -> int:
        return 2 if self.delayed_ack else 1

    def model(self, b: int) -> float:
        return pftk_pps(self.p, self.mean_rtt, self.t0, b)

    @property
    def ratio(self) -> float:
        return self.measured / self.model(self.b)

    @property
    def sent(self) -> float:
        """Sending rate (PFTK's B counts every segment sent): goodput / (1 - retransmitted share)."""
        return self.measured / (1 - self.retransmitted)

    @property
    def q_measured(self) -> float:
        n = self.timeouts + self.fast_retransmits
        return self.timeouts / n if n else math.nan

    @property
    def w_model(self) -> float:
        """PFTK's mean window at a loss, E[W_u] (section 2.1)."""
        b, p = self.b, self.p
        k = (2 + b) / (3 * b)
        return k + math.sqrt(8 * (1 - p) / (3 * b * p) + k * k)

    @property
    def q_model(self) -> float:
        return pftk_timeout_probability(self.w_model, self.p)

    @property
    def per_indication_model(self) -> float:
        """PFTK's segments per loss indication: q/p + E[W_u] + Q/q (a TD period and its share of a
        timeout sequence, eq. 31's numerator)."""
        q = 1 - self.p
        return q / self.p + self.w_model + self.q_model / q


@functools.cache
def measure(
    p: float,
    rtt: float,
    delayed_ack: bool,
    *,
    losses_per_seed: int,
    seeds: int,
    growth: str | None = None,
    t0_packets: float = 300_000,
) -> Point:
    """Runs ``seeds`` seeds of about ``losses_per_seed`` random losses each after a warm-up of 20 loss
    cycles, plus one run with the event log (about ``t0_packets`` segments) to measure T0."""
    b = 2 if delayed_ack else 1
    guess = pftk_pps(p, rtt, MIN_RTO, b)  # only to size the runs
    warmup = 20 / p / guess

    def run(losses: int, seed: int, log: bool) -> tcplab.Result:
        duration = warmup + losses / p / guess
        sc = scenario(p, rtt, delayed_ack, duration, warmup, growth).with_seed(seed)
        if log:
            sc.doc["simulation"]["event_log"] = True
        return tcplab.run(sc)

    rates, rtts, tos, frs, retx, sent, indications = [], [], 0, 0, [], 0, 0
    for seed in range(1, seeds + 1):
        res = run(losses_per_seed, seed, False)
        f = res.flows.iloc[0]
        assert f.data_drops_buffer_overflow == 0 and f.ack_drops_random_loss == 0
        rates.append(f.goodput_bps / (8 * MSS))
        rtts.append(f.mean_rtt)
        retx.append(f.retransmissions / f.segments_sent)
        losses = res.losses[res.losses.time >= warmup]
        tos += int((first_timeouts(losses) >= warmup).sum())
        frs += int((losses.kind == "fast_retransmit").sum())
        sent += int(f.segments_sent)
        indications += len(first_timeouts(res.losses)) + int(f.fast_retransmits)
    logged = run(p * t0_packets, 1000, True)
    values = timer_values(logged, warmup)
    # Without a timeout to measure (rare at small p), the RFC 6298 floor: max(min RTO, SRTT + G).
    t0 = float(values.mean()) if len(values) else max(MIN_RTO, float(np.mean(rtts)) + 0.001)
    r = np.array(rates)
    return Point(
        p=p,
        rtt=rtt,
        delayed_ack=delayed_ack,
        growth=growth,
        seeds=seeds,
        measured=float(r.mean()),
        se=float(r.std(ddof=1) / math.sqrt(len(r))) if len(r) > 1 else math.nan,
        mean_rtt=float(np.mean(rtts)),
        t0=t0,
        t0_samples=len(values),
        timeouts=tos,
        fast_retransmits=frs,
        retransmitted=float(np.mean(retx)),
        per_indication=sent / indications,
    )


def table(points: list[Point]) -> str:
    """The markdown table of docs/reproduction.md."""
    rows = [
        "| p | RTT ms | delack | growth | measured pkt/s (± SE) | mean RTT ms | T0 ms (n) "
        "| PFTK b=1 | PFTK b=2 | ratio to b | sent/PFTK | retx "
        "| TO share (PFTK Q) | pkts per indication (PFTK) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for x in points:
        rows.append(
            f"| {x.p} | {x.rtt * 1000:.0f} | {'on' if x.delayed_ack else 'off'} | {x.growth or 'per_ack'} "
            f"| {x.measured:.1f} ± {x.se:.1f} | {x.mean_rtt * 1000:.1f} | {x.t0 * 1000:.0f} ({x.t0_samples}) "
            f"| {x.model(1):.1f} | {x.model(2):.1f} | {x.ratio:.3f} (b={x.b}) | {x.sent / x.model(x.b):.3f} "
            f"| {x.retransmitted:.3f} "
            f"| {x.q_measured:.2f} ({x.q_model:.2f}) "
            f"| {x.per_indication:.1f} ({x.per_indication_model:.1f}) |"
        )
    return "\n".join(rows)


# -- the checks -------------------------------------------------------------------------------

#: Full-grid statistics: 10 seeds of about 2000 random losses each (the table of docs/reproduction.md).
FULL = {"losses_per_seed": 2000, "seeds": 10}
#: The default run's: 4 seeds of about 500 losses.
QUICK = {"losses_per_seed": 500, "seeds": 4, "t0_packets": 100_000}

#: Where the ``ns2`` profile misses PFTK by more than 20 %: without delayed ACKs at p = 0.05 and 200 ms
#: (0.79). PFTK's p is the rate of first losses of a round, and the model counts a loss round's
#: remaining E[W] segments before the next TD period (q/p + E[W] + Q/q segments per loss indication);
#: Bernoulli loss has one loss indication every 1/p segments or so (22 against the model's 27.7 at
#: p = 0.05), the gap grows as sqrt(p), and at 200 ms timeouts (T0 about 1 RTT) are too cheap to
#: offset it. See docs/reproduction.md.
KNOWN_MISSES = {(0.05, 0.2, False)}


def check(x: Point) -> None:
    """Within 20 % of PFTK with its own b; a known miss is checked for its documented cause instead."""
    if (x.p, x.rtt, x.delayed_ack) in KNOWN_MISSES:
        assert x.ratio >= 0.7, table([x])
        assert x.per_indication < 0.85 * x.per_indication_model, table([x])
        return
    assert 0.8 <= x.ratio <= 1.2, table([x])


@pytest.mark.parametrize("delayed_ack", [True, False], ids=["delack-b2", "no-delack-b1"])
@pytest.mark.parametrize(("p", "rtt"), [(0.003, 0.2), (0.02, 0.02)])
def test_ns2_reno_follows_pftk(p: float, rtt: float, delayed_ack: bool) -> None:
    check(measure(p, rtt, delayed_ack, **QUICK))


def check_bytes_growth(p: float, rtt: float, stats: dict[str, float]) -> None:
    """``window_growth = "bytes"`` grows one segment per RTT despite delayed ACKs: within 20 % of
    PFTK's b = 1 (the ``b = 2`` model does not apply), and about sqrt(2) above ``per_ack``."""
    per_ack = measure(p, rtt, True, **stats)
    by_bytes = measure(p, rtt, True, growth="bytes", **stats)
    assert 0.8 <= by_bytes.measured / by_bytes.model(1) <= 1.2, table([by_bytes])
    assert by_bytes.measured > 1.3 * per_ack.measured, table([per_ack, by_bytes])


def test_bytes_growth_with_delayed_acks_is_near_b1() -> None:
    check_bytes_growth(0.01, 0.05, QUICK)


@pytest.mark.slow
@pytest.mark.parametrize("delayed_ack", [True, False], ids=["delack-b2", "no-delack-b1"])
@pytest.mark.parametrize("rtt", RTTS)
@pytest.mark.parametrize("p", LOSS_RATES)
def test_ns2_reno_follows_pftk_full_grid(p: float, rtt: float, delayed_ack: bool) -> None:
    check(measure(p, rtt, delayed_ack, **FULL))


@pytest.mark.slow
@pytest.mark.parametrize("rtt", RTTS)
@pytest.mark.parametrize("p", LOSS_RATES)
def test_bytes_growth_full_grid_is_near_b1(p: float, rtt: float) -> None:
    check_bytes_growth(p, rtt, FULL)


if __name__ == "__main__":
    import sys

    growths = sys.argv[1:] or ["per_ack"]
    for growth in growths:
        pts = []
        for delayed in (True, False) if growth == "per_ack" else (True,):
            for p in LOSS_RATES:
                for rtt in RTTS:
                    pts.append(measure(p, rtt, delayed, growth=growth, **FULL))
                    print(table(pts[-1:]).splitlines()[-1], flush=True)
        print(table(pts), flush=True)
