"""An omitted argument (`XLOOKUP(a,b,c,,1,2)`) reaches a Python function in formualizer as
0, the same as a typed 0; Excel treats it as "not given" (XLOOKUP's if_not_found is then
#N/A, not 0). The engine's copy of a formula calling one of our functions gets a marker in
each omitted place, which the callback reads as None."""

from __future__ import annotations

import re
from typing import Any

OMITTED = "rates-xl:omitted"
_MAY_OMIT = re.compile(r"[(,;]\s*[,;)]")
_LITERAL = f'"{OMITTED}"'


def mark(formula: str, names: set[str]) -> str:
    """`formula` with every omitted argument of a call to one of `names` (upper case, without
    Excel's prefixes) written as the marker; unchanged when it calls none of them."""
    if not _MAY_OMIT.search(formula):
        return formula  # no `(,` `,,` or `,)`: nothing omitted (the cheap test first)
    upper = formula.upper()
    if not any(name in upper for name in names):
        return formula
    from openpyxl.formula.tokenizer import Token, Tokenizer

    try:
        tokens = Tokenizer(formula).items
    except Exception:  # noqa: BLE001 - unreadable here: the engine reports it
        return formula
    out: list[Any] = []
    stack: list[bool] = []  # per open call: is it one of ours
    previous = None
    for token in tokens:
        if token.type == Token.WSPACE:
            out.append(token)
            continue
        is_sep = token.type == Token.SEP and token.subtype == Token.ARG
        is_close = token.type == Token.FUNC and token.subtype == Token.CLOSE
        if (is_sep or (is_close and previous is not None and previous.type == Token.SEP)) and stack and stack[-1]:
            if previous is not None and (previous.type == Token.SEP and previous.subtype == Token.ARG
                                         or previous.type == Token.FUNC and previous.subtype == Token.OPEN):
                if not (is_close and previous.type == Token.FUNC):  # `F()` has no argument
                    out.append(Token(_LITERAL, Token.OPERAND, Token.TEXT))
        if token.type == Token.FUNC and token.subtype == Token.OPEN:
            stack.append(_bare(token.value[:-1]) in names)
        elif is_close and stack:
            stack.pop()
        out.append(token)
        previous = token
    return "=" + "".join(t.value for t in out)


def _bare(name: str) -> str:
    name = name.upper()
    for prefix in ("_XLFN._XLWS.", "_XLFN.", "_XLWS."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def given(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The callback's arguments with the marker read as "not given" (None)."""
    return tuple(None if a == OMITTED else a for a in args)
