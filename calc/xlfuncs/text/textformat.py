"""TEXT as Excel computes it, where the bridged `formulas` TEXT does not: its format sections,
`positive;negative;zero;text`. The negative section
formats the number without its sign (the section writes it: "($#,##0.00)"), the zero section
formats 0, the text section puts the text where its @ is, and colours ([Red]) change nothing in
text. The bridged `formulas` TEXT, right on one section, read sections wrongly:
TEXT(1234.5,"$#,##0.00;($#,##0.00)") was "($1,234.50)" for a positive number, -1234.5 gave
"-($1,234.50)", "0;-0" gave "--5", a zero section and [Red] were not read (#VALUE!). This module
picks the section and hands it, as one section, to the bridged TEXT, and within a number's
section (`_prepared`) does what that one does not:

- rounds half away from zero on the number's 15 significant digits (TEXT(2.675,"0.00") is
  2.68, TEXT(1234.5,"0") 1235; Python's formatting gave 2.67 and 1234);
- scales by 1,000 for each comma after the last digit placeholder ("#,##0," shows thousands,
  '0.0,,"M"' millions; formulas wrote the number whole and the comma as text);
- leaves the thousands separator out below 1,000, where it changes nothing (formulas wrote
  TEXT(0.25,"$#,##0.00") as "$0,.25");
- writes `_)`, the accounting formats' padding, as a space;
- writes no minus sign before a number shown as zero (TEXT(-1/3,"0") is "0", TEXT(-2.5E-10,"0.00%")
  "0.00%"), and "General" as the General format writes a number (numbers.py `general`): Excel's
  answers in IronCalc's Excel-made TEXT workbook (tests/calc/test_text_dates.py);
- writes a number shown with more than 15 significant digits (TEXT(2^70,"0"),
  TEXT(0.1+0.2,"0.00000000000000000000")) from its 15 digits, zeros after them: Excel exposes
  no more (Apache POI's ExcelArithmetic.toBigDecimal; Microsoft's "Floating-point arithmetic
  may give inaccurate results in Excel": 15 significant digits). formulas wrote the float's
  binary expansion ("1180591620717409992704", "0.29999999999999998890"), and a number past
  the decimal module's default 28 digits (TEXT(1E+30,"0")) was #VALUE!.

Dates and times are datetimes.py's, fractions fractions.py's, exponents exponents.py's, a
section padding with `?` placeholders.py's. A format with conditions ([>100]) takes the first
section whose condition the number meets (`_conditioned`), and a logical is formatted as its
text (TEXT(TRUE,";;;@") is "TRUE": formulas' answer #VALUE!). Checked against LibreOffice (tests/calc/test_text_format.py).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from decimal import Decimal, localcontext

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.coercion import Callback, Facts, elementwise, number, number_text
from rates_xl.calc.xlfuncs.limits import TEXT_LIMIT
from rates_xl.calc.xlfuncs.text import datetimes, exponents, fractions, numbers, placeholders
from rates_xl.calc.xlfuncs.text.number_text import NOT_COMPUTED
from rates_xl.calc.xlfuncs.text.numbers import DIGITS, general, past_shown, rounded
from rates_xl.calc.xlfuncs.text.placeholders import own_characters, scaling_commas
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

_COLOUR = re.compile(r"\[(?:black|blue|cyan|green|magenta|red|white|yellow|color\s*\d{1,2})\]", re.IGNORECASE)
_CONDITION = re.compile(r"\[\s*(?:<=|>=|<>|<|>|=)")
#: A section's condition: [<10], [>= -1.5] (spaces allowed around the number).
_CONDITION_AT = re.compile(r"\[\s*(?P<op><=|>=|<>|<|>|=)\s*(?P<limit>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*\]")
_COMPARED: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "=": operator.eq, "<>": operator.ne}


_DIGIT = "0#"
#: The `formulas` release whose `_parse_format_code` and `_format_number` `_laid_out` calls
#: (tests/calc/test_text_format.py fails on another: its answers past 15 digits go wrong again).
READ_FROM = "1.3.4"


def sections(code: str) -> list[str]:
    """The format's sections: split at `;` outside quotes, brackets and `\\` escapes."""
    cuts = [-1, *(i for i, ch in own_characters(code) if ch == ";"), len(code)]
    return [code[a + 1:b] for a, b in zip(cuts, cuts[1:], strict=False)]


def _spaced(section: str) -> str:
    """`_)` (a space as wide as ")", the accounting formats' padding) written as a space, as in
    TEXT's answer: formulas wrote "_)" as it is; a fill (`*` and the character it repeats to
    the cell's width) left out, as TEXT leaves it (pycel's Excel-made text.xlsx: TEXT(1234.56,
    "$x*y#,##0* ") is "$x1,235")."""
    marks = {i: ch for i, ch in own_characters(section) if ch in "_*"}
    if not marks:
        return section
    out, i = [], 0
    while i < len(section):
        if i in marks:
            if marks[i] == "_":
                out.append(" ")
            i += 2
            continue
        out.append(section[i])
        i += 1
    return "".join(out)


def _whole_digits(section: str) -> str:
    """A section with no digit placeholder before its point ("0.#" without the 0) shows the
    integer's digits all the same (pycel's Excel-made text.xlsx: TEXT(890123.456789,".#") is
    "890123.5"; formulas wrote ".5"): a `#` put before the point, which shows them and nothing for 0."""
    own = own_characters(section)
    point = next((i for i, ch in own if ch == "."), None)
    if point is None or any(ch in _DIGIT for i, ch in own if i < point) or \
            not any(ch in _DIGIT for i, ch in own if i > point):
        return section
    return section[:point] + "#" + section[point:]


def _prepared(number: float, section: str) -> tuple[float, str, Decimal | None]:
    """`number` rounded as Excel rounds for `section`, scaled by its trailing commas, and the
    section without the commas formulas misreads (see the module's docstring); and the number
    as the exact decimal it stands for (None for a section `_prepared` leaves to formulas)."""
    own = own_characters(section)
    letters = "".join(ch for _, ch in own).lower()
    if any(ch in letters for ch in "ymdhsae?/") or not any(ch in _DIGIT for _, ch in own):
        return number, section, None  # dates, times, AM/PM, exponents, fractions, General: formulas'
    point = next((i for i, ch in own if ch == "."), None)
    decimals = sum(1 for i, ch in own if ch in _DIGIT and point is not None and i > point)
    percent = sum(1 for _, ch in own if ch == "%")
    scaling = scaling_commas(own, max(i for i, ch in own if ch in _DIGIT))
    scaled = number * 100 ** percent / 1000 ** len(scaling)
    exact = rounded(scaled, decimals)
    if not exact:  # shown as zero: no minus sign (TEXT(-1/3,"0") is "0" in Excel)
        exact = abs(exact)
    shown = float(exact)
    with localcontext(prec=DIGITS):
        exact = exact / 100 ** percent  # (formulas multiplies by 100 for each %: exactly, in decimal)
    drop = set(scaling)
    if abs(shown) < 1000:  # a thousands separator changes nothing here
        digits = [i for i, ch in own if ch in _DIGIT and (point is None or i < point)]
        drop |= {i for i, ch in own if ch == "," and digits and digits[0] < i < digits[-1]}
    section = "".join(ch for i, ch in enumerate(section) if i not in drop)
    return shown / 100 ** percent, section, exact


def _shown(number: float, section: str, computed: Callable[..., EngineValue], epoch: int = 0) -> EngineValue:
    """A number in one of its format's number sections, as Excel writes it (`epoch`: the book's
    day 0 as a 1900 serial, datetimes.py)."""
    if section.strip().lower() == "general":
        return general(number)
    dated = datetimes.formatted(number, section, epoch)
    if dated is not None:
        return dated
    if (fraction := fractions.formatted(number, section)) is not None:
        return fraction  # "# ??/32": fractions.py
    if (scientific := exponents.formatted(number, section)) is not None:
        return scientific  # "##0.0E+0": exponents.py
    section = _whole_digits(section)
    if (spaced := placeholders.laid_out(number, section)) is not None:
        return spaced  # `?`, the placeholder padding with a space: placeholders.py
    value, section, exact = _prepared(number, section)
    if exact is not None and past_shown(exact):
        written = _laid_out(exact, section)
        if written is not None:
            return written
    return computed(value, section)


def _laid_out(exact: Decimal, section: str) -> str | None:
    """formulas' TEXT of one number section, given the exact decimal instead of a float (its
    `_format_number` formats with Python's format(), which writes a Decimal's own digits), or
    None where that cannot be done (another `formulas` release, a section it reads otherwise)."""
    import formulas

    if formulas.__version__ != READ_FROM:
        return None
    from formulas.functions import text as formulas_text

    from rates_xl.calc.xlfuncs.bridge import FORMULAS_LOCK

    with FORMULAS_LOCK:  # one call into `formulas` at a time (bridge.py says why)
        try:
            conditions = formulas_text._parse_format_code(section)
        except Exception:  # noqa: BLE001 - a code it cannot read: its own answer, as before
            return None
        if len(conditions) != 1:
            return None
        _check, codes, types, layout, factor = conditions[0]
        if "number" not in types or "date" in types or "time" in types or "exp" in types:
            return None
        with localcontext(prec=DIGITS):
            return "".join(formulas_text._format_number(exact, codes, types, layout, factor))


def _text_section(section: str, text: str) -> EngineValue:
    """A text section written out: quoted runs and escaped characters as they are, @ the text."""
    out, i = [], 0
    shown = 0  # characters of the text put in so far
    while i < len(section):
        ch = section[i]
        if ch == '"':
            end = section.find('"', i + 1)
            end = len(section) if end < 0 else end
            out.append(section[i + 1:end])
            i = end + 1
            continue
        if ch == "\\" and i + 1 < len(section):
            out.append(section[i + 1])
            i += 2
            continue
        out.append(text if ch == "@" else ch)
        i += 1
        if ch == "@":
            shown += len(text)
            if shown > TEXT_LIMIT:  # past a cell's limit (limits.py), not built to a billion characters
                return error("#VALUE!")
    return "".join(out)


def _split(parts: list[str]) -> tuple[list[str], str | None]:
    """(the numbers' sections, the text's or None). The text's is the fourth, or the last of two
    or three that holds @ (pycel's Excel-made text.xlsx: TEXT(-1,"w;x@") is "-w", the minus
    sign of the one number section; TEXT(0,"w;x;z@") "w", no zero section), or a lone one
    holding @ (then the numbers' too: a number shows as it is)."""
    if len(parts) >= 4:
        return parts[:3], parts[3]
    if _holds_at(parts[-1]):
        return (parts[:-1] or parts), parts[-1]
    return parts, None


def _holds_at(section: str) -> bool:
    return any(ch == "@" for _, ch in own_characters(section))


def _as_text(value: str, section: str | None) -> EngineValue:
    """Text in a format: in its text section, else as it is."""
    return value if section is None else _text_section(section, value)


def _conditioned(number: float, parts: list[str], computed: Callable[..., EngineValue], epoch: int) -> EngineValue:
    """A number in a format with conditions ("[<10]0.0;[<100]0;0,\"K\""): the first section
    whose condition it meets, else the last one without a condition, the number with its sign
    either way; with none met and one section, the General format ("[<10]#\" Wow\"" of 10 is
    "10": apache/poi's Excel-made FormatConditionTests.xlsx). What no book shows (a negative
    number in a section without a condition, no condition met among several) is not computed."""
    chosen: str | None = None
    for k, part in enumerate(parts):
        found = _CONDITION_AT.search(part)
        if found is None:
            if k == len(parts) - 1 and k:
                chosen = part if number >= 0 else None
                if chosen is None:
                    return error(NOT_COMPUTED)
            break
        limit = float(found["limit"])
        if _COMPARED[found["op"]](number, limit):
            chosen = part[:found.start()] + part[found.end():]
            break
    if chosen is None:
        return general(number) if len(parts) == 1 else error(NOT_COMPUTED)
    return _shown(number, chosen, computed, epoch)


def _number(value: EngineValue) -> float | None:
    """A number, or text that reads as one; None for anything else (a boolean, an empty cell)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return number(value)
    except Exception:  # noqa: BLE001 - text that is not a number, an error value
        return None


def text(facts: Facts) -> Callback:
    from rates_xl.calc.xlfuncs.bridge import bridged
    from rates_xl.calc.xlfuncs.dates.system1904 import SHIFT, text_serial

    epoch = SHIFT if facts and facts.get("date1904") else 0

    computed = bridged("TEXT")
    value_of = numbers.FUNCTIONS["VALUE"](facts)  # text Excel reads as a number, a date ("1987-08-26"), a time

    def one(value: EngineValue, code: EngineValue) -> EngineValue:
        # A format read from a cell: a number there is its text (a cell holding 0 is the code
        # "0": TEXT(1234.5,B2) is "1235", as TEXT(1234.5,"0")), an empty cell the empty code.
        if code is None:
            code = ""
        elif isinstance(code, int | float) and not isinstance(code, bool):
            code = number_text(code)
        if not isinstance(code, str) or isinstance(value, dict):
            return computed(value, code)
        parts = [_spaced(_COLOUR.sub("", part)) for part in sections(code)]
        numeric, text_part = _split(parts)
        if isinstance(value, bool):  # a logical is formatted as its text (TEXT(TRUE,";;;@") is "TRUE")
            return _as_text("TRUE" if value else "FALSE", text_part)
        if _CONDITION.search(code):
            number = _number(value)
            return computed(value, code) if number is None else _conditioned(number, parts, computed, epoch)
        number = _number(value)
        if number is None and isinstance(value, str) and value.strip():
            read = value_of(value)
            if read == error(NOT_COMPUTED):
                return read  # a time VALUE does not settle ("59:9999.0"): not computed either
            number = float(read) if isinstance(read, int | float) and not isinstance(read, bool) else None
        if number is not None and epoch and isinstance(value, str):  # a date read out of text: a 1900 serial
            number = text_serial(value, number)
        if number is None:
            if isinstance(value, str):
                return _as_text(value, text_part)
            return computed(value, code)  # an empty cell: formulas'
        if len(numeric) == 1:
            if numeric[0] is text_part:  # a text format alone: a number shows as it is
                return number_text(number)
            return _shown(number, numeric[0], computed, epoch)
        if number < 0:
            section, number = numeric[1], -number
        elif number == 0 and len(numeric) >= 3:
            section = numeric[2]
        else:
            section = numeric[0]
        return _shown(number, section, computed, epoch) if section else ""

    def TEXT(value: EngineValue, code: EngineValue) -> Answer:  # noqa: N802 - Excel's name
        if isinstance(value, list) or isinstance(code, list):
            return elementwise(one)(value, code)
        return one(value, code)
    return TEXT
