/* A minimal mock of the kernel types the algorithms touch, with the kernel's field
 * names, for compiling the BPF sources natively (conformance harness). Only the fields
 * used are present; the layout is not the kernel's. */
#ifndef TL_MOCK_KERNEL_H
#define TL_MOCK_KERNEL_H
#include <stdint.h>
#include <stddef.h>

typedef uint8_t u8;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

enum tcp_ca_event {
	CA_EVENT_TX_START = 0,
	CA_EVENT_CWND_RESTART = 1,
	CA_EVENT_COMPLETE_CWR = 2,
	CA_EVENT_LOSS = 3,
};

enum tcp_ca_state {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4,
};

struct sock {
	int unused;
};

struct inet_connection_sock {
	struct sock sk;
	u8 icsk_ca_state;
	u64 icsk_ca_priv[13];
};

struct tcp_sock {
	struct inet_connection_sock inet_conn;
	u32 snd_cwnd;
	u32 snd_ssthresh;
	u32 snd_cwnd_clamp;
	u32 prior_cwnd;
	u32 snd_una;
	u32 snd_nxt;
	u32 srtt_us; /* smoothed RTT in microseconds << 3, as in the kernel */
	u32 max_packets_out;
	u8 is_cwnd_limited;
};

struct ack_sample {
	u32 pkts_acked;
	s32 rtt_us; /* negative when there is no sample */
	u32 in_flight;
};

struct tcp_congestion_ops {
	u32 (*ssthresh)(struct sock *);
	void (*cong_avoid)(struct sock *, u32, u32);
	void (*set_state)(struct sock *, u8);
	void (*cwnd_event)(struct sock *, enum tcp_ca_event);
	void (*in_ack_event)(struct sock *, u32);
	void (*pkts_acked)(struct sock *, const struct ack_sample *);
	u32 (*undo_cwnd)(struct sock *);
	void (*init)(struct sock *);
	void (*release)(struct sock *);
	char name[16];
};

#endif
