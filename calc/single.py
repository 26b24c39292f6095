"""Excel's `@` (implicit intersection), stored in a file as `_xlfn.SINGLE(...)`, which the fast
engine does not know (#NAME?; the cells were listed as not computed: about 1,000 in a real
loan tracker). In an ordinary cell `_xlfn.SINGLE(A2:A40)` is the cell of that range in the
formula's own row (a column range) or column (a row range), #VALUE! where there is none;
`intersect` writes that cell out. Only a plain reference is handled: `@` over a name or a
function's result stays unknown to the engine, and its cell listed, never guessed."""

from __future__ import annotations

import re

from rates_xl.functions.sheet import column_letters, column_number

_WHOLE_COLUMNS = re.compile(r"\$?([A-Za-z]{1,3}):\$?([A-Za-z]{1,3})")
_WHOLE_ROWS = re.compile(r"\$?(\d+):\$?(\d+)")


def intersect(formula: str, row: int, col: int) -> str:
    """`formula`, in the cell at (row, col), with each `_xlfn.SINGLE(reference)` as the one
    cell Excel's implicit intersection picks; unchanged where there is none to rewrite."""
    if "SINGLE(" not in formula.upper():
        return formula
    from rates_xl.calc.analysis import tokenize

    try:
        tokens = tokenize(formula)  # offsets in characters (formualizer's count bytes)
    except Exception:  # unreadable here: the engine's analysis reports it
        return formula
    out, last = [], 0
    for i in range(len(tokens) - 2):
        opening, operand, closing = tokens[i:i + 3]
        if not (str(opening.token_type).endswith("Func") and opening.value.upper() in ("_XLFN.SINGLE(", "SINGLE(")
                and str(operand.subtype).endswith("Range") and str(closing.subtype).endswith("Close")):
            continue
        cell = _picked(operand.value, row, col)
        if cell is None:
            continue
        out += [formula[last:opening.start], cell]
        last = closing.end
    return "".join(out) + formula[last:]


def _picked(reference: str, row: int, col: int) -> str | None:
    from rates_xl.calc.analysis import range_shape, split_reference

    prefix, ref = split_reference(reference)
    if "[" in prefix or "[" in ref:
        return None  # another workbook, a table: not a plain reference
    bare = ref.replace("$", "")
    shape = range_shape(bare)
    if shape is None and (m := _WHOLE_COLUMNS.fullmatch(ref)):
        a, b = sorted((column_number(m[1]), column_number(m[2])))
        shape = (a, 1, b, 1048576)
    elif shape is None and (m := _WHOLE_ROWS.fullmatch(ref)):
        shape = (1, min(int(m[1]), int(m[2])), 16384, max(int(m[1]), int(m[2])))
    if shape is None:
        return None  # a defined name or something else: left to the engine (unknown: listed)
    c1, r1, c2, r2 = shape
    if c1 == c2 and r1 == r2:
        return f"{prefix}{column_letters(c1)}{r1}"
    if c1 == c2 and r1 <= row <= r2:
        return f"{prefix}{column_letters(c1)}{row}"
    if r1 == r2 and c1 <= col <= c2:
        return f"{prefix}{column_letters(col)}{r1}"
    return "#VALUE!"
