"""Template: historical swap rates for a chosen index and tenor (RATES_SWAPHISTORY), with a chart."""

from __future__ import annotations

from rates_xl.templates.layout import Book, service_date

NAME = "history"
TITLE = "Swap rate history"
SHEET = "History"

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
                       "Type a date to pin it.")
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


def _plain(cell: str) -> str:
    return f"${cell[0]}${cell[1:]}"
