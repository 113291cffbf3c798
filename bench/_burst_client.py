"""The burst's sender, in a process of its own: every request written at once, each ack timed.

The driver (bench/_rig.py) prepares and signs every request, writes them to a JSON file and
starts this process. It opens one keep-alive connection per request first (unless --fresh,
when the connect is part of the burst; --close sends `Connection: close`, so the server also
closes each one mid-burst), says "ready" on stdout and waits for "go" on stdin. Then it
writes every request in one tight loop — raw, pre-built HTTP/1.1 bytes, one send() each,
no asyncio, no HTTP client — and reads the answers with epoll, timing each from its own
send() to the end of its response. So the sender costs microseconds per request and is not
what the acks wait for; its own CPU time is reported so that can be checked.

    python bench/_burst_client.py requests.json [--fresh] [--close] [--hold]

--hold: once every answer is in, say `{"answered": true}` and keep the connections open until
told "close" (bench/ack_cpu.py reads the server's CPU there, before it closes them).

requests.json: {"host", "path", "requests": [{"port": int, "body": str, "headers": {..}}, ...]}
Prints one JSON object: per request its HTTP status, ack (ms) and send time (time.perf_counter,
which on Linux is the system's monotonic clock, so the driver can compare it with its own),
the spread of the sends (first to last, ms), and this process's CPU seconds during the burst.
"""

from __future__ import annotations

import argparse
import errno
import json
import resource
import selectors
import socket
import sys
import time
from pathlib import Path
from typing import Any


def request_bytes(
    host: str, port: int, path: str, body: str, headers: dict[str, str], close: bool
) -> bytes:
    data = body.encode()
    head = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Content-Type: application/json",
        f"Content-Length: {len(data)}",
        "Connection: close" if close else "Connection: keep-alive",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + data


class Exchange:
    """One request on its own connection, and what came back."""

    __slots__ = ("buf", "done", "error", "out", "sent", "sock", "status")

    def __init__(self, sock: socket.socket, out: bytes) -> None:
        self.sock = sock
        self.out = out
        self.buf = bytearray()
        self.sent = 0.0
        self.done = 0.0
        self.status = 0
        self.error = ""

    def complete(self) -> bool:
        """True once the whole response (headers and Content-Length body) has been read."""
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self.buf[:end]).decode("latin-1").split("\r\n")
        self.status = int(head[0].split(" ")[1])
        length = 0
        for line in head[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        return len(self.buf) >= end + 4 + length


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def connect(host: str, port: int) -> socket.socket:
    sock = socket.create_connection((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def fire(
    spec: dict[str, Any], fresh: bool, close: bool, timeout_s: float, hold: bool = False
) -> dict[str, Any]:
    host, path = spec["host"], spec["path"]
    ports = [int(r["port"]) for r in spec["requests"]]
    payloads = [
        request_bytes(host, port, path, r["body"], r["headers"], close or fresh)
        for port, r in zip(ports, spec["requests"], strict=True)
    ]
    socks = [] if fresh else [connect(host, port) for port in ports]
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        return {"error": "not told to go"}
    sel = selectors.DefaultSelector()
    cpu0 = cpu_s()
    exchanges: list[Exchange] = []
    t0 = time.perf_counter()
    for i, out in enumerate(payloads):
        sent = time.perf_counter()
        sock = connect(host, ports[i]) if fresh else socks[i]
        ex = Exchange(sock, out)
        ex.sent = sent
        sock.setblocking(False)
        try:
            n = sock.send(out)
        except OSError as e:
            ex.error, ex.done = errno.errorcode.get(e.errno or 0, str(e)), time.perf_counter()
            exchanges.append(ex)
            continue
        if n != len(out):  # the kernel's buffer takes a few KB at once: never seen short
            sock.setblocking(True)
            sock.sendall(out[n:])
            sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ, ex)
        exchanges.append(ex)
    t_sent = time.perf_counter()
    pending = sum(1 for ex in exchanges if not ex.error)
    deadline = time.perf_counter() + timeout_s
    while pending and time.perf_counter() < deadline:
        for key, _ in sel.select(timeout=0.5):
            ex = key.data
            try:
                chunk = ex.sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError as e:
                chunk, ex.error = b"", errno.errorcode.get(e.errno or 0, str(e))
            now = time.perf_counter()
            if chunk:
                ex.buf += chunk
                if not ex.complete():
                    continue
            elif not ex.error:
                ex.error = "closed before a whole response" if not ex.complete() else ""
            ex.done = now
            sel.unregister(ex.sock)
            pending -= 1
    cpu1 = cpu_s()
    if hold:
        print(json.dumps({"answered": True}), flush=True)
        sys.stdin.readline()
    for ex in exchanges:  # kept alive until every answer is in: the server closes none mid-burst
        ex.sock.close()
    for ex in exchanges:
        if not ex.done:
            ex.error = ex.error or "no answer in time"
    return {
        "status": [ex.status for ex in exchanges],
        "ack_ms": [round((ex.done - ex.sent) * 1000, 3) if ex.done else None for ex in exchanges],
        "sent_at": [ex.sent for ex in exchanges],
        "errors": [ex.error for ex in exchanges],
        "send_spread_ms": round((t_sent - t0) * 1000, 2),
        "last_answer_ms": round((max((ex.done for ex in exchanges), default=t0) - t0) * 1000, 2),
        "cpu_s": round(cpu1 - cpu0, 4),
        "fresh_connections": fresh,
        "keep_alive": not (close or fresh),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("spec")
    parser.add_argument("--fresh", action="store_true", help="connect during the burst too")
    parser.add_argument(
        "--close", action="store_true", help="Connection: close (default: keep-alive)"
    )
    parser.add_argument(
        "--hold", action="store_true", help="keep the connections open until told 'close'"
    )
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    spec = json.loads(Path(args.spec).read_text())
    print(json.dumps(fire(spec, args.fresh, args.close, args.timeout, args.hold)), flush=True)


if __name__ == "__main__":
    main()
