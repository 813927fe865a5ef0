"""The test bed's fine-grained samplers, run inside a namespace as a standalone script.

    python sampler.py tcp SRC SPORT DST DPORT COUNT INTERVAL_S   (sender namespace)
    python sampler.py qdisc DEV INTERVAL_S                       (router namespace)

``tcp`` looks up the IPv4 TCP connections SRC:SPORT+i -> DST:DPORT+i (i < COUNT) through
sock_diag (netlink, INET_DIAG_INFO: the kernel's ``struct tcp_info``, what ``ss -ti``
prints, and for bbr its ``struct tcp_bbr_info``: bandwidth estimate, min RTT and gains)
every INTERVAL_S on a fixed grid; ``qdisc`` dumps the queueing disciplines of
DEV (rtnetlink, the ``tc -s`` counters: backlog in packets and bytes, drops, packets).
One whitespace-separated line per socket or qdisc and sample, the first field the
CLOCK_MONOTONIC time in nanoseconds (the runner's clock, ``time.monotonic``); the columns
are ``TCP_FIELDS`` / ``QDISC_FIELDS``. It exits on SIGTERM/SIGINT after flushing.

Each connection is looked up by its addresses and ports (one hash lookup), not found in a
dump of every socket: a dump walks the kernel's whole established-socket hash table (262144
buckets here, shared by every namespace), 2.3 ms of kernel time per sample without a
preemption point on this PREEMPT_NONE kernel, a quarter of a core at 100 samples a second,
and it raised the bed's RTT jitter (ICMP probes, p95 0.4 -> 1.1 ms, p99 1.2 -> 2.4 ms).
A lookup costs microseconds, so the measurement does not disturb the flows it measures.
The script imports nothing from tcplab so it starts fast in a namespace.
"""

from __future__ import annotations

import errno
import os
import signal
import socket
import struct
import sys
import time

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
RTM_GETQDISC = 38
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_DONE, NLMSG_ERROR = 3, 2
INET_DIAG_INFO = 2
#: Requesting INET_DIAG_VEGASINFO is how a congestion control's own state is asked for:
#: idiag_ext is 8 bits wide, too narrow for INET_DIAG_BBRINFO's bit, so tcp_bbr answers the
#: Vegas bit with INET_DIAG_BBRINFO (struct tcp_bbr_info). Other modules of the bed answer
#: nothing (reno, cubic, the BPF ones).
INET_DIAG_VEGASINFO, INET_DIAG_BBRINFO = 3, 16
TCA_KIND, TCA_STATS = 1, 3

#: Columns of a ``tcp`` line after the time: ports, states and struct tcp_info fields
#: (times in microseconds, windows in segments, counters in segments or bytes).
TCP_FIELDS = (
    "dport",
    "sport",
    "state",
    "ca_state",
    "snd_mss",
    "cwnd",
    "ssthresh",
    "srtt_us",
    "rttvar_us",
    "min_rtt_us",
    "rto_us",
    "unacked",
    "sacked",
    "lost",
    "retrans",
    "total_retrans",
    "bytes_acked",
    "bytes_sent",
    "bytes_retrans",
    "pacing_rate",
    "delivered",
    "data_segs_out",
    "dsack_dups",
    "total_rto",
    "delivery_rate",
    "delivery_rate_app_limited",
    "busy_time_us",
    "rwnd_limited_us",
    "sndbuf_limited_us",
    "snd_wnd",
    "bbr_bw",
    "bbr_min_rtt_us",
    "bbr_pacing_gain",
    "bbr_cwnd_gain",
)
QDISC_FIELDS = ("handle", "kind", "bytes", "packets", "drops", "overlimits", "qlen", "backlog")

# struct tcp_info offsets (include/uapi/linux/tcp.h); total_rto arrived in Linux 6.7.
_U8 = {"state": 0, "ca_state": 1}
_U32 = {
    "rto_us": 8,
    "snd_mss": 16,
    "unacked": 24,
    "sacked": 28,
    "lost": 32,
    "retrans": 36,
    "srtt_us": 68,
    "rttvar_us": 72,
    "ssthresh": 76,
    "cwnd": 80,
    "total_retrans": 100,
    "min_rtt_us": 148,
    "data_segs_out": 156,
    "delivered": 192,
    "dsack_dups": 216,
    # The window the peer advertised, bytes (tcpi_snd_wnd, Linux >= 5.4).
    "snd_wnd": 228,
}
_U64 = {
    "pacing_rate": 104,
    "bytes_acked": 120,
    "delivery_rate": 160,
    # How long the connection has sent, and how much of that it was held back by the
    # peer's window or by its own send buffer (tcpi_busy_time, tcpi_rwnd_limited,
    # tcpi_sndbuf_limited, Linux >= 4.10; microseconds).
    "busy_time_us": 168,
    "rwnd_limited_us": 176,
    "sndbuf_limited_us": 184,
    "bytes_sent": 200,
    "bytes_retrans": 208,
}
_TOTAL_RTO = 240  # __u16 tcpi_total_rto
_APP_LIMITED = 7  # the byte whose lowest bit is tcpi_delivery_rate_app_limited
#: A tcpi_pacing_rate at or above this (bytes per second) is "unset": ~0 before a congestion
#: control or the stack sets one (~0U on kernels with a 32-bit sk_pacing_rate).
UNSET_PACING_RATE = 1.25e14


def parse_tcp_info(buf: bytes) -> dict[str, int]:
    """The fields of ``TCP_FIELDS`` held in a struct tcp_info (older kernels: -1 when absent)."""
    out: dict[str, int] = {}
    for name, off in _U8.items():
        out[name] = buf[off] if len(buf) > off else -1
    for name, off in _U32.items():
        out[name] = struct.unpack_from("=I", buf, off)[0] if len(buf) >= off + 4 else -1
    for name, off in _U64.items():
        out[name] = struct.unpack_from("=Q", buf, off)[0] if len(buf) >= off + 8 else -1
    out["total_rto"] = struct.unpack_from("=H", buf, _TOTAL_RTO)[0] if len(buf) >= _TOTAL_RTO + 2 else -1
    out["delivery_rate_app_limited"] = buf[_APP_LIMITED] & 1 if len(buf) > _APP_LIMITED else -1
    return out


def parse_bbr_info(buf: bytes) -> dict[str, int]:
    """struct tcp_bbr_info: BBR's bandwidth estimate (bytes per second, two u32 halves), its
    min RTT (us) and its pacing and cwnd gains (x 256, BBR_UNIT); {} when too short."""
    if len(buf) < 20:
        return {}
    lo, hi, min_rtt, pacing_gain, cwnd_gain = struct.unpack_from("=IIIII", buf, 0)
    return {
        "bbr_bw": (hi << 32) | lo,
        "bbr_min_rtt_us": min_rtt,
        "bbr_pacing_gain": pacing_gain,
        "bbr_cwnd_gain": cwnd_gain,
    }


def _attrs(buf: bytes, off: int, end: int):
    while off + 4 <= end:
        length, kind = struct.unpack_from("=HH", buf, off)
        if length < 4:
            return
        yield kind & 0x7FFF, buf[off + 4 : off + length]
        off += (length + 3) & ~3


#: One receive buffer for every reply (not a fresh megabyte per receive).
_BUFFER = bytearray(1 << 20)


def _dump(sock: socket.socket, request: bytes):
    """Sends one dump request; yields (message type, payload) until NLMSG_DONE."""
    sock.send(request)
    while True:
        data = memoryview(_BUFFER)[: sock.recv_into(_BUFFER)]
        off = 0
        while off + 16 <= len(data):
            length, kind, _flags, _seq, _pid = struct.unpack_from("=IHHII", data, off)
            if kind == NLMSG_DONE:
                return
            if kind == NLMSG_ERROR:
                raise OSError("netlink dump failed")
            yield kind, bytes(data[off + 16 : off + length])
            off += (length + 3) & ~3


#: sock_diag's "any cookie" (INET_DIAG_NOCOOKIE): the lookup goes by addresses and ports.
_NO_COOKIE = b"\xff" * 8


def _tcp_request(src: str, sport: int, dst: str, dport: int) -> bytes:
    """One connection's lookup: struct inet_diag_req_v2 (family, protocol, ext, pad, states)
    and its inet_diag_sockid (ports and addresses in network order, interface, cookie), the
    local end first; NLM_F_REQUEST only, so the kernel finds it in its hash table."""
    ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_VEGASINFO - 1))
    sockid = (
        struct.pack("!HH", sport, dport)
        + socket.inet_aton(src)
        + bytes(12)
        + socket.inet_aton(dst)
        + bytes(12)
        + struct.pack("=I", 0)
        + _NO_COOKIE
    )
    body = struct.pack("=BBBBI", socket.AF_INET, socket.IPPROTO_TCP, ext, 0, 0xFFFFFFFF) + sockid
    return struct.pack("=IHHII", 16 + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, 1, 0) + body


def _lookup(sock: socket.socket, request: bytes) -> bytes | None:
    """One lookup's reply payload (struct inet_diag_msg and attributes), or None when the
    connection does not exist (yet, or any more)."""
    sock.send(request)
    data = memoryview(_BUFFER)[: sock.recv_into(_BUFFER)]
    length, kind = struct.unpack_from("=IH", data, 0)
    if kind == NLMSG_ERROR:
        (error,) = struct.unpack_from("=i", data, 16)
        if error in (-errno.ENOENT, 0):
            return None
        raise OSError(-error, f"sock_diag lookup failed: {os.strerror(-error)}")
    return bytes(data[16:length])


def tcp_sample(sock: socket.socket, requests: list[bytes]) -> list[dict[str, int]]:
    rows = []
    for request in requests:
        msg = _lookup(sock, request)
        if msg is None:
            continue
        # struct inet_diag_msg: family, state, timer, retrans, sockid (sport, dport, ...), ...
        sport, dport = struct.unpack_from("!HH", msg, 4)
        row: dict[str, int] = {}
        for kind, value in _attrs(msg, 72, len(msg)):
            if kind == INET_DIAG_INFO:
                row |= {"dport": dport, "sport": sport, **parse_tcp_info(value)}
            elif kind == INET_DIAG_BBRINFO:
                row |= parse_bbr_info(value)
        if "state" in row:
            rows.append(row)
    return rows


def qdisc_sample(sock: socket.socket, ifindex: int) -> list[dict[str, int | str]]:
    body = struct.pack("=BBHiIII", socket.AF_UNSPEC, 0, 0, 0, 0, 0, 0)
    req = struct.pack("=IHHII", 16 + len(body), RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, 1, 0) + body
    rows: list[dict[str, int | str]] = []
    for _kind, msg in _dump(sock, req):
        _fam, _p1, _p2, index, handle, _parent, _info = struct.unpack_from("=BBHiIII", msg, 0)
        if index != ifindex:
            continue
        row: dict[str, int | str] = {"handle": f"{handle >> 16:x}:"}
        for kind, value in _attrs(msg, 20, len(msg)):
            if kind == TCA_KIND:
                row["kind"] = value.rstrip(b"\0").decode()
            elif kind == TCA_STATS and len(value) >= 36:
                b, p, d, o, _bps, _pps, q, bl = struct.unpack_from("=QIIIIIII", value, 0)
                row.update(bytes=b, packets=p, drops=d, overlimits=o, qlen=q, backlog=bl)
        if "qlen" in row:
            rows.append(row)
    return rows


def main(argv: list[str]) -> int:
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    mode = argv[1]
    if mode == "tcp":
        src, sport, dst, dport, count = argv[2], int(argv[3]), argv[4], int(argv[5]), int(argv[6])
        interval = float(argv[7])
        sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_SOCK_DIAG)
        fields = TCP_FIELDS
        requests = [_tcp_request(src, sport + i, dst, dport + i) for i in range(count)]

        def sample():
            return tcp_sample(sock, requests)
    elif mode == "qdisc":
        ifindex, interval = socket.if_nametoindex(argv[2]), float(argv[3])
        sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        fields = QDISC_FIELDS

        def sample():
            return qdisc_sample(sock, ifindex)
    else:
        print(f"unknown mode {mode!r}", file=sys.stderr)
        return 2
    out = sys.stdout
    print("ready", file=sys.stderr, flush=True)
    step = int(interval * 1e9)
    due = time.monotonic_ns()
    failures = 0
    while not stop:
        now = time.monotonic_ns()
        try:
            rows = sample()
        except (OSError, struct.error, ValueError) as e:
            # One unreadable dump (a socket closing mid-dump) loses one sample, not the
            # rest of the run; the count is reported on exit.
            failures += 1
            if failures == 1:
                print(f"sample failed: {e!r}", file=sys.stderr, flush=True)
            rows = []
        for r in rows:
            out.write(" ".join([str(now), *(str(r.get(f, -1)) for f in fields)]) + "\n")
        due += step
        delay = due - time.monotonic_ns()
        if delay < 0:  # fell behind (a busy machine): skip to the next grid point
            due += (-delay // step + 1) * step
            delay = due - time.monotonic_ns()
        # (never negative: the process can lose the CPU between reading the clock and here)
        time.sleep(max(0, delay) / 1e9)  # a signal ends the loop after this sleep (PEP 475)
    out.flush()
    if failures:
        print(f"{failures} samples failed", file=sys.stderr, flush=True)
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
