"""An HTTPS service on 127.0.0.1 with a certificate from a throwaway CA (trustme), standing in
for the service seen through a company's TLS-inspecting proxy: its root is trusted only by
whoever is told about it. Answers every GET with the fault server's realistic bodies."""

from __future__ import annotations

import contextlib
import json
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from tests.support.faultserver import BODIES


@dataclass
class HttpsService:
    base_url: str
    ca_pem: Path  # the throwaway root, to trust or not
    hits: list[str]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        path = urlsplit(self.path).path
        self.server.hits.append(path)  # type: ignore[attr-defined]
        data = json.dumps(BODIES.get(path, {"service": "rates"})).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, context: ssl.SSLContext) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.context = context
        self.hits: list[str] = []

    def get_request(self):  # the handshake in the handler's thread, not the accept loop
        conn, addr = self.socket.accept()
        return self.context.wrap_socket(conn, server_side=True, do_handshake_on_connect=False), addr

    def finish_request(self, request, client_address) -> None:
        try:
            request.do_handshake()
        except (ssl.SSLError, OSError):
            return  # the client did not trust us: that is what some tests want
        super().finish_request(request, client_address)


@contextlib.contextmanager
def https_service(tmp_path: Path, host: str = "127.0.0.1",
                  names: tuple[str, ...] = ("127.0.0.1", "localhost")) -> Iterator[HttpsService]:
    """`names`: what the certificate is for (another name than `host`: a mismatch)."""
    import trustme

    ca = trustme.CA(organization_name="Example Corp TLS Inspection")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*names).configure_cert(context)
    ca_pem = tmp_path / "company-root.pem"
    ca.cert_pem.write_to_path(str(ca_pem))
    server = _Server(context)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield HttpsService(f"https://{host}:{server.server_address[1]}", ca_pem, server.hits)
    finally:
        server.shutdown()
        server.server_close()
