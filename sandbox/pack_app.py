"""`rates-xl sandbox --pack FILE`: serve a market-data pack's answers, and nothing else.

So the add-in in Excel can replay a book: point RATES_BASE_URL here and every request the
pack holds gets its recorded answer, byte for byte as the service sent it; a recorded
refusal gets its status again; anything else is a 404 whose detail says it is not in the
pack. No key is needed (none is checked: the pack is the only data there is), no
QuantLib, no network.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from rates_xl.client import errors
from rates_xl.client.endpoints import ENDPOINTS
from rates_xl.client.pack import Pack
from rates_xl.client.pack_replay import NotInPack, PackTransport

_STATUS = {"BadRequest": errors.BadRequest.status, "NotFound": errors.NotFound.status,
           "Unprocessable": errors.Unprocessable.status}


def create_pack_app(pack: Pack) -> FastAPI:
    app = FastAPI(title="Rates Data Service (rates-xl market-data pack replay)", version="1",
                  description=f"Answers recorded from {pack.base_url} at {pack.created}; nothing else.")
    by_path = {spec.path: spec.name for spec in ENDPOINTS.values()}
    # The client's own replay transport does the lookup: one place decides what the pack holds.
    transport = PackTransport(pack)
    app.state.arrivals = []

    @app.get("/v1/{name}")
    def answer(name: str, request: Request) -> Response:
        app.state.arrivals.append(request.url.path)
        endpoint = by_path.get(f"/v1/{name}")
        if endpoint is None:
            return JSONResponse({"detail": f"not in the market-data pack: no endpoint /v1/{name}"},
                                status_code=404)
        params = dict(request.query_params)
        try:
            found = transport.fetch(endpoint, f"/v1/{name}", params, timeout=0)
        except NotInPack as exc:
            return JSONResponse({"detail": str(exc)}, status_code=404)
        except errors.RatesError as exc:  # a refusal the service gave when the pack was recorded
            return JSONResponse({"detail": str(exc)}, status_code=_STATUS.get(type(exc).__name__, 400))
        return Response(found.text, media_type="application/json")

    return app
