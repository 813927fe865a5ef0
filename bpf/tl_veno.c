/* TCP Veno (001 section II): Reno whose increase and decrease depend on Vegas's backlog
 * N = cwnd * (RTT - BaseRTT) / RTT with RTT the smoothed RTT (001 section II-A).
 * Simulator: crates/tcplab/src/cc/veno.rs (rtt = "smoothed", its default).
 * The kernel's ssthresh hook cannot tell a timeout; the Reno response to it
 * (ssthresh = cwnd / 2) is applied at CA_EVENT_LOSS, raised right after ssthresh. */
#include "tl_common.h"

#define TL_NAME tl_veno
/* 001 section II-A: beta = 3 packets; II-B.3: 4/5 for a random loss, 1/2 otherwise. */
#define TL_VENO_BETA (3 * TL_ONE)

static __always_inline void tl_veno_estimate(const struct tcp_sock *tp, struct tl_ca *ca)
{
	/* srtt_us is in units of 1/8 us; BaseRTT is scaled to match. */
	u32 srtt8 = tp->srtt_us;

	ca->n_fp = srtt8 ? tl_diff_fp(ca->cwnd_fp, (u64)ca->base_rtt * 8, srtt8) : 0;
}

void TL_OP(tl_init, struct sock *sk)
{
	struct tl_ca *ca = tl_ca(sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	tl_init_windows(tl_tcp_sk(sk), ca);
}

void TL_OP(tl_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tl_tcp_sk(sk);
	struct tl_ca *ca = tl_ca(sk);
	s32 rtt_us = sample->rtt_us;

	tl_sync(tp, ca);
	if (rtt_us > 0 && (!ca->base_rtt || (u32)rtt_us < ca->base_rtt))
		ca->base_rtt = (u32)rtt_us;
	tl_veno_estimate(tp, ca);
}

/* 001 section II-B.1/2: Reno's slow start; in avoidance + 1/cwnd per new ACK while
 * N < beta, on every other new ACK otherwise. */
void TL_OP(tl_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tl_tcp_sk(sk);
	struct tl_ca *ca = tl_ca(sk);
	int limited = tl_cwnd_limited(tp);

	tl_sync(tp, ca);
	if (!limited)
		return;
	if (tl_in_slow_start(ca) || ca->n_fp < TL_VENO_BETA) {
		tl_reno_increase(ca, acked, limited);
	} else {
		ca->odd_ack = !ca->odd_ack;
		if (!ca->odd_ack)
			tl_reno_increase(ca, acked, limited);
	}
	tl_commit(tp, ca);
}

/* 001 section II-B.3: ssthresh = 4/5 cwnd if N < beta (random loss), 1/2 otherwise;
 * BaseRTT is reset (001 section II-A). */
u32 TL_OP(tl_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tl_tcp_sk(sk);
	struct tl_ca *ca = tl_ca(sk);

	tl_sync(tp, ca);
	tl_veno_estimate(tp, ca);
	if (ca->n_fp < TL_VENO_BETA)
		ca->ssthresh_fp = tl_scaled_at_least_two(ca->cwnd_fp, 4, 5);
	else
		ca->ssthresh_fp = tl_scaled_at_least_two(ca->cwnd_fp, 1, 2);
	ca->base_rtt = 0;
	return ca->ssthresh_fp >> TL_FP_SHIFT;
}

void TL_OP(tl_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = tl_tcp_sk(sk);
	struct tl_ca *ca = tl_ca(sk);

	if (ev != CA_EVENT_LOSS)
		return;
	tl_sync(tp, ca);
	ca->ssthresh_fp = tl_scaled_at_least_two(ca->cwnd_fp, 1, 2);
	tl_commit(tp, ca);
}

TL_DEFINE_UNDO_CWND

TL_OPS_SECTION
struct tcp_congestion_ops TL_NAME = {
	.init = (void *)tl_init,
	.ssthresh = (void *)tl_ssthresh,
	.cong_avoid = (void *)tl_cong_avoid,
	.cwnd_event = (void *)tl_cwnd_event,
	.pkts_acked = (void *)tl_pkts_acked,
	.undo_cwnd = (void *)tl_undo_cwnd,
	.name = TL_STR(TL_NAME),
};
