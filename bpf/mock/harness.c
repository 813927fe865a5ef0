/* Replays a test-vector file (tests/vectors/<algo>.txt, generated from the Rust
 * implementations) against one algorithm's BPF source compiled natively, and checks the
 * cwnd/ssthresh after every hook. The harness plays the kernel: it sets the socket's
 * fields from each line's pre-state, applies changes the sender made between hooks
 * (cwnd = ssthresh after recovery, the post-timeout window) the way the stack writes
 * snd_cwnd, and stores ssthresh's return value in snd_ssthresh.
 *
 * Each `init` line starts a new trace on a fresh socket, whose sequence numbers start at
 * ISN (so they wrap soon, as the kernel's may). `undo_cwnd P/S` plays Linux's
 * tcp_undo_cwnd_reduction: prior_cwnd P, the returned window written to snd_cwnd, and
 * snd_ssthresh raised to S if that is larger. The state behind the kernel's
 * tcp_is_cwnd_limited is set so that the branch it takes (slow start or not, by the
 * socket's windows) gives the line's answer at the edge of its test, and the other branch
 * the opposite one: a changed comparison or branch shows.
 *
 * The checks read the windows as the port would at its next hook (tl_sync on a copy of
 * its state), without changing its state: a hook that forgets to adopt the stack's
 * writes shows.
 *
 * Checks: the fixed-point shadow window within TOL packets of the simulator's value, and
 * the socket's integer snd_cwnd equal to its floor (unless the simulator's value lies
 * within TOL of a whole number). The kernel's ssthresh hook cannot tell a timeout, so a
 * timeout's ssthresh is checked after CA_EVENT_LOSS instead (bpf/tl_vegas_family.h).
 *
 * usage: harness VECTORS.txt   (prints "N passed, N failed"; exit 1 on any failure) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tl_common.h"

extern struct tcp_congestion_ops TL_OPS;

#define TOL 0.02
#define ISN 0xffffff00u

static double parse_window(const char *s)
{
	return strcmp(s, "inf") == 0 ? INFINITY : atof(s);
}

static double shadow(u32 fp)
{
	return fp == TL_INF_FP ? INFINITY : (double)fp / TL_ONE;
}

static int close_enough(double got, double want)
{
	if (isinf(want) || isinf(got))
		return isinf(want) && isinf(got);
	return fabs(got - want) <= TOL + 1e-4 * fabs(want);
}

static int near_integer(double v)
{
	return fabs(v - round(v)) <= TOL;
}

/* The kernel's tcp_is_cwnd_limited answers `limited`: in slow start through
 * snd_cwnd < 2 * max_packets_out, at its edge; otherwise through is_cwnd_limited. */
static void set_cwnd_limited(struct tcp_sock *tp, unsigned limited)
{
	u32 half = tp->snd_cwnd / 2;
	int in_ss = tp->snd_cwnd < tp->snd_ssthresh;
	unsigned slow_start_answer = in_ss ? limited : !limited;

	tp->max_packets_out = slow_start_answer ? half + 1 : half;
	tp->is_cwnd_limited = (u8)(in_ss ? !limited : limited);
}

int main(int argc, char **argv)
{
	struct tcp_sock tp;
	struct sock *sk = (struct sock *)&tp;
	struct tl_ca *ca = (struct tl_ca *)tp.inet_conn.icsk_ca_priv;
	char op[32], arg[32], pre_c[32], pre_s[32], post_c[32], post_s[32];
	unsigned long long srtt_ns;
	unsigned una, nxt, limited, state, prior_c, prior_s;
	double last_post_c = NAN, last_post_s = NAN;
	int pending_timeout = 0, line = 0, passed = 0, failed = 0;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: %s VECTORS.txt\n", argv[0]);
		return 2;
	}
	memset(&tp, 0, sizeof(tp));
	while (fscanf(f, "%31s %31s %u %u %llu %u %u %31s %31s %31s %31s", op, arg, &una, &nxt,
		      &srtt_ns, &limited, &state, pre_c, pre_s, post_c, post_s) == 11) {
		double pc = parse_window(pre_c), ps = parse_window(pre_s);
		double want_c = parse_window(post_c), want_s = parse_window(post_s);
		int check_s = 1;

		line++;
		if (!strcmp(op, "init")) {
			if (pending_timeout) {
				fprintf(stderr, "%s:%d: a timeout's ssthresh was never followed by "
						"CA_EVENT_LOSS\n", argv[1], line);
				failed++;
			}
			memset(&tp, 0, sizeof(tp));
			tp.snd_cwnd_clamp = ~0u; /* tcp_init_sock's: no clamp */
			last_post_c = last_post_s = NAN;
			pending_timeout = 0;
		}
		tp.snd_una = ISN + una;
		tp.snd_nxt = ISN + nxt;
		tp.srtt_us = (u32)(srtt_ns * 8 / 1000);
		tp.inet_conn.icsk_ca_state = (u8)state;
		/* The sender changed the windows since the last hook: write them as the stack does. */
		if (!(pc == last_post_c) || !(ps == last_post_s || (isinf(ps) && isinf(last_post_s)))) {
			tp.snd_cwnd = (u32)floor(pc + 1e-9);
			tp.snd_ssthresh = isinf(ps) ? TL_INFINITE_SSTHRESH : (u32)floor(ps + 1e-9);
		}
		set_cwnd_limited(&tp, limited);
		if (!strcmp(op, "init")) {
			if (TL_OPS.init)
				TL_OPS.init(sk);
		} else if (!strcmp(op, "pkts_acked")) {
			struct ack_sample s = { .pkts_acked = 1, .rtt_us = atoi(arg), .in_flight = nxt - una };

			if (TL_OPS.pkts_acked)
				TL_OPS.pkts_acked(sk, &s);
		} else if (!strcmp(op, "cong_avoid")) {
			TL_OPS.cong_avoid(sk, tp.snd_una, (u32)atoi(arg));
		} else if (!strcmp(op, "ssthresh")) {
			tp.snd_ssthresh = TL_OPS.ssthresh(sk);
			if (!strcmp(arg, "timeout")) {
				check_s = 0;
				pending_timeout = 1;
			}
		} else if (!strcmp(op, "set_state")) {
			if (TL_OPS.set_state)
				TL_OPS.set_state(sk, (u8)atoi(arg));
			tp.inet_conn.icsk_ca_state = (u8)atoi(arg);
		} else if (!strcmp(op, "undo_cwnd")) {
			if (sscanf(arg, "%u/%u", &prior_c, &prior_s) != 2) {
				fprintf(stderr, "%s:%d: undo_cwnd wants PRIOR_CWND/PRIOR_SSTHRESH\n", argv[1], line);
				return 2;
			}
			tp.prior_cwnd = prior_c;
			tp.snd_cwnd = TL_OPS.undo_cwnd(sk);
			if (prior_s > tp.snd_ssthresh)
				tp.snd_ssthresh = prior_s;
		} else if (!strcmp(op, "cwnd_event")) {
			if (TL_OPS.cwnd_event)
				TL_OPS.cwnd_event(sk, (enum tcp_ca_event)atoi(arg));
			pending_timeout = 0;
		} else {
			fprintf(stderr, "%s:%d: unknown op %s\n", argv[1], line, op);
			return 2;
		}
		last_post_c = want_c;
		last_post_s = want_s;
		{
			/* What the port will read at its next hook: its shadow after tl_sync. */
			struct tl_ca view = *ca;
			u32 want_int = want_c < 1 ? 1 : (u32)floor(want_c + 1e-9);
			double got_c, got_s;
			int ok;

			tl_sync(&tp, &view);
			got_c = shadow(view.cwnd_fp);
			got_s = shadow(view.ssthresh_fp);
			ok = close_enough(got_c, want_c) && (!check_s || close_enough(got_s, want_s)) &&
			     (near_integer(want_c) || tp.snd_cwnd == want_int);

			if (ok) {
				passed++;
			} else {
				failed++;
				if (failed <= 10)
					fprintf(stderr,
						"%s:%d %s %s: cwnd %.4f (socket %u) ssthresh %.4f; "
						"simulator cwnd %s ssthresh %s\n",
						argv[1], line, op, arg, got_c, tp.snd_cwnd, got_s, post_c,
						post_s);
			}
		}
	}
	fclose(f);
	if (pending_timeout) {
		fprintf(stderr, "%s: a timeout's ssthresh was never followed by CA_EVENT_LOSS\n", argv[1]);
		failed++;
	}
	if (line == 0) {
		fprintf(stderr, "%s: no vectors read\n", argv[1]);
		failed++;
	}
	printf("%s: %d passed, %d failed\n", TL_STR(TL_OPS), passed, failed);
	return failed ? 1 : 0;
}
