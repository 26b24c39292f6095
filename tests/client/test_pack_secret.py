"""A market-data pack never holds the API key, nor half of it: not in the pack file, not in
the workbook that carries it, even when the service echoes the key back."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from rates_xl.client import errors
from rates_xl.client.pack import public_url
from rates_xl.client.pack_workbook import beside, write_pack
from tests.client.conftest import SECRET
from tests.support.faultserver import Reply

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
HALVES = [SECRET, SECRET[: len(SECRET) // 2], SECRET[len(SECRET) // 2:]]


def _echoing(arrival):
    """A service that repeats the key it was sent: in an answer's extra field, in a refusal."""
    key = arrival.headers.get("x-api-key", "")
    if arrival.path == "/v1/fixing":
        return Reply(status=404, body={"detail": f"no fixing for key {key}"})
    return Reply(body={"currency_pair": "EURUSD", "valuation_time": "2026-04-01T16:00:00Z",
                       "rate": 1.17732, "served_to": key, "half": key[: len(key) // 2]})


def _assert_no_key(data: bytes, where: str) -> None:
    for piece in HALVES:
        assert piece.encode() not in data, f"{where} holds {len(piece)} characters of the key"


def test_neither_the_pack_nor_the_workbook_holds_the_key(server, make_client, tmp_path):
    server.responder = _echoing
    client = make_client()
    with client.recording() as recorder:
        assert client.fx_spot("EURUSD").rate == 1.17732
        with pytest.raises(errors.NotFound):
            client.fixing("SOFR", "2025-12-01")
    pack = recorder.pack()
    assert len(pack.answers) == 2
    assert SECRET in json.dumps([a.headers for a in server.arrivals])  # the key really went out
    text = pack.dumps().encode()
    _assert_no_key(text, "the pack")
    assert b"[api key]" in text  # the echoed key was there to leak, and was removed
    book = tmp_path / "swap_pricer.xlsx"
    shutil.copy(TEMPLATES / "swap_pricer.xlsx", book)
    write_pack(book, pack)
    pack.write(beside(book))
    _assert_no_key(book.read_bytes(), "the workbook file")
    with zipfile.ZipFile(book) as archive:
        for name in archive.namelist():
            _assert_no_key(archive.read(name), f"the workbook part {name}")
    _assert_no_key(beside(book).read_bytes(), "the pack beside the book")


def test_nothing_secret_of_the_base_url_is_recorded():
    assert public_url("https://user:s3cret-pass@api.example.com:8443/base/?token=abc") == \
        "https://api.example.com:8443/base"
    assert public_url("http://[::1]:8080/") == "http://[::1]:8080"
