"""Who is asking: sign-in for `rates-xl serve` as a team server.

Two ways in, both as `Authorization: Bearer <token>`:

- **The Office single sign-on token** (`Office.auth.getAccessToken`): an OpenID Connect
  access token (a JWT) from the company's identity provider. PyJWT checks it: the signature
  against the provider's published keys (JWKS, fetched and cached by `jwt.PyJWKClient`,
  fetched again when a token names a key we do not know: the provider rotated its keys),
  the issuer, the audience, expiry and not-before (with a small leeway for clocks), and the
  scope the add-in asks for. The algorithm is pinned to RS256: a token saying `none`, or
  HS256 (which would make the public key a shared secret), is refused before any key is
  looked at.
- **A per-user token** issued by the administrator (`rates-xl serve users add NAME`,
  users.py), for a team without single sign-on.

`Authenticator.identify(header)` answers the user's name or raises `SignInRefused` with a
short reason (`expired`, `wrong issuer`, ...): the 401's one line. Nothing here logs or
repeats a token.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from dataclasses import dataclass
from typing import Any

#: The only signature algorithm accepted: what Entra ID and the usual providers sign with.
ALGORITHMS = ("RS256",)
#: Seconds of clock difference tolerated on exp and nbf.
LEEWAY_S = 60.0
#: The scope an Office SSO token carries for our API (Entra: "Expose an API").
DEFAULT_SCOPE = "access_as_user"
#: Seconds between two JWKS fetches caused by unknown key ids: a stream of made-up `kid`s
#: must not turn into a stream of requests to the provider.
REFRESH_COOLDOWN_S = 10.0


class SignInRefused(Exception):
    """The request carries no acceptable sign-in; `str(exc)` is the reason, one line."""


@dataclass(frozen=True)
class OidcSettings:
    """Where tokens come from and what they must say.

    `jwks_url`: the provider's keys; when None they are found through the issuer's discovery
    document (`<issuer>/.well-known/openid-configuration`, its `jwks_uri`).
    `client_id`: the add-in's application (client) id at the provider, for the manifest's
    WebApplicationInfo; `audience` defaults to it (Entra's v2 access tokens carry it as aud).
    """

    issuer: str
    client_id: str
    audience: str | None = None
    jwks_url: str | None = None
    scope: str | None = DEFAULT_SCOPE
    leeway_s: float = LEEWAY_S
    refresh_cooldown_s: float = REFRESH_COOLDOWN_S

    @property
    def expected_audience(self) -> str:
        return self.audience or self.client_id


def discover_jwks_url(issuer: str, timeout: float = 10.0) -> str:
    """The `jwks_uri` of the issuer's OpenID configuration (checked to name the same issuer)."""
    url = issuer.rstrip("/") + "/.well-known/openid-configuration"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (https or loopback)
            config = json.load(response)
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the identity provider's configuration at {url}: {exc}") from None
    if not isinstance(config, dict) or not isinstance(config.get("jwks_uri"), str):
        raise ValueError(f"{url} names no jwks_uri")
    if config.get("issuer", "").rstrip("/") != issuer.rstrip("/"):
        raise ValueError(f"{url} is the configuration of issuer {config.get('issuer')!r}, not {issuer!r}")
    return config["jwks_uri"]


class OidcVerifier:
    """Checks SSO tokens against one provider. Thread-safe; blocking (it may fetch keys)."""

    def __init__(self, settings: OidcSettings) -> None:
        import jwt

        self.settings = settings
        self.jwks_url = settings.jwks_url or discover_jwks_url(settings.issuer)
        # cache_jwk_set: the keys are fetched once per `lifespan`, not per token.
        self._jwks = jwt.PyJWKClient(self.jwks_url, cache_jwk_set=True, lifespan=300, timeout=10)
        self._lock = threading.Lock()
        self._refreshed = float("-inf")

    def _key(self, kid: str | None) -> Any:
        import jwt

        with self._lock:
            try:
                keys = self._jwks.get_signing_keys()
                found = next((k for k in keys if k.key_id == kid), None)
                # An unknown key id: the provider may have rotated its keys since we fetched
                # them. Fetch again, at most once per cooldown (PyJWT's own refetch-on-miss
                # policy differs between versions, so we decide here).
                if found is None and time.monotonic() - self._refreshed >= self.settings.refresh_cooldown_s:
                    self._refreshed = time.monotonic()
                    keys = self._jwks.get_signing_keys(refresh=True)
                    found = next((k for k in keys if k.key_id == kid), None)
            except jwt.PyJWKClientConnectionError:
                raise SignInRefused("the identity provider's keys cannot be fetched") from None
            except jwt.PyJWKClientError:
                raise SignInRefused("the identity provider publishes no usable keys") from None
        if found is None:
            raise SignInRefused("signed with an unknown key")
        return found

    def verify(self, token: str) -> str:
        """The signed-in user's name (preferred_username, upn, email or sub)."""
        import jwt

        try:
            header = jwt.get_unverified_header(token)
        except jwt.DecodeError:
            raise SignInRefused("not a token") from None
        if header.get("alg") not in ALGORITHMS:
            raise SignInRefused(f"algorithm {str(header.get('alg'))[:10]!r} not accepted")
        key = self._key(header.get("kid"))
        try:
            claims = jwt.decode(
                token, key.key, algorithms=list(ALGORITHMS), audience=self.settings.expected_audience,
                issuer=self.settings.issuer, leeway=self.settings.leeway_s,
                options={"require": ["exp", "iss", "aud"]})
        except jwt.ExpiredSignatureError:
            raise SignInRefused("expired") from None
        except jwt.ImmatureSignatureError:
            raise SignInRefused("not yet valid") from None
        except jwt.InvalidIssuerError:
            raise SignInRefused("wrong issuer") from None
        except jwt.InvalidAudienceError:
            raise SignInRefused("wrong audience") from None
        except jwt.InvalidSignatureError:
            raise SignInRefused("bad signature") from None
        except jwt.MissingRequiredClaimError as exc:
            raise SignInRefused(f"no {exc.claim} claim") from None
        except jwt.InvalidTokenError:
            raise SignInRefused("malformed token") from None
        if self.settings.scope and self.settings.scope not in str(claims.get("scp", "")).split():
            raise SignInRefused(f"scope {self.settings.scope} not granted")
        for claim in ("preferred_username", "upn", "email", "sub"):
            name = claims.get(claim)
            if isinstance(name, str) and name:
                return name[:200]
        raise SignInRefused("the token names no user")


class Authenticator:
    """Sign-in by SSO token, by per-user token, or both. At least one must be given."""

    def __init__(self, *, oidc: OidcVerifier | None = None, users: Any = None) -> None:
        if oidc is None and users is None:
            raise ValueError("a team server needs single sign-on settings or per-user tokens")
        self.oidc, self.users = oidc, users

    @property
    def methods(self) -> list[str]:
        return (["sso"] if self.oidc else []) + (["token"] if self.users is not None else [])

    def identify(self, authorization: str | None) -> str:
        """The user's name for an Authorization header, or SignInRefused."""
        if not authorization:
            raise SignInRefused("sign in first (no Authorization header)")
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise SignInRefused("expected Authorization: Bearer <token>")
        if self.users is not None:
            name = self.users.identify(token)
            if name is not None:
                return name
            if self.oidc is None or token.count(".") != 2:
                raise SignInRefused("unknown or revoked token")
        assert self.oidc is not None
        return self.oidc.verify(token)
