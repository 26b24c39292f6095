"""Template: a vanilla fixed/float interest-rate swap, valued from the service's curves.

The fixed leg's schedule and discount factors come from RATES_DISCOUNTCURVE, the floating leg's
projected rates from RATES_FORWARDCURVE, discount factors at payment dates (which a payment
lag moves off the schedule) from RATES_DISCOUNT. The sheet shows both legs period by period, the
leg PVs, the NPV, the par rate beside RATES_SWAP's answer for the same conventions, the
PV01 of the fixed leg and the DV01 (a +1 bp parallel shift of the zero curve).
"""

from __future__ import annotations

from datetime import date

from rates_xl.templates.layout import Book, service_date, valuation_date, year_fraction

NAME = "swap_pricer"
TITLE = "Swap pricer"
SHEET = "Swap"
FIXED_SHEET = "Fixed leg"
FLOAT_SHEET = "Floating leg"

INDEXES = ["SOFR", "ESTR", "SONIA", "3M EURIBOR", "6M EURIBOR"]
DISCOUNT_CHOICES = ["Auto", "SOFR", "ESTR", "SONIA"]
FREQUENCIES = ["1M", "3M", "6M", "1Y"]
DAY_COUNTS = ["Actual360", "Actual365Fixed", "Thirty360BondBasis", "Thirty360EurobondBasis"]
POSITIONS = ["Pay fixed", "Receive fixed"]
LAGS = ["Auto", 0, 1, 2]

# Market conventions per index (the swap the service prices when given the same terms):
# discount curve, payment lag (business days), index day count, kind, fixed and floating
# leg frequency and day count.
CONVENTIONS = [
    ["SOFR", "SOFR", 2, "Actual360", "overnight", "1Y", "1Y", "Actual360", "Actual360", 0],
    ["ESTR", "ESTR", 1, "Actual360", "overnight", "1Y", "1Y", "Actual360", "Actual360", 0],
    ["SONIA", "SONIA", 0, "Actual365Fixed", "overnight", "1Y", "1Y", "Actual365Fixed", "Actual365Fixed", 0],
    ["3M EURIBOR", "ESTR", 0, "Actual360", "ibor", "1Y", "3M", "Thirty360BondBasis", "Actual360", 2],
    ["6M EURIBOR", "ESTR", 0, "Actual360", "ibor", "1Y", "6M", "Thirty360BondBasis", "Actual360", 2],
]
CONVENTION_HEADERS = ["Index", "Discount curve", "Payment lag", "Index day count", "Kind",
                      "Fixed frequency", "Floating frequency", "Fixed day count", "Floating day count",
                      "Fixing lag"]

ROWS = 121  # data rows of the leg tables: 30 years of quarterly periods
HOLIDAY_YEARS = (2000, 2080)

# Rows of the input block.
R = {"index": 5, "discount": 6, "position": 7, "notional": 8, "rate": 9, "start": 10, "maturity": 11,
     "fixed_freq": 12, "float_freq": 13, "fixed_dc": 14, "float_dc": 15, "lag": 16, "vt": 17}


def holidays() -> tuple[list[str], list[list[date | str]]]:
    """Payment-calendar holidays per index (weekdays only), from QuantLib's calendars.

    WORKDAY needs them to move a payment date by the payment lag. Written into the hidden
    Lists sheet when the template is built.
    """
    import QuantLib as ql

    from rates_xl.sandbox import conventions as cv

    columns = []
    for index in INDEXES:
        calendar = cv.INDEXES[index].calendar
        days = calendar.holidayList(ql.Date(1, 1, HOLIDAY_YEARS[0]), ql.Date(31, 12, HOLIDAY_YEARS[1]), False)
        columns.append([date(d.year(), d.month(), d.dayOfMonth()) for d in days])
    height = max(len(c) for c in columns)
    rows = [[c[i] if i < len(c) else "" for c in columns] for i in range(height)]
    return list(INDEXES), rows


def build(book: Book) -> None:
    s = book.sheet(SHEET, widths={"B:B": 30, "C:C": 26, "D:D": 14, "E:E": 90})
    conv = book.table("conventions", CONVENTION_HEADERS, CONVENTIONS)
    hol_head, hol_rows = holidays()
    book.table("holidays", hol_head, hol_rows)
    s.title("Swap pricer: vanilla fixed / floating interest-rate swap",
            "Blue cells on yellow are inputs. Values come from RATES_DISCOUNTCURVE, RATES_FORWARDCURVE "
            "and RATES_DISCOUNT; rates are in percent (3.5 means 3.5 %). Period tables: sheets Fixed leg and Floating leg.")
    s.section(4, "Inputs")
    c = {}
    c["index"] = s.input(R["index"], "Floating index", "SOFR", choices=book.choices("indexes", INDEXES),
                         note="Projects the floating leg; names as the service spells them.", name="index")
    c["discount"] = s.input(R["discount"], "Discount curve", "Auto", choices=book.choices("discount", DISCOUNT_CHOICES),
                            note="Auto: the index's collateral curve (EURIBOR swaps discount on ESTR).")
    c["position"] = s.input(R["position"], "Position", "Pay fixed", choices=book.choices("positions", POSITIONS),
                            note="Pay fixed: you pay the fixed leg and receive the floating leg.")
    c["notional"] = s.input(R["notional"], "Notional", 10_000_000, kind="amount", unit="currency",
                            note="In the index's currency.", name="notional")
    c["rate"] = s.input(R["rate"], "Fixed rate", 3.5, kind="percent", unit="percent",
                        note="The swap's fixed coupon, e.g. 3.5 for 3.5 %.", name="fixed_rate")
    c["start"] = s.input(R["start"], "Start", "2D", unit="date or tenor",
                         note="A date, or a tenor from the valuation date: 2D is spot for SOFR.")
    c["maturity"] = s.input(R["maturity"], "Maturity", "10Y", unit="date or tenor",
                            note="A date, or a tenor from the start. Regular schedules (no stubs).")
    c["fixed_freq"] = s.input(R["fixed_freq"], "Fixed leg frequency", "1Y", choices=book.choices("frequencies", FREQUENCIES))
    c["float_freq"] = s.input(R["float_freq"], "Floating leg frequency", "1Y", choices=book.choices("frequencies", FREQUENCIES),
                              note="For EURIBOR, the index tenor (3M, 6M).")
    c["fixed_dc"] = s.input(R["fixed_dc"], "Fixed leg day count", "Actual360", choices=book.choices("day_counts", DAY_COUNTS))
    c["float_dc"] = s.input(R["float_dc"], "Floating leg day count", "Actual360", choices=book.choices("day_counts", DAY_COUNTS),
                            note="Overnight legs compound on the index day count whatever is chosen here.")
    c["lag"] = s.input(R["lag"], "Payment lag", "Auto", unit="business days", choices=book.choices("lags", LAGS),
                       note="Auto: the index's convention (SOFR 2, ESTR 1, SONIA and EURIBOR 0).")
    c["vt"] = s.input(R["vt"], "Valuation time", None, kind="datetime", unit="UTC",
                      note="Empty: now. A date-time values as of then (paid keys only).")

    s.section(19, "Conventions used")
    idx, vt = c["index"], c["vt"]
    disc = s.output(20, "Discount curve used", f'=IF({c["discount"]}="Auto",VLOOKUP({idx},{conv},2,FALSE),{c["discount"]})')
    lag = s.output(21, "Payment lag used", f'=IF({c["lag"]}="Auto",VLOOKUP({idx},{conv},3,FALSE),{c["lag"]})',
                   kind="int", unit="business days")
    idx_dc = s.output(22, "Index day count", f"=VLOOKUP({idx},{conv},4,FALSE)")
    kind = s.output(23, "Index kind", f"=VLOOKUP({idx},{conv},5,FALSE)",
                    note="overnight: compounded in arrears; ibor: a term rate fixed in advance.")
    # The service's dates, not TODAY(): nothing here is volatile, so no RATES_ cell is
    # recalculated (a blocking service call each) when the file opens; Refresh moves them.
    val = s.output(24, "Valuation date", "=" + valuation_date(vt, service_date(idx, '"0D"', vt)), kind="date",
                   note="Empty valuation time: the service's, where the index curve starts (today in UTC, rolled "
                        "to a business day). It moves when Refresh fetches, not when the file opens.")
    cutoff = s.output(25, "Fixings published before", "=" + service_date(idx, '"1D"', vt), kind="date",
                      note="The first business day after the valuation time (the index curve's start at 1D): a "
                           "term-rate period fixing before it takes the published fixing, a later one the forward.")
    s.output(26, "Market standard", f'=VLOOKUP({idx},{conv},6,FALSE)&" "&VLOOKUP({idx},{conv},8,FALSE)'
                                    f'&" vs "&VLOOKUP({idx},{conv},7,FALSE)&" "&VLOOKUP({idx},{conv},9,FALSE)',
             note="The fixed and floating legs the market quotes for this index.")
    q = {k: f"{SHEET}!{v}" for k, v in c.items()}  # the inputs as the leg sheets see them
    q.update(disc=f"{SHEET}!{disc}", lag=f"{SHEET}!{lag}", idx_dc=f"{SHEET}!{idx_dc}", kind=f"{SHEET}!{kind}",
             val=f"{SHEET}!{val}", cutoff=f"{SHEET}!{cutoff}", fixing_lag=f"VLOOKUP({q['index']},{conv},10,FALSE)")
    fixed = _fixed_leg(book, q)
    floating = _floating_leg(book, q)

    s.section(28, "Results")
    sign = f'IF({c["position"]}="Pay fixed",1,-1)'
    # A leg whose schedule failed (its RATES_ curve an error value: issue 28) has no rows, and
    # a SUM over none is 0: a plausible NPV. The totals take the schedule's error instead.
    fixed_anchor, float_anchor = f"'{FIXED_SHEET}'!B{TOP}", f"'{FLOAT_SHEET}'!B{TOP}"

    def leg(anchor: str, total: str) -> str:
        return f"=IF(ISERROR({anchor}),{anchor},{total})"

    fixed_pv = s.output(29, "Fixed leg PV", leg(fixed_anchor, f"SUM({fixed('J')})"), kind="money",
                        unit="currency", note="Present value of the fixed payments.", name="fixed_leg_pv")
    float_pv = s.output(30, "Floating leg PV", leg(float_anchor, f"SUM({floating('K')})"), kind="money",
                        unit="currency", note="Present value of the projected floating payments.",
                        name="float_leg_pv")
    s.output(31, "NPV", f"={sign}*({float_pv}-{fixed_pv})", kind="money", unit="currency",
             note="Value to you: floating minus fixed when paying fixed, the reverse when receiving.",
             name="npv")
    annuity = s.output(32, "Annuity", leg(fixed_anchor, f"SUM({fixed('L')})"), kind="df", unit="years",
                       note="Sum of accrual x discount factor over the fixed leg.")
    par = s.output(33, "Par rate (from the legs)", f"={float_pv}/({c['notional']}*{annuity})*100",
                   kind="percent", unit="percent", note="The fixed rate that makes the NPV zero.",
                   name="par_rate")
    check = s.output(34, "RATES_SWAP, same conventions",
                     f"=RATES_SWAP({idx},{c['start']},{c['maturity']},{c['fixed_freq']},{c['float_freq']},"
                     f"{c['fixed_dc']},{c['float_dc']},{vt})",
                     kind="percent", unit="percent", note="The service's par rate for the same swap: a cross-check.",
                     name="swap_rate_check")
    s.output(35, "Difference", f"=({par}-{check})*100", kind="0.000000", unit="bp",
             note="Par rate minus RATES_SWAP; zero to rounding when the conventions match the service's.",
             name="par_difference")
    s.output(36, "PV01 of the fixed leg", f"={c['notional']}*{annuity}*0.0001", kind="money", unit="currency",
             note="Value of 1 bp on the fixed rate over the life of the swap.", name="fixed_leg_pv01")
    s.output(37, "DV01", f"={sign}*((SUM({floating('M')})-SUM({fixed('K')}))-({float_pv}-{fixed_pv}))",
             kind="money", unit="currency",
             note="Change in NPV when every zero rate rises 1 bp (continuously compounded, Act/365).",
             name="swap_dv01")
    s.output(38, "Maturity date", leg(fixed_anchor, f"MAX({fixed('E')})"), kind="date",
             note="Last date of the fixed schedule.")
    s.notes(40, [
        "Dates roll on the index calendar as the service generates them. A payment lag moves each payment that "
        "many business days (holidays on the hidden Lists sheet) and RATES_DISCOUNT discounts it there.",
        "The period tables hold up to 30 years of quarterly periods. DV01 and the +1 bp columns shift every zero "
        "rate by 1 bp; PV01 is the value of 1 bp on the fixed coupon.",
    ], last="E")
    s.ws.print_area("A1:E42")


TOP = 5  # header row of the leg tables


def _fixed_leg(book: Book, q: dict[str, str]):
    """Sheet Fixed leg; returns f(col) -> the sheet-qualified range of that column's data."""
    s = book.sheet(FIXED_SHEET, widths={"B:C": 13, "D:L": 14})
    s.title("Fixed leg", "Schedule and discount factors from RATES_DISCOUNTCURVE; one row per period.")
    first, last = TOP + 1, TOP + ROWS
    rng = lambda col, a=first, b=last: f"{col}{a}:{col}{b}"  # noqa: E731
    hol = f"INDEX(holidays,0,MATCH({q['index']},holidays_head,0))"
    s.section(TOP - 1, "Schedule (RATES_DISCOUNTCURVE) and cash flows", "B", "L")
    s.spill(f"B{TOP}", "fixed_schedule", f"=RATES_DISCOUNTCURVE({q['disc']},{q['start']},{q['maturity']},{q['fixed_freq']},,{q['vt']})",
            2, 12, [book.fmt("date", "cell"), book.fmt("df", "cell")])
    periods = book.shape("fixed_schedule", 12) - 2  # header and start date aside
    for col, head in zip("DEFGHIJKL", ["Period start", "Period end", "Accrual (years)", "Payment date",
                                       "DF at payment", "Fixed cash flow", "PV", "PV, zero curve +1 bp",
                                       "Accrual x DF"], strict=True):
        s.text(f"{col}{TOP}", head, "header")
    s.ws.set_row(TOP - 1, 30)
    # Row `first` holds the start date; a period runs from one schedule date to the next.
    ok = f"ISNUMBER({rng('B', first + 1, last + 1)})"
    start, end = rng("D"), rng("E")
    cell = lambda kind: book.fmt(kind, "cell")  # noqa: E731
    s.column("D", first, ROWS, f'=IF({ok},{rng("B", first, last)},"")', cell("date"), periods)
    s.column("E", first, ROWS, f'=IF({ok},{rng("B", first + 1, last + 1)},"")', cell("date"), periods)
    s.column("F", first, ROWS, f'=IF({ok},{year_fraction(q["fixed_dc"], start, end)},"")', cell("years"), periods)
    s.row_formulas(first, ROWS, {
        # WORKDAY takes one date at a time (the engine does not lift it over a column).
        "G": (f'=IF(ISNUMBER(E{{r}}),IF({q["lag"]}=0,E{{r}},WORKDAY(E{{r}},{q["lag"]},{hol})),"")', cell("date")),
        # On the schedule the curve's own factor; a payment lag needs RATES_DISCOUNT at the paid date.
        "H": (f'=IF(ISNUMBER(G{{r}}),IF(G{{r}}=E{{r}},C{{n}},RATES_DISCOUNT({q["disc"]},G{{r}},{q["vt"]})),"")', cell("df")),
    }, styled_rows=periods)
    s.column("I", first, ROWS, f'=IF({ok},{q["notional"]}*{q["rate"]}/100*{rng("F")},"")', cell("money"), periods)
    s.column("J", first, ROWS, f'=IF({ok},{rng("I")}*{rng("H")},"")', cell("money"), periods)
    s.column("K", first, ROWS, f'=IF({ok},{rng("J")}*EXP(-0.0001*({rng("G")}-{q["val"]})/365),"")',
             cell("money"), periods)
    s.column("L", first, ROWS, f'=IF({ok},{rng("F")}*{rng("H")},"")', cell("df"), periods)
    s.ws.print_area(0, 0, TOP + periods + 1, 11)
    return lambda col: f"'{FIXED_SHEET}'!{rng(col)}"


def _floating_leg(book: Book, q: dict[str, str]):
    s = book.sheet(FLOAT_SHEET, widths={"B:D": 13, "E:O": 14})
    s.title("Floating leg", "Projected rates from RATES_FORWARDCURVE (RATES_FORWARD for overnight "
                            "compounding over each accrual period); one row per period.")
    first, last = TOP + 1, TOP + ROWS
    rng = lambda col, a=first, b=last: f"{col}{a}:{col}{b}"  # noqa: E731
    hol = f"INDEX(holidays,0,MATCH({q['index']},holidays_head,0))"
    # The cut-off for published fixings is itself a service answer: while it is still pending
    # (Refresh's first round, a text), every fixing counts as not yet published. Compared
    # as it is, a pending text would rank above any date and ask for fixings not yet known.
    cutoff = f'IF(ISNUMBER({q["cutoff"]}),{q["cutoff"]},0)'
    cell = lambda kind: book.fmt(kind, "cell")  # noqa: E731
    s.section(TOP - 1, "Schedule (RATES_FORWARDCURVE) and cash flows", "B", "O")
    s.spill(f"B{TOP}", "float_schedule",
            f"=RATES_FORWARDCURVE({q['index']},{q['start']},{q['maturity']},{q['float_freq']},{q['float_freq']},,{q['vt']})",
            3, 12, [cell("date"), cell("date"), cell("percent")])
    periods = book.shape("float_schedule", 12) - 2  # header and the period starting at maturity aside
    for col, head in zip("EFGHIJKLMNO", ["Accrual end", "Accrual (years)", "Rate applied (%)", "Payment date",
                                         "DF at payment", "Floating cash flow", "PV", "Rate +1 bp (%)",
                                         "PV, zero curve +1 bp", "Rate period (years)", "Fixing date"], strict=True):
        s.text(f"{col}{TOP}", head, "header")
    s.ws.set_row(TOP - 1, 30)
    # A period belongs to the swap when a next one starts (the curve's last row starts at
    # maturity): its accrual runs from its start to that next start.
    in_swap = f"ISNUMBER({rng('B', first + 1, last + 1)})"
    start, end = rng("B"), rng("E")
    overnight = f'{q["kind"]}="overnight"'
    s.column("E", first, ROWS, f'=IF({in_swap},{rng("B", first + 1, last + 1)},"")', cell("date"), periods)
    s.column("F", first, ROWS,
             f'=IF({in_swap},IF({overnight},{year_fraction(q["idx_dc"], start, end)},'
             f'{year_fraction(q["float_dc"], start, end)}),"")', cell("years"), periods)
    s.column("N", first, ROWS,
             f'=IF({in_swap},IF({overnight},{year_fraction(q["idx_dc"], start, end)},'
             f'{year_fraction(q["idx_dc"], start, rng("C"))}),"")', cell("years"), periods)
    s.row_formulas(first, ROWS, {
        # A term rate fixes `fixing lag` business days before its period starts.
        "O": (f'=IF(ISNUMBER(E{{r}}),IF({overnight},"",WORKDAY(B{{r}},-{q["fixing_lag"]},{hol})),"")', cell("date")),
        # Overnight: the rate compounded over the accrual period itself (RATES_FORWARD).
        # Term (IBOR) rates: the index period's forward from the curve, as the coupon fixes,
        # or the published fixing once its fixing date has come (it is before the first
        # business day after the valuation time, the service's cut-off). The inner IFs
        # ("n/a", "future") make the call not taken a no-op (no request) in engines that
        # evaluate both branches of IF, as the headless one does; Excel never makes it.
        "G": (f'=IF(ISNUMBER(E{{r}}),IF({overnight},RATES_FORWARD({q["index"]},B{{r}},IF({overnight},E{{r}},"n/a"),{q["vt"]}),'
              f'IF(O{{r}}<{cutoff},RATES_FIXING({q["index"]},IF(O{{r}}<{cutoff},O{{r}},"future")),D{{r}})),"")',
              cell("percent")),
        "H": (f'=IF(ISNUMBER(E{{r}}),IF({q["lag"]}=0,E{{r}},WORKDAY(E{{r}},{q["lag"]},{hol})),"")', cell("date")),
        "I": (f'=IF(ISNUMBER(H{{r}}),RATES_DISCOUNT({q["disc"]},H{{r}},{q["vt"]}),"")', cell("df")),
    }, styled_rows=periods)
    s.column("J", first, ROWS, f'=IF({in_swap},{q["notional"]}*{rng("G")}/100*{rng("F")},"")', cell("money"), periods)
    s.column("K", first, ROWS, f'=IF({in_swap},{rng("J")}*{rng("I")},"")', cell("money"), periods)
    # +1 bp on continuously compounded zero rates: the rate's period grows by exp(1bp x its
    # length), the payment's discount factor shrinks by exp(-1bp x its time).
    period_days = f'IF({overnight},{end}-{start},{rng("C")}-{start})'
    fixed_already = f'IF(ISNUMBER({rng("O")}),{rng("O")}<{cutoff},FALSE)'  # a published fixing does not move
    s.column("L", first, ROWS,
             f'=IF({in_swap},IF({fixed_already},{rng("G")},'
             f'((1+{rng("G")}/100*{rng("N")})*EXP(0.0001*({period_days})/365)-1)/{rng("N")}*100),"")',
             cell("percent"), periods)
    s.column("M", first, ROWS,
             f'=IF({in_swap},{q["notional"]}*{rng("L")}/100*{rng("F")}*{rng("I")}*EXP(-0.0001*({rng("H")}-{q["val"]})/365),"")',
             cell("money"), periods)
    s.ws.print_area(0, 0, TOP + periods + 1, 14)
    return lambda col: f"'{FLOAT_SHEET}'!{rng(col)}"
