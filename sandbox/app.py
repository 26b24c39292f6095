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
    extra_keys, seed (see `behaviour.Knobs`)."""
    settings = Knobs(**knobs)
    app = FastAPI(
        title="Rates Data Service (rates-xl sandbox)",
        version="1",
        description="A local reference implementation of the Rates Data Service, computed with "
                    "QuantLib from a bundled snapshot. Rates in percent, government yields as decimals.",
    )
    app.state.behaviour = Behaviour(settings)
    app.state.market = market_for(settings.seed)
    install_error_handlers(app)
    guarded = {"dependencies": [Depends(check_request)], "responses": ERROR_RESPONSES}
    app.include_router(routes_rates.router, prefix="/v1", tags=["rates"], **guarded)
    app.include_router(routes_market_data.router, prefix="/v1", tags=["market data"], **guarded)
    app.add_middleware(FaultMiddleware, behaviour=app.state.behaviour)
    return app
