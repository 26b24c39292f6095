"""What every template shares: styles, labelled inputs and outputs, drop-downs, spills.

A template module has `NAME`, `TITLE` and `build(book)`; it lays its sheets out with the
helpers here and never touches XlsxWriter formats directly, so all templates look alike:

* inputs: blue text on pale yellow, a drop-down where the values form a list (fed by the
  hidden `Lists` sheet), the unit beside, a note saying what the value means;
* outputs: bold, boxed, number format by unit (percent values are the service's percent
  numbers, 3.5 meaning 3.5 %, labelled so);
* spills: RATES_* curves written with `write_dynamic_array_formula` over the range their
  real answer fills. `Book.shapes` carries those sizes and `Book.cached` the values from
  a calculation against the sandbox (see `build.py`), so the files open showing numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import xlsxwriter
from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell

from rates_xl.functions.sheet import Area, address, column_letters, column_number, parse_cell
from rates_xl.functions.values import CLASSIC_ERRORS

LISTS_SHEET = "Lists"

# One palette for all templates.
NAVY = "#1F3864"
INPUT_FILL = "#FFF2CC"
INPUT_FONT = "#0000CC"
OUTPUT_FILL = "#E2EFDA"
HEADER_FILL = "#D9E1F2"
NOTE_FONT = "#595959"
#: Column-width units one character of a note takes (10-point italic Calibri, with margin):
#: how wrapped notes size their rows.
NOTE_CHAR_WIDTH = 1.1
BORDER = "#A6A6A6"

NUMBER_FORMATS = {
    "text": "@",
    "general": "General",
    "percent": "0.0000",  # the service's percent numbers: 3.5 means 3.5 %
    "decimal": "0.000000",  # government yields: 0.0347 means 3.47 %
    "bp": "0.00",
    "money": "#,##0.00;[Red]-#,##0.00",
    "amount": "#,##0;[Red]-#,##0",
    "df": "0.00000000",
    "fx": "0.000000",
    "pips": "0.00",
    "date": "yyyy-mm-dd",
    "datetime": "yyyy-mm-dd hh:mm",
    "years": "0.0000",
    "int": "0",
}


@dataclass
class Spill:
    sheet: str
    anchor: str  # "B32"
    key: str  # the name under which `Book.shapes` records its row count
    rows: int
    cols: int


#: Excel 365's calculation engine id (calcPr calcId): no "older version" recalculation on open.
CALC_ENGINE_ID = 191029


@dataclass
class Book:
    """One template workbook being written."""

    path: Any  # file name or BytesIO
    shapes: dict[str, int] = field(default_factory=dict)  # spill key -> rows (header included)
    cached: dict[tuple[str, str], Any] = field(default_factory=dict)  # (sheet, cell) -> value
    lists: dict[str, list[Any]] = field(default_factory=dict)
    spills: list[Spill] = field(default_factory=list)
    #: A build's draft, whose formula cells hold placeholders ("") rather than answers: it
    #: says so (fullCalcOnLoad), so a calculation recomputes every cell and trusts none.
    draft: bool = False

    def __post_init__(self) -> None:
        self.wb = xlsxwriter.Workbook(self.path, {"default_date_format": NUMBER_FORMATS["date"]})
        # Open showing the stored values, without a recalculation: XlsxWriter asks for a full
        # one on load by default (a serial recalculation of every RATES_ cell would freeze
        # Excel before the user asked for anything), and a file stamped with an older
        # calculation engine than Excel's own is fully recalculated too. The Refresh buttons
        # fetch. `calc_on_load` is XlsxWriter's attribute behind fullCalcOnLoad; the tests read
        # calcPr back from every shipped template.
        self.wb.calc_on_load = self.draft
        self.wb.set_calc_mode("auto", calc_id=CALC_ENGINE_ID)
        self._formats: dict[tuple, Any] = {}
        self._tables: list[tuple[str, list[str], list[list[Any]]]] = []

    # -- formats ---------------------------------------------------------------------------
    def fmt(self, kind: str = "general", role: str = "plain", **extra: Any) -> Any:
        key = (kind, role, tuple(sorted(extra.items())))
        if key not in self._formats:
            props: dict[str, Any] = {"num_format": NUMBER_FORMATS.get(kind, kind), "font_name": "Calibri",
                                     "font_size": 10, "valign": "vcenter"}
            if role == "input":
                props.update(bg_color=INPUT_FILL, font_color=INPUT_FONT, border=1, border_color=BORDER)
            elif role == "output":
                props.update(bg_color=OUTPUT_FILL, bold=True, border=1, border_color=BORDER)
            elif role == "header":
                props.update(bg_color=HEADER_FILL, bold=True, border=1, border_color=BORDER,
                             text_wrap=True, align="center")
            elif role == "cell":
                props.update(border=1, border_color="#D9D9D9")
            elif role == "label":
                props.update(bold=False)
            elif role == "unit":
                props.update(font_color=NOTE_FONT, italic=True)
            elif role == "note":  # one line, running on over the empty cells to its right
                props.update(font_color=NOTE_FONT, italic=True)
            elif role == "notes":  # a wrapped block in merged cells
                props.update(font_color=NOTE_FONT, italic=True, text_wrap=True, valign="top")
            elif role == "title":
                props.update(bold=True, font_size=16, font_color=NAVY)
            elif role == "subtitle":
                props.update(font_color=NOTE_FONT, italic=True)
            elif role == "section":
                props.update(bold=True, font_size=11, font_color="#FFFFFF", bg_color=NAVY)
            props.update(extra)
            self._formats[key] = self.wb.add_format(props)
        return self._formats[key]

    # -- lists and names -------------------------------------------------------------------
    def choices(self, name: str, values: Sequence[Any]) -> str:
        """A named list on the hidden Lists sheet; returns the source for a drop-down."""
        if name not in self.lists:
            self.lists[name] = list(values)
        return f"=list_{name}"

    def table(self, name: str, headers: list[str], rows: list[list[Any]]) -> str:
        """A lookup table on the Lists sheet (header row first), named `name`."""
        self._tables.append((name, headers, rows))
        return name

    def name(self, name: str, sheet: str, cell: str) -> None:
        row, col = parse_cell(cell)
        self.wb.define_name(name, f"={address(sheet, Area.cell(row, col).a1(absolute=True))}")

    def sheet(self, name: str, *, widths: dict[str, float] | None = None) -> Sheet:
        ws = self.wb.add_worksheet(name)
        ws.hide_gridlines(2)
        ws.set_column("A:A", 2)
        # Printing (and the review renders): landscape A4, one page wide.
        ws.set_landscape()
        ws.set_paper(9)
        ws.fit_to_pages(1, 0)
        ws.set_margins(left=0.4, right=0.4, top=0.5, bottom=0.5)
        sheet = Sheet(self, ws, name)
        for cols, width in (widths or {}).items():
            ws.set_column(cols, width)
            first, _, last = cols.partition(":")
            for n in range(column_number(first) - 1, column_number(last or first)):
                sheet.widths[n] = width
        return sheet

    def shape(self, key: str, default: int) -> int:
        return self.shapes.get(key, default)

    def close(self) -> None:
        self._write_lists()
        self.wb.close()

    def _write_lists(self) -> None:
        ws = self.wb.add_worksheet(LISTS_SHEET)
        head = self.fmt("general", "header")
        ws.write(0, 0, "Lists behind the drop-downs and lookups of this workbook (kept hidden).",
                 self.fmt("general", "subtitle"))
        col = 0
        for name, values in self.lists.items():
            ws.write(1, col, name, head)
            for i, v in enumerate(values):
                _write_value(ws, 2 + i, col, v, self.fmt("date") if _is_date(v) else None)
            self.wb.define_name(f"list_{name}", f"={LISTS_SHEET}!${xl_col_to_name(col)}$3:"
                                                f"${xl_col_to_name(col)}${2 + len(values)}")
            ws.set_column(col, col, 14)
            col += 1
        for name, headers, rows in self._tables:
            col += 1
            for j, h in enumerate(headers):
                ws.write(1, col + j, h, head)
                ws.set_column(col + j, col + j, 14)
            for i, row in enumerate(rows):
                for j, v in enumerate(row):
                    _write_value(ws, 2 + i, col + j, v, self.fmt("date") if _is_date(v) else None)
            last = max(len(rows), 1) + 2
            self.wb.define_name(name, f"={LISTS_SHEET}!${xl_col_to_name(col)}$3:"
                                      f"${xl_col_to_name(col + len(headers) - 1)}${last}")
            self.wb.define_name(f"{name}_head", f"={LISTS_SHEET}!${xl_col_to_name(col)}$2:"
                                                f"${xl_col_to_name(col + len(headers) - 1)}$2")
            col += len(headers)
        ws.hide()


class Sheet:
    """A worksheet with the template helpers. Rows and columns are Excel's (1-based rows)."""

    def __init__(self, book: Book, ws: Any, name: str) -> None:
        self.book, self.ws, self.name = book, ws, name
        self.widths: dict[int, float] = {0: 2}  # column index -> width in characters

    # -- text ---------------------------------------------------------------------------------
    def title(self, text: str, subtitle: str = "", width: int = 6) -> None:
        self.ws.set_row(0, 26)
        self.ws.write("B1", text, self.book.fmt("general", "title"))
        if subtitle:
            self.ws.write("B2", subtitle, self.book.fmt("general", "subtitle"))

    def section(self, row: int, text: str, first: str = "B", last: str = "E") -> None:
        self.ws.merge_range(f"{first}{row}:{last}{row}", text, self.book.fmt("general", "section"))

    def text(self, cell: str, text: str, role: str = "label", kind: str = "general") -> None:
        self.ws.write_string(cell, text, self.book.fmt(kind, role))

    def note(self, cell: str, text: str) -> None:
        """A note on one line, running on over the empty cells to its right; one longer than
        the room left up to the sheet's last sized column wraps there instead, or the printed
        page (fit to that width) would cut it off."""
        row, first = parse_cell(cell)
        first -= 1  # XlsxWriter counts columns from 0
        room = sum(self.widths.get(n, 8.43) for n in range(first, max([first, *self.widths]) + 1))
        lines = int(-(-len(text) * NOTE_CHAR_WIDTH // max(room, 1)))
        if lines <= 1:
            self.ws.write_string(cell, text, self.book.fmt("general", "note"))
            return
        if first != max(self.widths):  # merge across the room, so the wrap uses all of it
            last = column_letters(max(self.widths) + 1)
            self.ws.merge_range(f"{cell}:{last}{row}", text, self.book.fmt("general", "notes"))
        else:
            self.ws.write_string(cell, text, self.book.fmt("general", "notes"))
        # Rows do not grow with wrapped text in every reader: size it for the lines.
        self.ws.set_row(row - 1, 14 * lines)

    def notes(self, row: int, lines: Iterable[str], col: str = "B", last: str = "E") -> int:
        """A block of notes, one merged row each; returns the next free row."""
        width = sum(self.widths.get(n, 8.43) for n in range(column_number(col) - 1, column_number(last)))
        for line in lines:
            self.ws.merge_range(f"{col}{row}:{last}{row}", line, self.book.fmt("general", "notes"))
            # Merged cells do not grow with their text: size the row for the wrapped lines.
            lines_needed = -(-len(line) * NOTE_CHAR_WIDTH // max(width, 1))
            self.ws.set_row(row - 1, 14 * max(1, int(lines_needed)))
            row += 1
        return row

    # -- inputs and outputs ---------------------------------------------------------------
    def input(self, row: int, label: str, value: Any, *, kind: str = "general", unit: str = "",
              note: str = "", choices: str | None = None, name: str | None = None,
              col: str = "C") -> str:
        """Label in B, the value (an input) in C, the unit in D, the note in E."""
        cell = f"{col}{row}"
        self.text(f"B{row}", label)
        fmt = self.book.fmt(kind, "input")
        if value is None:
            self.ws.write_blank(cell, None, fmt)
        elif isinstance(value, str) and value.startswith("="):
            self.formula(cell, value, fmt)
        else:
            _write_value(self.ws, row - 1, column_number(col) - 1, value, fmt)
        if choices:
            self.ws.data_validation(cell, {"validate": "list", "source": choices,
                                           "error_title": label, "error_type": "stop",
                                           "error_message": "Pick a value from the list."})
        return self._annotate(row, col, unit, note, name)

    def output(self, row: int, label: str, formula: str, *, kind: str = "general", unit: str = "",
               note: str = "", name: str | None = None, col: str = "C") -> str:
        cell = f"{col}{row}"
        self.text(f"B{row}", label)
        self.formula(cell, formula, self.book.fmt(kind, "output"))
        return self._annotate(row, col, unit, note, name)

    def _annotate(self, row: int, col: str, unit: str, note: str, name: str | None) -> str:
        """The unit (column D), the note (column E) and the defined name of a labelled cell;
        returns its absolute address."""
        if unit:
            self.text(f"D{row}", unit, "unit")
        if note:
            self.note(f"E{row}", note)
        if name:
            self.book.name(name, self.name, f"{col}{row}")
        return f"${col}${row}"

    def formula(self, cell: str, formula: str, fmt: Any = None) -> None:
        cached = self.book.cached.get((self.name, cell.replace("$", "")))
        if cached is None:
            cached = ""  # never "0": a file opened without recalculation shows no false number
        self.ws.write_formula(cell, formula, fmt, cached)

    def row_formulas(self, first_row: int, count: int, columns: dict[str, tuple[str, Any]],
                     styled_rows: int | None = None) -> None:
        """Per-row formulas: `columns` maps a column letter to (template, format); `{r}` in
        the template is the row number, `{p}` the row above, `{n}` the row below."""
        for r in range(first_row, first_row + count):
            for col, (template, fmt) in columns.items():
                if styled_rows is not None and r - first_row >= styled_rows:
                    fmt = self.book.fmt("general")
                self.formula(f"{col}{r}", template.format(r=r, p=r - 1, n=r + 1), fmt)

    # -- spills -----------------------------------------------------------------------------
    def spill(self, anchor: str, key: str | None, formula: str, cols: int, default_rows: int,
              col_formats: Sequence[Any], *, header: bool | None = None,
              styled_rows: int | None = None) -> tuple[int, int]:
        """A dynamic-array formula over its real shape; returns (first row, last row).

        `key` names a RATES_* spill whose row count a build measures; None: a fixed-size
        array formula (a column computed over a block of rows).
        """
        rows = self.book.shape(key, default_rows) if key else default_rows
        header = bool(key) if header is None else header  # RATES_* tables start with a header row
        styled = rows if styled_rows is None else styled_rows
        plain = self.book.fmt("general")
        row0, col0 = (n - 1 for n in parse_cell(anchor))  # XlsxWriter counts from 0

        def fmt_of(i: int, j: int) -> Any:
            if header and i == 0:
                return self.book.fmt("general", "header")
            return col_formats[j] if i < styled else plain

        first_value = self.book.cached.get((self.name, anchor), "")
        self.ws.write_dynamic_array_formula(row0, col0, row0 + rows - 1, col0 + cols - 1, formula,
                                            fmt_of(0, 0), first_value if first_value is not None else "")
        for i in range(rows):
            for j in range(cols):
                if i == 0 and j == 0:
                    continue
                value = self.book.cached.get((self.name, xl_rowcol_to_cell(row0 + i, col0 + j)))
                fmt = fmt_of(i, j)
                if value is None:
                    self.ws.write_blank(row0 + i, col0 + j, None, fmt)
                else:
                    _write_value(self.ws, row0 + i, col0 + j, value, fmt)
        if key:
            self.book.spills.append(Spill(self.name, anchor, key, rows, cols))
        return row0 + 1, row0 + rows

    def column(self, col: str, first_row: int, rows: int, formula: str, fmt: Any,
               styled_rows: int | None = None) -> None:
        """One array formula computing a whole column of a table (one formula, not one per row:
        the headless engine loads and computes it far faster). Only the first `styled_rows`
        rows get `fmt` (borders), so unused rows print blank."""
        self.spill(f"{col}{first_row}", None, formula, 1, rows, [fmt], styled_rows=styled_rows)


def _write_value(ws: Any, row: int, col: int, value: Any, fmt: Any = None) -> None:
    if isinstance(value, bool):
        ws.write_boolean(row, col, value, fmt)
    elif isinstance(value, int | float):
        ws.write_number(row, col, value, fmt)
    elif _is_date(value):
        ws.write_datetime(row, col, value, fmt)
    elif isinstance(value, str) and value in CLASSIC_ERRORS:
        ws.write_formula(row, col, f"={value}", fmt, value)
    else:
        ws.write_string(row, col, str(value), fmt)


def _is_date(value: Any) -> bool:
    from datetime import date

    return isinstance(value, date)


# -- formula snippets shared by templates --------------------------------------------------------
def year_fraction(day_count: str, d1: str, d2: str) -> str:
    """Excel formula for the year fraction from d1 to d2 under the day count named in a cell.

    Matches QuantLib: Actual360, Actual365Fixed, Thirty360BondBasis (ISDA 30/360: a 31st
    start becomes the 30th; a 31st end becomes the 30th only when the start is the 30th or
    31st) and Thirty360EurobondBasis (every 31st becomes the 30th).
    """
    # Element-wise only (IF, *, comparisons; no AND or MIN), so it also works on whole columns;
    # blanks become 0 first, since one blank makes the engine's DAY() fail for the whole column.
    d1, d2 = f"IF(ISNUMBER({d1}),{d1},0)", f"IF(ISNUMBER({d2}),{d2},0)"
    dd1 = f"IF(DAY({d1})=31,30,DAY({d1}))"
    thirty = f"360*(YEAR({d2})-YEAR({d1}))+30*(MONTH({d2})-MONTH({d1}))"
    bond = f"({thirty}+IF((DAY({d2})=31)*({dd1}=30),30,DAY({d2}))-{dd1})/360"
    euro = f"({thirty}+IF(DAY({d2})=31,30,DAY({d2}))-{dd1})/360"
    return (f'IF({day_count}="Actual360",({d2}-{d1})/360,IF({day_count}="Actual365Fixed",({d2}-{d1})/365,'
            f'IF({day_count}="Thirty360BondBasis",{bond},IF({day_count}="Thirty360EurobondBasis",{euro},NA()))))')


def tenor_in_years(cell: str) -> str:
    """Excel formula: a tenor like 18M or 10Y in years (weeks and days on Act/365)."""
    n = f"VALUE(LEFT({cell},LEN({cell})-1))"
    unit = f"RIGHT({cell},1)"
    return f'IF({unit}="Y",{n},IF({unit}="M",{n}/12,IF({unit}="W",{n}*7/365,{n}/365)))'


def service_date(index: str, tenor: str = '"0D"', valuation_time: str = "") -> str:
    """Excel formula: the date the service resolves a start `tenor` (a formula: '"0D"', a
    cell) to for `index` (a cell or a quoted name), as of `valuation_time` (a cell; empty:
    now, as the service counts it).

    It is the first date of the index's discount curve from that start: "0D" is the valuation
    date rolled to a business day of the index calendar, "1D" the first business day after
    the valuation date, "2D" the second (see README, "Dates and tenors"). A service answer,
    not TODAY(): no volatile function, so the cell is not recalculated when the workbook
    opens (each RATES_ cell recalculated on open is a blocking service call); it moves when
    Refresh fetches.
    """
    return f'INDEX(RATES_DISCOUNTCURVE({index},{tenor},"1D","1D",,{valuation_time},FALSE),1,1)'


def valuation_date(cell: str, service: str) -> str:
    """Excel formula: the valuation date of a valuation-time input; empty: `service`, the
    service's own valuation date (a `service_date(..., "0D", cell)` cell), never TODAY()."""
    return (f'IF({cell}="",{service},IF(ISNUMBER({cell}),INT({cell}),DATEVALUE(LEFT({cell},10))))')
