"""The analytical models against values worked out by hand from the papers' equations, and their limits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tcplab.analysis import (
    DcfParameters,
    bianchi_fixed_point,
    bianchi_saturation_throughput,
    bianchi_tau,
    code_epsilon,
    code_epsilon_polynomial,
    code_epsilon_roots,
    code_reno_cycle_ratio,
    droptail_curve,
    droptail_model,
    mathis_throughput_bps,
    mo_vegas_reno_ratio,
    ofdm_frame_duration_s,
    pftk_approx_throughput_bps,
    pftk_throughput_bps,
    pftk_timeout_probability,
    red_curve,
    red_model,
    red_reno_window,
    red_timeout_probability,
    ware_bbr_share,
    ware_rtt_estimate_s,
)

# Paper 003, section 4.2: BW = 1.5 Mb/s, tau = 1.5 ms + 5 ms; 1000-byte packets (assumed).
HKM = {"bottleneck_bps": 1.5e6, "one_way_delay_s": 0.0065}


# ---------------------------------------------------------------- CODE TCP, paper 000 eq. (18)


def test_eq18_polynomial_is_34_54_21():
    # With d = 3/4, s = 2/3 and V = W_Vmax: eq. (17) gives R/(2V) = (3/4 - e) + 3/2 (1 - e) = 9/4 - 5e/2.
    # CODE's area (eq. 15) over V^2: (3+4e)/8 (3/4 - e) + (e+1)/2 * 3/2 (1-e) = (9 - 16e^2)/32 + 3(1 - e^2)/4
    #   = (33 - 40 e^2)/32.  Reno's (eq. 12): 3/8 R^2 / V^2 = 3/2 (9/4 - 5e/2)^2 = (243 - 540 e + 300 e^2)/32.
    # Reno - CODE = (210 - 540 e + 340 e^2)/32 = (10/32)(34 e^2 - 54 e + 21): eq. (18).
    assert np.allclose(code_epsilon_polynomial() * 34, [34, -54, 21], rtol=0, atol=1e-12)


def test_eq18_roots_are_068_and_091():
    # (54 +- sqrt(54^2 - 4*34*21)) / 68 = (54 +- sqrt(60)) / 68 = 0.6802 and 0.9080.
    low, high = code_epsilon_roots()
    assert (round(low, 2), round(high, 2)) == (0.68, 0.91)
    assert low == pytest.approx((54 - math.sqrt(60)) / 68, abs=1e-12)
    assert high == pytest.approx((54 + math.sqrt(60)) / 68, abs=1e-12)
    # 0.91 > 3/4 would make t = (3/4 - e) W_Vmax of eq. (14) negative: the paper keeps 0.68.
    assert code_epsilon() == pytest.approx(low)


def test_cycle_ratio_is_one_at_the_root_and_ordered_around_it():
    eps = code_epsilon()
    assert code_reno_cycle_ratio(eps) == pytest.approx(1.0, abs=1e-12)
    # At e = 1/2: CODE (33 - 10)/32 = 23/32, Reno 3/2 (9/4 - 5/4)^2 = 3/2, ratio 23/48.
    assert code_reno_cycle_ratio(0.5) == pytest.approx(23 / 48, abs=1e-12)
    # Between the roots the quadratic is negative: CODE sends more than Reno.
    assert code_reno_cycle_ratio(0.8) > 1
    # 0.9 = (d s + 1)/(s + 1) leaves Reno a cycle of no rounds (eq. 17).
    with pytest.raises(ValueError, match="no rounds"):
        code_reno_cycle_ratio(0.91)


def test_epsilon_is_one_half_when_code_behaves_like_reno():
    # Halving (d = 1/2) and growing one packet per round (s = 1) with e = 1/2: no rounds of decrease
    # (t = 0) and then exactly Reno's cycle, so e = 1/2 must be a root.  By hand: CODE (1/4 - e^2)/2 +
    # (1 - e^2)/2 = 5/8 - e^2, Reno 3/2 (3/2 - 2e)^2; difference 7e^2 - 9e + 11/4, roots 1/2 and 11/14.
    assert np.allclose(code_epsilon_polynomial(0.5, 1.0) * 7, [7, -9, 2.75])
    assert code_epsilon_roots(0.5, 1.0) == pytest.approx((0.5, 11 / 14))
    assert code_epsilon(0.5, 1.0) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"decrease_factor": 1.0}, "decrease_factor"),
        ({"code_increase_per_round": 0}, "code_increase_per_round"),
    ],
)
def test_epsilon_rejects_bad_shapes(kwargs, name):
    with pytest.raises(ValueError, match=name):
        code_epsilon_polynomial(**kwargs)


# ---------------------------------------------------------------- paper 003, DropTail eqs. (5)-(12)


def test_droptail_hand_computation():
    # mu = 8 Mb/s / 8000 bit = 1000 pkt/s, tau = 5 ms: 2 tau mu = 10 packets. Nr = 3, Nv = 2, alpha 1, beta 3.
    # eq. (6)  W_v  = 2 (1 + 3)/2 = 4
    # eq. (7)  W_r  = 10 + 6 - 4 = 12
    # eq. (9)  W'_r = 12 (12 + 8) / (2 (12 + 4)) = 240/32 = 7.5
    # eq. (10) rounds (12 - 7.5)/3 = 1.5; W_r bar = (0.5 (12 + 7.5) 1.5 + 12) / (1.5 + 1) = 26.625/2.5 = 10.65
    # eq. (11) factor B/(2 tau mu + B) = 6/16: B_r = 3.99375, B_v = 1.5
    # eq. (12) rho_r = 1000 * 10.65/14.65 = 726.96 pkt/s, rho_v = 1000 * 4/14.65 = 273.04 pkt/s
    m = droptail_model(3, 2, 6, 8e6, 0.005)
    assert m.vegas_window_packets == pytest.approx(4)
    assert m.reno_peak_window_packets == pytest.approx(12)
    assert m.reno_after_loss_window_packets == pytest.approx(7.5)
    assert m.reno_window_packets == pytest.approx(10.65)
    assert m.reno_buffer_packets == pytest.approx(10.65 * 6 / 16)
    assert m.vegas_buffer_packets == pytest.approx(1.5)
    assert m.reno_total_pps == pytest.approx(1000 * 10.65 / 14.65)
    assert m.vegas_total_pps == pytest.approx(1000 * 4 / 14.65)
    assert m.reno_per_flow_bps == pytest.approx(8000 * 1000 * 10.65 / 14.65 / 3)
    assert m.vegas_per_flow_bps == pytest.approx(8000 * 1000 * 4 / 14.65 / 2)


@pytest.mark.parametrize(("nr", "nv"), [(5, 5), (5, 10), (10, 5)])
def test_droptail_reno_share_grows_with_buffer(nr, nv):
    # Section 4.2.1: "the larger the router buffer size becomes, the worse the fairness".
    buffers = np.arange(25, 301, 5)
    models = [droptail_model(nr, nv, b, **HKM) for b in buffers]
    share = np.array([m.reno_share for m in models])
    vegas = np.array([m.vegas_per_flow_bps for m in models])
    assert np.all(np.diff(share) > 0)
    assert np.all(np.diff(vegas) < 0)
    for m in models:
        assert m.reno_total_pps + m.vegas_total_pps == pytest.approx(1.5e6 / 8000)
    # Fig. 3: with realistic buffers (>= 50) every Reno flow gets more than every Vegas flow.
    assert all(
        m.reno_per_flow_bps > m.vegas_per_flow_bps for m, b in zip(models, buffers, strict=True) if b >= 50
    )


def test_droptail_more_vegas_flows_take_a_larger_total_share():
    a = droptail_model(5, 5, 100, **HKM)
    b = droptail_model(5, 10, 100, **HKM)
    assert b.vegas_total_pps > a.vegas_total_pps


def test_droptail_limits_and_errors():
    only_vegas = droptail_model(0, 4, 50, **HKM)
    assert only_vegas.vegas_total_pps == pytest.approx(187.5) and only_vegas.reno_total_pps == 0
    assert math.isnan(only_vegas.reno_per_flow_bps)
    only_reno = droptail_model(4, 0, 50, **HKM)
    assert only_reno.reno_total_pps == pytest.approx(187.5)
    # W_v = 10 * 2 = 20 > 2.4375 + 10: no room for Reno.
    with pytest.raises(ValueError, match="buffer_packets"):
        droptail_model(5, 10, 10, **HKM)
    with pytest.raises(ValueError, match="n_reno"):
        droptail_model(-1, 5, 50, **HKM)
    with pytest.raises(ValueError, match="n_reno \\+ n_vegas"):
        droptail_model(0, 0, 50, **HKM)
    with pytest.raises(ValueError, match="alpha_packets"):
        droptail_model(5, 5, 50, **HKM, alpha_packets=4, beta_packets=3)
    with pytest.raises(ValueError, match="bottleneck_bps"):
        droptail_model(5, 5, 50, bottleneck_bps=0, one_way_delay_s=0.01)
    with pytest.raises(ValueError, match="n_vegas"):
        droptail_model(5, 2.5, 50, **HKM)


# ---------------------------------------------------------------- paper 003, RED eqs. (13)-(24)


def test_timeout_probability_matches_the_printed_sum():
    # w = 3, p = 1/2: C(3,2) (1/2)^2 (1/2)^(3+1-2) + C(3,3) (1/2)^3 (1/2)^(3+1-3) = 3/16 + 1/16 = 1/4.
    assert red_timeout_probability(3, 0.5) == pytest.approx(0.25)
    for w in range(2, 30):
        for p in (0.001, 0.03, 0.2):
            printed = sum(math.comb(w, i) * p**i * (1 - p) ** (w + 1 - i) for i in range(2, w + 1))
            assert red_timeout_probability(w, p) == pytest.approx(printed, rel=1e-9, abs=1e-15)
    assert red_timeout_probability(1.5, 0.1) == 0.0


def test_red_loss_window_solves_eq22():
    for p in (0.001, 1 / 30, 0.1, 0.3, 0.6):
        flow = red_reno_window(p, rtt_s=0.1, rto_s=1.0)
        w, p_to = flow.loss_window_packets, flow.timeout_probability
        assert p_to == pytest.approx(red_timeout_probability(w, p))
        a_to = (w / 2 - 1) + 0.5 * (w + w / 2) * (w - w / 2)  # eqs. (16), (18)
        a_fr = 0.5 * (w + w / 2) * (w - w / 2)  # eqs. (19), (21)
        assert p_to * a_to + (1 - p_to) * a_fr == pytest.approx(1 / p, rel=1e-10)  # eq. (22)
    # Without timeouts eq. (22) is 3 w^2 / 8 = 1/p: w = sqrt(80) = 8.944 for p = 1/30; timeouts add the
    # slow-start packets, so the window at a loss is a little smaller.
    w = red_reno_window(1 / 30, 0.1, 1.0).loss_window_packets
    assert 8.8 < w < math.sqrt(80)


def test_red_mean_window_eq23_by_hand():
    # rtt = 0.2 s, rto = 0.4 s: the timeout cycle lasts rtt (log2(w/2) + w/2) + rto, the fast-retransmit
    # cycle rtt w/2.
    p, rtt, rto = 0.05, 0.2, 0.4
    f = red_reno_window(p, rtt, rto)
    w, p_to = f.loss_window_packets, f.timeout_probability
    a_ca = 3 * w * w / 8
    expected = rtt * (
        p_to * (w / 2 - 1 + a_ca) / (rtt * math.log2(w / 2) + rtt * w / 2 + rto)
        + (1 - p_to) * a_ca / (rtt * w / 2)
    )
    assert f.mean_window_packets == pytest.approx(expected)
    # A longer timeout lowers the mean window; without timeouts it is 3w/4 of the sawtooth w/2..w.
    assert red_reno_window(p, rtt, 2.0).mean_window_packets < f.mean_window_packets
    assert f.mean_window_packets < 1 + 0.75 * w


def test_red_fairness_improves_with_larger_p():
    # Section 4.2.2 / fig. 6: a larger p shrinks Reno's windows while Vegas keeps (alpha + beta)/2.
    ps = np.geomspace(0.001, 0.2, 25)
    models = [red_model(5, 5, p, **HKM, rto_s=1.0) for p in ps]
    share = np.array([m.reno_share for m in models])
    vegas = np.array([m.vegas_per_flow_bps for m in models])
    assert np.all(np.diff(share) < 0)
    assert np.all(np.diff(vegas) > 0)
    # Fig. 4 vs fig. 5 and vs DropTail (fig. 3): RED at p = 1/30 is fairer than DropTail with B = 100.
    dt = droptail_model(5, 5, 100, **HKM)
    assert (
        models[0].reno_share
        > red_model(5, 5, 1 / 30, **HKM, rto_s=1.0).reno_share
        > red_model(5, 5, 1 / 10, **HKM, rto_s=1.0).reno_share
    )
    assert red_model(5, 5, 1 / 30, **HKM, rto_s=1.0).reno_share < dt.reno_share


def test_red_rtt_fixed_point_and_given_rtt():
    m = red_model(5, 5, 1 / 30, **HKM, rto_s=1.0)
    mu = 1.5e6 / 8000
    # The saturated-link RTT: rtt = (W_r + W_v) / mu, and eq. (23) evaluated at that rtt.
    assert m.rtt_s == pytest.approx((m.reno_window_packets + m.vegas_window_packets) / mu, rel=1e-9)
    assert m.reno_flow == red_reno_window(1 / 30, m.rtt_s, 1.0)
    assert m.reno_window_packets == pytest.approx(5 * m.reno_flow.mean_window_packets)  # eq. (24)
    given = red_model(5, 5, 1 / 30, **HKM, rto_s=1.0, rtt_s=0.5)
    assert given.rtt_s == 0.5
    assert given.reno_flow == red_reno_window(1 / 30, 0.5, 1.0)
    # With a long propagation delay the RTT is the floor 2 tau.
    far = red_model(1, 1, 0.01, bottleneck_bps=1.5e6, one_way_delay_s=2.0, rto_s=1.0)
    assert far.rtt_s == pytest.approx(4.0)


@pytest.mark.parametrize(
    ("p", "name"),
    [(0.0, "drop_probability"), (1.0, "drop_probability"), (0.8, "2/3"), (float("nan"), "drop")],
)
def test_red_rejects_bad_probabilities(p, name):
    with pytest.raises(ValueError, match=name):
        red_model(5, 5, p, **HKM, rto_s=1.0)


def test_red_rejects_bad_times():
    with pytest.raises(ValueError, match="rto_s"):
        red_model(5, 5, 0.1, **HKM, rto_s=-1)
    with pytest.raises(ValueError, match="rtt_s"):
        red_model(5, 5, 0.1, **HKM, rto_s=1, rtt_s=0)


# ---------------------------------------------------------------- Mo et al. (via paper 002)


def test_mo_ratio():
    # k = 3, B = 25: Reno's mean backlog (25 - 3)/2 = 11, ratio 3/11 = 2*3/22.
    assert mo_vegas_reno_ratio(25, 3) == pytest.approx(3 / 11)
    ratios = [mo_vegas_reno_ratio(b) for b in range(6, 200)]
    assert all(x > y for x, y in zip(ratios, ratios[1:], strict=False))
    with pytest.raises(ValueError, match="vegas_queue_packets"):
        mo_vegas_reno_ratio(3, 3)
    with pytest.raises(ValueError, match="buffer_packets"):
        mo_vegas_reno_ratio(-5)


# ---------------------------------------------------------------- Mathis and PFTK


def test_mathis_by_hand():
    # 1000 B, 100 ms, p = 1%: (8000 bit / 0.1 s) * sqrt(1.5) / 0.1 = 979,796 b/s.
    assert mathis_throughput_bps(1000, 0.1, 0.01) == pytest.approx(800_000 * math.sqrt(1.5))
    with pytest.raises(ValueError, match="loss_rate"):
        mathis_throughput_bps(1000, 0.1, 0)


def test_pftk_full_model_by_hand():
    # b = 1, p = 1/4 (q = 3/4): E[W] = 1 + sqrt(8 q / (3 p) + 1) = 1 + sqrt(9) = 4.
    # Q(4) = (1 - 27/64)(1 + 27/64 (1 - 3/4)) / (1 - 81/256) = (37/64)(283/256)/(175/256) = 10471/11200.
    # f(1/4) = 1 + 1/4 + 2/16 + 4/64 + 8/256 + 16/1024 + 32/4096 = 1.4921875.
    # RTT = 1 s, T0 = 2 s: B = (3 + 4 + Q/q) / (1 (4/2 + 1) + Q 2 f / q) packets/s.
    q_hat = 10471 / 11200
    assert pftk_timeout_probability(4, 0.25) == pytest.approx(q_hat)
    expected = (3 + 4 + q_hat / 0.75) / (3 + q_hat * 2 * 1.4921875 / 0.75)
    assert pftk_throughput_bps(1 / 8, 1.0, 0.25, 2.0) == pytest.approx(expected)  # 1-bit "segments"
    assert expected == pytest.approx(1.22713, abs=1e-5)


def test_pftk_reduces_to_mathis_for_small_p_without_timeouts():
    for b in (1, 2):
        gaps = []
        for p in (1e-3, 1e-4, 1e-5, 1e-6):
            mathis = mathis_throughput_bps(1460, 0.05, p, constant=math.sqrt(3 / (2 * b)))
            gaps.append(abs(pftk_throughput_bps(1460, 0.05, p, 0.0, acked_per_ack=b) / mathis - 1))
        assert gaps[-1] < 2e-3
        assert all(x > y for x, y in zip(gaps, gaps[1:], strict=False))


def test_pftk_timeouts_window_limit_and_approximation():
    base = pftk_throughput_bps(1000, 0.1, 0.02, 0.2)
    assert pftk_throughput_bps(1000, 0.1, 0.02, 1.0) < base
    # Receiver window 10: for tiny p the flow sends W_max per RTT.
    limited = pftk_throughput_bps(1000, 0.1, 1e-8, 1.0, max_window_packets=10)
    assert limited == pytest.approx(8000 * 10 / 0.1, rel=1e-3)
    assert pftk_approx_throughput_bps(1000, 0.1, 1e-8, 1.0, max_window_packets=10) == pytest.approx(
        8000 * 100
    )
    # PFTK's approximation stays within 15% of the full model over the usual range.
    for p in (0.001, 0.005, 0.01, 0.05):
        full = pftk_throughput_bps(1000, 0.1, p, 0.4)
        approx = pftk_approx_throughput_bps(1000, 0.1, p, 0.4)
        assert approx == pytest.approx(full, rel=0.15)


def test_pftk_timeout_probability_limits():
    assert pftk_timeout_probability(3, 0.1) == 1.0
    assert pftk_timeout_probability(2.5, 0.01) == 1.0
    # Small p: a loss is a timeout when it falls among the last three packets of the window, Q ~ 3/w.
    assert pftk_timeout_probability(10, 1e-7) == pytest.approx(0.3, rel=1e-5)


def test_pftk_rejects_bad_input():
    with pytest.raises(ValueError, match="acked_per_ack"):
        pftk_throughput_bps(1000, 0.1, 0.01, 1.0, acked_per_ack=0)
    with pytest.raises(ValueError, match="max_window_packets"):
        pftk_throughput_bps(1000, 0.1, 0.01, 1.0, max_window_packets=0)
    with pytest.raises(ValueError, match="rtt_s"):
        pftk_approx_throughput_bps(1000, -0.1, 0.01, 1.0)


# ---------------------------------------------------------------- Bianchi's DCF model


A = DcfParameters.ieee80211a()


def test_ofdm_durations_by_hand():
    # ACK, 14 B at 6 Mb/s: 16 + 112 + 6 = 134 bits, 24 bits/symbol -> 6 symbols: 20 + 24 = 44 us.
    assert ofdm_frame_duration_s(14, 6e6) == pytest.approx(44e-6)
    # 1528 B at 54 Mb/s: 22 + 12224 = 12246 bits, 216 bits/symbol -> 57 symbols: 20 + 228 = 248 us.
    assert ofdm_frame_duration_s(1528, 54e6) == pytest.approx(248e-6)
    # 802.11a, table I of paper 004: CWmax 1023 = 2^6 * 16 - 1.
    assert (A.cw_min, A.max_backoff_stage, A.cw_max) == (15, 6, 1023)
    assert (A.slot_s, A.sifs_s, A.difs_s) == (9e-6, 16e-6, 34e-6)


def test_one_station_gets_the_deterministic_throughput():
    # n = 1: p = 0, tau = 2/(W+1) = 2/17; a cycle is the mean backoff CWmin/2 = 7.5 slots = 67.5 us plus
    # T_s = H + P + SIFS + ACK + DIFS = (20 + 246/54) + 12000/54 + 16 + 44 + 34 us = 340.778 us.
    # 12000 bits / 408.278 us = 29.392 Mb/s.
    r = bianchi_saturation_throughput(1, A, 12000, 54e6)
    assert (r.tau, r.collision_probability) == (pytest.approx(2 / 17), 0.0)
    t_s = (20 + 246 / 54 + 12000 / 54 + 16 + 44 + 34) * 1e-6
    assert r.success_time_s == pytest.approx(t_s)
    assert r.throughput_bps == pytest.approx(12000 / (t_s + 7.5 * 9e-6))
    assert r.throughput_bps == pytest.approx(29.392e6, rel=1e-4)
    # RTS/CTS adds RTS + SIFS + CTS + SIFS to every success.
    rts = bianchi_saturation_throughput(1, A, 12000, 54e6, access="rts_cts")
    assert rts.success_time_s - r.success_time_s == pytest.approx(A.rts_s + A.cts_s + 2 * A.sifs_s)


def _markov_tau(p: float, w: int, m: int) -> float:
    """Bianchi's backoff chain solved numerically: states (i, k), i = 0..m, k = 0..2^i w - 1."""
    sizes = [w * 2**i for i in range(m + 1)]
    index = {}
    for i, size in enumerate(sizes):
        for k in range(size):
            index[i, k] = len(index)
    n = len(index)
    t = np.zeros((n, n))
    for (i, k), s in index.items():
        if k > 0:
            t[s, index[i, k - 1]] = 1.0
            continue
        for k2 in range(sizes[0]):
            t[s, index[0, k2]] += (1 - p) / sizes[0]
        nxt = min(i + 1, m)
        for k2 in range(sizes[nxt]):
            t[s, index[nxt, k2]] += p / sizes[nxt]
    vals, vecs = np.linalg.eig(t.T)
    pi = np.real(vecs[:, np.argmin(abs(vals - 1))])
    pi /= pi.sum()
    return float(sum(pi[index[i, 0]] for i in range(m + 1)))


@pytest.mark.parametrize(("p", "cw_min", "m"), [(0.3, 3, 2), (0.5, 7, 3), (0.05, 15, 1), (0.7, 3, 0)])
def test_tau_equals_the_markov_chain(p, cw_min, m):
    assert bianchi_tau(p, cw_min, m) == pytest.approx(_markov_tau(p, cw_min + 1, m), rel=1e-9)


def test_tau_printed_form_and_fixed_point():
    w, m = 32, 5
    for p in (0.1, 0.3, 0.49, 0.51, 0.8):
        printed = 2 * (1 - 2 * p) / ((1 - 2 * p) * (w + 1) + p * w * (1 - (2 * p) ** m))  # eq. (7)
        assert bianchi_tau(p, w - 1, m) == pytest.approx(printed)
    taus, ps = [], []
    for n in (1, 2, 3, 5, 10, 20, 50, 100):
        tau, p = bianchi_fixed_point(n, 15, 6)
        assert p == pytest.approx(1 - (1 - tau) ** (n - 1), abs=1e-12)  # eq. (9)
        assert tau == pytest.approx(bianchi_tau(p, 15, 6))  # eq. (7)
        taus.append(tau)
        ps.append(p)
    assert all(a > b for a, b in zip(taus, taus[1:], strict=False))
    assert all(a < b for a, b in zip(ps, ps[1:], strict=False))


def test_rts_cts_throughput_depends_less_on_n():
    # Bianchi section V: with RTS/CTS collisions are short, so throughput barely falls as n grows.
    def drop(access):
        s5 = bianchi_saturation_throughput(5, A, 12000, 54e6, access=access).normalized
        s50 = bianchi_saturation_throughput(50, A, 12000, 54e6, access=access).normalized
        return (s5 - s50) / s5

    assert drop("rts_cts") < drop("basic") / 3
    for n in (2, 10, 40):
        r = bianchi_saturation_throughput(n, A, 12000, 54e6)
        assert 0 < r.normalized < 1
        assert r.throughput_bps == pytest.approx(r.normalized * 54e6)
        assert r.success_probability == pytest.approx(n * r.tau * (1 - r.tau) ** (n - 1) / r.busy_probability)


def test_dcf_rejects_bad_input():
    with pytest.raises(ValueError, match="n_stations"):
        bianchi_saturation_throughput(0, A, 12000, 54e6)
    with pytest.raises(ValueError, match="access"):
        bianchi_saturation_throughput(2, A, 12000, 54e6, access="cts")
    no_rts = DcfParameters(9e-6, 16e-6, 34e-6, 15, 6, header_s=25e-6, ack_s=44e-6)
    with pytest.raises(ValueError, match="rts_s"):
        bianchi_saturation_throughput(2, no_rts, 12000, 54e6, access="rts_cts")
    with pytest.raises(ValueError, match="slot_s"):
        DcfParameters(0, 16e-6, 34e-6, 15, 6, header_s=25e-6, ack_s=44e-6)
    with pytest.raises(ValueError, match="cw_max"):
        DcfParameters.ieee80211a(cw_max=1000)
    with pytest.raises(ValueError, match="collision_probability"):
        bianchi_tau(1.5, 15, 6)


def test_curves_for_the_figures():
    dt = droptail_curve(5, 10, [10, 50, 100], **HKM)
    assert list(dt.columns) == ["buffer_packets", "reno_per_flow_bps", "vegas_per_flow_bps", "reno_share"]
    assert dt["reno_per_flow_bps"].isna().tolist() == [True, False, False]  # B = 10: no room for Reno
    assert dt.loc[2, "vegas_per_flow_bps"] == pytest.approx(
        droptail_model(5, 10, 100, **HKM).vegas_per_flow_bps
    )
    red = red_curve(5, 5, [1 / 30, 1 / 10], **HKM, rto_s=1.0)
    assert red.loc[1, "reno_share"] == pytest.approx(red_model(5, 5, 0.1, **HKM, rto_s=1.0).reno_share)
    with pytest.raises(ValueError, match="rto_s"):
        red_curve(5, 5, [0.1], **HKM, rto_s=-1.0)


@settings(max_examples=200, deadline=None)
@given(
    nr=st.integers(0, 50),
    nv=st.integers(0, 50),
    buffer=st.floats(1, 2000),
    delay=st.floats(0, 0.5),
    bps=st.floats(1e5, 1e10),
    p=st.floats(1e-6, 0.6),
)
def test_reno_vegas_models_always_split_the_link(nr, nv, buffer, delay, bps, p):
    assume(nr + nv > 0)
    mu = bps / 8000
    try:
        dt = droptail_model(nr, nv, buffer, bps, delay)
    except ValueError as e:
        assert "no room for Reno" in str(e)
    else:
        assert dt.reno_total_pps + dt.vegas_total_pps == pytest.approx(mu)
        assert dt.reno_after_loss_window_packets <= dt.reno_window_packets <= dt.reno_peak_window_packets
    red = red_model(nr, nv, p, bps, delay, rto_s=0.2)
    assert red.reno_total_pps + red.vegas_total_pps == pytest.approx(mu)
    assert red.rtt_s >= 2 * delay
    if nr:
        assert 0 <= red.reno_flow.timeout_probability < 1
        assert 0 < red.reno_flow.mean_window_packets <= 1 + 0.75 * red.reno_flow.loss_window_packets


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 200), cw_min=st.sampled_from([7, 15, 31, 63]), m=st.integers(0, 7))
def test_dcf_throughput_is_a_fraction(n, cw_min, m):
    params = DcfParameters(9e-6, 16e-6, 34e-6, cw_min, m, header_s=25e-6, ack_s=44e-6)
    r = bianchi_saturation_throughput(n, params, 8000, 54e6)
    assert 0 < r.tau <= 2 / (cw_min + 2)
    assert 0 < r.normalized < 1
    single = bianchi_saturation_throughput(1, params, 8000, 54e6)
    assert r.tau <= single.tau


# ------------------------------------------------------ Ware et al. (IMC 2019), BBR v1 vs loss-based

# Their validation path: 10 Mb/s of 1500-byte packets (833.3 packets/s), 40 ms base RTT, BDP 33.3 packets.
WARE_C, WARE_L = 10e6 / 12000, 0.04


def test_ware_four_bdp_by_hand():
    # q = 133.3: p = 1/2 - 1/8 - 4/133.3 = 0.345 (eq. 9); RTT = (0.345 q + 4)/c + l = 0.1 s (eq. 7);
    # cap = 2 (1 - p) c RTT = 109.2 = (1 - p)(q + c l) (eq. 8); probe (0.16 + 0.2 + 0.04)/10 = 0.04 (eq. 11).
    m = ware_bbr_share(4 * WARE_C * WARE_L, WARE_C, WARE_L)
    assert m.buffer_bdp == pytest.approx(4)
    assert m.loss_based_share == pytest.approx(0.345)
    assert m.rtt_estimate_s == pytest.approx(0.1)
    assert m.in_flight_cap_packets == pytest.approx((1 - 0.345) * (133.333 + 33.333), rel=1e-4)
    assert m.probe_rtt_share == pytest.approx(0.04)
    assert m.bbr_share == pytest.approx(0.655 * 0.96)


def test_ware_deep_buffers_approach_one_half_less_probe_time():
    m = ware_bbr_share(1e5 * WARE_C * WARE_L, WARE_C, WARE_L)
    assert m.loss_based_share == pytest.approx(0.5, abs=1e-4)
    assert m.probe_rtt_share == 1.0 and m.bbr_share == 0.0  # the queue takes longer than 10 s to drain


def test_ware_shallow_buffer_gives_bbr_the_link_but_probe_time():
    m = ware_bbr_share(0.5 * WARE_C * WARE_L, WARE_C, WARE_L)
    assert m.loss_based_share == 0.0
    assert m.bbr_share == pytest.approx(1 - (0.02 + 0.2 + 0.04) / 10)


def test_ware_more_bbr_flows_take_more_and_rtt_estimate_counts_their_packets():
    one, eight = (ware_bbr_share(8 * WARE_C * WARE_L, WARE_C, WARE_L, n) for n in (1, 8))
    assert eight.loss_based_share == pytest.approx(one.loss_based_share - 28 / (8 * WARE_C * WARE_L))
    assert eight.bbr_share > one.bbr_share
    assert ware_rtt_estimate_s(0.5, 100, 1000, 0.04, 2) == pytest.approx((50 + 8) / 1000 + 0.04)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: ware_bbr_share(0, WARE_C, WARE_L), "queue_packets"),
        (lambda: ware_bbr_share(10, -1, WARE_L), "capacity_pps"),
        (lambda: ware_bbr_share(10, WARE_C, WARE_L, 0), "bbr_flows"),
        (lambda: ware_rtt_estimate_s(1.5, 10, WARE_C, WARE_L), "loss_based_share"),
    ],
)
def test_ware_rejects_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()
