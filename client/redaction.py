"""Removing the API key from text the client did not write: a service's error detail, an HTML
page from a proxy, a message built from either.

A service or a proxy may echo the key whole, or only part of it ("key rk-live-7Hq2Zp9X...
is invalid"). Any run of 8 or more characters of the key is taken as a piece of it: every
such run is covered by the key's 8-character windows, so the text is searched for each
window (str.find, a fast scan in C: 20-odd scans for a 30-character key, milliseconds even
for a body of megabytes) and every stretch they cover is replaced. Shorter runs are not
removed: 7 characters could be anything, and so little of a random key does not give it away.
Written by hand: no library does this, and it is a few lines.
"""

from __future__ import annotations

from typing import overload

from rates_xl.client.json_types import JSONValue

#: What the key (or a piece of it) becomes in the client's texts.
REDACTED = "[api key]"
#: Shortest piece of the key that is removed.
FRAGMENT = 8


def redact_text(text: str, secret: str | None, replacement: str = REDACTED) -> str:
    """`text` with the key and every piece of it of FRAGMENT or more characters replaced."""
    if not secret or not text:
        return text
    if len(secret) <= FRAGMENT:
        return text.replace(secret, replacement)
    spans: list[tuple[int, int]] = []
    for window in {secret[i:i + FRAGMENT] for i in range(len(secret) - FRAGMENT + 1)}:
        start = text.find(window)
        while start != -1:
            spans.append((start, start + FRAGMENT))
            start = text.find(window, start + 1)
    if not spans:
        return text
    spans.sort()
    out, kept = [], 0
    cover_start, cover_end = spans[0]
    for start, end in spans[1:] + [(len(text) + 1, len(text) + 1)]:
        if start <= cover_end:  # overlapping or touching windows: one piece of the key
            cover_end = max(cover_end, end)
            continue
        out.append(text[kept:cover_start])
        out.append(replacement)
        kept = cover_end
        cover_start, cover_end = start, end
    out.append(text[kept:])
    return "".join(out)


@overload
def redact(value: str, secret: str | None) -> str: ...
@overload
def redact(value: JSONValue, secret: str | None) -> JSONValue: ...
def redact(value: JSONValue, secret: str | None) -> JSONValue:
    """`value` (a string, or JSON's lists and dicts of them) with the key's pieces replaced."""
    if not secret:
        return value
    if isinstance(value, str):
        return redact_text(value, secret)
    if isinstance(value, list):
        return [redact(v, secret) for v in value]
    if isinstance(value, dict):
        return {k: redact(v, secret) for k, v in value.items()}
    return value
