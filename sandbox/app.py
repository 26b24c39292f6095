"""The sandbox application: `create_app(**knobs)` builds one independent service."""

from __future__ import annotations

from fastapi import Depends, FastAPI

from rates_xl.sandbox import routes_market_data, routes_rates, schemas
from rates_xl.sandbox.behaviour import Behaviour, FaultMiddleware, Knobs, check_request
from rates_xl.sandbox.errors import install_error_handlers
from rates_xl.sandbox.market import market_for

ERROR_RESPONSES = {
    status: {"model": schemas.ErrorBody, "description": meaning}
    for status, meaning in {
        400: "Bad request: a string, or a list of parameter validation errors",
        403: "Key missing, invalid, expired (trial) or not permitted",
        404: "No data",
        422: "Unknown index, currency pair or country",
        429: "Rate limit exceeded (see Retry-After)",
        503: "Injected fault (fail_rate knob)",
    }.items()
}


def create_app(**knobs) -> FastAPI:
    """A sandbox service. Knobs: rate_limit, burst, latency_ms, fail_rate, storm_seconds,
    extra_keys, seed, shift (see `behaviour.Knobs`)."""
    if isinstance(knobs.get("shift"), str):
        knobs["shift"] = shift_of(knobs["shift"], knobs.pop("buckets", None))
    settings = Knobs(**knobs)
    shifted = f" Curves SHIFTED by the scenario {settings.shift.described()}: not the market." if settings.shift else ""
    app = FastAPI(
        title="Rates Data Service (rates-xl sandbox)",
        version="1",
        description="A local reference implementation of the Rates Data Service, computed with "
                    "QuantLib from a bundled snapshot. Rates in percent, government yields as decimals." + shifted,
    )
    app.state.behaviour = Behaviour(settings)
    app.state.market = market_for(settings.seed, settings.shift)
    install_error_handlers(app)
    guarded = {"dependencies": [Depends(check_request)], "responses": ERROR_RESPONSES}
    app.include_router(routes_rates.router, prefix="/v1", tags=["rates"], **guarded)
    app.include_router(routes_market_data.router, prefix="/v1", tags=["market data"], **guarded)
    app.add_middleware(FaultMiddleware, behaviour=app.state.behaviour)
    if settings.shift is not None:
        _mark_shifted(app, settings.shift.described())
    return app


def shift_of(spec: str, buckets: str | None = None):
    """A scenario spec (and key-rate buckets) read for the sandbox: its indexes named as the
    conventions table names them; `SpecError` (one line) for a bad spec or an index the
    sandbox does not have."""
    from rates_xl.sandbox.conventions import INDEX_ALIASES, INDEXES
    from rates_xl.scenario.spec import SpecError, parse

    scenario = parse(spec, buckets)
    unknown = sorted(i for i in scenario.indexes() if i is not None and i not in INDEX_ALIASES)
    if unknown:
        raise SpecError(f"the sandbox has no index {unknown[0]!r} (its indexes: {', '.join(INDEXES)})")
    return scenario.renamed(INDEX_ALIASES)


def _mark_shifted(app: FastAPI, described: str) -> None:
    """Every answer of a shifted sandbox says so in a header (X-Rates-Scenario): its numbers
    are a scenario's, never mistakable for the market's."""
    from starlette.middleware.base import BaseHTTPMiddleware

    async def mark(request, call_next):
        response = await call_next(request)
        response.headers["X-Rates-Scenario"] = described
        return response

    app.add_middleware(BaseHTTPMiddleware, dispatch=mark)
