"""The API key never appears anywhere a user, a log collector or a shared file could see it:
cell outputs, log records, exception texts, stats dumps, the status panel, the console, or a
written workbook. Every artefact of a session that exercises every function, every error
path and the key's own failure modes is collected and searched for the key."""

from __future__ import annotations

import json
import logging
import traceback
import zipfile
from pathlib import Path

import pytest

from rates_xl.client import RatesClient, RatesError
from rates_xl.functions import FUNCTIONS, set_client
from tests.support.cells import GOOD_CELLS
from tests.support.faultserver import FaultServer, Reply
from tests.support.sandbox import free_port

SECRET = "rk-live-7Hq2Zp9Xw4LmV1cT"  # a paid key of an extra sandbox customer
EXPIRED_SECRET = "rk-trial-Jd83kLq0Pz5Ws2"  # that customer's old trial key
UNKNOWN_SECRET = "rk-live-Nn4Yt6Rb8Cv1Qa9U"  # a key the service does not know
SECRETS = (SECRET, EXPIRED_SECRET, UNKNOWN_SECRET)

# One good cell per function, and a few bad ones.
GOOD = {**GOOD_CELLS, "RATES_STATUS": ()}
BAD = [
    ("RATES_SWAP", ("SOFR", "0D", "10X", "1Y")),  # validation
    ("RATES_SWAP", ("NOT AN INDEX", "0D", "5Y", "1Y")),  # 422
    ("RATES_FIXING", ("SOFR", "2026-11-22")),  # a Sunday: 404
    ("RATES_SWAP", ("SOFR", "5Y", "0D", "1Y")),  # maturity before start: 400
]


def leaked(text: str) -> list[str]:
    """Which secrets (or a recognisable half of one) appear in text."""
    return [s for s in SECRETS if s in text or s[-12:] in text or s[:14] in text]


def cells_text(values) -> str:
    return json.dumps(values, default=str)


class Artefacts(dict):
    """Texts collected by a test, by name; `check()` adds the log records and searches all."""

    def __init__(self, caplog) -> None:
        super().__init__()
        self.caplog = caplog

    def check(self) -> None:
        self["log records"] = self.caplog.text + "\n".join(
            f"{r.name} {r.levelname} {r.getMessage()} {r.args!r} {r.exc_text or ''}"
            for r in self.caplog.records)
        assert len(self["log records"]) > 0  # the search reads real records
        problems = {name: leaked(text) for name, text in self.items() if leaked(text)}
        assert not problems, f"the key appears in: {sorted(problems)}"


@pytest.fixture
def artefacts(caplog):
    caplog.set_level(logging.DEBUG)  # every logger, every level: urllib3, the client, the sandbox
    return Artefacts(caplog)


def exercise(client: RatesClient) -> dict[str, str]:
    """Every function (good and bad cells) and the client's own methods; returns the texts."""
    set_client(client)
    try:
        values = {name: FUNCTIONS[name].core(*args) for name, args in GOOD.items()}
        values.update({f"bad {i}": FUNCTIONS[n].core(*a) for i, (n, a) in enumerate(BAD)})
    finally:
        set_client(None)
    errors = []
    for call in (lambda: client.swap_rate("SOFR", "0D", "5Y", "1Y"),
                 lambda: client.get("fixing", index="SOFR", valuation_date="2026-11-22"),
                 lambda: client.swap_rate("NOT AN INDEX", "0D", "5Y", "1Y")):
        try:
            call()
        except RatesError as exc:
            errors.append("".join(traceback.format_exception(exc)) + repr(exc) + str(exc)
                          + repr(vars(exc)))
    dumps = [json.dumps(client.stats(), default=str), repr(client), repr(client.settings),
             str(client.settings), client.settings.model_dump_json(), str(client.settings.model_dump())]
    return {"cells": cells_text(values), "exceptions": "\n".join(errors), "stats": "\n".join(dumps),
            "_values": values}


def test_the_key_never_appears_in_any_artefact(sandbox_factory, artefacts, tmp_path, monkeypatch, capsys):
    service = sandbox_factory(rate_limit=1000, burst=1000,
                              extra_keys={SECRET: "paid", EXPIRED_SECRET: "expired"})
    runs = {}
    for label, key, base_url in [
        ("paid", SECRET, service.base_url),
        ("expired", EXPIRED_SECRET, service.base_url),
        ("unknown", UNKNOWN_SECRET, service.base_url),
        ("down", SECRET, f"http://127.0.0.1:{free_port()}"),
    ]:
        with RatesClient(base_url=base_url, api_key=key, backoff=0.01, max_backoff=0.02) as client:
            runs[label] = exercise(client)
    # The paid key computed real values; the others said why not, naming no key.
    assert isinstance(runs["paid"]["_values"]["RATES_SWAP"], float)
    assert "trial key has expired" in runs["expired"]["_values"]["RATES_SWAP"]
    assert "API key was not accepted" in runs["unknown"]["_values"]["RATES_SWAP"]
    assert "connection refused" in runs["down"]["_values"]["RATES_SWAP"]
    for label, texts in runs.items():
        for kind in ("cells", "exceptions", "stats"):
            artefacts[f"{kind} ({label})"] = texts[kind]

    # A workbook written from the cells, searched byte by byte (every part of the zip).
    import xlsxwriter

    book_path = tmp_path / "cells.xlsx"
    with xlsxwriter.Workbook(book_path) as book:
        sheet = book.add_worksheet("cells")
        row = 0
        for label, texts in runs.items():
            for name, value in texts["_values"].items():
                for line in value if isinstance(value, list) else [[value]]:
                    sheet.write_row(row, 0, [label, name, *[str(v) for v in line]])
                    row += 1
    artefacts["written workbook"] = workbook_text(book_path)

    # The console: `rates-xl call` with the key in the environment, good and refused.
    from rates_xl.cli import main

    monkeypatch.setenv("RATES_BASE_URL", service.base_url)
    for key in (SECRET, EXPIRED_SECRET):
        monkeypatch.setenv("RATES_API_KEY", key)
        main(["call", "swap_rate", "index=SOFR", "start_date=0D", "maturity_date=5Y", "fixed_leg_frequency=1Y"])
    out = capsys.readouterr()
    assert "403" in out.err  # the expired key's refusal was printed, without the key
    artefacts["console"] = out.out + out.err

    # A workbook computed headless (`rates-xl calc`'s engine), with the key in the environment.
    calc = pytest.importorskip("rates_xl.calc.workbook")
    monkeypatch.setenv("RATES_API_KEY", SECRET)
    set_client(None)
    source = tmp_path / "book.xlsx"
    with xlsxwriter.Workbook(source) as book:
        sheet = book.add_worksheet("Rates")
        sheet.write_formula("A1", '=RATES_SWAP("SOFR","0D","5Y","1Y")')
        sheet.write_formula("A2", '=RATES_FIXING("SOFR","2026-11-22")')
        sheet.write_formula("A3", "=RATES_STATUS()")
    computed = calc.calculate(source, tmp_path / "computed.xlsx")
    set_client(None)
    artefacts["calc result"] = repr(computed)
    artefacts["computed workbook"] = workbook_text(tmp_path / "computed.xlsx")
    assert "SOFR" in artefacts["written workbook"]  # the search reads real content
    assert "Rates" in artefacts["computed workbook"]
    artefacts.check()


def _echo(arrival) -> Reply:
    """A service that repeats the key it was sent in its error answers."""
    key = arrival.headers.get("x-api-key", "")
    return {
        "/v1/swap_rate": Reply(status=403, body={"detail": f"Invalid API key {key}"}),
        "/v1/fx": Reply(status=400, body={"detail": [{"loc": ["query", "x-api-key"], "msg": key}]}),
        "/v1/get_swap_curve": Reply(status=502, body=f"<html><body>upstream {key}</body></html>"),
        "/v1/discount_factor": Reply(status=422, body={"detail": f"key {key} cannot ask that"}),
    }.get(arrival.path, Reply(status=404, body={"detail": f"nothing for {key}"}))


ECHOED = ("RATES_SWAP", "RATES_FXSPOT", "RATES_SWAPCURVE", "RATES_DISCOUNT", "RATES_FIXING")


@pytest.fixture
def echoing_server():
    server = FaultServer()
    server.responder = _echo
    yield server
    server.stop()


def test_a_service_that_echoes_the_key_does_not_leak_it_into_cells_or_logs(
        artefacts, use_client, echoing_server):
    """Some services repeat the key in an error detail or an HTML page: the cells and the
    logs must still not show it."""
    use_client(RatesClient(base_url=echoing_server.base_url, api_key=SECRET, backoff=0.01,
                           max_backoff=0.02))
    values = [FUNCTIONS[n].core(*GOOD[n]) for n in ECHOED]
    assert all(isinstance(v, str) and v.startswith("#RATES!") for v in values), values
    assert echoing_server.count() >= len(ECHOED)
    artefacts["cells (echoing service)"] = cells_text(values)
    artefacts.check()


def test_a_service_that_echoes_the_key_does_not_leak_it_into_errors_stats_or_status(
        artefacts, use_client, echoing_server):
    client = use_client(RatesClient(base_url=echoing_server.base_url, api_key=SECRET, backoff=0.01,
                                    max_backoff=0.02))
    texts = []
    for name in ECHOED:
        FUNCTIONS[name].core(*GOOD[name])
        try:
            client.get_key(client.request_key(FUNCTIONS[name].endpoint, **_params(name)))
        except RatesError as exc:
            texts.append("".join(traceback.format_exception(exc)) + repr(exc) + repr(vars(exc)))
    artefacts["exceptions (echoing service)"] = "\n".join(texts)
    artefacts["stats (echoing service)"] = json.dumps(client.stats(), default=str)
    artefacts["RATES_STATUS (echoing service)"] = cells_text(FUNCTIONS["RATES_STATUS"].core())
    assert len(texts) == len(ECHOED)
    artefacts.check()


def _params(name: str) -> dict:
    """The service parameters of GOOD[name], as the function would send them."""
    from rates_xl.functions.core import prepare

    return dict(prepare(FUNCTIONS[name], GOOD[name]).key.params)


def workbook_text(path: Path) -> str:
    with zipfile.ZipFile(path) as archive:
        return "\n".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())


def test_the_search_finds_a_planted_key(caplog):
    """The search is not vacuous: a key in a log record or a workbook is found."""
    caplog.set_level(logging.DEBUG)
    logging.getLogger("rates_xl.test").debug("oops %s", SECRET)
    found = Artefacts(caplog)
    found["cells"] = cells_text([["half a key: " + EXPIRED_SECRET[-12:]]])
    with pytest.raises(AssertionError, match="cells"):
        found.check()
    assert leaked(found["log records"]) == [SECRET]
