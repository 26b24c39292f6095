"""A bare TLS connection to a loopback server (no verification), for speaking HTTP, or not,
by hand: what a slow or hostile client does to `rates-xl serve` (tests and bench/serve_load)."""

from __future__ import annotations

import socket
import ssl

# Made once: loading the system's roots takes ~0.1 s (they are not used: no verification).
_CLIENT_TLS = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
_CLIENT_TLS.check_hostname = False
_CLIENT_TLS.verify_mode = ssl.CERT_NONE


def tls_socket(port: int, timeout: float = 10) -> ssl.SSLSocket:
    """A bare TLS connection to the server, for speaking HTTP (or not) by hand."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return _CLIENT_TLS.wrap_socket(raw, server_hostname="localhost")


def is_closed(sock: ssl.SSLSocket) -> bool:
    sock.settimeout(0.05)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except (OSError, ssl.SSLError):
        return True
