"""Numbers joined into text (`&`, CONCATENATE) as Excel writes them: 15 significant digits
(`values.number_text`). formualizer writes the shortest exact decimal, 17 digits for a sum
with binary noise: `="Total "&(0.1+0.2)` gave "Total 0.30000000000000004" where Excel shows
"Total 0.3", and `=A1&" : "&B1` over =1/3 "0.3333333333333333" (Excel: 0.333333333333333).

The engine's operator cannot be replaced, so the formula is rewritten: each operand of `&`,
and each argument of CONCATENATE, goes through RATESXL.NUMTEXT, which turns a number into
Excel's text and leaves text, booleans' text and errors as the engine has them. Operands
are read off the tokens: `&` binds more loosely than arithmetic and more tightly than the
comparisons, so an operand is what lies between two `&` (or a comparison, an argument's
edge) at one level of parentheses. Left as they are: text literals and calls of functions
that answer text; array constants, spill references and calls answering an array, which an
ordinary cell reads through implicit intersection the engine's way (their numbers keep the
engine's digits).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rates_xl.calc.xlfuncs.values import elementwise, text
from rates_xl.functions.sheet import cell_reference

NAME = "RATESXL.NUMTEXT"
_COMPARISONS = frozenset({"=", "<>", "<", ">", "<=", ">="})
#: Functions whose answer is already text: an operand that is one call of them is left as is.
_TEXT_ANSWERS = frozenset("""
TEXT LEFT RIGHT MID LEFTB RIGHTB MIDB UPPER LOWER PROPER TRIM CLEAN SUBSTITUTE REPLACE REPT
CHAR UNICHAR FIXED DOLLAR CONCAT CONCATENATE TEXTJOIN T ADDRESS TEXTBEFORE TEXTAFTER
""".split())


def rewrite(formula: str) -> str:
    """`formula` with every operand of `&` and argument of CONCATENATE that may be a number
    given to RATESXL.NUMTEXT."""
    if not _CANDIDATE.search(formula):  # (asked of every formula: one search, no tokens)
        return formula
    from rates_xl.calc.analysis import ARRAY_RESULTS, _kind, bare_name, is_rates, tokenize

    try:
        tokens = tokenize(formula)
    except Exception:  # noqa: BLE001 - unreadable here: the engine reports it
        return formula
    kinds = [(_kind(t.token_type), _kind(t.subtype), t.value) for t in tokens]

    def answers_array(lo: int, hi: int) -> bool:
        """An array constant, a spill reference or a call answering an array in tokens lo..hi."""
        for kind, sub, value in kinds[lo:hi + 1]:
            if kind == "Array" or (kind == "OpPostfix" and value == "#"):
                return True
            if kind == "Func" and sub == "Open":
                name = bare_name(value)
                if name in ARRAY_RESULTS or (is_rates(name) and name in _rates_tables()):
                    return True
        return False

    def one_call_of_text(lo: int, hi: int, closing: dict[int, int]) -> bool:
        kind, sub, value = kinds[lo]
        return kind == "Func" and sub == "Open" and closing.get(lo) == hi and bare_name(value) in _TEXT_ANSWERS

    # Each level: the indexes of its tokens (a nested call or parenthesis stands for its whole
    # span, from its opening token); the token that opened it (None: the formula itself).
    closing: dict[int, int] = {}
    levels: list[tuple[int | None, list[int]]] = [(None, [])]
    wraps: list[tuple[int, int]] = []  # token spans (first, last) to wrap
    for index, (kind, sub, _value) in enumerate(kinds):
        if sub == "Open" and kind in ("Func", "Paren", "Array"):
            levels[-1][1].append(index)
            levels.append((index, []))
        elif sub == "Close" and kind in ("Func", "Paren", "Array") and len(levels) > 1:
            opened, items = levels.pop()
            closing[opened] = index
            if kind != "Array":
                wraps += _spans(opened, items, kinds, closing)
        else:
            levels[-1][1].append(index)
    if len(levels) != 1:
        return formula  # unbalanced: left to the engine's own complaint
    wraps += _spans(None, levels[0][1], kinds, closing)
    edits = []
    for lo, hi in wraps:
        if answers_array(lo, hi) or one_call_of_text(lo, hi, closing):
            continue
        if lo == hi and kinds[lo][0] == "Operand" and (kinds[lo][1] in ("Text", "Logical", "Error") or (
                kinds[lo][1] == "Number" and "E" not in kinds[lo][2].upper())):
            continue  # (a typed number has at most 15 digits: the engine writes it alike)
        edits.append((tokens[lo].start, f"{NAME}("))
        edits.append((tokens[hi].end, ")"))
    if not edits:
        return formula
    out = formula
    for at, insert in sorted(edits, key=lambda e: e[0], reverse=True):
        out = out[:at] + insert + out[at:]
    return out


def _rates_tables() -> frozenset[str]:
    """The RATES_* functions answering a table (a curve ...), under every spelling."""
    from rates_xl.calc import engine

    return frozenset(n.upper() for name, spec in engine.function_table().items() if spec.result != "number"
                     for n in engine.engine_names(name))


#: Functions formualizer computes that read a number as text with its 17 digits (LEN(1/3) was
#: 18, Excel 17): the positions of their text arguments (None: every one, from the first).
TEXT_ARGUMENTS: dict[str, tuple[int, ...] | None] = {
    "CONCATENATE": None, "CONCAT": None, "TEXTJOIN": (2, None), "LEN": (0,), "LENB": (0,),
    "UPPER": (0,), "LOWER": (0,), "PROPER": (0,), "TRIM": (0,), "CLEAN": (0,), "REPT": (0,),
    "EXACT": (0, 1),
}
#: Those reading a range as its cells: a range given to them is left to the engine (wrapped,
#: each cell would be lifted into helper cells first).
_READING_RANGES = frozenset({"CONCAT", "TEXTJOIN"})
_CANDIDATE = re.compile(r"&|(?<![\w.])(?:_xlfn\.)?(?:" + "|".join(TEXT_ARGUMENTS) + r")\(", re.IGNORECASE)


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
    from rates_xl.calc.analysis import bare_name

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


def numtext(_facts: dict[str, Any]) -> Callable[..., Any]:
    """RATESXL.NUMTEXT(value): a number as Excel's text (each element of an array); text,
    a boolean's text, an empty cell's "" and errors as they come."""
    call = elementwise(text)
    call.__name__ = "NUMTEXT"
    return call
