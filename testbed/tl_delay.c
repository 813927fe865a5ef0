/* tl_delay: the test bed's propagation-delay element.
 *
 * Linux here has no netem, so delay comes from userspace: an Ethernet bridge between two
 * interfaces that holds every frame for a fixed time before forwarding it (one FIFO per
 * direction, so order is kept), optionally dropping data-direction frames at random.
 * It runs inside its own network namespace between the router and the receiver; frames
 * never leave the namespaces the test bed creates. Checksum offload and GSO/GRO must be
 * off on the veths (the test bed does this) so that every frame is a complete packet.
 * Frames of any size a veth carries (MTU up to 65535) pass whole: each is queued in a
 * buffer of its own length, up to SLOTS frames and QUEUE_BYTES bytes per direction.
 * A frame is due DELAY after the kernel received it (its SO_TIMESTAMPNS stamp), not after
 * this program read it: frames that wait together for a late wake-up keep their spacing
 * instead of leaving as one burst (which compressed ACK trains and inflated delivery-rate
 * samples). Run it at real-time priority so that the sending side is on time too.
 *
 * A frame also waits its transmission time on the links it stands for (NS_PER_BYTE x its
 * length): the bottleneck's token bucket releases a frame when its transmission would
 * start, where a serial link delivers it when it ends, and veths take no time at all.
 *
 * usage: tl_delay IF_A IF_B DELAY_AB_US DELAY_BA_US [LOSS_AB SEED [NS_PER_BYTE_AB NS_PER_BYTE_BA]]
 * Exits cleanly on SIGTERM/SIGINT; prints counters to stderr on exit. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Frames queued per direction at most, and their bytes at most (a frame costs its own
 * length, so ACKs are cheap and jumbo frames are fine). */
#define SLOTS 65536
#define QUEUE_BYTES (64ull << 20)
/* The largest frame: a veth's MTU is at most 65535, plus the Ethernet header. Nothing the
 * kernel hands over is ever cut: a frame of any MTU the test bed sets passes whole. */
#define FRAME_MAX (65535 + 14 + 4)

struct slot {
	uint64_t due_ns;
	uint32_t len;
	unsigned char *data;
};

/* One direction: frames read from `in` leave on `out` after `delay_ns`. */
struct lane {
	int in, out;
	uint64_t delay_ns;
	double ns_per_byte; /* transmission time of the links this lane stands for */
	double loss;
	struct slot *ring;
	unsigned head, tail; /* head: next to send; tail: next free */
	uint64_t queued_bytes;
	uint64_t forwarded, dropped_full, dropped_loss;
};

static unsigned char frame[FRAME_MAX];

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int open_iface(const char *name)
{
	struct sockaddr_ll sll;
	struct packet_mreq mr;
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	unsigned idx = if_nametoindex(name);

	if (fd < 0 || !idx) {
		fprintf(stderr, "tl_delay: cannot open %s: %s\n", name, strerror(errno));
		exit(2);
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)idx;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fprintf(stderr, "tl_delay: bind %s: %s\n", name, strerror(errno));
		exit(2);
	}
	/* Each frame's kernel receive time (SCM_TIMESTAMPNS), from which its due time counts. */
	int on = 1;
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) < 0) {
		fprintf(stderr, "tl_delay: SO_TIMESTAMPNS on %s: %s\n", name, strerror(errno));
		exit(2);
	}
	/* Frames addressed to the far side's MAC must be seen too. */
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = (int)idx;
	mr.mr_type = PACKET_MR_PROMISC;
	setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr));
	return fd;
}

static uint64_t realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* How long ago the kernel received the frame of `msg` (0 without a stamp). The stamp is
 * CLOCK_REALTIME; only its distance from now is used, so the due time stays monotonic. */
static uint64_t age_ns(struct msghdr *msg)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;
			uint64_t stamp, now;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			stamp = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
			now = realtime_ns();
			return now > stamp ? now - stamp : 0;
		}
	}
	return 0;
}

/* Reads every waiting frame of a lane's input into its ring. */
static void receive(struct lane *l, uint64_t now)
{
	for (;;) {
		struct sockaddr_ll from;
		struct slot *s = &l->ring[l->tail % SLOTS];
		struct iovec iov = { frame, FRAME_MAX };
		union {
			char buf[CMSG_SPACE(sizeof(struct timespec))];
			struct cmsghdr align;
		} control;
		struct msghdr msg = { &from, sizeof(from), &iov, 1, control.buf, sizeof(control.buf), 0 };
		ssize_t n = recvmsg(l->in, &msg, MSG_DONTWAIT | MSG_TRUNC);
		uint64_t age, delay;

		if (n <= 0)
			return;
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue; /* our own transmissions on this interface */
		if (n > FRAME_MAX) {
			fprintf(stderr, "tl_delay: a %zd-byte frame exceeds %d bytes\n", n, FRAME_MAX);
			exit(3);
		}
		if (l->loss > 0 && drand48() < l->loss) {
			l->dropped_loss++;
			continue;
		}
		if (l->tail - l->head >= SLOTS || l->queued_bytes + (uint64_t)n > QUEUE_BYTES ||
		    !(s->data = malloc((size_t)n))) {
			l->dropped_full++;
			continue;
		}
		memcpy(s->data, frame, (size_t)n);
		s->len = (uint32_t)n;
		age = age_ns(&msg);
		delay = l->delay_ns + (uint64_t)(l->ns_per_byte * (double)n);
		/* Never earlier than the frame before it: the lane is a FIFO. */
		s->due_ns = now + delay - (age < delay ? age : delay);
		if (l->tail != l->head) {
			uint64_t before = l->ring[(l->tail - 1) % SLOTS].due_ns;

			if (s->due_ns < before)
				s->due_ns = before;
		}
		l->queued_bytes += (uint64_t)n;
		l->tail++;
	}
}

/* Sends the frames whose time has come; returns the next due time, or 0. */
static uint64_t transmit(struct lane *l, uint64_t now)
{
	while (l->head != l->tail) {
		struct slot *s = &l->ring[l->head % SLOTS];

		if (s->due_ns > now)
			return s->due_ns;
		if (send(l->out, s->data, s->len, 0) == (ssize_t)s->len)
			l->forwarded++;
		l->queued_bytes -= s->len;
		free(s->data);
		l->head++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct lane lanes[2];
	struct sigaction sa;
	int a, b;

	if (argc != 5 && argc != 7 && argc != 9) {
		fprintf(stderr,
			"usage: %s IF_A IF_B DELAY_AB_US DELAY_BA_US [LOSS_AB SEED [NS_PER_BYTE_AB NS_PER_BYTE_BA]]\n",
			argv[0]);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	a = open_iface(argv[1]);
	b = open_iface(argv[2]);
	memset(lanes, 0, sizeof(lanes));
	lanes[0].in = a;
	lanes[0].out = b;
	lanes[0].delay_ns = strtoull(argv[3], NULL, 10) * 1000ull;
	lanes[1].in = b;
	lanes[1].out = a;
	lanes[1].delay_ns = strtoull(argv[4], NULL, 10) * 1000ull;
	if (argc >= 7) {
		lanes[0].loss = atof(argv[5]);
		srand48(atol(argv[6]));
	}
	if (argc == 9) {
		lanes[0].ns_per_byte = atof(argv[7]);
		lanes[1].ns_per_byte = atof(argv[8]);
	}
	for (int i = 0; i < 2; i++) {
		lanes[i].ring = calloc(SLOTS, sizeof(struct slot));
		if (!lanes[i].ring)
			return 2;
	}
	fprintf(stderr, "tl_delay: ready\n");
	while (!stop) {
		struct pollfd p[2] = { { a, POLLIN, 0 }, { b, POLLIN, 0 } };
		uint64_t now = now_ns(), next = 0;
		struct timespec ts, *tsp = NULL;

		for (int i = 0; i < 2; i++) {
			uint64_t due = transmit(&lanes[i], now);

			if (due && (!next || due < next))
				next = due;
		}
		if (next) {
			uint64_t wait = next > now ? next - now : 0;

			ts.tv_sec = (time_t)(wait / 1000000000ull);
			ts.tv_nsec = (long)(wait % 1000000000ull);
			tsp = &ts;
		} else {
			ts.tv_sec = 0;
			ts.tv_nsec = 200000000; /* wake up to notice a stop signal */
			tsp = &ts;
		}
		if (ppoll(p, 2, tsp, NULL) < 0 && errno != EINTR)
			break;
		now = now_ns();
		if (p[0].revents & POLLIN)
			receive(&lanes[0], now);
		if (p[1].revents & POLLIN)
			receive(&lanes[1], now);
	}
	fprintf(stderr,
		"tl_delay: forwarded %llu/%llu, dropped (random) %llu, dropped (ring full) %llu/%llu\n",
		(unsigned long long)lanes[0].forwarded, (unsigned long long)lanes[1].forwarded,
		(unsigned long long)lanes[0].dropped_loss,
		(unsigned long long)lanes[0].dropped_full,
		(unsigned long long)lanes[1].dropped_full);
	return 0;
}
