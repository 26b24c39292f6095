"""One reading of a URL for every decision about where the API key may go.

The connection reads a URL with urllib3's `parse_url` (requests prepares every URL with it,
and its adapter then picks the connection from that reading); Python's `urlsplit`, which
the client used to decide "same origin?", reads some URLs differently: urllib3 ends the
host at a backslash, urlsplit at the last `@`, so `http://a:1\\@b:2/` was judged to be b:2
and sent, key and all, to a:1. Browsers (WHATWG) read a backslash as a slash, resolvers
read `127.1`, `0x7f.0.0.1` and `2130706433` as 127.0.0.1, and parsers disagree on tabs,
newlines and percent-encoding in a host. So:

- `ambiguity(url)` says why two parsers could read a URL differently (a backslash, a
  control character or space, a character outside ASCII, a user name or password, a
  percent-encoded host, a scheme without `//`, a numeric host in a form resolvers read as
  another, a host urllib3 and urlsplit read as two): such a URL is refused, never guessed at;
- `origin(url)` is (scheme, host, port) as urllib3 reads it, normalised (lower case, the
  default port written out, an IPv6 address compressed), and only for a URL without any
  ambiguity;
- `resolve(base, location)` is where a redirect points, or `Ambiguous`.

The transport then connects to the configured origin itself, taking only the path and query
from a same-origin Location (transport.py): what is compared is what is connected to.
"""

from __future__ import annotations

import ipaddress
import re
from typing import NamedTuple
from urllib.parse import urljoin, urlsplit

from urllib3.exceptions import LocationParseError
from urllib3.util import parse_url

from rates_xl.errors import InputError

DEFAULT_PORTS = {"http": 80, "https": 443}
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# A DNS name as a resolver reads it: letters, digits, hyphens (and the underscores some
# internal names carry), dot-separated. Anything else in a host is refused.
_HOST_NAME = re.compile(r"^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$")
# A label a resolver (inet_aton) or a browser (WHATWG's IPv4 parser) reads as a number.
_NUMERIC_LABEL = re.compile(r"^(0[xX][0-9a-fA-F]*|[0-9]+)$")
_DOTTED_QUAD = re.compile(r"^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$")


class Ambiguous(InputError):
    """A URL that two parsers may read as two different places; `str()` says why."""


class Origin(NamedTuple):
    """Where a request goes: the scheme, the host (lower case; an IPv6 address compressed,
    without brackets) and the port (the scheme's default written out)."""

    scheme: str
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if self.port == DEFAULT_PORTS.get(self.scheme) else f":{self.port}"
        return f"{self.scheme}://{host}{port}"


def _characters(text: str) -> str | None:
    """What in the raw text alone makes parsers disagree."""
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in text):
        return "a control character or space"
    if any(ord(c) > 0x7E for c in text):
        return "a character outside ASCII"
    if "\\" in text:
        return "a backslash"
    if _SCHEME.match(text) and not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", text):
        return "a scheme without // after it"
    return None


def ambiguity(url: str) -> str | None:
    """Why parsers could read an absolute `url` as different places; None when they cannot."""
    problem = _characters(url)
    if problem:
        return problem
    try:
        read = parse_url(url)
        split = urlsplit(url)
        split_port = split.port
    except (LocationParseError, ValueError):
        return "a host or port that is not one"
    if not read.scheme or not read.host:
        return "no scheme:// and host"
    if read.auth is not None or "@" in split.netloc:
        return "a user name or password (user@host)"
    if "%" in split.netloc:
        return "a percent-encoded host"
    host = read.host.lower()
    if host.startswith("["):
        try:
            host = ipaddress.IPv6Address(host[1:-1]).compressed
        except ValueError:
            return "an IPv6 address that is not one"
    else:
        labels = host.removesuffix(".").split(".")
        if _NUMERIC_LABEL.match(labels[-1]) and not _DOTTED_QUAD.match(host):
            return "a numeric host in a form resolvers read as another address (write it a.b.c.d)"
        if not _HOST_NAME.match(host):
            return "characters a host name cannot hold"
    split_host = (split.hostname or "").lower()
    if ":" in split_host:
        try:
            split_host = ipaddress.IPv6Address(split_host).compressed
        except ValueError:
            return "an IPv6 address that is not one"
    if (split.scheme.lower(), split_host, split_port) != (read.scheme.lower(), host, read.port):
        return "a host that parsers read as two different ones"
    if read.port is not None and not 0 < read.port < 65536:
        return "a port out of range"
    return None


def origin(url: str) -> Origin:
    """(scheme, host, port) of an absolute URL, as the connection reads it; `Ambiguous` for
    a URL that two parsers could read differently."""
    problem = ambiguity(url)
    if problem:
        raise Ambiguous(problem)
    read = parse_url(url)
    if read.scheme is None or read.host is None:  # (ambiguity() refuses those already)
        raise Ambiguous("no scheme:// and host")
    scheme, host = read.scheme.lower(), read.host.lower()
    if host.startswith("["):
        host = ipaddress.IPv6Address(host[1:-1]).compressed
    port = read.port if read.port is not None else DEFAULT_PORTS.get(scheme, 0)
    return Origin(scheme, host, port)


def resolve(base: str, location: str) -> str:
    """The absolute URL a redirect's `location` names, relative to `base` (RFC 3986, as
    urljoin resolves it); `Ambiguous` when the Location or the result could be read as two
    places."""
    problem = _characters(location)
    if problem:
        raise Ambiguous(problem)
    target = urljoin(base, location)
    problem = ambiguity(target)
    if problem:
        raise Ambiguous(problem)
    return target


def request_target(url: str) -> str:
    """The path and query of an unambiguous URL, as urllib3 sends them (no fragment)."""
    return parse_url(url).request_uri
