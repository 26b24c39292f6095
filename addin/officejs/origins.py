"""Which web origins may read which answers of `rates-xl serve` (CORS), in one place.

Excel on the web runs an add-in inside its own pages, on Microsoft's origins, and fetches the
custom functions' metadata (functions.json), page and script from the add-in's server with
cross-origin requests: without `Access-Control-Allow-Origin` they are "blocked by CORS
policy" and no function registers (OfficeDev/office-js#3970, from
https://excel.officeapps.live.com; OfficeDev/Excel-Custom-Functions#212, from
https://inc-excel.officeapps.live.com). Microsoft's own custom-functions template serves
its files with a CORS header for that reason (OfficeDev/Excel-Custom-Functions PR #73).
Microsoft publishes no list of these origins (OfficeDev/office-js-docs-pr#2956): the
patterns below are the domains Excel on the web is served from.

What CORS opens, and only to those origins: the static files (the manifest, the page, the
script, the metadata, the icons). They hold no key and nothing private; any web page could
read them from an origin it controls anyway. The batch endpoint, which spends the key, is
never shared: it answers its own origin only, sends no CORS header, and refuses a preflight.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rates_xl.client import urls

#: Origins Excel on the web runs add-ins from; `*` is one DNS label (a host's first part).
EXCEL_WEB_ORIGINS: tuple[str, ...] = (
    "https://*.officeapps.live.com",  # excel.officeapps.live.com, usc-excel..., inc-excel...
    "https://*.office.com",
    "https://*.office365.com",
    "https://*.sharepoint.com",  # a workbook opened from SharePoint or OneDrive for work
    "https://*.officeppe.com",  # Microsoft's pre-production Office
    "https://*.cloud.microsoft",  # Microsoft 365's newer domain (excel.cloud.microsoft)
)
#: How long a browser may reuse a preflight's answer, in seconds.
PREFLIGHT_MAX_AGE = 600


def _pattern(origin: str) -> str:
    return re.escape(origin.lower()).replace(r"\*", "[a-z0-9-]+")


class CorsPolicy:
    """`allows(origin)`: may a page on `origin` read the static files?"""

    def __init__(self, own: Iterable[str], excel: Iterable[str] = EXCEL_WEB_ORIGINS) -> None:
        self.own = frozenset(own)
        self.excel = tuple(excel)
        self._excel = re.compile("|".join(f"(?:{_pattern(o)})" for o in self.excel) or "(?!)")

    def is_own(self, origin: str) -> bool:
        return origin in self.own

    def allows(self, origin: str) -> bool:
        return origin in self.own or self._excel.fullmatch(origin) is not None

    def headers(self, origin: str) -> dict[str, str]:
        """What a static file's answer says to a page on `origin` (which `allows`)."""
        return {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}

    def preflight_headers(self, origin: str, requested_headers: str | None) -> dict[str, str]:
        headers = {
            **self.headers(origin),
            "Access-Control-Allow-Methods": "GET, HEAD",
            "Access-Control-Max-Age": str(PREFLIGHT_MAX_AGE),
            # Excel on the web is a public origin reaching a loopback server: Chromium's
            # private/local network checks ask for this in the preflight.
            "Access-Control-Allow-Private-Network": "true",
        }
        if requested_headers:  # public files: whatever headers the page sends are harmless
            headers["Access-Control-Allow-Headers"] = requested_headers[:500]
        return headers


def public_url_problem(public_url: str) -> str | None:
    """Why `public_url` cannot be this server's address (None: it can). Read with the one
    parser the client uses (client/urls.py): a URL that programs read as two places (a
    backslash, user@host, `127.1`, ...) would make the Origin and Host checks, the manifest
    and the browser disagree about who this server is."""
    problem = urls.ambiguity(public_url)
    if problem:
        return f"holds {problem}; write it like https://rates.corp.example"
    if "?" in public_url or "#" in public_url:
        return "holds a ? or #; write it like https://rates.corp.example"
    return None


def public_origin(public_url: str) -> urls.Origin:
    """The server's own origin, normalised as a browser writes it in `Origin`; ValueError
    for a URL `public_url_problem` refuses."""
    problem = public_url_problem(public_url)
    if problem:
        raise ValueError(f"the public URL {problem}")
    return urls.origin(public_url)
