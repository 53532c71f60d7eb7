#!/usr/bin/env python3
"""A hostile client for `parley serve`: it attacks every endpoint and every realtime client
event the way a careless SDK, a malicious web page or a slow network would, and checks after
each probe that the server is still up (`GET /health` answers), that a client's fault got no
5xx, that nothing hung, and (when it knows the server's process) that memory stayed bounded.

    hostile_client.py [BASE_URL] [--api-key KEY] [--bystander-key KEY] [--expect-hardened] [--pid PID]
    hostile_client.py --server-cmd '.build/debug/parley serve --host 127.0.0.1 --port {port}'

BASE_URL defaults to http://127.0.0.1:8080 and must be a loopback address: this script sends
nothing anywhere else. With --server-cmd it starts the server itself on a free port (`{port}`
in the command), watches its memory in /proc, reads the crash message from its stderr when it
dies, and starts it again so that the probes after a crash still run (at most --max-restarts
times).

What it sends, per endpoint of Sources/ParleyServer (ParleyServer.swift lists them) and per
realtime client event (Realtime/RealtimeClientEvent.swift, RealtimeSessionSettings.swift):
extreme numbers (1e19, -1e19, 1e308, -0.0, 2^63, 2^64, 1e400, "NaN" and "Infinity" as
strings), wrong types, huge strings and arrays (a few MB at most), deep nesting, truncated
bodies, wrong content types, missing and foreign `Origin` headers, a rebinding `Host`, slow
clients (headers a byte at a time, responses never read), `Upgrade: h2c` and then silence,
many idle connections and a flood of large `input_audio_buffer.append` events.

Checks that only hold once issue 42 is fixed (a foreign Origin or a rebinding Host gets a 403,
an `Upgrade: h2c` connection is closed by the idle timeout, a flood of realtime audio gets an
`error` event, a cross-site `text/plain` post is refused, one message for a model path that
is missing or outside the models folder) are reported as "info" unless --expect-hardened is
given, when they count.

Every loop is bounded in count and time (--time-limit for the whole run). Prints a table of
the probes, then a final line `N passed, M failed`; exits 1 on any failure (2 on a usage
error). --json FILE writes every probe with its exact request.

Standard library only (Python 3.11); the WebSocket client is a minimal RFC 6455 one on raw
sockets, so that headers, frame sizes and timing are the script's to choose.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shlex
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}

# Numbers as JSON text, so that values Python's json cannot write (1e400, -0.0 exactly, 2^64
# as an integer literal) go out as a client would write them.
EXTREME_NUMBERS = [
    ("1e19", "1e19"),
    ("-1e19", "-1e19"),
    ("1e308", "1e308"),
    ("-0.0", "-0.0"),
    ("2^63", "9223372036854775808"),
    ("2^64", "18446744073709551616"),
    ("-2^63-1", "-9223372036854775809"),
    ("1e400", "1e400"),
    ("NaN-string", '"NaN"'),
    ("Infinity-string", '"Infinity"'),
]
WRONG_TYPES = [
    ("string", '"x"'),
    ("bool", "true"),
    ("array", "[1]"),
    ("object", '{"a":1}'),
]
SENTINEL = "__HOSTILE_VALUE__"
# Names a client may give as `model` (or a provider/model pair): empty parts, paths, controls.
MODEL_NAMES = ["/", "//", "openai/", "ollama/", "local/", "/x", "/etc/passwd", "../../../../etc/hostname", "", " ", "auto\r\nX-Injected: 1",
               "\u0000", "x" * 10_000]


# ---------------------------------------------------------------------------------------------
# results


@dataclass
class Result:
    group: str
    target: str
    probe: str
    expect: str
    observed: str = ""
    outcome: str = "pass"  # pass, fail, info (a hardened-only check on a run without --expect-hardened)
    request: str = ""
    crash: str = ""
    rss_mb: float | None = None
    seconds: float = 0.0


class Report:
    def __init__(self) -> None:
        self.results: list[Result] = []

    def add(self, result: Result) -> Result:
        self.results.append(result)
        mark = {"pass": "ok  ", "fail": "FAIL", "info": "info"}[result.outcome]
        line = f"[{mark}] {result.group:<14} {result.target:<38} {result.probe:<44} -> {result.observed}"
        if result.crash:
            line += f"\n       crash: {result.crash}"
        print(line[:400], flush=True)
        return result

    def table(self) -> str:
        rows = ["| # | group | target | probe | expected | observed | result | RSS MB |", "|---|---|---|---|---|---|---|---|"]
        for index, r in enumerate(self.results, 1):
            observed = r.observed + (f" — crash: {r.crash}" if r.crash else "")
            cells = [str(index), r.group, r.target, r.probe, r.expect, observed, r.outcome,
                     "" if r.rss_mb is None else f"{r.rss_mb:.0f}"]
            rows.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ")[:300] for c in cells) + " |")
        return "\n".join(rows)


# ---------------------------------------------------------------------------------------------
# the server under test: given (a URL, maybe a PID) or started here


class Server:
    def __init__(self, base: str, pid: int | None, command: str | None, startup_timeout: float, max_restarts: int) -> None:
        self.command = command
        self.startup_timeout = startup_timeout
        self.max_restarts = max_restarts
        self.restarts = 0
        # Every start after the first, whatever the reason.
        self.generation = 0
        self.process: subprocess.Popen | None = None
        self.log_path = ""
        self.log_offset = 0
        self.pid = pid
        if command:
            self.port = free_port()
            self.host = "127.0.0.1"
            self.start()
        else:
            parsed = urllib.parse.urlsplit(base)
            self.host = parsed.hostname or "127.0.0.1"
            self.port = parsed.port or 80

    @property
    def base(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def host_header(self) -> str:
        return f"{self.host}:{self.port}" if ":" not in self.host else f"[{self.host}]:{self.port}"

    def start(self) -> None:
        assert self.command
        handle, self.log_path = tempfile.mkstemp(prefix="parley-hostile-", suffix=".log")
        os.close(handle)
        self.log_offset = 0
        arguments = [part.replace("{port}", str(self.port)) for part in shlex.split(self.command)]
        log = open(self.log_path, "wb")
        self.process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        self.pid = self.process.pid
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"the server exited at start ({self.process.returncode}); its log: {self.log_path}\n{self.log_tail()}")
            if health(self, timeout=2) == 200:
                return
            time.sleep(0.5)
        raise SystemExit(f"the server did not answer /health within {self.startup_timeout:.0f} s; its log: {self.log_path}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=35)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def exited(self) -> bool:
        if self.process is not None:
            return self.process.poll() is not None
        if self.pid is not None:
            return not os.path.exists(f"/proc/{self.pid}")
        return False

    def log_tail(self, since: int = 0) -> str:
        if not self.log_path:
            return ""
        with open(self.log_path, "rb") as log:
            log.seek(since)
            return log.read(200_000).decode("utf-8", "replace")

    def mark(self) -> int:
        """Where the log ends now (a probe's crash message is read from here on)."""
        if not self.log_path:
            return 0
        try:
            return os.path.getsize(self.log_path)
        except OSError:
            return 0

    def crash_message(self, since: int) -> str:
        if self.process is not None:
            # A Swift crash writes its backtrace before the process ends: wait for it (bounded).
            try:
                self.process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                pass
        text = self.log_tail(since)
        where = next((re.sub(r"^.* at /", "/", line.strip()) for line in text.splitlines()
                      if "/Sources/" in line and " at /" in line and "/.build/" not in line), None)
        lines = [line for line in text.splitlines() if re.search(r"Fatal error|fatal error|Program crashed|Illegal instruction|Segmentation|Trace/breakpoint|precondition|Assertion|terminate called|Aborted", line)]
        if lines:
            return " / ".join(line.strip()[:300] for line in lines[:2]) + (f" at {where}" if where else "")
        code = self.process.returncode if self.process else None
        return f"exited ({code})" if code is not None else "stopped answering /health"

    def rss_mb(self) -> float | None:
        if self.pid is None:
            return None
        try:
            with open(f"/proc/{self.pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def restart(self, crashed: bool = True) -> bool:
        """Starts the server again: after a crash (counted against --max-restarts), or on
        purpose (`crashed=False`, to free it from a heavy probe)."""
        if not self.command or (crashed and self.restarts >= self.max_restarts):
            return False
        if crashed:
            self.restarts += 1
        self.generation += 1
        self.stop()
        self.port = free_port()
        self.start()
        return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# HTTP/1.1 on raw sockets


@dataclass
class Reply:
    status: int = 0  # 0: no response
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    error: str = ""  # "timeout", "closed", "reset", …
    elapsed: float = 0.0

    def describe(self) -> str:
        if self.status == 0:
            return f"no response ({self.error})"
        text = self.body[:160].decode("utf-8", "replace").replace("\n", " ")
        return f"{self.status} {text}"

    def json(self):
        try:
            return json.loads(self.body)
        except Exception:
            return None


def connect(server: Server, timeout: float) -> socket.socket:
    family = socket.AF_INET6 if ":" in server.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect((server.host.strip("[]"), server.port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_head(sock: socket.socket, buffer: bytes, deadline: float) -> tuple[bytes, bytes] | None:
    while b"\r\n\r\n" not in buffer:
        if time.monotonic() > deadline:
            raise TimeoutError
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buffer += chunk
        if len(buffer) > 1 << 20:
            raise ValueError("a response head over 1 MB")
    head, rest = buffer.split(b"\r\n\r\n", 1)
    return head, rest


def read_response(sock: socket.socket, deadline: float, limit: int = 32 << 20, method: str = "GET") -> Reply:
    reply = Reply()
    try:
        found = read_head(sock, b"", deadline)
        if found is None:
            reply.error = "closed"
            return reply
        head, rest = found
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        reply.status = int(parts[1])
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                reply.headers[name.strip().lower()] = value.strip()
        if method == "HEAD" or reply.status in (101, 204, 304) or 100 <= reply.status < 200:
            reply.body = rest
            return reply
        body = rest

        def more() -> bytes:
            if time.monotonic() > deadline:
                raise TimeoutError
            sock.settimeout(max(0.05, deadline - time.monotonic()))
            return sock.recv(262144)

        if "content-length" in reply.headers:
            length = int(reply.headers["content-length"])
            while len(body) < min(length, limit):
                chunk = more()
                if not chunk:
                    reply.error = "closed mid-body"
                    break
                body += chunk
            reply.body = body[:length]
        elif "chunked" in reply.headers.get("transfer-encoding", "").lower():
            out = b""
            while True:
                while b"\r\n" not in body:
                    chunk = more()
                    if not chunk:
                        reply.error = "closed mid-chunk"
                        reply.body = out
                        return reply
                    body += chunk
                size_line, body = body.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    break
                while len(body) < size + 2:
                    chunk = more()
                    if not chunk:
                        reply.error = "closed mid-chunk"
                        reply.body = out + body
                        return reply
                    body += chunk
                out += body[:size]
                body = body[size + 2:]
                if len(out) > limit:
                    break
            reply.body = out
        else:
            while len(body) < limit:
                chunk = more()
                if not chunk:
                    break
                body += chunk
            reply.body = body
    except TimeoutError:
        reply.error = "timeout"
    except socket.timeout:
        reply.error = "timeout"
    except ConnectionResetError:
        reply.error = "reset"
    except (OSError, ValueError, IndexError) as error:
        reply.error = f"{type(error).__name__}: {error}"
    return reply


def build_request(server: Server, method: str, path: str, headers: list[tuple[str, str]] | None, body: bytes | None,
                  host: str | None = None, auth: str | None = None, length: bool = True) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host if host is not None else server.host_header}"]
    names = {name.lower() for name, _ in headers or []}
    if auth and "authorization" not in names:
        lines.append(f"Authorization: Bearer {auth}")
    for name, value in headers or []:
        lines.append(f"{name}: {value}")
    if body is not None and length and "content-length" not in names and "transfer-encoding" not in names:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")


def request(server: Server, method: str, path: str, headers: list[tuple[str, str]] | None = None, body: bytes | None = None,
            timeout: float = 60, host: str | None = None, auth: str | None = None, warm: bool = False) -> Reply:
    """One request on a new connection. With `warm`, a `GET /health` goes first on the same
    connection: the event-loop relay (ChatRelayHandler) only takes a connection's later
    requests, so this is how a probe reaches it."""
    started = time.monotonic()
    try:
        sock = connect(server, timeout=min(timeout, 10))
    except OSError as error:
        return Reply(error=f"connect: {error}", elapsed=time.monotonic() - started)
    try:
        if warm:
            sock.sendall(build_request(server, "GET", "/health", [], None, host=host))
            first = read_response(sock, time.monotonic() + 10)
            if first.status == 0:
                sock.close()
                return Reply(error=f"warm-up GET /health: {first.error}", elapsed=time.monotonic() - started)
        sock.sendall(build_request(server, method, path, headers, body, host=host, auth=auth))
        reply = read_response(sock, time.monotonic() + timeout, method=method)
    except (OSError, socket.timeout) as error:
        reply = Reply(error=f"send: {error}")
    finally:
        sock.close()
    reply.elapsed = time.monotonic() - started
    return reply


def raw_exchange(server: Server, data: bytes, timeout: float = 15, half_close: bool = False) -> Reply:
    """Sends bytes as they are (a malformed request) and reads what comes back."""
    started = time.monotonic()
    try:
        sock = connect(server, timeout=min(timeout, 10))
    except OSError as error:
        return Reply(error=f"connect: {error}")
    try:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        reply = read_response(sock, time.monotonic() + timeout)
    except OSError as error:
        reply = Reply(error=f"send: {error}")
    finally:
        sock.close()
    reply.elapsed = time.monotonic() - started
    return reply


def health(server: Server, timeout: float = 10) -> int:
    reply = request(server, "GET", "/health", timeout=timeout)
    return reply.status


# ---------------------------------------------------------------------------------------------
# WebSocket (RFC 6455), the client side


class WebSocket:
    def __init__(self, server: Server, path: str = "/v1/realtime", headers: list[tuple[str, str]] | None = None,
                 auth: str | None = None, host: str | None = None, timeout: float = 15) -> None:
        self.sock = connect(server, timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: {host if host is not None else server.host_header}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        if auth:
            lines.append(f"Authorization: Bearer {auth}")
        for name, value in headers or []:
            lines.append(f"{name}: {value}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        self.buffer = b""
        self.closed = False
        self.close_code: int | None = None
        self.events: list[dict] = []
        self.status = 0
        self.body = b""
        deadline = time.monotonic() + timeout
        found = read_head(self.sock, b"", deadline)
        if found is None:
            self.closed = True
            return
        head, self.buffer = found
        self.status = int(head.split(b" ", 2)[1])
        if self.status != 101:
            headers_text = head.decode("latin-1").lower()
            match = re.search(r"content-length:\s*(\d+)", headers_text)
            if match:
                length = int(match.group(1))
                while len(self.buffer) < length and time.monotonic() < deadline:
                    chunk = self.sock.recv(65536)
                    if not chunk:
                        break
                    self.buffer += chunk
            self.body = self.buffer
            self.closed = True

    def send_frame(self, opcode: int, payload: bytes, fin: bool = True, timeout: float = 60) -> None:
        # The mask is all zeros for large payloads (valid, and no XOR over megabytes in Python).
        mask = os.urandom(4) if len(payload) <= 65536 else b"\0\0\0\0"
        header = bytes([(0x80 if fin else 0) | opcode])
        size = len(payload)
        if size < 126:
            header += bytes([0x80 | size])
        elif size < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", size)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", size)
        if mask != b"\0\0\0\0":
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.settimeout(timeout)  # receive() leaves its own (short) timeout on the socket
        self.sock.sendall(header + mask + payload)

    def send_text(self, text: str) -> None:
        self.send_frame(0x1, text.encode("utf-8", "surrogatepass"))

    def send_json(self, event: dict) -> None:
        self.send_text(json.dumps(event))

    def _read(self, count: int, deadline: float) -> bytes:
        while len(self.buffer) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            self.sock.settimeout(remaining)
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def receive(self, timeout: float) -> dict | None:
        """The next text event (parsed), or None at the timeout or once closed."""
        deadline = time.monotonic() + timeout
        if self.closed:
            return None
        try:
            while True:
                first, second = self._read(2, deadline)
                opcode = first & 0x0F
                size = second & 0x7F
                if size == 126:
                    size = struct.unpack("!H", self._read(2, deadline))[0]
                elif size == 127:
                    size = struct.unpack("!Q", self._read(8, deadline))[0]
                if second & 0x80:
                    self._read(4, deadline)  # a server must not mask; read past it anyway
                payload = self._read(size, deadline)
                if opcode == 0x8:
                    self.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                    self.closed = True
                    return None
                if opcode == 0x9:
                    self.send_frame(0xA, payload)
                    continue
                if opcode in (0x1, 0x0):
                    try:
                        event = json.loads(payload)
                    except ValueError:
                        event = {"type": "(not json)", "raw": payload[:200].decode("utf-8", "replace")}
                    self.events.append(event)
                    return event
        except (TimeoutError, socket.timeout):
            return None
        except (ConnectionError, OSError):
            self.closed = True
            return None

    def wait_for(self, types: set[str], timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.closed:
            event = self.receive(deadline - time.monotonic())
            if event and event.get("type") in types:
                return event
        return None

    def close(self) -> None:
        try:
            if not self.closed:
                self.send_frame(0x8, struct.pack("!H", 1000))
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass
        self.closed = True


# ---------------------------------------------------------------------------------------------
# bodies


def with_value(base: dict, path: str, literal: str) -> bytes:
    """`base` as JSON with the field at `path` (dotted; numbers index arrays) replaced by the
    JSON text `literal`."""
    document = json.loads(json.dumps(base))
    keys = [int(part) if part.isdigit() else part for part in path.split(".")]
    target = document
    for key in keys[:-1]:
        if isinstance(key, int):
            target = target[key]
        else:
            target = target.setdefault(key, {})
    target[keys[-1]] = SENTINEL
    return json.dumps(document).replace(f'"{SENTINEL}"', literal, 1).encode()


def deep_nesting(depth: int) -> str:
    return "[" * depth + "]" * depth


def wav(sample_rate: int = 16000, channels: int = 1, bits: int = 16, tag: int = 1, frames: int = 1600,
        data: bytes | None = None, declared: int | None = None) -> bytes:
    block = max(1, channels * bits // 8)
    payload = data if data is not None else b"\0" * (frames * block)
    fmt = struct.pack("<HHIIHH", tag, channels, sample_rate & 0xFFFFFFFF, (sample_rate * block) & 0xFFFFFFFF, block & 0xFFFF, bits)
    size = len(payload) if declared is None else declared
    return (b"RIFF" + struct.pack("<I", (36 + len(payload)) & 0xFFFFFFFF) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt
            + b"data" + struct.pack("<I", size & 0xFFFFFFFF) + payload)


def multipart(fields: list[tuple[str, str]], file: bytes | None, filename: str = "a.wav",
              content_type: str = "audio/wav") -> tuple[bytes, str]:
    boundary = "----parley-hostile-" + os.urandom(8).hex()
    body = b""
    for name, value in fields:
        body += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
    if file is not None:
        body += (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
                 f"Content-Type: {content_type}\r\n\r\n").encode() + file + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


# ---------------------------------------------------------------------------------------------
# the run


class Bystander:
    """Another key's client, going about its business while the attack runs: a `GET /v1/models`
    every second and a short chat completion every tenth time. Every one must succeed (the
    attacker's floods and slow connections must not starve other keys)."""

    def __init__(self, server: Server, key: str, timeout: float) -> None:
        self.server, self.key, self.timeout = server, key, timeout
        self.stop = threading.Event()
        self.sent = 0
        self.failures: list[str] = []
        self.slowest = 0.0
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self) -> None:
        turn = 0
        while not self.stop.is_set():
            generation = self.server.generation
            if turn % 10 == 0:
                body = json.dumps({"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4}).encode()
                path, reply = "POST /v1/chat/completions", request(self.server, "POST", "/v1/chat/completions", [("Content-Type", "application/json")],
                                                                  body, timeout=self.timeout, auth=self.key)
            else:
                path, reply = "GET /v1/models", request(self.server, "GET", "/v1/models", timeout=self.timeout, auth=self.key)
            turn += 1
            # A request that met a crash is the crash's failure, reported by the probe that caused
            # it; one that met a restart on purpose is no one's.
            if self.server.generation == generation:
                self.sent += 1
                self.slowest = max(self.slowest, reply.elapsed)
                if reply.status != 200:
                    self.failures.append(f"{path}: {reply.status or reply.error} after {reply.elapsed:.1f} s")
            self.stop.wait(1.0)

    def start(self) -> None:
        self.thread.start()

    def finish(self) -> Result:
        self.stop.set()
        self.thread.join(timeout=self.timeout + 15)
        observed = f"{self.sent - len(self.failures)} of {self.sent} succeeded, slowest {self.slowest:.1f} s"
        if self.failures:
            observed += "; " + "; ".join(self.failures[:5])
        outcome = "pass" if self.sent > 0 and not self.failures else "fail"
        return Result("bystander", "another key", "its requests during the whole attack", "every one answered 200", observed, outcome)


class Run:
    def __init__(self, arguments: argparse.Namespace, server: Server) -> None:
        self.arguments = arguments
        self.server = server
        self.report = Report()
        self.started = time.monotonic()
        self.key = arguments.api_key
        self.hardened = arguments.expect_hardened
        self.aborted = ""
        self.baseline: dict[str, int] = {}
        self.rss_start = server.rss_mb()

    # -- bookkeeping

    def out_of_time(self) -> bool:
        return time.monotonic() - self.started > self.arguments.time_limit

    def json_headers(self) -> list[tuple[str, str]]:
        return [("Content-Type", "application/json")]

    def finish(self, result: Result, mark: int, started: float, rss_before: float | None) -> Result:
        """After a probe: is the server still up? did memory run away?"""
        result.seconds = time.monotonic() - started
        alive = False
        for attempt in range(3):
            status = health(self.server, timeout=10)
            if status == 200:
                alive = True
                break
            if self.server.exited():
                break
            time.sleep(1 + attempt)
        if not alive:
            time.sleep(0.5)
            result.crash = self.server.crash_message(mark)
            result.outcome = "fail"
            result.observed += " | SERVER DOWN after this probe"
            self.report.add(result)
            if self.server.restart():
                print(f"       (restarted the server on port {self.server.port})", flush=True)
            else:
                self.aborted = f"the server went down at: {result.target} {result.probe}"
            return result
        rss = self.server.rss_mb()
        result.rss_mb = rss
        if rss is not None and rss_before is not None and rss - rss_before > self.arguments.max_rss_growth_mb:
            result.outcome = "fail"
            result.observed += f" | RSS grew {rss - rss_before:.0f} MB ({rss_before:.0f} → {rss:.0f})"
        if rss is not None and rss > self.arguments.max_rss_mb:
            result.outcome = "fail"
            result.observed += f" | RSS {rss:.0f} MB over --max-rss-mb"
        return self.report.add(result)

    def probe(self, group: str, target: str, name: str, expect: str, action, request_text: str = "") -> Result | None:
        """Runs `action() -> (outcome, observed)` as one probe, then the health and memory checks."""
        if self.aborted or self.out_of_time():
            return None
        if self.arguments.only and not any(word in f"{group} {target} {name}" for word in self.arguments.only):
            return None
        if group in self.arguments.skip:
            return None
        mark = self.server.mark()
        rss_before = self.server.rss_mb()
        started = time.monotonic()
        result = Result(group=group, target=target, probe=name, expect=expect, request=request_text)
        try:
            outcome, observed = action()
        except Exception as error:  # a bug of the probe itself, not of the server
            outcome, observed = "fail", f"probe error: {type(error).__name__}: {error}"
        result.outcome, result.observed = outcome, observed
        return self.finish(result, mark, started, rss_before)

    def hardened_outcome(self, holds: bool) -> str:
        if holds:
            return "pass"
        return "fail" if self.hardened else "info"

    # -- the HTTP verdict: no 5xx for a client fault, an answer within the time

    def verdict(self, reply: Reply, baseline: str | None = None, allow_close: bool = False, want_4xx: bool = False) -> tuple[str, str]:
        observed = f"{reply.describe()} ({reply.elapsed:.1f} s)"
        if reply.status == 0:
            if reply.error == "timeout":
                return "fail", observed + " — HANG"
            return ("pass" if allow_close else "fail"), observed
        if reply.status >= 500:
            base = self.baseline.get(baseline or "", 0)
            if base >= 500 and reply.status == base:
                return "pass", observed + f" (the valid request gets {base} too: provider unavailable, inconclusive)"
            return "fail", observed + " — 5xx for a client fault"
        if want_4xx and not 400 <= reply.status < 500:
            return "fail", observed + " — expected a 4xx"
        return "pass", observed

    def http_probe(self, group: str, target: str, name: str, method: str, path: str, body: bytes | None,
                   headers: list[tuple[str, str]] | None = None, timeout: float | None = None, baseline: str | None = None,
                   allow_close: bool = False, want_4xx: bool = False, host: str | None = None, warm: bool = False) -> Result | None:
        headers = self.json_headers() if headers is None else headers
        text = f"{method} {path} {headers} {(body or b'')[:300]!r}{'…' if body and len(body) > 300 else ''} ({len(body or b'')} bytes)"

        def action():
            reply = request(self.server, method, path, headers, body, timeout=timeout or self.arguments.request_timeout,
                            host=host, auth=self.key, warm=warm)
            return self.verdict(reply, baseline=baseline, allow_close=allow_close, want_4xx=want_4xx)

        return self.probe(group, target, name, "no 5xx, no hang, alive" + (", 4xx" if want_4xx else ""), action, text)

    # -- fixtures

    def make_thread(self) -> tuple[str, str]:
        """A thread and one message in it, for the routes that take ids."""
        reply = request(self.server, "POST", "/v1/threads", self.json_headers(), b'{"title": "hostile"}', auth=self.key)
        thread = str((reply.json() or {}).get("id", "1"))
        reply = request(self.server, "POST", f"/v1/threads/{thread}/messages", self.json_headers(),
                        b'{"role": "user", "text": "hello", "raw_transcript": "hello"}', auth=self.key)
        message = str((reply.json() or {}).get("id", "1"))
        return thread, message

    # -- groups

    def endpoint_specs(self, thread: str, message: str) -> list[dict]:
        say = [{"role": "user", "content": "Say OK."}]
        small_wav = base64.b64encode(wav()).decode()
        return [
            {"name": "chat", "method": "POST", "path": "/v1/chat/completions",
             "base": {"model": "auto", "messages": say, "max_tokens": 4, "temperature": 0},
             "numbers": ["max_tokens", "max_completion_tokens", "temperature", "top_p", "n", "seed", "messages.0.content"],
             "types": ["model", "messages", "messages.0.role", "stream", "stop", "tools", "tool_choice", "response_format", "stream_options", "parley", "user", "store"],
             "big": "messages.0.content", "array": "messages"},
            {"name": "chat-stream", "method": "POST", "path": "/v1/chat/completions",
             "base": {"model": "auto", "messages": say, "max_tokens": 4, "stream": True, "stream_options": {"include_usage": True}},
             "numbers": ["max_tokens", "temperature"], "types": ["stream_options.include_usage"]},
            {"name": "responses", "method": "POST", "path": "/v1/responses",
             "base": {"model": "auto", "input": "Say OK.", "max_output_tokens": 16, "store": False},
             "numbers": ["max_output_tokens", "temperature", "top_p", "input"],
             "types": ["input", "instructions", "stream", "store", "previous_response_id", "tools", "tool_choice", "text", "metadata", "parallel_tool_calls"],
             "big": "input", "array": "input"},
            {"name": "speech", "method": "POST", "path": "/v1/audio/speech",
             "base": {"model": "auto", "input": "Hi.", "voice": "alloy", "response_format": "wav"},
             "numbers": ["speed", "input"], "types": ["voice", "response_format", "stream_format", "instructions", "model"], "big": "input"},
            {"name": "embeddings", "method": "POST", "path": "/v1/embeddings",
             "base": {"model": "auto", "input": "hello"},
             "numbers": ["dimensions", "input"], "types": ["input", "encoding_format", "model"], "big": "input", "array": "input"},
            {"name": "compare", "method": "POST", "path": "/v1/parley/compare",
             "base": {"capability": "chat", "prompt": "Say OK.", "max_tokens": 4},
             "numbers": ["max_tokens", "prompt"], "types": ["capability", "prompt", "text", "audio"], "big": "prompt"},
            {"name": "compare-transcription", "method": "POST", "path": "/v1/parley/compare",
             "base": {"capability": "transcription", "audio": small_wav}, "numbers": ["audio"], "types": []},
            {"name": "mindmaps", "method": "POST", "path": "/v1/mindmaps",
             "base": {"text": "Cats and dogs are pets.", "seed": 1},
             "numbers": ["seed", "thread", "material"], "types": ["text"], "big": "text"},
            {"name": "threads-create", "method": "POST", "path": "/v1/threads",
             "base": {"title": "t", "settings": {"max_tokens": 64}},
             "numbers": ["settings.max_tokens", "title"], "types": ["settings", "settings.backend", "settings.model_preset", "settings.system_prompt"], "big": "title"},
            {"name": "threads-patch", "method": "PATCH", "path": f"/v1/threads/{thread}",
             "base": {"title": "t2", "settings": {"max_tokens": 64}},
             "numbers": ["settings.max_tokens", "title"], "types": ["settings"], "big": "settings.system_prompt"},
            {"name": "messages-append", "method": "POST", "path": f"/v1/threads/{thread}/messages",
             "base": {"role": "user", "text": "hi", "timings_ms": {"stt": 12}, "usage": {"input_tokens": 1, "cached_input_tokens": 0, "output_tokens": 1}},
             "numbers": ["timings_ms.stt", "usage.input_tokens", "usage.output_tokens", "usage.cached_input_tokens", "text"],
             "types": ["role", "images", "image_references", "tool_calls", "interrupted", "structured_result", "provider"],
             "big": "text", "array": "image_references"},
            {"name": "messages-edit", "method": "PATCH", "path": f"/v1/threads/{thread}/messages/{message}",
             "base": {"edited_text": "hello there"}, "numbers": ["edited_text"], "types": [], "big": "edited_text"},
            {"name": "stash", "method": "POST", "path": "/v1/stash",
             "base": {"kind": "note", "text": "x"}, "numbers": ["thread_id", "message_id", "text"], "types": ["kind"], "big": "text"},
            {"name": "preferences", "method": "PUT", "path": "/v1/settings/preferences",
             "base": {"silence_ms": 800, "max_tokens": 256}, "numbers": ["silence_ms", "max_tokens"],
             "types": ["model", "voice", "turn_detection", "eagerness", "review", "builtin_tools"], "big": "system_prompt"},
            {"name": "model-setting", "method": "PUT", "path": "/v1/settings/model",
             "base": {"model": "/nonexistent/hostile.gguf"}, "numbers": ["model"], "types": []},
            {"name": "google-sync", "method": "POST", "path": "/v1/google/sync",
             "base": {"drive": "off"}, "numbers": ["drive", "calendar", "gmail"], "types": []},
        ]

    def run_baselines(self, specs: list[dict]) -> None:
        for spec in specs:
            if self.out_of_time():
                return
            reply = request(self.server, spec["method"], spec["path"], self.json_headers(), json.dumps(spec["base"]).encode(),
                            timeout=self.arguments.request_timeout, auth=self.key)
            self.baseline[spec["name"]] = reply.status
            print(f"       baseline {spec['name']}: {reply.describe()[:120]}", flush=True)

    def json_group(self, specs: list[dict]) -> None:
        for spec in specs:
            name, method, path, base = spec["name"], spec["method"], spec["path"], spec["base"]
            target = f"{method} {path}"
            for field_path in spec["numbers"]:
                for label, literal in EXTREME_NUMBERS:
                    self.http_probe("http-numbers", target, f"{field_path}={label}", method, path, with_value(base, field_path, literal),
                                    baseline=name)
                    if name == "chat":
                        self.http_probe("http-numbers", target + " (relay)", f"{field_path}={label}", method, path,
                                        with_value(base, field_path, literal), baseline=name, warm=True)
            if "model" in spec["base"] and name != "model-setting":
                for value in MODEL_NAMES:
                    self.http_probe("http-models", target, f"model={value[:24]!r}", method, path,
                                    with_value(base, "model", json.dumps(value)), baseline=name)
            for field_path in spec["types"]:
                for label, literal in WRONG_TYPES + [("1e19", "1e19")]:
                    self.http_probe("http-types", target, f"{field_path}:{label}", method, path, with_value(base, field_path, literal),
                                    baseline=name)
            if "big" in spec:
                under = "a" * (900 << 10)
                self.http_probe("http-huge", target, f"{spec['big']}=900 KB string", method, path,
                                with_value(base, spec["big"], json.dumps(under)), baseline=name)
                over = "a" * (3 << 20)
                self.http_probe("http-huge", target, f"{spec['big']}=3 MB string", method, path,
                                with_value(base, spec["big"], json.dumps(over)), baseline=name, allow_close=True)
            if "array" in spec:
                array = "[" + ",".join(['"a"'] * 200_000) + "]"
                self.http_probe("http-huge", target, f"{spec['array']}=200k-element array", method, path,
                                with_value(base, spec["array"], array), baseline=name, allow_close=True)
            self.http_probe("http-nesting", target, "a field nested 100k deep", method, path,
                            with_value(base, "hostile_nested", deep_nesting(100_000)), baseline=name, allow_close=True)
            self.http_probe("http-nesting", target, "body nested 5k deep objects", method, path,
                            ('{"a":' * 5000 + "1" + "}" * 5000).encode(), baseline=name)
            whole = json.dumps(base).encode()
            self.http_probe("http-body", target, "truncated JSON (half the body)", method, path, whole[: len(whole) // 2], baseline=name)
            self.http_probe("http-body", target, "empty body", method, path, b"", baseline=name)
            self.http_probe("http-body", target, "invalid UTF-8", method, path, b'{"model": "\xff\xfe\xc3"}', baseline=name)
            self.http_probe("http-body", target, "a JSON array", method, path, b"[1e19]", baseline=name)
            self.http_probe("http-body", target, "the number 1e19", method, path, b"1e19", baseline=name)
            self.http_probe("http-ctype", target, "Content-Type: text/plain", method, path, whole,
                            headers=[("Content-Type", "text/plain")], baseline=name)
            self.http_probe("http-ctype", target, "no Content-Type", method, path, whole, headers=[], baseline=name)
            self.http_probe("http-ctype", target, "multipart without boundary", method, path, whole,
                            headers=[("Content-Type", "multipart/form-data")], baseline=name)
            self.http_probe("http-ctype", target, "x-www-form-urlencoded", method, path, b"model=auto&messages=1e19",
                            headers=[("Content-Type", "application/x-www-form-urlencoded")], baseline=name)

    def upload_group(self) -> None:
        for path in ("/v1/audio/transcriptions", "/v1/audio/translations"):
            target = f"POST {path}"
            good = wav()
            cases = [
                ("a valid 0.1 s WAV", [("model", "whisper-1")], good),
                ("sample rate 1 Hz", [], wav(sample_rate=1, frames=1000)),
                ("sample rate 2^32-1 Hz", [], wav(sample_rate=0xFFFFFFFF)),
                ("sample rate 0", [], wav(sample_rate=0)),
                ("65535 channels", [], wav(channels=65535, frames=4)),
                ("0 bits per sample", [], wav(bits=0)),
                ("float32 NaN and Inf samples", [], wav(tag=3, bits=32, data=struct.pack("<4f", float("nan"), float("inf"), float("-inf"), 1e38) * 4000)),
                ("float64 1e308 samples", [], wav(tag=3, bits=64, data=struct.pack("<d", 1e308) * 16000)),
                ("data size 0xFFFFFFFF", [], wav(declared=0xFFFFFFFF)),
                ("data size larger than the file", [], wav(declared=0x7FFFFFFF)),
                ("truncated header", [], good[:30]),
                ("temperature=1e19", [("temperature", "1e19")], good),
                ("temperature=NaN", [("temperature", "NaN")], good),
                ("timestamp_granularities[]=1e19", [("timestamp_granularities[]", "1e19"), ("response_format", "verbose_json")], good),
                ("stream=1e19", [("stream", "1e19")], good),
                ("response_format=1e19", [("response_format", "1e19")], good),
                ("language: 100 KB", [("language", "x" * 100_000)], good),
                ("prompt: 10 KB", [("prompt", "x" * (10 << 10))], good),
                ("prompt: 100 KB", [("prompt", "x" * (100 << 10))], good),
                ("prompt: 1 MB", [("prompt", "x" * (1 << 20))], good),
                ("prompt: 100 KB of words", [("prompt", "hello " * 17_000)], good),
                ("10k form fields", [(f"f{i}", "1e19") for i in range(10_000)], good),
                ("not audio (ffmpeg sniffing)", [], b"#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\nfile:///etc/passwd\n"),
            ]
            for name, fields, file in cases:
                body, content_type = multipart(fields, file)
                self.http_probe("http-upload", target, name, "POST", path, body, headers=[("Content-Type", content_type)], baseline="upload")
            for value in MODEL_NAMES[:8]:
                body, content_type = multipart([("model", value)], good)
                self.http_probe("http-models", target, f"model={value[:24]!r}", "POST", path, body, headers=[("Content-Type", content_type)],
                                baseline="upload")
            body, content_type = multipart([("model", "whisper-1")], good)
            self.http_probe("http-upload", target, "multipart cut in half", "POST", path, body[: len(body) // 2],
                            headers=[("Content-Type", content_type)])
            self.http_probe("http-upload", target, "boundary of 10 KB", "POST", path, b"--" + b"x" * 10_000 + b"\r\n",
                            headers=[("Content-Type", "multipart/form-data; boundary=" + "x" * 10_000)])

    def ids_group(self, thread: str, message: str) -> None:
        ids = ["99999999999999999999", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "-1", "0", "1e19", "-0",
               "NaN", "%00", "..%2f..%2fetc%2fpasswd", "x" * 10_000]
        routes = [
            ("GET", "/v1/threads/{}"), ("PATCH", "/v1/threads/{}"), ("DELETE", "/v1/threads/{}"),
            ("GET", f"/v1/threads/{thread}/messages/{{}}"), ("GET", f"/v1/threads/{thread}/messages/{{}}/audio"),
            ("DELETE", f"/v1/threads/{thread}/messages/{{}}/audio"), ("PATCH", f"/v1/threads/{thread}/messages/{{}}"),
            ("POST", "/v1/threads/{}/messages"),
            ("GET", "/v1/materials/{}"), ("DELETE", "/v1/materials/{}"), ("DELETE", "/v1/stash/{}"),
            ("GET", "/v1/models/{}"), ("GET", "/v1/models/local/{}"),
            ("GET", "/v1/responses/resp_1_{}"), ("GET", "/v1/responses/resp_{}_0"), ("DELETE", "/v1/responses/resp_{}_{}"),
            ("GET", "/v1/assignments?from={}"),
        ]
        for method, pattern in routes:
            for value in ids:
                path = pattern.replace("{}", value)
                body = b'{"title": "x", "edited_text": "x", "role": "user", "text": "x"}' if method in ("PATCH", "POST") else None
                self.http_probe("http-ids", f"{method} {pattern}", f"id={value[:24]}", method, path, body)
        for value in ["99999999999999999999", "-1", "1e19", "x"]:
            self.http_probe("http-ids", "GET /v1/realtime?thread=", f"thread={value} (no upgrade)", "GET", f"/v1/realtime?thread={value}", None,
                            headers=[])
        for path in ["/", "/health", "/metrics", "/v1/models", "/v1/threads", "/v1/stash", "/v1/materials", "/v1/settings/model",
                     "/v1/settings/preferences", "/v1/google/sync", "/v1/assignments", "/nonexistent", "/" + "a" * 60_000]:
            for method in ("GET", "POST", "OPTIONS", "TRACE", "BREW"):
                self.http_probe("http-routes", f"{method} {path[:30]}", "plain", method, path, b"1e19" if method == "POST" else None,
                                headers=[("Content-Type", "application/json")] if method == "POST" else [], allow_close=True)

    def raw_group(self) -> None:
        host = self.server.host_header
        chat = b'{"messages":[{"role":"user","content":"Say OK."}],"max_tokens":4}'
        cases = [
            ("Content-Length: 2^64", f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: 18446744073709551616\r\n\r\n".encode() + chat),
            ("Content-Length: -1", f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Length: -1\r\n\r\n".encode() + chat),
            ("Content-Length: 1e19", f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Length: 1e19\r\n\r\n".encode() + chat),
            ("Content-Length: 10^12, short body, half-closed", f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: 1000000000000\r\n\r\n".encode() + chat),
            ("two different Content-Lengths", f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {len(chat)}\r\nContent-Length: 5\r\n\r\n".encode() + chat),
            ("Content-Length and chunked", f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n".encode() + f"{len(chat):x}\r\n".encode() + chat + b"\r\n0\r\n\r\n"),
            ("chunk size 2^64", f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\n".encode() + chat),
            ("chunk size -1", f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n".encode() + chat),
            ("a 200 KB header", f"GET /health HTTP/1.1\r\nHost: {host}\r\nX-Big: {'a' * 200_000}\r\n\r\n".encode()),
            ("10k headers", (f"GET /health HTTP/1.1\r\nHost: {host}\r\n" + "".join(f"X-H{i}: 1\r\n" for i in range(10_000)) + "\r\n").encode()),
            ("a 1 MB request line", f"GET /{'a' * (1 << 20)} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()),
            ("no Host header (HTTP/1.1)", b"GET /health HTTP/1.1\r\n\r\n"),
            ("HTTP/1.0", b"GET /health HTTP/1.0\r\n\r\n"),
            ("HTTP/0.9", b"GET /health\r\n"),
            ("HTTP/2 preface on HTTP/1", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\0" * 64),
            ("HTTP/9.9", f"GET /health HTTP/9.9\r\nHost: {host}\r\n\r\n".encode()),
            ("absolute-form URI", f"GET http://evil.example/health HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()),
            ("NUL in the path", f"GET /v1/threads/\0 HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()),
            ("CR LF in a header value", f"GET /health HTTP/1.1\r\nHost: {host}\r\nX-A: a\rb\r\n\r\n".encode()),
            ("binary garbage", os.urandom(4096)),
            ("Expect: 100-continue, no body", f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: {len(chat)}\r\n\r\n".encode()),
            ("Expect: 100-continue for 25 MB", f"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: {host}\r\nContent-Type: multipart/form-data; boundary=x\r\nExpect: 100-continue\r\nContent-Length: 26214400\r\n\r\n".encode()),
            ("50 pipelined chat requests", (f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {len(chat)}\r\n\r\n".encode() + chat) * 50),
            ("WebSocket upgrade with a bad key and version", f"GET /v1/realtime HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: !!\r\nSec-WebSocket-Version: 99\r\n\r\n".encode()),
            ("WebSocket upgrade on a POST with a body", f"POST /v1/realtime HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nContent-Length: 4\r\n\r\n1e19".encode()),
        ]
        if self.key:
            cases = [(name, data.replace(b"\r\n\r\n", f"\r\nAuthorization: Bearer {self.key}\r\n\r\n".encode(), 1)) for name, data in cases]
        for name, data in cases:
            shown = f"{data[:300]!r}{'…' if len(data) > 300 else ''} ({len(data)} bytes)"

            def action(data=data, name=name):
                reply = raw_exchange(self.server, data, timeout=20, half_close="half-closed" in name)
                observed = f"{reply.describe()} ({reply.elapsed:.1f} s)"
                if reply.status >= 500:
                    return "fail", observed + " — 5xx for a client fault"
                if reply.status == 0 and reply.error == "timeout":
                    # A request whose body never comes may be held to the idle timeout; one that
                    # is malformed should be answered or dropped at once.
                    return ("pass" if "Content-Length: 10^12" in name or "chunk size" in name or "Expect" in name or "HTTP/0.9" in name else "fail"), observed + " (no answer in 20 s)"
                return "pass", observed

            self.probe("http-raw", "raw HTTP/1.1", name, "no 5xx, alive", action, shown)

    def origin_group(self) -> None:
        own = f"http://{self.server.host_header}"
        chat = json.dumps({"messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 2}).encode()
        cases = [
            # (name, method, path, headers, body, host, want): want "ok" (must not be refused), "403" (hardened)
            ("no Origin, GET /v1/threads", "GET", "/v1/threads", [], None, None, "ok"),
            ("own Origin, GET /v1/threads", "GET", "/v1/threads", [("Origin", own)], None, None, "ok"),
            ("foreign Origin, GET /v1/threads", "GET", "/v1/threads", [("Origin", "https://evil.example")], None, None, "403"),
            ("Origin: null, GET /v1/threads", "GET", "/v1/threads", [("Origin", "null")], None, None, "403"),
            ("foreign Origin, POST /v1/threads (JSON)", "POST", "/v1/threads", [("Origin", "https://evil.example"), ("Content-Type", "application/json")], b'{"title":"planted"}', None, "403"),
            ("foreign Origin, text/plain POST /v1/threads", "POST", "/v1/threads", [("Origin", "https://evil.example"), ("Content-Type", "text/plain")], b'{"title":"planted"}', None, "403"),
            ("no Origin, text/plain POST /v1/threads (cross-site form)", "POST", "/v1/threads", [("Content-Type", "text/plain")], b'{"title":"planted"}', None, "refused"),
            ("foreign Origin, POST /v1/chat/completions (router)", "POST", "/v1/chat/completions", [("Origin", "https://evil.example"), ("Content-Type", "application/json")], chat, None, "403"),
            ("foreign Origin, POST /v1/chat/completions (event-loop relay)", "POST", "/v1/chat/completions", [("Origin", "https://evil.example"), ("Content-Type", "application/json")], chat, None, "403-warm"),
            ("foreign Origin, POST /v1/google/sync", "POST", "/v1/google/sync", [("Origin", "https://evil.example"), ("Content-Type", "application/json")], b"{}", None, "403"),
            ("foreign Origin, GET /health", "GET", "/health", [("Origin", "https://evil.example")], None, None, "any"),
            ("rebinding Host, GET /v1/threads", "GET", "/v1/threads", [], None, f"evil.example:{self.server.port}", "403"),
            ("rebinding Host, GET /v1/materials", "GET", "/v1/materials", [], None, f"evil.example:{self.server.port}", "403"),
            ("rebinding Host, POST /v1/chat/completions (router)", "POST", "/v1/chat/completions", [("Content-Type", "application/json")], chat, "evil.example", "403"),
            ("rebinding Host, POST /v1/chat/completions (event-loop relay)", "POST", "/v1/chat/completions", [("Content-Type", "application/json")], chat, "evil.example", "403-warm"),
            ("own Origin, POST /v1/chat/completions (event-loop relay)", "POST", "/v1/chat/completions", [("Origin", own), ("Content-Type", "application/json")], chat, None, "ok-warm"),
            ("Host: localhost:PORT", "GET", "/v1/threads", [], None, f"localhost:{self.server.port}", "ok"),
        ]
        for name, method, path, headers, body, host, want in cases:
            shown = f"{method} {path} Host={host or self.server.host_header} {headers} {body!r}"

            def action(method=method, path=path, headers=headers, body=body, host=host, want=want):
                warm = want.endswith("-warm")
                want = want.removesuffix("-warm")
                reply = request(self.server, method, path, headers, body, timeout=self.arguments.request_timeout, host=host, auth=self.key,
                                warm=warm)
                observed = f"{reply.describe()} ({reply.elapsed:.1f} s)"
                if reply.status >= 500 or reply.status == 0:
                    return "fail", observed
                if want == "ok":
                    return ("pass" if reply.status < 400 else "fail"), observed
                if want == "403":
                    return self.hardened_outcome(reply.status == 403), observed
                if want == "refused":
                    return self.hardened_outcome(400 <= reply.status < 500), observed
                return "pass", observed

            self.probe("origin-host", f"{method} {path}", name, {"ok": "2xx", "403": "403 (hardened)", "refused": "4xx (hardened)", "any": "no 5xx"}[want.removesuffix("-warm")],
                       action, shown + (" (second request on a connection whose first was GET /health)" if want.endswith("-warm") else ""))
        ws_cases = [
            ("WebSocket, no Origin", [], None, "ok"),
            ("WebSocket, own Origin", [("Origin", own)], None, "ok"),
            ("WebSocket, foreign Origin", [("Origin", "https://evil.example")], None, "403"),
            ("WebSocket, foreign Origin, ?thread=1", [("Origin", "https://evil.example")], None, "403"),
            ("WebSocket, rebinding Host", [], f"evil.example:{self.server.port}", "403"),
            ("WebSocket, key as subprotocol, foreign Origin", [("Origin", "https://evil.example"), ("Sec-WebSocket-Protocol", f"realtime, openai-insecure-api-key.{self.key or 'none'}")], None, "403"),
        ]
        for name, headers, host, want in ws_cases:
            path = "/v1/realtime?thread=1" if "thread" in name else "/v1/realtime"

            def action(headers=headers, host=host, want=want, path=path):
                socket_ = WebSocket(self.server, path=path, headers=headers, auth=self.key, host=host)
                status = socket_.status
                created = socket_.wait_for({"session.created"}, 15) if status == 101 else None
                socket_.close()
                observed = f"upgrade status {status}" + (", session.created" if created else "") + (f" {socket_.body[:120]!r}" if socket_.body else "")
                if status >= 500 or status == 0:
                    return "fail", observed
                if want == "ok":
                    return ("pass" if status == 101 and created else "fail"), observed
                return self.hardened_outcome(status == 403), observed

            self.probe("origin-host", f"WS {path}", name, "101" if want == "ok" else "403 (hardened)", action, f"GET {path} Upgrade: websocket Host={host} {headers}")

    def model_setting_group(self) -> None:
        if self.arguments.only and not any(word in "model-setting PUT /v1/settings/model" for word in self.arguments.only):
            return
        replies = {}
        for label, path in [("a missing file", "/nonexistent/model.gguf"), ("a file outside the models folder", "/etc/passwd"),
                            ("a directory", "/tmp"), ("a traversal", "../../../../etc/hostname")]:
            reply = request(self.server, "PUT", "/v1/settings/model", self.json_headers(), json.dumps({"model": path}).encode(), auth=self.key)
            replies[label] = reply
            self.report.add(Result("model-setting", "PUT /v1/settings/model", f"model={path}", "4xx", reply.describe(),
                                   "pass" if 400 <= reply.status < 500 else "fail", request=json.dumps({"model": path})))
        messages = {label: ((reply.json() or {}).get("error") or {}).get("message") for label, reply in replies.items()}
        same = len(set(messages.values())) == 1
        self.report.add(Result("model-setting", "PUT /v1/settings/model", "one message whatever the path", "one message (hardened)",
                               "; ".join(f"{label}: {message!r}"[:140] for label, message in messages.items()), self.hardened_outcome(same)))

    def slow_group(self) -> None:
        host = self.server.host_header
        auth = f"Authorization: Bearer {self.key}\r\n" if self.key else ""

        def byte_by_byte():
            data = f"GET /v1/models HTTP/1.1\r\nHost: {host}\r\n{auth}X-Slow: {'s' * 20}\r\n\r\n".encode()
            sock = connect(self.server, timeout=10)
            healthy = []
            try:
                for index, byte in enumerate(data):
                    sock.sendall(bytes([byte]))
                    time.sleep(self.arguments.slow_pause)
                    if index % 25 == 0:
                        healthy.append(health(self.server, timeout=5))
                reply = read_response(sock, time.monotonic() + 20)
            finally:
                sock.close()
            observed = f"{reply.describe()[:60]} after {len(data)} bytes one at a time; /health meanwhile: {sorted(set(healthy))}"
            ok = reply.status == 200 and all(status == 200 for status in healthy)
            return ("pass" if ok else "fail"), observed

        self.probe("slow", "GET /v1/models", "headers one byte at a time", "answered; /health answers meanwhile", byte_by_byte)

        def slowloris():
            sockets = []
            try:
                for _ in range(self.arguments.slowloris):
                    sock = connect(self.server, timeout=5)
                    sock.sendall(f"GET /health HTTP/1.1\r\nHost: {host}\r\nX-Partial: ".encode())
                    sockets.append(sock)
                statuses = [health(self.server, timeout=5) for _ in range(5)]
                return ("pass" if all(s == 200 for s in statuses) else "fail"), f"{len(sockets)} half-sent requests held; /health: {statuses}"
            finally:
                for sock in sockets:
                    sock.close()

        self.probe("slow", "any", f"{self.arguments.slowloris} connections with half a header", "/health still answers", slowloris)

        def never_read():
            # Ask for large answers many times on one connection and never read them.
            sock = connect(self.server, timeout=10)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sent = 0
            try:
                one = f"GET / HTTP/1.1\r\nHost: {host}\r\n\r\n".encode() + f"GET /metrics HTTP/1.1\r\nHost: {host}\r\n{auth}\r\n".encode()
                sock.settimeout(2)
                deadline = time.monotonic() + 10
                while sent < 2000 and time.monotonic() < deadline:
                    try:
                        sock.sendall(one)
                    except (socket.timeout, OSError):
                        break
                    sent += 1
                statuses = [health(self.server, timeout=5) for _ in range(3)]
                return ("pass" if all(s == 200 for s in statuses) else "fail"), f"{sent} pairs of requests sent, no response read; /health: {statuses}"
            finally:
                sock.close()

        self.probe("slow", "GET / and /metrics", "pipelined requests whose responses are never read", "/health answers; memory bounded", never_read)

        def slow_body():
            body = json.dumps({"messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 2}).encode()
            sock = connect(self.server, timeout=10)
            try:
                sock.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\n{auth}Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode())
                for index in range(0, len(body), 4):
                    sock.sendall(body[index:index + 4])
                    time.sleep(self.arguments.slow_pause)
                reply = read_response(sock, time.monotonic() + self.arguments.request_timeout)
            finally:
                sock.close()
            return self.verdict(reply)

        self.probe("slow", "POST /v1/chat/completions", "body 4 bytes at a time", "answered", slow_body)

    def connections_group(self) -> None:
        def many_idle():
            sockets = []
            try:
                for _ in range(self.arguments.connections):
                    try:
                        sockets.append(connect(self.server, timeout=5))
                    except OSError:
                        break
                time.sleep(3)
                statuses = [health(self.server, timeout=10) for _ in range(3)]
                models = request(self.server, "GET", "/v1/models", auth=self.key, timeout=10).status
                ok = len(sockets) == self.arguments.connections and all(s == 200 for s in statuses) and models == 200
                return ("pass" if ok else "fail"), f"{len(sockets)} idle connections open; /health {statuses}; /v1/models {models}"
            finally:
                for sock in sockets:
                    sock.close()

        self.probe("connections", "any", f"{self.arguments.connections} idle connections", "others still served", many_idle)

        def many_websockets():
            sockets = []
            try:
                for _ in range(min(50, self.arguments.connections)):
                    try:
                        ws = WebSocket(self.server, auth=self.key, timeout=10)
                    except OSError:
                        break
                    if ws.status != 101:
                        break
                    sockets.append(ws)
                statuses = [health(self.server, timeout=10) for _ in range(3)]
                ok = all(s == 200 for s in statuses)
                return ("pass" if ok else "fail"), f"{len(sockets)} realtime sessions open; /health {statuses}"
            finally:
                for ws in sockets:
                    ws.close()

        self.probe("connections", "GET /v1/realtime", "50 realtime sessions at once", "others still served", many_websockets)

    # -- realtime

    def realtime_cases(self) -> list[tuple[str, str, str, str]]:
        """(event, probe, frame text, expect): expect "error" (an error event), "any" (an error or
        the event's answer), "close-ok" (the connection may be closed, e.g. a frame over the limit)."""
        cases: list[tuple[str, str, str, str]] = []

        def session(path: str, literal: str) -> str:
            return with_value({"type": "session.update", "session": {}}, "session." + path, literal).decode()

        number_fields = [
            ("audio.input.format.rate", "error", {"audio": {"input": {"format": {"type": "audio/pcm"}}}}),
            ("audio.output.format.rate", "error", {"audio": {"output": {"format": {"type": "audio/pcm"}}}}),
            ("audio.input.turn_detection.silence_duration_ms", "error", {"audio": {"input": {"turn_detection": {"type": "server_vad"}}}}),
            ("audio.input.turn_detection.threshold", "error", {"audio": {"input": {"turn_detection": {"type": "server_vad"}}}}),
            ("audio.input.turn_detection.prefix_padding_ms", "error", {"audio": {"input": {"turn_detection": {"type": "server_vad"}}}}),
            ("turn_detection.silence_duration_ms", "error", {"turn_detection": {"type": "server_vad"}}),
            ("max_output_tokens", "error", {}),
            ("max_response_output_tokens", "error", {}),
            ("parley.partial_transcript_interval_ms", "error", {"parley": {}}),
            ("temperature", "any", {}),
            ("instructions", "error", {}),
            ("audio.output.voice", "error", {"audio": {"output": {}}}),
        ]
        for path, expect, base in number_fields:
            for label, literal in EXTREME_NUMBERS:
                frame = with_value({"type": "session.update", "session": base}, "session." + path, literal).decode()
                # A string is what instructions and voice take: "NaN" is a fine one.
                string_field = path in ("instructions", "audio.output.voice") and literal.startswith('"')
                cases.append(("session.update", f"{path}={label}", frame, "any" if label == "-0.0" or string_field else expect))
        for label, literal in EXTREME_NUMBERS:
            frame = f'{{"type": "conversation.item.truncate", "item_id": "item_hostile", "content_index": 0, "audio_end_ms": {literal}}}'
            cases.append(("conversation.item.truncate", f"audio_end_ms={label}", frame, "any" if label == "-0.0" else "error"))
            frame = f'{{"type": "conversation.item.truncate", "item_id": "item_hostile", "content_index": {literal}, "audio_end_ms": 10}}'
            cases.append(("conversation.item.truncate", f"content_index={label}", frame, "any"))
            frame = f'{{"type": "response.create", "response": {{"max_output_tokens": {literal}, "output_modalities": ["text"], "conversation": "none", "input": [{{"type": "message", "role": "user", "content": [{{"type": "input_text", "text": "Say OK."}}]}}]}}}}'
            cases.append(("response.create", f"response.max_output_tokens={label}", frame, "any"))
            frame = f'{{"type": "response.create", "response": {{"temperature": {literal}, "output_modalities": ["text"], "conversation": "none", "input": [{{"type": "message", "role": "user", "content": [{{"type": "input_text", "text": "Say OK."}}]}}]}}}}'
            cases.append(("response.create", f"response.temperature={label}", frame, "any"))
            cases.append(("conversation.item.create", f"previous_item_id={label}",
                          f'{{"type": "conversation.item.create", "previous_item_id": {literal}, "item": {{"type": "message", "role": "user", "content": [{{"type": "input_text", "text": "hi"}}]}}}}', "error"))
            # "Infinity" is valid base64 (six bytes of audio); "NaN" is not.
            cases.append(("input_audio_buffer.append", f"audio={label}", f'{{"type": "input_audio_buffer.append", "audio": {literal}}}',
                          "any" if label == "Infinity-string" else "error"))
            cases.append(("parley.transcript.send", f"text={label}", f'{{"type": "parley.transcript.send", "text": {literal}}}', "error" if label != "-0.0" else "any"))
            cases.append(("(any)", f"type={label}", f'{{"type": {literal}}}', "error"))
            cases.append(("(any)", f"event_id={label}", f'{{"type": "input_audio_buffer.clear", "event_id": {literal}}}', "any"))
            cases.append(("conversation.item.retrieve", f"item_id={label}", f'{{"type": "conversation.item.retrieve", "item_id": {literal}}}', "error"))
            cases.append(("conversation.item.delete", f"item_id={label}", f'{{"type": "conversation.item.delete", "item_id": {literal}}}', "error"))
        for label, literal in WRONG_TYPES:
            cases.append(("session.update", f"session:{label}", f'{{"type": "session.update", "session": {literal}}}', "any"))
            cases.append(("session.update", f"tools:{label}", f'{{"type": "session.update", "session": {{"tools": {literal}}}}}', "error"))
            cases.append(("session.update", f"tool_choice:{label}", f'{{"type": "session.update", "session": {{"tool_choice": {literal}}}}}', "any"))
            cases.append(("session.update", f"audio.input.format:{label}", f'{{"type": "session.update", "session": {{"audio": {{"input": {{"format": {literal}}}}}}}}}', "any"))
            cases.append(("conversation.item.create", f"item:{label}", f'{{"type": "conversation.item.create", "item": {literal}}}', "error"))
            cases.append(("conversation.item.create", f"item.content:{label}", f'{{"type": "conversation.item.create", "item": {{"type": "message", "role": "user", "content": {literal}}}}}', "error"))
            cases.append(("response.create", f"response:{label}", f'{{"type": "response.create", "response": {literal}}}', "any"))
            cases.append(("response.create", f"response.input:{label}", f'{{"type": "response.create", "response": {{"input": {literal}}}}}', "any"))
            cases.append(("response.create", f"response.metadata:{label}", f'{{"type": "response.create", "response": {{"metadata": {literal}, "conversation": "none", "output_modalities": ["text"]}}}}', "any"))
        big = "a" * (4 << 20)
        cases += [
            ("session.update", "instructions: 4 MB", json.dumps({"type": "session.update", "session": {"instructions": big}}), "any"),
            ("session.update", "1000 tools", json.dumps({"type": "session.update", "session": {"tools": [{"type": "function", "name": f"f{i}", "parameters": {"type": "object"}} for i in range(1000)]}}), "any"),
            ("session.update", "tool parameters nested 10k deep", '{"type": "session.update", "session": {"tools": [{"type": "function", "name": "f", "parameters": ' + '{"a":' * 10_000 + "1" + "}" * 10_000 + "}]}}", "any"),
            ("session.update", "transcription.language 100 KB", json.dumps({"type": "session.update", "session": {"audio": {"input": {"transcription": {"language": "x" * 100_000}}}}}), "error"),
            ("session.update", "transcription.prompt 4 MB", json.dumps({"type": "session.update", "session": {"audio": {"input": {"transcription": {"prompt": big}}}}}), "any"),
            ("conversation.item.create", "text: 4 MB", json.dumps({"type": "conversation.item.create", "item": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": big}]}}), "any"),
            ("conversation.item.create", "100k content parts", json.dumps({"type": "conversation.item.create", "item": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "a"}] * 100_000}}), "any"),
            ("conversation.item.create", "image_url: 6 MB garbage data URL", json.dumps({"type": "conversation.item.create", "item": {"type": "message", "role": "user", "content": [{"type": "input_image", "image_url": "data:image/png;base64," + "A" * (6 << 20)}]}}), "error"),
            ("conversation.item.create", "function_call_output: 4 MB", json.dumps({"type": "conversation.item.create", "item": {"type": "function_call_output", "call_id": "c", "output": big}}), "error"),
            ("response.create", "metadata: 10k keys", json.dumps({"type": "response.create", "response": {"metadata": {f"k{i}": "v" for i in range(10_000)}}}), "error"),
            ("input_audio_buffer.append", "audio: not base64", '{"type": "input_audio_buffer.append", "audio": "%%%not base64%%%"}', "error"),
            ("input_audio_buffer.append", "audio: an odd number of bytes", json.dumps({"type": "input_audio_buffer.append", "audio": base64.b64encode(b"\0\0\0").decode()}), "error"),
            ("input_audio_buffer.append", "audio: 5 MB of noise", json.dumps({"type": "input_audio_buffer.append", "audio": base64.b64encode(os.urandom(5 << 20)).decode()}), "any"),
            ("input_audio_buffer.append", "frame of 9 MB (over the 8 MB limit)", json.dumps({"type": "input_audio_buffer.append", "audio": "A" * (9 << 20)}), "close-ok"),
            ("input_audio_buffer.commit", "commit an empty buffer", '{"type": "input_audio_buffer.commit"}', "any"),
            ("response.cancel", "cancel with nothing running", '{"type": "response.cancel"}', "error"),
            ("parley.transcript.send", "send with nothing held", '{"type": "parley.transcript.send"}', "any"),
            ("parley.transcript.discard", "discard with nothing held", '{"type": "parley.transcript.discard"}', "any"),
            ("(frame)", "not JSON", "{not json", "error"),
            ("(frame)", "a JSON array", "[1e19]", "error"),
            ("(frame)", "nested 100k deep", deep_nesting(100_000), "any"),
            ("(frame)", "an object nested 10k deep", '{"type": "session.update", "session": ' + '{"a":' * 10_000 + "1" + "}" * 10_000 + "}", "any"),
            ("(frame)", "empty text frame", "", "error"),
            ("(frame)", "unknown type", '{"type": "hostile.event"}', "error"),
        ]
        return cases

    def realtime_group(self) -> None:
        for event, name, frame, expect in self.realtime_cases():
            shown = f"{frame[:300]}{'…' if len(frame) > 300 else ''} ({len(frame)} bytes)"

            def action(frame=frame, expect=expect):
                ws = WebSocket(self.server, auth=self.key, timeout=15)
                try:
                    if ws.status != 101:
                        return "fail", f"upgrade status {ws.status} {ws.body[:100]!r}"
                    if not ws.wait_for({"session.created", "transcription_session.created"}, 30):
                        return "fail", "no session.created within 30 s"
                    try:
                        ws.send_text(frame)
                    except OSError as error:
                        ws.closed = True
                        if expect == "close-ok":
                            return "pass", f"the server closed the connection while the frame was sent ({error})"
                        return "fail", f"the server closed the connection while the frame was sent ({error})"
                    answers = []
                    deadline = time.monotonic() + 20
                    while time.monotonic() < deadline and not ws.closed:
                        answer = ws.receive(min(2.0, deadline - time.monotonic()))
                        if answer is None:
                            if answers:
                                break
                            continue
                        answers.append(answer.get("type"))
                        if answer.get("type") in ("error", "session.updated", "conversation.item.truncated", "response.done",
                                                  "conversation.item.added", "conversation.item.created", "conversation.item.retrieved",
                                                  "conversation.item.deleted", "input_audio_buffer.cleared", "input_audio_buffer.committed"):
                            break
                    # The session still works: an event with a known answer.
                    if not ws.closed:
                        try:
                            ws.send_json({"type": "conversation.item.retrieve", "item_id": "item_does_not_exist"})
                            after = ws.wait_for({"error"}, 15)
                        except OSError:
                            after = None
                    else:
                        after = None
                    observed = f"answers {answers[:6]}" + (f"; error code {next((e.get('error', {}).get('code') for e in ws.events if e.get('type') == 'error'), None)}" if "error" in answers else "")
                    observed += "; session still answers" if after else f"; session closed ({ws.close_code})" if ws.closed else "; session does not answer"
                    if expect == "close-ok":
                        return ("pass" if ws.closed or after else "fail"), observed
                    if not answers and not after:
                        return "fail", observed + " — no answer at all"
                    if expect == "error" and "error" not in answers:
                        return "fail", observed + " — expected an error event"
                    if not after and expect != "close-ok":
                        return "fail", observed + " — the session ended (a realtime error should not close it)"
                    return "pass", observed
                finally:
                    ws.close()

            self.probe("realtime", event, name, {"error": "error event, session lives", "any": "an answer, session lives", "close-ok": "error or close"}[expect], action, shown)

    def realtime_query_group(self) -> None:
        queries = [f"model={urllib.parse.quote(value[:200])}" for value in MODEL_NAMES[:8]]
        queries += ["thread=99999999999999999999", "thread=-1", "thread=0", "intent=transcription&model=%2F", "model=" + "x" * 8000]
        for query in queries:
            path = "/v1/realtime?" + query

            def action(path=path):
                ws = WebSocket(self.server, path=path, auth=self.key, timeout=15)
                try:
                    if ws.status != 101:
                        observed = f"upgrade status {ws.status} {ws.body[:100]!r}"
                        return ("fail" if ws.status >= 500 or ws.status == 0 else "pass"), observed
                    created = ws.wait_for({"session.created", "transcription_session.created"}, 30)
                    ws.send_json({"type": "response.create", "response": {"output_modalities": ["text"], "instructions": "Say OK."}})
                    answer = ws.wait_for({"response.done", "error"}, 60)
                    observed = f"101; created: {bool(created)}; answer: {answer.get('type') if answer else None} {json.dumps(answer)[:160] if answer else ''}"
                    return ("pass" if answer else "fail"), observed
                finally:
                    ws.close()

            self.probe("realtime-query", "GET /v1/realtime", query[:60], "an answer (error or response.done), alive", action, f"GET {path[:300]} + response.create")

    def realtime_transcription_prompt(self) -> None:
        """A long transcription prompt set by session.update, then a committed turn: the prompt
        goes to the speech-to-text engine (whisper.cpp tokenizes it) when the turn is heard."""
        # A spoken turn: the commit of a buffer without speech is refused before any transcription.
        rate, pcm = 24_000, b""
        if self.arguments.speech_wav and os.path.exists(self.arguments.speech_wav):
            import wave
            with wave.open(self.arguments.speech_wav) as recording:
                if recording.getnchannels() == 1 and recording.getsampwidth() == 2:
                    rate, pcm = recording.getframerate(), recording.readframes(recording.getnframes())
        if not pcm:
            print("       (no --speech-wav: the turn is noise, which the server may refuse as empty)", flush=True)
            pcm = os.urandom(rate * 2)
        for size in self.arguments.prompt_sizes:
            session = {"type": "session.update", "session": {"audio": {"input": {
                "format": {"type": "audio/pcm", "rate": rate},
                "turn_detection": None, "transcription": {"model": "whisper-1", "prompt": "x" * size}}}}}
            noise = base64.b64encode(pcm).decode()

            def action(session=session, noise=noise):
                ws = WebSocket(self.server, auth=self.key, timeout=15)
                try:
                    if ws.status != 101 or not ws.wait_for({"session.created"}, 30):
                        return "fail", f"no session (status {ws.status})"
                    ws.send_json(session)
                    updated = ws.wait_for({"session.updated", "error"}, 15)
                    ws.send_json({"type": "input_audio_buffer.append", "audio": noise})
                    time.sleep(2)  # the appends reach the session's buffer on its audio lane
                    ws.send_json({"type": "input_audio_buffer.commit"})
                    answer = ws.wait_for({"conversation.item.input_audio_transcription.completed",
                                          "conversation.item.input_audio_transcription.failed", "error"}, 60)
                    observed = f"session.update → {updated.get('type') if updated else None}; after the commit: {answer.get('type') if answer else None}"
                    if answer and answer.get("type") == "error":
                        observed += f" ({(answer.get('error') or {}).get('code')})"
                    return ("pass" if answer else "fail"), observed
                finally:
                    ws.close()

            self.probe("realtime-stt", "session.update + commit", f"transcription.prompt of {size >> 10} KB, then a turn",
                       "transcribed or refused, alive", action,
                       f'{{"type": "session.update", "session": {{"audio": {{"input": {{"turn_detection": null, "transcription": {{"model": "whisper-1", "prompt": <{size} × "x">}}}}}}}}}} '
                       '+ input_audio_buffer.append (a spoken question) + input_audio_buffer.commit')

    def realtime_heavy(self) -> None:
        """One out-of-band response over 10,000 short messages: the history is trimmed to fit the
        context by re-tokenizing it once per dropped message (issue 42), on the one on-device
        context every client shares. Checks that another client's chat completion is still
        answered meanwhile. The server is restarted afterwards when this script started it."""
        frame = json.dumps({"type": "response.create", "response": {"conversation": "none", "output_modalities": ["text"], "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}] * self.arguments.heavy_messages}})

        def action():
            ws = WebSocket(self.server, auth=self.key, timeout=15)
            try:
                if ws.status != 101 or not ws.wait_for({"session.created"}, 30):
                    return "fail", f"no session (status {ws.status})"
                ws.send_text(frame)
                time.sleep(2)
                chat = json.dumps({"messages": [{"role": "user", "content": "Say OK."}], "max_tokens": 2}).encode()
                other = request(self.server, "POST", "/v1/chat/completions", self.json_headers(), chat, timeout=self.arguments.heavy_wait, auth=self.key)
                done = ws.wait_for({"response.done", "error"}, 1)
                observed = (f"another client's chat completion meanwhile: {other.describe()[:40]} after {other.elapsed:.0f} s; "
                            f"the response: {done.get('type') if done else 'not done'}")
                cpu = ""
                if self.server.pid:
                    try:
                        with open(f"/proc/{self.server.pid}/stat") as stat:
                            fields = stat.read().rsplit(")", 1)[1].split()
                            cpu = f"; server CPU time {(int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK'):.0f} s"
                    except OSError:
                        pass
                return ("pass" if other.status == 200 else "fail"), observed + cpu
            finally:
                ws.close()

        self.probe("realtime-heavy", "response.create", f"input: {self.arguments.heavy_messages} messages (out of band)",
                   f"other clients answered within {self.arguments.heavy_wait:.0f} s", action,
                   f'{{"type": "response.create", "response": {{"conversation": "none", "output_modalities": ["text"], "input": [<{self.arguments.heavy_messages} × user message "hi">]}}}}')
        if self.server.command and not self.aborted:
            self.server.restart(crashed=False)

    def realtime_flood(self) -> None:
        for turns in ("manual", "server_vad"):
            self.realtime_flood_once(turns)

    def realtime_flood_once(self, turns: str) -> None:
        count, size = self.arguments.audio_appends, int(self.arguments.audio_append_mb * (1 << 20)) & ~1

        def action():
            ws = WebSocket(self.server, auth=self.key, timeout=15)
            peak = self.server.rss_mb()
            start = peak
            try:
                if ws.status != 101 or not ws.wait_for({"session.created"}, 30):
                    return "fail", f"no session (status {ws.status})"
                if turns == "manual":
                    # Manual turns: appends wait in the input buffer for a commit that never comes.
                    ws.send_json({"type": "session.update", "session": {"audio": {"input": {"turn_detection": None}}}})
                    ws.wait_for({"session.updated"}, 15)
                ws.sock.settimeout(60)
                frame = json.dumps({"type": "input_audio_buffer.append", "audio": base64.b64encode(b"\x10\x00" * (size // 2)).decode()})
                sent = 0
                began = time.monotonic()
                deadline = time.monotonic() + self.arguments.flood_seconds
                errors = []
                while sent < count and time.monotonic() < deadline and not ws.closed:
                    try:
                        ws.send_text(frame)
                    except OSError:
                        break
                    sent += 1
                    while True:
                        event = ws.receive(0.001)
                        if event is None:
                            break
                        if event.get("type") == "error":
                            errors.append((event.get("error") or {}).get("code"))
                    rss = self.server.rss_mb()
                    if rss is not None:
                        peak = max(peak or 0, rss)
                tail = time.monotonic() + 5
                while time.monotonic() < tail and not ws.closed:
                    event = ws.receive(0.5)
                    if event and event.get("type") == "error":
                        errors.append((event.get("error") or {}).get("code"))
                    rss = self.server.rss_mb()
                    if rss is not None:
                        peak = max(peak or 0, rss)
                growth = (peak - start) if peak is not None and start is not None else None
                observed = (f"{turns} turns: {sent} appends of {size >> 20} MB sent in {time.monotonic() - began:.0f} s ({sent * size / (1 << 20):.0f} MB of PCM); error events: {errors[:5]}"
                            f"{' …' if len(errors) > 5 else ''}; closed: {ws.close_code if ws.closed else 'no'}")
                if growth is not None:
                    observed += f"; RSS {start:.0f} → peak {peak:.0f} MB (+{growth:.0f})"
                bounded = growth is None or growth <= self.arguments.max_rss_growth_mb
                if not bounded:
                    return "fail", observed + " — memory not bounded"
                return self.hardened_outcome(bool(errors)), observed + ("" if errors else " — no error event (the queue is bounded in items, not bytes)")
            finally:
                ws.close()

        self.probe("realtime-flood", "input_audio_buffer.append",
                   f"{count} appends of {self.arguments.audio_append_mb:g} MB ({turns} turns)", "error event; RSS growth bounded", action,
                   f'{count} × {{"type": "input_audio_buffer.append", "audio": <{size} bytes of PCM, base64>}} on one session')

    # -- connections that should be closed by the idle timeout (measured across the run)

    def open_idle_watchers(self) -> list[tuple[str, socket.socket, float, bool]]:
        host = self.server.host_header
        watchers = []
        try:
            plain = connect(self.server, timeout=5)
            watchers.append(("plain connection, no request", plain, time.monotonic(), False))
            h2c = connect(self.server, timeout=5)
            auth = f"Authorization: Bearer {self.key}\r\n" if self.key else ""
            h2c.sendall(f"GET /health HTTP/1.1\r\nHost: {host}\r\n{auth}Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n".encode())
            watchers.append(("Upgrade: h2c, then silence", h2c, time.monotonic(), True))
            other = connect(self.server, timeout=5)
            other.sendall(f"GET /health HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade\r\nUpgrade: hostile/1.0\r\n\r\n".encode())
            watchers.append(("Upgrade: hostile/1.0, then silence", other, time.monotonic(), True))
            second = connect(self.server, timeout=5)
            second.sendall(f"GET /health HTTP/1.1\r\nHost: {host}\r\n\r\nGET /health HTTP/1.1\r\nHost: {host}\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n".encode())
            watchers.append(("GET, then GET with Upgrade: h2c, then silence", second, time.monotonic(), True))
            half = connect(self.server, timeout=5)
            half.sendall(f"GET /health HTTP/1.1\r\nHost: {host}\r\nX-Half: ".encode())
            watchers.append(("half a request head, then silence", half, time.monotonic(), False))
            ws = WebSocket(self.server, auth=self.key, timeout=15)
            if ws.status == 101:
                ws.sock.settimeout(None)
                watchers.append(("a realtime WebSocket, then silence", ws.sock, time.monotonic(), True))
            trickle = connect(self.server, timeout=5)
            trickle.sendall(f"GET /health HTTP/1.1\r\nHost: {host}\r\nX-Trickle: ".encode())
            opened = time.monotonic()
            watchers.append(("a header byte every 10 s (never ends)", trickle, opened, True))

            def drip(sock=trickle, opened=opened):
                while time.monotonic() - opened < self.arguments.idle_timeout + 15:
                    time.sleep(10)
                    try:
                        sock.send(b"a")
                    except OSError:
                        return

            threading.Thread(target=drip, daemon=True).start()
        except OSError as error:
            print(f"       could not open the idle watchers: {error}")
        return watchers

    def close_idle_watchers(self, watchers, restarts: int) -> None:
        limit = self.arguments.idle_timeout + 15
        for name, sock, opened, hardened_only in watchers:
            if "idle" in self.arguments.skip or self.aborted:
                sock.close()
                continue
            if self.server.generation != restarts:
                sock.close()
                self.report.add(Result("idle-timeout", "any", name, "closed by the idle timeout", "not measured: the server was restarted meanwhile", "info"))
                continue
            wait = opened + limit - time.monotonic()
            if wait > 0:
                print(f"       waiting {wait:.0f} s for the idle timeout to close '{name}'", flush=True)
            closed = False
            answer = b""
            deadline = opened + limit
            # The deadline may have passed during the other probes: look at the socket once anyway.
            sock.setblocking(False)
            try:
                while True:
                    chunk = sock.recv(65536)
                    if not chunk:
                        closed = True
                        break
                    answer += chunk
            except BlockingIOError:
                pass
            except OSError:
                closed = True
            sock.setblocking(True)
            while not closed and time.monotonic() < deadline:
                sock.settimeout(max(0.1, min(5, deadline - time.monotonic())))
                try:
                    chunk = sock.recv(65536)
                except socket.timeout:
                    continue
                except OSError:
                    closed = True
                    break
                if not chunk:
                    closed = True
                    break
                answer += chunk
            sock.close()
            first = answer.split(b"\r\n", 1)[0].decode("latin-1", "replace")
            observed = (f"closed (seen {time.monotonic() - opened:.0f} s after opening)" if closed else f"still open after {time.monotonic() - opened:.0f} s") + (f"; answered {first!r}" if first else "")
            outcome = "pass" if closed else (self.hardened_outcome(False) if hardened_only else "fail")
            self.report.add(Result("idle-timeout", "any", name, f"closed within idle timeout + 15 s ({limit:.0f} s)", observed, outcome,
                                   request=name))

    # -- everything

    def run(self) -> None:
        watchers: list = []
        restarts = 0
        self.rss_start = self.server.rss_mb()
        thread, message = self.make_thread()
        specs = self.endpoint_specs(thread, message)
        self.run_baselines(specs)
        body, content_type = multipart([("model", "whisper-1")], wav())
        self.baseline["upload"] = request(self.server, "POST", "/v1/audio/transcriptions", [("Content-Type", content_type)], body, auth=self.key).status
        groups = [
            ("realtime", self.realtime_group),
            ("realtime-query", self.realtime_query_group),
            ("realtime-stt", self.realtime_transcription_prompt),
            ("origin", self.origin_group),
            ("http-json", lambda: self.json_group(specs)),
            ("http-upload", self.upload_group),
            ("http-ids", lambda: self.ids_group(thread, message)),
            ("http-raw", self.raw_group),
            ("model-setting", self.model_setting_group),
            ("slow", self.slow_group),
            ("connections", self.connections_group),
            ("realtime-flood", self.realtime_flood),
        ]
        bystander = Bystander(self.server, self.arguments.bystander_key, self.arguments.request_timeout) if self.arguments.bystander_key else None
        if bystander:
            bystander.start()
        for name, group in groups:
            if name == "slow" and "idle" not in self.arguments.skip and not self.aborted:
                # Opened after the groups that are likely to crash the server, checked at the end.
                watchers, restarts = self.open_idle_watchers(), self.server.generation
            if name in self.arguments.skip or self.aborted or self.out_of_time():
                continue
            print(f"--- {name}", flush=True)
            group()
        self.close_idle_watchers(watchers, restarts)
        if "realtime-heavy" not in self.arguments.skip and not self.aborted and not self.out_of_time():
            print("--- realtime-heavy", flush=True)
            self.realtime_heavy()
        if bystander:
            self.report.add(bystander.finish())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url", nargs="?", default="http://127.0.0.1:8080", help="a running server (loopback only)")
    parser.add_argument("--api-key", help="a key of PARLEY_API_KEYS, sent as a bearer token")
    parser.add_argument("--bystander-key", help="another key of PARLEY_API_KEYS: its requests run throughout and must all succeed")
    parser.add_argument("--expect-hardened", action="store_true",
                        help="count the checks of issue 42's fixes (Origin/Host 403, idle timeout on Upgrade: h2c, byte-bounded realtime audio, one model-path message) as failures")
    parser.add_argument("--pid", type=int, help="the server's process id, to watch its memory (RSS) in /proc")
    parser.add_argument("--server-cmd", help="start the server here: a command with {port}, e.g. '.build/debug/parley serve --port {port}'")
    parser.add_argument("--startup-timeout", type=float, default=240)
    parser.add_argument("--max-restarts", type=int, default=30, help="with --server-cmd: restarts after crashes before giving up")
    parser.add_argument("--time-limit", type=float, default=1800, help="seconds for the whole run (probes not run by then are skipped)")
    parser.add_argument("--request-timeout", type=float, default=120, help="seconds a well-formed request may take before it counts as a hang")
    parser.add_argument("--idle-timeout", type=float, default=60, help="the server's idle timeout in seconds (ServerConfiguration.idleTimeout)")
    parser.add_argument("--max-rss-growth-mb", type=float, default=1024, help="the most one probe may grow the server's memory")
    parser.add_argument("--max-rss-mb", type=float, default=6144, help="the most the server's memory may be after any probe")
    parser.add_argument("--connections", type=int, default=200, help="idle connections held at once")
    parser.add_argument("--slowloris", type=int, default=50, help="connections with half a header held at once")
    parser.add_argument("--slow-pause", type=float, default=0.05, help="seconds between the bytes of a slow client")
    parser.add_argument("--audio-appends", type=int, default=200)
    parser.add_argument("--audio-append-mb", type=float, default=2, help="PCM per append (before base64; the server takes frames up to 8 MB)")
    parser.add_argument("--flood-seconds", type=float, default=120)
    parser.add_argument("--prompt-sizes", type=lambda text: [int(part) for part in text.split(",")], default=[10 << 10, 100 << 10, 1 << 20],
                        help="realtime transcription prompt sizes in bytes, comma-separated")
    parser.add_argument("--speech-wav", default=os.path.expanduser("~/.local/share/parley/samples/question.wav"),
                        help="a mono 16-bit WAV of speech for the realtime turns (scripts/setup makes this one)")
    parser.add_argument("--heavy-messages", type=int, default=10_000, help="messages in the realtime-heavy probe's response.create input")
    parser.add_argument("--heavy-wait", type=float, default=60, help="seconds another client's chat completion may take meanwhile")
    parser.add_argument("--only", action="append", default=[], help="run only probes whose group, target or name contains this (repeatable)")
    parser.add_argument("--skip", action="append", default=[],
                        help="skip a group: realtime, realtime-query, origin, http-json, http-upload, http-ids, http-raw, model-setting, slow, connections, realtime-flood, idle, realtime-heavy")
    parser.add_argument("--json", help="write every probe (with its exact request) to this file")
    parser.add_argument("--table", help="write the results as a Markdown table to this file")
    arguments = parser.parse_args()

    if not arguments.server_cmd:
        parsed = urllib.parse.urlsplit(arguments.base_url)
        if parsed.scheme != "http" or (parsed.hostname or "") not in LOOPBACK:
            print("hostile_client.py only talks to http://127.0.0.1, http://localhost or http://[::1].", file=sys.stderr)
            return 2
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < arguments.connections + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, arguments.connections + 200), hard))

    server = Server(arguments.base_url, arguments.pid, arguments.server_cmd, arguments.startup_timeout, arguments.max_restarts)
    if not arguments.server_cmd and health(server) != 200:
        print(f"{server.base}/health does not answer 200: start the server first.", file=sys.stderr)
        return 2
    print(f"hostile client against {server.base} (pid {server.pid or 'unknown'}, RSS {server.rss_mb() or 0:.0f} MB)"
          f"{', expecting the hardened behaviour' if arguments.expect_hardened else ''}", flush=True)
    run = Run(arguments, server)
    try:
        run.run()
    except KeyboardInterrupt:
        run.aborted = "interrupted"
    finally:
        if arguments.server_cmd:
            server.stop()
    results = run.report.results
    if run.aborted:
        results.append(Result("run", "-", "aborted", "the run completes", run.aborted, "fail"))
    print()
    print(run.report.table())
    failed = [r for r in results if r.outcome == "fail"]
    info = [r for r in results if r.outcome == "info"]
    if arguments.json:
        with open(arguments.json, "w") as out:
            json.dump([r.__dict__ for r in results], out, indent=1)
    if arguments.table:
        with open(arguments.table, "w") as out:
            out.write(run.report.table() + "\n")
    if failed:
        print("\nfailures:")
        for r in failed:
            print(f"- {r.group} {r.target} {r.probe}: {r.observed}{' — crash: ' + r.crash if r.crash else ''}\n  request: {r.request[:400]}")
    if info:
        print(f"\n{len(info)} checks of the hardened behaviour did not hold (not counted; --expect-hardened counts them)")
    if server.restarts:
        print(f"the server was restarted {server.restarts} times after going down")
    passed = len([r for r in results if r.outcome != "fail"])
    print(f"{passed} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
