"""Text read as a number where a function wants one: a date, a time or a date and time given as
text to INT, ROUND, YEAR, DAYS, PMT, NORM.DIST ... (typed, or read from a cell).

Excel reads such text as VALUE would: `INT("2024-01-10")` is 45301, `YEAR(A1)` with the text
"2024-01-10" in A1 is 2024, `SQRT("14:30")` is 0.777 (Microsoft's YEAR: "dates ... as text
strings" are read). Tried on 135 function-argument pairs, typed and from a cell:

- formualizer 0.13's own functions read only plain numbers and percentages there, and
  answered #VALUE! for a date or a time (YEAR, INT, ROUND, DAYS, NETWORKDAYS, PMT ...);
- the functions computed by `formulas` (calc/routing.py) read dates themselves, day first as
  formulas_test.xlsx's Excel did ("29/02/1900" is 60 there), but a time alone as that time on
  1 January of this year: `NORM.S.DIST("12:00")` was 1, `GAMMALN("12:00")` 448,117.

A number where Excel has another, or #VALUE! where Excel has a number, silently. Such an
argument is now written so that text is read as Excel reads it (`text_as_numbers`, after the
fit has intersected ranges; calc/xlfuncs/text/number_text.py says which text is read how):

- typed text, as its number (`INT("2024-01-10")` -> `INT(45301)`);
- a cell's constant text, `--(A1)`: the engine's arithmetic reads it alike;
- typed or constant text whose reading is not settled here, `RATESXL.NUMBER(...)`, which
  answers #NAME? for it (below);
- a formula's cell, `IF(ISTEXT(A1),RATESXL.NUMBER(A1),A1)`, and text a call or a join answers,
  `RATESXL.NUMBER(...)`: the reading made at the calculation, in Python for text alone;
- another value that may be text (a name, IF, INDEX ...), `--(...)`, which passes a number,
  an empty cell, a logical from a formula and an error on unchanged.

A logical typed or held as a constant is left as it is (Excel's ERF(TRUE cell) is #VALUE!), and
so is an argument that may read several cells (an array formula's range, given to the function
cell by cell). Ours and `formulas`' functions read text themselves (`formulas` reads
"29/02/1900" day first, as formulas_test.xlsx's Excel did, and "TRUE" as a logical): given
typed or constant text, only the dates and times read alike are written out.

Where the reading of a text is not settled (number_text.py `reading`: "1,000", "$5", "(5)",
"25:00", "1/2/2024" whose order of day and month is the locale's), RATESXL.NUMBER answers
#NAME?, which the check against Excel's values lists (Excel's value kept), for one of
formualizer's functions.
tests/calc/test_number_arguments.py.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula, Group, Span
from rates_xl.calc.xlfuncs.dates.system1904 import text_serial
from rates_xl.calc.xlfuncs.text.number_text import (
    NAME,
    NO_TEXT,
    PLAIN,
    TIME,
    UNSURE,
    number,
    reading,
)
from rates_xl.functions.sheet import cell_reference
from rates_xl.functions.tokens import (
    ERROR,
    INFIX,
    LOGICAL,
    NUMBER,
    OPERAND,
    POSTFIX,
    PREFIX,
    TEXT,
    FormulaError,
    Token,
    bare_name,
    function_names,
    tokenize,
)

ALL = None  # every argument wants a number

_ONE_NUMBER = """
    ABS ACOS ACOSH ACOT ACOTH ASIN ASINH ATAN ATANH COS COSH COT COTH CSC CSCH SEC SECH SIN SINH TAN
    TANH DEGREES RADIANS EXP LN LOG10 SQRT SQRTPI SIGN EVEN ODD INT FACT FACTDOUBLE
    ATAN2 LOG MOD POWER QUOTIENT ROUND ROUNDUP ROUNDDOWN TRUNC COMBIN COMBINA PERMUT PERMUTATIONA
    MROUND FLOOR CEILING FLOOR.MATH CEILING.MATH FLOOR.PRECISE CEILING.PRECISE ISO.CEILING RANDBETWEEN
    YEAR MONTH DAY HOUR MINUTE SECOND WEEKDAY WEEKNUM ISOWEEKNUM EDATE EOMONTH DATE TIME DAYS YEARFRAC
    PMT IPMT PPMT PV FV NPER RATE CUMIPMT CUMPRINC EFFECT NOMINAL DOLLARDE DOLLARFR SLN SYD DB DDB VDB
    ISPMT PDURATION RRI PRICE YIELD PRICEDISC PRICEMAT YIELDDISC YIELDMAT DISC INTRATE RECEIVED
    ACCRINT ACCRINTM COUPDAYBS COUPDAYS COUPDAYSNC COUPNCD COUPNUM COUPPCD DURATION MDURATION
    TBILLEQ TBILLPRICE TBILLYIELD ODDFPRICE ODDFYIELD ODDLPRICE ODDLYIELD AMORDEGRC AMORLINC
    NORM.DIST NORMDIST NORM.S.DIST NORMSDIST NORM.INV NORMINV NORM.S.INV NORMSINV LOGNORM.DIST
    LOGNORMDIST LOGNORM.INV LOGINV EXPON.DIST EXPONDIST POISSON.DIST POISSON BINOM.DIST BINOMDIST
    BINOM.INV CRITBINOM BINOM.DIST.RANGE NEGBINOM.DIST NEGBINOMDIST HYPGEOM.DIST HYPGEOMDIST
    GAMMA.DIST GAMMADIST GAMMA.INV GAMMAINV BETA.DIST BETADIST BETA.INV BETAINV CHISQ.DIST
    CHISQ.DIST.RT CHIDIST CHISQ.INV CHISQ.INV.RT CHIINV F.DIST F.DIST.RT FDIST F.INV F.INV.RT FINV
    T.DIST T.DIST.2T T.DIST.RT TDIST T.INV T.INV.2T TINV WEIBULL.DIST WEIBULL GAMMA GAMMALN
    GAMMALN.PRECISE GAUSS PHI FISHER FISHERINV STANDARDIZE CONFIDENCE CONFIDENCE.NORM CONFIDENCE.T
    ERF ERF.PRECISE ERFC ERFC.PRECISE DELTA GESTEP BITAND BITOR BITXOR BITLSHIFT BITRSHIFT
    BESSELI BESSELJ BESSELK BESSELY DEC2BIN DEC2HEX DEC2OCT
"""

#: Function -> the positions of its arguments that want one number (ALL: every one). Left
#: out: arguments that may be text (TEXT's value, LEFT's text), a range or an array (GCD,
#: NPV's values, FVSCHEDULE's schedule, the weekend and holidays of the workday functions),
#: a reference (OFFSET), and functions that ignore text (N is 0 for it; SUM and the other
#: statistics read a typed text: calc/formula/arguments.py `typed_literals`).
POSITIONS: dict[str, tuple[int, ...] | None] = {
    **dict.fromkeys(_ONE_NUMBER.split(), ALL),
    "DAYS360": (0, 1), "DATEDIF": (0, 1), "NETWORKDAYS": (0, 1), "WORKDAY": (0, 1),
    "NETWORKDAYS.INTL": (0, 1), "WORKDAY.INTL": (0, 1), "FVSCHEDULE": (0,), "CONVERT": (0,),
    "CHAR": (0,), "UNICHAR": (0,), "REPT": (1,), "LEFT": (1,), "RIGHT": (1,), "LEFTB": (1,),
    "RIGHTB": (1,), "MID": (1, 2), "MIDB": (1, 2), "FIXED": (0, 1), "DOLLAR": (0, 1),
    "ROMAN": (0, 1), "BASE": (0, 1, 2), "SEQUENCE": ALL,
}

#: Of those, the arguments that want a logical value, not a number (a distribution's
#: `cumulative`, VDB's `no_switch`, ACCRINT's `calc_method`): a text there is Excel's "TRUE" or
#: "FALSE" (`NORM.DIST(x,-1,2,"TRUE")` is 0.977, `NORM.S.DIST(x,"1")` #VALUE!: formulas_test.xlsx
#: STATISTICAL!U73 and T74), left as written.
LOGICAL_AT = {
    "NORM.DIST": 3, "NORMDIST": 3, "NORM.S.DIST": 1, "LOGNORM.DIST": 3, "EXPON.DIST": 2, "EXPONDIST": 2,
    "POISSON.DIST": 2, "POISSON": 2, "BINOM.DIST": 3, "BINOMDIST": 3, "NEGBINOM.DIST": 3,
    "HYPGEOM.DIST": 4, "GAMMA.DIST": 3, "GAMMADIST": 3, "BETA.DIST": 3, "CHISQ.DIST": 2, "F.DIST": 3,
    "T.DIST": 2, "WEIBULL.DIST": 3, "WEIBULL": 3, "VDB": 6, "ACCRINT": 7,
}

#: Of those, the ones answering text (a call to any other answers a number or an error).
_TEXT_ANSWERS = frozenset("""CHAR UNICHAR REPT LEFT RIGHT LEFTB RIGHTB MID MIDB FIXED DOLLAR ROMAN
                             BASE DEC2BIN DEC2HEX DEC2OCT""".split())
#: Calls answering a number, a logical or an error, never text: given as an argument, not wrapped.
NUMBER_ANSWERS = (frozenset(POSITIONS) - _TEXT_ANSWERS) | frozenset("""
    SUM SUMIF SUMIFS SUMPRODUCT SUMSQ PRODUCT COUNT COUNTA COUNTBLANK COUNTIF COUNTIFS AVERAGE
    AVERAGEA AVERAGEIF AVERAGEIFS MAX MAXA MAXIFS MIN MINA MINIFS MEDIAN LARGE SMALL STDEV STDEV.S
    STDEV.P STDEVP VAR VAR.S VAR.P VARP RANK RANK.EQ RANK.AVG PERCENTILE QUARTILE NPV IRR XNPV XIRR
    MIRR ROW ROWS COLUMN COLUMNS LEN FIND SEARCH MATCH XMATCH VALUE DATEVALUE TIMEVALUE TODAY NOW
    RAND N CODE UNICODE ISNUMBER ISTEXT ISBLANK ISERROR ISNA AND OR NOT XOR
""".split())
_ARITHMETIC = frozenset("+-*/^")
_COMPARISON = frozenset({"=", "<>", "<", ">", "<=", ">="})


def wants_number(name: str, position: int) -> bool:
    """Whether the function's argument at `position` (from 0) wants one number."""
    wanted = POSITIONS[name]
    return (wanted is ALL or position in wanted) and LOGICAL_AT.get(name) != position


@lru_cache(maxsize=1)
def _native() -> frozenset[str]:
    """The table's functions formualizer computes itself (calc/routing.py); the others are
    ours or `formulas`', which read text themselves."""
    from rates_xl.calc.routing import engine_for

    return frozenset(name for name in POSITIONS if engine_for(name) == "formualizer")


# -- the rewriting -------------------------------------------------------------------------------


def may_want_numbers(formula: Formula, _site: object = None) -> bool:
    """A call of one of the table's functions (the functions the formula calls are known for most)."""
    return not POSITIONS.keys().isdisjoint(function_names(formula.text))


#: Calls answering text: given where a number is wanted, read by RATESXL.NUMBER.
TEXT_CALLS = _TEXT_ANSWERS | frozenset("""TEXT TRIM SUBSTITUTE CONCAT CONCATENATE UPPER LOWER PROPER
    REPLACE CLEAN T TEXTJOIN TEXTBEFORE TEXTAFTER""".split())


def text_as_numbers(formula: Formula, site: Site) -> str:
    """An argument where the function wants a number, that may be text, written so that text
    is read as Excel reads it: `YEAR(A1)` with "2024-01-10" in A1 is 2024, where formualizer's
    functions answered #VALUE! (the module's docstring). Of ours and `formulas`' (which read
    text themselves), a typed date or time or a cell's constant one (`_read_here`): `formulas`
    put a time alone on 1 January of this year. tests/calc/test_number_arguments.py."""
    edits = formula.edits()
    native = _native()
    for call in formula.groups:
        if call.kind != "call" or call.name not in POSITIONS or call.close < 0:
            continue
        for position, span in enumerate(call.arguments):
            if not wants_number(call.name, position):
                continue
            way = _way(formula, call, span, site)
            if call.name not in native and way in (_LITERAL, _MINUS, _UNSURE):
                way = _read_here(formula, span, site)  # ours and `formulas`' read the rest themselves
            if way is None:
                continue
            first, last = span
            text = formula.span_text(span)
            if way == _LITERAL:
                typed = formula.tokens[first].text[1:-1].replace('""', '"')
                read = number(typed)
                if site.book.date1904 and not isinstance(read, str):
                    read = text_serial(typed, read)  # a date's serial in the book's system
                written = read if isinstance(read, str) else (repr(read) if read >= 0 else f"({read!r})")
                edits.replace(first, last, written)
            elif way == _GUARD:
                edits.replace(first, last, f"IF(ISTEXT({text}),{NAME}({text}),{text})")
            elif way in (_NUMBER, _UNSURE):
                edits.replace(first, last, f"{NAME}({text})")
            else:
                edits.replace(first, last, f"--({text})")
    return edits.text()


#: How an argument is written: a typed text as its number (_LITERAL); a cell's constant text
#: or a value that may be text, `--(x)` (_MINUS: the engine's arithmetic reads what
#: number_text.py reads alike, and passes a number, an empty cell or an error on); a formula's
#: cell, `IF(ISTEXT(x),RATESXL.NUMBER(x),x)` (_GUARD: the Python reading called for text
#: alone); a value that is text, `RATESXL.NUMBER(x)` (_NUMBER); a typed or constant text whose
#: reading is not settled, the same (_UNSURE: #NAME?).
_LITERAL, _MINUS, _GUARD, _NUMBER, _UNSURE = "literal", "minus", "guard", "number", "unsure"


def _read_here(formula: Formula, span: Span, site: Site) -> str | None:
    """_MINUS for a date or a time as text the module reads alike (`reading`), typed or a
    cell's constant: ours and `formulas`' read other text themselves (`formulas` reads
    "29/02/1900" day first, as formulas_test.xlsx's Excel did, and "TRUE" as a logical)."""
    token = formula.single(span)
    if token is None:
        return None
    kind: str | None
    if token.kind == OPERAND and token.sub == TEXT:
        kind = reading(token.text[1:-1].replace('""', '"'))
    elif token.is_range:
        kind = site.book.text_reading(site.sheet, token.text)
    else:
        return None
    return _MINUS if kind in (PLAIN, TIME) else None


def _way(formula: Formula, call: Group, span: Span, site: Site) -> str | None:
    """How an argument that may be text is written (None: it cannot be: a number, logical or
    error typed in, a cell holding one or nothing, arithmetic, a comparison, an array constant,
    a call answering a number, or what may read several cells)."""
    first, last = span
    if first >= last:
        return None  # omitted
    tokens = formula.tokens
    if any(token.text == ":" or (token.is_range and cell_reference(token.text) is None
                                 and site.book.range_size(site.sheet, token.text) != 1)
           for token in tokens[first:last]):
        return None  # it may read several cells: the engine applies the function to each (left as it is)
    at = formula.single_index(span)
    if at is not None:
        token = tokens[at]
        if token.kind == OPERAND and token.sub in (NUMBER, LOGICAL, ERROR):
            return None
        if token.kind == OPERAND and token.sub == TEXT:
            typed = reading(token.text[1:-1].replace('""', '"'))
            return _LITERAL if typed in (PLAIN, TIME) else _UNSURE if typed == UNSURE else None
        if token.is_range:
            kind = site.book.text_reading(site.sheet, token.text)
            if kind == NO_TEXT:
                return None  # a number, a logical or nothing
            if kind is not None:  # a cell's constant text (one with no number in it: #VALUE! as it is)
                return _UNSURE if kind == UNSURE else _MINUS if kind in (PLAIN, TIME) else None
            return _GUARD if cell_reference(token.text) is not None else _MINUS  # a formula's cell; a name
        return _MINUS
    opening = tokens[first]
    if opening.opens:
        group = formula.group_at(first)
        if group is not None and group.close == last - 1:  # the argument is one call, parenthesis or array
            if group.kind == "array":
                return None  # an array constant: left as written
            if group.kind == "call":
                if group.name in TEXT_CALLS:
                    return _NUMBER
                return None if group.name in NUMBER_ANSWERS else _MINUS
    answer = _outermost(formula, span, call)
    return _NUMBER if answer == _JOINED else _MINUS if answer is None else None


@lru_cache(maxsize=8192)
def answers_no_text(text: str) -> bool:
    """Whether a formula (`=...`) answers no text, read from its outermost operation: a
    number, a logical or an error typed, arithmetic, a comparison, or a call that answers a
    number (its cell read where a number is wanted needs no reading of text)."""
    call = _ONE_CALL.match(text)
    if call is not None and _closes_last(text, call.end() - 1):  # `=ABS(M5)`: its name says (no token read)
        return bare_name(call.group(1) + "(") in NUMBER_ANSWERS
    try:  # (read apart from the tokenizer's cache, which holds the formulas being rewritten)
        tokens = tokenize.__wrapped__(text)
    except FormulaError:
        return False
    formula = Formula.read(text, tokens)
    first, last = 0, len(tokens)
    while first < last and (tokens[first].is_space or (first == 0 and tokens[first].text == "=")):
        first += 1
    if first >= last:
        return False
    at = formula.single_index((first, last))
    if at is not None:
        token = tokens[at]
        return token.kind == OPERAND and token.sub in (NUMBER, LOGICAL, ERROR)
    if tokens[first].opens:
        group = formula.group_at(first)
        if group is not None and group.close == last - 1:
            return group.kind == "call" and group.name in NUMBER_ANSWERS
    return _outermost(formula, (first, last), None) in (_COMPARED, _COMPUTED)


#: What an expression's outermost operator makes of it (`_outermost`): a logical, text, a number.
_COMPARED, _JOINED, _COMPUTED = "compared", "joined", "computed"


def _outermost(formula: Formula, span: Span, owner: Group | None) -> str | None:
    """The kind of answer the operators of a span, outside any group in it (`owner` holds the
    span), give: a comparison binds last (a logical), then `&` (text), then arithmetic (a
    number); None where there is no operator among them."""
    tokens = formula.tokens
    joined = computed = False
    for index in range(*span):
        token = tokens[index]
        if formula.owner(index) is not owner or token.opens or token.closes:
            continue
        if token.kind == INFIX and token.text in _COMPARISON:
            return _COMPARED
        joined = joined or (token.kind == INFIX and token.text == "&")
        computed = computed or _arithmetic(token, after=True) or _arithmetic(token, after=False)
    return _JOINED if joined else _COMPUTED if computed else None


_ONE_CALL = re.compile(r"=\s*([A-Za-z_][\w.]*)\(")


def _closes_last(text: str, opening: int) -> bool:
    """Whether the parenthesis at `opening` closes at the formula's last character (text in
    quotes skipped)."""
    depth, quoted = 0, False
    for at in range(opening, len(text)):
        char = text[at]
        if char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return at == len(text.rstrip()) - 1
    return False


# -- arithmetic ------------------------------------------------------------------------------------


def may_compute_unsure(formula: Formula, site: Site) -> bool:
    """A book holding a text whose reading is not settled, and arithmetic in the formula."""
    return site.book.unsure_texts and any(op in formula.text for op in "+-*/^%")


def unsure_arithmetic(formula: Formula, site: Site) -> str:
    """A cell's constant text whose reading is not settled ("1,000", "1/2/2024" ...), read by
    arithmetic (`=B1*2`), written `RATESXL.NUMBER(B1)`: #NAME?, listed by the check against
    Excel's values, where the engine answered #VALUE! for "1,000" (an English Excel's 2,000)
    or read "1/2/2024" month first, silently. tests/calc/test_number_arguments.py."""
    edits = formula.edits()
    tokens = formula.tokens
    for index, token in enumerate(tokens):
        if not token.is_range or cell_reference(token.text) is None:
            continue
        before, after = formula.previous(index), formula.following(index)
        if not (_arithmetic(before, after=False) or _arithmetic(after, after=True)):
            continue
        if site.book.text_reading(site.sheet, token.text) == UNSURE:
            edits.replace(index, index + 1, f"{NAME}({token.text})")
    return edits.text()


#: A typed text whose number the engine's arithmetic does not read as Excel does: a digit beside
#: a sign it does not read (a thousands separator, a currency, a slash, a parenthesis, a space,
#: a colon: "0:75" is 1:15 to Excel, #VALUE! to the engine).
_UNSURE_TEXT = re.compile(r'"[^"]*(?:\d[^"]*[,$€£¥/(: ]|[,$€£¥/(: ][^"]*\d)[^"]*"')


def may_type_unsure_text(text: str) -> bool:
    return _UNSURE_TEXT.search(text) is not None


def typed_unsure_text(formula: Formula, _site: Site) -> str:
    """A typed text read by arithmetic that the engine does not read as Excel does
    (number_text.py UNSURE), written as Excel's number where it is settled: `"(123)"+0` is
    -123 and `"1 1/2"*2` 3 in Excel (an accounting negative, a fraction as Microsoft has one
    typed: value_text.py); and as `RATESXL.NUMBER("...")`, #NAME?, listed, where the reading
    is the locale's ("1,234.5"*2: an English Excel's 2469). The engine answered #VALUE! for
    each, silently. tests/calc/test_number_arguments.py."""
    edits = formula.edits()
    for index, token in enumerate(formula.tokens):
        if token.kind != OPERAND or token.sub != TEXT:
            continue
        before, after = formula.previous(index), formula.following(index)
        if not (_arithmetic(before, after=False) or _arithmetic(after, after=True)):
            continue
        typed = token.text[1:-1].replace('""', '"')
        if reading(typed) != UNSURE:
            continue
        read = number(typed)
        if isinstance(read, float):
            edits.replace(index, index + 1, repr(read) if read >= 0 else f"({read!r})")
        else:  # not settled here, or Excel's #VALUE! (a date with spaces around it)
            edits.replace(index, index + 1, f"{NAME}({token.text})")
    return edits.text()


def _arithmetic(token: Token | None, *, after: bool) -> bool:
    """Whether a token is an arithmetic operator on the operand it follows (`after`: -, %) or
    precedes (the prefix -), or between two."""
    if token is None:
        return False
    kind, text = token.kind, token.text
    return (kind == INFIX and text in _ARITHMETIC) or (not after and kind == PREFIX and text == "-") \
        or (after and kind == POSTFIX)
