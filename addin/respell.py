"""Rewrite a workbook's RATES formulas from one Excel host's spelling to the other's.

The two hosts name the same functions differently, and Excel stores each differently:

| host                     | typed          | stored in the file (sheet XML)          |
|--------------------------|----------------|-----------------------------------------|
| classic (xlwings, VBA)   | RATES_SWAP(    | RATES_SWAP( (or [1]!RATES_SWAP( with an external link to the add-in, or _xludf.RATES_SWAP( from some writers) |
| Office.js custom function| RATES.SWAP(    | _xldudf_RATES_SWAP( : Excel's prefix for custom functions, the namespace's dot as "_" |

Where the stored form comes from: Microsoft's answer in OfficeDev/Excel-Custom-Functions
issue 108 ("for JavaScript custom functions, we by default save out with a different prefix,
_xldudf"; a formula typed as CUSTOMJS.NEWFDS( in a file does not calculate on open), issue
office-js 5611 ("by design"), and workbooks Excel wrote (`_xldudf_CX_GET(` for CX.GET: the
namespace's dot becomes "_"). A workbook carried from one host to the other shows #NAME?
(or does not calculate) until its formulas are respelled. `respell_file(book, out, to="officejs" | "classic")` reads every spelling above
(any letter case, the dotted form our own tools write, and the former names RATES_DF,
RATES_DFCURVE, RATES_FX) and writes the target's stored form, with current names.

What changes and what does not: only the text of formula elements (`<f>`, conditional
formatting and validation `<formula>`, `<formula1>`, `<formula2>`) in the sheet parts, and
of `<definedName>` in workbook.xml; inside them, only function names outside string
literals and quoted sheet names. Every other part is copied with identical content, in the
same order, with the same names, dates and compression method; cached values stay, so the
file opens showing numbers. Functions we do not know (RATES_FOO) are left alone. Written
by hand because no library edits formula text inside a package without re-serialising
every part (openpyxl drops charts and images, among others).
"""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rates_xl.errors import TaskError
from rates_xl.functions.sheet import RATES_CALL

TARGETS = ("officejs", "classic")
OFFICEJS_STORED_PREFIX = "_xldudf_"

# A RATES call is recognised by functions/sheet.py's RATES_CALL (every spelling and prefix);
# here it must also not follow "!" or "]": a workbook-qualified name is not ours to respell.
_NAME_CHAR = re.compile(r"[A-Za-z0-9_.\\!\]]")
# Formula elements of sheet parts (not self-closing ones: shared-formula references have no text).
_ELEMENT = re.compile(r"(<(?:\w+:)?(f|formula|formula1|formula2)\b[^>]*(?<!/)>)(.*?)(</(?:\w+:)?\2>)", re.S)
_DEFINED_NAME = re.compile(r"(<definedName\b[^>]*(?<!/)>)(.*?)(</definedName>)", re.S)
_FORMULA_PARTS = re.compile(r"^xl/(worksheets|macrosheets|dialogsheets)/[^/]+\.xml$")


class RespellError(TaskError):
    """A workbook that cannot be respelled (message says why)."""


@dataclass
class Report:
    formulas: int = 0  # formula elements changed
    parts: int = 0  # package parts changed
    names: Counter = field(default_factory=Counter)  # "RATES_DF -> _xldudf_RATES_DISCOUNT": count


def current_name(suffix: str) -> str | None:
    """RATES_<suffix> under its current name (former names renamed), or None if unknown."""
    from rates_xl.functions import FUNCTIONS
    from rates_xl.functions.table import FORMER_NAMES

    name = f"RATES_{suffix.upper()}"
    name = FORMER_NAMES.get(name, name)
    return name if name in FUNCTIONS else None


def spelled(name: str, to: str) -> str:
    return OFFICEJS_STORED_PREFIX + name if to == "officejs" else name


def respell_formula(text: str, to: str, names: Counter | None = None) -> str:
    """One formula's text (XML-escaped or not) with every known RATES call respelled."""
    if to not in TARGETS:
        raise ValueError(f"to must be one of {TARGETS}")
    if "rates" not in text.lower():
        return text
    out: list[str] = []
    i, n = 0, len(text)
    in_string = in_sheet = False
    while i < n:
        if not in_sheet and text.startswith("&quot;", i):
            in_string = not in_string
            out.append("&quot;")
            i += 6
            continue
        ch = text[i]
        if ch == '"' and not in_sheet:
            in_string = not in_string
        elif ch == "'" and not in_string:
            in_sheet = not in_sheet
        elif not in_string and not in_sheet and ch in "[_Rr" and (i == 0 or not _NAME_CHAR.match(text[i - 1])):
            match = RATES_CALL.match(text, i)
            name = current_name(match["name"]) if match else None
            if match and name:
                new = spelled(name, to)
                if match[0] != new:
                    if names is not None:
                        names[f"{match[0]} -> {new}"] += 1
                    out.append(new)
                    i = match.end()
                    continue
        out.append(ch)
        i += 1
    return "".join(out)


def respell_part(xml: str, pattern: re.Pattern[str], to: str, report: Report) -> str:
    def one(match: re.Match[str]) -> str:
        new = respell_formula(match[3] if pattern is _ELEMENT else match[2], to, report.names)
        old = match[3] if pattern is _ELEMENT else match[2]
        if new == old:
            return match[0]
        report.formulas += 1
        if pattern is _ELEMENT:
            return match[1] + new + match[4]
        return match[1] + new + match[3]

    return pattern.sub(one, xml)


def respell_file(book: Path, out: Path, *, to: str, force: bool = False) -> Report:
    book, out = Path(book), Path(out)
    if to not in TARGETS:
        raise RespellError(f"--to must be one of {', '.join(TARGETS)}")
    if not book.is_file():
        raise RespellError(f"no such file: {book}")
    if out.exists() and not force:
        raise RespellError(f"{out} exists; choose another -o or add --force")
    try:
        source = zipfile.ZipFile(book)
    except zipfile.BadZipFile:
        raise RespellError(f"{book} is not an Excel workbook (.xlsx/.xlsm: a zip package)") from None
    from rates_xl import atomic

    report = Report()
    # Written beside `out` and renamed into place: a failure or Ctrl+C leaves no half file.
    with source, atomic.replacing(out) as temporary, zipfile.ZipFile(temporary, "w") as target:
        names = source.namelist()
        if "xl/workbook.xml" not in names:
            raise RespellError(f"{book} has no xl/workbook.xml: not an Excel workbook")
        for info in source.infolist():
            data = source.read(info)
            pattern = _ELEMENT if _FORMULA_PARTS.match(info.filename) else (
                _DEFINED_NAME if info.filename == "xl/workbook.xml" else None)
            if pattern is not None:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    text = None
                if text is not None:
                    before = report.formulas
                    new_text = respell_part(text, pattern, to, report)
                    if report.formulas != before:
                        data = new_text.encode("utf-8")
                        report.parts += 1
            # Same name, date, compression, attributes and order; only changed parts differ.
            target.writestr(info, data, compress_type=info.compress_type)
    return report
