"""A fault-injecting HTTP server on 127.0.0.1 for the client tests.

Each request is answered by `server.responder(request) -> Reply`; the default answers 200
with a realistic body for the path. Every arrival is recorded (time, path, query, headers)
so tests can check what the client sent and how fast. `TrickleRelay` (a TCP relay that
passes the server's bytes one at a time, its TLS handshake included) and `TricklingProxy`
(a proxy that answers CONNECT a byte at a time) slow down what comes before any HTTP.
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

BODIES = {
    "/v1/swap_rate": {
        "index": "SOFR", "start_date": "2026-04-03", "maturity_date": "2031-04-03",
        "fixed_leg_first_payment_date": "2027-04-07", "floating_leg_first_payment_date": "2027-04-07",
        "floating_leg_frequency": "12M", "floating_leg_day_count": "Actual360",
        "fixed_leg_frequency": "12M", "fixed_leg_day_count": "Actual360",
        "valuation_time": "2026-04-01T16:00:00Z", "swap_rate": 3.6412, "timestamp": "x",
    },
    "/v1/get_swap_curve": {
        "index_name": "6M EURIBOR", "start_date": "2025-12-03", "floating_leg_frequency": "6M",
        "floating_leg_day_count": "Actual360", "fixed_leg_frequency": "12M",
        "fixed_leg_day_count": "Thirty360BondBasis", "valuation_time": "2025-12-01T16:00:00Z",
        "timestamp": "2025-12-01T16:00:00Z",
        "swap_rates": [
            {"tenor": "1Y", "swap_rate": 2.21, "timestamp": "2025-12-01T16:00:00Z"},
            {"tenor": "2Y", "swap_rate": 2.30}, {"tenor": "5Y", "swap_rate": 2.58},
            {"tenor": "10Y", "swap_rate": 2.90}, {"tenor": "30Y", "swap_rate": 3.20},
        ],
    },
    "/v1/forward_rate": {
        "index": "SOFR", "start_date": "2026-07-01", "end_date": "2026-10-01",
        "valuation_time": "2026-04-01T16:00:00Z", "forward_rate": 3.512,
    },
    "/v1/discount_factor": {
        "index": "SOFR", "date": "2027-05-03", "valuation_time": "2026-04-01T16:00:00Z",
        "discount_factor": 0.960977,
    },
    "/v1/fx": {"currency_pair": "EURUSD", "valuation_time": "2026-04-01T16:00:00Z", "rate": 1.17732},
    "/v1/fx_forward": {
        "currency_pair": "EURUSD", "date": "2026-05-01", "rate": 1.178947, "spot_rate": 1.17732,
        "forward_diff": 0.001627, "premium": 0.14, "days_forward": 30,
    },
    "/v1/gov_yield": {
        "country_code": "US", "tenor": "10Y", "valuation_time": "2026-04-01T16:00:00Z",
        "yield": 0.0419, "maturity": "2036-04-01", "forward_start": None,
    },
    "/v1/forward_curve": {
        "start_date": "2026-04-03", "end_date": "2027-04-03", "index": "SOFR", "tenor": "3M",
        "valuation_time": "2026-04-01T16:00:00Z", "is_end_of_month": False, "frequency": "3M",
        "curve": [
            {"start_date": "2026-04-03", "end_date": "2026-07-03", "forward_rate": 3.61},
            {"start_date": "2026-07-03", "end_date": "2026-10-05", "forward_rate": 3.55},
        ],
    },
    "/v1/discount_curve": {
        "start_date": "2026-04-03", "end_date": "2027-04-03", "index": "SOFR",
        "valuation_time": "2026-04-01T16:00:00Z", "is_end_of_month": False, "frequency": "6M",
        "curve": [
            {"date": "2026-04-03", "discount_factor": 0.9998},
            {"date": "2026-10-05", "discount_factor": 0.9823},
        ],
    },
    "/v1/fixing": {
        "index": "SOFR", "valuation_date": "2025-12-01", "fixing_rate": 4.35, "fixing_date": "2025-12-01",
    },
    "/v1/historical_swap_rates": {
        "index_name": "SOFR", "currency": "USD", "fixed_leg_day_count": "Actual360",
        "floating_leg_day_count": "Actual360", "fixed_leg_frequency": "12M",
        "floating_leg_frequency": "12M",
        "swap_rates": [
            {"rate": 3.61, "date": "2026-03-02", "tenor": "5Y"},
            {"rate": 3.64, "date": "2026-03-03", "tenor": "5Y"},
        ],
    },
    "/v1/swap_rate_tenors": {"index": "SOFR", "tenors": ["1Y", "2Y", "5Y", "10Y", "30Y"]},
}


#: The numbers a cell shows, by field name (`poisoned` replaces one of them).
CELL_NUMBERS = ("swap_rate", "forward_rate", "discount_factor", "rate", "yield", "fixing_rate")


def poisoned(path: str, literal: str) -> str | None:
    """The realistic body for `path` as JSON text, with the number a cell shows (in a curve,
    table or history: the last point's) written as `literal` (`NaN`, `Infinity`, `1e999`,
    which Python's and JavaScript's JSON parsers read as numbers); None for a path whose
    answer holds no number (the tenor list)."""
    body = json.loads(json.dumps(BODIES[path]))

    def mark(node) -> bool:
        if isinstance(node, list):
            return any(mark(item) for item in reversed(node))
        if isinstance(node, dict):
            for key, value in node.items():
                if key in CELL_NUMBERS and isinstance(value, float):
                    node[key] = "__POISON__"
                    return True
            return any(mark(value) for value in node.values() if isinstance(value, list | dict))
        return False

    if not mark(body):
        return None
    return json.dumps(body).replace('"__POISON__"', literal)


@dataclass
class Reply:
    status: int = 200
    body: str | bytes | dict | None = None  # None: the realistic body for the path
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    reset: bool = False  # drop the connection without answering
    # A body written piece by piece: `chunks()` yields the pieces, `pause` seconds apart.
    # Sent chunked unless `headers` declare a Content-Length; with `raw`, the pieces are the
    # whole answer, status line and headers included (to trickle the headers themselves).
    chunks: Callable[[], Iterable[bytes]] | None = None
    pause: float = 0.0
    raw: bool = False


@dataclass(frozen=True)
class Arrival:
    at: float  # time.monotonic()
    path: str
    query: dict[str, str]
    headers: dict[str, str]


class FaultServer:
    """`tls`: a server-side SSL context to speak HTTPS with (base_url is then https://)."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.arrivals: list[Arrival] = []
        self._lock = threading.Lock()
        self.responder: Callable[[Arrival], Reply] = lambda arrival: Reply()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                parts = urlsplit(self.path)
                arrival = Arrival(
                    time.monotonic(), parts.path, dict(parse_qsl(parts.query)),
                    {k.lower(): v for k, v in self.headers.items()},
                )
                with server._lock:
                    server.arrivals.append(arrival)
                reply = server.responder(arrival)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.reset:
                    # SO_LINGER 0: close with RST, as a crashed proxy would.
                    self.connection.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                    )
                    self.connection.close()
                    self.close_connection = True
                    return
                if reply.chunks is not None:
                    self._send_pieces(reply)
                    return
                body = reply.body if reply.body is not None else BODIES.get(parts.path, {})
                if isinstance(body, dict | list):
                    body = json.dumps(body)
                data = body.encode() if isinstance(body, str) else body
                self.send_response(reply.status)
                headers = {"Content-Type": "application/json", **reply.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): that is what the test wanted

            def _send_pieces(self, reply: Reply) -> None:
                chunked = not reply.raw and "Content-Length" not in reply.headers
                if not reply.raw:
                    self.send_response(reply.status)
                    headers = {"Content-Type": "application/json", **reply.headers}
                    if chunked:
                        headers["Transfer-Encoding"] = "chunked"
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.flush()
                try:
                    for piece in reply.chunks():
                        self.wfile.write(b"%x\r\n%b\r\n" % (len(piece), piece) if chunked else piece)
                        self.wfile.flush()
                        if reply.pause:
                            time.sleep(reply.pause)
                    if chunked:
                        self.wfile.write(b"0\r\n\r\n")
                except OSError:  # the client hung up: what the tests want to see
                    pass
                self.close_connection = True

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 128

            def get_request(self):  # with TLS: the handshake in the handler's thread
                conn, addr = self.socket.accept()
                if tls is None:
                    return conn, addr
                return tls.wrap_socket(conn, server_side=True, do_handshake_on_connect=False), addr

            def finish_request(self, request, client_address) -> None:
                if tls is not None:
                    try:
                        request.do_handshake()
                    except (ssl.SSLError, OSError):
                        return
                super().finish_request(request, client_address)

        self._httpd = Server(("127.0.0.1", 0), Handler)
        scheme = "https" if tls is not None else "http"
        self.base_url = f"{scheme}://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def count(self, path: str | None = None) -> int:
        with self._lock:
            return sum(1 for a in self.arrivals if path is None or a.path == path)

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class TrickleRelay:
    """A TCP relay on 127.0.0.1 in front of `target` that passes what the client sends at
    once and what the server sends one byte every `pause` seconds: valid bytes, slowly, as a
    server trickling its TLS handshake would send them."""

    def __init__(self, target: str, pause: float = 0.2) -> None:
        self._target = ("127.0.0.1", int(target.rsplit(":", 1)[1]))
        self._pause = pause
        self._closed = threading.Event()
        self._sockets: list[socket.socket] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self._target)
            self._sockets += [client, server]
            threading.Thread(target=self._pipe, args=(client, server, 0.0), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, self._pause), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, pause: float) -> None:
        try:
            while not self._closed.is_set() and (data := source.recv(65536)):
                for piece in ([data[i:i + 1] for i in range(len(data))] if pause else [data]):
                    sink.sendall(piece)
                    if self._closed.wait(pause):
                        return
        except OSError:
            pass  # a side hung up

    def close(self) -> None:
        self._closed.set()
        self._listener.close()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.close()


class TricklingProxy:
    """An HTTP proxy on 127.0.0.1 that reads a CONNECT and answers it one byte every `pause`
    seconds, with a long header, as a slow or hostile company proxy could."""

    ANSWER = b"HTTP/1.1 200 Connection established\r\nX-Slow: " + b"y" * 500 + b"\r\n\r\n"

    def __init__(self, pause: float = 0.2) -> None:
        self._pause = pause
        self._closed = threading.Event()
        self._sockets: list[socket.socket] = []
        self.connects = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            self._sockets.append(conn)
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        try:
            request = b""
            while b"\r\n\r\n" not in request and (data := conn.recv(4096)):
                request += data
            if request.startswith(b"CONNECT "):
                self.connects += 1
            for i in range(len(self.ANSWER)):
                conn.sendall(self.ANSWER[i:i + 1])
                if self._closed.wait(self._pause):
                    return
        except OSError:
            pass  # the client hung up

    def close(self) -> None:
        self._closed.set()
        self._listener.close()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.close()
