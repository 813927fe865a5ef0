"""The test bed's bulk-transfer generator, run inside a namespace as a standalone script.

    python traffic.py serve PORT COUNT                (receiver namespace)
    python traffic.py send ADDR PORT SPORT FLOWS_JSON (sender namespace)

``serve`` listens on PORT .. PORT+COUNT-1, accepts one connection on each, reads and
discards until each closes, and prints one JSON object: per flow the payload bytes received.
``send`` opens flow i from port SPORT+i (so the sampler can look it up by its ports) to
ADDR:PORT+i with its congestion control (``TCP_CONGESTION``),
connects every flow first, then fixes the run's zero, prints ``start <CLOCK_MONOTONIC ns>``
on stderr, and lets each flow send from zero + start to zero + stop (FLOWS_JSON: a list of
``{"cc": ..., "start": s, "stop": s}``). It prints one JSON object: per flow the payload
bytes written.

Why not iperf3: each iperf3 test opens its own control connection and exchanges parameters
before its data connection starts, so two "simultaneous" flows began 30-160 ms apart, the
second one's handshake and control messages queued behind the first flow's data. Here every
connection is open before any flow sends, so flows start when the scenario says, to the
scheduler's precision. The script imports nothing from tcplab so it starts fast in a
namespace.
"""

from __future__ import annotations

import json
import select
import socket
import sys
import threading
import time

#: Bytes per write and per read (iperf3's default block for TCP).
BLOCK = 128 * 1024
#: A blocked write gives up after this long to check the flow's stop time.
WRITE_TIMEOUT = 0.05
#: The zero lies this far after the last connection opened (seconds): every sender thread
#: is waiting for it by then.
LEAD = 0.05


def serve(port: int, count: int) -> dict[str, list[int]]:
    listeners = []
    for i in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", port + i))
        s.listen(1)
        listeners.append(s)
    print("ready", file=sys.stderr, flush=True)
    received = [0] * count
    open_flows: dict[socket.socket, int] = {}
    pending = {s: i for i, s in enumerate(listeners)}
    while pending or open_flows:
        ready, _, _ = select.select([*pending, *open_flows], [], [])
        for s in ready:
            if s in pending:
                conn, _ = s.accept()
                open_flows[conn] = pending.pop(s)
                s.close()
                continue
            data = s.recv(BLOCK)
            if data:
                received[open_flows[s]] += len(data)
            else:
                del open_flows[s]
                s.close()
    return {"received": received}


def _send(sock: socket.socket, begin: float, end: float, sent: list[int], errors: list[str], i: int) -> None:
    view = memoryview(b"\0" * BLOCK)
    time.sleep(max(0.0, begin - time.monotonic()))
    try:
        sock.settimeout(WRITE_TIMEOUT)
        while time.monotonic() < end:
            try:
                sent[i] += sock.send(view)
            except TimeoutError:
                continue
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(None)
        while sock.recv(BLOCK):  # the receiver closes after reading everything
            pass
    except OSError as e:
        errors.append(f"flow {i}: {e}")
    finally:
        sock.close()


def send(addr: str, port: int, sport: int, flows: list[dict]) -> dict[str, list[int]]:
    socks = []
    for i, f in enumerate(flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", sport + i))
        try:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, f["cc"].encode())
        except OSError as e:
            raise OSError(f"flow {i}: congestion control {f['cc']!r} refused by the kernel: {e}") from None
        s.connect((addr, port + i))
        socks.append(s)
    zero = time.monotonic() + LEAD
    print(f"start {int(zero * 1e9)}", file=sys.stderr, flush=True)
    sent, errors = [0] * len(flows), []
    threads = [
        threading.Thread(target=_send, args=(s, zero + f["start"], zero + f["stop"], sent, errors, i))
        for i, (s, f) in enumerate(zip(socks, flows, strict=True))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"sent": sent, "errors": errors}


def main(argv: list[str]) -> int:
    try:
        if len(argv) == 3 and argv[0] == "serve":
            result = serve(int(argv[1]), int(argv[2]))
        elif len(argv) == 5 and argv[0] == "send":
            result = send(argv[1], int(argv[2]), int(argv[3]), json.loads(argv[4]))
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except OSError as e:
        print(f"error: {e}", file=sys.stderr, flush=True)
        return 1
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
