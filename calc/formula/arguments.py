"""Passes over what a formula writes as a function's arguments: omitted ones, and values typed
in the formula that Excel reads otherwise than formualizer does."""

from __future__ import annotations

import math
import re
from functools import lru_cache

from rates_xl.calc.formula.site import NotComputed
from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.xlfuncs.omitted import OMITTED
from rates_xl.functions.sheet import cell_reference, is_rates_name
from rates_xl.functions.tokens import (
    ARG,
    ERROR,
    FUNC,
    LOGICAL,
    NUMBER,
    OPEN,
    OPERAND,
    RANGE,
    SEP,
    TEXT,
    function_names,
)

# -- omitted arguments ---------------------------------------------------------------------------


def rates_omitted(formula: Formula, _site: object = None) -> str:
    """`=RATES_SWAP(a,,b)` -> `=RATES_SWAP(a,"",b)`: an omitted RATES_* argument stays "not
    given". Excel hands a UDF "missing" for it; both engines would pass 0, which is a value.
    Proved by tests/calc/test_calc.py's `test_engine_fixes_index_workday_and_omitted_arguments`."""
    edits = formula.edits()
    for call in formula.calls():
        if len(call.arguments) < 2 or not is_rates_name(call.name):
            continue  # `F()` has no argument to fill
        for first, last in call.arguments:
            if first == last:
                edits.before(last, '""')  # before the comma or the closing parenthesis
    return edits.text()


#: Optional arguments whose default is not what the engine reads for one left empty (a
#: bridged function is handed 0 or FALSE; formualizer's SEQUENCE answers #VALUE! for rows left
#: empty): (name, position) -> Excel's default.
_DEFAULTS = {("LINEST", 2): "TRUE", ("LOGEST", 2): "TRUE", ("SEQUENCE", 0): "1",
             # (an array left out is an empty cell to MMULT: #VALUE!, as Excel's MMULT(,))
             ("MMULT", 0): "#VALUE!", ("MMULT", 1): "#VALUE!"}
DEFAULTED = tuple(sorted({f"{name}(" for name, _position in _DEFAULTS}))


def may_leave_empty(text: str) -> bool:
    """An argument left empty: first, between two commas, or last."""
    squeezed = text.replace(" ", "")
    return ",," in squeezed or ",)" in squeezed or "(," in squeezed


def omitted_defaults(formula: Formula, _site: object = None) -> str:
    """`=LINEST(y,x,,TRUE)` -> `=LINEST(y,x,TRUE,TRUE)`: LINEST's and LOGEST's const, left
    empty (an argument Excel stores as missing, last or not), is TRUE in Excel ("If const is TRUE or omitted, b is calculated normally"); the
    engine handed the bridged function 0, which fitted the line through the origin: LINEST's
    slope 0.2089 where Excel has 0.2193, silently (IronCalc's Excel-made LINEST_LOGEST.xlsx,
    Sheet1!D5 and G5; tests/calc/test_linest_omitted.py). `SEQUENCE(,12,,2.5)`'s rows are 1,
    as Excel's ("Omitted rows: 1"), where formualizer answered #VALUE! (IronCalc's
    MATH_AND_TRIGONOMETRY__SEQUENCE.xlsx C23; tests/calc/test_sequence_arguments.py). An array
    left out of MMULT is #VALUE! (`MMULT(,)`: the engine handed 0 and 0, and answered 0;
    MATH_AND_TRIGONOMETRY__MMULT.xlsx E64; tests/calc/test_limits.py)."""
    edits = formula.edits()
    for call in formula.calls(*{name for name, _position in _DEFAULTS}):
        for position, (first, last) in enumerate(call.arguments):
            if first == last and (call.name, position) in _DEFAULTS:  # (`LINEST(y,x,)` too: "omitted")
                edits.before(last, _DEFAULTS[(call.name, position)])
    return edits.text()


def ours_omitted(formula: Formula, _site: object = None) -> str:
    """An omitted argument of one of our functions (calc/xlfuncs: `XLOOKUP(a,b,c,,1,2)`) written
    as a marker the callback reads as "not given": formualizer hands a Python function 0 for
    it, the same as a typed 0, where Excel treats it as absent (XLOOKUP's if_not_found is then
    #N/A). Proved by ironcalc_XLOOKUP.xlsx Errors!N1 and formulas_test.xlsx LOOKUP!R52."""
    from rates_xl.calc.xlfuncs import OURS_NAMES

    edits = formula.edits()
    stack: list[bool] = []  # per open call: is it one of ours (parentheses and arrays are not counted)
    previous = None
    for index, token in enumerate(formula.tokens):
        if token.is_space:
            continue
        is_sep = token.kind == SEP and token.sub == ARG
        is_close = token.kind == FUNC and token.closes
        if (is_sep or (is_close and previous is not None and previous.kind == SEP)) and stack and stack[-1]:
            after_separator = previous is not None and previous.kind == SEP and previous.sub == ARG
            after_open = previous is not None and previous.kind == FUNC and previous.sub == OPEN
            if (after_separator or after_open) and not (is_close and after_open):  # `F()` has no argument
                edits.before(index, f'"{OMITTED}"')
        if token.is_call:
            stack.append(token.name in OURS_NAMES)
        elif is_close and stack:
            stack.pop()
        previous = token
    return edits.text()


_MAY_OMIT = re.compile(r"[(,;]\s*[,;)]")


def may_omit_ours(text: str) -> bool:
    """`(,` `,,` or `,)` in a formula naming one of our functions (the cheap test first)."""
    if _MAY_OMIT.search(text) is None:
        return False
    from rates_xl.calc.xlfuncs import OURS_NAMES

    upper = text.upper()
    return any(name in upper for name in OURS_NAMES)


# -- values typed into the statistical functions' arguments ----------------------------------------

#: Functions reading a literal text as a number (#VALUE! when it is none), a literal boolean
#: as 1 or 0.
COERCING = frozenset("""
    SUM PRODUCT SUMSQ AVEDEV AVERAGE AVERAGEA DEVSQ GEOMEAN HARMEAN MAX MAXA MIN MINA MEDIAN SKEW SKEW.P
    STDEV STDEVP STDEV.S STDEV.P STDEVA STDEVPA VAR VARP VAR.S VAR.P VARA VARPA LARGE SMALL NPV
""".split())
#: Functions counting a literal that reads as a number, ignoring any other (errors too).
COUNTING = frozenset({"COUNT"})
#: Functions for which any literal text is #VALUE! (MODE.SNGL and MODE.MULT ignore it, as
#: the bridged implementations do: `MODE.SNGL(D71:E71,"")` is 0.2 in formulas_test.xlsx).
REFUSING_TEXT = frozenset({"MODE"})
_STATISTICS = COERCING | COUNTING | REFUSING_TEXT
_STATISTICS_CALL = re.compile(r"(?<![\w.])(?:_xlfn\.)?(?:"
                              + "|".join(re.escape(n) for n in sorted(_STATISTICS, key=len, reverse=True))
                              + r")\(", re.I)
_LITERAL = re.compile(r'"|#|\bTRUE\b|\bFALSE\b', re.I)


def may_type_literals(text: str) -> bool:
    """A statistical function's call and a literal it could hold (text, an error, a logical).
    The functions the formula calls are asked first (functions/tokens.py `function_names`,
    known already for most formulas): one calling none of them is left as it is."""
    if _STATISTICS.isdisjoint(function_names(text)):
        return False
    return _LITERAL.search(text) is not None and _STATISTICS_CALL.search(text) is not None


def typed_literals(formula: Formula, _site: object = None) -> str:
    """Values typed directly into the list of arguments of Excel's statistical functions, as
    Excel reads them (Microsoft's documentation of AVERAGE, MAX, STDEV ...: "logical values
    and text representations of numbers that you type directly into the list of arguments
    are counted"; text that is no number is #VALUE!): text as the number it reads as (VALUE's
    reading, day first) or #VALUE!, TRUE and FALSE as 1 and 0. COUNT counts what reads as a
    number and ignores the rest, errors included (`COUNT(2,"A","",#REF!)` is 1); the legacy
    MODE refuses text (`MODE(B8,"1",2,3)` is #VALUE!, poi_FormulaEvalTestData_Copy.xlsx).
    formualizer skips a literal "29/02/1900" or "" as it skips text in a range: proved by
    formulas_test.xlsx STATISTICAL and COMPATIBILITY, the S and T columns (50 cells)."""
    edits = formula.edits()
    for call in formula.calls(*_STATISTICS):
        for span in call.arguments:
            index = formula.single_index(span)
            if index is None or formula.tokens[index].kind != OPERAND:
                continue
            token = formula.tokens[index]
            read = _literal(call.name, token.sub, token.text)
            if read is not None:
                edits.replace(index, index + 1, read)
    return edits.text()


#: Calls that may answer a reference, which COUNT reads as one (its logical values and text
#: left out): their answer is not wrapped by `count_errors`.
_REFERENCE_CALLS = frozenset("""
    OFFSET INDEX INDIRECT CHOOSE IF IFS SWITCH XLOOKUP LET TAKE DROP CHOOSEROWS CHOOSECOLS TRIMRANGE
""".split())


def count_errors(formula: Formula, _site: object = None) -> str:
    """COUNT leaves an error out whatever gives it: "Arguments that are error values or text
    that cannot be translated into numbers are not counted" (Microsoft's COUNT page), so
    `COUNT(1/0,1)` is 1. formualizer left out the errors of a range or an array but answered the
    error of a computed argument (#DIV/0!, found by bench/libreoffice_opinion.py's family
    `errors`). Each argument that is an expression or a call (not one reference, constant or
    call answering a reference) is written `IFERROR(...,"")`: an empty text, which COUNT
    does not count, as for a typed error (`typed_literals`). tests/calc/test_count_errors.py."""
    edits = formula.edits()
    for call in formula.calls("COUNT"):
        if call.close < 0:
            continue
        for span in call.arguments:
            solid = formula.solid(span)
            if len(solid) <= 1:
                continue  # one reference, name or constant: the engine leaves its errors out
            inner = formula.group_at(span[0])
            if inner is not None and inner.close == span[1] - 1 and (
                    inner.kind == "array" or (inner.kind == "call" and inner.name in _REFERENCE_CALLS)):
                continue
            edits.replace(span[0], span[1], f'IFERROR({formula.span_text(span)},"")')
    return edits.text()


#: Where a lookup takes an array (0-based argument positions) that may be given as a constant.
LOOKUP_ARRAYS = {"VLOOKUP": (1,), "HLOOKUP": (1,), "MATCH": (1,), "XMATCH": (1,), "XLOOKUP": (1, 2)}


def lookup_constants(formula: Formula, _site: object = None) -> str:
    """A lookup given a constant where it takes an array (`VLOOKUP(M12,3, 1)`, `MATCH(A2,2,0)`).

    formualizer evaluates the copies of such a call down a column, where only that constant
    differs, with the first copy's constant, for the lookups it caches by their array (ours
    override them): `MATCH(A1,1,0)`, `MATCH(A2,2,0)` answered #N/A twice where the second is 1
    (tests/calc/test_lookup_constants.py). So the constant is written as an array of one (`{2}`,
    which Excel reads as the same one value) or, an error, as `IF(TRUE,#N/A)`: no plain
    constant. A text for VLOOKUP's and HLOOKUP's table is #VALUE! in Excel, which takes no text
    for a reference (the engine searched a one-cell table and answered #N/A), passed on by the
    lookup as an error given there is (calc/xlfuncs/lookup/lookups.py); a number there is
    searched (`VLOOKUP(M12,3, 1)` is #N/A). Proved by IronCalc's HVLOOKUP.xlsx, VLOOKUP!N12:N14
    and HLOOKUP!N12:N14."""
    edits = formula.edits()
    for call in formula.calls(*LOOKUP_ARRAYS):
        for at in LOOKUP_ARRAYS[call.name]:
            if at >= len(call.arguments):
                continue
            index = formula.single_index(call.arguments[at])
            if index is None or formula.tokens[index].kind != OPERAND:
                continue
            token = formula.tokens[index]
            if token.sub == TEXT and call.name in ("VLOOKUP", "HLOOKUP"):
                edits.replace(index, index + 1, "IF(TRUE,#VALUE!)")
            elif token.sub == ERROR:
                edits.replace(index, index + 1, f"IF(TRUE,{token.text})")
            elif token.sub in (NUMBER, LOGICAL, TEXT):
                edits.replace(index, index + 1, "{" + token.text + "}")
    return edits.text()


def _literal(name: str, sub: str, text: str) -> str | None:
    """How Excel reads one literal argument of `name`, as formula text; None: as written."""
    if sub == LOGICAL:
        return None if name in COUNTING else ("1" if text.upper() == "TRUE" else "0")  # COUNT counts TRUE already
    if sub == ERROR and name in COUNTING:
        return '""'  # not counted, not passed on
    if sub != TEXT:
        return None
    if name in REFUSING_TEXT:
        return "#VALUE!"
    read = number(text[1:-1].replace('""', '"'))
    if read is None:
        return '""' if name in COUNTING else "#VALUE!"
    return repr(read) if read >= 0 else f"({read!r})"


@lru_cache(maxsize=4096)
def number(text: str) -> float | None:
    """`text` as Excel reads a text typed where a number is wanted (VALUE's reading: numbers,
    dates, times, day first as the bridged `formulas` VALUE does), or None."""
    from rates_xl.calc.xlfuncs.bridge import FORMULAS_LOCK, formulas_function
    from rates_xl.calc.xlfuncs.text import value_text

    if (read := value_text.read(text)) is not None:  # where `formulas` reads it wrongly
        if read == value_text.NOT_COMPUTED:
            raise NotComputed(f"the text {text!r} where a number is wanted: Excel's reading of it is not known here")
        return read if isinstance(read, float) else None
    value_of = formulas_function("VALUE")
    if value_of is None:  # `formulas` has no VALUE: nothing reads the text as a number
        return None
    with FORMULAS_LOCK:  # one call into `formulas` at a time (bridge.py says why)
        value = value_of(text)
    try:
        read = float(value)
    except (TypeError, ValueError):
        return None
    return read if math.isfinite(read) else None


# -- AND, OR and XOR given text typed in the formula -----------------------------------------------
_LOGICAL = frozenset({"AND", "OR", "XOR"})
_MAY_HAVE_LOGICAL = re.compile(r"(?:AND|OR)\s*\([^\"]*\"", re.IGNORECASE)  # XOR( contains OR(


def may_type_logical_text(text: str) -> bool:
    return '"' in text and _MAY_HAVE_LOGICAL.search(text) is not None


def logical_text(formula: Formula, _site: object = None) -> str:
    """AND, OR and XOR given text typed in the formula, as Excel reads it: text in their
    arguments, a cell's or typed, is ignored (`AND(TRUE,"0")` is TRUE: formulas_test.xlsx
    LOGICAL!AT3), except typed "TRUE" or "FALSE", which count as that value; with nothing left
    to read the answer is #VALUE!; errors anywhere still win (`AND(TRUE,"0",#REF!)` is #REF!).
    formualizer ignores a cell's text but answers #VALUE! for typed text, so the typed text
    is rewritten (booleans as TRUE/FALSE, other text dropped) and its own AND/OR/XOR compute it.

    Excel versions disagree: Excel 2013 (poi_FormulaEvalTestData_Copy.xlsx EverythingTests!J136)
    answers `AND("1",1)` with #VALUE!, which this gives as TRUE; typed text is constant, so such
    a book shows the difference at its stored inputs and the cell is listed stale (J136 is
    flagged, not wrong)."""
    text = formula.text
    for _ in range(text.count('"')):  # one call a round, in the order they close (innermost first)
        changed = _logical_once(formula)
        if changed is None:
            break
        formula = Formula(changed)
    return formula.text


def condition_text(formula: Formula, _site: object = None) -> str:
    """IF's condition typed as the text "TRUE" or "FALSE", in any case, is that logical value in
    Excel (`IF("tRue", "A", "B")` is "A": poi_FormulaEvalTestData_Copy.xlsx EverythingTests!M732);
    formualizer answered #VALUE!, as both do for any other text."""
    edits = formula.edits()
    for call in formula.calls("IF"):
        if call.close < 0 or not call.arguments:
            continue
        at = formula.single_index(call.arguments[0])
        token = None if at is None else formula.tokens[at]
        if at is not None and token is not None and token.kind == OPERAND and token.sub == TEXT:
            typed = token.text[1:-1].upper()
            if typed in ("TRUE", "FALSE"):
                edits.replace(at, at + 1, typed)
    return edits.text()


def _logical_once(formula: Formula) -> str | None:
    for call in sorted(formula.calls(*_LOGICAL), key=lambda g: g.close):
        if call.close < 0:
            continue
        kept, changed = [], False
        for span in _raw_arguments(formula, call):
            token = formula.single(span)
            if token is not None and token.kind == OPERAND and token.sub == TEXT:
                changed = True
                typed = token.text[1:-1].replace('""', '"').upper()
                if typed in ("TRUE", "FALSE"):
                    kept.append(typed)
                continue  # other typed text: Excel ignores it
            kept.append(formula.span_text(span) if span[0] < span[1] else "")
        if not changed:
            continue
        if not kept:
            written = "#VALUE!"  # nothing but text: no logical value to read
        elif not any(k.strip() for k in kept):
            return None  # only omitted arguments left: the formula stays as written
        else:
            written = formula.tokens[call.open].text + ",".join(kept) + ")"
        edits = formula.edits()
        edits.replace(call.open, call.close + 1, written)
        return edits.text()
    return None


def _raw_arguments(formula: Formula, call: object) -> list[tuple[int, int]]:
    """A call's arguments with the white space around them kept (as the call's text holds it)."""
    bounds = [call.open, *call.separators, call.close]  # type: ignore[attr-defined]
    return [(a + 1, b) for a, b in zip(bounds, bounds[1:], strict=False)]


# -- CHOOSE's logical index ------------------------------------------------------------------------
_MAY_CHOOSE = re.compile(r"CHOOSE\s*\(", re.IGNORECASE)


def may_choose(text: str) -> bool:
    return _MAY_CHOOSE.search(text) is not None


def choose_logical(formula: Formula, _site: object = None) -> str:
    """CHOOSE with a logical index, as Excel reads it: TRUE is 1 (formulas_test.xlsx LOOKUP!Y5,
    `CHOOSE(J5,1,2,3)` with J5 TRUE, is 1); FALSE is 0, #VALUE!. formualizer answers #VALUE! for
    a logical index. A text index is read as a number too (pycel's Excel-made lookup.xlsx,
    Lookup!E44:F44: `CHOOSE(E$43,...)` with E43 the text "1" is the first choice, "2" the
    second; formualizer: #VALUE!). CHOOSE stays formualizer's own (it hands back references,
    which a Python function could not): a one-cell index is read as a number when it holds a
    logical value or a text (`IF(OR(ISLOGICAL(J5),ISTEXT(J5)),--J5,J5)`: a text that is no
    number #VALUE!, as in Excel), a typed TRUE/FALSE as 1/0; any other index (a range, an
    expression) is left as written."""
    tokens = formula.tokens
    edits = formula.edits()
    for index in range(1, len(tokens) - 1):
        token, previous, following = tokens[index], tokens[index - 1], tokens[index + 1]
        if not (token.kind == OPERAND and previous.is_call and following.kind == SEP
                and previous.text[:-1].strip().upper().split(".")[-1] == "CHOOSE"):
            continue
        if token.sub == LOGICAL:
            edits.replace(index, index + 1, "1" if token.text.upper() == "TRUE" else "0")
        elif token.sub == RANGE and cell_reference(token.text) is not None:
            edits.replace(index, index + 1,
                          f"IF(OR(ISLOGICAL({token.text}),ISTEXT({token.text})),--{token.text},{token.text})")
    return edits.text()
