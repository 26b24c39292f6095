"""A team server admits a batch only with a valid sign-in: the Office SSO token checked
against a stand-in OpenID provider on loopback (its own keys, discovery, JWKS), or an
administrator-issued per-user token. Every refusal is a 401 with its reason, and none
reaches the service (counted at the sandbox)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time

import pytest

pytest.importorskip("jwt", reason="PyJWT is not installed (pip install -e '.[officejs]')")

from cryptography.hazmat.primitives import serialization  # noqa: E402

from rates_xl.addin.officejs import manifest  # noqa: E402
from rates_xl.addin.officejs.team import SsoManifest  # noqa: E402
from rates_xl.addin.officejs.users import UserStore  # noqa: E402
from rates_xl.sandbox import PAID_KEY  # noqa: E402
from tests.support.oidc_provider import CLIENT_ID, new_key  # noqa: E402

CALLS = [{"fn": "SWAP", "args": ["SOFR", "0D", "5Y", "1Y"]}, {"fn": "TENORS", "args": ["SOFR"]}]


def b64(data: dict | bytes) -> str:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_a_valid_sso_token_is_served_and_discovery_found_the_keys(team_server, provider):
    served = team_server()
    response = served.batch(CALLS, headers=bearer(provider.token()))
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert isinstance(results[0]["value"], float) and isinstance(results[1]["value"], list)
    assert len(served.sandbox.arrivals) == 2
    assert provider.fetches == {"config": 1, "jwks": 1}
    me = served.http.get(served.url + "/api/me", headers=bearer(provider.token()), timeout=30).json()
    assert me["user"] == "alice@corp.example" and me["use"]["cells"] == 2 and me["use"]["requests_sent"] == 2


def refusals(provider) -> dict[str, tuple[str | None, str]]:
    """Each bad sign-in -> the reason the 401 must give."""
    now = int(time.time())
    good = provider.token()
    header, payload, signature = good.split(".")
    _, other_key = new_key()
    public_pem = provider.key.public_key().public_bytes(serialization.Encoding.PEM,
                                                          serialization.PublicFormat.SubjectPublicKeyInfo)
    hs_header = b64({"alg": "HS256", "typ": "JWT", "kid": provider.kid})
    hs_body = f"{hs_header}.{b64(provider.claims())}"
    hs_signature = b64(hmac.new(public_pem, hs_body.encode(), hashlib.sha256).digest())
    return {
        "expired": (provider.token(exp=now - 3600, nbf=now - 7200, iat=now - 7200), "expired"),
        "not yet valid": (provider.token(nbf=now + 3600), "not yet valid"),
        "wrong issuer": (provider.token(iss="https://login.example.com/other-tenant/v2.0"), "wrong issuer"),
        "wrong audience": (provider.token(aud="api://someone-else"), "wrong audience"),
        "alg none": (f"{b64({'alg': 'none', 'typ': 'JWT', 'kid': provider.kid})}.{payload}.",
                     "algorithm 'none' not accepted"),
        "HS256 with the public key": (f"{hs_body}.{hs_signature}", "algorithm 'HS256' not accepted"),
        "another key, our kid": (provider.token(key=other_key), "bad signature"),
        "another key, its own kid": (provider.token(key=other_key, kid="not-published"), "signed with an unknown key"),
        "tampered payload": (f"{header}.{b64(provider.claims(preferred_username='mallory'))}.{signature}",
                             "bad signature"),
        "no exp": (provider.token(exp=None), "no exp claim"),
        "scope not granted": (provider.token(scp="User.Read"), "scope access_as_user not granted"),
        "not a token": ("hello", "not a token"),
        "missing": (None, "sign in first (no Authorization header)"),
    }


def test_every_bad_sign_in_is_401_with_its_reason_and_nothing_reaches_the_service(team_server, provider, caplog):
    served = team_server()
    caplog.set_level(logging.INFO, logger="rates_xl")
    cases = refusals(provider)
    for case, (token, reason) in cases.items():
        response = served.batch(CALLS, headers=bearer(token) if token else {})
        assert response.status_code == 401, (case, response.text)
        assert response.json() == {"detail": f"sign-in refused: {reason}"}, case
        assert response.headers["www-authenticate"].startswith('Bearer error="invalid_token"'), case
    assert len(served.sandbox.arrivals) == 0  # not one request cost the key
    assert served.client.stats()["requests_sent"] == 0
    # A wrong scheme is refused too, and no token is ever logged.
    assert served.batch(CALLS, headers={"Authorization": "Basic YWxpY2U6eA=="}).status_code == 401
    for token, _ in cases.values():
        if token and len(token) > 20:
            assert token not in caplog.text and (token.split(".")[-1] or "@") not in caplog.text


def test_keys_rotated_at_the_provider_are_picked_up(team_server, provider):
    served = team_server()
    old = provider.token()
    assert served.batch(CALLS, headers=bearer(old)).status_code == 200
    provider.rotate()
    fresh = provider.token()
    response = served.batch(CALLS, headers=bearer(fresh))
    assert response.status_code == 200, response.text
    assert provider.fetches["jwks"] == 2  # fetched again for the new kid, once
    # The retired key is no longer published: a token it signed is refused.
    refused = served.batch(CALLS, headers=bearer(old))
    assert refused.status_code == 401 and refused.json()["detail"] == "sign-in refused: signed with an unknown key"


def test_made_up_key_ids_do_not_hammer_the_provider(team_server, provider):
    served = team_server(cooldown=300.0)
    assert served.batch(CALLS, headers=bearer(provider.token())).status_code == 200
    _, other_key = new_key()
    for i in range(5):
        response = served.batch(CALLS, headers=bearer(provider.token(key=other_key, kid=f"made-up-{i}")))
        assert response.status_code == 401
    assert provider.fetches["jwks"] <= 2  # the first fetch, at most one refresh within the cooldown


def test_per_user_tokens_sign_in_beside_sso(team_server, provider, tmp_path):
    users = UserStore(tmp_path / "users.json")
    token = users.add("bob")
    served = team_server(users=users)
    assert served.batch(CALLS, headers=bearer(token)).status_code == 200
    me = served.http.get(served.url + "/api/me", headers=bearer(token), timeout=30).json()
    assert me["user"] == "bob" and me["sign_in"] == ["sso", "token"]
    assert served.batch(CALLS, headers=bearer(provider.token())).status_code == 200  # SSO still works
    users.remove("bob")  # takes effect on the running server
    response = served.batch(CALLS, headers=bearer(token))
    assert response.status_code == 401 and response.json()["detail"] == "sign-in refused: unknown or revoked token"


def test_health_needs_no_sign_in_and_says_nothing_secret(team_server, serve, sandbox_client):
    served = team_server()
    health = served.http.get(served.url + "/health", timeout=30)
    assert health.status_code == 200 and health.json()["status"] == "ok" and health.json()["mode"] == "team"
    assert PAID_KEY not in health.text
    local = serve(client=sandbox_client)
    assert local.http.get(local.url + "/health", timeout=30).json()["mode"] == "local"
    # The local server's batch endpoint takes no sign-in, as before.
    assert local.batch(CALLS).status_code == 200


def test_the_team_manifest_carries_web_application_info(team_server):
    served = team_server()
    xml = served.http.get(served.url + "/manifest.xml", timeout=30).text
    assert manifest.check(xml, served.url) == []
    assert f"<Id>{CLIENT_ID}</Id>" in xml and f"<Resource>api://localhost/{CLIENT_ID}</Resource>" in xml
    # The check catches what Office would refuse.
    assert manifest.check(xml.replace(f"<Id>{CLIENT_ID}</Id>", "<Id>my-app</Id>"), served.url) == [
        "WebApplicationInfo's Id must be the application (client) id, a UUID"]
    moved = xml.replace("</Resources>", "</Resources>@").split("@")
    info = moved[1][: moved[1].index("</WebApplicationInfo>") + len("</WebApplicationInfo>")]
    reordered = moved[0].replace("<Resources>", info + "<Resources>") + moved[1].replace(info, "")
    assert "WebApplicationInfo must be the last child of VersionOverrides" in manifest.check(reordered, served.url)
    with pytest.raises(ValueError):
        SsoManifest("not-a-uuid", f"api://localhost/{CLIENT_ID}")


def test_serve_options_build_the_team_or_say_what_is_wrong(provider, tmp_path, capsys):
    from rates_xl.addin.officejs import team_cli
    from rates_xl.cli import CommandError, build_parser

    def team_for(*argv):
        return team_cli.team_from_args(build_parser().parse_args(["serve", *argv]), "https://rates.corp.example")

    assert team_for() is None  # no sign-in options: the local server, as before
    team = team_for("--oidc-issuer", provider.issuer, "--oidc-client-id", CLIENT_ID,
                    "--users", "--users-file", str(tmp_path / "u.json"))
    assert team.authenticator.methods == ["sso", "token"]
    assert team.sso.resource == f"api://rates.corp.example/{CLIENT_ID}"
    assert team.authenticator.identify(f"Bearer {provider.token()}") == "alice@corp.example"
    for argv, message in [
        (("--oidc-issuer", provider.issuer), "single sign-on needs --oidc-issuer and --oidc-client-id"),
        (("--oidc-issuer", provider.issuer, "--oidc-client-id", "my-app"), "the client id must be the application id"),
        (("--oidc-issuer", provider.issuer + "/nowhere", "--oidc-client-id", CLIENT_ID),
         "cannot read the identity provider's configuration"),
    ]:
        with pytest.raises(CommandError) as refused:
            team_for(*argv)
        assert message in str(refused.value) and "\n" not in str(refused.value)
