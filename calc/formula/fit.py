"""The fit: what calc/formula/hazards.py flags, rewritten the way Excel evaluates it so that
the fast engine computes it right (calc/fast.py applies them cell by cell):

- `lift`: an array formula whose hazards lie outside range-taking arguments, on plain
  ranges, becomes one ordinary formula per cell of its range (`=IF(ISNUMBER(B7:B9),B7:B9,"")`
  over D7:D9 becomes `=IF(ISNUMBER(B7),B7,"")`, `=IF(ISNUMBER(B8),B8,"")`, ...);
- `intersect`: an ordinary cell gets Excel's implicit intersection written out;
- `materialise`: an argument that takes a range but is given a hazard (`SUM(LEN(A1:A8))`) is
  lifted into helper cells and the function reads their range;
- `qualify_names`: a sheet-scoped name used from another sheet becomes its range;
- `cut_to_range`: an array answer shown in a range of a given size (a legacy array's stored
  range; an ordinary cell shows the top-left value).

What none of them can rewrite is reported back: the caller keeps the file's cached value
(listed), or computes the whole workbook with the `formulas` engine. Proved by the corpus
(formulas_test.xlsx LOGICAL!AW9 for the #N/A past a shorter operand, CORE!K6 for an array
answer in an ordinary cell) and tests/calc/test_analysis.py.
"""

from __future__ import annotations

from collections.abc import Callable

from rates_xl.calc.formula.hazards import CATCHING, Analysis, Operand, analyse
from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import Area, column_letters, read_area, split_reference


def lift(analysis: Analysis, rows: int, cols: int) -> list[list[str]] | None:
    """One ordinary formula per cell of a `rows` x `cols` array formula, or None when it
    cannot be written out (an operand that is not a plain range, or shapes that differ)."""
    ranges = _elementwise_ranges(analysis, constants=True)
    if ranges is None:
        return None
    pieces = [(operand, sheet, 0, 0, *_constant_shape(operand)) if area is None
              else (operand, sheet, area.left, area.top, area.columns, area.rows)
              for operand, sheet, area in ranges]
    # Past its largest operand, a cell of the range reads #N/A in each operand (ISNA(C12:Q12)
    # over AH12:AW12 is TRUE in AW12), but IFERROR and IFNA do not catch it: the cell is #N/A
    # (formulas_test.xlsx LOGICAL!AW9, AW10). A 1-wide or 1-high operand is repeated.
    catching = bool(analysis.functions & CATCHING)
    result_height = max((p[5] for p in pieces), default=1)
    result_width = max((p[4] for p in pieces), default=1)
    formula = analysis.formula
    out = []
    for i in range(rows):
        row = []
        for j in range(cols):
            if catching and (result_height > 1 and i >= result_height or result_width > 1 and j >= result_width):
                row.append("=NA()")
                continue
            edits = formula.edits()
            for operand, sheet, c1, r1, width, height in pieces:
                di = i if height > 1 else 0
                dj = j if width > 1 else 0
                end = operand.index + 1 if operand.end is None else operand.end
                if di >= height or dj >= width:
                    edits.replace(operand.index, end, "NA()")  # Excel's #N/A beyond a shorter array
                elif operand.elements is not None:  # an array constant: its element, a value
                    element = operand.elements[di][dj]
                    edits.replace(operand.index, end, f"({element})" if element[0] in "+-" else element)
                else:
                    edits.replace(operand.index, end, f"{sheet}{column_letters(c1 + dj)}{r1 + di}")
            row.append(edits.text())
        out.append(row)
    return out


def _constant_shape(operand: Operand) -> tuple[int, int]:
    """An array constant's (width, height)."""
    elements = operand.elements or [[]]
    return len(elements[0]), len(elements)


def _elementwise_ranges(analysis: Analysis, whole_lines: bool = False,
                        constants: bool = False) -> list[tuple[Operand, str, Area | None]] | None:
    """(operand, sheet prefix, area) of each operand an elementwise function is given, in
    formula order (an array constant's area None, where `constants` lets one be written out);
    None when the formula cannot be written out cell by cell (or, unless `whole_lines`, an
    operand is whole columns or rows: a million cells to lift)."""
    if not analysis.liftable or analysis.error or analysis.spills or analysis.whole:
        return None
    ranges: list[tuple[Operand, str, Area | None]] = []
    for operand in analysis.operands:
        if not operand.elementwise:
            continue
        if operand.elements is not None:
            if not constants:
                return None
            ranges.append((operand, "", None))
            continue
        sheet, ref = split_reference(operand.text)
        area = read_area(ref, whole_lines=whole_lines)
        if area is None:
            return None
        ranges.append((operand, sheet, area))
    return ranges


def intersect(analysis: Analysis, site: Site) -> str | None:
    """An ordinary cell's formula with Excel's implicit intersection written out: each range
    operand outside range-taking arguments becomes the cell of that range in the formula's
    own row (a column range) or column (a row range), #VALUE! where there is none. Whole
    columns and rows too: `FLOOR($AM:$AM,B$2)` in B36 is `FLOOR($AM36,B$2)`, Excel's 3
    (IronCalc's calc_tests, MATH_AND_TRIGONOMETRY__FLOOR_CEILING.xlsx, FLOOR!B36)."""
    ranges = _elementwise_ranges(analysis, whole_lines=not analysis.helpers)
    if ranges is None:
        return None
    swaps = {}
    for operand, sheet, area in ranges:
        if area is None:  # (no array constant without `constants`)
            return None
        r1, c1, r2, c2 = area
        if c1 == c2 and site.in_rows(r1, r2):
            swaps[operand.index] = f"{sheet}{column_letters(c1)}{site.this_row()}"
        elif r1 == r2 and site.in_cols(c1, c2):
            swaps[operand.index] = f"{sheet}{column_letters(site.this_col())}{r1}"
        else:
            swaps[operand.index] = "#VALUE!"
    return analysis.formula.swapped(swaps)


def materialise(analysis: Analysis, place: Callable[[list[list[str]]], str | None],
                range_size: Callable[[str], int | None],
                array_functions: frozenset[str] = frozenset(),
                resolve: Callable[[str], str | None] | None = None) -> str | None:
    """`SUM(LEN(A1:A8))` -> `SUM($X$1:$X$8)` with `=LEN(A1)` ... `=LEN(A8)` in X1:X8.

    Each argument that takes a range but is given an elementwise call over ranges is lifted
    into helper cells (`place(formulas)` puts them on the formula's own sheet, so its
    references mean the same, and returns their range); the function then reads the range,
    as Excel's does the array. A function taking a range treats the two alike (text and
    booleans ignored, errors passed on). None when an argument cannot be lifted."""
    spans = [s for s in analysis.helpers
             if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in analysis.helpers)]
    if not spans:
        return None
    formula = analysis.formula
    edits = formula.edits()
    for span in sorted(set(spans), reverse=True):  # from the right, as the helpers are placed
        inner = analyse(Formula("=" + formula.span_text(formula.trimmed(span))), range_size, array_functions, resolve)
        if inner.error or not inner.liftable or inner.spills or inner.helpers:
            return None
        shapes = []
        for operand in inner.operands:
            if operand.elementwise and operand.elements is not None:
                shapes.append((len(operand.elements), len(operand.elements[0])))
            elif operand.elementwise:
                area = read_area(split_reference(operand.text)[1], whole_lines=False)
                if area is None:
                    return None
                shapes.append((area.rows, area.columns))
        if not shapes:
            return None
        rows, cols = max(h for h, _ in shapes), max(w for _, w in shapes)
        cells = lift(inner, rows, cols)
        where = place(cells) if cells is not None else None
        if where is None:
            return None
        edits.replace(*span, where)  # white space around the argument too
    return edits.text()


def qualify_names(analysis: Analysis, resolve: Callable[[str], str | None]) -> str | None:
    """`=S2!A1+S1!local_k` -> `=S2!A1+S1!$A$1` for a sheet-scoped name used from another sheet."""
    swaps = {}
    for index, name in analysis.qualified_names:
        target = resolve(name)
        if target:
            swaps[index] = target
    return analysis.formula.swapped(swaps) if swaps else None


def is_one_array(formula: Formula) -> bool:
    """A formula that is one array constant, with no text in it (`={1,2;3,4}`)."""
    if "{" not in formula.text:
        return False
    solid = [k for k, t in enumerate(formula.tokens) if not t.is_space]
    if not solid or formula.tokens[solid[0]].kind != "Array" or not formula.tokens[solid[0]].opens:
        return False
    group = formula.group_at(solid[0])
    return group is not None and group.close == solid[-1] and not any(t.sub == "Text" for t in formula.tokens)


def cut_to_range(formula: str, rows: int, cols: int) -> str:
    """A legacy array formula's text for the engine, whose every array formula spills: its
    result cut to the first `rows` x `cols` of the stored range, so it never spills past the
    range (where Excel shows nothing of it, and a formula there must not read it). The cells
    of the range beyond a smaller result are filled in by `fit_legacy` (Excel's broadcasting).

    LET evaluates the formula once; TAKE would answer #VALUE! in this engine for counts past
    the result's own size (Excel clamps them), hence the MIN."""
    body = formula[1:] if formula.startswith("=") else formula
    return (f"=LET(_rates_xl_cse,({body}),TAKE(_rates_xl_cse,MIN(ROWS(_rates_xl_cse),{rows}),"
            f"MIN(COLUMNS(_rates_xl_cse),{cols})))")
