"""Values typed directly into the list of arguments of Excel's statistical functions, which
Excel reads otherwise than the same values in a referenced cell (Microsoft's documentation of
AVERAGE, MAX, STDEV ...: "logical values and text representations of numbers that you type
directly into the list of arguments are counted"; text that is no number is #VALUE!).
formualizer skips a literal "29/02/1900" or "" as it skips text in a range, and answers a
number where Excel gives another or #VALUE! (formulas_test.xlsx, STATISTICAL and
COMPATIBILITY, the S and T columns: 50 cells).

The engine's copy of the formula gets each such literal as Excel reads it, before the engine
sees it: text as the number it reads as (`VALUE`'s reading, the bridged `formulas` one, day
first) or the error #VALUE!, TRUE and FALSE as 1 and 0. COUNT counts what reads as a number
and ignores the rest, errors included (`COUNT(2,"A","",#REF!)` is 1); the legacy MODE refuses
text (`MODE(B8,"1",2,3)` is #VALUE!, poi_FormulaEvalTestData_Copy.xlsx).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

#: Functions reading a literal text as a number (#VALUE! when it is none), a literal boolean
#: as 1 or 0.
COERCING = frozenset("""
    AVEDEV AVERAGE AVERAGEA DEVSQ GEOMEAN HARMEAN MAX MAXA MIN MINA MEDIAN SKEW SKEW.P
    STDEV STDEVP STDEV.S STDEV.P STDEVA STDEVPA VAR VARP VAR.S VAR.P VARA VARPA LARGE SMALL
""".split())
#: Functions counting a literal that reads as a number, ignoring any other (errors too).
COUNTING = frozenset({"COUNT"})
#: Functions for which any literal text is #VALUE! (MODE.SNGL and MODE.MULT ignore it, as
#: the bridged implementations do: `MODE.SNGL(D71:E71,"")` is 0.2 in formulas_test.xlsx).
REFUSING_TEXT = frozenset({"MODE"})
_NAMES = COERCING | COUNTING | REFUSING_TEXT
#: The cheap tests before tokenizing (12,000 formulas a book): a call of one of the names, and
#: a literal it could hold (text, an error, a logical).
_CALL = re.compile(r"(?<![\w.])(?:_xlfn\.)?(?:"
                   + "|".join(re.escape(n) for n in sorted(_NAMES, key=len, reverse=True)) + r")\(", re.I)
_LITERAL = re.compile(r'"|#|\bTRUE\b|\bFALSE\b', re.I)


def rewrite(formula: str) -> str:
    """`formula` with the literal arguments of the functions above written as Excel reads
    them; unchanged when it has none."""
    if not isinstance(formula, str) or not _LITERAL.search(formula) or not _CALL.search(formula):
        return formula
    from openpyxl.formula.tokenizer import Token, Tokenizer

    try:
        tokens = Tokenizer(formula).items
    except Exception:  # noqa: BLE001 - unreadable here: the engine reports it
        return formula
    stack: list[tuple[str, list[int]]] = []  # per open call, array or paren: (name, token indexes of the argument)
    changed = False
    for index, token in enumerate(tokens):
        opens = token.subtype == Token.OPEN and token.type in (Token.FUNC, Token.ARRAY, Token.PAREN)
        closes = token.subtype == Token.CLOSE and token.type in (Token.FUNC, Token.ARRAY, Token.PAREN)
        ends_argument = closes or (token.type == Token.SEP and token.subtype == Token.ARG)
        if ends_argument and stack and stack[-1][0] in _NAMES:
            name, argument = stack[-1]
            changed |= _literal(name, [tokens[i] for i in argument])
            argument.clear()
        if opens:
            name = _bare(token.value[:-1]) if token.type == Token.FUNC else ""
            stack.append((name, []))
        elif closes and stack:
            stack.pop()
        elif stack and token.type != Token.WSPACE and not ends_argument:
            stack[-1][1].append(index)
    if not changed:
        return formula
    return "=" + "".join(t.value for t in tokens)


def _literal(name: str, argument: list[Any]) -> bool:
    """Rewrite the argument's token in place when it is one literal; whether it was."""
    from openpyxl.formula.tokenizer import Token

    if len(argument) != 1 or argument[0].type != Token.OPERAND:
        return False
    token = argument[0]
    if token.subtype == Token.LOGICAL:
        if name in COUNTING:
            return False  # COUNT counts TRUE already
        token.value = "1" if token.value.upper() == "TRUE" else "0"
        return True
    if token.subtype == Token.ERROR and name in COUNTING:
        token.value = '""'  # not counted, not passed on
        return True
    if token.subtype != Token.TEXT:
        return False
    if name in REFUSING_TEXT:
        token.value = "#VALUE!"
        return True
    read = number(token.value[1:-1].replace('""', '"'))
    if read is None:
        token.value = '""' if name in COUNTING else "#VALUE!"
    else:
        token.value = repr(read) if read >= 0 else f"({read!r})"
    return True


@lru_cache(maxsize=4096)
def number(text: str) -> float | None:
    """`text` as Excel reads a text typed where a number is wanted (VALUE's reading: numbers,
    dates, times, day first as the bridged `formulas` VALUE does), or None."""
    from rates_xl.calc.xlfuncs.bridge import _FORMULAS, formulas_function

    with _FORMULAS:  # one call into `formulas` at a time (bridge.py says why)
        value = formulas_function("VALUE")(text)
    try:
        read = float(value)
    except (TypeError, ValueError):
        return None
    return read if math.isfinite(read) else None


def _bare(name: str) -> str:
    name = name.upper()
    for prefix in ("_XLFN._XLWS.", "_XLFN.", "_XLWS."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name
