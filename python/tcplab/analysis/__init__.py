"""Analytical models of the source papers and statistics over repeated runs.

Models (each cites its paper's equations):

* :mod:`.reno_vegas`: Hasegawa, Kurata, Murata (paper 003) Reno/Vegas throughput behind DropTail
  (eqs. 5-12) and constant-probability RED (eqs. 13-24); Mo et al.'s Vegas/Reno ratio ``2k/(B-k)``.
* :mod:`.code_epsilon`: CODE TCP's epsilon equation (paper 000, eq. 18: roots 0.68 and 0.91).
* :mod:`.tcp_models`: Mathis et al. and Padhye et al. (PFTK) Reno throughput against loss rate.
* :mod:`.dcf`: Bianchi's IEEE 802.11 DCF saturation throughput.
* :mod:`.bbr_model`: Ware et al. (IMC 2019), BBR v1's share against loss-based flows (eqs. 7-11).

Statistics: :mod:`.stats`.
"""

from .bbr_model import WARE_STATED_MEDIAN_ERROR, WareShare, ware_bbr_share, ware_rtt_estimate_s
from .code_epsilon import code_epsilon, code_epsilon_polynomial, code_epsilon_roots, code_reno_cycle_ratio
from .dcf import (
    DcfParameters,
    DcfThroughput,
    bianchi_fixed_point,
    bianchi_saturation_throughput,
    bianchi_tau,
    ofdm_frame_duration_s,
)
from .reno_vegas import (
    DropTailModel,
    RedModel,
    RedRenoWindow,
    RenoVegasThroughput,
    bottleneck_packets_per_s,
    droptail_curve,
    droptail_model,
    mo_vegas_reno_ratio,
    red_curve,
    red_model,
    red_reno_window,
    red_timeout_probability,
)
from .stats import (
    ConfidenceInterval,
    concat_flows,
    jain_index,
    jain_per_run,
    mean_ci,
    per_kind_stats,
    per_run_kind_means,
    per_run_ratio,
    ratio_ci,
)
from .tcp_models import (
    MATHIS_CONSTANT,
    mathis_throughput_bps,
    pftk_approx_throughput_bps,
    pftk_throughput_bps,
    pftk_timeout_probability,
)

__all__ = [
    "ConfidenceInterval",
    "DcfParameters",
    "DcfThroughput",
    "DropTailModel",
    "MATHIS_CONSTANT",
    "RedModel",
    "RedRenoWindow",
    "RenoVegasThroughput",
    "bianchi_fixed_point",
    "bianchi_saturation_throughput",
    "bianchi_tau",
    "bottleneck_packets_per_s",
    "code_epsilon",
    "code_epsilon_polynomial",
    "code_epsilon_roots",
    "code_reno_cycle_ratio",
    "concat_flows",
    "droptail_curve",
    "droptail_model",
    "jain_index",
    "jain_per_run",
    "mathis_throughput_bps",
    "mean_ci",
    "mo_vegas_reno_ratio",
    "ofdm_frame_duration_s",
    "per_kind_stats",
    "per_run_kind_means",
    "per_run_ratio",
    "pftk_approx_throughput_bps",
    "pftk_throughput_bps",
    "pftk_timeout_probability",
    "ratio_ci",
    "WARE_STATED_MEDIAN_ERROR",
    "WareShare",
    "ware_bbr_share",
    "ware_rtt_estimate_s",
    "red_curve",
    "red_model",
    "red_reno_window",
    "red_timeout_probability",
]
