"""CHAR, CODE, UNICHAR-free text functions whose answer depends on the Excel that computed
the book: CHAR and CODE read bytes in the machine's code page, Mac Roman in Excel for Mac and
Windows-1252 elsewhere (formualizer always uses Latin-1)."""

from __future__ import annotations

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number, text


def code_page(facts: Facts) -> str:
    return "mac_roman" if "macintosh" in str(facts.get("application", "")).lower() else "cp1252"


def _decode(code: int, page: str) -> str:
    try:
        return bytes([code]).decode(page)
    except UnicodeDecodeError:  # the five bytes Windows-1252 leaves undefined pass through
        return chr(code)


def char(facts: Facts) -> Callback:
    page = code_page(facts)

    @elementwise
    def CHAR(value: EngineValue) -> str:  # noqa: N802 - Excel's name
        code = int(number(value))
        if not 1 <= code <= 255:
            raise ExcelError("#VALUE!")
        return _decode(code, page)

    return CHAR


def code(facts: Facts) -> Callback:
    page = code_page(facts)

    @elementwise
    def CODE(value: EngineValue) -> int:  # noqa: N802 - Excel's name
        found = text(value)
        if not found:
            raise ExcelError("#VALUE!")
        try:
            return found[0].encode(page)[0]
        except UnicodeEncodeError:
            return 63  # Excel's "?" for a character outside the code page
    return CODE
