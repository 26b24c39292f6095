"""Error bodies as the service writes them: always `{"detail": ...}`.

- 400 parameter validation: a list of `{"loc", "msg", "type"}` (FastAPI answers 422 by
  default; the service uses 422 for an unknown index, so validation is moved to 400).
- every other error: a string a person can act on.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from rates_xl.errors import Refusal

log = logging.getLogger("rates_xl.sandbox")


class ServiceError(Refusal):
    """An answer other than 200, with a string detail."""

    def __init__(self, status: int, detail: str, headers: dict[str, str] | None = None):
        super().__init__(detail)
        self.status, self.detail, self.headers = status, detail, headers


def bad_param(name: str, msg: str, where: str = "query") -> RequestValidationError:
    """A 400 about one parameter, in the same list shape as FastAPI's own validation."""
    return RequestValidationError([{"loc": (where, name), "msg": msg, "type": "value_error"}])


def _validation_detail(exc: RequestValidationError) -> list[dict]:
    return [
        {"loc": list(err.get("loc", ())), "msg": str(err.get("msg", "")), "type": str(err.get("type", ""))}
        for err in exc.errors()
    ]


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _validation_detail(exc)}, status_code=400)

    @app.exception_handler(ServiceError)
    async def _service(_: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse({"detail": exc.detail}, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("error while processing %s", request.url.path)
        return JSONResponse({"detail": f"Error while processing the request: {type(exc).__name__}"},
                            status_code=500)
