"""A stand-in OpenID Connect provider on 127.0.0.1: its own RSA key pairs, its discovery
document and its JWKS over real HTTP, and tokens signed the way Entra ID signs them (RS256,
a `kid` naming the key). `rotate()` replaces the published key, as a provider does."""

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
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if self.path == "/tenant/.well-known/openid-configuration":
                    provider.fetches["config"] += 1
                    body = {"issuer": provider.issuer, "jwks_uri": provider.issuer + "/keys"}
                elif self.path == "/tenant/keys":
                    provider.fetches["jwks"] += 1
                    jwk = RSAAlgorithm.to_jwk(provider.key.public_key(), as_dict=True)
                    body = {"keys": [{**jwk, "kid": provider.kid, "use": "sig", "alg": "RS256"}]}
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

    def rotate(self) -> None:
        self.kid, self.key = new_key()

    def claims(self, **changes: Any) -> dict:
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": CLIENT_ID, "iat": now, "nbf": now, "exp": now + 3600,
                  "sub": "x9Qz", "preferred_username": "alice@corp.example", "scp": "access_as_user"}
        claims.update(changes)
        return {k: v for k, v in claims.items() if v is not None}

    def token(self, key: Any = None, kid: str | None = None, **changes: Any) -> str:
        return jwt.encode(self.claims(**changes), key or self.key, algorithm="RS256",
                          headers={"kid": kid or self.kid})

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
