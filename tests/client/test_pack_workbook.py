"""The pack inside a workbook (a custom XML part) and beside it; what other programs keep."""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import openpyxl
import pytest

from rates_xl.client.client import RequestKey
from rates_xl.client.pack import PackError, PackRecorder
from rates_xl.client.pack_workbook import beside, read_pack, require_pack, write_pack

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def _pack(n: int, *, seed: int = 0):
    """A pack of `n` distinct swap-rate answers, each as the service would write it."""
    recorder = PackRecorder("https://api.example.com")
    for i in range(n):
        months = 1 + i
        key = RequestKey("swap_rate", (("fixed_leg_frequency", "1Y"), ("index", "SOFR"),
                                       ("maturity_date", f"{months}M"), ("start_date", "0D"),
                                       ("valuation_time", "2026-04-01T16:00:00Z")))
        raw = ('{"index":"SOFR","start_date":"2026-04-03","maturity_date":"2036-04-03",'
               '"fixed_leg_first_payment_date":"2027-04-03","floating_leg_first_payment_date":"2027-04-03",'
               '"floating_leg_frequency":"12M","floating_leg_day_count":"Actual360","fixed_leg_frequency":"12M",'
               '"fixed_leg_day_count":"Actual360","valuation_time":"2026-04-01T16:00:00Z",'
               f'"swap_rate":{3 + ((i * 7919 + seed) % 10007) / 10007:.15f}}}')
        recorder.record(key, None, 1_775_059_200.0 + i * 0.013, raw=raw)
    return recorder.pack()


@pytest.fixture
def book(tmp_path):
    target = tmp_path / "swap_pricer.xlsx"
    shutil.copy(TEMPLATES / "swap_pricer.xlsx", target)
    return target


def _parts(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_pack_goes_in_and_comes_back_leaving_every_other_part_as_it_was(book):
    before = _parts(book)
    pack = _pack(3)
    write_pack(book, pack)
    assert read_pack(book) == pack
    after = _parts(book)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"[Content_Types].xml", "xl/_rels/workbook.xml.rels"}
    added = set(after) - set(before)
    assert added == {"customXml/item1.xml", "customXml/itemProps1.xml", "customXml/_rels/item1.xml.rels"}
    rels = after["xl/_rels/workbook.xml.rels"].decode()
    assert 'relationships/customXml" Target="../customXml/item1.xml"' in rels
    assert "customXmlProperties+xml" in after["[Content_Types].xml"].decode()
    # Written again: replaced in place, not added twice.
    second = _pack(4, seed=1)
    write_pack(book, second)
    assert read_pack(book) == second
    assert set(_parts(book)) == set(after)
    openpyxl.load_workbook(book)  # still a workbook openpyxl reads


def test_a_book_without_a_pack_says_so_in_one_line(book):
    assert read_pack(book) is None
    with pytest.raises(PackError) as missing:
        require_pack(book)
    assert "carries no market-data pack" in str(missing.value)
    assert "swap_pricer.pack.json" in str(missing.value)


def test_a_pack_beside_the_book_is_found_when_none_is_inside(book):
    pack = _pack(2)
    pack.write(beside(book))
    assert beside(book).name == "swap_pricer.pack.json"
    assert require_pack(book) == pack


def test_openpyxl_drops_the_part_and_we_notice(book):
    """openpyxl rebuilds the package from what it understands: custom XML parts are lost.
    Replay must then refuse, not run against an empty pack."""
    write_pack(book, _pack(2))
    workbook = openpyxl.load_workbook(book)
    workbook.save(book)
    assert read_pack(book) is None
    with pytest.raises(PackError, match="carries no market-data pack"):
        require_pack(book)


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed")
def test_libreoffice_keeps_the_part(book, tmp_path):
    """LibreOffice Calc's xlsx export writes the package anew. Measured with LibreOffice 7.4:
    it carries the custom XML part over (the pack reads back unchanged), but moves its
    relationship from the workbook part to the package root, keeping the target
    `../customXml/item1.xml` (wrong from there). Writing a pack again puts it back."""
    pack = _pack(2)
    write_pack(book, pack)
    out = tmp_path / "converted"
    profile = tmp_path / "lo-profile"
    subprocess.run(["soffice", f"-env:UserInstallation=file://{profile}", "--headless",
                    "--convert-to", "xlsx", "--outdir", str(out), str(book)],
                   check=True, capture_output=True, timeout=180, env={**os.environ, "HOME": str(tmp_path)})
    converted = out / "swap_pricer.xlsx"
    assert _parts(converted) != _parts(book)  # really rewritten by LibreOffice
    assert read_pack(converted) == pack
    assert "relationships/customXml" not in _parts(converted)["xl/_rels/workbook.xml.rels"].decode()
    assert 'customXml" Target="../customXml/item1.xml"' in _parts(converted)["_rels/.rels"].decode()
    write_pack(converted, pack)  # repaired: reachable from the workbook part again
    rels = _parts(converted)["xl/_rels/workbook.xml.rels"].decode()
    assert 'relationships/customXml" Target="../customXml/item1.xml"' in rels
    assert read_pack(converted) == pack


def test_a_pack_of_500_requests_adds_less_than_1_mb(book):
    size = book.stat().st_size
    pack = _pack(500)
    write_pack(book, pack)
    added = book.stat().st_size - size
    assert added < 1 << 20
    assert len(pack.dumps()) > added  # the zip's own deflate does the compressing
    print(f"500 answers: pack JSON {len(pack.dumps())} bytes, workbook grows by {added} bytes")


def test_another_custom_xml_part_is_left_alone(book):
    """A book may already carry custom XML (document-management metadata, say): the pack
    takes the next free item number and the other part stays as it was."""
    foreign = b'<?xml version="1.0"?><metadata xmlns="urn:example:dms"><owner>desk</owner></metadata>'
    with zipfile.ZipFile(book, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("customXml/item1.xml", foreign)
    pack = _pack(1)
    write_pack(book, pack)
    parts = _parts(book)
    assert parts["customXml/item1.xml"] == foreign
    assert b"urn:rates-xl:market-data-pack" in parts["customXml/item2.xml"]
    assert read_pack(book) == pack
