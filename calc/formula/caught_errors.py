"""An error given to UPPER, LOWER, PROPER, TRIM, CONCAT, CONCATENATE or EXACT, where a function
that reads errors as values (ISERROR, ISNA, IFNA, ERROR.TYPE ..., the SUMIF family's criterion)
reads their answer.

formualizer 0.13 answers those seven with an error that no function but IFERROR takes for a
value: `ISERROR(UPPER(NA()))` is #N/A, where Excel's is TRUE, and so are `ISNA(TRIM(A5)&"")`,
`IFNA(CONCAT(A5),"z")` and `ERROR.TYPE(UPPER(A5))` (54 functions tried over =NA(): these
seven). As a cell's own answer the error is right, and IFERROR catches it; read by one of
those functions, a cell answered an error where Excel answers a value, silently.

Such a call is written `IFERROR(call, error)` for formualizer, `error` the first of its
arguments that is an error, which is the error Excel answers: `ISERROR(TRIM(A5))` becomes
`ISERROR(IFERROR(TRIM(A5),A5))`; nested ones from the inside out. It runs on what each cell
finally holds (after the fit has intersected ranges or put them in helper cells). Left as
they are: a call given a range there (an array formula's `ISERROR(UPPER(A1:A9))`, CONCAT of a
range): the first error of a range is not written out here."""

from __future__ import annotations

from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula, Group

#: formualizer's functions whose error answer only IFERROR reads.
UNCAUGHT = frozenset({"UPPER", "LOWER", "PROPER", "TRIM", "CONCAT", "CONCATENATE", "EXACT"})
#: Functions that read an error as a value: their answer is not the error. The SUMIF family
#: reads an error as its criterion (COUNTIF(r,CONCAT("<>",#N/A)) counts the #N/A cells: Excel 16's
#: 1 in IronCalc's STATISTICAL__COUNTIF.xlsx, Columns!B28, where it answered #N/A).
READING_ERRORS = frozenset({"ISERROR", "ISERR", "ISNA", "ISNUMBER", "ISTEXT", "ISNONTEXT", "ISLOGICAL",
                            "ISBLANK", "ISEVEN", "ISODD", "ISREF", "IFNA", "ERROR.TYPE", "TYPE",
                            "COUNTIF", "COUNTIFS", "SUMIF", "SUMIFS", "AVERAGEIF", "AVERAGEIFS",
                            "RATESXL.COUNTIF", "RATESXL.COUNTIFS"})  # (whole lines: the pass whole_line_counts)
NEEDS = ("UPPER(", "LOWER(", "PROPER(", "TRIM(", "CONCAT", "EXACT(")


def may_read(upper: str) -> bool:
    return any(name + "(" in upper for name in READING_ERRORS)


def caught_errors(formula: Formula, site: Site) -> str:
    """UPPER, LOWER, PROPER, TRIM, CONCAT, CONCATENATE or EXACT given an error, read by ISERROR,
    ISNA, IFNA, ERROR.TYPE ... as Excel reads it: a value (`ISERROR(UPPER(NA()))` is TRUE), where
    formualizer 0.13 answered the error (the module's docstring). Written
    `IFERROR(call, first error of its arguments)`; tests/calc/test_caught_errors.py."""
    text = formula.text
    for _ in range(4):  # one level of nesting a round, from the inside out
        written = _round(formula, site)
        if written == text:
            break
        text, formula = written, Formula(written)
    return text


def _round(formula: Formula, site: Site) -> str:
    edits = formula.edits()
    for call in formula.calls(*UNCAUGHT):
        if call.close < 0 or not call.arguments or not _read_as_a_value(call) \
                or _exposed_inside(call, formula.groups):
            continue
        spans = [formula.span_text(span).strip() for span in call.arguments]
        if not all(spans) or any(_a_range(formula, span, site) for span in call.arguments):
            continue
        error = spans[-1]
        for argument in reversed(spans[:-1]):
            error = f"IF(ISERROR({argument}),{argument},{error})"
        edits.replace(call.open, call.close + 1, f"IFERROR({formula.span_text((call.open, call.close + 1))},{error})")
    return edits.text()


def _read_as_a_value(call: Group) -> bool:
    """Whether a function reading errors holds the call, with no IFERROR between them."""
    group = call.parent
    while group is not None:
        if group.kind == "call" and group.name == "IFERROR":
            return False
        if group.kind == "call" and group.name in READING_ERRORS:
            return True
        group = group.parent
    return False


def _exposed_inside(call: Group, groups: list[Group]) -> bool:
    """Whether another of the seven lies in the call's arguments with no IFERROR between (it is
    written first, and this one the next round)."""
    for group in groups:
        if group is call or group.kind != "call" or group.name not in UNCAUGHT:
            continue
        up = group.parent
        while up is not None and up is not call and not (up.kind == "call" and up.name == "IFERROR"):
            up = up.parent
        if up is call:
            return True
    return False


def _a_range(formula: Formula, span: tuple[int, int], site: Site) -> bool:
    """Whether an argument may be several cells (a reference to more than one, or one built
    with ':')."""
    for token in formula.tokens[span[0]:span[1]]:
        if token.text == ":" or (token.is_range and site.book.range_size(site.sheet, token.text) != 1):
            return True
    return False
