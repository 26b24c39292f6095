"""Office.js in a book counting dates from 1904: a date reaches a custom function as its serial,
1,462 lower than in a 1900 book, and the script reads the book's system with each batch
(DATE(1904,1,1) through the Excel JS API's workbook.functions), so the server moves it onto the
1900 system the function table reads and writes the dates an answer holds as the book's
(functions/date_system.py). Before, RATES.DISCOUNT of 1 September 2028 in such a book asked for
31 August 2024 and a discount curve's dates showed 4 years and a day late, silently. In
Chromium, with the stand-in Office runtime and Excel JS API of test_valuation_browser.py."""

from __future__ import annotations

import json

from rates_xl.addin.officejs.metadata import script_arities
from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS, using_client
from rates_xl.functions.date_system import SHIFT
from rates_xl.sandbox import PAID_KEY
from tests.addin.officejs.test_browser import FIRE, browser, open_page, playwright  # noqa: F401
from tests.addin.officejs.test_valuation_browser import _serve

PINNED = "2026-01-02T16:00:00Z"
SEP_2028 = 46_997  # 1 September 2028 on the 1900 system


def test_a_1904_books_dates_are_read_and_written_on_its_own_system(browser, serve, sandbox):  # noqa: F811
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    page, _posts = open_page(browser, _serve(serve, client))
    bodies: list[dict] = []
    page.on("request", lambda r: bodies.append(json.loads(r.post_data))
            if r.method == "POST" and r.url.endswith("/api/batch") else None)
    discount, curve = FUNCTIONS["RATES_DISCOUNT"], FUNCTIONS["RATES_DISCOUNTCURVE"]
    with using_client(client):
        df = discount.core("SOFR", SEP_2028, PINNED)
        rows = curve.core("SOFR", "0D", "2Y", "6M", None, PINNED)
    dates_1900 = [row[0] for row in rows[1:]]

    def fire() -> list[dict]:
        return page.evaluate(FIRE, [[["DISCOUNT", ["SOFR", SEP_2028 - SHIFT, PINNED]],
                                     ["DISCOUNTCURVE", ["SOFR", "0D", "2Y", "6M", None, PINNED]]], script_arities()])

    page.evaluate("Excel.date1904 = true")
    got = fire()
    assert bodies[-1]["date1904"] is True
    assert got[0] == {"value": df}  # the same day, so the same discount factor
    shown = got[1]["value"]
    assert [row[0] for row in shown[1:]] == [serial_1900(d) - SHIFT for d in dates_1900], shown
    # In a 1900 book the batch says nothing of a date system, and its serials are the 1900 ones.
    page.evaluate("Excel.date1904 = false")
    got = page.evaluate(FIRE, [[["DISCOUNT", ["SOFR", SEP_2028, PINNED]]], script_arities()])
    assert "date1904" not in bodies[-1] and got[0] == {"value": df}
    page.close()
    client.close()


def serial_1900(day) -> float:
    from rates_xl.functions.date_system import serial

    return serial(day)


def test_a_date_system_that_cannot_be_read_is_said_where_it_matters(browser, serve, sandbox):  # noqa: F811
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    page, _posts = open_page(browser, _serve(serve, client))
    page.evaluate("Excel.dateFails = 'GeneralException'")
    got = page.evaluate(FIRE, [[["DISCOUNT", ["SOFR", SEP_2028, PINNED]],
                                ["DISCOUNTCURVE", ["SOFR", "0D", "2Y", "6M", None, PINNED]],
                                ["DISCOUNT", ["SOFR", "5Y", PINNED]]], script_arities()])
    assert got[0]["code"] == "#N/A" and got[0]["message"].startswith("pay_date: a date given as a number"), got[0]
    assert "GeneralException" in got[0]["message"]
    assert got[1]["code"] == "#N/A" and got[1]["message"].startswith("the answer holds dates"), got[1]
    assert isinstance(got[2]["value"], float)  # no date as a number in or out: computed
    # DATE answering an error value is no answer either: said, never read as a 1900 book.
    page.evaluate("Excel.dateFails = null; Excel.dateAnswers = 'Busy'")
    got = page.evaluate(FIRE, [[["DISCOUNT", ["SOFR", SEP_2028, PINNED]]], script_arities()])
    assert got[0]["code"] == "#N/A" and "DATE(1904,1,1) answered Busy" in got[0]["message"], got[0]
    page.close()
    client.close()


def test_rates_source_in_a_1904_book_follows_the_request_the_cell_made(sandbox):
    """RATES.SOURCE reads the referenced cell's formula and the cells it references as the
    script sends them (serials on the book's system): the request explained is the one the
    cell made, not one 4 years and a day earlier that nobody asked."""
    from rates_xl.addin.officejs.app import Calls
    from rates_xl.addin.officejs.batch import run_batch

    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    formula = f'=RATES.DISCOUNT("SOFR",B1,"{PINNED}")'
    calls = Calls([{"fn": "DISCOUNT", "args": ["SOFR", SEP_2028 - SHIFT, PINNED]},
                   {"fn": "SOURCE", "args": [None], "source": {"where": "Sheet1!A1", "formula": formula,
                                                              "sheet": "Sheet1",
                                                              "values": {"Sheet1!B1": SEP_2028 - SHIFT}}}])
    calls.date1904 = True
    outcomes, _report = run_batch(calls, client)
    client.close()
    assert isinstance(outcomes[0]["value"], float), outcomes[0]
    rows = outcomes[1]["value"]
    assert rows[0] == ["Request", f"discount_factor?date=2028-09-01&index=SOFR&valuation_time={PINNED}"], rows
