"""Where two URL parsers disagree, the key must not follow the wrong one (issue 27, point 1).

A service on 127.0.0.1 redirects each call to a URL trick: a backslash before `@`, `%5C`, a
tab, `user@host`, `#@` and `?@`, scheme-relative, `http:/\\`, `127.1`, `0x7f.0.0.1`,
`2130706433`, IPv4-mapped IPv6, an upper-case scheme, and more. A second server on loopback,
the one the tricks try to reach, records every `x-api-key` it sees: over the whole corpus,
through `RatesClient` and through a worksheet function, it must see none. The same tricks as
the configured service root are refused as settings. Before the fix, the first trick alone
sent the key to the second server (urlsplit judged it same-origin, urllib3 connected there).
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rates_xl.client import RatesClient, RatesError, Redirected
from rates_xl.functions import FUNCTIONS, using_client
from tests.client.conftest import SECRET
from tests.support.faultserver import FaultServer, Reply
from tests.support.timing import PATIENT

H = "127.0.0.1"
# Each Location, with {E} the other server's port and {S} the service's. A trick either
# fails (Redirected: no request at all) or is followed to the service, never elsewhere.
LOCATIONS: dict[str, str] = {
    "backslash before @": "http://{H}:{E}\\@{H}:{S}/v1/fx?moved=1",
    "two backslashes before @": "http://{H}:{E}\\\\@{H}:{S}/v1/fx?moved=1",
    "backslash as the first slash": "http:\\\\{H}:{E}/v1/fx",
    "http:/\\": "http:/\\{H}:{E}/v1/fx",
    "/\\ (a browser's scheme-relative)": "/\\{H}:{E}/v1/fx",
    "\\\\ (scheme-relative, backslashes)": "\\\\{H}:{E}/v1/fx",
    "backslash in the path": "/v1\\..\\..\\{H}:{E}/v1/fx",
    "%5C before @": "http://{H}:{E}%5C@{H}:{S}/v1/fx?moved=1",
    "%5c before @ (lower case)": "http://{H}:{E}%5c@{H}:{S}/v1/fx?moved=1",
    "%40 for @": "http://{H}:{E}%40{H}:{S}/v1/fx?moved=1",
    "%2F in the host": "http://{H}:{S}%2F@{H}:{E}/v1/fx",
    "%2e in a numeric host": "http://127%2e0.0.1:{E}/v1/fx",
    "percent-encoded host": "http://%31%32%37.0.0.1:{E}/v1/fx",
    "tab before @": "http://{H}:{E}\t@{H}:{S}/v1/fx?moved=1",
    "tab in the host": "http://{H}\t:{E}/v1/fx",
    "folded header (newline, tab)": "http://{H}:{E}\r\n\t@{H}:{S}/v1/fx?moved=1",
    "space before @": "http://{H}:{E} @{H}:{S}/v1/fx?moved=1",
    "NUL before @": "http://{H}:{E}\x00@{H}:{S}/v1/fx?moved=1",
    "DEL before @": "http://{H}:{E}\x7f@{H}:{S}/v1/fx?moved=1",
    "user@host": "http://user@{H}:{E}/v1/fx",
    "user:password@host": "http://user:pw@{H}:{E}/v1/fx",
    "the service as user:password": "http://{H}:{S}@{H}:{E}/v1/fx",
    "the service as user, empty": "http://@{H}:{E}/v1/fx",
    "two @": "http://{H}:{S}@{H}:{S}@{H}:{E}/v1/fx",
    "#@": "http://{H}:{E}#@{H}:{S}/v1/fx?moved=1",
    "?@": "http://{H}:{E}?@{H}:{S}/v1/fx?moved=1",
    ";@": "http://{H}:{E};@{H}:{S}/v1/fx?moved=1",
    "scheme-relative": "//{H}:{E}/v1/fx",
    "scheme-relative, three slashes": "///{H}:{E}/v1/fx",
    "scheme-relative, four slashes": "////{H}:{E}/v1/fx",
    "http: without slashes": "http:{H}:{E}/v1/fx",
    "http: one slash": "http:/{H}:{E}/v1/fx",
    "http:// three slashes": "http:///{H}:{E}/v1/fx",
    "127.1": "http://127.1:{E}/v1/fx",
    "127.0.1": "http://127.0.1:{E}/v1/fx",
    "0x7f.0.0.1": "http://0x7f.0.0.1:{E}/v1/fx",
    "0x7f000001": "http://0x7f000001:{E}/v1/fx",
    "2130706433": "http://2130706433:{E}/v1/fx",
    "0177.0.0.1 (octal)": "http://0177.0.0.1:{E}/v1/fx",
    "127.000.000.001": "http://127.000.000.001:{E}/v1/fx",
    "127.0.0.1. (trailing dot)": "http://127.0.0.1.:{E}/v1/fx",
    "IPv4-mapped IPv6": "http://[::ffff:127.0.0.1]:{E}/v1/fx",
    "IPv4-mapped IPv6, hex": "http://[::ffff:7f00:1]:{E}/v1/fx",
    "IPv6 with a zone": "http://[::1%25lo]:{E}/v1/fx",
    "IPv6 loopback": "http://[::1]:{E}/v1/fx",
    "upper-case scheme": "HTTP://{H}:{E}/v1/fx",
    "mixed-case scheme": "hTtP://{H}:{E}/v1/fx",
    "https": "https://{H}:{S}/v1/fx",
    "localhost": "http://localhost:{E}/v1/fx",
    "LOCALHOST": "http://LOCALHOST:{S}/v1/fx",
    "port with leading zeros": "http://{H}:0{E}/v1/fx",
    "port past 65535": "http://{H}:{E65536}/v1/fx",
    "empty port": "http://{H}:/v1/fx",
    "two ports": "http://{H}:{S}:{E}/v1/fx",
    "fullwidth dots": "http://127\u30020\u30020\u30021:{E}/v1/fx",
    "fullwidth digits": "http://\uff11\uff12\uff17.0.0.1:{E}/v1/fx",
    "non-ASCII host": "http://\u0131ocalhost:{E}/v1/fx",
    "javascript:": "javascript:alert(1)",
    "file:": "file:///etc/passwd",
    "data:": "data:text/plain,x",
    # The service's own: followed (and charged), to show the corpus is not passing by
    # refusing everything.
    "same origin, relative": "/v1/fx?moved=1",
    "same origin, relative path": "fx?moved=1",
    "same origin, dot segments": "/x/../v1/fx?moved=1",
    "same origin, absolute": "http://{H}:{S}/v1/fx?moved=1",
    "same origin, upper-case scheme": "HTTP://{H}:{S}/v1/fx?moved=1",
    "same origin, port with a zero": "http://{H}:0{S}/v1/fx?moved=1",
    "same origin, a fragment with @": "/v1/fx?moved=1#@{H}:{E}",
}
FOLLOWED = {name for name in LOCATIONS if name.startswith("same origin")}


def _location(template: str, service: FaultServer, other: FaultServer) -> str:
    e = int(other.base_url.rsplit(":", 1)[1])
    s = int(service.base_url.rsplit(":", 1)[1])
    return template.format(H=H, E=e, S=s, E65536=e + 65536)


def _keys_seen(server: FaultServer) -> int:
    return sum(1 for a in server.arrivals if SECRET in a.headers.get("x-api-key", "")
               or any(SECRET in value for value in a.headers.values()))


@pytest.mark.parametrize("path", ["RatesClient", "worksheet function"])
def test_no_url_trick_takes_the_key_to_another_server(server, other, make_client, path):
    """Every Location of the corpus, through the client and through a cell: the other
    server sees 0 keys; the tricks fail with one clear line, the service's own redirects
    are followed."""
    outcomes: dict[str, str] = {}
    for name, template in LOCATIONS.items():
        location = _location(template, server, other)
        # On the wire as a server would send it: bytes (http.server's headers are Latin-1).
        location = location.encode("utf-8").decode("latin-1")
        server.responder = lambda a, loc=location: (
            Reply(status=302, headers={"Location": loc}) if "moved" not in a.query else Reply())
        # A patient client: this test checks where the key goes, not the cell's time budget (at
        # load 41 a 4 s budget ran out and the cell said so instead of naming the redirect).
        client = make_client(persistent=False, **PATIENT)
        if path == "RatesClient":
            try:
                client.fx_spot("EURUSD")
                outcomes[name] = "followed"
            except RatesError as exc:
                outcomes[name] = f"{type(exc).__name__}: {exc}"
        else:
            with using_client(client):
                cell = FUNCTIONS["RATES_FXSPOT"].core("EURUSD")
            outcomes[name] = "followed" if isinstance(cell, float) else cell
            assert SECRET not in str(cell)
    assert _keys_seen(other) == 0, [a.path for a in other.arrivals]  # never print a header: the key
    assert other.count() == 0  # not even without the key
    followed = {name for name, outcome in outcomes.items() if outcome == "followed"}
    assert followed == FOLLOWED, {name: outcomes[name] for name in followed ^ FOLLOWED}
    refused = {name: outcome for name, outcome in outcomes.items() if name not in FOLLOWED}
    said = "Redirected: " if path == "RatesClient" else "#RATES! 302 the service redirected"
    assert not {n: o for n, o in refused.items() if not o.startswith(said)}
    assert len(LOCATIONS) >= 60


def test_a_redirect_read_two_ways_says_so_and_is_not_followed(server, other, make_client):
    location = _location(LOCATIONS["backslash before @"], server, other)
    server.responder = lambda a: Reply(status=302, headers={"Location": location})
    client = make_client()
    with pytest.raises(Redirected) as caught:
        client.fx_spot("EURUSD")
    message = str(caught.value)
    assert "parsers read as different places (a backslash)" in message, message
    assert "API key was not sent there" in message and other.count() == 0
    assert server.count() == 1  # not retried


# The service root itself, as configured: the same tricks are refused as settings (or, where
# harmless, normalised), never connected to the wrong server.
ROOTS: dict[str, str] = {
    "backslash before @": "http://{H}:{E}\\@{H}:{S}",
    "%5C before @": "http://{H}:{E}%5C@{H}:{S}",
    "tab before @": "http://{H}:{E}\t@{H}:{S}",
    "user@host": "http://user@{H}:{S}",
    "the service as user:password": "http://{H}:{S}@{H}:{E}",
    "#@": "http://{H}:{E}#@{H}:{S}",
    "?@": "http://{H}:{E}?@{H}:{S}",
    "127.1": "http://127.1:{E}",
    "0x7f.0.0.1": "http://0x7f.0.0.1:{E}",
    "2130706433": "http://2130706433:{E}",
    "percent-encoded host": "http://%31%32%37.0.0.1:{E}",
    "scheme without //": "http:{H}:{E}",
    "backslashes for //": "http:\\\\{H}:{E}",
}


def test_a_service_root_read_two_ways_is_refused_as_settings(server, other, monkeypatch):
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    refused = {}
    for name, template in ROOTS.items():
        root = _location(template, server, other)
        try:
            client = RatesClient(base_url=root, api_key=SECRET, persistent=False)
        except ValidationError as exc:
            refused[name] = str(exc)
            assert SECRET not in refused[name]
            continue
        try:
            client.fx_spot("EURUSD")
        except Exception:  # noqa: BLE001 (whatever happens, the other server must see nothing)
            pass
        finally:
            client.close()
    assert _keys_seen(other) == 0 and other.count() == 0
    assert set(refused) == set(ROOTS), set(ROOTS) - set(refused)
    assert "which programs read as different places" in refused["backslash before @"]
    # An upper-case scheme is a spelling, not a trick: normalised and used.
    upper = RatesClient(base_url=server.base_url.upper(), api_key=SECRET, persistent=False)
    server.responder = lambda a: Reply()
    assert upper.fx_spot("EURUSD").rate > 0
    upper.close()
