"""Excel's database functions (DAVERAGE, DCOUNT, DCOUNTA, DGET, DMAX, DMIN, DPRODUCT, DSTDEV,
DSTDEVP, DSUM, DVAR, DVARP): an aggregate of one field over the records a criteria range picks.
formualizer's own (0.13) is off on 69 of the books' 506 cells below: it matches a text condition
whole, finds no label that is a number or a boolean, and lets an empty criteria row pick nothing.

The rules are Microsoft's function pages' (DSUM, DCOUNT ...: labels, field, criteria rows), read
on Excel 16's answers in IronCalc's xlsx/tests/calc_tests DATABASE_* books (506 cells), which
settle what the pages leave open:

- the database's first row holds the labels; a database of that row alone is #VALUE!;
- the field is a label, matched without regard to case against each label's text (TRUE as
  "TRUE", 1/3 as "0.333333333333333"; the first of equal labels), or a column number,
  truncated (6.5 is 6), #VALUE! outside the database; TRUE is column 1; not found: #VALUE!;
- the criteria range's first row holds labels, found in the database as the field is; each
  later row is one set of conditions, all of which a record meets, and a record counts when it
  meets any row's set; an empty condition is met by every record (so is an empty row);
- a condition is a value (a number or boolean, equal), or text: with an operator (">=2024-07-01",
  "<>a", "=Apple") a comparison as COUNTIF's (calc/xlfuncs/statistical/conditional.py), a date
  read as its serial number; without one it matches text that *begins with* it ("Berlin" counts
  "Berlino": DCOUNT_DCOUNTA!B60 is 4, DMIN_DMAX_DAVERAGE_DSUM!D60 14500; wildcards * ? ~ too);
- a condition under a label not in the database (or an empty label) meets no record when it is
  text, as the books show; that is where Excel also reads a "computed criterion" (a formula
  evaluated for each record), which a value alone cannot tell apart: a boolean, a number or an
  error there is not computed (#NAME?, which the check against Excel's cached values lists);
- DGET: no record #VALUE!, more than one #NUM!; DAVERAGE of no number #DIV/0!, DSTDEV and DVAR
  of fewer than two; DMIN, DMAX and DPRODUCT of none 0. The aggregates read numbers only
  (text, booleans and empty cells skipped); DCOUNTA counts every non-empty cell, errors too.

Cases no book shows answer #NAME? (listed, never guessed): a criteria range of one row, an
empty or omitted field (DCOUNT and DCOUNTA without a field count the records, as Microsoft
documents), a condition that is empty text or an error, DGET of a record whose field is empty,
an error among the values DSUM, DAVERAGE, DMIN ... would read (DCOUNT skips it, DCOUNTA counts
it: DCOUNT_DCOUNTA!B63, C63).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import date, time, timedelta
from functools import lru_cache

from rates_xl.calc.engines.formualizer.values import EngineError, error, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, number_text
from rates_xl.calc.xlfuncs.financial.moneymarket import NOT_COMPUTED  # #NAME?: the check lists it
from rates_xl.calc.xlfuncs.lookup.lookups import _wildcard
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.statistical import conditional
from rates_xl.calc.xlfuncs.types import Answer, EngineScalar, EngineValue
from rates_xl.errors import Internal

#: A record's test: its row of values -> whether the criteria pick it.
Test = Callable[[list[EngineScalar]], bool]


def _scalar(value: EngineScalar) -> EngineScalar:
    """A cell as the comparisons read it: a date-formatted number as its serial number."""
    if isinstance(value, date | time | timedelta):
        from rates_xl.functions.values import to_serial

        return float(to_serial(value))
    return value


def _label(value: EngineScalar) -> str | None:
    """A label as its folded text (None: an empty cell, empty text or an error, which no
    field or criteria label finds)."""
    value = _scalar(value)
    if value is None or is_error(value):
        return None
    if isinstance(value, bool):
        text = "TRUE" if value else "FALSE"
    elif isinstance(value, int | float):
        text = number_text(float(value))
    else:
        text = str(value)
    return text.lower() or None


def _column(labels: list[str | None], label: str | None) -> int | None:
    return labels.index(label) if label is not None and label in labels else None


def _field(labels: list[str | None], field: EngineValue) -> int:
    """The field's 0-based column: a label, a column number (truncated) or TRUE (column 1)."""
    if is_error(field):
        raise _Answer(field)
    if isinstance(field, list):  # a range of several cells (E1:F1): Excel's #VALUE!
        raise ExcelError("#VALUE!")
    if field is None or field == OMITTED or field == "":
        raise ExcelError(NOT_COMPUTED)
    field = _scalar(field)
    if isinstance(field, bool):
        position = 1 if field else 0
    elif isinstance(field, int | float):
        position = math.trunc(field)
    else:
        found = _column(labels, _label(field))
        if found is None:
            raise ExcelError("#VALUE!")
        return found
    if not 1 <= position <= len(labels):
        raise ExcelError("#VALUE!")
    return position - 1


@lru_cache(maxsize=1024)
def _date_serial(text: str) -> float | None:
    """Text Excel reads as a date or a time ("2024-07-01"), as its serial number; None for other
    text. Only text holding a digit is asked (the bridged `formulas` VALUE, right on dates)."""
    if not any(ch.isdigit() for ch in text):
        return None
    from rates_xl.calc.xlfuncs.bridge import bridged
    from rates_xl.calc.xlfuncs.text import value_text

    if (known := value_text.read(text)) is not None:  # a time alone, a date that is none ...
        if known == value_text.NOT_COMPUTED:
            raise _Unknown
        return known if isinstance(known, float) else None
    read = bridged("VALUE")(text)
    return float(read) if isinstance(read, int | float) and not isinstance(read, bool) else None


_OPERATOR = re.compile(r"^(<=|>=|<>|<|>|=)(.*)$", re.DOTALL)


class _Unknown(Internal):
    """A condition whose meaning no book shows: the row holding it is not computed."""


def _condition(value: EngineScalar) -> Callable[[EngineScalar], bool]:
    """One criteria cell's test of a record's value (the cell is not empty)."""
    if is_error(value) or value == "":
        raise _Unknown
    if not isinstance(value, str):
        return conditional.criterion(value)
    found = _OPERATOR.match(value)
    if found is None:
        if conditional._number(value) is None and _date_serial(value.strip()) is None:
            # Text without an operator: the text values that begin with it, case aside (the
            # books: "Berlin" counts "Berlino", DCOUNT_DCOUNTA!B60).
            pattern = _wildcard(value) if any(c in value for c in "*?~") else None
            folded = value.lower()
            if pattern is not None:
                return lambda cell: isinstance(cell, str) and pattern.match(cell) is not None
            return lambda cell: isinstance(cell, str) and cell.lower().startswith(folded)
        op, rest = "=", value
    else:
        op, rest = found.groups()
    if conditional._number(rest) is None and (serial := _date_serial(rest.strip())) is not None:
        rest = number_text(serial)  # a date typed as text compares as its serial number
    return conditional.criterion(op + rest)


def _row(columns: list[int | None], row: list[EngineScalar]) -> list[tuple[int, Callable[[EngineScalar], bool]]] | None:
    """One criteria row's tests (None: a row no record meets; an empty list: every record)."""
    tests = []
    unknown = False
    for column, cell in zip(columns, row, strict=False):
        if cell is None:
            continue
        cell = _scalar(cell)
        if column is None:
            if isinstance(cell, str) and cell != "":
                return None  # text under a label the database lacks: no record meets it
            unknown = True  # perhaps a computed criterion's value
            continue
        try:
            tests.append((column, _condition(cell)))
        except _Unknown:
            unknown = True
    if unknown:
        raise _Unknown
    return tests


def _criteria(labels: list[str | None], criteria: EngineValue) -> Test:
    """The records' test the criteria range sets (the rows OR'd, each row's conditions AND'd).
    A row whose conditions no book shows is not computed, unless an empty row (every record)
    makes the answer the same whatever it means (Q2:Q19 in the DCOUNT book)."""
    if not isinstance(criteria, list) or len(criteria) < 2:
        raise ExcelError(NOT_COMPUTED)  # a criteria range of its labels alone: no book shows it
    columns = [_column(labels, _label(cell)) for cell in criteria[0]]
    sets: list[list[tuple[int, Callable[[EngineScalar], bool]]]] = []
    unknown = False
    for row in criteria[1:]:
        try:
            tests = _row(columns, row)
        except _Unknown:
            unknown = True
            continue
        if tests == []:
            return lambda _record: True
        if tests is not None:
            sets.append(tests)
    if unknown:
        raise ExcelError(NOT_COMPUTED)

    def picks(record: list[EngineScalar]) -> bool:
        return any(all(test(record[column]) for column, test in tests) for tests in sets)
    return picks


class _Answer(Internal):
    """The answer found before the aggregate (an error argument passed on)."""

    def __init__(self, value: EngineError) -> None:
        super().__init__("an error argument")
        self.value = value


def _picked(database: EngineValue, field: EngineValue, criteria: EngineValue, counting: bool,
            rows: int) -> list[EngineScalar] | int:
    """The field's values of the records the criteria pick (the number of records for DCOUNT
    and DCOUNTA without a field). `rows`: the rows Excel reads of a database of whole columns,
    which the engine hands over cut to the used ones (calc/formula/databases.py); the records
    past them are empty, and picked alike."""
    empties = max(rows - len(database), 0) if isinstance(database, list) else 0
    if not isinstance(database, list) or len(database) + empties < 2:
        raise ExcelError("#VALUE!")  # the labels alone (or a single cell): no record
    labels = [_label(cell) for cell in database[0]]
    no_field = counting and field == OMITTED
    column = 0 if no_field else _field(labels, field)
    picks = _criteria(labels, criteria)
    out = []
    for record in database[1:]:
        values = [_scalar(cell) for cell in record]
        if picks(values):
            out.append(values[column])
    if empties and picks([None] * len(labels)):
        # Every empty record is picked: their count, or (DGET's "more than one") two of them.
        out += [None] * (empties if no_field else min(empties, 2))
    return len(out) if no_field else out


def _numbers(values: list[EngineScalar]) -> list[float]:
    return [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]


def _variance(values: list[float], sample: bool) -> float:
    """Two passes (the mean, then the squared deviations), as Excel's VAR computes."""
    n = len(values)
    if n < (2 if sample else 1):
        raise ExcelError("#DIV/0!")
    mean = sum(values) / n
    return sum((v - mean) ** 2 for v in values) / (n - 1 if sample else n)


def _product(values: list[float]) -> float:
    if not values:
        return 0.0
    out = 1.0
    for v in values:
        out *= v
    return out


def _average(values: list[float]) -> float:
    if not values:
        raise ExcelError("#DIV/0!")
    return sum(values) / len(values)


def _dget(values: list[EngineScalar]) -> EngineScalar:
    if not values:
        raise ExcelError("#VALUE!")
    if len(values) > 1:
        raise ExcelError("#NUM!")
    if values[0] is None:
        raise ExcelError(NOT_COMPUTED)  # an empty field: no book shows Excel's answer
    return values[0]


#: Function -> its aggregate of the picked field values (DGET's and the counts' of every value).
_OF_NUMBERS: dict[str, Callable[[list[float]], float]] = {
    "DSUM": sum,
    "DAVERAGE": _average,
    "DMIN": lambda v: min(v, default=0.0),
    "DMAX": lambda v: max(v, default=0.0),
    "DPRODUCT": _product,
    "DVAR": lambda v: _variance(v, True),
    "DVARP": lambda v: _variance(v, False),
    "DSTDEV": lambda v: math.sqrt(_variance(v, True)),
    "DSTDEVP": lambda v: math.sqrt(_variance(v, False)),
}
_OF_VALUES: dict[str, Callable[[list[EngineScalar]], EngineScalar]] = {
    "DGET": _dget,
    "DCOUNT": lambda v: float(len(_numbers(v))),
    "DCOUNTA": lambda v: float(sum(1 for c in v if c is not None)),
}


def _function(name: str) -> Callable[[Facts], Callback]:
    counting = name in ("DCOUNT", "DCOUNTA")

    def factory(_facts: Facts) -> Callback:
        def call(database: EngineValue, field: EngineValue = OMITTED, criteria: EngineValue = OMITTED,
                 rows: EngineValue = 0) -> Answer:
            if OMITTED in (database, criteria):
                return error(NOT_COMPUTED)
            try:
                picked = _picked(database, field, criteria, counting, int(rows) if isinstance(rows, int | float) else 0)
                if isinstance(picked, int):
                    return float(picked)
                if name in _OF_NUMBERS:
                    if any(is_error(value) for value in picked):
                        raise ExcelError(NOT_COMPUTED)  # an error among the picked values: no book shows it
                    return _OF_NUMBERS[name](_numbers(picked))
                return _OF_VALUES[name](picked)
            except _Answer as answered:
                return answered.value
            except ExcelError as failed:
                return error(failed.text)

        call.__name__ = name.lower()
        return reads_omitted(call)
    return factory


FUNCTIONS: dict[str, Callable[[Facts], Callback]] = {
    name: _function(name) for name in sorted([*_OF_NUMBERS, *_OF_VALUES])}
