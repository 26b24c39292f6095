"""Template: FX spot, a ladder of forwards, forward points, implied yield differential and
the cost of hedging a stated amount."""

from __future__ import annotations

from rates_xl.templates.layout import Book, service_date, valuation_date

NAME = "fx_hedging"
TITLE = "FX forwards and hedging"
SHEET = "FX"

PAIRS = ["EURUSD", "GBPUSD", "USDJPY", "USDCHF", "AUDUSD", "USDCAD", "EURGBP", "USDSAR"]
LADDER = [("1W", 0, 7), ("1M", 1, 0), ("2M", 2, 0), ("3M", 3, 0), ("6M", 6, 0), ("9M", 9, 0),
          ("1Y", 12, 0), ("18M", 18, 0), ("2Y", 24, 0), ("3Y", 36, 0), ("5Y", 60, 0)]
DIRECTIONS = ["Sell base forward", "Buy base forward"]
LADDER_TOP = 30


def build(book: Book) -> None:
    s = book.sheet(SHEET, widths={"B:B": 30, "C:C": 16, "D:D": 14, "E:E": 13, "F:I": 14})
    s.title("FX forwards and hedging",
            "Spot (RATES_FXSPOT) and outright forwards (RATES_FXFORWARD) in quote currency per one unit of base.")
    s.section(4, "Inputs")
    pair = s.input(5, "Currency pair", "EURUSD", choices=book.choices("pairs", PAIRS),
                   note="Base then quote: EURUSD is US dollars per euro.", name="pair")
    amount = s.input(6, "Amount to hedge", 10_000_000, kind="amount", unit="base currency",
                     note="The base-currency amount exchanged at the horizon.")
    direction = s.input(7, "Hedge", "Sell base forward", choices=book.choices("directions", DIRECTIONS),
                        note="Sell base forward: you own base-currency assets and lock the rate you sell them at.")
    horizon = s.input(8, "Hedge horizon", "1Y", choices=book.choices("horizons", [t for t, _, _ in LADDER]),
                      note="One of the ladder's tenors.")
    vt = s.input(9, "Valuation time", None, kind="datetime", unit="UTC", note="Empty: now (paid keys may pin a time).")

    s.section(11, "Market")
    base = s.output(12, "Base currency", f"=LEFT({pair},3)")
    quote = s.output(13, "Quote currency", f"=RIGHT({pair},3)")
    pip = s.output(14, "Pip size factor", f'=IF({quote}="JPY",100,10000)', kind="int", unit="points per unit",
                   note="Forward points are quoted in pips: 1/10000 of the rate, 1/100 for yen pairs.")
    # The service's dates, not TODAY(): nothing the RATES_ cells read is volatile, so none is
    # recalculated (a blocking service call each) when the file opens; Refresh moves them.
    s.output(15, "Valuation date", "=" + valuation_date(vt, service_date('"SOFR"', '"0D"', vt)), kind="date",
             note="Empty valuation time: the service's (today in UTC, rolled to a US business day, where its "
                  "SOFR curve starts). It moves when Refresh fetches, not when the file opens.")
    spot_lag = f'IF(OR({pair}="USDCAD",{pair}="CADUSD"),"1D","2D")'
    spot_date = s.output(16, "Spot date", "=" + service_date('"SOFR"', spot_lag, vt), kind="date",
                         note="T+2 (USDCAD T+1): the 2nd (1st) US business day after the valuation date, where "
                              "the service starts its SOFR curve at 2D (1D); forwards run from it.")
    spot = s.output(17, "Spot", f"=RATES_FXSPOT({pair},{vt})", kind="fx", unit="quote per base", name="fx_spot")
    del base

    s.section(19, "Cost of hedging")
    row = {t: LADDER_TOP + 1 + i for i, (t, _, _) in enumerate(LADDER)}
    ladder = f"$B${LADDER_TOP + 1}:$I${LADDER_TOP + len(LADDER)}"
    fwd = s.output(20, "Forward at the horizon", f"=VLOOKUP({horizon},{ladder},5,FALSE)", kind="fx",
                   unit="quote per base", name="horizon_forward")
    days = s.output(21, "Days from spot", f"=VLOOKUP({horizon},{ladder},4,FALSE)", kind="int", unit="days")
    sign = f'IF({direction}="Sell base forward",1,-1)'
    cost = s.output(22, "Hedge cost", f"={sign}*{amount}*({spot}-{fwd})", kind="money", unit="quote currency",
                    note="Against converting at today's spot: positive is a cost, negative a pick-up (carry earned).",
                    name="hedge_cost")
    s.output(23, "Hedge cost, % of notional", f"={cost}/({amount}*{spot})*100", kind="percent", unit="percent",
             note="Cost over the notional's value at spot.")
    s.output(24, "Hedge cost, annualised", f"={cost}/({amount}*{spot})*100*365/{days}", kind="percent",
             unit="percent a year", note="Scaled by 365 / days: comparable across horizons.", name="hedge_cost_annual")
    s.notes(25, last="I", lines=["Covered interest parity: the forward is spot times the ratio of the two currencies' discount "
                 "factors, so forward points mirror the interest-rate differential between quote and base."])

    s.section(LADDER_TOP - 2, "Forward ladder", "B", "I")
    heads = ["Tenor", "Months", "Value date", "Days from spot", "Forward", "Forward - spot",
             "Forward points (pips)", "Implied yield differential (% a year)"]
    for j, head in enumerate(heads):
        s.ws.write(LADDER_TOP - 1, 1 + j, head, book.fmt("general", "header"))
    s.ws.set_row(LADDER_TOP - 1, 42)
    for tenor, months, days_ in LADDER:
        r = row[tenor]
        s.ws.write_string(f"B{r}", tenor, book.fmt("text", "cell", align="center"))
        if months:
            s.ws.write_number(f"C{r}", months, book.fmt("int", "cell"))
        else:
            s.ws.write_blank(f"C{r}", None, book.fmt("int", "cell"))
        value_date = (f"WORKDAY({spot_date}+{days_}-1,1)" if days_ else
                      f"WORKDAY(EDATE({spot_date},{months})-1,1)")
        s.formula(f"D{r}", f"={value_date}", book.fmt("date", "cell"))
        s.formula(f"E{r}", f"=D{r}-{spot_date}", book.fmt("int", "cell"))
        s.formula(f"F{r}", f"=RATES_FXFORWARD({pair},D{r},{vt})", book.fmt("fx", "cell"))
        s.formula(f"G{r}", f"=F{r}-{spot}", book.fmt("0.000000", "cell"))
        s.formula(f"H{r}", f"=G{r}*{pip}", book.fmt("pips", "cell"))
        # Covered interest parity with simple rates: F/S = (1 + r_quote t) / (1 + r_base t),
        # so r_quote - r_base = (F/S - 1) (1 + r_base t) / t, about (F/S - 1) / t.
        s.formula(f"I{r}", f"=(F{r}/{spot}-1)*365/E{r}*100", book.fmt("percent", "cell"))
    book.name("forward_1y", SHEET, f"F{row['1Y']}")
    book.name("points_1y", SHEET, f"H{row['1Y']}")
    last = LADDER_TOP + len(LADDER)
    s.notes(last + 2, last="I", lines=[
        "Forward - spot is in price units; forward points are the same number in pips. Value dates are spot plus "
        "the tenor, rolled past weekends (not holidays).",
        "Implied yield differential: the quote currency's rate minus the base currency's that the forward implies, "
        "(forward / spot - 1) x 365 / days, in percent a year; positive means the quote currency yields more.",
    ])

    chart = book.wb.add_chart({"type": "column"})
    chart.add_series({"name": "Forward points (pips)",
                      "categories": [SHEET, LADDER_TOP, 1, last - 1, 1],
                      "values": [SHEET, LADDER_TOP, 7, last - 1, 7],
                      "fill": {"color": "#1F3864"}})
    chart.set_title({"name": "Forward points by tenor", "name_font": {"size": 12}})
    chart.set_y_axis({"name": "pips", "major_gridlines": {"visible": True, "line": {"color": "#E7E6E6"}}})
    chart.set_legend({"none": True})
    chart.set_size({"width": 480, "height": 300})
    s.ws.insert_chart("K4", chart)
