"""What a formula asks of an engine, read from its tokens: the one place that decides whether
the fast engine computes a formula correctly, and the rewriting that makes it do so.

The fast engine (formualizer) is silently wrong on one class of formulas: a function that
takes a single value (ISNUMBER, YEAR, LEFT, EXP, LEN ...) given a range or another array.
Excel applies such a function to every element (array context) or picks the element in the
formula's own row or column (implicit intersection, in an ordinary cell); formualizer takes
the first element and says nothing. `classify` finds every such call by the position of
each array-valued operand: inside an argument that takes a range (`SUM(...)`, the table of
`INDEX`, the holidays of `WORKDAY`, any RATES_* argument) it is fine; anywhere else it is
the hazard. A function in neither table is treated as a hazard too (never guessed).

Rewritings, each the way Excel evaluates the formula, which the fast engine then computes
right (`calc/fast.py` applies them to its own copy of the workbook):

- `lift`: an array formula whose hazards lie outside range-taking arguments, on plain
  ranges, becomes one ordinary formula per cell of its range (`=IF(ISNUMBER(B7:B9),B7:B9,"")`
  over D7:D9 becomes `=IF(ISNUMBER(B7),B7,"")`, `=IF(ISNUMBER(B8),B8,"")`, ...);
- `intersect`: an ordinary cell gets Excel's implicit intersection written out;
- `materialise`: an argument that takes a range but is given a hazard (`SUM(LEN(A1:A8))`)
  is lifted into helper cells and the function reads their range;
- `qualify_names`: a sheet-scoped name used from another sheet becomes its range.

What none of them can rewrite is reported back: the caller keeps the file's cached value
(listed), or computes the whole workbook with the `formulas` engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from rates_xl.calc.xlfuncs import scalars as _scalars
from rates_xl.functions.sheet import Area, column_letters, is_rates_name, read_area, split_reference

# Functions of single values: over an array Excel applies them element by element.
ELEMENTWISE = frozenset("""
ABS ACOS ACOSH ASIN ASINH ATAN ATAN2 ATANH CEILING CEILING.MATH CHAR CLEAN CODE COS COSH
DATE DATEVALUE DAY DAYS DEGREES DOLLAR EDATE EOMONTH EVEN EXACT EXP FACT FIND FIXED FLOOR
FLOOR.MATH HOUR IF IFERROR IFNA INT ISBLANK ISERR ISERROR ISEVEN ISLOGICAL ISNA ISNONTEXT
ISNUMBER ISODD ISTEXT LEFT LEN LN LOG LOG10 LOWER MID MINUTE MOD MONTH MROUND N NOT ODD
POWER PROPER QUOTIENT RADIANS REPLACE REPT RIGHT ROUND ROUNDDOWN ROUNDUP SEARCH SECOND SIGN
SIN SINH SQRT SUBSTITUTE T TAN TANH TEXT TIME TIMEVALUE TRIM TRUNC UPPER VALUE WEEKDAY
WEEKNUM YEAR YEARFRAC ISOWEEKNUM DAYS360 CONCATENATE NUMBERVALUE
REGEXTEST REGEXEXTRACT REGEXREPLACE
LOOKUP XLOOKUP VLOOKUP HLOOKUP MATCH XMATCH INDEX VALUETOTEXT TEXTBEFORE TEXTAFTER ISFORMULA
COMBIN
IFS SWITCH CHOOSE
ADDRESS
ARRAYTOTEXT
""".split())
# CHOOSE's choices take a range as it is (CHOOSE(2,A1:A3,B1:B3) is B1:B3), but given an array
# of indexes Excel broadcasts the choices with it: element i is CHOOSE(index[i], choice[i], ...).
BROADCAST_WITH_FIRST = frozenset({"CHOOSE"})
# Functions that catch an error: a legacy array range's cells past their arrays stay #N/A.
CATCHING = frozenset({"IFERROR", "IFNA"})

ALL = None  # every argument takes a range

# Elementwise functions whose implementation (calc/xlfuncs/scalars.py's bridge, or ours) applies
# itself to each element of an array constant or computed array, as Excel does: an array formula
# giving them one (`LEFT({TRUE,"bau"},3)`) is computed whole rather than cell by cell.
LIFTS_ITSELF = frozenset("LEFT RIGHT MID REPLACE FIND ARRAYTOTEXT TEXTSPLIT REGEXEXTRACT".split())
# Of them, those answering an array for one value: given a range where one value is wanted, an
# array formula is computed whole too (each cell of its range would otherwise spill).
WHOLE_OVER_RANGES = frozenset({"TEXTSPLIT", "REGEXEXTRACT"})

# Arguments (0-based) that take a range or an array as it is.
RANGE_ARGUMENTS: dict[str, frozenset[int] | None] = {
    **{name: ALL for name in """
        SUM SUMPRODUCT SUMSQ PRODUCT COUNT COUNTA COUNTBLANK AVERAGE AVERAGEA MIN MINA MAX MAXA
        MEDIAN MODE STDEV STDEV.S STDEV.P STDEVP STDEVA VAR VAR.S VAR.P VARP AND OR XOR CONCAT
        TEXTJOIN ROWS COLUMNS ROW COLUMN TRANSPOSE MMULT MINVERSE MDETERM CORREL COVAR
        COVARIANCE.S COVARIANCE.P SLOPE INTERCEPT RSQ FORECAST FORECAST.LINEAR TREND GROWTH
        LINEST LOGEST PERCENTILE PERCENTILE.INC PERCENTILE.EXC QUARTILE QUARTILE.INC
        QUARTILE.EXC LARGE SMALL RANK RANK.EQ RANK.AVG FILTER SORT SORTBY UNIQUE AGGREGATE
        SUBTOTAL GEOMEAN HARMEAN AVEDEV DEVSQ KURT SKEW FREQUENCY SUMX2MY2 SUMX2PY2 SUMXMY2
        ISREF AREAS TOCOL TOROW HSTACK VSTACK CHOOSECOLS CHOOSEROWS TAKE DROP EXPAND WRAPROWS
        WRAPCOLS MAXIFS MINIFS AVERAGEIFS SUMIFS COUNTIFS
        TRIMRANGE MUNIT TYPE
    """.split()},
    # calc/xlfuncs: the LAMBDA family's callback and GROUPBY/PIVOTBY read whole arrays.
    "RATESXL.LAMBDA": ALL, "GROUPBY": ALL, "PIVOTBY": ALL,
    "RATESXL.MISSHAPEN": ALL,  # calc/xlfuncs/sumproduct.py: reads its arguments whole
    "RATESXL.INDEX": ALL, "RATESXL.INDEXLIFTED": ALL, "RATESXL.INDEXAREAS": ALL,  # calc/xlfuncs/indexing.py: lifts itself
    # LET's values are bound as they are; its names and last argument: see `let_names`.
    "LET": frozenset(range(1, 254, 2)),
    "INDEX": frozenset({0}), "MATCH": frozenset({1}), "XMATCH": frozenset({1}),
    "VLOOKUP": frozenset({1, 2}), "HLOOKUP": frozenset({1, 2}), "LOOKUP": frozenset({1, 2}),
    "XLOOKUP": frozenset({1, 2}), "COUNTIF": frozenset({0}),
    "SUMIF": frozenset({0, 2}),
    "AVERAGEIF": frozenset({0, 2}), "OFFSET": frozenset({0}), "NPV": frozenset(range(1, 255)),
    "IRR": frozenset({0}), "MIRR": frozenset({0}), "XNPV": frozenset({1, 2}), "FVSCHEDULE": frozenset({1}),
    "XIRR": frozenset({0, 1}), "WORKDAY": frozenset({2}), "NETWORKDAYS": frozenset({2}),
    "WORKDAY.INTL": frozenset({3}), "NETWORKDAYS.INTL": frozenset({3}),
    "CHOOSE": frozenset(range(1, 255)), "INDIRECT": frozenset(), "CELL": frozenset({1}),
    "IFS": frozenset(), "SWITCH": frozenset(), "ARRAYTOTEXT": frozenset({0}),
    "TEXTBEFORE": frozenset({1}), "TEXTAFTER": frozenset({1}), "TEXTSPLIT": frozenset({1, 2}),
}
# Functions computed by `formulas` implementations that apply themselves to each element of
# an array given where one value is wanted, as Excel does (calc/xlfuncs/scalars.py).
RANGE_ARGUMENTS.update({name: ALL for name in _scalars.LIFTING if name not in ELEMENTWISE})
RANGE_ARGUMENTS.update({name: ALL for name in [*_scalars.SINGLE_VALUE_ARGUMENTS, *_scalars.TAKING_ARRAYS]})

# Functions that return an array (or a multi-cell reference) even from single values.
ARRAY_RESULTS = frozenset("""
OFFSET INDIRECT TRANSPOSE MMULT MINVERSE FILTER SORT SORTBY UNIQUE SEQUENCE RANDARRAY
FREQUENCY LINEST LOGEST TREND GROWTH TOCOL TOROW HSTACK VSTACK CHOOSECOLS CHOOSEROWS TAKE
DROP EXPAND WRAPROWS WRAPCOLS TEXTSPLIT
RATESXL.LAMBDA GROUPBY PIVOTBY
""".split())

_PREFIX = re.compile(r"^(?:_XLFN\._XLWS\.|_XLFN\.|_XLWS\.|_XLUDF\.|_XLDUDF_)", re.IGNORECASE)
# A name after a sheet ('Sheet 1'!local_rate), once it is known not to be a cell or range.
_NAME = re.compile(r"^[A-Za-z_\\][\w.]*$")


@dataclass(frozen=True)
class _Token:
    token_type: object
    subtype: object
    value: str
    start: int
    end: int


def tokenize(formula: str) -> list:
    """formualizer's tokens of `formula`, their offsets in characters: it counts UTF-8 bytes
    ("ß" is two), which cut a formula with such text in the wrong places when lifted
    (formulas_test.xlsx EXTRA!L73: `XMATCH("ß",{"ß","ss"},L72:M72,1)` became `#NAME?`)."""
    import formualizer

    tokens = list(formualizer.tokenize(formula))
    if formula.isascii():
        return tokens
    at, offset = {}, 0
    for index, char in enumerate(formula):
        at[offset] = index
        offset += len(char.encode("utf-8"))
    at[offset] = len(formula)
    return [_Token(t.token_type, t.subtype, t.value, at[t.start], at[t.end]) for t in tokens]


def bare_name(token_text: str) -> str:
    """'_xlfn.XLOOKUP(' -> 'XLOOKUP'."""
    return _PREFIX.sub("", token_text.rstrip("(").strip()).upper()


def is_rates(name: str) -> bool:
    return is_rates_name(name)


#: Arguments that take an array a function computes, answering one value per element (Excel's
#: `LARGE(SUMIF(E2:E9,UNIQUE(E2:E9),F2:F9),1)`; ours loop over it, calc/xlfuncs/conditional.py),
#: while a range there is still read by implicit intersection in an ordinary cell.
ARRAY_ARGUMENTS: dict[str, frozenset[int]] = {"SUMIF": frozenset({1}), "AVERAGEIF": frozenset({1}),
                                              "COUNTIF": frozenset({1})}

#: Arguments that take an array and answer one value per element (calc/xlfuncs/lookup.py:
#: `VLOOKUP(x, t, {2,3}, 0)` is a row of two): in an ordinary cell, or a cell of a lifted
#: legacy array formula, Excel shows the answer's top-left value, which the fast engine
#: would spill (`Analysis.answers_array`).
ARRAY_ANSWERS: dict[str, frozenset[int]] = {"VLOOKUP": frozenset({2}), "HLOOKUP": frozenset({2})}


def takes_range(name: str, position: int) -> bool:
    if is_rates(name):
        return True
    positions = RANGE_ARGUMENTS.get(name, frozenset())
    return positions is ALL or position in positions


# -- tokens ----------------------------------------------------------------------------------
@dataclass
class Operand:
    text: str
    start: int
    end: int
    elementwise: bool  # not inside any range-taking argument: lifting rewrites it


@dataclass
class Analysis:
    """One formula's reading: its functions, array operands and hazards."""

    formula: str
    functions: set[str] = field(default_factory=set)
    operands: list[Operand] = field(default_factory=list)
    hazards: list[str] = field(default_factory=list)  # why the fast engine would be wrong
    top_level_ranges: bool = False  # a plain range outside every function call
    spills: bool = False  # an array from a function or a constant outside every function call
    liftable: bool = True  # every hazard lies outside range-taking arguments, on plain ranges
    #: (start, end) of arguments taking a range whose value is an elementwise call over
    #: ranges: `materialise` computes each into cells and passes those cells instead.
    helpers: list[tuple[int, int]] = field(default_factory=list)
    #: (start, end, text) of sheet-qualified names (`S1!local_rate`): the fast engine does
    #: not resolve them, `qualify_names` writes the range they stand for instead.
    qualified_names: list[tuple[int, int, str]] = field(default_factory=list)
    error: str | None = None  # the tokenizer's complaint, if any
    answers_array: bool = False  # an array where ARRAY_ANSWERS takes one: the call answers an array
    #: An array constant or computed array given to a function in LIFTS_ITSELF: written out
    #: cell by cell each cell would get the whole array, so the formula is computed whole
    #: (an array formula) or not at all (an ordinary cell with a range hazard).
    whole: bool = False
    #: How many of `hazards` are ranges given to a function in LIFTS_ITSELF.
    self_lifted: int = 0

    @property
    def computed_whole(self) -> bool:
        """An array formula the engine computes as it stands: its arrays and ranges all go to
        functions that apply themselves to each element."""
        return self.whole and self.self_lifted == len(self.hazards) and not self.top_level_ranges \
            and self.error is None

    @property
    def safe(self) -> bool:
        """The fast engine computes the formula as written, in any cell."""
        return not self.hazards and not self.top_level_ranges and self.error is None

    @property
    def needs_rewrite(self) -> bool:
        return bool(self.hazards) or self.top_level_ranges


def analyse(formula: str, range_size: Callable[[str], int | None],
            array_functions: frozenset[str] = frozenset(),
            resolve: Callable[[str], str | None] | None = None) -> Analysis:
    """Read `formula` (with its '='). `range_size(text)` gives an operand's cell count (None:
    unknown, treated as an array); `array_functions` are the RATES_* functions that answer
    a table (they spill), besides Excel's own in `ARRAY_RESULTS`; `resolve(name)` the range a
    defined name stands for ("Data!$A$1:$A$9"), so lifting can write out its cells too."""
    result = Analysis(formula)
    try:
        tokens = tokenize(formula)
    except Exception as exc:  # the tokenizer's own errors, kept as a reason
        result.error = f"cannot read the formula: {exc}"
        result.liftable = False
        return result
    # One frame per open function call or parenthesis:
    # [name or None, argument position, where the argument starts, positions to materialise].
    frames: list[list] = []
    array_depth = 0

    broadcast: set[int] = set()  # id() of the frames whose first argument is an array

    def frame_takes_range(frame: list) -> bool:
        return frame[0] is not None and takes_range(frame[0], frame[1]) and id(frame) not in broadcast

    def in_elementwise() -> bool:
        return not any(frame_takes_range(f) for f in frames)

    def flag_range_argument() -> None:
        # The innermost argument that takes a range around a hazard: its value can be
        # computed into cells (`materialise`) and handed over as the range it expects.
        for frame in reversed(frames):
            if frame_takes_range(frame):
                frame[3].add(frame[1])
                return

    def close_argument(frame: list, end: int) -> None:
        if frame[0] is not None and frame[1] in frame[3]:
            result.helpers.append((frame[2], end))

    def mark_array(description: str, plain_range: bool, a_range: bool = False) -> None:
        # An array-valued operand is a hazard when the innermost call taking it is elementwise.
        for frame in reversed(frames):
            name, position = frame[0], frame[1]
            if name is None:
                continue  # a plain parenthesis: look further out
            if frame_takes_range(frame):
                if position in ARRAY_ANSWERS.get(name, ()):
                    result.answers_array = True
                return  # the innermost function call takes it as a range: fine
            if name in BROADCAST_WITH_FIRST and position == 0:
                broadcast.add(id(frame))
            if name in LIFTS_ITSELF and (description == "an array constant"
                                         or description.startswith("the array from")):
                # The implementation applies itself to each element: an array formula is
                # computed whole; in an ordinary cell (implicit intersection) it stays a hazard.
                result.whole = True
                result.self_lifted += 1
                result.hazards.append(f"{name} given {description}")
                return
            if name in LIFTS_ITSELF:
                result.self_lifted += 1
                result.whole = result.whole or name in WHOLE_OVER_RANGES
            if not a_range and position in ARRAY_ARGUMENTS.get(name, ()):
                return  # a computed array where the function answers per element
            if plain_range and name in _scalars.REFUSING_RANGES and \
                    position in (_scalars.REFUSING_RANGES[name] or (position,)):
                return  # Excel's #VALUE! for a multi-cell reference: the function answers it
            result.hazards.append(f"{name} given {description}")
            # A range criterion of COUNTIF/SUMIF is read per element too: implicit intersection
            # in an ordinary cell (poi_FormulaEvalTestData EverythingTests!F296), a cell each lifted.
            per_element = name in ELEMENTWISE or position in ARRAY_ARGUMENTS.get(name, ())
            if not per_element or not plain_range or not in_elementwise():
                result.liftable = False
            if not in_elementwise():
                flag_range_argument()
            return
        # At top level: a plain range (or an operator over it) is spilled in array context and
        # intersected in an ordinary cell, which lifting writes out; any other array (a curve,
        # TRANSPOSE(...)) is a spill the fast engine computes itself.
        if plain_range:
            result.top_level_ranges = True
        else:
            result.spills = True

    from rates_xl.calc.xlfuncs.lambdas import let_names

    declared: set[int] = set()
    scalars: set[str] = set()
    if "LET" in formula.upper():  # LET's names: no ranges, or scalars
        declared, scalars = let_names(tokens, range_size)
    for index, token in enumerate(tokens):
        kind, sub, text = _kind(token.token_type), _kind(token.subtype), token.value
        if kind == "Func" and sub == "Open":
            name = bare_name(text)
            result.functions.add(name)
            frames.append([name, 0, token.end, set()])
        elif sub == "Close" and (kind == "Func" or kind == "Paren"):
            frame = frames.pop() if frames else [None, 0, 0, set()]
            broadcast.discard(id(frame))  # its id may be reused by a later frame
            close_argument(frame, token.start)
            name = frame[0]
            if name is not None and (name in ARRAY_RESULTS or name in array_functions):
                mark_array(f"the array from {name}", False)
        elif kind == "Paren" and sub == "Open":
            frames.append([None, 0, token.end, set()])
        elif kind == "Sep" and sub == "Arg" and frames and array_depth == 0:
            close_argument(frames[-1], token.start)
            frames[-1][1] += 1
            frames[-1][2] = token.end
        elif kind == "Array" and sub == "Open":
            array_depth += 1
        elif kind == "Array" and sub == "Close":
            array_depth -= 1
            mark_array("an array constant", False)
        elif kind == "Operand" and sub == "Range" and (index in declared or text.upper() in scalars):
            continue
        elif kind == "Operand" and sub == "Range" and array_depth == 0:
            if "!" in text and _NAME.match(split_reference(text)[1]) and read_area(split_reference(text)[1]) is None:
                result.qualified_names.append((token.start, token.end, text))
            nxt = tokens[index + 1] if index + 1 < len(tokens) else None
            spill = nxt is not None and _kind(nxt.token_type) == "OpPostfix" and nxt.value == "#"
            size = None if spill else range_size(text)
            if size is None or size > 1:
                ref = text
                if resolve is not None and not spill and read_area(split_reference(text)[1], whole_lines=False) is None:
                    ref = resolve(text) or text  # a defined name: the range it stands for
                plain = not spill and size is not None and read_area(split_reference(ref)[1], whole_lines=False) is not None
                result.operands.append(Operand(ref, token.start, token.end, in_elementwise()))
                mark_array(f"the spill {text}#" if spill else f"the range {text}", plain, not spill)
        elif kind == "OpInfix" and text == ":":
            mark_array("a range built with ':'", False)
    return result


_KINDS: dict[str, str] = {}


def _kind(value: object) -> str:
    """A token's type or subtype as its bare name ("Func", "Open"), whatever the
    tokenizer's enum prints ("TokenType.Func"); read thousands of times per book."""
    text = str(value)
    found = _KINDS.get(text)
    if found is None:
        found = _KINDS[text] = text.rpartition(".")[2]
    return found


# -- lifting ---------------------------------------------------------------------------------
def lift(analysis: Analysis, rows: int, cols: int) -> list[list[str]] | None:
    """One ordinary formula per cell of a `rows` x `cols` array formula, or None when it
    cannot be written out (an operand that is not a plain range, or shapes that differ)."""
    ranges = _elementwise_ranges(analysis)
    if ranges is None:
        return None
    pieces = [(operand, sheet, area.left, area.top, area.columns, area.rows) for operand, sheet, area in ranges]
    # Past its largest operand, a cell of the range reads #N/A in each operand (ISNA(C12:Q12)
    # over AH12:AW12 is TRUE in AW12), but IFERROR and IFNA do not catch it: the cell is #N/A
    # (formulas_test.xlsx LOGICAL!AW9, AW10). A 1-wide or 1-high operand is repeated.
    catching = bool(analysis.functions & CATCHING)
    result_height = max((p[5] for p in pieces), default=1)
    result_width = max((p[4] for p in pieces), default=1)
    out = []
    for i in range(rows):
        row = []
        for j in range(cols):
            if catching and (result_height > 1 and i >= result_height or result_width > 1 and j >= result_width):
                row.append("=NA()")
                continue
            text, last = [], 0
            for operand, sheet, c1, r1, width, height in pieces:
                di = i if height > 1 else 0
                dj = j if width > 1 else 0
                text.append(analysis.formula[last:operand.start])
                if di >= height or dj >= width:
                    text.append("NA()")  # Excel's #N/A beyond a shorter array
                else:
                    text.append(f"{sheet}{column_letters(c1 + dj)}{r1 + di}")
                last = operand.end
            text.append(analysis.formula[last:])
            row.append("".join(text))
        out.append(row)
    return out


def _elementwise_ranges(analysis: Analysis) -> list[tuple[Operand, str, Area]] | None:
    """(operand, sheet prefix, area) of each operand an elementwise function is
    given, in formula order; None when the formula cannot be written out cell by cell."""
    if not analysis.liftable or analysis.error or analysis.spills or analysis.whole:
        return None
    ranges = []
    for operand in analysis.operands:
        if not operand.elementwise:
            continue
        sheet, ref = split_reference(operand.text)
        area = read_area(ref, whole_lines=False)
        if area is None:
            return None
        ranges.append((operand, sheet, area))
    return ranges


def intersect(analysis: Analysis, row: int, col: int) -> str | None:
    """An ordinary cell's formula with Excel's implicit intersection written out: each range
    operand outside range-taking arguments becomes the cell of that range in the formula's
    own row (a column range) or column (a row range), #VALUE! where there is none."""
    ranges = _elementwise_ranges(analysis)
    if ranges is None:
        return None
    text, last = [], 0
    for operand, sheet, (r1, c1, r2, c2) in ranges:
        text.append(analysis.formula[last:operand.start])
        if c1 == c2 and r1 <= row <= r2:
            text.append(f"{sheet}{column_letters(c1)}{row}")
        elif r1 == r2 and c1 <= col <= c2:
            text.append(f"{sheet}{column_letters(col)}{r1}")
        else:
            text.append("#VALUE!")
        last = operand.end
    text.append(analysis.formula[last:])
    return "".join(text)


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
    text = analysis.formula
    for start, end in sorted(set(spans), reverse=True):  # from the right: offsets stay valid
        inner = analyse("=" + text[start:end].strip(), range_size, array_functions, resolve)
        if inner.error or not inner.liftable or inner.spills or inner.helpers:
            return None
        shapes = []
        for operand in inner.operands:
            if operand.elementwise:
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
        text = text[:start] + where + text[end:]
    return text


def qualify_names(analysis: Analysis, resolve: Callable[[str], str | None]) -> str | None:
    """`=S2!A1+S1!local_k` -> `=S2!A1+S1!$A$1` for a sheet-scoped name used from another sheet."""
    text, changed = analysis.formula, False
    for start, end, name in sorted(analysis.qualified_names, reverse=True):
        target = resolve(name)
        if target:
            text, changed = text[:start] + target + text[end:], True
    return text if changed else None


# -- Excel's rounding of a final + or - to zero -----------------------------------------------
def additive_terms(formula: str) -> list[str] | None:
    """The terms of a formula whose last operation is + or - (`=0.5-0.4-0.1`: '0.5', '0.4',
    '0.1'); None for any other (`=1*(0.5-0.4-0.1)`: a product; `=A1-B1>0`: a comparison).
    Excel sets such a result to 0 when it is within a few units of the 15th significant digit
    of its operands (what is left of subtracting near-equal numbers); the caller does that."""
    try:
        tokens = tokenize(formula)
    except Exception:
        return None
    depth, cuts = 0, []
    for token in tokens:
        kind, sub, text = str(token.token_type), str(token.subtype), token.value
        if sub.endswith("Open") and (kind.endswith("Func") or kind.endswith("Paren") or kind.endswith("Array")):
            depth += 1
        elif sub.endswith("Close") and (kind.endswith("Func") or kind.endswith("Paren") or kind.endswith("Array")):
            depth -= 1
        elif depth == 0 and kind.endswith("OpInfix"):
            if text in ("+", "-"):
                cuts.append((token.start, token.end))
            elif text in ("&", "=", "<", ">", "<=", ">=", "<>", ":", " ", ","):
                return None  # a lower precedence operation comes last (or a reference operator)
    if not cuts:
        return None
    terms, start = [], 1 if formula.startswith("=") else 0
    for begin, end in cuts:
        terms.append(formula[start:begin])
        start = end
    terms.append(formula[start:])
    return [t.strip() for t in terms if t.strip()]
