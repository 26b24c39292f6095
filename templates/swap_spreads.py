"""Template: swap spreads, the swap rate minus the government zero yield, by tenor for US, UK, DE.

Units are the trap here: RATES_SWAP answers percent (3.8 means 3.8 %), RATES_GOVYIELD a
decimal (0.0419 means 4.19 %). The sheet shows the yield as served, converts it to percent
in its own column, and only then subtracts.
"""

from __future__ import annotations

from rates_xl.functions.sheet import Area, column_letters, parse_cell
from rates_xl.templates.layout import Book

NAME = "swap_spreads"
TITLE = "Swap spreads"
SHEET = "Spreads"

TENORS = ["2Y", "3Y", "5Y", "7Y", "10Y", "15Y", "20Y", "30Y"]
INDEXES = ["SOFR", "SONIA", "ESTR", "6M EURIBOR", "3M EURIBOR"]
# Country, swap index, start (spot for that market), fixed leg frequency.
MARKETS = [("US", "SOFR", "2D", "1Y"), ("UK", "SONIA", "0D", "1Y"), ("DE", "6M EURIBOR", "2D", "1Y")]
TABLE_TOP = 16
BLOCK = 4  # columns per country: yield as served, yield %, swap %, spread bp


def build(book: Book) -> None:
    s = book.sheet(SHEET, widths={"B:B": 22, "C:N": 12})
    s.title("Swap spreads: swap rate minus government zero yield",
            "RATES_SWAP (percent) against RATES_GOVYIELD (decimal, converted to percent); spreads in basis points.")
    s.section(4, "Inputs", "B", "N")
    vt = s.input(5, "Valuation time", None, kind="datetime", unit="UTC", note="Empty: now.")
    heads = ["Country", "Swap index", "Swap start", "Fixed frequency"]
    for j, head in enumerate(heads):
        s.ws.write(6, 1 + j, head, book.fmt("general", "header"))
    s.ws.set_row(6, 28)
    cells = []
    for i, (country, index, start, freq) in enumerate(MARKETS):
        r = 8 + i
        s.ws.write_string(f"B{r}", country, book.fmt("text", "cell", align="center"))
        idx = _input(s, book, f"C{r}", index, book.choices("indexes", INDEXES))
        st = _input(s, book, f"D{r}", start)
        fq = _input(s, book, f"E{r}", freq, book.choices("frequencies", ["3M", "6M", "1Y"]))
        cells.append((f"$B${r}", idx, st, fq))
    s.notes(12, last="N", lines=[
        "Swap rates are par rates of spot-starting swaps on the index's conventions; government yields are zero-"
        "coupon yields (semi-annual compounding) for the same tenor from the valuation date.",
        "Spread (bp) = (swap rate % - government yield % ) x 100. Positive: swaps yield more than government bonds.",
    ])

    top = TABLE_TOP
    s.ws.write(top - 1, 1, "Tenor", book.fmt("general", "header"))
    s.ws.set_row(top - 1, 30)
    for i, (country, *_rest) in enumerate(MARKETS):
        first_col = 2 + i * BLOCK
        s.ws.merge_range(top - 2, first_col, top - 2, first_col + BLOCK - 1, country, book.fmt("general", "section"))
        for j, head in enumerate(["Gov yield (decimal)", "Gov yield (%)", "Swap rate (%)", "Spread (bp)"]):
            s.ws.write(top - 1, first_col + j, head, book.fmt("general", "header"))
    for n, tenor in enumerate(TENORS):
        r = top + 1 + n
        s.ws.write_string(f"B{r}", tenor, book.fmt("text", "cell", align="center"))
        for i, (country_cell, idx, start, freq) in enumerate(cells):
            c0 = 2 + i * BLOCK
            raw, pct, swap, spread = (_letter(c0 + k) for k in range(BLOCK))
            s.formula(f"{raw}{r}", f"=RATES_GOVYIELD({country_cell},$B{r},,{vt})", book.fmt("decimal", "cell"))
            s.formula(f"{pct}{r}", f"={raw}{r}*100", book.fmt("percent", "cell"))
            s.formula(f"{swap}{r}", f"=RATES_SWAP({idx},{start},$B{r},{freq},,,,{vt})", book.fmt("percent", "cell"))
            s.formula(f"{spread}{r}", f"=({swap}{r}-{pct}{r})*100", book.fmt("bp", "output"))
            if tenor == "10Y":
                book.name(f"{MARKETS[i][0].lower()}_10y_spread", SHEET, f"{spread}{r}")
    last = top + len(TENORS)

    chart = book.wb.add_chart({"type": "line"})
    colours = ["#1F3864", "#C00000", "#548235"]
    for i, (country, *_rest) in enumerate(MARKETS):
        col = 2 + i * BLOCK + 3
        chart.add_series({"name": f"{country} swap spread", "categories": [SHEET, top, 1, last - 1, 1],
                          "values": [SHEET, top, col, last - 1, col],
                          "line": {"color": colours[i], "width": 2},
                          "marker": {"type": "circle", "size": 4, "fill": {"color": colours[i]},
                                     "border": {"color": colours[i]}}})
    chart.set_title({"name": "Swap spread by tenor", "name_font": {"size": 12}})
    chart.set_y_axis({"name": "bp", "major_gridlines": {"visible": True, "line": {"color": "#E7E6E6"}}})
    chart.set_x_axis({"name": "Tenor", "label_position": "low"})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 620, "height": 300})
    s.ws.insert_chart(f"B{last + 3}", chart)


def _input(s, book: Book, cell: str, value: str, choices: str | None = None) -> str:
    s.ws.write_string(cell, value, book.fmt("general", "input"))
    if choices:
        s.ws.data_validation(cell, {"validate": "list", "source": choices})
    return Area.cell(*parse_cell(cell)).a1(absolute=True)


def _letter(index: int) -> str:
    return column_letters(index + 1)
