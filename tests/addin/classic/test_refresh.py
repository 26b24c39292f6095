"""Refresh scopes: pure logic, then through the xlwings UDFs with a tiny fake caller."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from rates_xl.addin.classic import refresh
from rates_xl.addin.classic.refresh import RefreshRegistry, RefreshScope, floor_for, request_refresh
from rates_xl.addin.classic.udfs import UDFS


def test_scopes_cover_book_sheet_and_cells():
    book = RefreshScope("Pricer.xlsx")
    sheet = RefreshScope("Pricer.xlsx", "Curves")
    cells = RefreshScope("Pricer.xlsx", "Curves", frozenset({"$B$2:$C$10", "E5"}))
    assert book.covers("pricer.XLSX", "Anything", "Z99")  # names fold case, as in Excel
    assert not book.covers("Other.xlsx", "Curves", "B2")
    assert sheet.covers("Pricer.xlsx", "curves", "A1") and not sheet.covers("Pricer.xlsx", "Inputs", "A1")
    assert cells.covers("Pricer.xlsx", "Curves", "$B$2") and cells.covers("Pricer.xlsx", "Curves", "C10")
    assert cells.covers("Pricer.xlsx", "Curves", "$E$5:$F$20")  # a spill: its anchor decides
    assert not cells.covers("Pricer.xlsx", "Curves", "D5")
    assert not cells.covers("Pricer.xlsx", "Curves", "B11")
    assert RefreshScope("B", "S", "A1:B2,C3").cells == frozenset({"A1:B2", "C3"})


@pytest.mark.parametrize(
    "kwargs, message",
    [({"book": ""}, "needs a workbook"), ({"book": "B", "cells": frozenset({"A1"})}, "needs the sheet"),
     ({"book": "B", "sheet": "S", "cells": frozenset({"1A"})}, "not an A1"),
     ({"book": "B", "sheet": "S", "cells": frozenset()}, "at least one cell")],
)
def test_malformed_scopes_fail_early(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RefreshScope(**kwargs)


def test_newest_floor_wins_and_same_target_replaces():
    registry = RefreshRegistry(max_scopes=3)
    registry.request(RefreshScope("B"), moment=100.0)
    registry.request(RefreshScope("B", "S"), moment=200.0)
    assert registry.floor_for("B", "S", "A1") == 200.0  # the sheet's newer floor
    assert registry.floor_for("B", "T", "A1") == 100.0  # only the book's
    registry.request(RefreshScope("b"), moment=300.0)  # same target (folded): replaced, not added
    assert len(registry) == 2
    assert registry.floor_for("B", "T", "A1") == 300.0
    assert registry.floor_for("C", "S", "A1") is None


def test_registry_is_bounded_oldest_request_goes():
    registry = RefreshRegistry(max_scopes=3)
    for n in range(5):
        registry.request(RefreshScope(f"Book{n}"), moment=float(n))
    assert len(registry) == 3
    assert registry.floor_for("Book0", "S", "A1") is None
    assert registry.floor_for("Book4", "S", "A1") == 4.0


def test_request_refresh_defaults_to_now():
    before = time.time()
    floor = request_refresh(RefreshScope("B", "S", frozenset({"A1"})))
    assert before <= floor <= time.time()
    assert floor_for("B", "S", "A1") == floor and floor_for("B", "S", "A2") is None


# -- through the UDFs ----------------------------------------------------------------------------

def _cell(book: str, sheet: str, address: str):
    """Just what a UDF reads of xlwings' caller Range."""
    return SimpleNamespace(address=address, sheet=SimpleNamespace(name=sheet, book=SimpleNamespace(name=book)))


SWAP = ("SOFR", "0D", "10Y", "1Y")


def test_a_floor_forces_one_refetch_per_request_not_per_cell(client):
    a1, a2, other = _cell("Book1", "Sheet1", "$A$1"), _cell("Book1", "Sheet1", "$A$2"), _cell("Book1", "Sheet2", "$A$1")
    UDFS["RATES_SWAP"](*SWAP, caller=a1)
    UDFS["RATES_SWAPCURVE"]("SOFR", caller=other)
    assert client.stats()["requests_sent"] == 2

    request_refresh(RefreshScope("Book1", "Sheet1"))
    UDFS["RATES_SWAP"](*SWAP, caller=a1)  # stale under the floor: fetched afresh
    assert client.stats()["requests_sent"] == 3
    UDFS["RATES_SWAP"](*SWAP, caller=a2)  # same request, same floor: the fresh answer is cached
    UDFS["RATES_SWAP"](*SWAP, caller=a1)  # recalculated again later: still no new request
    assert client.stats()["requests_sent"] == 3
    UDFS["RATES_SWAPCURVE"]("SOFR", caller=other)  # outside the scope: keeps its cache
    UDFS["RATES_SWAP"](*SWAP, caller=None)  # called from VBA (no caller): no floor
    assert client.stats()["requests_sent"] == 3


def test_selection_scope_refreshes_only_its_cells(client):
    inside, outside = _cell("B.xlsx", "S", "$C$3"), _cell("B.xlsx", "S", "$D$4")
    UDFS["RATES_FXSPOT"]("EURUSD", caller=inside)
    UDFS["RATES_FXSPOT"]("GBPUSD", caller=outside)
    assert client.stats()["requests_sent"] == 2
    request_refresh(RefreshScope("B.xlsx", "S", frozenset({"C3"})))
    UDFS["RATES_FXSPOT"]("GBPUSD", caller=outside)
    assert client.stats()["requests_sent"] == 2
    UDFS["RATES_FXSPOT"]("EURUSD", caller=inside)
    assert client.stats()["requests_sent"] == 3


def test_an_older_floor_does_not_refetch(client):
    floor = request_refresh(RefreshScope("B"), moment=time.time() - 60)
    UDFS["RATES_TENORS"]("SOFR", caller=_cell("B", "S", "A1"))
    UDFS["RATES_TENORS"]("SOFR", caller=_cell("B", "S", "A1"))
    assert client.stats()["requests_sent"] == 1 and floor < time.time()


def test_an_unreadable_caller_means_no_floor(client):
    request_refresh(RefreshScope("B"))

    class Broken:
        @property
        def sheet(self):
            raise RuntimeError("COM busy")

        address = "A1"

    assert isinstance(UDFS["RATES_FXSPOT"]("EURUSD", caller=Broken()), float)
    assert isinstance(UDFS["RATES_FXSPOT"]("EURUSD", caller=Broken()), float)
    assert client.stats()["requests_sent"] == 1


def test_the_caller_is_not_read_when_no_refresh_is_registered(client):
    class Untouchable:
        def __getattr__(self, name):
            raise AssertionError("the caller must not be read: COM calls are slow")

    assert not refresh.has_scopes()
    assert isinstance(UDFS["RATES_FXSPOT"]("EURUSD", caller=Untouchable()), float)


def test_using_client_lends_a_client_and_gives_the_shared_one_back(monkeypatch):
    from rates_xl.client import RatesClient
    from rates_xl.functions import core, get_client, set_client, using_client

    monkeypatch.setenv("RATES_BASE_URL", "http://127.0.0.1:9")
    set_client(None)
    lent = RatesClient(base_url="http://127.0.0.1:8", api_key="lent")
    with using_client(lent):
        assert get_client() is lent
    assert core._client is None  # nothing was built on the way out
    assert get_client().base_url == "http://127.0.0.1:9"
    set_client(None)
    lent.close()
