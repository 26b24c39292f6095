"""GROUPBY and PIVOTBY as Excel computes them (Microsoft's documentation of both, checked
cell by cell against Excel's answers in ../shared/corpus/excel/formulas_test.xlsx).

formualizer does not know either. The engine's copy of the formula has the function argument
as text (the pass grouping_function, calc/formula/lambdas.py: "SUM" for `_xleta.SUM`, or a LAMBDA's text); the aggregations
are in `aggregations.py`.

Layout (what Excel spills): the row fields' labels on the left, one column per value column
(PIVOTBY: per column group and value column), totals as `total_depth` says (1: a grand total
after the groups, 2+: subtotals of the upper levels too, negative: before them; the label is
"Total", or "Grand Total" when there are subtotals); groups sorted ascending by their label
at every level unless `sort_order` says otherwise (a field's 1-based column, negative for
descending; a number past the fields sorts the lowest level by that value column).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rates_xl.calc.engines.formualizer.values import EngineError, error, error_text, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, Facts
from rates_xl.calc.xlfuncs.lookup.aggregations import AGGREGATIONS, aggregate, is_lambda, text
from rates_xl.calc.xlfuncs.types import EngineScalar, EngineValue, Rows, SortKey
from rates_xl.errors import Internal


class _Refused(Internal):
    """The arguments are ones Excel refuses: the result is this error."""

    def __init__(self, text: str = "#VALUE!") -> None:
        super().__init__(text)
        self.text = text


# -- arguments ---------------------------------------------------------------------------------
def _grid(value: EngineValue) -> Rows:
    if isinstance(value, list):
        rows = [row if isinstance(row, list) else [row] for row in value]
        return [[None if v == "" else v for v in row] for row in rows]
    return [[value]]


def _integer(value: EngineValue, default: int) -> int:
    if value is None:
        return default
    if is_error(value):
        raise _Refused(_error_text(value))
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return int(value)
    raise _Refused()


def _error_text(value: EngineError) -> str:
    return error_text(value)


def _function_name(function: EngineValue) -> str:
    if is_error(function):
        raise _Refused(_error_text(function))  # a cell holding an error: it is the answer
    if isinstance(function, str):
        if is_lambda(function):
            return function
        name = function.upper().removeprefix("_XLFN.")
        if name in AGGREGATIONS or name == "PERCENTOF":
            return name
    raise _Refused()  # a LAMBDA, a cell's value, an aggregation we do not know


def _sort_specs(value: EngineValue) -> list[int]:
    if value is None:
        return []
    specs = [_integer(v, 1) for row in _grid(value) for v in row if v is not None]
    if any(s == 0 for s in specs):
        raise _Refused()
    return specs


@dataclass
class _Table:
    """The rows that remain after headers and the filter, and what the headers say."""

    fields: Rows  # per data row, the field values
    values: Rows  # per data row, the value columns
    field_names: list[EngineScalar]
    value_names: list[EngineScalar]
    show_headers: bool


def _headers_mode(value: EngineValue, values: Rows) -> int:
    if value is not None:
        mode = _integer(value, 0)
        if mode not in (0, 1, 2, 3):
            raise _Refused()
        return mode
    # Automatic: a header row is assumed when the values' first row is text and the second a
    # number; it is then left out of the groups and not shown.
    if len(values) >= 2 and all(isinstance(v, str) for v in values[0]) and \
            any(isinstance(v, int | float) and not isinstance(v, bool) for v in values[1]):
        return 1
    return 0


def _table(fields: Rows, values: Rows, headers: EngineValue, filter_array: EngineValue,
           generated: str) -> _Table:
    if len(fields) != len(values):
        raise _Refused()
    mode = _headers_mode(headers, values)
    has_headers = mode in (1, 3)
    field_names: list[EngineScalar] = list(fields[0]) if has_headers else [
        f"{generated} {i + 1}" for i in range(len(fields[0]))]
    value_names: list[EngineScalar] = list(values[0]) if has_headers else [
        f"Value {i + 1}" if len(values[0]) > 1 else "Value" for i in range(len(values[0]))]
    start = 1 if has_headers else 0
    keep = list(range(start, len(values)))
    if filter_array is not None:
        mask = _grid(filter_array)
        if len(mask) != len(values):
            raise _Refused()
        chosen = []
        for i in keep:
            flag = mask[i][0]  # a filter of several columns: Excel reads its first
            if is_error(flag):
                raise _Refused(_error_text(flag))
            if isinstance(flag, str):
                raise _Refused()
            if flag:
                chosen.append(i)
        keep = chosen
    if not keep:
        raise _Refused("#CALC!")
    return _Table([fields[i] for i in keep], [values[i] for i in keep], field_names, value_names,
                  mode in (2, 3))


# -- grouping ----------------------------------------------------------------------------------
def _label_key(value: EngineScalar) -> SortKey:
    """Excel's sort order: numbers, text (without regard to case), booleans, blanks."""
    if value is None:
        return 3, 0
    if isinstance(value, bool):
        return 2, value
    if isinstance(value, int | float):
        return 0, float(value)
    if is_error(value):
        return 4, str(value.get("kind"))
    return 1, str(value).casefold()


@dataclass
class _Group:
    labels: tuple[EngineScalar, ...]  # the labels of this group and its parents
    rows: list[int]
    children: list[_Group] = field(default_factory=list)


@dataclass
class _Line:
    """One row (or, for PIVOTBY's columns, one column) of the output."""

    labels: list[EngineScalar]  # one per field: the group's labels, blanks below it, or the total's
    rows: list[int]
    parent: list[int]  # the rows of the enclosing group (PERCENTOF relative to the parent)


def _tree(fields: Rows, rows: list[int], level: int, depth: int,
          labels: tuple[EngineScalar, ...] = ()) -> list[_Group]:
    by_key: dict[SortKey, _Group] = {}
    for i in rows:
        value = fields[i][level]
        k = _label_key(value)
        if k not in by_key:
            by_key[k] = _Group(labels + (value,), [])
        by_key[k].rows.append(i)
    groups = list(by_key.values())
    if level + 1 < depth:
        for g in groups:
            g.children = _tree(fields, g.rows, level + 1, depth, g.labels)
    return groups


def _order(groups: list[_Group], level: int, depth: int, specs: list[int], n_fields: int,
           value_key: Callable[[_Group, int], EngineScalar]) -> None:
    """Sort siblings: ascending by label, then by each sort spec that concerns this level
    (its field, or a value column at the lowest level), the first spec deciding first."""
    groups.sort(key=lambda g: _label_key(g.labels[-1]))
    for spec in reversed(specs):
        column, descending = abs(spec), spec < 0
        if column == level + 1:
            groups.sort(key=lambda g: _label_key(g.labels[-1]), reverse=descending)
        elif column > n_fields and level + 1 == depth:
            groups.sort(key=lambda g: _value_order(value_key(g, column - n_fields - 1)), reverse=descending)
    for g in groups:
        if g.children:
            _order(g.children, level + 1, depth, specs, n_fields, value_key)


def _value_order(value: EngineScalar) -> SortKey:
    if is_error(value):
        return 5, 0
    return _label_key(None if value == "" else value)


def _lines(fields: Rows, n_fields: int, total_depth: int, specs: list[int],
           n_values: int, table: bool, value_key: Callable[[_Group, int], EngineScalar]) -> list[_Line]:
    """The output's rows (or columns) in order, subtotals and the grand total included."""
    if abs(total_depth) > max(n_fields, 1) or (table and abs(total_depth) > 1):
        raise _Refused()
    if any(abs(s) > n_fields + n_values for s in specs):
        raise _Refused()
    rows = list(range(len(fields)))
    if table:
        # Each distinct combination is one group (told apart by its text, case aside, as
        # `_label_key` reads a value of no Excel type); the sort compares whole combinations.
        by_key: dict[SortKey, _Group] = {}
        for i in rows:
            combination = tuple(fields[i])
            by_key.setdefault((1, str(combination).casefold()), _Group(combination, [])).rows.append(i)
        groups = list(by_key.values())
        groups.sort(key=lambda g: tuple(_label_key(v) for v in g.labels))
        for spec in reversed(specs):
            column, descending = abs(spec), spec < 0
            if column <= n_fields:
                groups.sort(key=lambda g: _label_key(g.labels[column - 1]), reverse=descending)
            else:
                groups.sort(key=lambda g: _value_order(value_key(g, column - n_fields - 1)), reverse=descending)
        depth = 1
    else:
        groups = _tree(fields, rows, 0, n_fields)
        _order(groups, 0, n_fields, specs or [1], n_fields, value_key)
        depth = n_fields
    subtotal_levels = abs(total_depth) - 1  # levels 1 .. total_depth-1 get subtotals
    before = total_depth < 0
    out: list[_Line] = []

    def blank(labels: tuple[EngineScalar, ...] | str) -> list[EngineScalar]:
        shown: list[EngineScalar] = list(labels) if isinstance(labels, tuple) else [labels]

        return shown + [""] * (n_fields - len(shown))

    def emit(group_list: list[_Group], level: int, parent: list[int]) -> None:
        for g in group_list:
            if level + 1 == depth:
                out.append(_Line(blank(g.labels), g.rows, parent))
                continue
            subtotal = level + 1 <= subtotal_levels
            line = _Line(blank(g.labels), g.rows, parent)
            if subtotal and before:
                out.append(line)
            emit(g.children, level + 1, g.rows)
            if subtotal and not before:
                out.append(line)

    emit(groups, 0, rows)
    if total_depth:
        label = "Grand Total" if abs(total_depth) > 1 else "Total"
        total = _Line(blank(label), rows, rows)
        out.insert(0, total) if before else out.append(total)
    return out


# -- the functions -----------------------------------------------------------------------------
def _values_of(table: _Table, rows: list[int], column: int) -> list[EngineScalar]:
    return [table.values[i][column] for i in rows]


def groupby(_facts: Facts) -> Callback:
    def call(row_fields: EngineValue, values: EngineValue, function: EngineValue, field_headers: EngineValue = None,
             total_depth: EngineValue = None, sort_order: EngineValue = None, filter_array: EngineValue = None,
             field_relationship: EngineValue = None) -> EngineValue:
        try:
            return _groupby(row_fields, values, function, field_headers, total_depth, sort_order,
                            filter_array, field_relationship)
        except _Refused as refused:
            return error(refused.text)

    call.__name__ = "GROUPBY"
    return call


def _groupby(row_fields: EngineValue, values: EngineValue, function: EngineValue, field_headers: EngineValue, total_depth: EngineValue,
             sort_order: EngineValue, filter_array: EngineValue, field_relationship: EngineValue) -> Rows:
    name = _function_name(function)
    table = _table(_grid(row_fields), _grid(values), field_headers, filter_array, "Row Field")
    n_fields, n_values = len(table.fields[0]), len(table.values[0])
    everything = list(range(len(table.fields)))

    def cell(rows: list[int], column: int) -> EngineScalar:
        return aggregate(name, _values_of(table, rows, column), _values_of(table, everything, column))

    lines = _lines(table.fields, n_fields, _integer(total_depth, 1), _sort_specs(sort_order), n_values,
                   _integer(field_relationship, 0) == 1, lambda g, c: cell(g.rows, c))
    out: Rows = []
    if table.show_headers:
        out.append([_shown(v) for v in table.field_names + table.value_names])
    for line in lines:
        out.append([_shown(v) for v in line.labels] + [cell(line.rows, c) for c in range(n_values)])
    return out


def pivotby(_facts: Facts) -> Callback:
    def call(row_fields: EngineValue, col_fields: EngineValue, values: EngineValue, function: EngineValue, field_headers: EngineValue = None,
             row_total_depth: EngineValue = None, row_sort_order: EngineValue = None, col_total_depth: EngineValue = None,
             col_sort_order: EngineValue = None, filter_array: EngineValue = None, relative_to: EngineValue = None) -> EngineValue:
        try:
            return _pivotby(row_fields, col_fields, values, function, field_headers, row_total_depth,
                            row_sort_order, col_total_depth, col_sort_order, filter_array, relative_to)
        except _Refused as refused:
            return error(refused.text)

    call.__name__ = "PIVOTBY"
    return call


def _pivotby(row_fields: EngineValue, col_fields: EngineValue, values: EngineValue, function: EngineValue, field_headers: EngineValue,
             row_total_depth: EngineValue, row_sort_order: EngineValue, col_total_depth: EngineValue, col_sort_order: EngineValue,
             filter_array: EngineValue, relative_to: EngineValue) -> Rows:
    name = _function_name(function)
    rows_grid, cols_grid, values_grid = _grid(row_fields), _grid(col_fields), _grid(values)
    if len(cols_grid) != len(values_grid):
        raise _Refused()
    n_row, n_col = len(rows_grid[0]), len(cols_grid[0])
    # The column fields ride along as extra fields of each row, so one filter serves both.
    joined = [r + c for r, c in zip(rows_grid, cols_grid, strict=False)]
    table = _table(joined, values_grid, field_headers, filter_array, "Field")
    row_labels = [f[:n_row] for f in table.fields]
    col_labels = [f[n_row:] for f in table.fields]
    n_values = len(table.values[0])
    relative = _integer(relative_to, 0)
    if relative not in (0, 1, 2, 3, 4):
        raise _Refused()
    everything = list(range(len(table.fields)))

    sets: dict[int, set[int]] = {}

    def members(rows: list[int]) -> set[int]:
        # One set per column group (PIVOTBY's cells intersect them with every row group).
        if id(rows) not in sets:
            sets[id(rows)] = set(rows)
        return sets[id(rows)]

    def cell(row_line: _Line, col_line: _Line, column: int) -> EngineScalar:
        rows = [i for i in row_line.rows if i in members(col_line.rows)]
        whole = None
        if name == "PERCENTOF":
            whole_rows = {0: col_line.rows, 1: row_line.rows, 2: everything,
                          3: [i for i in row_line.rows if i in members(col_line.parent)],
                          4: [i for i in row_line.parent if i in members(col_line.rows)]}[relative]
            whole = _values_of(table, whole_rows, column)
        return aggregate(name, _values_of(table, rows, column), whole)

    def total(rows: list[int], column: int) -> EngineScalar:
        whole = _values_of(table, everything, column)
        return aggregate(name, _values_of(table, rows, column), whole)

    row_lines = _lines(row_labels, n_row, _integer(row_total_depth, 1), _sort_specs(row_sort_order),
                       n_values, False, lambda g, c: total(g.rows, c))
    col_lines = _lines(col_labels, n_col, _integer(col_total_depth, 1), _sort_specs(col_sort_order),
                       n_values, False, lambda g, c: total(g.rows, c))
    width = n_row + len(col_lines) * n_values
    out: Rows = []
    if table.show_headers:
        top: list[EngineScalar] = [""] * width
        top[n_row] = ", ".join(text(v) for v in table.field_names[n_row:])
        out.append(top)
    for level in range(n_col):
        line: list[EngineScalar] = [""] * n_row
        for col_line in col_lines:
            line += [_shown(col_line.labels[level])] * n_values
        out.append(line)
    if table.show_headers:
        out.append([_shown(v) for v in table.field_names[:n_row]] +
                   [_shown(v) for _ in col_lines for v in table.value_names])
    for row_line in row_lines:
        line = [_shown(v) for v in row_line.labels]
        for col_line in col_lines:
            line += [cell(row_line, col_line, c) for c in range(n_values)]
        out.append(line)
    return out


def _shown(value: EngineScalar) -> EngineScalar:
    return "" if value is None else value
