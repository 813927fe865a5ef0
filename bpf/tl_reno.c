/* Reno's window rules (RFC 5681) with tcplab's fixed-point window, the baseline the
 * kernel test bed compares against the simulator's "reno". Simulator:
 * crates/tcplab/src/cc/reno.rs. Loss recovery itself is the stack's. */
#include "tl_common.h"

#define TL_NAME tl_reno

void TL_OP(tl_init, struct sock *sk)
{
	struct tl_ca *ca = tl_ca(sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	tl_init_windows(tl_tcp_sk(sk), ca);
}

/* Every ACK: adopt the stack's writes (PRR's windows during recovery), so that a window
 * that returns to the shadow's integer part is not taken for no change (tl_sync). */
void TL_OP(tl_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	tl_sync(tl_tcp_sk(sk), tl_ca(sk));
}

/* RFC 5681 eq. (4): ssthresh = max(cwnd / 2, 2). A timeout gives the same value. */
u32 TL_OP(tl_ssthresh, struct sock *sk)
{
	struct tl_ca *ca = tl_ca(sk);

	tl_sync(tl_tcp_sk(sk), ca);
	ca->ssthresh_fp = tl_scaled_at_least_two(ca->cwnd_fp, 1, 2);
	return ca->ssthresh_fp >> TL_FP_SHIFT;
}

void TL_OP(tl_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tl_tcp_sk(sk);
	struct tl_ca *ca = tl_ca(sk);

	tl_sync(tp, ca);
	tl_reno_increase(ca, acked, tl_cwnd_limited(tp));
	tl_commit(tp, ca);
}

TL_DEFINE_UNDO_CWND

TL_OPS_SECTION
struct tcp_congestion_ops TL_NAME = {
	.init = (void *)tl_init,
	.ssthresh = (void *)tl_ssthresh,
	.cong_avoid = (void *)tl_cong_avoid,
	.pkts_acked = (void *)tl_pkts_acked,
	.undo_cwnd = (void *)tl_undo_cwnd,
	.name = TL_STR(TL_NAME),
};
