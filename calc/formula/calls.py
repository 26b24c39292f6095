"""Passes that route one function's calls: to a function of ours (calc/xlfuncs) where
formualizer's differs from Excel, or to the answer itself where the formula's text decides it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rates_xl.calc.formula.site import NotComputed
from rates_xl.calc.formula.text_limit import NUMBER_ANSWERS
from rates_xl.calc.formula.tree import Formula, Group
from rates_xl.calc.xlfuncs.lookup.indexing import AREAS, LIFTED
from rates_xl.calc.xlfuncs.lookup.indexing import NAME as INDEX_NAME
from rates_xl.calc.xlfuncs.math_trig.sumproduct import LOGICALS
from rates_xl.calc.xlfuncs.math_trig.sumproduct import NAME as MISSHAPEN
from rates_xl.calc.xlfuncs.omitted import OMITTED
from rates_xl.calc.xlfuncs.statistical.conditional import WHOLE_LINES
from rates_xl.functions.sheet import read_area, split_reference
from rates_xl.functions.tokens import (
    ARG,
    ARRAY,
    ERROR,
    FUNC,
    INFIX,
    NUMBER,
    OPEN,
    OPERAND,
    PAREN,
    POSTFIX,
    PREFIX,
    RANGE,
    ROW,
    SEP,
)

if TYPE_CHECKING:
    from rates_xl.calc.formula.site import FormulaCells, Site
    from rates_xl.functions.tokens import Token

# -- SUMPRODUCT over arguments of different sizes ---------------------------------------------------


def sumproduct_shapes(formula: Formula, _site: object = None) -> str:
    """SUMPRODUCT given arrays of different sizes, as Excel answers it: #VALUE!, unless a cell
    of the arguments holds an error, which comes first (the first one, in argument order:
    formulas_test.xlsx MATH & TRIG!AE75 is #NUM!, poi_FormulaEvalTestData_Copy.xlsx
    EverythingTests!I1328 `SUMPRODUCT(2,C10:C11)` is #VALUE!). formualizer broadcasts and
    answers a number. Where every argument's size is known from the text (plain ranges,
    numbers) and they differ, the call goes to RATESXL.MISSHAPEN (calc/xlfuncs/math_trig/sumproduct.py);
    every other SUMPRODUCT stays formualizer's own (native, fast)."""
    edits = formula.edits()
    for call in formula.calls("SUMPRODUCT"):
        if formula.tokens[call.open].text.upper() == "SUMPRODUCT(" and _sizes_differ(formula, call):
            edits.replace(call.open, call.open + 1, f"{MISSHAPEN}(")
    return edits.text()


def _sizes_differ(formula: Formula, call: Group) -> bool:
    sizes = set()
    for span in call.arguments:
        token = formula.single(span)
        if token is None or token.kind != OPERAND:
            return False  # an expression: its size is the engine's to find
        if token.sub == NUMBER:
            sizes.add((1, 1))
            continue
        if token.sub != RANGE:
            return False
        sheet, ref = split_reference(token.text)
        area = read_area(ref, whole_lines=False)
        if area is None or "[" in sheet:
            return False  # a name, a whole column, another book: not known here
        sizes.add((area.rows, area.columns))
    return len(sizes) > 1


_ARITHMETIC = frozenset("+-*/^")


def sumproduct_logicals(formula: Formula, _site: object = None) -> str:
    """SUMPRODUCT counts a logical value in its arrays as 0, as any entry that is not a number
    (Microsoft's SUMPRODUCT page: "treats array entries that are not numeric as if they were
    zeros"; hence `SUMPRODUCT(--(A1:A5>10),B1:B5)`, and `SUMPRODUCT(A1:A5>10)` is 0; Gnumeric's
    documentation says the same of Excel). formualizer's own counts TRUE as 1. A call with an
    argument that may hold a logical value (a reference, a name, a comparison, anything but
    arithmetic, a number or a numeric function's answer) goes to RATESXL.SUMPRODUCT
    (calc/xlfuncs/math_trig/sumproduct.py); `SUMPRODUCT((A1:A5>10)*B1:B5)` stays formualizer's
    (native, fast). Proved by tests/calc/test_sumproduct.py."""
    edits = formula.edits()
    for call in formula.calls("SUMPRODUCT"):
        if formula.tokens[call.open].text.upper() == "SUMPRODUCT(" \
                and not all(_no_logicals(formula, span) for span in call.arguments):
            edits.replace(call.open, call.open + 1, f"{LOGICALS}(")
    return edits.text()


def may_count_whole_lines(text: str) -> bool:
    return ":" in text  # (a whole line is a range: the tokens say which, `_whole_line_cells`)


def whole_line_counts(formula: Formula, _site: object = None) -> str:
    """COUNTIF and COUNTIFS whose ranges are all whole columns or rows of one size (`A:A`, `$1:$1`,
    `Data!B:C`) go to RATESXL.COUNTIF(S) with that size as a last argument
    (calc/xlfuncs/statistical/conditional.py `_whole_lines`): the engine hands a whole column over
    cut to its used rows, and Excel counts the blank cells past them where the criteria count a
    blank (COUNTIF(A:A,"<>x"), COUNTIF(A:A,"")): IronCalc's Excel-made COUNTIF.xlsx, proved by
    tests/calc/test_whole_line_counts.py. Any other COUNTIF is left as it is."""
    edits = formula.edits()
    for call in formula.calls("COUNTIF", "COUNTIFS"):
        counts, ranges = len(call.arguments), call.arguments[0::2]
        if counts % 2 or (call.name == "COUNTIF" and counts != 2):
            continue
        sizes = {_whole_line_cells(formula, span) for span in ranges}
        if len(sizes) == 1 and (size := sizes.pop()) is not None:
            edits.replace(call.open, call.open + 1, f"{WHOLE_LINES[call.name]}(")
            edits.before(call.close, f",{size}")
    return edits.text()


def _whole_line_cells(formula: Formula, span: tuple[int, int]) -> int | None:
    """The cell count of an argument that is one whole-column or whole-row reference, else None."""
    index = formula.single_index(span)
    token = formula.tokens[index] if index is not None else None
    if token is None or token.kind != OPERAND or token.sub != RANGE:
        return None
    sheet, ref = split_reference(token.text)
    if "[" in sheet or read_area(ref, whole_lines=False) is not None:
        return None  # another book, or a bounded range
    area = read_area(ref, whole_lines=True)
    return None if area is None else area.rows * area.columns


def _no_logicals(formula: Formula, span: tuple[int, int]) -> bool:
    """Whether an argument's value can hold no logical value: a number, arithmetic (`--x`,
    `x*1`, `(a>b)*c`) or a numeric function's answer (`ROW(A1:A3)`), read from the operators
    outside any parenthesis or call of the argument."""
    tokens = formula.tokens
    first, last = formula.trimmed(span)
    depth, top = 0, []
    for index in range(first, last):
        token = tokens[index]
        if token.is_space:
            continue
        if depth == 0:
            top.append(index)
        if token.kind in (FUNC, PAREN, ARRAY):
            depth += 1 if token.sub == OPEN else -1
    if not top:
        return False
    if any(tokens[i].kind == INFIX and tokens[i].text in ("=", "<", ">", "<=", ">=", "<>", "&") for i in top):
        return False  # a comparison (or a join) decides the value
    if any(tokens[i].kind == INFIX and tokens[i].text in _ARITHMETIC for i in top):
        return True
    head = tokens[top[0]]
    if head.kind == PREFIX and head.text == "-":
        return True
    if len(top) == 1 and head.kind == OPERAND and head.sub == NUMBER:
        return True
    if len(top) == 1 and head.is_call:
        return head.name in NUMBER_ANSWERS
    return False


# -- INDEX ---------------------------------------------------------------------------------------
_WHOLE_INDEX = re.compile(r"=\s*(?:_xlfn\.)?INDEX\(", re.I)


def may_index(text: str) -> bool:
    upper = text.upper()
    return "INDEX(" in upper and ("{" in text or ":" in text or _WHOLE_INDEX.match(text) is not None)


def index(formula: Formula, site: Site) -> str:
    """INDEX where formualizer's own differs from Excel (formulas_test.xlsx LOOKUP rows 52-54):
    an array constant of several rows and columns with the column omitted gives the whole row
    (`INDEX({2,3;4,5},2)` is {4,5}; formualizer: 4); an array constant as the row or column is
    lifted, one answer per element; an error as area_num is the answer; a union of ranges as
    the reference (`INDEX((C52:C54,D52:D54),1,1,E52:E54)`) picks area area_num, #REF! past the
    last; a reference of several rows and columns with the column omitted is #REF!. Such calls
    go to ours (calc/xlfuncs/lookup/indexing.py), which receive values, not references: only INDEX
    of an array constant, and INDEX of a union or a 2-D range where it is the whole formula."""
    tokens = formula.tokens
    edits = formula.edits()
    array = bool(getattr(site, "array", False))
    calls = [c for c in formula.calls("INDEX") if tokens[c.open].text.upper() in ("INDEX(", "_XLFN.INDEX(")
             and c.close >= 0]
    for call in calls:
        arguments = [formula.solid(span) for span in call.arguments]
        first = arguments[0]
        rest = arguments[1:]
        if _is_constant(first):
            two_d = any(t.kind == SEP and t.sub == ROW for t in first) and len(first) > 3 \
                and any(t.kind == SEP and t.sub == ARG for t in first)
            if not all(_simple(a, ranges=False) for a in rest):
                continue
            if any(_is_constant(a) for a in rest):
                edits.replace(call.open, call.open + 1, f"{LIFTED}(")
            elif (two_d and len(arguments) == 2) or len(arguments) == 4:
                edits.replace(call.open, call.open + 1, f"{INDEX_NAME}(")
        elif (flat := _flat_range(first, rest)) is not None and _simple(rest[0], ranges=False) \
                and not _beside_reference_operator(formula, call):
            # A reference of several rows and columns given only a row: #REF! wherever it is
            # (`INDEX(C52:E53,2)+1`, `IF(f,INDEX(T:W,3))`: formualizer's first column's value).
            edits.replace(call.open, call.close, f'{AREAS}({"".join(t.text for t in rest[0])},"{OMITTED}","{OMITTED}",'
                                                 f"{flat}")
        elif (areas := _union(first)) is not None and call.open == 0 and call.close == len(tokens) - 1:
            # Ranges as the row, column or area are lifted (one answer each) in an array formula
            # over a union only: that is what the corpus shows of Excel.
            lifts = array and _union(first) is not None
            if len(rest) > 3 or not all(_simple(a, ranges=lifts) for a in rest):
                continue
            texts = ["".join(t.text for t in a) for a in rest]
            given = [text if text.strip() else f'"{OMITTED}"' for text in texts]
            given += [f'"{OMITTED}"'] * (3 - len(given))
            edits.replace(call.open, call.close, f"{AREAS}(" + ",".join(given + areas))
    return edits.text()


def index_signs(formula: Formula, _site: Site) -> str:
    """INDEX given a negative row or column is #VALUE! in Excel whatever the range's shape
    (formulas_test.xlsx LOOKUP!R54: `INDEX(C52:E53,-1)` is #VALUE! where a row past the range,
    `INDEX(C52:E53,2)`, is #REF!, R53); formualizer answers #REF! over a column (`INDEX(A1:A2,-1)`)
    and once the column is given (`INDEX(A1:B2,-1,1)`: a model's cell kept outside the project,
    issue 30 point 4). A row or column given as a number or one cell is read through
    `IF(x<0,#VALUE!,x)` in the engine's copy, so INDEX still answers a reference
    (`INDEX(r,1,1):INDEX(r,1,n)`); a computed one (MATCH's, never negative) is left as it is.
    An array constant too (pycel's Excel-made lookup.xlsx, Index!C26:J26 and G41:
    `INDEX({1,2;3,4},,-1)` is #VALUE!, formualizer's #REF!), where the pass `index` left it to
    formualizer's INDEX."""
    tokens = formula.tokens
    edits = formula.edits()
    for call in formula.calls("INDEX"):
        if call.close < 0 or len(call.arguments) < 2 or tokens[call.open].text.upper() not in ("INDEX(", "_XLFN.INDEX("):
            continue  # (ours take array constants and a 2-D range given a row alone: the pass `index`)
        for span in call.arguments[1:3]:
            solid = formula.solid(span)
            if len(solid) == 2 and solid[0].kind == PREFIX and solid[0].text == "-" and solid[1].sub == NUMBER \
                    and float(solid[1].text) != 0:
                edits.replace(span[0], span[1], "#VALUE!")
            elif len(solid) == 1 and solid[0].is_range and _one_cell(solid[0].text):
                edits.replace(span[0], span[1], f"IF({solid[0].text}<0,#VALUE!,{solid[0].text})")
    return edits.text()


def switch_errors(formula: Formula, _site: Site) -> str:
    """SWITCH with an error among its cases, as Excel answers it: its cases are read in order,
    and an error met before the match is the answer (pycel's tests/fixtures/logical.xlsx, made
    by Excel: Switch!D3 `SWITCH(B3,A3,A3)` and G3 `SWITCH(B3,A3,B3)`, B3 a number, A3 #DIV/0!,
    are #DIV/0!, and so for #NUM!, #VALUE!, #REF!, #NULL!, #N/A in rows 4 to 9). formualizer
    skips the error and answers a later match; `formulas` and LibreOffice (ScSwitch_MS) answer
    the error. An error as the expression is that error in Excel and here (formulas_test.xlsx
    LOGICAL!Z25:AF25; Switch!C3 and E3 above). So a call whose cases are not all constants is
    written case by case: `IF(ISERROR(case),case,IF(SWITCH(x,case,TRUE,FALSE),result,next))`
    (SWITCH itself says whether a case matches: its comparison unchanged).
    A match before an error case: no document or cell of Excel's gives the answer (the later
    error, or the match's result), so such a cell answers #NAME?, never a guess, and the check
    against Excel's values lists it stale with its formula (as the FORECAST.ETS family's unknown
    fits: calc/xlfuncs/statistical/ets.py)."""
    tokens = formula.tokens
    edits = formula.edits()
    taken: list[tuple[int, int]] = []
    for call in formula.calls("SWITCH"):
        if call.close < 0 or len(call.arguments) < 3 or any(a <= call.open and call.close <= b for a, b in taken):
            continue
        pairs = (len(call.arguments) - 1) // 2
        cases = [call.arguments[1 + 2 * i] for i in range(pairs)]
        risky = [i for i, span in enumerate(cases) if not _literal(formula.solid(span))]
        if not risky:
            continue
        edits.replace(call.open, call.close + 1, _switch_in_order(formula, call, pairs, set(risky)))
        taken.append((call.open, call.close))
    return edits.text() if tokens else formula.text


def _switch_in_order(formula: Formula, call: Group, pairs: int, risky: set[int]) -> str:
    """`switch_errors`' writing of one call: its cases in order, from the last."""
    texts = [formula.span_text(span) for span in call.arguments]
    switch, expression = formula.tokens[call.open].text, texts[0]
    written = texts[-1] if len(texts) % 2 == 0 else "#N/A"  # the default, or no match
    for i in reversed(range(pairs)):
        case, result = texts[1 + 2 * i], texts[2 + 2 * i]
        later = [texts[1 + 2 * j] for j in sorted(risky) if j > i]
        if later:  # a match before a case that may be an error: Excel's answer unknown
            result = f"IF(OR({','.join(f'ISERROR({c})' for c in later)}),#NAME?,{result})"
        written = f"IF({switch}{expression},{case},TRUE,FALSE),{result},{written})"
        if i in risky:
            written = f"IF(ISERROR({case}),{case},{written})"
    return f"IF(ISERROR({expression}),{expression},{written})"


#: The name `shape_of_an_error` binds its call's argument to (LET).
_SHAPED = "_rates_xl_shaped"
#: Reference operators: an argument built with them is a reference, whose shape needs no value.
_REFERENCE_OPERATORS = frozenset({",", " ", ":"})


def shape_of_an_error(formula: Formula, _site: Site) -> str:
    """ROWS and COLUMNS of an expression whose answer is an error are that error in Excel: a
    count of matches written `ROWS(FILTER(A2:A9,B2:B9="x"))` is FILTER's error when nothing
    matches, not 1 (the argument is evaluated, and an error argument is the function's answer,
    as for any function taking a value). formualizer 0.13 answers 1 for every error
    (`ROWS(NA())`, `COLUMNS(1/0)`). A call whose argument is computed (a call, an operator or an
    error: never a reference, a name or a reference built with `,`, ` ` or `:`, whose shape
    needs no value) is read through
    `LET(x, argument, IF(AND(ROWS(x)=1, COLUMNS(x)=1), IF(ISERROR(INDEX(x,1,1)), INDEX(x,1,1), 1),
    ROWS(x)))`: one evaluation of the argument, the error passed on, every other answer the same;
    only a computed one-cell array holding an error (Excel: 1) shows the error; an array
    constant is left to the engine (tests/calc/test_model_classes.py)."""
    tokens = formula.tokens
    edits = formula.edits()
    taken: list[tuple[int, int]] = []
    for call in formula.calls("ROWS", "COLUMNS"):
        if call.close < 0 or len(call.arguments) != 1 or any(a <= call.open and call.close <= b for a, b in taken):
            continue
        argument_tokens = formula.solid(call.arguments[0])
        if any(t.kind == INFIX and t.text in _REFERENCE_OPERATORS for t in argument_tokens):
            continue  # a union, an intersection or a range built by `:` (formulas_test.xlsx LOOKUP!S15)
        if _is_constant(argument_tokens):
            continue  # an array constant's shape is written: ROWS({#N/A}) is 1 (edge43)
        if not any(t.kind in (FUNC, INFIX, PREFIX) or (t.kind == OPERAND and t.sub == ERROR) for t in argument_tokens):
            continue
        argument = formula.span_text(call.arguments[0])
        shape = f"{tokens[call.open].text}{_SHAPED})"
        edits.replace(call.open, call.close + 1,
                      f"LET({_SHAPED},{argument},IF(AND(ROWS({_SHAPED})=1,COLUMNS({_SHAPED})=1),"
                      f"IF(ISERROR(INDEX({_SHAPED},1,1)),INDEX({_SHAPED},1,1),1),{shape}))")
        taken.append((call.open, call.close))
    return edits.text() if taken else formula.text


def _literal(argument: list[Token]) -> bool:
    """A number, text, TRUE or FALSE written in the formula (or nothing)."""
    if len(argument) == 2 and argument[0].kind == PREFIX and argument[0].text == "-":
        argument = argument[1:]
    return not argument or (len(argument) == 1 and argument[0].kind == OPERAND and argument[0].sub != RANGE)


def _one_cell(reference: str) -> bool:
    prefix, ref = split_reference(reference)
    area = read_area(ref, whole_lines=False)
    return area is not None and area.is_cell and "[" not in prefix


def _is_constant(argument: list[Token]) -> bool:
    return (len(argument) >= 2 and argument[0].kind == ARRAY and argument[0].opens
            and argument[-1].kind == ARRAY and argument[-1].closes
            and all(t.kind in (OPERAND, SEP) or t.text == "-" for t in argument[1:-1]))


def _simple(argument: list[Token], ranges: bool) -> bool:
    """A number, a single cell (any range when `ranges`), an array constant or nothing."""
    if not argument or _is_constant(argument):
        return True
    if len(argument) == 2 and argument[0].kind == PREFIX and argument[0].text == "-":
        argument = argument[1:]  # a negative number
    if len(argument) != 1 or argument[0].kind != OPERAND:
        return False
    token = argument[0]
    if token.sub == NUMBER:
        return True
    if token.sub != RANGE or "!" in token.text or "[" in token.text:
        return False
    area = read_area(token.text, whole_lines=False)
    if area is None:
        return False  # a name: its size is not known here
    return ranges or area.is_cell


def _union(argument: list[Token]) -> list[str] | None:
    """`(A1:B2,C3:D4)` -> its ranges; None for anything else."""
    if len(argument) < 5 or argument[0].kind != PAREN or argument[-1].kind != PAREN:
        return None
    inner = argument[1:-1]
    ranges, commas = inner[0::2], inner[1::2]
    if not all(t.is_range and "!" not in t.text for t in ranges):
        return None
    if not all(t.kind == INFIX and t.text == "," for t in commas):
        return None
    return [t.text for t in ranges]


def _flat_range(argument: list[Token], rest: list[list[Token]]) -> str | None:
    """A plain range of several rows and columns (whole columns or rows too, of any sheet)
    given only a row (`INDEX(C52:E53,2)`: Excel answers #REF!, formualizer the first column's
    value) -> the range; None otherwise, and for a row of 0 or left out (not seen of Excel)."""
    if len(rest) != 1 or len(argument) != 1 or not argument[0].is_range:
        return None
    if not rest[0] or (len(rest[0]) == 1 and rest[0][0].sub == NUMBER and float(rest[0][0].text) == 0):
        return None
    text = argument[0].text
    if "[" in text:
        return None
    area = read_area(split_reference(text)[1])
    if area is None or area.rows == 1 or area.columns == 1:
        return None
    return text


def _beside_reference_operator(formula: Formula, call: Group) -> bool:
    """A corner or a side of `:` or of the intersection (`INDEX(A1:C3,2):C5`)."""
    return any(t is not None and t.kind in (INFIX, POSTFIX) and t.text in (":", " ", "#")
               for t in (formula.previous(call.open), formula.following(call.close)))


# -- TYPE and ERROR.TYPE of what formualizer cannot read ---------------------------------------------


def may_type_of(text: str) -> bool:
    lower = text.lower()
    return "_xleta" in lower or "#getting_data" in lower


def type_of(formula: Formula, _site: object = None) -> str:
    """TYPE of a function value is 128 (`TYPE(_xleta.SUM)`, formulas_test.xlsx INFORMATION!S24;
    `_xleta.SUM` is #NAME? to formualizer); ERROR.TYPE of a typed #GETTING_DATA is 8
    (INFORMATION!T4; formualizer reads the unknown error as #VALUE!, 3): written as the answer."""
    edits = formula.edits()
    for call in formula.calls():
        opening = formula.tokens[call.open].text.upper()
        if len(call.arguments) != 1 or call.close < 0:
            continue
        token = formula.single(call.arguments[0])
        if token is None or token.kind != OPERAND:
            continue
        if opening == "TYPE(" and token.sub == RANGE and _ETA.fullmatch(token.text):
            edits.replace(call.open, call.close + 1, "128")
        elif opening == "ERROR.TYPE(" and token.sub == ERROR and token.text.upper() == "#GETTING_DATA":
            edits.replace(call.open, call.close + 1, "8")
    return edits.text()


_ETA = re.compile(r"_xleta\.[A-Za-z][\w.]*", re.IGNORECASE)


# -- ISFORMULA -----------------------------------------------------------------------------------


def isformula(formula: Formula, site: Site) -> str:
    """ISFORMULA answered from the book's own formulas: formualizer answers FALSE for every
    cell, and its copy holds the formulas it does not compute as plain values, which no engine
    can tell from typed-in numbers (formulas_test.xlsx `=ISFORMULA(F10)` over `=10`: TRUE).
    Whether a cell holds a formula does not change while the book calculates: an anchor of a
    formula, or any cell of a legacy array range, is one (formulas_test.xlsx EXTRA!BG76: the
    cells of `{=BF70:BG74+1}` are TRUE); every other cell is not. A cell a dynamic array
    spills into, and any argument but a plain reference, is left to the engine. One cell is
    answered TRUE or FALSE; a range, in an array formula, an array constant (calc/xlfuncs/
    isformula.py reads the book's formula cells)."""
    cells = site.book.formula_cells
    if cells is None:
        return formula.text
    computed_reference("ISFORMULA", formula)
    tokens = formula.tokens
    edits = formula.edits()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.is_call and token.text.upper().rstrip("(").split(".")[-1] == "ISFORMULA" and i + 2 < len(tokens):
            operand, close = tokens[i + 1], tokens[i + 2]
            if operand.is_range and close.kind == FUNC and close.closes:
                answer = _formula_answer(operand.text, site.sheet, cells, site.array)
                if answer is not None:
                    edits.replace(i, i + 3, answer)
                    i += 3
                    continue
        i += 1
    return edits.text()


def computed_reference(name: str, formula: Formula) -> None:
    """NotComputed for ISFORMULA or FORMULATEXT (`name`) given a reference a formula computes
    (`ISFORMULA(INDEX(T1:W5,2,2))`, `FORMULATEXT(OFFSET(A1,1,0))`): the engine answers FALSE
    for every cell, and its own text of a formula (`=40 + 1`), and which cell is read is known
    only once computed."""
    for call in formula.calls(name):
        if call.arguments and not (len(token := formula.solid(call.arguments[0])) == 1 and token[0].is_range):
            raise NotComputed(f"{name} of a reference a formula computes (the engine reads no cell's formula)")


def _formula_answer(reference: str, sheet: str, cells: FormulaCells, array: bool) -> str | None:
    """TRUE, FALSE or an array constant for a plain reference; None to leave it."""
    from rates_xl.calc.formula.site import MOST_CELLS

    place = cells.area(reference, sheet)  # (None: another workbook, no sheet of this book ...)
    if place is None:
        return None
    sheet, area = place
    if area.size > MOST_CELLS or (not area.is_cell and not array):
        return None
    rows: list[list[str]] = []
    for r in range(area.top, area.bottom + 1):
        line = []
        for c in range(area.left, area.right + 1):
            found = cells.answer(sheet, r, c)
            if found is None:
                return None
            line.append("TRUE" if found else "FALSE")
        rows.append(line)
    if len(rows) == 1 and len(rows[0]) == 1:
        return rows[0][0]
    return "{" + ";".join(",".join(line) for line in rows) + "}"


# -- RATES_SOURCE --------------------------------------------------------------------------------
_SOURCE_NAMES = ("RATES_SOURCE", "RATES.SOURCE", "_XLUDF.RATES_SOURCE", "_XLUDF.RATES.SOURCE")


def source(formula: Formula, site: Site) -> str:
    """RATES_SOURCE(B7) -> RATES_SOURCE_OF(B7, "Rates!B7", 4, "RATES_SWAP", Rates!A1, ...): the
    referenced cell's RATES_* calls (the anchor's, when B7 is inside a spill), each as its
    argument count, name and argument expressions with their references qualified by B7's
    sheet, so the engine evaluates them exactly as B7's call did and RATES_SOURCE_OF explains
    the answer held for that request (calc/sources.py). A worksheet function receives only a
    cell's value, which several answers may hold. Proved by tests/calc/test_pack_calc.py's
    RATES_SOURCE cases (no Excel-made book calls it)."""
    from rates_xl.calc.sources import NAME, encoded

    targets = site.book.sources
    if targets is None:
        return formula.text
    edits = formula.edits()
    replaced: list[Group] = []
    for call in formula.calls():
        if call.close < 0 or formula.tokens[call.open].text[:-1].upper() not in _SOURCE_NAMES:
            continue
        if any(outer.open < call.open < outer.close for outer in replaced):
            continue  # inside one already rewritten
        replaced.append(call)
        argument = formula.span_text((call.open + 1, call.close)).strip()
        edits.replace(call.open, call.close + 1, f"{NAME}({argument}, {encoded(argument, site.sheet, targets)})")
    return edits.text()


def qualify(formula: Formula, sheet: str) -> str:
    """Every cell or range reference of `formula` without a sheet given `sheet`'s (names stay)."""
    from rates_xl.functions.sheet import quote_sheet

    edits = formula.edits()
    for index, token in enumerate(formula.tokens):
        if token.is_range and "!" not in token.text and read_area(token.text, whole_lines=False) is not None:
            edits.before(index, f"{quote_sheet(sheet)}!")
    return edits.text()

