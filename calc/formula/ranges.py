"""Passes over the ranges a formula reads: references to other workbooks the file holds no
copy of listed, Excel's `@` written out, and whole columns read to one length."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from rates_xl.calc.formula.site import NotComputed
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import (
    MAX_ROW,
    Area,
    column_letters,
    read_area,
    sheet_of,
    split_reference,
)
from rates_xl.functions.tokens import ARG, CLOSE, INFIX, OPEN, PREFIX

if TYPE_CHECKING:
    from rates_xl.calc.formula.site import Site


def other_workbooks(formula: Formula, site: Site) -> str:
    """A reference to another workbook: Excel stores one as `[n]Sheet!A1`, n the file's n-th
    external link, whose part caches the linked cells' values (the engine reads those, as
    Excel does until the links are updated: formulas_test.xlsx, tests/calc/test_robustness.py).
    A reference naming a book by its path or URL (`='http://host/[x.xlsx]S'!A1`, written by
    another tool), or an `[n]` the file holds no link for, has nothing to read here: that cell
    keeps its cached value and is listed, never the whole book failed (it was: "#NAME?:
    Undefined name", exit 1; issue 27, point 5; tests/calc/test_budget.py)."""
    for token in formula.tokens:
        if not (token.is_range and "[" in token.text):
            continue
        prefix, _ref = split_reference(token.text)
        if "[" not in prefix:
            continue  # a structured reference (Table1[Col])
        books = re.findall(r"\[([^\]]*)\]", prefix)  # `A2:'[2]MISSING'!A2` names link 2 too
        if books and all(name.isdigit() and int(name) in site.book.links for name in books):
            continue
        raise NotComputed(f"it reads another workbook ({prefix.rstrip('!')}), which calc does not open "
                          "and this file holds no copy of")
    return formula.text


def at_sign(formula: Formula, site: Site) -> str:
    """Excel's `@` (implicit intersection), stored in a file as `_xlfn.SINGLE(...)`, which the
    fast engine does not know (#NAME?: about 1,000 cells of the loan tracker in
    ../shared/corpus/models were listed as not computed): in an ordinary cell
    `_xlfn.SINGLE(A2:A40)` is the cell of that range in the formula's own row (a column range)
    or column (a row range), #VALUE! where there is none. Only a plain reference is written
    out: `@` over a name or a function's result stays unknown to the engine, and its cell is
    listed, never guessed. Proved by dataresearchlabs_MyLoanTracker_v010009_FREE.xlsx (models)
    and tests/calc/test_single.py."""
    tokens = formula.tokens
    edits = formula.edits()
    i = 0
    while i < len(tokens) - 2:
        opening, operand, closing = tokens[i:i + 3]
        if opening.is_call and opening.text.upper() in ("_XLFN.SINGLE(", "SINGLE(") and operand.is_range \
                and closing.sub == CLOSE:
            cell = _picked(operand.text, site.row, site.col)
            if cell is not None:
                edits.replace(i, i + 3, cell)
                i += 3
                continue
        i += 1
    return edits.text()


def _picked(reference: str, row: int, col: int) -> str | None:
    prefix, ref = split_reference(reference)
    if "[" in prefix or "[" in ref:
        return None  # another workbook, a table: not a plain reference
    area = read_area(ref)
    if area is None:
        return None  # a defined name or something else: left to the engine (unknown: listed)
    if area.is_cell:
        return f"{prefix}{area.a1()}"
    if area.left == area.right and area.top <= row <= area.bottom:
        return f"{prefix}{column_letters(area.left)}{row}"
    if area.top == area.bottom and area.left <= col <= area.right:
        return f"{prefix}{column_letters(col)}{area.top}"
    return "#VALUE!"


def may_even(text: str) -> bool:
    """Two colons at least: two whole columns may be read (the cheap test first)."""
    return text.count(":") >= 2


def whole_columns(formula: Formula, site: Site) -> str:
    """Whole-column references read to one length. formualizer cuts each whole-column
    reference to that column's own last used row (for speed), so `XLOOKUP(,L:L,M:M,,1,2)` sees
    5 lookup values and 6 results and answers #VALUE! where Excel, reading both to row
    1048576, answers (ironcalc_XLOOKUP.xlsx Errors!N1). The whole-column arguments of a call
    that has two or more are bounded to the same rows: 1 to the last row holding a value on
    any sheet they read, so the engine still reads only the used rows."""
    tokens = formula.tokens
    calls: list[list[int]] = []  # per open call: the indexes of its whole-column arguments
    chosen: list[list[int]] = []
    previous = None
    for i, token in enumerate(tokens):
        if token.is_call:
            calls.append([])
        elif token.sub == CLOSE and token.closes and token.kind == "Func":
            if calls:
                found = calls.pop()
                if len(found) > 1:
                    chosen.append(found)
        elif token.is_range and calls:
            after = formula.following(i)
            alone_before = previous is not None and previous.sub in (ARG, OPEN)
            alone_after = after is not None and after.sub in (ARG, CLOSE)
            if alone_before and alone_after and _whole_columns(split_reference(token.text)[1]) is not None:
                calls[-1].append(i)
        if not token.is_space:
            previous = token
    edits = formula.edits()
    last_row: Callable[[str, str | None], int] = site.book.last_row
    for found in chosen:
        if any("[" in tokens[i].text for i in found):
            continue  # another workbook's columns: left as they are
        sheets = {sheet_of(split_reference(tokens[i].text)[0]) for i in found}
        rows = max(max(last_row(site.sheet, s) for s in sheets), 1)
        for i in found:
            prefix, ref = split_reference(tokens[i].text)
            first, last = ref.split(":")
            edits.replace(i, i + 1, f"{prefix}{first}1:{last}{rows}")
    return edits.text()


def _whole_columns(ref: str) -> Area | None:
    """`A:C` (`$A:$C`) -> its area; None for anything else (whole rows, cells, names)."""
    if any(ch.isdigit() for ch in ref):
        return None
    area = read_area(ref)
    return area if area is not None and area.top == 1 and area.bottom == MAX_ROW else None


#: Operators that read a range's values (not its cells): arithmetic, joining, comparisons.
_READING = frozenset({"+", "-", "*", "/", "^", "&", "=", "<", ">", "<=", ">=", "<>"})


def built_ranges(formula: Formula, _site: Site) -> str:
    """A range built with ':' from INDEX or OFFSET (`INDEX(rate,1,1):INDEX(rate,1,n)`, a row of
    a named table as long as a cell says) is a reference in Excel wherever it stands; the
    engine reads it as one given to a function (SUM, MATCH, COUNTIF), but under an operator
    (`SUMPRODUCT(INDEX(r,1,1):INDEX(r,1,n)*w)`, `{=INDEX(r,1,1):INDEX(r,1,n)*2}`) it answered
    #REF!. There it is read through `INDEX(range,0,0)`, the whole range, which the engine
    computes (tests/calc/test_model_classes.py: 52 where Excel has 52)."""
    tokens = formula.tokens
    edits = formula.edits()
    for index, token in enumerate(tokens):
        if not (token.kind == INFIX and token.text == ":"):
            continue
        left, right = _operand_before(formula, index), _operand_after(formula, index)
        if left is None or right is None:
            continue
        first, last = left[0], right[1]  # the built range: tokens [first, last)
        if not any(tokens[k].is_call and tokens[k].name in ("INDEX", "OFFSET") for k in (first, right[0])):
            continue
        before, after = formula.previous(first), formula.following(last - 1)
        operated = any(t is not None and t.kind in (INFIX, PREFIX) and t.text in _READING for t in (before, after))
        if operated:
            edits.before(first, "INDEX(")
            edits.after(last - 1, ",0,0)")
    return edits.text()


def may_build(text: str) -> bool:
    upper = text.upper()
    return ("INDEX(" in upper or "OFFSET(" in upper) and "):" in text.replace(" ", "") or ":INDEX(" in upper \
        or ":OFFSET(" in upper


def _operand_before(formula: Formula, colon: int) -> tuple[int, int] | None:
    """The tokens of the operand just before token `colon`: a call (to its opening) or a range."""
    k = colon - 1
    tokens = formula.tokens
    if k < 0:
        return None
    if tokens[k].closes:
        group = next((g for g in formula.groups if g.close == k), None)
        return None if group is None or group.kind != "call" else (group.open, k + 1)
    return (k, k + 1) if tokens[k].is_range else None


def _operand_after(formula: Formula, colon: int) -> tuple[int, int] | None:
    k = colon + 1
    tokens = formula.tokens
    if k >= len(tokens):
        return None
    if tokens[k].is_call:
        group = formula.group_at(k)
        return None if group is None or group.close < 0 else (k, group.close + 1)
    return (k, k + 1) if tokens[k].is_range else None
