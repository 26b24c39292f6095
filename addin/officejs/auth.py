"""Who is asking: sign-in for `rates-xl serve` as a team server.

Two ways in, both as `Authorization: Bearer <token>`:

- **The Office single sign-on token** (`Office.auth.getAccessToken`): an OpenID Connect
  access token (a JWT) from the company's identity provider. Its header is read here, once,
  strictly (`read_header`: base64url, UTF-8, a JSON object without repeated members, `alg`
  RS256, `kid` a short string, no `crit`, `b64` or `zip`), so that any malformed token is a
  401 with its reason, never a 500; the algorithm is pinned to RS256: a token saying
  `none`, or HS256 (which would make the public key a shared secret), is refused before any
  key is looked at. The provider's keys come from jwks.py (fetched in the background with
  one deadline and a size cap, at a bounded rate; a known key never waits on the
  provider); PyJWT then checks the signature, the issuer, the audience, expiry and
  not-before (with a small leeway for clocks), and here the scope the add-in asks for.
- **A per-user token** issued by the administrator (`rates-xl serve users add NAME`,
  users.py), for a team without single sign-on.

`Authenticator.identify(header)` answers the user's name or raises `SignInRefused` with a
short reason (`expired`, `wrong issuer`, ...): the 401's one line. Nothing here logs or
repeats a token.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
from dataclasses import dataclass
from typing import Any

from rates_xl.addin.officejs import jwks
from rates_xl.errors import Refusal

log = logging.getLogger("rates_xl.addin.officejs")

#: The only signature algorithm accepted: what Entra ID and the usual providers sign with.
ALGORITHMS = ("RS256",)
#: Seconds of clock difference tolerated on exp and nbf.
LEEWAY_S = 60.0
#: The scope an Office SSO token carries for our API (Entra: "Expose an API").
DEFAULT_SCOPE = "access_as_user"
#: Seconds between two fetches of the provider's keys, whatever asks for them (their age,
#: a token naming a key we do not know, a failed fetch): a stream of made-up `kid`s must not
#: turn into a stream of requests to the provider.
REFRESH_COOLDOWN_S = 10.0
#: Characters of a token, and of its header's key id: Entra's access tokens are 1 to 3 kB
#: (more with many group claims); a key id is a few dozen characters.
MAX_TOKEN = 16_384
MAX_KID = 256
_B64URL = re.compile(r"^[A-Za-z0-9_-]+$")
#: Header members that change what the signature covers or how the token reads (RFC 7515
#: 4.1.11 `crit`, RFC 7797 `b64`, JWE's `zip`): none of them is used by the providers we
#: accept, and a verifier that ignored one would read the token differently from its signer.
REFUSED_MEMBERS = ("crit", "b64", "zip")


class SignInRefused(Refusal):
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
    #: One fetch of the discovery document or the keys: seconds in all, and bytes at most.
    fetch_deadline_s: float = jwks.DEADLINE_S
    max_jwks_bytes: int = jwks.MAX_BYTES
    #: Seconds after which keys in use are fetched again, in the background.
    keys_max_age_s: float = jwks.MAX_AGE_S

    @property
    def expected_audience(self) -> str:
        return self.audience or self.client_id


def discover_jwks_url(issuer: str, deadline_s: float = jwks.DEADLINE_S,
                      max_bytes: int = jwks.MAX_BYTES) -> str:
    """The `jwks_uri` of the issuer's OpenID configuration (checked to name the same issuer),
    fetched within one deadline and a size cap; every URL read with the one URL parser."""
    url = issuer.rstrip("/") + "/.well-known/openid-configuration"
    try:
        fetch = jwks.Fetcher(url, deadline_s=deadline_s, max_bytes=max_bytes)
        try:
            config = fetch()
        finally:
            fetch.close()
    except jwks.ProviderError as exc:
        raise ValueError(f"cannot read the identity provider's configuration at {url}: {exc}") from None
    if not isinstance(config, dict) or not isinstance(config.get("jwks_uri"), str):
        raise ValueError(f"{url} names no jwks_uri")
    if not isinstance(config.get("issuer"), str) or config["issuer"].rstrip("/") != issuer.rstrip("/"):
        raise ValueError(f"{url} is the configuration of issuer {str(config.get('issuer'))[:200]!r}, not {issuer!r}")
    problem = jwks.provider_url_problem(config["jwks_uri"])
    if problem:
        raise ValueError(f"{url} names a jwks_uri that {problem}")
    return config["jwks_uri"]


def _printable(value: Any) -> str:
    """Text from a token fit for a one-line reason and an HTTP header: printable ASCII."""
    return re.sub(r"[^\x20-\x7e]", "?", str(value))


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        # Parsers disagree on which of two `alg`s counts: refuse rather than pick one.
        raise ValueError("a header member given twice")
    return dict(pairs)


def read_header(token: str) -> dict[str, Any]:
    """The header of a compact JWS, read strictly; SignInRefused (with the reason) for any
    token that is not one RS256 JWS naming its key."""
    if len(token) > MAX_TOKEN:
        raise SignInRefused("the token is too long")
    parts = token.split(".")
    # An empty signature is read on, so that an unsigned token is refused for its `alg`.
    if len(parts) != 3 or not all(_B64URL.match(part) for part in parts[:2]) or not (
            parts[2] == "" or _B64URL.match(parts[2])):
        raise SignInRefused("not a token")
    try:
        text = base64.urlsafe_b64decode(parts[0] + "=" * (-len(parts[0]) % 4)).decode("utf-8")
        header = json.loads(text, object_pairs_hook=_unique_members)
    except (binascii.Error, UnicodeDecodeError, ValueError, RecursionError):
        raise SignInRefused("malformed token header") from None
    if not isinstance(header, dict):
        raise SignInRefused("malformed token header")
    alg = header.get("alg")
    if not isinstance(alg, str):
        raise SignInRefused("the token names no algorithm (alg)")
    if alg not in ALGORITHMS:
        raise SignInRefused(f"algorithm {_printable(alg[:10])!r} not accepted")
    for name in REFUSED_MEMBERS:
        if name in header:
            raise SignInRefused(f"header parameter {name!r} not accepted")
    kid = header.get("kid")
    if not isinstance(kid, str) or not 0 < len(kid) <= MAX_KID:
        raise SignInRefused("the token names no usable key (kid)")
    return header


class OidcVerifier:
    """Checks SSO tokens against one provider. Thread-safe; a known key never waits on the
    provider (jwks.KeySet)."""

    def __init__(self, settings: OidcSettings) -> None:
        problem = jwks.provider_url_problem(settings.issuer)
        if problem:
            raise ValueError(f"the issuer {settings.issuer[:200]!r} {problem}")
        self.settings = settings
        self.jwks_url = settings.jwks_url or discover_jwks_url(
            settings.issuer, settings.fetch_deadline_s, settings.max_jwks_bytes)
        try:
            fetch = jwks.Fetcher(self.jwks_url, deadline_s=settings.fetch_deadline_s,
                                 max_bytes=settings.max_jwks_bytes)
        except jwks.ProviderError as exc:
            raise ValueError(f"the JWKS URL {exc}") from None
        self.keys = jwks.KeySet(fetch, deadline_s=settings.fetch_deadline_s,
                                min_interval_s=settings.refresh_cooldown_s, max_age_s=settings.keys_max_age_s)
        self.keys.prefetch()

    def verify(self, token: str) -> str:
        """The signed-in user's name (preferred_username, upn, email or sub)."""
        import jwt

        header = read_header(token)
        try:
            key = self.keys.key(header["kid"])
        except jwks.KeysUnavailable:
            raise SignInRefused("the identity provider's keys cannot be fetched") from None
        if key is None:
            raise SignInRefused("signed with an unknown key")
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
            raise SignInRefused(f"no {_printable(exc.claim)[:40]} claim") from None
        except jwt.InvalidTokenError:
            raise SignInRefused("malformed token") from None
        except Exception as exc:  # noqa: BLE001 (whatever a crafted token trips in a library: a 401, not a 500)
            log.debug("sign-in: a token PyJWT could not read (%s)", type(exc).__name__)
            raise SignInRefused("malformed token") from None
        scopes = claims.get("scp")
        if self.settings.scope and not (isinstance(scopes, str) and self.settings.scope in scopes.split()):
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
