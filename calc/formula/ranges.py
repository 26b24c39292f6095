"""Passes over the ranges a formula reads: references to other workbooks the file holds no
copy of listed, INDIRECT of a text naming one cell or area whatever the book holds written as
that reference, Excel's `@` written out, and whole columns read to one length."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from rates_xl.calc.formula.site import NotComputed
from rates_xl.calc.formula.tree import Formula, Group
from rates_xl.functions.sheet import (
    A1_CORNER,
    MAX_ROW,
    Area,
    column_number,
    is_whole_lines,
    read_area,
    resized_reference,
    sheet_of,
    split_reference,
)
from rates_xl.functions.tokens import (
    ARG,
    CLOSE,
    FUNC,
    INFIX,
    NUMBER,
    OPEN,
    OPERAND,
    PAREN,
    PREFIX,
    TEXT,
    Token,
)

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
        prefix, ref = split_reference(token.text)
        if "[" not in prefix:
            continue  # a structured reference (Table1[Col])
        books = re.findall(r"\[([^\]]*)\]", prefix)  # `A2:'[2]MISSING'!A2` names link 2 too
        feed = next((site.book.feeds[int(n)] for n in books if n.isdigit() and int(n) in site.book.feeds), None)
        if feed is not None:
            raise NotComputed(f"it reads a live feed ({prefix.rstrip('!')}, {feed}), which only Excel can call")
        if books and all(name.isdigit() and int(name) in site.book.links for name in books):
            if re.fullmatch(r"'?\[\d+\]'?!", prefix) is None and (read_area(ref) is not None or ref.upper() == "#REF!"):
                continue  # (the cells its link part caches)
            # `[4]!p`, `[4]Sheet1!p`: that book's name p, which its link part gives no value of
            # (dde.xlsx's `[4]Sheet1!FromF2` was #REF!, Excel 111)
            raise NotComputed(f"it reads another workbook's name ({token.text}): the link caches no value "
                              "for a name, and calc does not open that workbook")
        raise NotComputed(f"it reads another workbook ({prefix.rstrip('!')}), which calc does not open "
                          "and this file holds no copy of")
    for token in formula.tokens:
        if token.is_range and token.text.upper() in site.book.foreign_names:
            raise NotComputed(f"it reads the name {token.text}, which stands for another workbook's "
                              "name; calc does not open that workbook")
    return formula.text


def may_read_other_workbooks(formula: Formula, site: Site) -> bool:
    """A `[` (a reference to another workbook), or one of the book's names standing for another
    workbook's name (the cheap test first)."""
    return "[" in formula.text or any(name in formula.upper for name in site.book.foreign_names)


def reads_other_workbook_name(text: str) -> bool:
    """A defined name's text reads a name of another workbook (`[4]!p`: the 4th link's `p`)."""
    if "[" not in text:
        return False
    return any(t.is_range and "[" in t.text and read_area(split_reference(t.text)[1]) is None
               and "]" in split_reference(t.text)[0] for t in Formula("=" + text).tokens)


def other_workbook_names(formula: Formula, _site: Site) -> str:
    """In a defined name's text, a name of another workbook (`[4]!p`, packt_Wazobia_Valuation.xlsx's
    name `k`) becomes #REF!: the file holds no value for another workbook's name (its link part
    records only what the name stood for there, `#REF!` in that model), calc does not open the
    linked file, and formualizer's loader refused the whole book over it ("Undefined name: [4]!p",
    exit 1). A cell reading such a name is listed (`other_workbooks`), never computed from it."""
    edits = formula.edits()
    for index, token in enumerate(formula.tokens):
        if token.is_range and reads_other_workbook_name(token.text):
            edits.replace(index, index + 1, "#REF!")
    return edits.text()


def literal_indirect(formula: Formula, site: Site) -> str:
    """INDIRECT of a literal A1 reference (`INDIRECT("H47:I48")`, `INDIRECT("'Rates'!B2:B9",TRUE)`)
    is that reference, read as every reference is: in an ordinary cell the cell implicit
    intersection picks (the one in the formula's row of a column, in its column of a row,
    #VALUE! where there is none: Microsoft, "Implicit intersection operator: @"), whole in a
    function taking a range or an array formula. formualizer spilled it from an ordinary cell
    (`=INDIRECT("H47:I48")` in K47 was 10, H47's value, where Excel has #VALUE!), and two such
    cells spilling over each other failed the whole book ("dynamic dependency evaluation did
    not converge"). Only a text naming this book's sheet (or none) and an A1 area is written
    out; anything else stays INDIRECT (issue 30, point 4; tests/calc/test_model_classes.py)."""
    edits = formula.edits()
    for call in formula.calls("INDIRECT"):
        text = _a1_text(formula, call)
        if text is None or len(text) != 1 or text[0].kind != OPERAND or text[0].sub != TEXT:
            continue
        reference = _literal_reference(text[0].text[1:-1].replace('""', '"'), site)
        if reference is not None:
            edits.replace(call.open, call.close + 1, reference)
    return edits.text()


def indirect_text(formula: Formula, _site: Site) -> str:
    """INDIRECT's text read through RATESXL.REFTEXT (calc/xlfuncs/lookup/reference_text.py),
    which answers Excel's #REF! where the text names no reference (a word, an empty cell, a
    number, a sheet the book does not have), before formualizer resolves it: it answered #NAME?
    and #VALUE!, and for a missing sheet's address the cell of another sheet, silently
    (IronCalc's LOOKUP_AND_REFERENCE__ROW_COLUM.xlsx ROW_COLUMN!K7: 3 where Excel has #REF!;
    tests/calc/test_indirect_text.py). Given a1 FALSE (or computed), ours reads an R1C1 text for
    the cell the formula is in (`INDIRECT("RC[-1]",FALSE)`, the cell to the left) and answers it
    in A1, which INDIRECT then reads by default: formualizer knows no R1C1 text (#REF!, silently
    where Excel has the cell's value; Microsoft's INDIRECT page: "If a1 is FALSE, ref_text is
    interpreted as an R1C1-style reference")."""
    from rates_xl.calc.xlfuncs.lookup.reference_text import NAME

    edits = formula.edits()
    for call in formula.calls("INDIRECT"):
        if call.close < 0 or not 1 <= len(call.arguments) <= 2:
            continue
        first, last = call.arguments[0]
        if not formula.solid((first, last)):
            continue  # nothing given: the engine's own error
        text = formula.span_text((first, last))
        style = formula.solid(call.arguments[1]) if len(call.arguments) == 2 else []
        if not style or (len(style) == 1 and style[0].text.upper() in ("TRUE", "1")):
            edits.replace(first, last, f"{NAME}({text})")
            if style:
                edits.replace(call.arguments[0][1], call.arguments[1][1], "")  # A1: the default
        else:
            # R1C1 perhaps (a1 FALSE, or computed): ours reads it for this cell and answers A1,
            # which INDIRECT reads by default (formualizer knows no R1C1 text: #REF!).
            written = formula.span_text(call.arguments[1])
            edits.replace(first, call.arguments[1][1], f"{NAME}({text},{written},ROW(),COLUMN())")
    return edits.text()


def _a1_text(formula: Formula, call: Group) -> list[Token] | None:
    """An INDIRECT call's text argument (its tokens, white space aside) when the call is closed,
    written `INDIRECT(` and reads A1 style (no second argument, or a literal TRUE or 1); else None."""
    if call.close < 0 or not 1 <= len(call.arguments) <= 2 or formula.tokens[call.open].text.upper() != "INDIRECT(":
        return None
    arguments = [formula.solid(span) for span in call.arguments]
    if len(arguments) == 2 and not (len(arguments[1]) == 1 and arguments[1][0].text.upper() in ("TRUE", "1")):
        return None  # R1C1 style, or a style computed
    return arguments[0]


def _literal_reference(text: str, site: Site) -> str | None:
    """`text` as a reference of this book (an A1 cell or area, its sheet one of the book's or
    none), or None."""
    read = Formula("=" + text.strip()) if text.strip() and not text.strip().startswith("=") else None
    if read is None or read.error or len(read.tokens) != 1 or not read.tokens[0].is_range:
        return None
    prefix, ref = split_reference(read.tokens[0].text)
    if read_area(ref, whole_lines=False) is None or "[" in prefix or ":" in prefix:
        return None
    if prefix:
        titles = getattr(site.book.formula_cells, "titles", None)
        if not titles or (sheet_of(prefix) or "").upper() not in titles:
            return None  # no sheet of this book (INDIRECT's #REF!): left to the engine
    return read.tokens[0].text


def row_indirect(formula: Formula, site: Site) -> str:
    """INDIRECT of column letters joined to a row read from ROW of a cell of the formula's own
    sheet, give or take a whole number (`INDIRECT("A"&ROW(B10)-1)`, `INDIRECT("A"&(ROW($B$10)+2))`,
    `INDIRECT("A"&ROW(B10))`) names the same cell whatever the book holds: it is written as that
    cell (`$A9`, its row written relative: a copy's answer, moved down a column by the shape
    memo (calc/formula/memo.py), is then the next copy's when ROW reads each copy's own row,
    `ROW($B$9)` in row 9 as a table's `[#This Row]` is written, and is never shared where it
    is not, the memo checks). The value is the same: INDIRECT's text names a cell of the
    formula's sheet, as the reference does, and is read the same way (an empty cell is 0 to
    `+1`; a reference to one cell is that cell to any function); only what formualizer does to
    get it differs, a volatile call whose target it finds at every evaluation (the 3,798
    running counts `INDIRECT("A"&ROW(...)-1)+1` of poi_StructuredRefs-lots-with-lookups.xlsx
    took 0.07 of its 0.17 CPU s of evaluation). Left as it is: a row past the sheet
    (INDIRECT's #REF!), another sheet's cell, a range, R1C1 style, any other text; and an
    array formula (tests/calc/test_row_indirect.py)."""
    edits = formula.edits()
    for call in formula.calls("INDIRECT"):
        text = _a1_text(formula, call)
        reference = None if text is None else _row_cell(text, site.sheet)
        if reference is not None:
            edits.replace(call.open, call.close + 1, reference)
    return edits.text()


def _row_cell(tokens: list[Token], sheet: str) -> str | None:
    """INDIRECT's text (its tokens, white space aside), when it is `"COL"&ROW(cell)[±n]` (or
    `"COL"&(ROW(cell)±n)`): the cell it names, as a reference (read token by token, as the pass
    runs on every INDIRECT of a book)."""
    if len(tokens) < 5 or tokens[0].kind != OPERAND or tokens[0].sub != TEXT:
        return None
    letters = tokens[0].text[1:-1].lstrip("$").upper()
    if not (letters.isascii() and letters.isalpha() and len(letters) <= 3):
        return None
    try:
        column_number(letters)
    except ValueError:  # past XFD: INDIRECT's #REF!
        return None
    if tokens[1].kind != INFIX or tokens[1].text != "&":
        return None
    at = 2
    parenthesised = tokens[at].kind == PAREN and tokens[at].sub == OPEN
    at += parenthesised
    if len(tokens) < at + 3 or tokens[at].kind != FUNC or tokens[at].text.upper() != "ROW(" \
            or not tokens[at + 1].is_range or not (tokens[at + 2].kind == FUNC and tokens[at + 2].sub == CLOSE):
        return None
    prefix, ref = split_reference(tokens[at + 1].text)
    at += 3
    shift = 0
    if len(tokens) > at and tokens[at].kind == INFIX and tokens[at].text in ("+", "-"):
        if len(tokens) < at + 2 or tokens[at + 1].sub != NUMBER or not tokens[at + 1].text.isdigit():
            return None
        shift = int(tokens[at + 1].text) * (1 if tokens[at].text == "+" else -1)
        at += 2
    if parenthesised:
        if len(tokens) <= at or not (tokens[at].kind == PAREN and tokens[at].sub == CLOSE):
            return None
        at += 1
    if len(tokens) != at:
        return None
    corner = A1_CORNER.fullmatch(ref)  # ($, column, $, row) as Excel writes a cell
    if corner is None or not corner.group(2) or not corner.group(4):
        return None
    if prefix and (sheet_of(prefix) or "").upper() != sheet.upper():
        return None
    row = int(corner.group(4)) + shift
    if not 1 <= row <= MAX_ROW:
        return None
    return f"${letters}{row}"


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


def index_whole_lines(formula: Formula, _site: Site) -> str:
    """INDEX of whole columns or rows (`INDEX(B:B,COUNTA(B:B)+1)`, the cell after a list) reads
    any cell of them, as Excel does: formualizer cuts a whole column to its last used row, and
    answered #REF! past it, silently, where Excel has the empty cell (0, and ISBLANK's TRUE).
    The range is written with its corners (`B$1:B$1048576`: the engine reads only the cell
    picked, or the one `@` picks of a whole line asked for, `@INDEX(B:B,0)`: `intersected_references`);
    not where a row or a column of 0 or left out makes INDEX answer the whole line read whole
    (tests/calc/test_index_whole_lines.py)."""
    tokens = formula.tokens
    edits = formula.edits()
    for call in formula.calls("INDEX"):
        if call.close < 0 or not 2 <= len(call.arguments) <= 3 or tokens[call.open].text.upper() != "INDEX(":
            continue
        reference = formula.single(call.arguments[0])
        if reference is None or not reference.is_range:
            continue
        area = read_area(split_reference(reference.text)[1])
        if area is None or not is_whole_lines(area):
            continue
        picks = [formula.solid(span) for span in call.arguments[1:]]
        before = formula.previous(call.open)
        intersected = before is not None and before.kind == PREFIX and before.text == "@"
        if not intersected and any(not pick or (len(pick) == 1 and pick[0].sub == NUMBER and float(pick[0].text) == 0)
                                   for pick in picks):
            continue  # a whole line asked for and read whole: the engine's own (`@` picks one cell of it)
        if len(picks) == 1 and area.rows > 1 and area.columns > 1:
            continue  # several columns and no column: #REF! (the pass `index`)
        written = resized_reference(reference.text, area.rows, area.columns)
        if written is not None:
            start, end = call.arguments[0]
            edits.replace(start, end, written)
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
        left, right = operand_before(formula, index), operand_after(formula, index)
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


def operand_before(formula: Formula, colon: int) -> tuple[int, int] | None:
    """The tokens of the operand just before token `colon`: a call (to its opening) or a range."""
    k = colon - 1
    tokens = formula.tokens
    if k < 0:
        return None
    if tokens[k].closes:
        group = next((g for g in formula.groups if g.close == k), None)
        return None if group is None or group.kind != "call" else (group.open, k + 1)
    return (k, k + 1) if tokens[k].is_range else None


def operand_after(formula: Formula, colon: int) -> tuple[int, int] | None:
    k = colon + 1
    tokens = formula.tokens
    if k >= len(tokens):
        return None
    if tokens[k].is_call:
        group = formula.group_at(k)
        return None if group is None or group.close < 0 else (k, group.close + 1)
    return (k, k + 1) if tokens[k].is_range else None


#: The arguments (0-based) that may be whole columns read only as far as their sheet's last
#: used row: what lies below it is empty, and these read an empty cell as nothing (a lookup
#: never matches one, a sum or count leaves it out, SUMIF's empty sum cell adds 0). Not
#: COUNTIF (its "" counts the empty cells), INDEX, ROWS or SUMPRODUCT (they read the size).
_USED_ROWS_ONLY: dict[str, tuple[int, ...] | None] = {
    "VLOOKUP": (1,), "MATCH": (1,), "XLOOKUP": (1, 2), "LOOKUP": (1, 2), "SUMIF": (0, 2),
    "SUMIFS": None, "SUM": None, "MAX": None, "MIN": None, "AVERAGE": None, "COUNT": None,
    "COUNTA": None,
}


def used_rows_only(formula: Formula, site: Site) -> str:
    """Whole columns (`Query!$A:$N`) given to the functions of `_USED_ROWS_ONLY` read to the
    last row the sheets they name may hold a value in (`site.book.last_row`, the fast engine's
    own bound: past the stored rows where an array or a RATES_* call may spill;
    `Query!$A$1:$N$3799`), one bound per formula so that ranges read side by side keep one
    shape. For the `formulas` engine, which reads a whole column as all 1,048,576 rows: 100
    VLOOKUPs over a 500-row `$A:$N` took 99 s and 8.7 GB (the fast engine cuts a whole column
    to its last used row itself, `whole_columns`); tests/calc/test_formulas_engine_fallback.py.
    A sheet the book does not hold (by any case) is left unbounded."""
    tokens = formula.tokens
    found = []
    for call in formula.calls(*_USED_ROWS_ONLY):
        wanted = _USED_ROWS_ONLY[call.name]
        for position, span in enumerate(call.arguments):
            at = formula.single_index(span)
            if at is None or (wanted is not None and position not in wanted) or not tokens[at].is_range:
                continue
            prefix, ref = split_reference(tokens[at].text)
            if "[" not in prefix and _whole_columns(ref) is not None:
                found.append(at)
    if not found:
        return formula.text
    titles = {title.upper(): title for title in site.book.sheets}
    sheets = {titles.get((sheet_of(split_reference(tokens[at].text)[0]) or site.sheet).upper()) for at in found}
    if None in sheets:
        return formula.text
    rows = max(max(site.book.last_row(site.sheet, sheet) for sheet in sheets), 1)
    edits = formula.edits()
    for at in found:
        prefix, ref = split_reference(tokens[at].text)
        first, last = ref.split(":")
        edits.replace(at, at + 1, f"{prefix}{first}{'$' if first.startswith('$') else ''}1:"
                                  f"{last}{'$' if last.startswith('$') else ''}{rows}")
    return edits.text()
