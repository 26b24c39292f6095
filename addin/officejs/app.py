"""The FastAPI app behind `rates-xl serve`: Excel's files, the manifest, the batch endpoint.

Routes (one concern each; the files are generated, see assets.py and metadata.py):

    GET  /                           what this server is, with a link to the manifest
    GET  /manifest.xml               the add-in-only manifest for this server's URL
    GET  /v/<version>/functions.html the shared runtime's page
    GET  /v/<version>/functions.js   the generic adapter, its CONFIG filled from the table
    GET  /v/<version>/functions.json the custom-functions metadata
    GET  /v/<version>/icon-<n>.png   the icons the manifest names
    GET  /help/<function>.html       the function's reference page (its helpUrl; help_pages.py)
    GET  /health                     up, and its version (no sign-in; team.py)
    GET  /api/me                     a team server's signed-in user, use, last error (team.py)
    POST /api/batch                  {"calls": [{"fn": "SWAP", "args": [...]}, ...], "valuation_time": T?,
                                      "date1904": true | "why it could not be read"?}
                                     -> {"results": [{"value": ...} | {"error", "message"}]}
    POST /api/scenario               the task pane's Scenario: {"pack", "spec", "buckets"} -> {"scenario": id, ...};
                                     a batch with "scenario": id is answered under it (scenarios.py)
    POST /api/scenario/off           {"scenario": id}: back to market
    POST /api/live/subscribe         Live mode: streaming cells to keep fresh (live.py)
    POST /api/live/poll              Live mode: a page's new outcomes (a long poll)
    POST /api/live/cancel            Live mode: cells Excel cancelled

A request for another <version> (a manifest from an older install) is redirected to the
current one, so an update reaches users without reinstalling.

Security, all here: the server binds to loopback (server.py) and this app refuses a Host it
does not serve (DNS rebinding). The static files answer CORS to Excel on the web's origins
(origins.py: they hold nothing private) and refuse any other foreign Origin; the batch
endpoint answers its own origin only, with no CORS header and no preflight, so no other
site's script can spend the key or read an answer. It takes JSON only (a cross-site form
cannot send it without a preflight we never answer), and bodies, batches and arguments
have caps; what a client can cost in connections, time and threads is bounded in
limits.py. The API key lives in the client, which the page, the script and the answers
never see.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.middleware.trustedhost import TrustedHostMiddleware

from rates_xl import __version__
from rates_xl.addin.officejs import assets, help_pages, manifest, packs, scenarios
from rates_xl.addin.officejs import team as teammod
from rates_xl.addin.officejs.batch import MAX_BATCH, run_batch
from rates_xl.addin.officejs.fairness import UserBusy
from rates_xl.addin.officejs.limits import DEFAULT_LIMITS, BatchGate, Busy, Limits, RequestBody
from rates_xl.addin.officejs.live_hub import LiveHub, NoSuchSession, session_of, sub_id_of
from rates_xl.addin.officejs.origins import EXCEL_WEB_ORIGINS, CorsPolicy, public_origin
from rates_xl.client import urls

log = logging.getLogger("rates_xl.addin.officejs")

#: Default per-call time limit in the script: beyond it the cell shows #N/A, never #BUSY!.
DEFAULT_TIME_LIMIT_S = 120.0
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
BATCH_PATH = assets.BATCH_PATH
PACK_SEAL_PATH = assets.PACK_SEAL_PATH


def allowed_origins(public_url: str) -> set[str]:
    """Our own origins: the public URL's (as a browser writes it: lower case, no default
    port), and the loopback spellings of the same port."""
    own = public_origin(public_url)
    origins = {str(own)}
    if own.host in ("localhost", "127.0.0.1", "::1"):
        origins |= {str(urls.Origin(own.scheme, name.strip("[]"), own.port)) for name in LOOPBACK_NAMES}
    return origins


def is_static(path: str) -> bool:
    """The files Excel fetches, which Excel on the web's origins may read (CORS)."""
    return path == "/manifest.xml" or path.startswith("/v/")


def refused(detail: str, status: int = 403) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status)


def parse_json(body: bytes) -> Any | JSONResponse:
    """A request body as JSON, or the 400 that answers it (one line, never a 500)."""
    try:
        # Every JSON number becomes a float, as Excel's cells hold them: an integer of
        # thousands of digits is then infinite (refused by its own cell, see batch.py)
        # instead of an int() conversion error that would lose the whole batch.
        payload = json.loads(body, parse_int=float)
    except RecursionError:
        return refused("the body is nested too deeply to be a batch", 400)
    except ValueError:  # not JSON, not UTF-8
        return refused("the body is not JSON", 400)
    return payload


def parse_batch(body: bytes) -> Calls | JSONResponse:
    """The calls of a batch body, or the 4xx that answers it (one line, never a 500)."""
    payload = parse_json(body)
    if isinstance(payload, Response):
        return payload
    calls = payload.get("calls") if isinstance(payload, dict) else None
    if not isinstance(calls, list):
        return refused("expected {\"calls\": [...]}", 400)
    if len(calls) > MAX_BATCH:
        return refused(f"at most {MAX_BATCH} calls per batch", 413)
    batch = Calls(calls)
    batch.record = payload.get("record") is True
    batch.pinned = payload.get("valuation_time")  # the book's RATES_VALUATION_TIME: the batch's context
    batch.date1904 = payload.get("date1904")  # the book's date system, as the script read it (batch.book_dates)
    batch.scenario = payload.get("scenario")  # the task pane's scenario id, or None (scenarios.py)
    return batch


class Calls(list):
    """A batch's calls, and whether the script asks for the answers they used (`record`)."""

    record = False
    pinned: Any = None
    date1904: Any = None
    scenario: Any = None  # the id of the task pane's scenario (scenarios.py), or None


def create_app(public_url: str, *, client: Any = None, office_js_url: str = assets.OFFICE_JS_URL,
               time_limit_s: float = DEFAULT_TIME_LIMIT_S, limits: Limits = DEFAULT_LIMITS,
               excel_origins: tuple[str, ...] = EXCEL_WEB_ORIGINS, team: Any = None,
               live_share: float | None = None, live_tick: float = 0.1) -> FastAPI:
    """The app for a server reached at `public_url` (e.g. https://localhost:8766).

    `client`: the RatesClient every call goes through; default: the core's shared client,
    built from the settings (RATES_BASE_URL, the keychain, ...) on first use.
    `excel_origins`: the origin patterns that may read the static files (origins.py).
    `team`: a team.Team: sign-in, fair share and accounting on the batch endpoint (team.py);
    None for the local single-user server.
    `live_share`: the share of the service's limit Live mode may use, for every page (live.py);
    None: the client's `live_share` setting.
    """
    from rates_xl.functions import core

    served = client  # this app's batches go through its own client, even once another app set the core's

    def batch_client() -> Any:
        return served if served is not None else core.get_client()

    if client is not None:
        core.set_client(client)
        if team is not None:  # with RATES_TEAM_URL: one fair share and one count for all workers
            team.share_through(getattr(client, "team_link", None))
    public_url = public_url.rstrip("/")
    cors = CorsPolicy(allowed_origins(public_url), excel_origins)
    version = manifest.asset_version()
    script = assets.script(origin=public_url, time_limit_s=time_limit_s, max_batch=MAX_BATCH)
    # Every static answer is bytes made once, here: served on the event loop, it never
    # waits for a thread (batches occupy theirs, see limits.BatchGate).
    files: dict[str, tuple[bytes, str]] = {
        "functions.html": (assets.page(office_js_url).encode(), "text/html; charset=utf-8"),
        "functions.js": (script.encode(), "text/javascript; charset=utf-8"),
        "functions.json": (assets.metadata_bytes(public_url), "application/json"),
    }
    for size in manifest.ICON_SIZES:
        files[f"icon-{size}.png"] = (assets.icon_png(size), "image/png")
    manifest_bytes = manifest.render(public_url, version, sso=team.sso if team else None).encode()

    app = FastAPI(title="rates-xl Office.js host", version=__version__,
                  docs_url=None, redoc_url=None, openapi_url=None)
    app.state.version = version
    app.state.public_url = public_url
    app.state.batches = gate = BatchGate(limits)
    app.state.team = team
    app.state.live = None  # the LiveHub, made on the first subscription (it needs the client)
    app.state.scenarios = scenario_sessions = scenarios.Sessions()
    live_lock = threading.Lock()

    def live_hub() -> LiveHub:
        with live_lock:
            if app.state.live is None:
                app.state.live = LiveHub(batch_client(), live_share, tick=live_tick)
            return app.state.live

    @app.middleware("http")
    async def origin_rules(request: Request, call_next: Any) -> Response:
        origin = request.headers.get("origin")
        shared = origin is not None and is_static(request.url.path) and cors.allows(origin)
        if origin is not None and not cors.is_own(origin) and not shared:
            log.warning("refused a request from origin %r", origin[:100])
            return refused("this server answers its own add-in only")
        if shared and request.method == "OPTIONS":
            return Response(status_code=204, headers=cors.preflight_headers(
                origin, request.headers.get("access-control-request-headers")))
        site = request.headers.get("sec-fetch-site")
        if request.method not in ("GET", "HEAD") and site not in (None, "same-origin", "none"):
            return refused("cross-site requests are refused")
        response = await call_next(request)
        if is_static(request.url.path):
            response.headers["Vary"] = "Origin"  # the answer depends on it, caches must know
            if shared and not cors.is_own(origin):
                response.headers.update(cors.headers(origin))
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-cache"  # revalidate; new releases are new URLs anyway
        return response

    hosts = [public_origin(public_url).host, "localhost", "127.0.0.1", "::1"]
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(dict.fromkeys(hosts)))
    app.add_middleware(RequestBody, limits=limits)

    @app.get("/", response_class=HTMLResponse)
    async def home() -> str:
        return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>rates-xl</title></head>"
                f"<body><h1>rates-xl {__version__}</h1><p>The RATES.* custom functions for Excel are served "
                f"here. Add-in manifest: <a href=\"/manifest.xml\">manifest.xml</a>.</p></body></html>")

    app.include_router(help_pages.router)  # GET /help/<function>.html: each function's helpUrl
    app.include_router(teammod.router(team))  # GET /health; GET /api/me on a team server

    @app.get("/manifest.xml")
    async def manifest_xml() -> Response:
        return Response(manifest_bytes, media_type="application/xml")

    @app.get("/v/{asked}/{name}")
    async def versioned(asked: str, name: str) -> Response:
        if name not in files:
            return refused("not found", 404)
        if asked != version:
            return RedirectResponse(f"/v/{version}/{name}", status_code=307)
        body, media_type = files[name]
        return Response(body, media_type=media_type)

    async def admitted(request: Request) -> Any:
        """The signed-in user of a JSON request (None on the local server), or the answer
        refusing it: the 401 before anything else, then the 415."""
        user = await team.admit(request) if team is not None else None
        if isinstance(user, Response):
            return user
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return refused("send JSON (Content-Type: application/json)", 415)
        return user

    async def json_body(request: Request) -> Any:
        """The JSON body of a request from a user admitted, or the answer refusing it."""
        user = await admitted(request)
        if isinstance(user, Response):
            return user
        return parse_json(await request.body())

    @app.post(BATCH_PATH)
    async def batch(request: Request) -> Response:
        user = await admitted(request)
        if isinstance(user, Response):
            return user
        calls = parse_batch(await request.body())
        if isinstance(calls, Response):
            return calls
        # The task pane's "Record market data": the answers this batch used come back too;
        # never under a scenario (its answers are not the book's market data).
        client = batch_client()
        if calls.scenario is not None:
            client = scenario_sessions.client(calls.scenario, user)
            if client is None:
                return refused("the scenario is no longer on at this server (it restarted, or it was switched "
                               "off): apply it again, or go back to market", 409)
        record = calls.record and calls.scenario is None
        compute = functools.partial(run_batch, record=True) if record else run_batch
        try:
            if team is None:
                results, report = await gate.run(compute, calls, client)
            else:
                results, report = await team.run(user, gate, compute, calls, client)
        except UserBusy:
            return JSONResponse({"detail": "busy: your earlier batches are still being computed; "
                                 "calculate again in a moment"}, status_code=503,
                                headers={"Retry-After": str(limits.retry_after_s)})
        except Busy:
            return JSONResponse(
                {"detail": f"busy: {gate.in_flight} batches in progress; calculate again in a moment"},
                status_code=503, headers={"Retry-After": str(limits.retry_after_s)})
        if record and getattr(report, "pack", None) is not None:
            return JSONResponse({"results": results, "pack": report.pack})
        return JSONResponse({"results": results})

    @app.post(PACK_SEAL_PATH)
    async def pack_seal(request: Request) -> Response:
        """The seal of the pack the task pane writes into the book (packs.py)."""
        payload = await json_body(request)
        if isinstance(payload, Response):
            return payload
        try:
            return JSONResponse(packs.seal_fields(payload, batch_client()))
        except packs.SealRequestRefused as exc:
            return refused(str(exc), 400)

    async def user_and_json(request: Request) -> tuple[str | None, Any] | Response:
        """The signed-in user (None locally) and the JSON body, or the answer refusing them."""
        user = await admitted(request)
        if isinstance(user, Response):
            return user
        payload = parse_json(await request.body())
        return payload if isinstance(payload, Response) else (user, payload)

    @app.post("/api/scenario")
    async def scenario_on(request: Request) -> Response:
        """The task pane's Scenario: the book's pack under a scenario (scenarios.py)."""
        parsed = await user_and_json(request)
        if isinstance(parsed, Response):
            return parsed
        user, payload = parsed
        from starlette.concurrency import run_in_threadpool

        try:  # the curves may be fetched and built: off the event loop
            return JSONResponse(await run_in_threadpool(scenario_sessions.open, payload, batch_client(), user))
        except scenarios.ScenarioRequestRefused as exc:
            return refused(str(exc), exc.status)

    @app.post("/api/scenario/off")
    async def scenario_off(request: Request) -> Response:
        parsed = await user_and_json(request)
        if isinstance(parsed, Response):
            return parsed
        user, payload = parsed
        sid = payload.get("scenario") if isinstance(payload, dict) else None
        return JSONResponse({"off": scenario_sessions.close(sid, user)})

    async def live_request(request: Request) -> tuple[Any, str, str | None] | Response:
        """The body, session and user of a Live request, or the answer refusing it."""
        parsed = await user_and_json(request)
        if isinstance(parsed, Response):
            return parsed
        user, payload = parsed
        session = session_of(payload)
        if session is None:
            return refused("expected {\"session\": \"<8 to 64 letters and digits>\", ...}", 400)
        return payload, session, user

    def busy(detail: str) -> JSONResponse:
        return JSONResponse({"detail": detail}, status_code=503, headers={"Retry-After": str(limits.retry_after_s)})

    @app.post("/api/live/subscribe")
    async def live_subscribe(request: Request) -> Response:
        parsed = await live_request(request)
        if isinstance(parsed, Response):
            return parsed
        payload, session, user = parsed
        subs = payload.get("subs")
        if not isinstance(subs, list):
            return refused("expected {\"session\", \"subs\": [...]}", 400)
        if len(subs) > MAX_BATCH:
            return refused(f"at most {MAX_BATCH} subscriptions per request", 413)
        pinned = payload.get("valuation_time")  # the book's RATES_VALUATION_TIME, as a batch's
        dates = payload.get("date1904")  # and its date system
        hub = live_hub()
        try:
            if team is None:
                answers = await gate.run(hub.subscribe, session, subs, None, pinned, dates)
            else:
                # One of the user's batches: their queue, a batch worker, their counters.
                def subscribe(calls: list, client: Any) -> tuple[list, None]:
                    return hub.subscribe(session, calls, owner=user, valuation_time=pinned, date1904=dates), None

                answers, _ = await team.run(user, gate, subscribe, subs, batch_client(), kind="live")
        except NoSuchSession as exc:
            return refused(str(exc), 404)
        except UserBusy:
            return busy("busy: your earlier batches are still being computed; calculate again in a moment")
        except Busy:
            return busy("busy: calculate again in a moment")
        return JSONResponse({"subs": answers, "status": hub.status()})

    @app.post("/api/live/poll")
    async def live_poll(request: Request) -> Response:
        parsed = await live_request(request)
        if isinstance(parsed, Response):
            return parsed
        _, session, user = parsed
        try:
            return JSONResponse(await live_hub().poll(session, owner=user))
        except NoSuchSession as exc:
            return refused(str(exc), 404)

    @app.post("/api/live/cancel")
    async def live_cancel(request: Request) -> Response:
        parsed = await live_request(request)
        if isinstance(parsed, Response):
            return parsed
        payload, session, user = parsed
        ids = payload.get("ids")
        if not isinstance(ids, list) or len(ids) > MAX_BATCH:
            return refused(f"expected {{\"session\", \"ids\": [...]}} of at most {MAX_BATCH} ids", 400)
        try:
            cancelled = live_hub().cancel(session, [i for i in map(sub_id_of, ids) if i is not None], owner=user)
        except NoSuchSession as exc:
            return refused(str(exc), 404)
        return JSONResponse({"cancelled": cancelled})

    return app
