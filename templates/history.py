"""Template: historical swap rates (RATES_SWAPHISTORY): one tenor's daily closes with a chart,
and a date-by-tenor grid (2Y, 5Y, 10Y, 30Y monthly over five years by default) with the
chart a rates desk draws most, each tenor a line."""

from __future__ import annotations

from xlsxwriter.utility import xl_col_to_name

from rates_xl.templates.layout import Book, service_date

NAME = "history"
TITLE = "Swap rate history"
SHEET = "History"
GRID_SHEET = "Curve history"
GRID_TENORS = ["2Y", "5Y", "10Y", "30Y"]
GRID_TOP = 24
GRID_COLOURS = ["#1F3864", "#2E75B6", "#C55A11", "#70AD47"]

INDEXES = ["SOFR", "ESTR", "SONIA", "3M EURIBOR", "6M EURIBOR", "3M SAIBOR"]
TENORS = ["1Y", "2Y", "3Y", "5Y", "7Y", "10Y", "15Y", "20Y", "30Y"]
TOP = 22
STATS_ROWS = 3000  # the statistics cover this many rows of history (about 11 years of business days)


def build(book: Book) -> None:
    s = book.sheet(SHEET, widths={"B:B": 24, "C:C": 14, "D:D": 14, "E:E": 70})
    s.title("Swap rate history", "Daily closes of a par swap rate (RATES_SWAPHISTORY), in percent.")
    s.section(4, "Inputs")
    idx = s.input(5, "Index", "SOFR", choices=book.choices("indexes", INDEXES), name="history_index")
    tenor = s.input(6, "Tenor", "10Y", choices=book.choices("tenors", TENORS))
    end = s.input(7, "End date", f"=WORKDAY({_plain('C9')},-1)", kind="date",
                  note="The last close: by default the weekday before the valuation date (a holiday has no close). "
                       "Type a date to pin it.", name="history_end")
    start = s.input(8, "Start date", f"=EDATE({_plain('C7')},-12)", kind="date",
                    note="By default one year before the end date.")
    # The service's date, not TODAY(): nothing RATES_SWAPHISTORY reads is volatile, so it is
    # not recalculated (a blocking service call) when the file opens; Refresh moves it.
    s.output(9, "Valuation date", "=" + service_date(idx), kind="date",
             note="The service's today (UTC), rolled to a business day of the index calendar, where the "
                  "index's curve starts. It moves when Refresh fetches, not when the file opens.")

    s.section(10, "Summary")
    dates = f"$B${TOP + 1}:$B${TOP + STATS_ROWS}"
    rates = f"$C${TOP + 1}:$C${TOP + STATS_ROWS}"
    count = s.output(11, "Observations", f"=COUNT({rates})", kind="int", unit="days")
    first = s.output(12, "First close", f"=$C${TOP + 1}", kind="percent", unit="percent")
    latest = s.output(13, "Latest close", f"=INDEX({rates},{count})", kind="percent", unit="percent",
                      name="history_latest")
    s.output(14, "Latest date", f"=INDEX({dates},{count})", kind="date")
    s.output(15, "Change over the period", f"=({latest}-{first})*100", kind="bp", unit="bp",
             note="Latest minus first close.", name="history_change")
    s.output(16, "Low", f"=MIN({rates})", kind="percent", unit="percent")
    s.output(17, "High", f"=MAX({rates})", kind="percent", unit="percent")
    s.output(18, "Average", f"=AVERAGE({rates})", kind="percent", unit="percent")
    s.notes(19, ["Each close is that day's par swap rate on the index's conventions; weekends and holidays "
                 "have no close. 1 bp = 0.01 %."])

    s.section(TOP - 1, "History")
    first_row, last_row = s.spill(f"B{TOP}", "history", f"=RATES_SWAPHISTORY({idx},{tenor},{start},{end})",
                                  2, 262, [book.fmt("date", "cell"), book.fmt("percent", "cell")])
    del first_row
    chart = book.wb.add_chart({"type": "line"})
    chart.add_series({"name": [SHEET, 4, 2],
                      "categories": [SHEET, TOP, 1, last_row - 1, 1],
                      "values": [SHEET, TOP, 2, last_row - 1, 2],
                      "line": {"color": "#1F3864", "width": 1.5}})
    chart.set_title({"name": "Daily close (%)", "name_font": {"size": 12}})
    chart.set_x_axis({"date_axis": True, "num_format": "mmm yy", "major_unit": 2, "major_unit_type": "months"})
    chart.set_y_axis({"name": "percent", "num_format": "0.00",
                      "major_gridlines": {"visible": True, "line": {"color": "#E7E6E6"}}})
    chart.set_legend({"none": True})
    chart.set_size({"width": 640, "height": 320})
    s.ws.insert_chart(f"E{TOP}", chart)
    build_grid(book)


def build_grid(book: Book) -> None:
    """The date-by-tenor sheet: one RATES_SWAPHISTORY grid (a range of tenors, BDH options),
    a summary per tenor and a line per tenor."""
    s = book.sheet(GRID_SHEET, widths={"B:B": 24, "C:F": 12, "G:G": 3, "H:H": 60})
    s.title("Swap curve history", "Several tenors side by side: one RATES_SWAPHISTORY grid, dates aligned on "
                                  "the index calendar (percent).")
    s.section(4, "Inputs", last="F")
    idx = s.input(5, "Index", "=history_index", choices=book.choices("indexes", INDEXES), name="grid_index")
    s.text("B6", "Tenors")
    cells = []
    for i, tenor in enumerate(GRID_TENORS):
        col = xl_col_to_name(2 + i)
        s.ws.write_string(f"{col}6", tenor, book.fmt("general", "input"))
        s.ws.data_validation(f"{col}6", {"validate": "list", "source": book.choices("tenors", TENORS),
                                         "error_title": "Tenor", "error_type": "stop",
                                         "error_message": "Pick a tenor from the list."})
        cells.append(f"{col}6")
    tenors = f"$C$6:${xl_col_to_name(1 + len(GRID_TENORS))}$6"
    end = s.input(7, "End date", "=history_end", kind="date")
    years = s.input(8, "Years", 5, kind="int", unit="years")
    start = s.input(9, "Start date", f"=EDATE({end},-12*{years})", kind="date")
    options = s.input(10, "Options", "Per=M", name="grid_options")
    s.notes(11, ["Index: by default the History sheet's. Tenors: a range of the grid's tenors, each cell one "
                 "(no blanks, no repeats). Options as Bloomberg's BDH: Per=D/W/M/Q/S/Y (periods; a period's "
                 "last close, or its average with Quote=A), Days=T/W/A (the index's business days, weekdays, "
                 "every day), Fill=P/B/NA (a day without a close: the previous close, blank, #N/A), "
                 "Sort=A/D. Empty: daily closes."], last="F")

    s.section(13, "Summary (oldest first: Sort=A)", last="F")
    head = book.fmt("general", "header")
    s.ws.write_string("B14", "Tenor", head)
    rows = [("Latest", "percent"), ("First", "percent"), ("Change (bp)", "bp"), ("Low", "percent"),
            ("High", "percent")]
    for r, (label, _) in enumerate(rows, start=15):
        s.text(f"B{r}", label)
    for i in range(len(GRID_TENORS)):
        col = xl_col_to_name(2 + i)
        s.formula(f"{col}14", f"={col}6", head)
        values = f"${col}${GRID_TOP + 1}:${col}${GRID_TOP + STATS_ROWS}"
        count = f"COUNT({values})"
        out = {"percent": book.fmt("percent", "output"), "bp": book.fmt("bp", "output")}
        s.formula(f"{col}15", f"=INDEX({values},{count})", out["percent"])
        s.formula(f"{col}16", f"=${col}${GRID_TOP + 1}", out["percent"])
        s.formula(f"{col}17", f"=({col}15-{col}16)*100", out["bp"])
        s.formula(f"{col}18", f"=MIN({values})", out["percent"])
        s.formula(f"{col}19", f"=MAX({values})", out["percent"])
    book.name("grid_change_10y", GRID_SHEET, "E17")
    s.notes(20, ["One request per tenor (each answer shared with any other cell that asks it); a tenor the "
                 "service lacks shows its message in its own column. 1 bp = 0.01 %."], last="F")

    s.section(GRID_TOP - 1, "Grid", last="F")
    cols = 1 + len(GRID_TENORS)
    formula = f"=RATES_SWAPHISTORY({idx},{tenors},{start},{end},,{options})"
    _, last_row = s.spill(f"B{GRID_TOP}", "grid", formula, cols, 2 + 12 * 5,
                          [book.fmt("date", "cell")] + [book.fmt("percent", "cell")] * len(GRID_TENORS))
    chart = book.wb.add_chart({"type": "line"})
    for i in range(len(GRID_TENORS)):
        chart.add_series({"name": [GRID_SHEET, GRID_TOP - 1, 2 + i],
                          "categories": [GRID_SHEET, GRID_TOP, 1, last_row - 1, 1],
                          "values": [GRID_SHEET, GRID_TOP, 2 + i, last_row - 1, 2 + i],
                          "line": {"color": GRID_COLOURS[i % len(GRID_COLOURS)], "width": 1.75},
                          "marker": {"type": "none"}})
    chart.set_title({"name": "Swap rates by tenor (%)", "name_font": {"size": 12}})
    chart.set_x_axis({"date_axis": True, "num_format": "mmm yy", "major_unit": 6, "major_unit_type": "months"})
    chart.set_y_axis({"name": "percent", "num_format": "0.00",
                      "major_gridlines": {"visible": True, "line": {"color": "#E7E6E6"}}})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 720, "height": 400})
    s.ws.insert_chart("H4", chart)


def _plain(cell: str) -> str:
    return f"${cell[0]}${cell[1:]}"
