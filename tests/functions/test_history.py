"""RATES_SWAPHISTORY as desks use it (issue 33): BDH's options and the date-by-tenor grid,
against the sandbox over real HTTP, checked against pandas' own resampling and filling (an
independent computation) and QuantLib's calendars (not the client's shipped copy)."""

from __future__ import annotations

import itertools
import json
import math
from datetime import date

import pandas as pd
import pytest

from rates_xl.addin.classic.udfs import UDFS
from rates_xl.client import RatesClient
from rates_xl.client.endpoints import CacheClass
from rates_xl.functions import FUNCTIONS, set_client
from rates_xl.functions.history import OPTIONS
from rates_xl.functions.messages import NOT_AVAILABLE, PENDING, PREFIX
from tests.support.timing import PATIENT

HISTORY = FUNCTIONS["RATES_SWAPHISTORY"].core
TENORS = ["2Y", "5Y", "10Y", "30Y"]


def _history_requests(service) -> list:
    return [a for a in service.arrivals if a.path.endswith("/historical_swap_rates")]


# -- the bound: a 4-tenor, 5-year monthly grid ------------------------------------------------------

def test_four_tenor_five_year_monthly_grid_is_the_single_spills_resampled(sandbox_factory, sandbox_key):
    """4 requests, no 429, and on every date the grid is what pandas makes of the four
    single-tenor spills (the last close of each month, dated by the month's last close)."""
    service = sandbox_factory()  # the service's own limits: 20 a second, a burst of 50
    # A cell's 4 s budget (2 s an attempt) is not what is tested: under `stress --cpu 4` a 5-year
    # answer missed it once and was asked again (5 requests).
    with RatesClient(base_url=service.base_url, api_key=sandbox_key, **PATIENT) as client:
        set_client(client)
        grid = UDFS["RATES_SWAPHISTORY"]("SOFR", [["2Y"], ["5Y"], ["10Y"], ["30Y"]], "2021-01-01",
                                         "2025-12-31", None, "Per=M")
        assert len(_history_requests(service)) == 4
        assert [a.status for a in service.arrivals].count(429) == 0
        assert client.stats()["retries"] == 0 and client.stats()["throttled_waits"] == 0
        singles = {t: HISTORY("SOFR", t, "2021-01-01", "2025-12-31") for t in TENORS}
        assert len(_history_requests(service)) == 4  # the same four answers, from the cache
        assert client.stats()["requests_sent"] == 4
    assert grid[0] == ["Date", *TENORS]
    body = grid[1:]
    assert len(body) == 60  # five years of months
    for tenor_position, tenor in enumerate(TENORS, start=1):
        spill = singles[tenor]
        assert spill[0] == ["Date", "Rate"]
        series = pd.Series([r[1] for r in spill[1:]], index=pd.DatetimeIndex([r[0] for r in spill[1:]]))
        month_end = series.resample("ME").last()
        last_day = series.index.to_series().resample("ME").max()
        assert len(month_end) == len(body)
        for row, (period, close) in zip(body, month_end.items(), strict=True):
            assert row[0] == last_day[period].date()
            assert row[tenor_position] == close, (tenor, row[0])


# -- every option and their combinations, against pandas ----------------------------------------------

START, END = date(2025, 3, 24), date(2025, 7, 15)  # Good Friday (SIFMA closes), July 4th


@pytest.fixture(scope="module")
def raw(sandbox):
    """The service's own closes for two tenors, straight from the client (no shaping)."""
    from rates_xl.sandbox import PAID_KEY

    with RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY) as client:
        return {t: [(p.date, p.rate) for p in client.historical_swap_rates("SOFR", t, START, END).swap_rates]
                for t in ("2Y", "10Y")}


def _business_days(days: pd.DatetimeIndex) -> pd.Series:
    """SOFR's business days as QuantLib says (the sandbox's calendar object, not our data)."""
    import QuantLib as ql

    from rates_xl.sandbox import conventions as cv

    cal = cv.INDEXES["SOFR"].calendar
    return pd.Series([cal.isBusinessDay(ql.Date(d.day, d.month, d.year)) for d in days], index=days)


def _pandas_grid(raw, tenors, opts, headers=True, listed=True):
    """What the spill must be, by pandas: reindex on the days, fill, group by calendar period."""
    closes = {t: pd.Series([r for _, r in raw[t]], index=pd.DatetimeIndex([d for d, _ in raw[t]]))
              for t in tenors}
    observed = pd.DatetimeIndex(sorted(set().union(*(s.index for s in closes.values()))))
    every = pd.date_range(observed[0], observed[-1], freq="D")
    business = _business_days(every) | every.isin(observed)
    days = {"T": every[business.values], "W": every[business.values | (every.day_of_week < 5)],
            "A": every}[opts["Days"]]
    frame = pd.DataFrame({t: s.reindex(days) for t, s in closes.items()})
    if opts["Per"] == "D":
        labels = pd.Series(days, index=days)
        values = frame.copy()
        carried = frame.ffill()
    else:
        key = {"W": days.to_period("W-SUN"), "M": days.to_period("M"), "Q": days.to_period("Q"),
               "S": pd.Index(days.year * 2 + (days.month > 6)), "Y": pd.Index(days.year)}[opts["Per"]]
        groups = frame.groupby(key)
        labels = pd.Series(days, index=days).groupby(key).max()
        values = groups.last() if opts["Quote"] == "C" else groups.mean()
        carried = groups.last().ffill()  # the last close on or before each period
    if opts["Fill"] == "P":
        values = values.where(values.notna(), carried)
    rows = []
    for i, label in enumerate(labels):
        cells = []
        for t in tenors:
            v = values[t].iloc[i]
            cells.append(("" if opts["Fill"] == "B" else NOT_AVAILABLE) if pd.isna(v) else float(v))
        rows.append([label.date(), *cells])
    if opts["Sort"] == "D":
        rows.reverse()
    if headers:
        rows.insert(0, ["Date", *(tenors if listed else ["Rate"])])
    if opts["Dts"] == "H":
        rows = [r[1:] for r in rows]
    if opts["Dir"] == "H":
        rows = [list(c) for c in zip(*rows, strict=True)]
    return rows


def _same(got, want):
    assert isinstance(got, list), got
    assert len(got) == len(want) and all(len(g) == len(w) for g, w in zip(got, want, strict=True))
    for g_row, w_row in zip(got, want, strict=True):
        for g, w in zip(g_row, w_row, strict=True):
            if isinstance(w, float):
                assert isinstance(g, float) and math.isclose(g, w, rel_tol=1e-12), (g, w, g_row, w_row)
            else:
                assert g == w, (g, w, g_row, w_row)


_VALUES = {name: list(option.values) for name, option in OPTIONS.items()}
_COMBINATIONS = [dict(zip(("Per", "Fill", "Days", "Quote"), c, strict=True))
                 for c in itertools.product(_VALUES["Per"], _VALUES["Fill"], _VALUES["Days"], _VALUES["Quote"])]


@pytest.mark.parametrize("layout", [dict(Sort="A", Dts="S", Dir="V"), dict(Sort="D", Dts="H", Dir="H"),
                                    dict(Sort="D", Dts="S", Dir="V"), dict(Sort="A", Dts="H", Dir="H")],
                         ids=lambda d: " ".join(f"{k}={v}" for k, v in d.items()))
def test_every_combination_of_options_is_pandas(client, raw, layout):
    """Per x Fill x Days x Quote (108 combinations), each with the layouts (Sort, Dts, Dir)."""
    for combination in _COMBINATIONS:
        opts = {**combination, **layout}
        text = " ".join(f"{k}={v}" for k, v in opts.items())
        for headers in (True, False):
            got = HISTORY("SOFR", "2Y,10Y", START, END, headers, text)
            _same(got, _pandas_grid(raw, ["2Y", "10Y"], opts, headers))
    assert client.stats()["requests_sent"] == 2  # every combination from the same two answers


@pytest.mark.parametrize("option, value", [(o, v) for o, option in OPTIONS.items() for v in option.values])
def test_each_option_alone_single_tenor(client, raw, option, value):
    opts = {name: option.default for name, option in OPTIONS.items()} | {option: value}
    _same(HISTORY("SOFR", "10Y", START, END, True, f"{option}={value}"),
          _pandas_grid(raw, ["10Y"], opts, listed=False))


def test_defaults_are_the_services_closes_unchanged(client, raw):
    """No options: one row per close the service sent, as before the options existed."""
    assert HISTORY("SOFR", "10Y", START, END) == [["Date", "Rate"], *([d, r] for d, r in raw["10Y"])]


def test_spellings_are_forgiven(client):
    base = HISTORY("SOFR", "2Y,10Y", START, END, True, "Per=M Fill=NA Days=A Sort=D")
    for spelled in ("per=m fill=na days=a sort=d", " Per = M ,Fill=N/A; Days=All  Sort=Descending ",
                    [["Per=M", "Fill=NA"], ["Days=A", "Sort=D"]], "Periodicity=Monthly Fill=#N/A Days=C Sort=desc"):
        assert HISTORY("SOFR", "2Y,10Y", START, END, True, spelled) == base, spelled
    assert HISTORY("SOFR", "2Y, 10y", START, END) == HISTORY("SOFR", [["2Y", "10Y"]], START, END)


# -- holidays, calendars and alignment --------------------------------------------------------------

def _row(grid, day):
    return next(r for r in grid if r[0] == day)


def test_the_grid_over_a_holiday(client):
    july4, good_friday = date(2025, 7, 4), date(2025, 4, 18)
    traded = HISTORY("SOFR", "2Y,5Y", START, END)
    assert all(r[0] not in (july4, good_friday) for r in traded[1:])  # Days=T: SOFR's calendar
    before = _row(traded, date(2025, 7, 3))
    for fill, expect in (("P", before[1:]), ("B", ["", ""]), ("NA", [NOT_AVAILABLE, NOT_AVAILABLE])):
        weekdays = HISTORY("SOFR", "2Y,5Y", START, END, True, f"Days=W Fill={fill}")
        assert _row(weekdays, july4)[1:] == expect
        assert _row(weekdays, good_friday)[1:] == (_row(traded, date(2025, 4, 17))[1:] if fill == "P" else expect)
        assert date(2025, 7, 5) not in [r[0] for r in weekdays]
        every = HISTORY("SOFR", "2Y,5Y", START, END, True, f"Days=A Fill={fill}")
        assert [r[0] for r in every[1:]] == list(pd.date_range(every[1][0], every[-1][0]).date)
        assert _row(every, date(2025, 7, 6))[1:] == expect  # a Sunday
    # The week of July 4th is dated by its last business day, Thursday.
    weekly = HISTORY("SOFR", "2Y", START, END, True, "Per=W")
    assert [date(2025, 7, 3), before[1]] in weekly
    # CDR: another calendar's business days (TARGET has no July 4th, so the row is there);
    # a day the service published a close on stays, whatever the calendar (TARGET's Labour Day).
    target = HISTORY("SOFR", "2Y", START, END, True, "CDR=TARGET")
    assert _row(target, july4)[1] == before[1]
    assert _row(target, date(2025, 5, 1))[1] == _row(traded, date(2025, 5, 1))[1]


def test_a_gap_in_one_tenor_is_aligned_and_filled(sandbox, sandbox_key, tmp_path):
    """One tenor lacks a business day the other has: the row stands, the gap per Fill. The
    service's answer is edited in a market-data pack, replayed with no network."""
    from rates_xl.client import pack as packs

    with RatesClient(base_url=sandbox.base_url, api_key=sandbox_key) as live, live.recording() as recorder:
        set_client(live)
        HISTORY("SOFR", "2Y,5Y", START, END)
    recorded = recorder.pack()
    gap = date(2025, 6, 10)
    answers = []
    for answer in recorded.answers:
        if ("tenor", "5Y") in answer.params:
            body = json.loads(answer.answer)
            body["swap_rates"] = [p for p in body["swap_rates"] if p["date"] != gap.isoformat()]
            answer = answer.model_copy(update={"answer": json.dumps(body)})
        answers.append(answer)
    from tests.support.packs import resealed

    edited = resealed(recorded, tuple(answers))  # another service's answer, not a tampered one
    with RatesClient(replay=packs.loads(edited.dumps())) as replay:
        set_client(replay)
        for fill, expect in (("P", None), ("B", ""), ("NA", NOT_AVAILABLE)):
            grid = HISTORY("SOFR", "2Y,5Y", START, END, True, f"Fill={fill}")
            row, before = _row(grid, gap), _row(grid, date(2025, 6, 9))
            assert isinstance(row[1], float)  # 2Y has the day
            assert row[2] == (before[2] if expect is None else expect)
            assert [r[0] for r in grid[1:]] == sorted({r[0] for r in grid[1:]})  # one row per day


# -- the grid's requests --------------------------------------------------------------------------

def test_one_request_per_distinct_tenor_cached_as_history(client, sandbox):
    since = len(sandbox.arrivals)
    HISTORY("SOFR", "2Y,5Y", START, END)
    HISTORY("SOFR", [["5Y", "10Y"]], START, END, True, "Per=M")
    HISTORY("SOFR", "10Y", START, END, True, "Days=A")
    assert client.stats()["requests_sent"] == 3
    assert len(sandbox.arrivals) - since == 3
    from rates_xl.client.endpoints import ENDPOINTS, cache_class_of

    (key,) = [k for k, _ in client.answers() if ("tenor", "2Y") in k.params]
    assert cache_class_of(ENDPOINTS[key.endpoint], dict(key.params), date.today()) is CacheClass.HISTORY
    (entry,) = [e for k, e in client.answers() if k == key]
    assert entry.ttl == client.settings.ttl_history


def test_a_tenor_the_service_lacks_fails_its_own_column(client):
    grid = HISTORY("SOFR", "2Y,11Y,10Y", START, END)
    assert grid[0] == ["Date", "2Y", "11Y", "10Y"]
    assert all(isinstance(r[1], float) and isinstance(r[3], float) for r in grid[1:])
    failed = {r[2] for r in grid[1:]}
    assert len(failed) == 1
    (message,) = failed
    assert message.startswith(f"{PREFIX} 404 no data for this request") and "SOFR 11Y" in message
    # Every tenor failing: the cell is the message.
    assert HISTORY("SOFR", "11Y,13Y", START, END).startswith(f"{PREFIX} 404")


def test_a_planning_round_records_every_tenor_at_once(client, tmp_path):
    """The headless engine's first round records all four requests (the cell is PENDING
    meanwhile); the next computes the grid: 2 rounds, 4 requests, 3 distinct for 2 cells."""
    import xlsxwriter

    from rates_xl.calc.workbook import calculate
    from rates_xl.functions.values import to_serial

    with client.planning():
        assert HISTORY("SOFR", "2Y,5Y", "2025-06-02", "2025-06-30") == PENDING
    assert client.stats()["requests_sent"] == 0
    book = xlsxwriter.Workbook(tmp_path / "grid.xlsx")
    sheet = book.add_worksheet("H")
    sheet.write("A1", "5Y")
    sheet.write("A2", "10Y")
    sheet.write_dynamic_array_formula(
        "C1:E6", '=RATES_SWAPHISTORY("SOFR","2Y,5Y","2025-06-02","2025-06-30",,"Per=W")')
    sheet.write_dynamic_array_formula(
        "H1:J20", '=RATES_SWAPHISTORY("SOFR",A1:A2,"2025-06-02","2025-06-30",FALSE,"Sort=D")')
    book.close()
    result = calculate(tmp_path / "grid.xlsx", client=client)
    assert result.errors == []
    assert result.report.distinct_requests == 3 and result.report.requests_sent == 3
    assert result.report.rounds == 2
    assert [result.value("H", c) for c in ("C1", "D1", "E1")] == ["Date", "2Y", "5Y"]
    assert result.value("H", "C2") == to_serial(date(2025, 6, 6))  # the first week's Friday
    assert result.value("H", "H1") == to_serial(date(2025, 6, 30))  # latest first, no header
    assert result.value("H", "I1") == HISTORY("SOFR", "5Y", "2025-06-02", "2025-06-30")[-1][1]


# -- bad input: one line naming the option or the tenor, and no request -------------------------------

@pytest.mark.parametrize("tenor, options, message", [
    ([["2Y"], [None], ["10Y"]], None, "#RATES! tenor: cell 2 of the range is empty"),
    ([["2Y", "5Y", "2Y"]], None, "#RATES! tenor: 2Y appears twice (cells 1 and 3 of the range)"),
    ([["2Y"], ["1Y"], ["12M"]], None, "#RATES! tenor: 1Y and 12M are the same tenor (cells 2 and 3"),
    ([["2Y"], ["five"]], None, "#RATES! tenor: cell 2 of the range: 'five' is not a tenor like 3M or 10Y"),
    ([["2Y"], [10.0]], None, "#RATES! tenor: cell 2 of the range: 10 is not a tenor"),
    ([["2Y"], ["#N/A"]], None, "#RATES! tenor: cell 2 of the range: the input is an error (#N/A)"),
    ("2Y,,10Y", None, "#RATES! tenor: item 2 of the list is empty"),
    ([[None], [None]], None, "#RATES! tenor: the range of 2 cells is empty"),
    ("2Y", "Per=Z", "#RATES! options: Per=Z: Z is not a periodicity; use Per=D, W, M, Q, S, Y"),
    ("2Y", "Fill=zero", "#RATES! options: Fill=zero: zero is not a fill; use Fill=P, B, NA"),
    ("2Y", "Days=T Days=A", "#RATES! options: Days is given twice (Days=T and Days=A)"),
    ("2Y", "Period M", "#RATES! options: 'Period' is not NAME=VALUE"),
    ("2Y", "Freq=M", "#RATES! options: 'Freq' is not an option; use Per, Fill, Days, Sort, Dts, Dir, Quote or CDR"),
    ("2Y", "Dir=Up", "#RATES! options: Dir=Up: Up is not a direction; use Dir=V, H"),
    ("2Y", "CDR=Atlantis", "#RATES! options: CDR=Atlantis: Atlantis is not a calendar rates-xl knows"),
    ("2Y", [["Per=M"], ["Sort=Up"]], "#RATES! options: Sort=Up: Up is not a sort order; use Sort=A, D"),
])
def test_bad_options_and_tenor_ranges_send_nothing(sandbox_factory, sandbox_key, tenor, options, message):
    service = sandbox_factory()
    with RatesClient(base_url=service.base_url, api_key=sandbox_key) as client:
        set_client(client)
        for call in (HISTORY, UDFS["RATES_SWAPHISTORY"]):
            answer = call("SOFR", tenor, START, END, None, options)
            assert isinstance(answer, str) and answer.startswith(message), answer
            assert "\n" not in answer and len(answer) < 255
    assert list(service.arrivals) == []  # the sandbox saw no request at all


@pytest.mark.parametrize("engine_name", ["fast", "formulas"])
def test_fill_na_is_excels_na_in_the_headless_engines(client, tmp_path, engine_name):
    """A Fill=NA cell is the engine's #N/A error (a SUM over it is #N/A, as in Excel), listed
    among the book's error cells; never the text "#N/A"."""
    import xlsxwriter

    from rates_xl.calc.workbook import WorkbookCalculation

    book = xlsxwriter.Workbook(tmp_path / "na.xlsx")
    sheet = book.add_worksheet("H")
    sheet.write_dynamic_array_formula(
        "A1:C6", '=RATES_SWAPHISTORY("SOFR","2Y,5Y","2025-07-01","2025-07-08",,"Days=W Fill=NA")')
    sheet.write_formula("E1", "=SUM(B2:B7)")
    sheet.write_formula("E2", "=SUM(B2:B4)")
    book.close()
    result = WorkbookCalculation(tmp_path / "na.xlsx", engine_name=engine_name).compute(client)
    july4 = [r for r in range(2, 8) if result.value("H", f"A{r}") == 45842]  # 2025-07-04
    assert july4 == [5]
    assert {(e.cell, e.value) for e in result.errors} >= {("B5", "#N/A"), ("C5", "#N/A"), ("E1", "#N/A")}
    assert result.value("H", "E2") == pytest.approx(sum(HISTORY("SOFR", "2Y", "2025-07-01", "2025-07-03")[r][1]
                                                        for r in (1, 2, 3)))


def test_rates_source_of_a_grid_lists_each_tenors_request(client, tmp_path):
    import xlsxwriter

    from rates_xl.calc.workbook import calculate

    book = xlsxwriter.Workbook(tmp_path / "source.xlsx")
    sheet = book.add_worksheet("H")
    sheet.write_dynamic_array_formula("A1:D3", '=RATES_SWAPHISTORY("SOFR","2Y,5Y,10Y","2025-06-02","2025-06-06")')
    sheet.write_dynamic_array_formula("G1:H14", "=RATES_SOURCE(A1)")
    book.close()
    result = calculate(tmp_path / "source.xlsx", client=client)
    assert result.value("H", "G1") == "Requests" and result.value("H", "H1").startswith("3: ")
    requests = [result.value("H", f"H{r}") for r in range(2, 14) if result.value("H", f"G{r}") == "Request"]
    assert [r.split("tenor=")[1].split("&")[0] for r in requests] == ["2Y", "5Y", "10Y"]


def test_grids_asked_at_once_share_each_request(sandbox_factory, sandbox_key):
    """Two grids and a single history computed at the same moment on three threads (as Excel's
    and the Office.js server's workers do), sharing tenors: each distinct request is sent
    once; the others wait on it (the client's coalescing) instead of asking again."""
    import threading

    service = sandbox_factory(latency_ms=400)  # the first answers are still on their way
    with RatesClient(base_url=service.base_url, api_key=sandbox_key, **PATIENT) as client:
        set_client(client)
        cells = [("2Y,5Y", None), ([["5Y", "10Y"]], "Per=M"), ("10Y", "Days=A")]
        answers: list = [None] * len(cells)

        def compute(i: int) -> None:
            answers[i] = HISTORY("SOFR", cells[i][0], START, END, True, cells[i][1])

        threads = [threading.Thread(target=compute, args=(i,)) for i in range(len(cells))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert all(isinstance(a, list) for a in answers), answers
        tenors = sorted(a.query.split("tenor=")[1] for a in _history_requests(service))
        assert tenors == ["10Y", "2Y", "5Y"]  # 5Y and 10Y asked by two cells each, sent once
        assert client.stats()["coalesced_waits"] >= 1
