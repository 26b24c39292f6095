"""The shared-runtime page against a team server, in headless Chromium: with a stand-in for
Office.auth.getAccessToken that hands out a token of the loopback OpenID provider, the page
signs in, shows who is signed in and the team's use, registers the functions, and a batch
is answered; without a token it shows the sign-in and a cell says why it has no value; a
per-user token pasted into the task pane signs in too."""

from __future__ import annotations

import pytest
from fastapi.responses import Response

from rates_xl.addin.officejs.auth import Authenticator, OidcSettings, OidcVerifier
from rates_xl.addin.officejs.metadata import script_arities
from rates_xl.addin.officejs.team import Team
from rates_xl.addin.officejs.users import UserStore
from rates_xl.client import RatesClient
from rates_xl.sandbox import PAID_KEY
from tests.addin.officejs.test_browser import FIRE, OFFICE_STUB, browser, playwright  # noqa: F401 (fixtures)
from tests.support.oidc_provider import CLIENT_ID

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")

# Office.auth as the page sees it: getAccessToken resolves with the test's token, or fails
# as Office does when nobody is signed in (error 13001).
AUTH_STUB = OFFICE_STUB + """
window.Office = { auth: { getAccessToken: function (options) {
  window.__asked = (window.__asked || 0) + 1;
  return window.__TEST_TOKEN__ ? Promise.resolve(window.__TEST_TOKEN__)
    : Promise.reject({ code: 13001, message: "The user is not signed in." });
} } };
"""


def team_page(browser, serve, sandbox, provider, tmp_path, token=None):  # noqa: F811
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    store = UserStore(tmp_path / "users.json")
    verifier = OidcVerifier(OidcSettings(issuer=provider.issuer, client_id=CLIENT_ID))
    team = Team(Authenticator(oidc=verifier, users=store))
    served = serve(client=client, team=team, office_js_url="/test/office-stub.js",
                   extra_routes={"/test/office-stub.js": lambda: Response(AUTH_STUB, media_type="text/javascript")})
    page = browser.new_page(ignore_https_errors=True)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    if token:
        page.add_init_script(f"window.__TEST_TOKEN__ = {token!r};")
    page.goto(f"{served.url}/v/{served.app.state.version}/functions.html")
    page.wait_for_function("Object.keys(CustomFunctions.registered).length > 0")
    return page, served, store, errors, client


CELLS = [["SWAP", ["SOFR", "0D", "5Y", "1Y"]], ["TENORS", ["SOFR"]]]


def test_the_page_signs_in_with_sso_shows_who_and_a_batch_is_answered(browser, serve, sandbox, provider, tmp_path):  # noqa: F811
    page, served, _, errors, client = team_page(browser, serve, sandbox, provider, tmp_path, token=provider.token())
    page.wait_for_selector("#rates-status:not([hidden])")
    assert page.text_content("#rates-user") == "alice@corp.example"
    assert page.is_hidden("#rates-signin")
    assert sorted(page.evaluate("Object.keys(CustomFunctions.registered)")) == sorted(script_arities())
    got = page.evaluate(FIRE, [CELLS, script_arities()])
    assert isinstance(got[0]["value"], float) and isinstance(got[1]["value"], list), got
    # After the batch the task pane shows the use.
    page.wait_for_function("document.getElementById('rates-mine').textContent.startsWith('2 cells')")
    assert "1 users, 2 cells" in page.text_content("#rates-team")
    assert page.text_content("#rates-error") == "none"
    assert errors == []
    page.close()
    client.close()


def test_without_a_token_the_page_shows_the_sign_in_and_cells_say_why(browser, serve, sandbox, provider, tmp_path):  # noqa: F811
    page, served, store, errors, client = team_page(browser, serve, sandbox, provider, tmp_path)
    page.wait_for_selector("#rates-signin:not([hidden])")
    assert page.is_hidden("#rates-status")
    assert page.text_content("#rates-signin-reason") == "Sign in to use the RATES functions."
    assert page.is_visible("#rates-sso") and page.is_visible("#rates-token-form")
    got = page.evaluate(FIRE, [CELLS, script_arities()])
    for cell in got:
        assert cell["code"] == "#N/A" and cell["isError"]
        assert cell["message"] == ("rates-xl serve refused the batch (401): "
                                   "sign-in refused: sign in first (no Authorization header)")
    assert client.stats()["requests_sent"] == 0  # no request cost the key

    # The administrator's per-user token, pasted into the task pane, signs in.
    token = store.add("carol")
    page.fill("#rates-token", token)
    page.click("#rates-token-form button[type=submit]")
    page.wait_for_selector("#rates-status:not([hidden])")
    assert page.text_content("#rates-user") == "carol"
    got = page.evaluate(FIRE, [CELLS, script_arities()])
    assert isinstance(got[0]["value"], float), got
    assert errors == []
    page.close()
    client.close()
