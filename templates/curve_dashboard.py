"""Template: three swap curves side by side (RATES_SWAPCURVE), a chart, 2s10s and 5s30s."""

from __future__ import annotations

from rates_xl.functions.sheet import column_letters, column_number
from rates_xl.templates.layout import Book, tenor_in_years

NAME = "curve_dashboard"
TITLE = "Curve dashboard"
SHEET = "Curves"

INDEXES = ["SOFR", "ESTR", "3M EURIBOR", "6M EURIBOR", "SONIA", "3M SAIBOR"]
DEFAULTS = ["SOFR", "ESTR", "3M EURIBOR"]
CURVE_COLUMNS = ["B", "F", "J"]  # each curve: Tenor, Rate, Years
CURVE_TOP = 24
MAX_ROWS = 40  # tenors per curve the formulas below a curve cover


def build(book: Book) -> None:
    s = book.sheet(SHEET, widths={"B:B": 24, "C:E": 14, "F:L": 11})
    s.title("Curve dashboard: swap curves side by side",
            "Par swap rates over each index's quoted tenors (RATES_SWAPCURVE), in percent; slopes in basis points.")
    s.section(4, "Inputs")
    vt = s.input(5, "Valuation time", None, kind="datetime", unit="UTC", note="Empty: now.")
    indexes = [s.input(6 + i, f"Curve {i + 1}", name, choices=book.choices("indexes", INDEXES))
               for i, name in enumerate(DEFAULTS)]

    # -- slopes: label column B, one column per curve ---------------------------------------------
    s.section(11, "Slopes", "B", "E")
    s.text("B12", "", "header")
    for i, cell in enumerate(indexes):
        s.formula(f"{'CDE'[i]}12", f"={cell}", book.fmt("general", "header"))
    rows = [("2Y rate", "2Y", "percent", "percent"), ("10Y rate", "10Y", "percent", "percent"),
            ("2s10s", ("10Y", "2Y"), "bp", "bp"), ("5Y rate", "5Y", "percent", "percent"),
            ("30Y rate", "30Y", "percent", "percent"), ("5s30s", ("30Y", "5Y"), "bp", "bp")]
    where = {}
    for n, (label, tenors, kind, unit) in enumerate(rows):
        row = 13 + n
        s.text(f"B{row}", f"{label} ({'bp' if unit == 'bp' else '%'})")
        for i, col in enumerate(CURVE_COLUMNS):
            table = _range(col, CURVE_TOP + 1, CURVE_TOP + MAX_ROWS, width=2)
            cell = f"{'CDE'[i]}{row}"
            if isinstance(tenors, str):
                formula = f'=VLOOKUP("{tenors}",{table},2,FALSE)'
                where[(tenors, i)] = cell
            else:
                long, short = tenors
                formula = f"=({where[(long, i)]}-{where[(short, i)]})*100"
            s.formula(cell, formula, book.fmt(kind, "output"))
    book.name("sofr_10y", SHEET, "C14")
    book.name("slope_2s10s", SHEET, "C15")
    book.name("slope_5s30s", SHEET, "C18")
    s.notes(19, [
        "2s10s is the 10Y rate minus the 2Y rate, 5s30s the 30Y minus the 5Y, in basis points (1 bp = 0.01 %): "
        "positive means an upward-sloping curve.",
        "Rates are par swap rates for spot-starting swaps on each index's market conventions; the Years column "
        "turns each tenor into years for the chart (months / 12, weeks x 7 / 365).",
    ])

    # -- the curves ------------------------------------------------------------------------------
    chart = book.wb.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
    colours = ["#1F3864", "#C00000", "#548235"]
    for i, col in enumerate(CURVE_COLUMNS):
        rate_col = _shift(col, 1)
        years_col = _shift(col, 2)
        s.formula(f"{col}{CURVE_TOP - 1}", f'={indexes[i]}&" swap curve"', book.fmt("general", "section"))
        s.ws.write_blank(f"{rate_col}{CURVE_TOP - 1}", None, book.fmt("general", "section"))
        s.ws.write_blank(f"{years_col}{CURVE_TOP - 1}", None, book.fmt("general", "section"))
        first, last = s.spill(f"{col}{CURVE_TOP}", f"curve{i + 1}", f"=RATES_SWAPCURVE({indexes[i]},{vt})",
                              2, 27, [book.fmt("text", "cell", align="center"), book.fmt("percent", "cell")])
        s.text(f"{years_col}{CURVE_TOP}", "Years", "header")
        tenors = f"{col}{CURVE_TOP + 1}:{col}{CURVE_TOP + MAX_ROWS}"
        s.column(years_col, CURVE_TOP + 1, MAX_ROWS,
                 f'=IF({tenors}="","",{tenor_in_years(tenors)})', book.fmt("years", "cell"),
                 styled_rows=book.shape(f"curve{i + 1}", 27) - 1)
        data_last = last  # the header is row `first`
        chart.add_series({
            "name": [SHEET, 6 + i - 1, 2],
            "categories": [SHEET, first, _col(years_col), data_last - 1, _col(years_col)],
            "values": [SHEET, first, _col(rate_col), data_last - 1, _col(rate_col)],
            "line": {"color": colours[i], "width": 1.75},
            "marker": {"type": "circle", "size": 4, "fill": {"color": colours[i]}, "border": {"color": colours[i]}},
        })
    chart.set_title({"name": "Par swap rates by tenor", "name_font": {"size": 12}})
    chart.set_x_axis({"name": "Tenor (years)", "min": 0, "max": 50, "major_unit": 5,
                      "major_gridlines": {"visible": True, "line": {"color": "#E7E6E6"}}})
    chart.set_y_axis({"name": "Swap rate (%)", "num_format": "0.00",
                      "major_gridlines": {"visible": True, "line": {"color": "#E7E6E6"}}})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 620, "height": 330})
    s.ws.insert_chart("G4", chart)


def _col(letters: str) -> int:
    """XlsxWriter's 0-based column index."""
    return column_number(letters) - 1


def _shift(col: str, by: int) -> str:
    return column_letters(column_number(col) + by)


def _range(col: str, first: int, last: int, width: int = 1) -> str:
    return f"${col}${first}:${_shift(col, width - 1)}${last}"
