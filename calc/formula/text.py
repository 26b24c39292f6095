"""Numbers joined into text (`&`, CONCATENATE) or read as text (LEN, EXACT ...) as Excel
writes them: 15 significant digits (calc/xlfuncs/coercion.py `number_text`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.xlfuncs.text.concatenation import NAME
from rates_xl.functions.sheet import cell_reference

_COMPARISONS = frozenset({"=", "<>", "<", ">", "<=", ">="})
#: Functions whose answer is already text: an operand that is one call of them is left as is.
_TEXT_ANSWERS = frozenset("""
TEXT LEFT RIGHT MID LEFTB RIGHTB MIDB UPPER LOWER PROPER TRIM CLEAN SUBSTITUTE REPLACE REPT
CHAR UNICHAR FIXED DOLLAR CONCAT CONCATENATE TEXTJOIN T ADDRESS TEXTBEFORE TEXTAFTER
""".split())


#: Functions formualizer computes that read a number as text with its 17 digits (LEN(1/3) was
#: 18, Excel 17): the positions of their text arguments (None: every one, from the first).
TEXT_ARGUMENTS: dict[str, tuple[int, ...] | tuple[int, None] | None] = {
    "CONCATENATE": None, "CONCAT": None, "TEXTJOIN": (2, None), "LEN": (0,), "LENB": (0,),
    "UPPER": (0,), "LOWER": (0,), "PROPER": (0,), "TRIM": (0,), "CLEAN": (0,), "REPT": (0,),
    "EXACT": (0, 1),
}
#: Those reading a range as its cells: a range given to them is left to the engine (wrapped,
#: each cell would be lifted into helper cells first).
_READING_RANGES = frozenset({"CONCAT", "TEXTJOIN"})
_CANDIDATE = re.compile(r"&|(?<![\w.])(?:_xlfn\.)?(?:" + "|".join(TEXT_ARGUMENTS) + r")\(", re.IGNORECASE)




#: `_CANDIDATE`'s calls as the upper-case text holds them (a call's token is its name and "("
#: together, functions/tokens.py), searched first: one search without IGNORECASE's cost.
_CALLED = re.compile("|".join(re.escape(name + "(") for name in TEXT_ARGUMENTS))


def may_join(text: str, upper: str | None = None) -> bool:
    """`&` or a call of a function reading text: asked of every formula written (`upper`: the
    text in upper case, when the caller has it). A formula whose upper-case text holds no
    `NAME(` of them calls none (`numbers_as_text` would leave it as it is), so `_CANDIDATE`
    is searched only in those that do."""
    if "&" in text:
        return True
    if _CALLED.search(text.upper() if upper is None else upper) is None:
        return False
    return _CANDIDATE.search(text) is not None


def numbers_as_text(formula: Formula, site: Site | None = None) -> str:
    """Each operand of `&`, and each text argument of CONCATENATE, LEN, EXACT ..., that may be
    a number goes through RATESXL.NUMTEXT, which writes a number as Excel does (15 significant
    digits) and leaves text, booleans' text and errors as they are. formualizer writes the
    shortest exact decimal: `="Total "&(0.1+0.2)` gave "Total 0.30000000000000004" where Excel
    shows "Total 0.3", LEN(1/3) 18 where Excel says 17. Operands are read off the tokens: `&`
    binds more loosely than arithmetic and more tightly than the comparisons, so an operand
    is what lies between two `&` (or a comparison, an argument's edge) at one level of
    parentheses. Left as they are: text literals and calls of functions answering text;
    array constants, spill references and calls answering an array, which an ordinary cell
    reads through implicit intersection the engine's way; a cell holding a constant that is no
    number (`BookFacts.joined_length`). Done on what each cell finally
    holds (after the fit). Proved against LibreOffice by tests/calc/test_number_text.py
    (`test_numbers_as_text_as_libreoffice_writes_them`)."""
    from rates_xl.calc.formula.hazards import ARRAY_RESULTS
    from rates_xl.functions.sheet import is_rates_name

    tokens = formula.tokens
    if formula.error:
        return formula.text
    kinds = [(t.kind, t.sub, t.text) for t in tokens]

    def answers_array(lo: int, hi: int) -> bool:
        """An array constant, a spill reference or a call answering an array in tokens lo..hi."""
        for t in tokens[lo:hi + 1]:
            if t.kind == "Array" or (t.kind == "OpPostfix" and t.text == "#"):
                return True
            if t.is_call and (t.name in ARRAY_RESULTS or (is_rates_name(t.name) and t.name in _rates_tables())):
                return True
        return False

    def one_call_of_text(lo: int, hi: int, closing: dict[int, int]) -> bool:
        return tokens[lo].is_call and closing.get(lo) == hi and tokens[lo].name in _TEXT_ANSWERS

    # Each level: the indexes of its tokens (a nested call or parenthesis stands for its whole
    # span, from its opening token); the token that opened it (None: the formula itself).
    closing: dict[int, int] = {}
    levels: list[tuple[int | None, list[int]]] = [(None, [])]
    wraps: list[tuple[int, int]] = []  # token spans (first, last) to wrap
    for index, token in enumerate(tokens):
        if token.opens:
            levels[-1][1].append(index)
            levels.append((index, []))
        elif token.closes and len(levels) > 1:
            opened, items = levels.pop()
            closing[opened] = index  # type: ignore[index]
            if token.kind != "Array":
                wraps += _spans(opened, items, kinds, closing)
        else:
            levels[-1][1].append(index)
    if len(levels) != 1:
        return formula.text  # unbalanced: left to the engine's own complaint
    wraps += _spans(None, levels[0][1], kinds, closing)
    edits = formula.edits()
    for lo, hi in wraps:
        if answers_array(lo, hi) or one_call_of_text(lo, hi, closing):
            continue
        if lo == hi and tokens[lo].kind == "Operand" and (tokens[lo].sub in ("Text", "Logical", "Error") or (
                tokens[lo].sub == "Number" and written_alike(tokens[lo].text))):
            continue
        if lo == hi and site is not None and tokens[lo].is_range and \
                site.book.joined_length(site.sheet, tokens[lo].text) is not None:
            continue  # a cell holding a constant that is no number (formulas_test EXTRA's units)
        edits.before(lo, f"{NAME}(")
        edits.after(hi, ")")
    return edits.text()


@lru_cache(maxsize=4096)
def written_alike(typed: str) -> bool:
    """Whether the engine writes a typed number as Excel does: its shortest decimal, no
    exponent, against Excel's 15 significant digits (coercion.py `number_text`). Excel saves
    a number typed in a formula with 15 digits at most, so `="x"&1.5` is alike; a book written
    by a program may hold more (`=82824945586.99316&""`: Excel's "82824945586.9932", the
    engine's every digit) or a small one (`=0.0000000001&""`: Excel's "1E-10")."""
    import numpy as np

    from rates_xl.calc.xlfuncs.coercion import number_text

    try:
        value = float(typed)
    except ValueError:
        return False
    return number_text(value) == np.format_float_positional(value, trim="-")


def _rates_tables() -> frozenset[str]:
    """The RATES_* functions answering a table (a curve ...), under every spelling."""
    from rates_xl.calc.formula.hazards import rates_tables

    return rates_tables()


def _positions(name: str, count: int) -> list[int]:
    spec = TEXT_ARGUMENTS.get(name, ())
    if spec is None:
        return list(range(count))
    if len(spec) == 2 and spec[1] is None:
        return list(range(spec[0], count))
    return [p for p in spec if p is not None and p < count]


def _spans(opened: int | None, items: list[int], kinds: list[tuple[str, str, str]],
           closing: dict[int, int]) -> list[tuple[int, int]]:
    """The token spans (first, last) of one level's operands to wrap: those joined by `&`
    within one side of a comparison within one argument; the text arguments of the functions
    in TEXT_ARGUMENTS."""
    from rates_xl.functions.tokens import bare_name

    called = bare_name(kinds[opened][2]) if opened is not None and kinds[opened][0] == "Func" else None

    def split(run: list[int], at: Callable[[str, str], bool]) -> list[list[int]]:
        parts: list[list[int]] = [[]]
        for index in run:
            kind, _sub, value = kinds[index]
            if at(kind, value):
                parts.append([])
            elif kind != "Whitespace":
                parts[-1].append(index)
        return parts

    def span(part: list[int]) -> tuple[int, int]:
        return part[0], closing.get(part[-1], part[-1])  # a nested call: to its closing token

    found = []
    arguments = split(items, lambda kind, _value: kind == "Sep")
    texts = set(_positions(called, len(arguments))) if called in TEXT_ARGUMENTS else set()
    for position, argument in enumerate(arguments):
        joined = False
        for side in split(argument, lambda kind, value: kind == "OpInfix" and value in _COMPARISONS):
            operands = split(side, lambda kind, value: kind == "OpInfix" and value == "&")
            if len(operands) > 1:
                joined = True
                found += [span(part) for part in operands if part]
        if position in texts and argument and not joined:
            if called in _READING_RANGES and len(argument) == 1 and kinds[argument[0]][:2] == ("Operand", "Range") \
                    and cell_reference(kinds[argument[0]][2]) is None:
                continue  # a range or a name: its cells, as the engine reads them
            found.append(span(argument))
    return found


