"""The test bed's own RTT jitter: ICMP echoes over an idle bed, RTT minus the base RTT.

    python jitter.py ADDR COUNT INTERVAL_S SIZE      (in the sender namespace; prints RTTs in ns)

The probe is a raw ICMP socket; the reply's arrival time is the kernel's receive timestamp
(SO_TIMESTAMPNS), the request's the clock read just before ``sendto``, so userspace
scheduling on the receiving side does not count. The receiver answers in the kernel. What
is left is what the bed adds to a packet's round trip besides the configured delay and the
bottleneck's serialisation: tl_delay's wake-up latency, veth/softirq scheduling and TBF's
token timing. ``measure()`` builds a bed, probes it and returns the distribution.
"""

from __future__ import annotations

import os
import socket
import struct
import sys
import time

SO_TIMESTAMPNS = 35
#: Echoes left out at the start (the first replies can wait for neighbour resolution).
WARMUP = 10
#: A round trip over which the wall clock moved against the monotonic one by more than this
#: (ns) is left out: the kernel's receive stamp is wall-clock time, and a clock adjustment
#: (the VM's time sync) inside one round trip would shorten or stretch it.
CLOCK_STEP_NS = 50_000


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def probe(addr: str, count: int, interval: float, size: int) -> list[int]:
    """Round-trip times in nanoseconds of ``count`` echoes (lost ones left out)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.settimeout(1.0)
    ident = os.getpid() & 0xFFFF
    payload = bytes(max(0, size - 28))
    rtts = []
    for seq in range(count):
        header = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
        packet = struct.pack("!BBHHH", 8, 0, _checksum(header + payload), ident, seq) + payload
        sent, sent_offset = time.time_ns(), time.time_ns() - time.monotonic_ns()
        sock.sendto(packet, (addr, 0))
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                data, anc, _flags, _src = sock.recvmsg(2048, 64)
            except TimeoutError:
                break
            ihl = (data[0] & 0x0F) * 4
            kind, _code, _ck, rid, rseq = struct.unpack_from("!BBHHH", data, ihl)
            if kind == 0 and rid == ident and rseq == seq:
                stamp = next(
                    (d for lvl, t, d in anc if lvl == socket.SOL_SOCKET and t == SO_TIMESTAMPNS), None
                )
                got = time.time_ns()
                if stamp is not None:
                    sec, nsec = struct.unpack("=qq", stamp[:16])
                    got = sec * 1_000_000_000 + nsec
                if abs(time.time_ns() - time.monotonic_ns() - sent_offset) <= CLOCK_STEP_NS:
                    rtts.append(got - sent)
                break
        time.sleep(max(0.0, interval - (time.time_ns() - sent) / 1e9))
    return rtts


def measure(
    rate_bps: float = 10e6,
    one_way: float = 0.020,
    count: int = 2000,
    interval: float = 0.005,
    size: int = 64,
) -> dict[str, float]:
    """Builds an idle bed (``rate_bps``, ``one_way`` delay each way), sends ``count`` echoes of
    ``size`` IP bytes and returns the distribution of RTT minus the base RTT (2 x one way +
    the request's and the reply's transmission on the links, Ethernet header included), in
    seconds."""
    import numpy as np

    from . import net

    with net.idle_testbed(rate_bps=rate_bps, one_way_us=int(round(one_way * 1e6))) as bed:
        p = bed.run(
            "s", sys.executable, __file__, net.RECEIVER_ADDR, str(count), str(interval), str(size), check=True
        )
    rtts = np.array([int(x) for x in p.stdout.split()], dtype=float)[WARMUP:] / 1e9
    # The delay element adds each frame's transmission time, the request's and the reply's.
    base = 2 * one_way + 2 * (size + 14) * net.transmission_ns_per_byte(rate_bps, net.ACCESS_RATE_BPS) / 1e9
    extra = rtts - base
    q = [float(x) for x in np.percentile(extra, [0, 1, 50, 95, 99, 100])] if len(extra) else [np.nan] * 6
    return {
        "rate_bps": rate_bps,
        "one_way": one_way,
        "probes": count,
        "replies": len(rtts),
        "base_rtt": base,
        "min": q[0],
        "p1": q[1],
        "median": q[2],
        "mean": float(extra.mean()) if len(extra) else np.nan,
        "p95": q[3],
        "p99": q[4],
        "max": q[5],
        "std": float(extra.std()) if len(extra) else np.nan,
        # above the smallest: what a per-link jitter on top of a fixed delay has to model
        "over_min_p50": q[2] - q[0],
        "over_min_p95": q[3] - q[0],
        "over_min_p99": q[4] - q[0],
    }


if __name__ == "__main__":
    out = probe(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]))
    print(" ".join(str(x) for x in out))
