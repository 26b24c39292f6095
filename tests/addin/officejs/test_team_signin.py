"""Sign-in never waits on the identity provider for long, and no token makes it fail
(issue 27, point 3). Against the stand-in provider on loopback (tests/support/oidc_provider.py)
made to trickle its JWKS a byte at a time, or to send tens of megabytes of it:

- a known key is served while a refresh trickles in; a cold start waits at most the fetch's
  deadline, and many sign-ins then cause one fetch, not one each;
- unknown key ids cannot force refreshes (at most one per `refresh_cooldown_s`);
- a huge JWKS is refused at the size cap, unread (declared) or read no further (chunked):
  the memory a sign-in costs stays a few times the cap;
- every malformed token (its header fuzzed: `kid` an object, a `crit`, a non-Latin-1 `alg`,
  repeated members, broken base64, ...) is a 401 with a reason, never a 500.

No timed assertion: each wait is bounded by a join whose margin is the mechanism's own
deadline several times over, and what is asserted is the order of events (an answer while
the provider is still sending).
"""

from __future__ import annotations

import base64
import json
import threading
import time
import tracemalloc

import pytest

pytest.importorskip("jwt", reason="PyJWT is not installed (pip install -e '.[officejs]')")

import jwt  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rates_xl.addin.officejs.auth import OidcSettings, OidcVerifier, SignInRefused  # noqa: E402
from tests.addin.officejs.test_team_auth import CALLS, bearer  # noqa: E402
from tests.support.faultserver import FaultServer  # noqa: E402
from tests.support.oidc_provider import CLIENT_ID, new_key  # noqa: E402

#: The fetch deadline these tests give the verifier (the default is 5 s).
DEADLINE_S = 1.0
#: A join's bound: the deadline, several times over (a busy machine), never a figure to meet.
JOIN_S = 10 * DEADLINE_S + 5


def verifier_for(provider, **options) -> OidcVerifier:
    options.setdefault("refresh_cooldown_s", 0.0)
    options.setdefault("fetch_deadline_s", DEADLINE_S)
    return OidcVerifier(OidcSettings(issuer=provider.issuer, client_id=CLIENT_ID, **options))


class Attempt(threading.Thread):
    """verify(token) on a thread of its own: its outcome, and whether the provider was still
    sending keys when it ended."""

    def __init__(self, verifier: OidcVerifier, token: str, provider) -> None:
        super().__init__(daemon=True)
        self.verifier, self.token, self.provider = verifier, token, provider
        self.outcome: str | None = None
        self.provider_busy_at_end: bool | None = None
        self.start()

    def run(self) -> None:
        try:
            self.outcome = "user " + self.verifier.verify(self.token)
        except SignInRefused as exc:
            self.outcome = f"refused: {exc}"
        except Exception as exc:  # noqa: BLE001 (a test must see it, not lose it on a thread)
            self.outcome = f"raised {type(exc).__name__}"
        self.provider_busy_at_end = self.provider.active > 0

    def result(self) -> str:
        self.join(JOIN_S)
        assert not self.is_alive(), "a sign-in waited on the provider without bound"
        return self.outcome


def wait_until(condition, bound: float = JOIN_S) -> None:
    ends = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < ends, "the provider never saw the fetch"
        time.sleep(0.01)


def test_a_known_key_is_served_while_a_refresh_trickles_in(provider):
    verifier = verifier_for(provider)
    good = provider.token()
    assert Attempt(verifier, good, provider).result() == "user alice@corp.example"
    provider.trickle(0.05)  # a 600-byte JWKS in 30 s: far past the fetch's deadline
    _, other_key = new_key()
    unknown = Attempt(verifier, provider.token(key=other_key, kid="rotated-in"), provider)
    wait_until(lambda: provider.active == 1)  # the refresh it started is trickling in
    known = [Attempt(verifier, good, provider) for _ in range(20)]
    outcomes = [attempt.result() for attempt in known]
    assert outcomes == ["user alice@corp.example"] * 20
    # ...answered while the provider was still sending: none of them waited for it.
    assert all(attempt.provider_busy_at_end for attempt in known)
    # The sign-in that started the refresh waited for it, up to the fetch's deadline only.
    assert unknown.result() == "refused: signed with an unknown key"
    assert provider.fetches["jwks"] == 2


def test_a_cold_start_behind_a_trickled_jwks_waits_at_most_the_deadline_once(provider):
    provider.trickle(0.05)
    verifier = verifier_for(provider, refresh_cooldown_s=0.5)  # its first fetch starts now
    attempts = [Attempt(verifier, provider.token(), provider) for _ in range(10)]
    outcomes = {attempt.result() for attempt in attempts}
    assert outcomes == {"refused: the identity provider's keys cannot be fetched"}
    assert provider.fetches["jwks"] == 1  # ten sign-ins, one fetch
    provider.normal()
    time.sleep(0.6)  # the cooldown
    assert Attempt(verifier, provider.token(), provider).result() == "user alice@corp.example"
    assert provider.fetches["jwks"] == 2


def test_unknown_key_ids_cannot_force_refreshes(provider):
    verifier = verifier_for(provider, refresh_cooldown_s=1.0)
    good = provider.token()
    assert Attempt(verifier, good, provider).result() == "user alice@corp.example"
    _, other_key = new_key()
    started = time.monotonic()
    made_up = [Attempt(verifier, provider.token(key=other_key, kid=f"made-up-{i}"), provider) for i in range(200)]
    assert {attempt.result() for attempt in made_up} == {"refused: signed with an unknown key"}
    elapsed = time.monotonic() - started
    # The first fetch, then at most one per cooldown while they came (and one at its edge).
    assert provider.fetches["jwks"] <= 1 + int(elapsed / 1.0) + 1, (provider.fetches, elapsed)
    assert Attempt(verifier, good, provider).result() == "user alice@corp.example"


@pytest.mark.parametrize("declared", [True, False], ids=["length declared", "chunked"])
def test_a_huge_jwks_is_refused_at_the_cap_and_memory_stays_bounded(provider, declared):
    cap = 1 << 20
    verifier = verifier_for(provider, max_jwks_bytes=cap, refresh_cooldown_s=0.0)
    good = provider.token()
    assert Attempt(verifier, good, provider).result() == "user alice@corp.example"
    provider.huge(60, declared)  # 60 MB, its real key last
    _, other_key = new_key()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        refused = Attempt(verifier, provider.token(key=other_key, kid="rotated-in"), provider).result()
        known = Attempt(verifier, good, provider).result()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert refused == "refused: signed with an unknown key" and known == "user alice@corp.example"
    assert "larger than 1 MB" in verifier.keys.last_error, verifier.keys.last_error
    # The body is read 64 kB at a time up to the cap, then decoded once: a few caps at most.
    # (Before: the 60 MB were read and parsed whole, 206 MB.)
    assert peak < 8 * cap, f"{peak / 2**20:.1f} MB traced"


# -- malformed tokens: a 401 with a reason, never a 500 -----------------------------------------

def b64(data: bytes | str | dict) -> str:
    raw = json.dumps(data).encode() if isinstance(data, dict) else data.encode() if isinstance(data, str) else data
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def malformed(provider) -> dict[str, str]:
    """Tokens whose header (or shape) is wrong in one way each."""
    good = provider.token()
    _, payload, signature = good.split(".")
    kid = provider.kid

    def with_header(header: dict | str | bytes) -> str:
        return f"{b64(header)}.{payload}.{signature}"

    return {
        "kid an object": with_header({"alg": "RS256", "kid": {"a": 1}}),
        "kid a list": with_header({"alg": "RS256", "kid": [kid]}),
        "kid a number": with_header({"alg": "RS256", "kid": 7}),
        "kid null": with_header({"alg": "RS256", "kid": None}),
        "kid empty": with_header({"alg": "RS256", "kid": ""}),
        "kid 10,000 characters": with_header({"alg": "RS256", "kid": "k" * 10000}),
        "no kid": with_header({"alg": "RS256"}),
        "crit": with_header({"alg": "RS256", "kid": kid, "crit": ["exp"]}),
        "crit empty": with_header({"alg": "RS256", "kid": kid, "crit": []}),
        "crit not a list": with_header({"alg": "RS256", "kid": kid, "crit": "b64"}),
        "b64 false": with_header({"alg": "RS256", "kid": kid, "b64": False, "crit": ["b64"]}),
        "b64 false, no crit": with_header({"alg": "RS256", "kid": kid, "b64": False}),
        "zip": with_header({"alg": "RS256", "kid": kid, "zip": "DEF"}),
        "alg non-Latin-1": with_header({"alg": "RS256\u0436", "kid": kid}),
        "alg Cyrillic S": with_header({"alg": "R\u0405256", "kid": kid}),
        "alg with a newline": with_header({"alg": "RS256\r\nX-Evil: 1", "kid": kid}),
        "alg an object": with_header({"alg": {"RS256": 1}, "kid": kid}),
        "alg a list": with_header({"alg": ["RS256"], "kid": kid}),
        "alg null": with_header({"alg": None, "kid": kid}),
        "alg lower case": with_header({"alg": "rs256", "kid": kid}),
        "alg none": f"{b64({'alg': 'none', 'kid': kid})}.{payload}.",
        "alg ES256": with_header({"alg": "ES256", "kid": kid}),
        "alg PS256": with_header({"alg": "PS256", "kid": kid}),
        "no alg": with_header({"kid": kid}),
        "alg twice (none, then RS256)": with_header('{"alg":"none","alg":"RS256","kid":"' + kid + '"}'),
        "kid twice": with_header('{"alg":"RS256","kid":"x","kid":"' + kid + '"}'),
        "header a list": with_header('["RS256"]'),
        "header a string": with_header('"RS256"'),
        "header a number": with_header("1e999"),
        "header NaN": with_header('{"alg":"RS256","kid":NaN}'),
        "header deeply nested": with_header('{"alg":"RS256","kid":' + "[" * 100000 + "]" * 100000 + "}"),
        "header not JSON": with_header("{alg:RS256}"),
        "header not UTF-8": with_header(b'{"alg":"RS256","kid":"\xff\xfe"}'),
        "header Latin-1 bytes": with_header('{"alg":"RS256","kid":"caf\u00e9"}'.encode("latin-1")),
        "header empty": f".{payload}.{signature}",
        "header bad base64 (length 1 mod 4)": f"abcde.{payload}.{signature}",
        "header with padding": f"{b64({'alg': 'RS256', 'kid': kid})}==.{payload}.{signature}",
        "header in standard base64 (+/)": f"{b64({'alg': 'RS256', 'kid': kid})}+/.{payload}.{signature}",
        "two parts": f"{b64({'alg': 'RS256', 'kid': kid})}.{payload}",
        "four parts": f"{good}.{signature}",
        "a space inside": good[:20] + " " + good[20:],
        "non-ASCII inside": good[:20] + "\u00e9" + good[20:],
        "only dots": "..",
        "100 kB": "a" * 100_000 + "." + payload + "." + signature,
        "payload a list": f"{b64({'alg': 'RS256', 'kid': kid})}.{b64('[1]')}.{signature}",
        "payload not base64": f"{b64({'alg': 'RS256', 'kid': kid})}.@@@.{signature}",
        "signature not base64": f"{b64({'alg': 'RS256', 'kid': kid})}.{payload}.@@@",
        "jwk embedded (a key of the attacker's)": jwt.encode(
            provider.claims(), new_key()[1], algorithm="RS256",
            headers={"kid": kid, "jwk": {"kty": "RSA", "n": "AQAB", "e": "AQAB"}}),
    }


def test_every_malformed_token_is_refused_with_a_reason_in_process(provider):
    verifier = verifier_for(provider, refresh_cooldown_s=300.0)
    assert verifier.verify(provider.token()) == "alice@corp.example"
    for case, token in malformed(provider).items():
        with pytest.raises(SignInRefused) as refused:
            verifier.verify(token)
        reason = str(refused.value)
        assert reason and "\n" not in reason and len(reason) < 200, (case, reason)
        assert all(" " <= c <= "~" for c in reason), (case, reason)
    assert provider.fetches["jwks"] <= 2  # none of them made the verifier fetch more


def test_every_malformed_token_is_a_401_over_http_never_a_500(team_server, provider):
    served = team_server(cooldown=300.0)
    assert served.batch(CALLS, headers=bearer(provider.token())).status_code == 200
    for case, token in malformed(provider).items():
        if any(ord(c) > 0x7E for c in token):
            token = token.encode("utf-8").decode("latin-1")  # what arrives on the wire
        if len(token) > 16_000:  # past uvicorn's header limit: refused (400 or closed) before the app
            continue
        response = served.batch(CALLS, headers=bearer(token))
        assert response.status_code == 401, (case, response.status_code, response.text[:200])
        assert response.json()["detail"].startswith("sign-in refused: "), case
        assert response.headers["www-authenticate"].isascii(), case
    assert len(served.sandbox.arrivals) == 2  # only the good batch reached the service


def test_a_validly_signed_token_pointing_at_other_keys_uses_ours(provider):
    """`jku` and `x5u` in a token's header name where to fetch its key: never fetched."""
    elsewhere = FaultServer()
    try:
        verifier = verifier_for(provider)
        token = provider.token(headers_extra={"jku": elsewhere.base_url + "/keys",
                                              "x5u": elsewhere.base_url + "/cert"})
        assert verifier.verify(token) == "alice@corp.example"
        assert elsewhere.count() == 0
    finally:
        elsewhere.stop()


def test_the_issuer_and_the_keys_url_are_read_as_one_place(provider):
    """The issuer, the discovery document's jwks_uri and a configured JWKS URL pass the one
    URL parser (client/urls.py) and must be https (http on loopback only)."""
    port = provider.issuer.split(":")[2].split("/")[0]
    for issuer in (f"http://127.0.0.1:{port}\\@evil.example/tenant", f"http://user@127.0.0.1:{port}/tenant",
                   f"http://127.1:{port}/tenant", "http://login.example.com/tenant"):
        with pytest.raises(ValueError) as refused:
            OidcVerifier(OidcSettings(issuer=issuer, client_id=CLIENT_ID))
        assert "the issuer" in str(refused.value), issuer
    for jwks_uri in (f"http://127.0.0.1:{port}\\@evil.example/keys", "http://keys.example.com/keys",
                     f"http://127.0.0.1:{port}/keys\t"):
        provider.config_changes = {"jwks_uri": jwks_uri}
        with pytest.raises(ValueError) as refused:
            verifier_for(provider)
        assert "names a jwks_uri that" in str(refused.value), jwks_uri
    provider.config_changes = {}
    with pytest.raises(ValueError):
        verifier_for(provider, jwks_url="https://user:pw@keys.example.com/keys")
    assert provider.fetches["jwks"] == 0


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12)
_members = st.sampled_from(["alg", "kid", "typ", "crit", "b64", "zip", "jku", "x5u", "jwk", "x5c", "cty", "enc"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(header=st.dictionaries(_members | st.text(max_size=6), _json, max_size=6),
       keep_alg=st.booleans(), keep_kid=st.booleans(), raw=st.none() | st.binary(max_size=40),
       signature=st.sampled_from(["good", "empty", "junk"]))
def test_a_fuzzed_header_is_always_refused_with_a_reason(provider, header, keep_alg, keep_kid, raw, signature):
    verifier = fuzz_verifier(provider)
    good = provider.token()
    _, payload, good_signature = good.split(".")
    if keep_alg:
        header["alg"] = "RS256"
    if keep_kid:
        header["kid"] = provider.kid
    encoded = b64(raw) if raw is not None else b64(json.dumps(header, ensure_ascii=False))
    token = f"{encoded}.{payload}.{ {'good': good_signature, 'empty': '', 'junk': 'AAAA'}[signature]}"
    with pytest.raises(SignInRefused) as refused:
        verifier.verify(token)
    reason = str(refused.value)
    assert reason and len(reason) < 200 and all(" " <= c <= "~" for c in reason), reason


_fuzz_verifiers: dict[str, OidcVerifier] = {}


def fuzz_verifier(provider) -> OidcVerifier:
    """One verifier per provider for the fuzz run (its keys fetched once)."""
    if provider.issuer not in _fuzz_verifiers:
        _fuzz_verifiers.clear()
        _fuzz_verifiers[provider.issuer] = made = verifier_for(provider, refresh_cooldown_s=300.0)
        assert made.verify(provider.token()) == "alice@corp.example"
    return _fuzz_verifiers[provider.issuer]
