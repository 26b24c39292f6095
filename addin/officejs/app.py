"""The FastAPI app behind `rates-xl serve`: Excel's files, the manifest, the batch endpoint.

Routes (one concern each; the files are generated, see assets.py and metadata.py):

    GET  /                           what this server is, with a link to the manifest
    GET  /manifest.xml               the add-in-only manifest for this server's URL
    GET  /v/<version>/functions.html the shared runtime's page
    GET  /v/<version>/functions.js   the generic adapter, its CONFIG filled from the table
    GET  /v/<version>/functions.json the custom-functions metadata
    GET  /v/<version>/icon-<n>.png   the icons the manifest names
    GET  /help/<function>.html       the function's reference page (its helpUrl; help_pages.py)
    POST /api/batch                  {"calls": [{"fn": "SWAP", "args": [...]}, ...]}
                                     -> {"results": [{"value": ...} | {"error", "message"}]}

A request for another <version> (a manifest from an older install) is redirected to the
current one, so an update reaches users without reinstalling.

Security, all here: the server binds to loopback (server.py) and this app refuses a Host it
does not serve (DNS rebinding) and any Origin other than its own; it sends no CORS headers,
so no other site's script can read an answer; the batch endpoint takes JSON only (a
cross-site form cannot send it without a preflight we never answer), and bodies, batches
and arguments have caps. The API key lives in the client, which the page, the script and
the answers never see.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.middleware.trustedhost import TrustedHostMiddleware

from rates_xl import __version__
from rates_xl.addin.officejs import assets, help_pages, manifest
from rates_xl.addin.officejs.batch import MAX_BATCH, run_batch

log = logging.getLogger("rates_xl.addin.officejs")

#: Largest request body: a full batch of calls with typical arguments is ~200 kB.
MAX_BODY = 1_000_000
#: Default per-call time limit in the script: beyond it the cell shows #N/A, never #BUSY!.
DEFAULT_TIME_LIMIT_S = 120.0
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


class BodyLimit:
    """Refuse request bodies over `limit` bytes (413), declared or streamed."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await _plain(send, 413, f"request body over {self.limit} bytes")
        seen = 0

        async def limited_receive() -> dict:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _TooLarge:
            await _plain(send, 413, f"request body over {self.limit} bytes")


class _TooLarge(Exception):
    pass


async def _plain(send: Any, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def allowed_origins(public_url: str) -> set[str]:
    """Our own origins: the public URL's, and the loopback spellings of the same port."""
    parts = urlsplit(public_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    origins = {f"{parts.scheme}://{parts.netloc}"}
    if parts.hostname in ("localhost", "127.0.0.1", "::1"):
        origins |= {f"{parts.scheme}://{name}:{port}" for name in LOOPBACK_NAMES}
    return origins


def create_app(public_url: str, *, client: Any = None, office_js_url: str = assets.OFFICE_JS_URL,
               time_limit_s: float = DEFAULT_TIME_LIMIT_S, max_body: int = MAX_BODY) -> FastAPI:
    """The app for a server reached at `public_url` (e.g. https://localhost:8766).

    `client`: the RatesClient every call goes through; default: the core's shared client,
    built from the settings (RATES_BASE_URL, the keychain, ...) on first use.
    """
    from rates_xl.functions import core

    if client is not None:
        core.set_client(client)
    public_url = public_url.rstrip("/")
    origins = allowed_origins(public_url)
    version = manifest.asset_version()
    script = assets.script(origin=public_url, time_limit_s=time_limit_s, max_batch=MAX_BATCH)
    files: dict[str, tuple[bytes, str]] = {
        "functions.html": (assets.page(office_js_url).encode(), "text/html; charset=utf-8"),
        "functions.js": (script.encode(), "text/javascript; charset=utf-8"),
        "functions.json": (assets.metadata_bytes(public_url), "application/json"),
    }
    for size in manifest.ICON_SIZES:
        files[f"icon-{size}.png"] = (assets.icon_png(size), "image/png")

    app = FastAPI(title="rates-xl Office.js host", version=__version__,
                  docs_url=None, redoc_url=None, openapi_url=None)
    app.state.version = version
    app.state.public_url = public_url

    @app.middleware("http")
    async def own_origin_only(request: Request, call_next: Any) -> Response:
        origin = request.headers.get("origin")
        if origin is not None and origin not in origins:
            log.warning("refused a request from origin %r", origin[:100])
            return JSONResponse({"detail": "this server answers its own add-in only"}, status_code=403)
        site = request.headers.get("sec-fetch-site")
        if request.method != "GET" and site not in (None, "same-origin", "none"):
            return JSONResponse({"detail": "cross-site requests are refused"}, status_code=403)
        response = await call_next(request)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-cache"  # revalidate; new releases are new URLs anyway
        return response

    hosts = [urlsplit(public_url).hostname or "localhost", "localhost", "127.0.0.1", "::1"]
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(dict.fromkeys(hosts)))
    app.add_middleware(BodyLimit, limit=max_body)

    @app.get("/", response_class=HTMLResponse)
    def home() -> str:
        return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>rates-xl</title></head>"
                f"<body><h1>rates-xl {__version__}</h1><p>The RATES.* custom functions for Excel are served "
                f"here. Add-in manifest: <a href=\"/manifest.xml\">manifest.xml</a>.</p></body></html>")

    app.include_router(help_pages.router)  # GET /help/<function>.html: each function's helpUrl

    @app.get("/manifest.xml")
    def manifest_xml() -> Response:
        return Response(manifest.render(public_url, version), media_type="application/xml")

    @app.get("/v/{asked}/{name}")
    def versioned(asked: str, name: str) -> Response:
        if name not in files:
            return JSONResponse({"detail": "not found"}, status_code=404)
        if asked != version:
            return RedirectResponse(f"/v/{version}/{name}", status_code=307)
        body, media_type = files[name]
        return Response(body, media_type=media_type)

    @app.post("/api/batch")
    async def batch(request: Request) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return JSONResponse({"detail": "send JSON (Content-Type: application/json)"}, status_code=415)
        try:
            payload = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"detail": "the body is not JSON"}, status_code=400)
        calls = payload.get("calls") if isinstance(payload, dict) else None
        if not isinstance(calls, list):
            return JSONResponse({"detail": "expected {\"calls\": [...]}"}, status_code=400)
        if len(calls) > MAX_BATCH:
            return JSONResponse({"detail": f"at most {MAX_BATCH} calls per batch"}, status_code=413)
        # The core blocks (limiter waits, HTTP): run it on a worker thread, one per batch.
        results, _ = await run_in_threadpool(run_batch, calls, core.get_client())
        return JSONResponse({"results": results})

    return app
