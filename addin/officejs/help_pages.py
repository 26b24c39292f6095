"""GET /help/<function>.html: each function's reference page, the `helpUrl` Excel opens from
the formula bar and the Function Wizard.

The pages are the documentation site's function reference (rates_xl.functions.reference),
rendered as self-contained HTML: no script, no external file, nothing that needs the key.
"""

from __future__ import annotations

from functools import cache

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, JSONResponse, Response

router = APIRouter()

HELP_PATH = "/help/{name}.html"


def help_url(public_url: str, name: str) -> str:
    """The helpUrl of the function `name` (RATES_SWAP) on the server at `public_url`."""
    return public_url.rstrip("/") + HELP_PATH.format(name=name)


@cache
def _page(name: str) -> str | None:
    from rates_xl.functions.reference import function_html

    return function_html(name)


@router.get(HELP_PATH)
def function_help(name: str) -> Response:
    page = _page(name.upper()) if len(name) <= 40 else None
    if page is None:
        return JSONResponse({"detail": "no such function"}, status_code=404)
    return HTMLResponse(page)
