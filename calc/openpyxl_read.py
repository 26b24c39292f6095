"""The one way calc has openpyxl read a book: never lost whole for a part openpyxl cannot read.

`load_workbook` is openpyxl's, with its reading mended where it fails on what Excel writes
(grouped pivot items: calc/pivot_read.py `mend`; DDE and OLE links: calc/feed_links.py `mend`).
Should it still fail, the book is read again with less, in this order, and the first reading
that succeeds is the book:

1. without its pivot tables and caches (calc/pivot_read.py `without_pivots`; the copy lacks
   them, which copy_losses.py counts);
2. with its stylesheet kept to its number formats (calc/style_read.py `plain`), then also
   without its differential formats; `styles_lost` says why, and the summary says what the
   copy lacks (calc/workbook.py).

A book none of these reads raises openpyxl's first failure, which says what is wrong with it.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from rates_xl.calc import feed_links, pivot_read, style_read

if TYPE_CHECKING:
    from openpyxl import Workbook

_STYLES = "xl/styles.xml"  # (openpyxl's ARC_STYLE: the name it reads the stylesheet by)
_STYLES_LOST = "_rates_xl_styles_lost"


def load_workbook(source: bytes | str | Path | io.BytesIO, **options: bool) -> Workbook:
    """openpyxl's `load_workbook` of a file (its bytes, its path or a buffer of them) with
    `options`, read again with less where openpyxl fails (the module's docstring)."""
    import openpyxl

    data = source if isinstance(source, bytes) else \
        source.getvalue() if isinstance(source, io.BytesIO) else Path(source).read_bytes()
    pivot_read.mend()
    feed_links.mend()
    try:
        return openpyxl.load_workbook(io.BytesIO(data), **options)
    except Exception as exc:  # noqa: BLE001 - whatever openpyxl raises: read with less
        first = last = exc
    for changed, styles in _with_less(data):
        try:
            book = openpyxl.load_workbook(io.BytesIO(changed), **options)
        except Exception as exc:  # noqa: BLE001
            last = exc
            continue
        if styles:
            lost = f"{styles} (openpyxl could not read them: {_said(last)})"
            setattr(book, _STYLES_LOST, lost)  # noqa: B010 (openpyxl declares no such slot)
        return book
    raise first from None


def styles_lost(book: Workbook) -> str | None:
    """Why `book` was read with its stylesheet kept to its number formats, and what else it
    lost; None when its stylesheet was read whole."""
    found = getattr(book, _STYLES_LOST, None)
    return found if isinstance(found, str) else None


def _with_less(data: bytes) -> Iterator[tuple[bytes, str]]:
    """The package with less in it, in the order tried: (its bytes, what its stylesheet lost:
    "" when whole)."""
    unpivoted = pivot_read.without_pivots(data)
    if unpivoted is not None:
        yield unpivoted, ""
    base = unpivoted or data
    for differential, lost in ((True, ""), (False, " and its conditional formats' formatting")):
        changed = _part_replaced(base, _STYLES, partial(style_read.plain, differential=differential))
        if changed is not None:
            yield changed, f"fonts, fills, borders, alignments and cell styles{lost}"


def _said(exc: BaseException) -> str:
    """The failure openpyxl's reading of the stylesheet ended with, in one line."""
    while exc.__cause__ is not None:  # (openpyxl's "Unable to read workbook: could not read stylesheet")
        exc = exc.__cause__
    said = str(exc).splitlines()
    return f"{type(exc).__name__}: {said[0]}" if said else type(exc).__name__


def _part_replaced(data: bytes, name: str, replace: Callable[[bytes], bytes | None]) -> bytes | None:
    """The package `data` with its part `name` given by `replace`, or None (no such part, or
    nothing to give)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as source:
            if name not in source.namelist():
                return None
            changed = replace(source.read(name))
            if changed is None:
                return None
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
                for info in source.infolist():
                    copy.writestr(info, changed if info.filename == name else source.read(info))
    except (zipfile.BadZipFile, OSError, KeyError, ValueError):
        return None
    return out.getvalue()
