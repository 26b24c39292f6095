"""TEXT of a number in a fraction section ("# ?/?", "# ??/32", "?/?"), as Excel writes it.
The bridged `formulas` TEXT wrote the placeholders as they are (TEXT(99.5,"# ??/32") was
"100 ??/32", Excel's "99 16/32"): a bond price in 32nds wrong without a word where no cached
value showed it. The rules are read from apache/poi's Excel-made NumberFormatTests.xlsx (its
211 fraction cells, tests/calc/test_text_fractions.py):

- the numerator is the last run of digit placeholders (`0 # ?`) before the `/`; the integer
  part, every placeholder before it (literals among them kept: "#-#-#\\:#/#" of 23.75 is
  "-2-3:3/4"); with none, the fraction is improper ("#_#/#" of 3.75 is "15 /4");
- the denominator is fixed where digits 1-9 follow the `/` ("/32": 16/32 stays 16/32), else
  the closest fraction whose denominator has no more digits than its placeholders;
- a fraction of 0 (a whole number) is written "0/1" where the numerator holds a `0`; else the
  separator to the denominator becomes spaces where any placeholder is `?` (so columns
  align: "1      "), and is left out otherwise ("1");
- below 1, the integer placeholders show nothing (`#`), a space (`?`) or 0 (`0`), and the
  separator after them is kept after a 0, spaces where a `?` pads, gone otherwise;
- the numerator's digits fill its placeholders from the right, the denominator's from the
  left (`0` pads with zeros before them, `?` with spaces after them).

A fraction section with anything else (a point, an exponent, `%`, `@`, a bracketed code) is
not computed: #NAME?, which the check against Excel's values lists, as formulas' answer was not.
"""

from __future__ import annotations

from fractions import Fraction

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.text.number_text import NOT_COMPUTED
from rates_xl.calc.xlfuncs.text.placeholders import pieces
from rates_xl.calc.xlfuncs.types import EngineValue

_PLACEHOLDERS = "0#?"
#: What a placeholder shows where the number has no digit for it.
_PADDING = {"0": "0", "?": " ", "#": ""}
#: Characters of a section's own that these rules do not cover beside a fraction.
_OUTSIDE = set(".eE%@*[,")

_NOT_COMPUTED = error(NOT_COMPUTED)

Item = tuple[str, str]  # (kind, text): kind a placeholder `0 # ?`, "/", or "lit" (its text shown)


def _items(section: str) -> list[Item] | None:
    """The section's placeholders, its `/` and its literal text (quoted, escaped or plain), in
    order; None where a character of its own is outside these rules (`_OUTSIDE`)."""
    items: list[Item] = []
    for own, text in pieces(section):
        if own is None:
            items.append(("lit", text))
        elif own in _OUTSIDE:
            return None
        else:
            items.append((own, own) if own in _PLACEHOLDERS or own == "/" else ("lit", own))
    return items


def _holds(items: list[Item]) -> list[str]:
    return [kind for kind, _ in items if kind in _PLACEHOLDERS]


def _width(items: list[Item]) -> int:
    """How many characters `items` take written as they stand (a placeholder one)."""
    return sum(len(text) for _, text in items)


def _literals(items: list[Item]) -> str:
    return "".join(text for _, text in items)


def _right_aligned(items: list[Item], digits: str) -> str:
    """`digits` in the placeholders of `items` from the right (more digits than placeholders:
    the rest in the first), a placeholder without a digit its padding; literals where they stand."""
    holders = [k for k, (kind, _) in enumerate(items) if kind in _PLACEHOLDERS]
    shown: dict[int, str] = {}
    for n, k in enumerate(reversed(holders)):
        if n == len(holders) - 1:
            shown[k] = digits[:max(0, len(digits) - n)] or _PADDING[items[k][0]]
        else:
            shown[k] = digits[len(digits) - 1 - n] if n < len(digits) else _PADDING[items[k][0]]
    return "".join(shown.get(k, text) for k, (_, text) in enumerate(items))


def _left_aligned(holders: str, digits: str) -> str:
    """A denominator's `digits` in its `holders`: zeros before them for the `0`s left over,
    spaces after them for the `?`s."""
    over = holders[:max(0, len(holders) - len(digits))]
    return "0" * over.count("0") + digits + " " * over.count("?")


def formatted(number: float, section: str) -> EngineValue | None:
    """`number` in the fraction `section` as Excel's TEXT writes it; None where `section` is
    no fraction's (no `/` of its own between a placeholder and a denominator); NOT_COMPUTED
    for one these rules do not cover."""
    items = _items(section)
    if items is None:  # a point, %, an exponent... beside a fraction: not computed, a `/` alone: not one
        plain = _items("".join(ch for ch in section if ch not in _OUTSIDE))
        return _NOT_COMPUTED if plain is not None and _denominator(plain) is not None else None
    found = _denominator(items)
    if found is None:
        return None  # no denominator ("0.00/bbl" has a `/` as text)
    slash, start = found
    before, after = items[:slash], items[slash + 1:]
    end = start
    while end < len(after) and (after[end][0] in _PLACEHOLDERS or after[end][1].isdigit()):
        end += 1
    between, den, tail = after[:start], after[start:end], after[end:]
    den_text = _literals(den)
    fixed = den_text[0] in "123456789"
    if fixed and not den_text.isdigit() or not fixed and any(kind == "lit" for kind, _ in den) or \
            _holds(tail) or any(kind == "/" for kind, _ in tail):
        return _NOT_COMPUTED  # "/3?", placeholders after the denominator, a second `/`
    # Before it: the numerator (the last run of placeholders), the integer part before that.
    num_end = max(k for k, (kind, _) in enumerate(before) if kind in _PLACEHOLDERS)
    num_start = num_end
    while num_start > 0 and before[num_start - 1][0] in _PLACEHOLDERS:
        num_start -= 1
    numerator, to_slash = before[num_start:num_end + 1], before[num_end + 1:]
    whole_holders = [k for k in range(num_start) if before[k][0] in _PLACEHOLDERS]

    value = Fraction(abs(number))
    if fixed:
        bottom = int(den_text)
        total = Fraction(int(value * bottom + Fraction(1, 2)), bottom)  # to the nearest, half up
    else:
        total = value.limit_denominator(10 ** len(den) - 1)
        bottom = total.denominator
    fraction_tail = [*to_slash, ("/", "/"), *between]

    def denominator(d: int) -> str:
        return den_text if fixed else _left_aligned(den_text, str(d))

    if not whole_holders:  # improper: the whole number over the denominator
        top = int(total * bottom)
        text = (_literals(before[:num_start]) + _right_aligned(numerator, str(top)) + _literals(fraction_tail)
                + denominator(bottom) + _literals(tail))
        return _signed(number, text, top)
    head = before[:whole_holders[0]]
    integer = before[whole_holders[0]:whole_holders[-1] + 1]
    separator = before[whole_holders[-1] + 1:num_start]
    whole = int(total)
    top = int((total - whole) * bottom)
    if not fixed:
        bottom = (total - whole).denominator
    kinds = set(_holds(integer) + _holds(numerator) + _holds(den))
    if top == 0 and "0" not in _holds(numerator):
        # A whole number: the integer (0 too), the fraction as spaces where a `?` pads, else gone.
        gone = separator + numerator + fraction_tail + den
        text = _literals(head) + _right_aligned(integer, str(whole)) + (" " * _width(gone) if "?" in kinds else "")
        return _signed(number, text + _literals(tail), whole)
    if whole:
        int_text, sep = _right_aligned(integer, str(whole)), _literals(separator)
    elif top == 0:  # 0 as "0/1": the integer's last placeholder shows 0 unless it is #
        shows = _holds(integer)[-1] != "#"
        int_text = _right_aligned(integer, "0" if shows else "")
        sep = _literals(separator) if shows else ""
    else:  # below 1: no integer digit, the separator kept after a 0, spaces where a ? pads
        int_text = _right_aligned(integer, "")
        if "0" in _holds(integer):
            sep = _literals(separator)
        else:
            pads = "?" in _holds(integer) or "?" in _holds(numerator)
            sep = " " * _width(separator) if pads else ""
    text = (_literals(head) + int_text + sep + _right_aligned(numerator, str(top)) + _literals(fraction_tail)
            + denominator(bottom) + _literals(tail))
    return _signed(number, text, whole or top)


def _slash(items: list[Item]) -> int | None:
    """Where the section's own `/` is, when a digit placeholder comes before it."""
    slash = next((k for k, (kind, _) in enumerate(items) if kind == "/"), None)
    return slash if slash is not None and _holds(items[:slash]) else None


def _denominator(items: list[Item]) -> tuple[int, int] | None:
    """(where the fraction's `/` is, where its denominator begins after it: the first placeholder
    or digit), or None for a section without both."""
    slash = _slash(items)
    if slash is None:
        return None
    after = items[slash + 1:]
    start = next((k for k, (kind, text) in enumerate(after) if kind in _PLACEHOLDERS or text.isdigit()), None)
    return None if start is None else (slash, start)


def _signed(number: float, text: str, shown: int) -> str:
    """The minus sign before a negative number's text, unless it is shown as 0."""
    return f"-{text}" if number < 0 and shown else text
