"""SUMPRODUCT given arrays of different sizes, as Excel answers it.

Excel wants every argument the same size (a single value is 1 x 1): otherwise the answer is
#VALUE!, unless a cell of the arguments holds an error, which comes first (the first one, in
argument order: formulas_test.xlsx MATH & TRIG!AE75 is #NUM!, poi EverythingTests!I1328
`SUMPRODUCT(2,C10:C11)` is #VALUE!). formualizer broadcasts instead and answers a number.
Where every argument's size is known from the formula's text (plain ranges, numbers) and
they differ, the engine's copy calls `NAME` instead, which gives that error; every other
SUMPRODUCT stays formualizer's own (native, fast)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

NAME = "RATESXL.MISSHAPEN"


def rewrite(formula: str) -> str:
    """`formula` with each SUMPRODUCT over arguments of different known sizes calling `NAME`."""
    if "SUMPRODUCT(" not in formula.upper():
        return formula
    from openpyxl.formula.tokenizer import Token, Tokenizer

    try:
        tokens = Tokenizer(formula).items
    except Exception:  # noqa: BLE001 - unreadable here: the engine reports it
        return formula
    # Per open call, parenthesis or array: (is SUMPRODUCT, its opening token, its arguments' tokens).
    stack: list[tuple[bool, int, list[list[Any]]]] = []
    renamed: list[int] = []
    for index, token in enumerate(tokens):
        opens = token.subtype == Token.OPEN and token.type in (Token.FUNC, Token.PAREN, "ARRAY")
        closes = token.subtype == Token.CLOSE and token.type in (Token.FUNC, Token.PAREN, "ARRAY")
        if opens:
            if stack and stack[-1][0]:
                stack[-1][2][-1].append(token)
            stack.append((token.type == Token.FUNC and token.value.upper() == "SUMPRODUCT(", index, [[]]))
        elif closes and stack:
            ours, start, arguments = stack.pop()
            if ours and _sizes_differ(arguments):
                renamed.append(start)
            if stack and stack[-1][0]:
                stack[-1][2][-1].append(token)
        elif stack and stack[-1][0]:
            if token.type == Token.SEP and token.subtype == Token.ARG:
                stack[-1][2].append([])
            else:
                stack[-1][2][-1].append(token)
    if not renamed:
        return formula
    for start in renamed:
        tokens[start].value = f"{NAME}("
    return "=" + "".join(t.value for t in tokens)


def _sizes_differ(arguments: list[list[Any]]) -> bool:
    from openpyxl.formula.tokenizer import Token

    from rates_xl.functions.sheet import read_area, split_reference

    sizes = set()
    for argument in arguments:
        solid = [t for t in argument if t.type != Token.WSPACE]
        if len(solid) != 1 or solid[0].type != Token.OPERAND:
            return False  # an expression: its size is the engine's to find
        if solid[0].subtype == Token.NUMBER:
            sizes.add((1, 1))
            continue
        if solid[0].subtype != Token.RANGE:
            return False
        sheet, ref = split_reference(solid[0].value)
        area = read_area(ref, whole_lines=False)
        if area is None or "[" in sheet:
            return False  # a name, a whole column, another book: not known here
        sizes.add((area.rows, area.columns))
    return len(sizes) > 1


def misshapen(_facts: dict[str, Any]) -> Callable[..., Any]:
    from rates_xl.calc.xlfuncs.bridge import error
    from rates_xl.calc.xlfuncs.values import is_error

    def MISSHAPEN(*args: Any) -> Any:  # noqa: N802 - the engine's name
        for argument in args:
            rows = argument if isinstance(argument, list) else [[argument]]
            for row in rows:
                for value in row if isinstance(row, list) else [row]:
                    if is_error(value):
                        return value
        return error("#VALUE!")
    return MISSHAPEN
