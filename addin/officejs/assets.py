"""The files the server hands Excel, built from the package's static files and the table.

`script(...)` is static/functions.js with its CONFIG filled in: the functions and their
arities (from the table), the batch URL and the time limits. `page(...)` is
static/functions.html with the Office.js URL. `icon_png(size)` draws the add-in's icon.
"""

from __future__ import annotations

import json
import struct
import zlib
from functools import cache
from importlib.resources import files

from rates_xl import __version__
from rates_xl.addin.officejs import metadata

_STATIC = files("rates_xl.addin.officejs") / "static"
SCRIPT_SOURCE = (_STATIC / "functions.js").read_text(encoding="utf-8")
PAGE_SOURCE = (_STATIC / "functions.html").read_text(encoding="utf-8")
#: Microsoft's hosted Office.js (the documented way to load it).
OFFICE_JS_URL = "https://appsforoffice.microsoft.com/lib/1/hosted/office.js"
BATCH_PATH = "/api/batch"
#: Where the task pane asks for the seal of the pack it writes into the book (packs.py).
PACK_SEAL_PATH = "/api/pack/seal"
LIVE_PATH = "/api/live"
#: A failed Live poll is tried again after this long (the server restarting, say).
LIVE_RETRY_MS = 3000
#: Quiet time before a queued batch goes out: Excel hands over a recalculation's calls
#: within a few milliseconds of each other.
FLUSH_MS = 25


@cache
def metadata_bytes(help_base: str | None = None) -> bytes:
    """functions.json; with `help_base` (the server's URL) each function's helpUrl points there."""
    return metadata.functions_json(help_base=help_base).encode("utf-8")


def script(*, origin: str, time_limit_s: float, max_batch: int) -> str:
    config = {
        "functions": metadata.script_arities(),
        "references": metadata.script_references(),
        "batchUrl": BATCH_PATH,
        "packSealUrl": PACK_SEAL_PATH,
        "origin": origin,
        "timeLimitMs": int(time_limit_s * 1000),
        "flushMs": FLUSH_MS,
        "maxBatch": max_batch,
        "streaming": metadata.script_streaming(),
        "live": {"subscribeUrl": LIVE_PATH + "/subscribe", "pollUrl": LIVE_PATH + "/poll",
                 "cancelUrl": LIVE_PATH + "/cancel", "retryMs": LIVE_RETRY_MS},
    }
    return SCRIPT_SOURCE.replace("/*@CONFIG@*/ null", json.dumps(config, sort_keys=True))


def page(office_js_url: str = OFFICE_JS_URL) -> str:
    from xml.sax.saxutils import escape

    return PAGE_SOURCE.replace("@OFFICE_JS@", escape(office_js_url, {'"': "&quot;"})).replace(
        "@VERSION@", escape(__version__))


@cache
def icon_png(size: int) -> bytes:
    """A square icon: the product's blue with a white rising line. Drawn here (PNG is a few
    lines with zlib) so the package ships no binary files."""

    def pixel(x: int, y: int) -> bytes:
        line_y = size - 1 - (x * 2 // 3) - size // 6
        if abs(y - line_y) <= max(1, size // 16) and size // 8 <= x < size - size // 8:
            return b"\xff\xff\xff"
        return b"\x1f\x5f\xa8"

    raw = b"".join(b"\x00" + b"".join(pixel(x, y) for x in range(size)) for y in range(size))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
