"""What a formula asks of the fast engine, read from its tokens: the one place that decides
whether formualizer computes a formula correctly as written (`analyse`); calc/formula/fit.py
rewrites what it flags the way Excel evaluates it.

formualizer is silently wrong on one class of formulas: a function that takes a single value
(ISNUMBER, YEAR, LEFT, EXP, LEN ...) given a range or another array. Excel applies such a
function to every element (array context) or picks the element in the formula's own row or
column (implicit intersection, in an ordinary cell); formualizer takes the first element and
says nothing. `analyse` finds every such call by the position of each array-valued operand:
inside an argument that takes a range (`SUM(...)`, the table of `INDEX`, the holidays of
`WORKDAY`, any RATES_* argument) it is fine; anywhere else it is the hazard. A function in
neither table is treated as a hazard too (never guessed).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.xlfuncs import scalars as _scalars
from rates_xl.functions.sheet import column_number, is_rates_name, read_area, split_reference
from rates_xl.functions.tokens import bare_name, function_names

# Functions of single values: over an array Excel applies them element by element.
ELEMENTWISE = frozenset("""
ABS ACOS ACOSH ASIN ASINH ATAN ATAN2 ATANH CEILING CEILING.MATH CHAR CLEAN CODE COS COSH
DATE DATEVALUE DAY DAYS DEGREES DOLLAR EDATE EOMONTH EVEN EXACT EXP FACT FIND FIXED FLOOR
FLOOR.MATH FLOOR.PRECISE CEILING.PRECISE ISO.CEILING HOUR IF IFERROR IFNA INT ISBLANK ISERR ISERROR
ISEVEN ISLOGICAL ISNA ISNONTEXT
ISNUMBER ISODD ISTEXT LEFT LEN LN LOG LOG10 LOWER MID MINUTE MOD MONTH MROUND N NOT ODD
POWER PROPER QUOTIENT RADIANS REPLACE REPT RIGHT ROUND ROUNDDOWN ROUNDUP SEARCH SECOND SIGN
SIN SINH SQRT SUBSTITUTE T TAN TANH TEXT TIME TIMEVALUE TRIM TRUNC UPPER VALUE WEEKDAY
WEEKNUM YEAR YEARFRAC ISOWEEKNUM DAYS360 CONCATENATE NUMBERVALUE
REGEXTEST REGEXEXTRACT REGEXREPLACE
LOOKUP XLOOKUP VLOOKUP HLOOKUP MATCH XMATCH INDEX VALUETOTEXT TEXTBEFORE TEXTAFTER ISFORMULA
COMBIN BINOM.DIST.RANGE
IFS SWITCH CHOOSE
ADDRESS
ARRAYTOTEXT
""".split())
# Functions of single values computed by `formulas` (calc/xlfuncs/scalars.py): each applies itself
# to each element of an array, so in an ordinary cell a range given to one answered an array
# cut to its first value: `=ACOT(J5:J10)` in row 7 was ACOT(J5), where Excel intersects (J7),
# silently; a whole column was that column's first value or #SPILL! (IronCalc's Excel-made
# STATISTICAL__BINOM.xlsx, BINOM.DIST(G:G,...)). As the ones above, a range is intersected in an
# ordinary cell and lifted cell by cell in an array formula (tests/calc/test_bridged_ranges.py).
# Not the Analysis ToolPak's (ERF, ERF.PRECISE, BESSELI, COMPLEX, DEC2BIN, the IM* ...): given more than one
# cell, Excel answers #VALUE! (formulas_test.xlsx ENGINEERING!AG15, COMPLEX(C15:P15,...)), as
# the bridged ones do.
BRIDGED_SCALARS = frozenset("""
ACOT ACOTH BETA.DIST BETA.INV BINOM.DIST BINOM.INV BITAND BITLSHIFT BITOR BITRSHIFT BITXOR
CHISQ.DIST CHISQ.DIST.RT CHISQ.INV CHISQ.INV.RT CONFIDENCE.NORM CONFIDENCE.T COT COTH CRITBINOM
CSC CSCH EXPON.DIST F.DIST F.DIST.RT F.INV F.INV.RT FISHER FISHERINV FV
GAMMA GAMMA.DIST GAMMA.INV GAMMALN GAMMALN.PRECISE GAUSS HYPGEOM.DIST HYPGEOMDIST LOGNORM.DIST
LOGNORM.INV NEGBINOM.DIST NORM.DIST NORM.INV NORM.S.DIST NORM.S.INV NORMDIST NORMINV NORMSDIST
NORMSINV NPER PERMUT PERMUTATIONA PHI POISSON.DIST RATE SEC SECH STANDARDIZE T.DIST T.DIST.2T
T.DIST.RT T.INV T.INV.2T WEIBULL.DIST ARABIC DECIMAL ROMAN UNICHAR UNICODE
""".split())
ELEMENTWISE = ELEMENTWISE | BRIDGED_SCALARS
# CHOOSE's choices take a range as it is (CHOOSE(2,A1:A3,B1:B3) is B1:B3), but given an array
# of indexes Excel broadcasts the choices with it: element i is CHOOSE(index[i], choice[i], ...).
BROADCAST_WITH_FIRST = frozenset({"CHOOSE"})
# Functions that catch an error, or turn one into text: a legacy array range's cells past their
# arrays stay #N/A (formulas_test.xlsx LOGICAL!AW9; TEXT!AW54, {=VALUETOTEXT(C54:Q54,0)} over
# AH54:AW54: #N/A, the error, in Excel, not the text "#N/A").
CATCHING = frozenset({"IFERROR", "IFNA", "VALUETOTEXT"})

ALL = None  # every argument takes a range

# Elementwise functions whose implementation (calc/xlfuncs/scalars.py's bridge, or ours) applies
# itself to each element of an array constant or computed array, as Excel does: an array formula
# giving them one (`LEFT({TRUE,"bau"},3)`) is computed whole rather than cell by cell.
LIFTS_ITSELF = frozenset("""LEFT RIGHT MID REPLACE FIND ARRAYTOTEXT TEXTSPLIT REGEXEXTRACT UPPER LOWER
                          DATE TEXT""".split()) | BRIDGED_SCALARS | {
    "BINOM.DIST.RANGE"}  # (ours, calc/xlfuncs/statistical/binomial.py, lifting itself as the bridged ones do)
# Of them, those answering an array for one value: given a range where one value is wanted, an
# array formula is computed whole too (each cell of its range would otherwise spill).
WHOLE_OVER_RANGES = frozenset({"TEXTSPLIT", "REGEXEXTRACT"})
# Elementwise functions the engine itself applies to each element of arrays and ranges of one
# shape, broadcasting a row or column as Excel does, in an array formula: IF. Given a computed
# array (ROW(range) in a legacy array formula is SEQUENCE: calc/formula/operators.py), such a
# formula is computed whole where every array and range given to the call has a shape it
# knows and they agree: `{=INDEX(B:B,SMALL(IF($A$1:$A$5>2,ROW($A$1:$A$5)),1))}`, the legacy
# extraction of the rows meeting a condition. Arrays of other shapes are padded with #N/A in
# Excel and refused by the engine (#VALUE!): such a formula stays listed.
BROADCASTS = frozenset({"IF"})

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
    "GCD": ALL, "LCM": ALL,  # calc/xlfuncs/math_trig/divisors.py: every value of each range and array
    "MULTINOMIAL": ALL, "SERIESSUM": frozenset({3}),  # (calc/xlfuncs/math_trig/series.py: the same reading)
    "RATESXL.MISSHAPEN": ALL,  # calc/xlfuncs/math_trig/sumproduct.py: reads its arguments whole
    "RATESXL.SUMPRODUCT": ALL,  # (the same module: SUMPRODUCT counting logical values as 0)
    "RATESXL.COUNTIFS": ALL,  # calc/xlfuncs/statistical/conditional.py: COUNTIFS over whole lines
    "RATESXL.COUNTIF": frozenset({0}),  # (the same: COUNTIF over whole lines)
    "RATESXL.UNION": ALL,
    "RATESXL.INDEX": ALL, "RATESXL.INDEXLIFTED": ALL, "RATESXL.INDEXAREAS": ALL,  # calc/xlfuncs/lookup/indexing.py: lifts itself
    # LET's values are bound as they are; its names and last argument: see `let_names`.
    "LET": frozenset(range(1, 254, 2)),
    "INDEX": frozenset({0}), "MATCH": frozenset({1}), "XMATCH": frozenset({1}),
    "VLOOKUP": frozenset({1, 2}), "HLOOKUP": frozenset({1, 2}), "LOOKUP": frozenset({1, 2}),
    "XLOOKUP": frozenset({1, 2}), "COUNTIF": frozenset({0}),
    "SUMIF": frozenset({0, 2}),
    "AVERAGEIF": frozenset({0, 2}), "OFFSET": frozenset({0}),
    "NPV": ALL,  # (its rate lifted by calc/xlfuncs/financial/cashflows.py `npv`, as `formulas`' was)
    "IRR": frozenset({0}), "MIRR": frozenset({0}), "XNPV": frozenset({1, 2}), "FVSCHEDULE": frozenset({1}),
    "XIRR": frozenset({0, 1}), "WORKDAY": frozenset({2}), "NETWORKDAYS": frozenset({2}),
    "WORKDAY.INTL": frozenset({3}), "NETWORKDAYS.INTL": frozenset({3}),
    "CHOOSE": frozenset(range(1, 255)), "INDIRECT": frozenset(), "CELL": frozenset({1}),
    "IFS": frozenset(), "SWITCH": frozenset(), "ARRAYTOTEXT": frozenset({0}),
    "TEXTBEFORE": frozenset({1}), "TEXTAFTER": frozenset({1}), "TEXTSPLIT": frozenset({1, 2}),
    # calc/xlfuncs/database.py: the database and the criteria are ranges (a range as the field: #VALUE!)
    **{name: frozenset({0, 2}) for name in
       "DAVERAGE DCOUNT DCOUNTA DGET DMAX DMIN DPRODUCT DSTDEV DSTDEVP DSUM DVAR DVARP".split()},
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

# Those of them that answer a reference: an ordinary cell reads it by implicit intersection.
REFERENCE_RESULTS = frozenset({"OFFSET", "INDIRECT"})


def builds_reference(formula: str) -> bool:
    """Whether `formula` calls a function answering a reference it builds as it computes
    (`REFERENCE_RESULTS`): which cell it reads is known only then, so no dependency graph
    built from the formulas' text holds it."""
    return not REFERENCE_RESULTS.isdisjoint(function_names(formula))

# A name after a sheet ('Sheet 1'!local_rate), once it is known not to be a cell or range.
_NAME = re.compile(r"^[A-Za-z_\\][\w.]*$")


#: Arguments that take an array a function computes, answering one value per element (Excel's
#: `LARGE(SUMIF(E2:E9,UNIQUE(E2:E9),F2:F9),1)`; ours loop over it, calc/xlfuncs/statistical/conditional.py),
#: while a range there is still read by implicit intersection in an ordinary cell.
ARRAY_ARGUMENTS: dict[str, frozenset[int]] = {"SUMIF": frozenset({1}), "AVERAGEIF": frozenset({1}),
                                              "COUNTIF": frozenset({1}), "RATESXL.COUNTIF": frozenset({1})}

#: Arguments that take an array and answer one value per element (calc/xlfuncs/lookup/lookups.py:
#: `VLOOKUP(x, t, {2,3}, 0)` is a row of two): in an ordinary cell, or a cell of a lifted
#: legacy array formula, Excel shows the answer's top-left value, which the fast engine
#: would spill (`Analysis.answers_array`).
ARRAY_ANSWERS: dict[str, frozenset[int]] = {"VLOOKUP": frozenset({2}), "HLOOKUP": frozenset({2})}


def takes_range(name: str, position: int) -> bool:
    positions = RANGE_ARGUMENTS.get(name, _NONE)  # (asked first: most names are Excel's)
    return positions is ALL or position in positions or is_rates_name(name)


_NONE: frozenset[int] = frozenset()


# -- the reading -----------------------------------------------------------------------------
@dataclass
class Operand:
    text: str
    index: int  # its token (an array constant's: its opening brace)
    elementwise: bool  # not inside any range-taking argument: lifting rewrites it
    #: An array constant's: the token after its closing brace, and its elements' texts by row
    #: (lifting writes each cell's element in its place: fit.py `lift`).
    end: int | None = None
    elements: list[list[str]] | None = None


@dataclass
class Analysis:
    """One formula's reading: its functions, array operands and hazards."""

    formula: Formula
    functions: set[str] = field(default_factory=set)
    operands: list[Operand] = field(default_factory=list)
    hazards: list[str] = field(default_factory=list)  # why the fast engine would be wrong
    top_level_ranges: bool = False  # a plain range outside every function call
    spills: bool = False  # an array from a function or a constant outside every function call
    #: The functions whose computed array is that top-level value (TRANSPOSE, MMULT, RATES_*...).
    top_arrays: set[str] = field(default_factory=set)
    liftable: bool = True  # every hazard lies outside range-taking arguments, on plain ranges
    #: Token spans [first, last) of arguments taking a range whose value is an elementwise call
    #: over ranges: `materialise` computes each into cells and passes those cells instead.
    helpers: list[tuple[int, int]] = field(default_factory=list)
    #: (token, text) of sheet-qualified names (`S1!local_rate`): the fast engine does not
    #: resolve them, `qualify_names` writes the range they stand for instead.
    qualified_names: list[tuple[int, str]] = field(default_factory=list)
    error: str | None = None  # the tokenizer's complaint, if any
    answers_array: bool = False  # an array where ARRAY_ANSWERS takes one: the call answers an array
    #: An array constant or computed array given to a function in LIFTS_ITSELF: written out
    #: cell by cell each cell would get the whole array, so the formula is computed whole
    #: (an array formula) or not at all (an ordinary cell with a range hazard).
    whole: bool = False
    #: How many of `hazards` are ranges given to a function in LIFTS_ITSELF.
    self_lifted: int = 0
    #: A call in BROADCASTS was given arrays of shapes it cannot be shown to broadcast (unknown,
    #: or disagreeing): not computed whole.
    misshapen: bool = False

    @property
    def computed_whole(self) -> bool:
        """An array formula the engine computes as it stands: its arrays and ranges all go to
        functions that apply themselves to each element."""
        return self.whole and self.self_lifted == len(self.hazards) and not self.top_level_ranges \
            and self.error is None and not self.misshapen

    @property
    def safe(self) -> bool:
        """The fast engine computes the formula as written, in any cell."""
        return not self.hazards and not self.top_level_ranges and self.error is None

    @property
    def answers_computed_array(self) -> bool:
        """Its value is an array a function computes (`=TRANSPOSE(C1:D2)`, `=MMULT(A1:B2,A1:B2)*2`,
        a RATES_* table), not a reference (OFFSET, INDIRECT: an ordinary cell intersects
        those): in an ordinary cell Excel shows its top-left value and nothing spills, so no
        other cell may read the rest (LibreOffice agrees; tests/calc/test_model_classes.py)."""
        return bool(self.top_arrays - REFERENCE_RESULTS)

    @property
    def needs_rewrite(self) -> bool:
        return bool(self.hazards) or self.top_level_ranges


def analyse(formula: Formula, range_size: Callable[[str], int | None],
            array_functions: frozenset[str] = frozenset(),
            resolve: Callable[[str], str | None] | None = None, *, whole_lines: bool = False) -> Analysis:
    """Read `formula`'s tokens. `range_size(text)` gives an operand's cell count (None:
    unknown, treated as an array); `array_functions` are the RATES_* functions that answer
    a table (they spill), besides Excel's own in `ARRAY_RESULTS`; `resolve(name)` the range a
    defined name stands for ("Data!$A$1:$A$9"), so lifting can write out its cells too.
    `whole_lines`: whole columns and rows count as plain ranges, as they do in an ordinary
    cell, where Excel intersects them like any other (`FLOOR($AM:$AM,B$2)`); an array
    formula over them would be a million cells, which it is not written out into."""
    result = Analysis(formula)
    tokens = formula.tokens
    if formula.error is not None:  # the tokenizer's complaint, kept as the reason
        result.error = formula.error
        result.liftable = False
        return result
    if _cells_and_operators(formula, range_size):
        return result  # nothing below can flag it (most formulas of a model: `=A1+1`, `=B2*C2`)
    # One frame per open function call or parenthesis: [name or None, argument position, the
    # token where the argument starts, positions to materialise].
    frames: list[list] = []
    array_depth = 0

    broadcast: set[int] = set()  # id() of the frames whose first argument is an array
    shapes: dict[int, list[tuple[int, int] | None]] = {}  # id() of a BROADCASTS call -> its arrays' shapes
    # id() of OFFSET calls whose reference is one cell: with no height or width given, the
    # answer is one cell (`IF(flag, OFFSET(table!$I$5, MIN(10, n), $F$15), 0)`), no array.
    one_cell_offsets: set[int] = set()

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

    def mark_array(description: str, plain_range: bool, a_range: bool = False,
                   constant: Operand | None = None, shape: tuple[int, int] | None = None) -> None:
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
            if name in BROADCASTS:
                shapes.setdefault(id(frame), []).append(shape)
                if description.startswith("the array from"):
                    result.whole = True
                result.self_lifted += 1
                if description.startswith("the array from"):
                    result.hazards.append(f"{name} given {description}")
                    return
            if name in LIFTS_ITSELF and (description == "an array constant"
                                         or description.startswith(("the array from", "the spill "))):
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
            if constant is not None and per_element and in_elementwise():
                # An array constant given where the function answers per element: lifting writes
                # each cell's element in (`IF({TRUE,FALSE},{1,2},{"A"})` is IF(TRUE,1,"A") and
                # IF(FALSE,2,"A")), as it writes each cell of a range.
                result.operands.append(constant)
                return
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
            if description.startswith("the array from "):
                result.top_arrays.add(description[15:])

    from rates_xl.calc.formula.lambdas import let_names

    declared: set[int] = set()
    scalars: set[str] = set()
    if "LET" in formula.upper:  # LET's names: no ranges, or scalars
        declared, scalars = let_names(formula, range_size)
    for index, token in enumerate(tokens):
        kind, sub, text = token.kind, token.sub, token.text
        if kind == "Func" and sub == "Open":
            name = bare_name(text)  # (`token.name`, its kind known)
            result.functions.add(name)
            frames.append([name, 0, index + 1, set(), index])
        elif sub == "Close" and (kind == "Func" or kind == "Paren"):
            frame = frames.pop() if frames else [None, 0, 0, set(), -1]
            broadcast.discard(id(frame))  # its id may be reused by a later frame
            if id(frame) in shapes and not _broadcastable(shapes.pop(id(frame))):
                result.misshapen = True
            close_argument(frame, index)
            name = frame[0]
            one_cell = name == "OFFSET" and id(frame) in one_cell_offsets and frame[1] <= 2
            one_cell_offsets.discard(id(frame))
            one_cell = one_cell or name == "INDIRECT" and one_cell_indirect(formula, frame[4])
            # `@CALL(...)`: the cell implicit intersection picks (calc/formula/implicit.py
            # `intersected_references`), one value
            one_cell = one_cell or (frame[4] > 0 and tokens[frame[4] - 1].kind == "OpPrefix"
                                    and tokens[frame[4] - 1].text == "@")
            if name is not None and (name in ARRAY_RESULTS or name in array_functions) and not one_cell:
                mark_array(f"the array from {name}", False, shape=_sequence_shape(formula, frame[4]) if
                           name == "SEQUENCE" else None)
        elif kind == "Paren" and sub == "Open":
            frames.append([None, 0, index + 1, set(), index])
        elif kind == "Sep" and sub == "Arg" and frames and array_depth == 0:
            close_argument(frames[-1], index)
            frames[-1][1] += 1
            frames[-1][2] = index + 1
        elif kind == "Array" and sub == "Open":
            array_depth += 1
        elif kind == "Array" and sub == "Close":
            array_depth -= 1
            constant = _array_constant(formula, index, in_elementwise()) if array_depth == 0 else None
            mark_array("an array constant", False, constant=constant)
        elif kind == "Operand" and sub == "Range" and (index in declared or text.upper() in scalars):
            continue
        elif kind == "Operand" and sub == "Range" and array_depth == 0:
            if "!" in text and _NAME.match(split_reference(text)[1]) and read_area(split_reference(text)[1]) is None:
                result.qualified_names.append((index, text))
            nxt = tokens[index + 1] if index + 1 < len(tokens) else None
            spill = nxt is not None and nxt.kind == "OpPostfix" and nxt.text == "#"
            size = None if spill else range_size(text)
            if size == 1 and frames and frames[-1][0] == "OFFSET" and frames[-1][1] == 0 and \
                    frames[-1][2] == index and nxt is not None and nxt.kind == "Sep":
                one_cell_offsets.add(id(frames[-1]))
            if size is None or size > 1:
                ref = text
                if resolve is not None and not spill and read_area(split_reference(text)[1], whole_lines=False) is None:
                    ref = resolve(text) or text  # a defined name: the range it stands for
                plain = not spill and (size is not None or whole_lines) and \
                    read_area(split_reference(ref)[1], whole_lines=whole_lines) is not None
                result.operands.append(Operand(ref, index, in_elementwise()))
                area = read_area(split_reference(ref)[1], whole_lines=False) if plain else None
                mark_array(f"the spill {text}#" if spill else f"the range {text}", plain, not spill,
                           shape=(area.rows, area.columns) if area is not None else None)
        elif kind == "OpInfix" and text == ":":
            mark_array("a range built with ':'", False)
    return result

def _sequence_shape(formula: Formula, opening: int) -> tuple[int, int] | None:
    """(rows, columns) of the SEQUENCE call opened at token `opening` when both are typed
    numbers (or left out: 1), as the rewriting of ROW and COLUMN writes them; else None."""
    group = next((g for g in formula.groups if g.kind == "call" and g.open == opening), None)
    if group is None:
        return None
    texts = [formula.span_text(span).strip() for span in group.arguments[:2]]
    texts += ["1"] * (2 - len(texts))
    if not all(text.isdigit() or not text for text in texts):
        return None
    rows, columns = (int(text) if text else 1 for text in texts)
    return rows, columns


def _broadcastable(found: list[tuple[int, int] | None]) -> bool:
    """Whether arrays of these shapes broadcast together (each dimension one size, or 1), all known."""
    if any(shape is None for shape in found):
        return False
    for dimension in (0, 1):
        sizes = {shape[dimension] for shape in found if shape is not None} - {1}
        if len(sizes) > 1:
            return False
    return True


def _array_constant(formula: Formula, closed: int, elementwise: bool) -> Operand | None:
    """The array constant closing at token `closed` as an operand lifting writes out: its
    elements' texts by row, as the formula's groups read them (calc/formula/tree.py: an array's
    arguments, its semicolons among its separators); None where an element is empty or the rows
    are not of one width (Excel refuses such a constant)."""
    group = next((g for g in formula.groups if g.kind == "array" and g.close == closed), None)
    if group is None:
        return None
    rows: list[list[str]] = [[]]
    for at, span in enumerate(group.arguments):
        rows[-1].append(formula.span_text(span))
        if at < len(group.separators) and formula.tokens[group.separators[at]].sub == "Row":
            rows.append([])
    if any(not element for row in rows for element in row) or len({len(row) for row in rows}) != 1:
        return None
    return Operand(formula.span_text((group.open, closed + 1)), group.open, elementwise, closed + 1, rows)


#: Token kinds that open no call, parenthesis or array constant.
_FLAT = frozenset({"Operand", "OpInfix", "OpPrefix", "OpPostfix", "Whitespace"})


def _cells_and_operators(formula: Formula, range_size: Callable[[str], int | None]) -> bool:
    """Whether the formula is operators over constants and one-cell references only (no call,
    parenthesis, array constant, range, reference operator or spill): `analyse` would find no
    function, array, hazard or name in it, so it is answered without the walk."""
    for token in formula.tokens:
        kind = token.kind
        if kind not in _FLAT or (kind == "OpInfix" and token.text in (":", " ", ",")) or \
                (kind == "OpPostfix" and token.text == "#"):
            return False
        if token.sub == "Range":
            prefix, ref = split_reference(token.text)
            area = read_area(ref, whole_lines=False)
            if area is None or not area.is_cell or "[" in prefix or range_size(token.text) != 1:
                return False
    return True


def one_cell_indirect(formula: Formula, opening: int) -> bool:
    """Whether the INDIRECT call opened at token `opening` names one cell whatever its inputs:
    its text is column letters joined to a number (`INDIRECT("A"&ROW(B10)-1)`: `&` binds
    looser than arithmetic, so what follows is `ROW(B10)-1`, a number), or a literal one-cell
    address. Such a call is one cell (or #REF!), not an array: an IF around it is computed,
    as Excel computes it (poi_StructuredRefs-lots-with-lookups.xlsx, Query!A2:A3799, a running
    count down a table: 3,798 cells listed as `IF given the array from INDIRECT`)."""
    group = formula.group_at(opening)
    if group is None or group.close < 0 or not group.arguments or len(group.arguments) > 2:
        return False
    if len(group.arguments) == 2:  # A1 style only: TRUE, 1 or nothing
        second = formula.solid(group.arguments[1])
        if not (len(second) == 0 or len(second) == 1 and second[0].text.upper() in ("TRUE", "1")):
            return False
    solid = formula.solid(group.arguments[0])
    if len(solid) == 1 and solid[0].sub == "Text":
        area = read_area(solid[0].text.strip('"').replace("$", ""))
        return area is not None and area.is_cell
    if len(solid) < 3 or solid[0].sub != "Text" or not _column_letters(solid[0].text):
        return False
    if solid[1].kind != "OpInfix" or solid[1].text != "&":
        return False
    depth, arithmetic = 0, False
    for token in solid[2:]:
        if token.opens:
            depth += 1
        elif token.closes:
            depth -= 1
        elif depth == 0 and token.kind == "OpInfix":
            if token.text in ("&", "=", "<", ">", "<=", ">=", "<>", ":", ",", " "):
                return False
            arithmetic = arithmetic or token.text in ("+", "-", "*", "/", "^")
        elif depth == 0 and token.sub == "Text":
            return False
    number = len(solid) == 3 and solid[2].sub == "Number"
    return (arithmetic or number) and depth == 0


def _column_letters(text: str) -> bool:
    """A text literal naming a column (`"A"`, `"$AB"`, `"A$"`)."""
    try:
        column_number(text[1:-1].replace("$", ""))
    except ValueError:
        return False
    return True


@cache
def rates_tables() -> frozenset[str]:
    """RATES_* functions that answer a table (they spill), under every spelling."""
    from rates_xl.calc.engines import rates

    names = set()
    for excel_name, spec in rates.function_table().items():
        if spec.result != "number":
            names.update(rates.engine_names(excel_name))
    return frozenset(n.upper() for n in names)
