"""Excel's implicit intersection written out, in ordinary cells: its `@` as a file holds it
(`_xlfn.SINGLE(...)`, the pass `at_sign`), and the reference a call answers where one value is
wanted (INDIRECT, OFFSET, INDEX, CHOOSE: the pass `intersected_references`), each the cell in
the formula's own row or column, as Excel reads a formula saved with no dynamic-array marker.
"""

from __future__ import annotations

from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula, Group
from rates_xl.functions.sheet import (
    column_letters,
    is_rates_name,
    is_whole_lines,
    read_area,
    resized_reference,
    split_reference,
)
from rates_xl.functions.tokens import INFIX, POSTFIX, PREFIX

#: Functions answering a reference, which may cover several cells (CHOOSE too: `_chooses_reference`).
_REFERENCES = frozenset({"INDIRECT", "OFFSET", "INDEX"})
#: Calls whose arguments are read by Excel's newer rules (names bound to arrays, lambdas), or
#: that read a reference as one (its cells, its address, its formula): left alone.
_LEFT = frozenset({"LET", "LAMBDA", "MAP", "REDUCE", "SCAN", "BYROW", "BYCOL", "MAKEARRAY", "ISREF", "ISFORMULA",
                   "FORMULATEXT", "CELL", "ROW", "COLUMN", "ROWS", "COLUMNS", "AREAS", "SHEET", "SHEETS"})


def intersected_references(formula: Formula, _site: Site) -> str:
    """In an ordinary cell, a call answering a reference of several cells where one value is
    wanted shows the cell implicit intersection picks of it, as Excel reads a formula saved
    with no dynamic-array marker (Microsoft, "Implicit intersection operator: @": "If the
    value is a range, then pick the cell on the same row or column as the formula"): INDIRECT,
    OFFSET, CHOOSE among references (`CHOOSE(2,T1:T5,U1:U5)`, whole columns kept whole) and
    INDEX, whose row or column of 0, left out or read from an empty cell answers a whole column
    or row (`=INDEX(A:A,0)`, the old idiom for column A's cell in the formula's row; Microsoft's
    INDEX page: "If you set row_num or column_num to 0 (zero), INDEX returns the array of values
    for the entire column or row"; poi_FormulaEvalTestData_Copy.xlsx EverythingTests!E736,
    `INDEX(B14:C15,D7,2)` over an empty D7, is #VALUE! in row 736). The call is written
    `@CALL(...)`, which formualizer intersects as Excel does (a one-cell reference is itself).
    The whole formula (`=INDIRECT(B1)`, B1 holding "H47:I48"; `=OFFSET(H47,0,0,2,2)`), an
    operand (`=OFFSET(T1,0,0,5,1)+1`) or a value argument (`IF(flag,INDEX(T1:W5,0,2),0)`)
    alike; not where a function takes the range as it is (`SUM(INDEX(B:D,0,2))`,
    `MATCH(x,INDEX(T,0,2),0)`, SUMPRODUCT's arrays, FORMULATEXT's and ISFORMULA's reference),
    beside a reference operator, or inside LET or a lambda. Before, the engine spilled the range: the whole formula answered its first
    cell (H47's value where Excel has #VALUE!; two such cells spilling over each other failed
    the whole book, issue 30, point 4), an operand or an argument its first cell's value,
    silently (tests/calc/test_model_classes.py, tests/calc/test_intersected_references.py)."""
    from rates_xl.calc.formula.hazards import takes_range

    tokens = formula.tokens
    if formula.error or not tokens:
        return formula.text
    edits = formula.edits()
    for group in formula.groups:
        if group.kind != "call" or group.close < 0:
            continue
        choices = group.name == "CHOOSE" and _chooses_reference(formula, group)
        if group.name not in _REFERENCES and not choices:
            continue
        before, after = formula.previous(group.open), formula.following(group.close)
        if before is not None and before.kind == PREFIX and before.text == "@":
            continue  # (intersected already)
        if any(t is not None and t.kind in (INFIX, POSTFIX) and t.text in (":", " ", "#") for t in (before, after)):
            continue  # a corner or a side of a reference operator: the reference itself
        inner, outer, value_wanted = group, group.parent, True
        while outer is not None:
            if (outer.kind == "call" and (outer.name in _LEFT or takes_range(outer.name, inner.position))) or \
                    (outer.kind == "paren" and len(outer.arguments) > 1) or outer.kind == "array":
                value_wanted = False  # taken as a range (or a union's part, a lambda's value)
                break
            inner, outer = outer, outer.parent
        if value_wanted:
            edits.before(group.open, "@")
            for span in group.arguments[1:] if choices else ():
                choice = formula.single_index(span)  # a whole column chosen: kept whole, as INDEX's
                if choice is not None and tokens[choice].is_range:
                    area = read_area(split_reference(tokens[choice].text)[1])
                    if area is not None and is_whole_lines(area):
                        written = resized_reference(tokens[choice].text, area.rows, area.columns)
                        if written is not None:
                            edits.replace(choice, choice + 1, written)
    return edits.text()


def _chooses_reference(formula: Formula, call: Group) -> bool:
    """CHOOSE with a reference among its choices (`CHOOSE(2,T1:T5,U1:U5)`): it answers the
    reference chosen, as it is."""
    tokens = formula.tokens
    return any(tokens[k].is_range or (tokens[k].is_call and tokens[k].name in (*_REFERENCES, "CHOOSE"))
               for first, last in call.arguments[1:] for k in range(first, last))


def at_sign(formula: Formula, site: Site) -> str:
    """Excel's `@` (implicit intersection), stored in a file as `_xlfn.SINGLE(...)`, which the
    fast engine does not know (#NAME?: 1,040 cells of the loan tracker in ../shared/corpus/models
    were listed as not computed). In an ordinary cell Excel's `@` gives, of a range, the cell
    in the formula's own row (a column range) or column (a row range), #VALUE! where there is
    none; of a single value, that value (Microsoft, "Implicit intersection operator: @").

    - `_xlfn.SINGLE(A2:A40)`, or over a defined name standing for one range
      (`_xlfn.SINGLE(Pmt_Nbr)`, Pmt_Nbr = 'Amortization Schedule'!$B$18:$B$537): that cell;
    - `_xlfn.SINGLE(expression)` whose every operand is one cell and which calls no function
      answering an array (after the `@`s inside it are written out): the expression itself,
      as `@` leaves a single value alone. The loan tracker's payment column
      ('Amortization Schedule'!E18:
      `=@IF(@Pmt_Nbr="","",MIN(Optional_Extra_Payments,@Beginning_Bal-@Sched_Pmt))`) is both.

    - `_xlfn.SINGLE(call)` of one INDEX, OFFSET, INDIRECT or CHOOSE call: `@call`, which
      formualizer intersects as Excel does (`intersected_references`).

    Anything else (`@` over an expression answering an array, over a range built with ':')
    stays unknown to the engine, and its cell is listed, never guessed. Proved by
    dataresearchlabs_MyLoanTracker_v010009_FREE.xlsx and tests/calc/test_single.py."""
    for _ in range(8):  # inner `@`s first, then the ones around them
        done = _at_sign_once(formula, site)
        if done == formula.text:
            break
        formula = Formula(done)
    return formula.text


def _at_sign_once(formula: Formula, site: Site) -> str:
    from rates_xl.calc.formula.hazards import ARRAY_RESULTS

    tokens = formula.tokens
    edits = formula.edits()
    for group in formula.calls("SINGLE"):
        if group.close < 0 or len(group.arguments) != 1:
            continue
        first, last = group.arguments[0]
        call = formula.group_at(first)
        if call is not None and call.kind == "call" and call.close == last - 1 and \
                (call.name in _REFERENCES or call.name == "CHOOSE"):
            # `@` over one call answering a reference: formualizer's own `@` (`intersected_references`)
            edits.replace(group.open, group.close + 1, "@" + formula.span_text((first, last)))
            continue
        inner = formula.single_index((first, last))
        if inner is not None and tokens[inner].is_range:
            cell = _picked(_named(tokens[inner].text, site), site)
            if cell is not None:
                edits.replace(group.open, group.close + 1, cell)
            continue
        if first < last and _scalar(formula, (first, last), site, ARRAY_RESULTS):
            edits.replace(group.open, group.close + 1, f"({formula.span_text((first, last))})")
    return edits.text()  # (an `@` holding another is not a single value yet: no overlap)


def _named(reference: str, site: Site) -> str:
    """A defined name's one range (`Pmt_Nbr` -> "'Amortization Schedule'!$B$18:$B$537"); any
    other reference as it is."""
    prefix, ref = split_reference(reference)
    if "[" in prefix or read_area(ref) is not None:
        return reference
    return site.book.name_range(site.sheet, reference) or reference


def _scalar(formula: Formula, span: tuple[int, int], site: Site, array_results: frozenset[str]) -> bool:
    """Whether a span of tokens is a single value for certain: each reference one cell, no
    `@` left, no array constant, no range operator or spill, no call answering an array."""
    for token in formula.tokens[span[0]:span[1]]:
        if token.is_call and (token.name in array_results or token.name == "SINGLE" or is_rates_name(token.name)):
            return False
        if token.kind == "Array" or (token.kind in ("OpInfix", "OpPostfix") and token.text in (":", "#", " ")):
            return False
        if token.is_range and site.book.range_size(site.sheet, token.text) != 1:
            return False
    return True


def _picked(reference: str, site: Site) -> str | None:
    prefix, ref = split_reference(reference)
    if "[" in prefix or "[" in ref:
        return None  # another workbook, a table: not a plain reference
    area = read_area(ref)
    if area is None:
        return None  # a defined name that is not one range, or something else: listed
    if area.is_cell:
        return f"{prefix}{area.a1()}"
    if area.left == area.right and site.in_rows(area.top, area.bottom):
        return f"{prefix}{column_letters(area.left)}{site.this_row()}"
    if area.top == area.bottom and site.in_cols(area.left, area.right):
        return f"{prefix}{column_letters(site.this_col())}{area.top}"
    return "#VALUE!"
