"""TEXT of a number in a scientific section ("0.00E+00", "##0.0E+0"), as Excel writes it. The
bridged `formulas` TEXT wrote the standard form right but not the others: "##0.0E+0" of 12,345
was "1.2E+4" (Excel's engineering form: "12.3E+3"), a literal between the mantissa and the E
or a thousands separator in the mantissa #VALUE!. The rules are read from apache/poi's
Excel-made NumberFormatApproxTests.xlsx (its 245 cells, tests/calc/test_text_exponents.py):

- the exponent is a multiple of the mantissa's integer placeholders (one: the standard form;
  three: engineering), the mantissa rounded to its decimal places as Excel rounds (15
  significant digits, half away from zero), the exponent moved on where it rounds up to the
  next power;
- the mantissa's integer digits fill its placeholders from the right (`0` pads with a zero,
  `?` with a space, `#` with nothing), a comma between them separates thousands; of 0, every
  integer placeholder shows 0 ("####.####" of 0 is "0000.");
- its decimals: an insignificant trailing zero is a zero for `0`, a space for `?`, nothing for `#`;
- `E+` writes the exponent's sign, `E-` only a minus; the sign stands right before the
  exponent's digits (literals between the E and them before it), which fill their
  placeholders from the right (at least one digit; `0` pads with zeros, `?` with spaces);
- `%` is text here (no scaling), a comma outside the mantissa's digits is left out.

A point after the E is #VALUE!, as in Excel (formulas_test.xlsx EXTRA!A27); a section with an E
that these rules do not cover otherwise (a second E, two points) is not computed: #NAME?, which
the check lists.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.text.number_text import NOT_COMPUTED
from rates_xl.calc.xlfuncs.text.numbers import DIGITS
from rates_xl.calc.xlfuncs.text.placeholders import pieces
from rates_xl.calc.xlfuncs.types import EngineValue

_PLACEHOLDERS = "0#?"
#: What a placeholder shows where the number has no digit for it.
_PADDING = {"0": "0", "?": " ", "#": ""}
_NOT_COMPUTED = error(NOT_COMPUTED)

Item = tuple[str, str]  # (kind, text): a placeholder, ".", ",", "E" (text "E+"/"e-"...), or "lit"


def _items(section: str) -> list[Item] | None:
    """The section's own characters as items; None where it holds no E+ or E- of its own."""
    items: list[Item] = []
    parts = pieces(section)
    k, found = 0, False
    while k < len(parts):
        own, text = parts[k]
        if own is None:
            items.append(("lit", text))
        elif own in "eE" and k + 1 < len(parts) and parts[k + 1][0] in ("+", "-"):
            items.append(("E", own + parts[k + 1][1]))
            found = True
            k += 1
        else:
            items.append((own, own) if own in _PLACEHOLDERS or own in ".," else ("lit", own))
        k += 1
    return items if found else None


def formatted(number: float, section: str) -> EngineValue | None:
    """`number` in the scientific `section` as Excel's TEXT writes it; None for a section
    without an E+ or E- of its own after a digit placeholder; NOT_COMPUTED for one these
    rules do not cover."""
    items = _items(section)
    if items is None:
        return None
    at = next(k for k, (kind, _) in enumerate(items) if kind == "E")
    mantissa, exponent = items[:at], items[at + 1:]
    if not any(kind in _PLACEHOLDERS for kind, _ in mantissa):
        return None
    if any(kind == "." for kind, _ in exponent):
        return error("#VALUE!")  # Excel's answer (formulas_test.xlsx EXTRA!A27: "...e+8800###  .  # ,0.00.0,00")
    if any(kind == "E" for kind, _ in exponent) or not any(kind in _PLACEHOLDERS for kind, _ in exponent) \
            or sum(1 for kind, _ in mantissa if kind == ".") > 1 or any(text in "@*" for _, text in items):
        return _NOT_COMPUTED
    point = next((k for k, (kind, _) in enumerate(mantissa) if kind == "."), len(mantissa))
    whole = [k for k in range(point) if mantissa[k][0] in _PLACEHOLDERS]
    decimals = [k for k in range(point, len(mantissa)) if mantissa[k][0] in _PLACEHOLDERS]
    if not whole:
        return _NOT_COMPUTED  # ".00E+00": no book shows Excel's answer
    grouped = any(mantissa[k][0] == "," for k in range(whole[0], whole[-1]))
    digits, power = _scaled(abs(number), len(whole), len(decimals))
    integer, _, fraction = digits.partition(".")
    zero = not any(ch in "123456789" for ch in digits)
    integer_text = _integer(mantissa, whole, "" if zero else integer.lstrip("0"), grouped, zero)
    significant = len(fraction.rstrip("0"))
    shown = {k: fraction[j] if j < significant else _PADDING[mantissa[k][0]] for j, k in enumerate(decimals)}
    out = []
    for k, (kind, text) in enumerate(mantissa):
        if k == whole[0]:
            out.append(integer_text)
        elif k in shown:
            out.append(shown[k])
        elif kind in _PLACEHOLDERS or kind == ",":
            continue  # (laid out in integer_text; a comma elsewhere is left out)
        else:
            out.append(text)
    out.append(items[at][1][0])
    sign = "-" if power < 0 else "+" if items[at][1][1] == "+" else ""
    holders = [k for k, (kind, _) in enumerate(exponent) if kind in _PLACEHOLDERS]
    for k, (kind, text) in enumerate(exponent):
        if k == holders[0]:
            out.append(sign + _right_aligned([exponent[h][0] for h in holders], str(abs(power))))
        elif kind not in _PLACEHOLDERS and kind != ",":
            out.append(text)
    text = "".join(out)
    return f"-{text}" if number < 0 and not zero else text


def _scaled(value: float, width: int, places: int) -> tuple[str, int]:
    """(the mantissa's digits, rounded to `places`, the exponent): the exponent a multiple of
    `width`, the mantissa below 10^width."""
    if value == 0:
        return format(Decimal(0).quantize(Decimal(1).scaleb(-places)), "f"), 0
    with localcontext(prec=DIGITS):
        exact = Decimal(f"{value:.15g}")
        power = exact.adjusted() // width * width
        for _ in range(2):
            mantissa = exact.scaleb(-power).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
            if mantissa < Decimal(10) ** width:
                break
            power += width  # rounded up to the next power
        return format(mantissa, "f"), power


def _right_aligned(holders: list[str], digits: str) -> str:
    """`digits` in `holders` from the right (more digits than placeholders all shown), each
    placeholder without a digit its padding."""
    pad = "".join(_PADDING[h] for h in holders[:max(0, len(holders) - len(digits))])
    return pad + digits


def _integer(mantissa: list[Item], whole: list[int], digits: str, grouped: bool, zero: bool) -> str:
    """The mantissa's integer part: `digits` from the right, each position without one its
    placeholder's padding (0 for each of a zero), a separator before each group of three
    as its left position shows (a space beside a space, nothing beside nothing)."""
    cells = []
    for k in range(max(len(whole), len(digits))):
        holder = mantissa[whole[-1 - k]][0] if k < len(whole) else "#"
        cells.append(digits[-1 - k] if k < len(digits) else "0" if zero else _PADDING[holder])
    written: list[str] = []
    for k, cell in enumerate(cells):
        if grouped and k and k % 3 == 0:
            written.append("," if cell not in (" ", "") else cell)
        written.append(cell)
    return "".join(reversed(written))
