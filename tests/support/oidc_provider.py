"""A stand-in OpenID Connect provider on 127.0.0.1: its own RSA key pairs, its discovery
document and its JWKS over real HTTP, and tokens signed the way Entra ID signs them (RS256,
a `kid` naming the key). `rotate()` replaces the published key, as a provider does.

A provider can also misbehave: `trickle(pause)` sends its JWKS one byte every `pause`
seconds after the headers; `huge(mb, declared)` sends a JWKS of `mb` megabytes (its one real
key at the end), with its length declared or without one. `active` counts the JWKS answers
being sent at this moment; `stop()` ends any still trickling."""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLIENT_ID = "5d8f3a9e-7c21-4b6a-9e0f-2a1b3c4d5e6f"


def new_key() -> tuple[str, Any]:
    return uuid.uuid4().hex[:16], rsa.generate_private_key(public_exponent=65537, key_size=2048)


class Provider:
    def __init__(self) -> None:
        self.kid, self.key = new_key()
        self.fetches = {"config": 0, "jwks": 0}
        self.active = 0
        self.config_changes: dict = {}  # members that replace the discovery document's own
        self._mode: tuple = ("normal",)
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self.path == "/tenant/.well-known/openid-configuration":
                    provider.fetches["config"] += 1
                    body = {"issuer": provider.issuer, "jwks_uri": provider.issuer + "/keys",
                            **provider.config_changes}
                elif self.path == "/tenant/keys":
                    with provider._lock:
                        provider.fetches["jwks"] += 1
                        provider.active += 1
                    try:
                        provider._send_jwks(self)
                    finally:
                        with provider._lock:
                            provider.active -= 1
                    return
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.httpd.server_address[1]}/tenant"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def jwk(self) -> dict:
        jwk = RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {**jwk, "kid": self.kid, "use": "sig", "alg": "RS256"}

    def trickle(self, pause: float) -> None:
        self._mode = ("trickle", pause)

    def huge(self, mb: int, declared: bool) -> None:
        self._mode = ("huge", mb, declared)

    def normal(self) -> None:
        self._mode = ("normal",)

    def _send_jwks(self, handler: BaseHTTPRequestHandler) -> None:
        mode = self._mode
        real = json.dumps({"keys": [self.jwk()]}).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        try:
            if mode[0] == "huge":
                # Junk keys (symmetric, which a verifier must skip) up to `mb` MB, then ours.
                junk = json.dumps({"kty": "oct", "kid": "junk", "k": "A" * 4000}).encode() + b","
                count = mode[1] * 2**20 // len(junk)
                tail = json.dumps(self.jwk()).encode() + b"]}"
                if mode[2]:
                    body_size = len(b'{"keys":[') + count * len(junk) + len(tail)
                    handler.send_header("Content-Length", str(body_size))
                handler.end_headers()
                handler.wfile.write(b'{"keys":[')
                batch = junk * 16
                for _ in range(count // 16):
                    if self._stopped.is_set():
                        return
                    handler.wfile.write(batch)
                handler.wfile.write(junk * (count % 16) + tail)
                return
            handler.send_header("Content-Length", str(len(real)))
            handler.end_headers()
            if mode[0] == "trickle":
                for i in range(len(real)):
                    handler.wfile.write(real[i:i + 1])
                    handler.wfile.flush()
                    if self._stopped.wait(mode[1]):
                        return
            else:
                handler.wfile.write(real)
        except OSError:
            pass  # the verifier hung up: what a bounded fetch does

    def rotate(self) -> None:
        self.kid, self.key = new_key()

    def claims(self, **changes: Any) -> dict:
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": CLIENT_ID, "iat": now, "nbf": now, "exp": now + 3600,
                  "sub": "x9Qz", "preferred_username": "alice@corp.example", "scp": "access_as_user"}
        claims.update(changes)
        return {k: v for k, v in claims.items() if v is not None}

    def token(self, key: Any = None, kid: str | None = None, headers_extra: dict | None = None,
              **changes: Any) -> str:
        return jwt.encode(self.claims(**changes), key or self.key, algorithm="RS256",
                          headers={"kid": kid or self.kid, **(headers_extra or {})})

    def stop(self) -> None:
        self._stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()
