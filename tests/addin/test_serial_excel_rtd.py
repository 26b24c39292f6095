"""The serial-Excel stand-in's RTD machinery (tests/support/serial_excel_rtd.py) does what
Excel documents: ConnectData once per topic, nothing shown before Excel pulls, RefreshData
at most once per throttle interval and only when Excel is ready, the subscribed cells and
their dependents recalculated, DisconnectData when the last formula using a topic leaves,
ServerTerminate when the server has no topic left, #N/A for a failed server.

The server here is a recording double written the way pywin32 presents Excel's calls
(ByRef arguments returned), as pywin32's excelRTDServer.py demo does.
"""

from __future__ import annotations

import pytest

from tests.support import serial_excel
from tests.support.serial_excel_rtd import DEFAULT_THROTTLE_SECONDS

PROGID = "RatesXL.Test.RTD"


class RecordingServer:
    """Answers "waiting" on connect; `publish` sets new values and rings Excel's bell."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []
        self.values: dict[int, object] = {}
        self.changed: set[int] = set()
        self.callback = None
        self.alive = 1

    def ServerStart(self, callback):  # noqa: N802
        self.calls.append(("ServerStart",))
        self.callback = callback
        return 1

    def ConnectData(self, topic_id, strings, get_new_values):  # noqa: N802
        self.calls.append(("ConnectData", topic_id, tuple(strings)))
        self.values[topic_id] = "waiting"
        return "waiting", True

    def RefreshData(self, topic_count):  # noqa: N802
        self.calls.append(("RefreshData",))
        ids = sorted(self.changed)
        self.changed.clear()
        return (ids, [self.values[i] for i in ids]), len(ids)

    def DisconnectData(self, topic_id):  # noqa: N802
        self.calls.append(("DisconnectData", topic_id))
        self.values.pop(topic_id, None)

    def Heartbeat(self):  # noqa: N802
        return self.alive

    def ServerTerminate(self):  # noqa: N802
        self.calls.append(("ServerTerminate",))

    def publish(self, topic_id, value):
        self.values[topic_id] = value
        self.changed.add(topic_id)
        self.callback.UpdateNotify()

    def named(self, name):
        return [c for c in self.calls if c[0] == name]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def excel():
    """(app, server, clock): an Excel with one RTD server registered under PROGID."""
    server, clock = RecordingServer(), Clock()
    app = serial_excel.App()
    app.use_rtd({PROGID: lambda: server}, clock=clock)
    return app, server, clock


def rtd(topic: str) -> str:
    return f'=RTD("{PROGID}",,"{topic}")'


def test_one_connect_per_topic_shared_by_cells_and_the_first_value_shown(excel):
    app, server, _ = excel
    book = app.add_book("A.xlsx", {"S": {"A1": rtd("SOFR"), "A2": rtd("SOFR"), "A3": rtd("ESTR")}})
    app.calculate_full()
    sheet = book.sheets[0]
    assert [c[0] for c in server.calls] == ["ServerStart", "ConnectData", "ConnectData"]
    assert [c[2] for c in server.named("ConnectData")] == [("SOFR",), ("ESTR",)]
    assert sheet.range("A1:A3").value == ["waiting", "waiting", "waiting"]


def test_an_update_shows_only_when_excel_pulls_at_most_once_per_throttle_interval(excel):
    app, server, clock = excel
    book = app.add_book("A.xlsx", {"S": {"A1": rtd("SOFR"), "B1": "=A1*2", "C1": 7}})
    app.calculate_full()
    sheet = book.sheets[0]
    app.rtd.idle()  # nothing rung yet: no pull
    assert server.named("RefreshData") == []
    topic = server.named("ConnectData")[0][1]

    server.publish(topic, 0.05)
    assert sheet.range("A1").value == "waiting"  # UpdateNotify does not write the cell
    assert app.rtd.idle() is True  # the first pull: no interval to wait for
    assert sheet.range("A1").value == 0.05 and sheet.range("B1").value == 0.1  # dependents too

    server.publish(topic, 0.06)
    clock.now += DEFAULT_THROTTLE_SECONDS - 0.5
    assert app.rtd.idle() is False and sheet.range("A1").value == 0.05  # within 2 s: waits
    clock.now += 0.5
    assert app.rtd.idle() is True and sheet.range("A1").value == 0.06
    assert len(server.named("RefreshData")) == 2


def test_no_pull_while_excel_is_not_ready(excel):
    app, server, clock = excel
    book = app.add_book("A.xlsx", {"S": {"A1": rtd("SOFR")}})
    app.calculate_full()
    server.publish(server.named("ConnectData")[0][1], 1.5)
    app.ready = False  # a cell in edit mode
    clock.now += 10
    assert app.rtd.idle() is False and server.named("RefreshData") == []
    app.ready = True
    assert app.rtd.idle() is True and book.sheets[0].range("A1").value == 1.5


def test_the_last_formula_leaving_a_topic_disconnects_it_and_the_server_terminates(excel):
    app, server, _ = excel
    book = app.add_book("A.xlsx", {"S": {"A1": rtd("SOFR"), "A2": rtd("SOFR"), "A3": rtd("ESTR")}})
    app.calculate_full()
    sofr, estr = (c[1] for c in server.named("ConnectData"))
    sheet = book.sheets[0]
    sheet.range("A1").value = 1  # one of two SOFR cells: the topic stays
    assert server.named("DisconnectData") == []
    sheet.range("A2").value = 2
    assert server.named("DisconnectData") == [("DisconnectData", sofr)]
    sheet.range("A3").formula = "=1+1"  # a formula that no longer calls RTD
    app.calculate()
    assert server.named("DisconnectData")[-1] == ("DisconnectData", estr)
    assert server.calls[-1] == ("ServerTerminate",)


def test_closing_a_book_disconnects_only_the_topics_no_open_book_uses(excel):
    app, server, _ = excel
    first = app.add_book("A.xlsx", {"S": {"A1": rtd("SOFR"), "A2": rtd("ESTR")}})
    second = app.add_book("B.xlsx", {"S": {"A1": rtd("SOFR")}})
    app.calculate_full()
    sofr, estr = (c[1] for c in server.named("ConnectData"))
    app.close_book(first)
    assert server.named("DisconnectData") == [("DisconnectData", estr)]
    server.publish(sofr, 3.0)
    assert app.rtd.idle() and second.sheets[0].range("A1").value == 3.0


def test_a_failed_server_leaves_na(excel):
    app, server, _ = excel
    book = app.add_book("A.xlsx", {"S": {"A1": rtd("SOFR"), "B1": '=RTD("Not.Registered",,"x")'}})
    app.calculate_full()
    sheet = book.sheets[0]
    assert str(sheet.range("B1").value) == "#N/A"
    server.alive = 0
    app.rtd.heartbeat()
    assert str(sheet.range("A1").value) == "#N/A"
