"""Excel's `@` (implicit intersection), stored in a file as `_xlfn.SINGLE(...)`, which the fast
engine does not know (#NAME?; the cells were listed as not computed: about 1,000 in a real
loan tracker). In an ordinary cell `_xlfn.SINGLE(A2:A40)` is the cell of that range in the
formula's own row (a column range) or column (a row range), #VALUE! where there is none;
`intersect` writes that cell out. Only a plain reference is handled: `@` over a name or a
function's result stays unknown to the engine, and its cell listed, never guessed."""

from __future__ import annotations

from rates_xl.functions.sheet import column_letters, read_area, split_reference


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
    prefix, ref = split_reference(reference)
    if "[" in prefix or "[" in ref:
        return None  # another workbook, a table: not a plain reference
    area = read_area(ref)
    if area is None:
        return None  # a defined name or something else: left to the engine (unknown: listed)
    r1, c1, r2, c2 = area
    if c1 == c2 and r1 == r2:
        return f"{prefix}{column_letters(c1)}{r1}"
    if c1 == c2 and r1 <= row <= r2:
        return f"{prefix}{column_letters(c1)}{row}"
    if r1 == r2 and c1 <= col <= c2:
        return f"{prefix}{column_letters(col)}{r1}"
    return "#VALUE!"
