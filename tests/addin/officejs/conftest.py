"""Fixtures of the Office.js host's tests: a local CA and localhost certificate (made by our
own certs module, trusted by the test clients through `verify=`), and the real server over
TLS on a free loopback port, in front of a client on the sandbox."""

from __future__ import annotations

import contextlib

import pytest
import requests

from rates_xl.client import RatesClient
from rates_xl.functions import core
from rates_xl.sandbox import PAID_KEY
from tests.support.redis_server import redis_server  # noqa: F401  (a real redis-server, for the multi-worker tests)


@pytest.fixture(scope="session")
def tls(tmp_path_factory):
    from rates_xl.addin.officejs import certs

    paths, _ = certs.ensure(certs.CertPaths(tmp_path_factory.mktemp("certs")))
    return paths


@pytest.fixture(autouse=True)
def _shared_client_reset(monkeypatch):
    for name in ("RATES_BASE_URL", "RATES_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    yield
    core.set_client(None)


class Served:
    """A running server: its URL, the app, the client behind it, an HTTPS session."""

    def __init__(self, running, app, client, ca) -> None:
        self.running, self.app, self.client = running, app, client
        self.url = f"https://localhost:{running.port}"
        self.http = requests.Session()
        self.http.verify = str(ca)
        self.http.trust_env = False  # else REQUESTS_CA_BUNDLE overrides `verify`

    def batch(self, calls, **kwargs) -> requests.Response:
        headers = {"Origin": self.url, **kwargs.pop("headers", {})}
        return self.http.post(self.url + "/api/batch", json={"calls": calls}, headers=headers,
                              timeout=120, **kwargs)

    def file(self, name: str) -> requests.Response:
        return self.http.get(f"{self.url}/v/{self.app.state.version}/{name}", timeout=30)


@pytest.fixture
def serve(tls):
    """`serve(client=None, limits=DEFAULT_LIMITS, **create_app options)` -> Served; stopped when the
    test ends."""
    from rates_xl.addin.officejs import app as appmod
    from rates_xl.addin.officejs import server
    from rates_xl.addin.officejs.limits import DEFAULT_LIMITS

    started = []

    def start(client=None, extra_routes=None, limits=DEFAULT_LIMITS, **options) -> Served:
        def factory(url):
            app = appmod.create_app(url, client=client, limits=limits, **options)
            for path, endpoint in (extra_routes or {}).items():
                app.add_api_route(path, endpoint)
            return app

        running, app = server.start_in_thread(factory, tls.cert, tls.key, limits=limits)
        started.append(running)
        return Served(running, app, client, tls.ca)

    yield start
    for running in started:
        with contextlib.suppress(Exception):
            running.stop()


@pytest.fixture
def sandbox_client(sandbox):
    made = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY)
    yield made
    made.close()


# -- a team server with single sign-on, against the stand-in OpenID provider -------------------

@pytest.fixture
def provider():
    """The stand-in OpenID provider on loopback (tests/support/oidc_provider.py)."""
    pytest.importorskip("jwt", reason="PyJWT is not installed (pip install -e '.[officejs]')")
    from tests.support.oidc_provider import Provider

    running = Provider()
    yield running
    running.stop()


@pytest.fixture
def team_server(serve, sandbox_factory, provider, tmp_path):
    """A team server with SSO and per-user tokens, in front of a sandbox of its own."""

    def start(cooldown: float = 0.0, users=None):
        from rates_xl.addin.officejs.auth import Authenticator, OidcSettings, OidcVerifier
        from rates_xl.addin.officejs.team import SsoManifest, Team, default_resource
        from tests.support.oidc_provider import CLIENT_ID

        sandbox = sandbox_factory(rate_limit=1000, burst=1000)
        client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
        verifier = OidcVerifier(OidcSettings(issuer=provider.issuer, client_id=CLIENT_ID,
                                             refresh_cooldown_s=cooldown))
        team = Team(Authenticator(oidc=verifier, users=users),
                    sso=SsoManifest(CLIENT_ID, default_resource("https://localhost", CLIENT_ID)))
        served = serve(client=client, team=team)
        served.sandbox, served.team = sandbox, team
        return served

    return start
