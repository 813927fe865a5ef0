/* Fixed-point windows and the per-connection state shared by tcplab's kernel algorithms.
 *
 * The simulator keeps cwnd and ssthresh as fractional packet counts (crates/tcplab/src/cc,
 * "windows are in packets and fractional"). The kernel's snd_cwnd is a whole number, so
 * each algorithm keeps a shadow window with TL_FP_SHIFT fractional bits in the CA private
 * area and writes its integer part to the socket. When the stack itself changes snd_cwnd
 * (PRR during recovery, cwnd = ssthresh when recovery ends, in_flight + 1 after a timeout,
 * an undo) the shadow follows it at the next hook (tl_sync); every port has pkts_acked,
 * which runs on every ACK, so that no write goes unseen (PRR's windows may return to the
 * shadow's integer part). BPF has no floating point; RTTs are
 * whole microseconds and all divisions are unsigned 64-bit. */
#ifndef TL_COMMON_H
#define TL_COMMON_H
#include "tl_kernel.h"

#define TL_FP_SHIFT 16
#define TL_ONE (1u << TL_FP_SHIFT)
/* Largest shadow window, and the shadow of the kernel's "infinite" ssthresh. */
#define TL_MAX_FP 0xfffe0000u
#define TL_INF_FP 0xffffffffu
#define TL_INFINITE_SSTHRESH 0x7fffffffu

#define TL_STR_(x) #x
#define TL_STR(x) TL_STR_(x)

/* Everything an algorithm remembers about one connection; fits the kernel's
 * icsk_ca_priv (13 u64). Fields unused by an algorithm stay zero. */
struct tl_ca {
	u32 cwnd_fp;
	u32 ssthresh_fp;
	u32 base_rtt; /* minimum RTT, us; 0 = none yet */
	u32 beg_snd_nxt; /* the current round ends when snd_una passes this */
	u32 r_min; /* the current round's samples, us */
	u32 r_last;
	u32 r_count;
	u32 p_min; /* a round that ended on this ACK, acted on in cong_avoid */
	u32 p_last;
	u32 alpha_fp; /* thresholds, packets in fixed point */
	u32 beta_fp;
	u32 prev_rtt; /* the previous round's (or ACK's) RTT, us */
	u32 prev_cwnd_fp;
	u32 count; /* Vegas+'s counter */
	u32 n_fp; /* Veno's backlog N */
	u64 prev_th; /* Vegas-A's previous throughput, packets/s in fixed point */
	u8 pending;
	u8 ss_growing;
	u8 state; /* the last tcp_ca_state seen through set_state */
	u8 prev_valid;
	u8 prev_th_valid;
	u8 aggressive;
	u8 odd_ack;
};

#ifndef TL_NATIVE
_Static_assert(sizeof(struct tl_ca) <= 13 * sizeof(u64), "tl_ca must fit icsk_ca_priv");
#endif

static __always_inline struct tl_ca *tl_ca(const struct sock *sk)
{
	return (struct tl_ca *)tl_ca_area(sk);
}

static __always_inline u32 tl_min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

static __always_inline u32 tl_max_u32(u32 a, u32 b)
{
	return a > b ? a : b;
}

static __always_inline u32 tl_cap_fp(u64 v)
{
	return v > TL_MAX_FP ? TL_MAX_FP : (u32)v;
}

static __always_inline int tl_in_slow_start(const struct tl_ca *ca)
{
	return ca->cwnd_fp < ca->ssthresh_fp;
}

/* Adopts changes the stack made to snd_cwnd or snd_ssthresh since the last hook. When
 * the stack set cwnd to ssthresh (end of recovery) the shadow keeps ssthresh's fraction. */
static __always_inline void tl_sync(const struct tcp_sock *tp, struct tl_ca *ca)
{
	u32 s = tp->snd_ssthresh, c = tp->snd_cwnd;

	if (s >= 0xffff)
		ca->ssthresh_fp = TL_INF_FP;
	else if (s != ca->ssthresh_fp >> TL_FP_SHIFT)
		ca->ssthresh_fp = s << TL_FP_SHIFT;
	if (c != ca->cwnd_fp >> TL_FP_SHIFT) {
		if (ca->ssthresh_fp != TL_INF_FP && c == ca->ssthresh_fp >> TL_FP_SHIFT)
			ca->cwnd_fp = ca->ssthresh_fp;
		else
			ca->cwnd_fp = tl_cap_fp((u64)c << TL_FP_SHIFT);
	}
}

/* Writes the shadow windows to the socket. */
static __always_inline void tl_commit(struct tcp_sock *tp, const struct tl_ca *ca)
{
	u32 c = tl_max_u32(ca->cwnd_fp >> TL_FP_SHIFT, 1);

	if (tp->snd_cwnd_clamp && c > tp->snd_cwnd_clamp)
		c = tp->snd_cwnd_clamp;
	tp->snd_cwnd = c;
	tp->snd_ssthresh = ca->ssthresh_fp == TL_INF_FP ? TL_INFINITE_SSTHRESH
							: ca->ssthresh_fp >> TL_FP_SHIFT;
}

static __always_inline void tl_init_windows(const struct tcp_sock *tp, struct tl_ca *ca)
{
	ca->ssthresh_fp = TL_INF_FP;
	ca->cwnd_fp = 0;
	tl_sync(tp, ca);
}

/* RFC 5681 slow start and congestion avoidance in fixed point (cc/reno.rs
 * reno_increase): below ssthresh cwnd grows by the segments acked, capped at ssthresh,
 * the rest is carried into avoidance, where cwnd grows by acked / cwnd. */
static __always_inline void tl_reno_increase(struct tl_ca *ca, u32 acked, int limited)
{
	u64 acked_fp = (u64)acked << TL_FP_SHIFT;

	if (!limited)
		return;
	if (tl_in_slow_start(ca)) {
		u64 room = ca->ssthresh_fp - ca->cwnd_fp;
		u64 step = acked_fp < room ? acked_fp : room;

		ca->cwnd_fp = tl_cap_fp(ca->cwnd_fp + step);
		acked_fp -= step;
		if (!acked_fp)
			return;
	}
	if (ca->cwnd_fp)
		ca->cwnd_fp = tl_cap_fp(ca->cwnd_fp + ((acked_fp << TL_FP_SHIFT) / ca->cwnd_fp));
}

/* Vegas's Diff = (Expected - Actual) * BaseRTT = cwnd * (RTT - BaseRTT) / RTT, packets
 * in fixed point (000 eq. (1); cc/delay.rs Estimate). RTT below BaseRTT counts as BaseRTT.
 * Both times in the same unit. */
static __always_inline u32 tl_diff_fp(u32 cwnd_fp, u64 base, u64 rtt)
{
	if (!base)
		return 0;
	if (rtt < base)
		rtt = base;
	return (u32)(((u64)cwnd_fp * (rtt - base)) / rtt);
}

/* cwnd * num / den, at least two packets (the floor every loss response here keeps). */
static __always_inline u32 tl_scaled_at_least_two(u32 cwnd_fp, u32 num, u32 den)
{
	u64 v = (u64)cwnd_fp * num / den;

	return v < 2 * TL_ONE ? 2 * TL_ONE : tl_cap_fp(v);
}


/* undo_cwnd, the same for every algorithm here: restore the window held before the loss
 * response (Linux tcp_reno_undo_cwnd: max(cwnd, prior_cwnd)). A macro rather than a
 * function because each algorithm's object must define its own struct_ops program. */
#define TL_DEFINE_UNDO_CWND                                      \
	u32 TL_OP(tl_undo_cwnd, struct sock *sk)                 \
	{                                                        \
		const struct tcp_sock *tp = tl_tcp_sk(sk);       \
		return tl_max_u32(tp->snd_cwnd, tp->prior_cwnd); \
	}

#endif
