"""Books reopened mid-flight and answers that race the subscription (issue 28), on the
serial-Excel stand-in, whose RTD model now holds what the fixes rely on
(tests/support/serial_excel_rtd.py, each behaviour with its source):

- Excel recalculates a topic's cells only when RefreshData *changes* its value;
- a saved book keeps its RTD topics with their last values, and Excel reconnects them on
  open (ConnectData with GetNewValues False) without recalculating the book;
- an RTD server that cannot be created fails at once (no LocalServer32 to wait for).

Each test below fails on the code before this issue: the cell stayed #N/A.
"""

from __future__ import annotations

import threading

import pytest

from rates_xl.addin.classic import ribbon, rtd, rtd_server
from tests.support import rtd_fixtures, serial_excel_rtd
from tests.support.async_excel import async_app, cell_values, settle

clean, client = rtd_fixtures.clean, rtd_fixtures.client  # the shared fixtures, by name

THROTTLE = 0.05
SWAPS = {f"A{i}": f'=RATES_SWAP("SOFR","0D","{i}Y","1Y")' for i in range(1, 5)}


def waiting(book) -> list:
    return [(where, v) for where, v in cell_values(book).items() if str(v) == "#N/A"]


def test_an_unchanged_rtd_value_recalculates_nothing_in_the_model():
    """The model itself: a RefreshData that repeats a topic's value leaves its cell alone."""
    from tests.support import serial_excel

    class Repeats:
        values = ["same", "same", "changed"]

        def ServerStart(self, callback):  # noqa: N802
            self.callback = callback
            return 1

        def ConnectData(self, topic_id, strings, new):  # noqa: N802
            self.id = topic_id
            return "same", True

        def RefreshData(self, count):  # noqa: N802
            return ([self.id], [self.values.pop(0)]), 1

        def DisconnectData(self, topic_id):  # noqa: N802
            pass

    app = serial_excel.App()
    host = app.use_rtd({"X.RTD": Repeats}, clock=lambda: 100.0)
    book = app.add_book("M.xlsx", {"S": {"A1": '=RTD("X.RTD",,"t")'}})
    app.calculate_full()
    evaluated = app.evaluated
    for _ in range(2):
        host.servers["x.rtd"].callback.UpdateNotify()
        host.pull()
        assert app.evaluated == evaluated  # no recalculation for a repeated value
    host.pull()
    assert app.evaluated == evaluated + 1 and book.sheets[0].range("A1").value == "changed"


def test_an_answer_that_lands_before_connectdata_still_fills_the_cell(client):
    """The race: the request is answered between the cell's miss and Excel's ConnectData."""
    answered = threading.Event()

    class Late(rtd_server.RtdServer):
        def ConnectData(self, topic_id, strings, new):  # noqa: N802
            for _ in range(1000):  # Excel gets round to subscribing only after the answer
                if rtd.waits.pending() == 0:
                    answered.set()
                    break
                threading.Event().wait(0.005)
            return super().ConnectData(topic_id, strings, new)

    app = async_app(throttle=THROTTLE)
    app.rtd.factories[rtd.PROGID.casefold()] = Late
    book = app.add_book("Race.xlsx", {"S": {}})
    book.sheets[0].paste({"A1": SWAPS["A1"], "B1": "=A1*2"})
    assert answered.is_set()
    settle(app)
    assert waiting(book) == []
    rate = client.swap_rate("SOFR", "0D", "1Y", "1Y").swap_rate
    assert book.sheets[0].range("A1").value == pytest.approx(rate)
    assert book.sheets[0].range("B1").value == pytest.approx(2 * rate)


def test_a_book_saved_with_waiting_cells_reopened_in_a_new_session_fills(client):
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Saved.xlsx", {"S": {}})
    book.sheets[0].paste({**SWAPS, "B1": "=SUM(A1:A4)"})
    saved = serial_excel_rtd.save(app, book)  # saved at once: every cell still #N/A
    assert len(waiting(book)) == 5 and {t.value for t in saved.topics} == {rtd.FETCHING}
    client.clear_cache()  # what the new session's memory holds: nothing

    # Another Excel session: a new UDF server (no waits), the book opened from the file.
    again = async_app(throttle=THROTTLE)
    reopened, failed = serial_excel_rtd.reopen(again, saved)
    assert failed == []
    settle(again)
    assert waiting(reopened) == []
    sheet = reopened.sheets[0]
    values = [sheet.range(a).value for a in SWAPS]
    assert all(isinstance(v, float) for v in values)
    assert sheet.range("B1").value == pytest.approx(sum(values))


def test_a_book_opened_before_the_addins_python_fills_once_the_addin_starts(client):
    """Excel reconnects the saved topics before the add-in's Python runs: with no LocalServer32
    the RTD server cannot be created and fails at once (never a wait for a server that never
    registers); the add-in's start (RatesOnLoad -> OnTime -> RatesStart -> ribbon_refresh.start)
    recalculates the cells that show no answer."""
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Early.xlsx", {"S": {}})
    book.sheets[0].paste({**SWAPS, "B1": "=SUM(A1:A4)"})
    saved = serial_excel_rtd.save(app, book)
    client.clear_cache()

    again = async_app(throttle=THROTTLE)

    def not_running():
        raise serial_excel_rtd.ComError(-2147221164, "Class not registered")  # REGDB_E_CLASSNOTREG

    working = again.rtd.factories[rtd.PROGID.casefold()]
    again.rtd.factories[rtd.PROGID.casefold()] = not_running
    reopened, failed = serial_excel_rtd.reopen(again, saved)
    assert len(failed) == len(saved.topics)
    assert len(waiting(reopened)) == 5  # the saved #N/A, and nothing will recalculate it...
    again.rtd.factories[rtd.PROGID.casefold()] = working  # ...until the add-in's Python starts
    summary = ribbon.on_action(ribbon.START_ACTION, book=reopened)
    assert summary.startswith("started; 4 cells")
    settle(again)
    assert waiting(reopened) == []


def test_in_manual_mode_the_start_only_marks_the_cells(client):
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Manual.xlsx", {"S": {}})
    book.sheets[0].paste(dict(SWAPS))
    saved = serial_excel_rtd.save(app, book)
    again = async_app(throttle=THROTTLE)
    again.calculation = "manual"
    reopened, _ = serial_excel_rtd.reopen(again, saved)
    evaluated = again.evaluated
    ribbon.on_action(ribbon.START_ACTION, book=reopened)
    assert again.evaluated == evaluated  # nothing calculated: the user's F9 does it
    assert {c for c in reopened.sheets[0].dirty} == {(i, 1) for i in range(1, 5)}
