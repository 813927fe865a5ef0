/* Vegas's slow start, rounds and loss response around a member's avoidance rule
 * (crates/tcplab/src/cc/vegas.rs VegasFamily, 000 section 2.2). A member's .c file picks
 * its rule and RTT choice with macros and includes this file:
 *
 *   TL_NAME        the congestion control's name (also the struct_ops map's)
 *   TL_RULE        TL_RULE_VEGAS | TL_RULE_THRESHOLD | TL_RULE_VEGAS_A | TL_RULE_VEGAS_PLUS
 *   TL_RTT_MIN     1: the round's minimum RTT (CODE, 000 section 4.5); 0: the sample of
 *                  the round's last ACK (Brakmo & Peterson section 3.2)
 *   TL_INCREASE    threshold rule: rise when the RTT grew and the window did not (1 / 2)
 *   TL_SCALE_NUM, TL_SCALE_DEN  threshold rule: on a duplicate-ACK loss scale the
 *                  thresholds by NUM/DEN (CODE's epsilon = 0.68 = 17/25); 0 restores
 *                  alpha0 and beta0 (NewVegas)
 *   TL_COUNT_MAX   Vegas+: count that turns moderate mode aggressive (003 section 5.1: 8)
 *
 * Differences from the simulator that the kernel's hooks impose (docs/kernel.md):
 * - no fine-grained retransmission (000 section 2.2.3): the stack decides retransmits;
 * - the kernel asks ssthresh once per loss episode, so every call is a "new episode",
 *   and it cannot tell whether the lost segment had been retransmitted before, so a
 *   fast-retransmit loss always gives 3/4;
 * - the kernel's ssthresh hook cannot tell a timeout from a fast retransmit; the timeout
 *   response (ssthresh = cwnd / 2, 000 section 2.2.3) is applied at CA_EVENT_LOSS, which
 *   the stack raises right after ssthresh on a timeout, and cwnd = 2 at the switch to
 *   TCP_CA_Loss. */
#include "tl_common.h"

#define TL_RULE_VEGAS 1
#define TL_RULE_THRESHOLD 2
#define TL_RULE_VEGAS_A 3
#define TL_RULE_VEGAS_PLUS 4

/* Vegas's thresholds alpha = 1, beta = 3, gamma = 1 packets (000 eq. (2), 000 section
 * 2.5, 002, 003; the alpha0/beta0 of the adaptive members). */
#define TL_ALPHA0 (1 * TL_ONE)
#define TL_BETA0 (3 * TL_ONE)
#define TL_GAMMA (1 * TL_ONE)

#define TL_LOSS_DUPACK 0
#define TL_LOSS_TIMEOUT 1

/* 000 eq. (2): +1 if Diff < alpha, -1 if Diff > beta, else 0. */
static __always_inline int tl_vegas_step(u32 diff, u32 alpha, u32 beta)
{
	if (diff < alpha)
		return 1;
	if (diff > beta)
		return -1;
	return 0;
}

static __always_inline void tl_shift_thresholds(struct tl_ca *ca, int up, u32 by)
{
	if (up) {
		ca->alpha_fp += by;
		ca->beta_fp += by;
	} else {
		ca->alpha_fp = ca->alpha_fp > by ? ca->alpha_fp - by : 0;
		ca->beta_fp = ca->beta_fp > by ? ca->beta_fp - by : 0;
	}
}

#if TL_RULE == TL_RULE_VEGAS_PLUS
/* 003 section 5.1: moderate -> aggressive when count reaches count_max, back when 0. */
static __always_inline void tl_vp_switch(struct tl_ca *ca)
{
	if (!ca->aggressive && ca->count >= TL_COUNT_MAX)
		ca->aggressive = 1;
	else if (ca->aggressive && ca->count == 0)
		ca->aggressive = 0;
}
#endif

/* The member's once-per-round change in congestion avoidance (cc/vegas.rs on_round). */
static __always_inline int tl_rule_on_round(struct tl_ca *ca, u32 diff, u32 cwnd_fp, u32 rtt)
{
#if TL_RULE == TL_RULE_VEGAS || TL_RULE == TL_RULE_THRESHOLD
	return tl_vegas_step(diff, ca->alpha_fp, ca->beta_fp);
#elif TL_RULE == TL_RULE_VEGAS_A
	/* 000 section 2.5 (cc/vegas_a.rs): thresholds follow the trend of Th = cwnd / RTT. */
	u64 th = (u64)cwnd_fp * 1000000 / rtt;
	int rose = ca->prev_th_valid && th > ca->prev_th;
	int fell = ca->prev_th_valid && th < ca->prev_th;
	int above_alpha0 = ca->alpha_fp > TL_ALPHA0;

	if (ca->alpha_fp < diff && diff < ca->beta_fp) {
		if (rose) {
			tl_shift_thresholds(ca, 1, TL_ONE);
			return 1;
		}
		return 0;
	}
	if (diff < ca->alpha_fp) {
		if (above_alpha0 && rose)
			return 1;
		if (above_alpha0 && fell) {
			tl_shift_thresholds(ca, 0, TL_ONE);
			return -1;
		}
		return above_alpha0 ? 0 : 1;
	}
	if (diff > ca->beta_fp) {
		if (above_alpha0)
			tl_shift_thresholds(ca, 0, TL_ONE);
		return -1;
	}
	return 0;
#elif TL_RULE == TL_RULE_VEGAS_PLUS
	/* Moderate mode is Vegas; aggressive mode grows per ACK instead. */
	return ca->aggressive ? 0 : tl_vegas_step(diff, ca->alpha_fp, ca->beta_fp);
#endif
}

/* After every round, with the window it left (cc/vegas.rs after_round). */
static __always_inline void tl_rule_after_round(struct tl_ca *ca, int in_ss, u32 rtt,
						u32 view_cwnd_fp)
{
#if TL_RULE == TL_RULE_THRESHOLD
	/* 000 section 2.4 (NewVegas) and 3.2 (CODE): RTT grew while W did not -> both
	 * thresholds rise; RTT did not grow and alpha > alpha0 -> both fall by one. */
	if (!in_ss && ca->prev_valid) {
		if (rtt > ca->prev_rtt && ca->cwnd_fp <= ca->prev_cwnd_fp)
			tl_shift_thresholds(ca, 1, TL_INCREASE * TL_ONE);
		if (rtt <= ca->prev_rtt && ca->alpha_fp > TL_ALPHA0)
			tl_shift_thresholds(ca, 0, TL_ONE);
	}
	ca->prev_rtt = rtt;
	ca->prev_cwnd_fp = ca->cwnd_fp;
	ca->prev_valid = 1;
#elif TL_RULE == TL_RULE_VEGAS_A
	ca->prev_th = (u64)view_cwnd_fp * 1000000 / rtt;
	ca->prev_th_valid = 1;
#endif
}

/* Every ACK of new data with its RTT sample (Vegas+'s count, 003 section 5.1 rules 1-2). */
static __always_inline void tl_rule_on_ack(struct tl_ca *ca, s32 rtt_us)
{
#if TL_RULE == TL_RULE_VEGAS_PLUS
	u32 rtt;

	if (rtt_us < 0)
		return;
	rtt = (u32)rtt_us;
	if (ca->prev_valid) {
		if (rtt > ca->prev_rtt && ca->cwnd_fp <= ca->prev_cwnd_fp)
			ca->count++;
		else if (rtt < ca->prev_rtt && ca->count)
			ca->count--;
	}
	ca->prev_rtt = rtt;
	ca->prev_cwnd_fp = ca->cwnd_fp;
	ca->prev_valid = 1;
	tl_vp_switch(ca);
#endif
}

/* Per-ACK growth in congestion avoidance: only Vegas+'s aggressive mode (Reno's). */
static __always_inline void tl_rule_grow_per_ack(struct tl_ca *ca, u32 acked, int limited)
{
#if TL_RULE == TL_RULE_VEGAS_PLUS
	if (ca->aggressive)
		tl_reno_increase(ca, acked, limited);
#endif
}

/* A loss response that opens a loss episode (cc/vegas.rs on_loss). */
static __always_inline void tl_rule_on_loss(struct tl_ca *ca, int kind)
{
#if TL_RULE == TL_RULE_THRESHOLD
	if (kind == TL_LOSS_TIMEOUT || TL_SCALE_NUM == 0) {
		ca->alpha_fp = TL_ALPHA0;
		ca->beta_fp = TL_BETA0;
	} else {
		ca->alpha_fp = (u32)((u64)ca->alpha_fp * TL_SCALE_NUM / TL_SCALE_DEN);
		ca->beta_fp = (u32)((u64)ca->beta_fp * TL_SCALE_NUM / TL_SCALE_DEN);
	}
	ca->prev_valid = 0;
#elif TL_RULE == TL_RULE_VEGAS_A
	ca->prev_th_valid = 0;
#elif TL_RULE == TL_RULE_VEGAS_PLUS
	if (kind == TL_LOSS_TIMEOUT)
		ca->count = 0;
	else
		ca->count /= 2;
	tl_vp_switch(ca);
#endif
}

static __always_inline void tl_restart_rounds(struct tl_ca *ca, u32 snd_nxt)
{
	ca->beg_snd_nxt = snd_nxt;
	ca->r_count = 0;
	ca->r_min = 0;
	ca->r_last = 0;
	ca->pending = 0;
}

/* 000 section 2.2.1: the window doubles every other round; at the end of a fixed round,
 * Diff > gamma ends slow start and cuts cwnd by one eighth. */
static __always_inline void tl_slow_start_round(struct tl_ca *ca, u32 diff)
{
	if (ca->ss_growing) {
		ca->ss_growing = 0;
	} else if (diff > TL_GAMMA) {
		u32 c = ca->cwnd_fp - ca->cwnd_fp / 8;

		ca->cwnd_fp = tl_max_u32(c, 2 * TL_ONE);
		ca->ssthresh_fp = ca->cwnd_fp;
	} else {
		ca->ss_growing = 1;
	}
}

/* The once-per-round decisions (cc/vegas.rs end_round). */
static __always_inline void tl_end_round(struct tl_ca *ca, int limited)
{
	u32 rtt, diff, view_cwnd = ca->cwnd_fp;
	int in_ss, step;

	if (!ca->base_rtt)
		return;
	rtt = TL_RTT_MIN ? ca->p_min : ca->p_last;
	if (rtt < ca->base_rtt)
		rtt = ca->base_rtt;
	diff = tl_diff_fp(ca->cwnd_fp, ca->base_rtt, rtt);
	in_ss = tl_in_slow_start(ca);
	if (in_ss) {
		tl_slow_start_round(ca, diff);
	} else {
		/* 000 section 2.2.2: once per RTT, by the member's rule; no growth while
		 * the window is not the limit (RFC 7661); at least two packets; ssthresh
		 * follows so a decrease does not re-enter slow start. */
		step = tl_rule_on_round(ca, diff, view_cwnd, rtt);
		if (step > 0 && !limited)
			step = 0;
		if (step > 0)
			ca->cwnd_fp = tl_cap_fp((u64)ca->cwnd_fp + TL_ONE);
		else if (step < 0)
			ca->cwnd_fp = ca->cwnd_fp > TL_ONE ? ca->cwnd_fp - TL_ONE : 0;
		ca->cwnd_fp = tl_max_u32(ca->cwnd_fp, 2 * TL_ONE);
		ca->ssthresh_fp = tl_min_u32(ca->ssthresh_fp, ca->cwnd_fp);
	}
	tl_rule_after_round(ca, in_ss, rtt, view_cwnd);
}

/* With -DTL_TRACE (`make TRACE=1`): one trace_pipe line per finished round, "tlround" and the
 * sender's port, the round's last and minimum RTT (us), alpha, beta and cwnd in 1/256ths, so
 * that the kernel's threshold path can be set beside the simulator's (docs/kernel.md). */
static __always_inline void tl_trace_round(const struct sock *sk, const struct tl_ca *ca)
{
#if defined(TL_TRACE) && !defined(TL_NATIVE)
	bpf_printk("tlround %u %u %u %u %u %u", sk->__sk_common.skc_num, ca->p_last, ca->p_min,
		   ca->alpha_fp >> 8, ca->beta_fp >> 8, ca->cwnd_fp >> 8);
#endif
}

/* With -DTL_TRACE: one line per loss response (`ssthresh` call), "tlloss", the sender's port,
 * the window it cut from and the new ssthresh in 1/256ths, and alpha after the rule's reaction. */
static __always_inline void tl_trace_loss(const struct sock *sk, const struct tl_ca *ca)
{
#if defined(TL_TRACE) && !defined(TL_NATIVE)
	bpf_printk("tlloss %u %u %u %u", sk->__sk_common.skc_num, ca->cwnd_fp >> 8, ca->ssthresh_fp >> 8,
		   ca->alpha_fp >> 8);
#endif
}

void TL_OP(tl_init, struct sock *sk)
{
	struct tcp_sock *tp = tl_tcp_sk(sk);
	struct tl_ca *ca = tl_ca(sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	tl_init_windows(tp, ca);
	ca->ss_growing = 1;
	ca->alpha_fp = TL_ALPHA0;
	ca->beta_fp = TL_BETA0;
	tl_restart_rounds(ca, tp->snd_nxt);
}

void TL_OP(tl_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tl_tcp_sk(sk);
	struct tl_ca *ca = tl_ca(sk);
	s32 rtt_us = sample->rtt_us;

	tl_sync(tp, ca);
	/* BaseRTT is the minimum of all measured RTTs (000 section 2.2.1). */
	if (rtt_us > 0 && (!ca->base_rtt || (u32)rtt_us < ca->base_rtt))
		ca->base_rtt = (u32)rtt_us;
	tl_rule_on_ack(ca, rtt_us);
	if (rtt_us >= 0) {
		u32 r = (u32)rtt_us;

		ca->r_min = ca->r_count && ca->r_min < r ? ca->r_min : r;
		ca->r_last = r;
		ca->r_count++;
	}
	/* A round ends with the first ACK past its distinguished segment. */
	if (!tl_after(tp->snd_una, ca->beg_snd_nxt))
		return;
	if (ca->r_count) {
		ca->pending = 1;
		ca->p_min = ca->r_min;
		ca->p_last = ca->r_last;
	}
	ca->beg_snd_nxt = tp->snd_nxt;
	ca->r_count = 0;
}

void TL_OP(tl_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = tl_tcp_sk(sk);
	struct tl_ca *ca = tl_ca(sk);
	int limited = tl_cwnd_limited(tp);

	tl_sync(tp, ca);
	if (tl_in_slow_start(ca)) {
		/* 000 section 2.2.1: exponential growth in the growing rounds only. */
		if (ca->ss_growing && limited)
			ca->cwnd_fp = tl_min_u32(tl_cap_fp((u64)ca->cwnd_fp +
							   ((u64)acked << TL_FP_SHIFT)),
						 ca->ssthresh_fp);
	} else {
		tl_rule_grow_per_ack(ca, acked, limited);
	}
	if (ca->pending) {
		ca->pending = 0;
		tl_end_round(ca, limited);
		tl_trace_round(sk, ca);
	}
	tl_commit(tp, ca);
}

/* Samples from before a loss say nothing about the window after it: a fresh round on
 * entering and on leaving recovery. 000 section 2.2.3: cwnd 2 after a timeout. */
void TL_OP(tl_set_state, struct sock *sk, u8 new_state)
{
	struct tcp_sock *tp = tl_tcp_sk(sk);
	struct tl_ca *ca = tl_ca(sk);
	int was = ca->state == TCP_CA_Recovery || ca->state == TCP_CA_Loss;
	int is = new_state == TCP_CA_Recovery || new_state == TCP_CA_Loss;

	tl_sync(tp, ca);
	if (is || (new_state == TCP_CA_Open && was))
		tl_restart_rounds(ca, tp->snd_nxt);
	if (new_state == TCP_CA_Loss) {
		ca->cwnd_fp = 2 * TL_ONE;
		tl_commit(tp, ca);
	}
	ca->state = new_state;
}

/* 000 section 2.2.3: on a retransmission cwnd becomes 3/4 of its size. */
u32 TL_OP(tl_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tl_tcp_sk(sk);
	struct tl_ca *ca = tl_ca(sk);

	tl_sync(tp, ca);
	tl_rule_on_loss(ca, TL_LOSS_DUPACK);
	ca->ssthresh_fp = tl_scaled_at_least_two(ca->cwnd_fp, 3, 4);
	tl_trace_loss(sk, ca);
	return ca->ssthresh_fp >> TL_FP_SHIFT;
}

/* A timeout (the stack raises CA_EVENT_LOSS right after ssthresh): ssthresh = cwnd / 2,
 * slow start again, the member's timeout rule (000 section 2.2.3). */
void TL_OP(tl_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = tl_tcp_sk(sk);
	struct tl_ca *ca = tl_ca(sk);

	if (ev != CA_EVENT_LOSS)
		return;
	tl_sync(tp, ca);
	ca->ss_growing = 1;
	tl_rule_on_loss(ca, TL_LOSS_TIMEOUT);
	ca->ssthresh_fp = tl_scaled_at_least_two(ca->cwnd_fp, 1, 2);
	tl_commit(tp, ca);
}

TL_DEFINE_UNDO_CWND

TL_OPS_SECTION
struct tcp_congestion_ops TL_NAME = {
	.init = (void *)tl_init,
	.ssthresh = (void *)tl_ssthresh,
	.cong_avoid = (void *)tl_cong_avoid,
	.set_state = (void *)tl_set_state,
	.cwnd_event = (void *)tl_cwnd_event,
	.pkts_acked = (void *)tl_pkts_acked,
	.undo_cwnd = (void *)tl_undo_cwnd,
	.name = TL_STR(TL_NAME),
};
