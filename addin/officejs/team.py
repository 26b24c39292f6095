"""`rates-xl serve` as a team server: sign-in, fair share, accounting, access log, health.

`create_app(..., team=Team(...))` turns it on; without it the server is the local,
single-user one, unchanged. What a team server adds, each in one place:

- the batch endpoint admits a request only with a valid sign-in (`Team.admit`: auth.py),
  answering 401 with the reason otherwise, before the body is even parsed;
- each user's batches go through their own queue into the shared pool (`Team.run`:
  fairness.py), and each batch is counted for its user and logged on `rates_xl.access`
  (who, cells, service requests sent, seconds, outcome: never a token, never the key);
- `GET /api/me` tells the task pane who is signed in, the user's and the team's use and the
  user's last error; `GET /health` (every server, no sign-in) says it is up and its version.

The service key stays in the server's client: users hold only their sign-in.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from rates_xl import __version__
from rates_xl.addin.officejs.auth import Authenticator, SignInRefused
from rates_xl.addin.officejs.fairness import FairShare, Usage, UserBusy

access_log = logging.getLogger("rates_xl.access")
_UNPRINTABLE = re.compile(r"[^\x21-\x7e]")


@dataclass(frozen=True)
class SsoManifest:
    """The manifest's WebApplicationInfo: the add-in's registration at the identity provider."""

    client_id: str
    resource: str
    scopes: tuple[str, ...] = ("openid", "profile")

    def __post_init__(self) -> None:
        try:
            UUID(self.client_id)  # the schema's bt:UUID: a typo fails at start, not in Excel
        except ValueError:
            raise ValueError(f"the client id must be the application id, a UUID, not {self.client_id[:60]!r}") from None
        if not self.resource.startswith("api://"):
            raise ValueError(f"the Application ID URI must start with api://, not {self.resource!r}")


def default_resource(public_url: str, client_id: str) -> str:
    """Entra's Application ID URI for an add-in served at `public_url`: api://<host>/<client id>
    (the host as the origin checks read it, client/urls.py; the port only when not 443)."""
    from rates_xl.addin.officejs.origins import public_origin

    return f"api://{str(public_origin(public_url)).split('://', 1)[1]}/{client_id}"


def printable(name: str) -> str:
    """A user name as it may appear in a log line (no spaces, newlines or escapes)."""
    return _UNPRINTABLE.sub("?", name)[:100]


def unauthorized(reason: str) -> JSONResponse:
    # RFC 6750: the scheme, the error and its description, so a client knows to sign in again.
    # A header is Latin-1 at most: printable ASCII only, whatever a token made the reason say.
    reason = re.sub(r"[^\x20-\x7e]", "?", reason)[:200]
    described = reason.replace('"', "'").replace("\\", "/")
    return JSONResponse({"detail": f"sign-in refused: {reason}"}, status_code=401, headers={
        "WWW-Authenticate": f'Bearer error="invalid_token", error_description="{described}"'})


class Team:
    def __init__(self, authenticator: Authenticator, *, sso: SsoManifest | None = None,
                 fair: FairShare | None = None) -> None:
        self.authenticator = authenticator
        self.sso = sso
        self.fair: Any = fair or FairShare()
        self.usage: Any = Usage()

    def share_through(self, link: Any) -> None:
        """With the team's Redis (`RATES_TEAM_URL`), one fair share and one set of counters
        for every worker process and host (shared_fairness.py); this process's own while
        Redis is down."""
        if link is None or link.script("return 1") is None:
            return
        from rates_xl.addin.officejs.shared_fairness import SharedFairShare, SharedUsage

        if not isinstance(self.fair, SharedFairShare):
            self.fair = SharedFairShare(link, self.fair)
            self.usage = SharedUsage(link, self.usage)

    async def admit(self, request: Request) -> str | Response:
        """The signed-in user's name, or the 401 that answers the request."""
        try:
            # On a thread: checking an SSO token may fetch the provider's keys.
            return await run_in_threadpool(self.authenticator.identify, request.headers.get("authorization"))
        except SignInRefused as exc:
            access_log.info("refused sign-in from %s: %s", request.client.host if request.client else "?", exc)
            return unauthorized(str(exc))

    async def run(self, user: str, gate: Any, run_batch: Any, calls: list, client: Any,
                  kind: str = "batch") -> tuple[list, Any]:
        """Run one batch for `user` in their turn; account for it and log it. `kind`: what
        the log line calls it (`batch`, or `live` for a Live subscription, which is one too).

        Raises UserBusy (this user's queue is full) or the gate's Busy."""
        started = time.perf_counter()
        status = "error"
        try:
            async with self.fair.turn(user):
                results, report, sent = await gate.run(_counted, run_batch, calls, client)
            status = "ok"
        except UserBusy:
            status = "refused: this user's queue is full"
            await run_in_threadpool(self.usage.record, user, cells=len(calls), requests_sent=0,
                                    error="too many batches at once")
            raise
        finally:
            if status != "ok":
                access_log.info("user=%s cells=%d requests_sent=0 seconds=%.2f outcome=%r%s", printable(user),
                                len(calls), time.perf_counter() - started, status, _kind(kind))
        errors = [r.get("message") for r in results if isinstance(r, dict) and "error" in r]
        # On a thread: with the team's Redis, counting is a round trip the event loop must not wait for.
        await run_in_threadpool(self.usage.record, user, cells=len(calls), requests_sent=sent,
                                error=errors[-1] if errors else None)
        access_log.info("user=%s cells=%d requests_sent=%d seconds=%.2f outcome=ok errors=%d%s", printable(user),
                        len(calls), sent, time.perf_counter() - started, len(errors), _kind(kind))
        return results, report

    def me(self, user: str) -> dict:
        return {"user": user, "sign_in": self.authenticator.methods, "use": self.usage.of(user),
                "team": self.usage.team()}


def _kind(kind: str) -> str:
    """The access log's words for what was run: nothing for a batch (as before), else kind=."""
    return "" if kind == "batch" else f" kind={kind}"


def _counted(run_batch: Any, calls: list, client: Any) -> tuple[list, Any, int]:
    """run_batch, with the service requests this batch itself sent (on the batch's thread:
    its fetch threads inherit the counter; other users' concurrent batches do not)."""
    from rates_xl.client.stats import counting_sent

    with counting_sent() as sent:
        results, report = run_batch(calls, client)
    return results, report, sent.value


def router(team: Team | None) -> APIRouter:
    """GET /health on every server; GET /api/me on a team server."""
    routes = APIRouter()

    @routes.get("/health")
    async def health() -> dict:
        # sign_in tells the page how to sign in (sso, token): the methods, nothing secret.
        return {"status": "ok", "version": __version__, "mode": "team" if team else "local",
                "sign_in": team.authenticator.methods if team else []}

    if team is not None:
        @routes.get("/api/me")
        async def me(request: Request) -> Response:
            user = await team.admit(request)
            if isinstance(user, Response):
                return user
            return JSONResponse(await run_in_threadpool(team.me, user))

    return routes
