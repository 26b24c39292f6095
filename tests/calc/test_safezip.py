"""A zip bomb is refused before any engine inflates it (issue 17, item 5).

The bombs are made here: a valid one-sheet xlsx (XlsxWriter) whose sheet XML holds a long
run of spaces between its elements (valid XML), compressed about 1000:1; and the same with a
header that declares a small size (a lying header). `rates-xl calc` runs on each in a child
process whose peak memory is read back with os.wait4: under 200 MB, one line, exit 1, no
traceback. The child runs under a 4 GB address-space limit, so that code without the check
fails the test instead of taking the shared machine's memory.
"""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import openpyxl
import pytest
import xlsxwriter

from rates_xl.calc import safezip

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "corpus"
SHARED_CORPUS = REPO.parent / "shared" / "corpus" / "excel"
SHEET = "xl/worksheets/sheet1.xml"
MB = 1 << 20


def _parts(sheets: int = 1) -> dict[str, bytes]:
    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True})
    for n in range(1, sheets + 1):
        sheet = book.add_worksheet(f"Sheet{n}")
        sheet.write("A1", n)
        sheet.write_formula("A2", "=A1*2", None, 2 * n)
    book.close()
    with zipfile.ZipFile(buffer) as package:
        return {name: package.read(name) for name in package.namelist()}


def _raw_deflate(data: bytes, final: bool) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush(zlib.Z_FINISH if final else zlib.Z_FULL_FLUSH)


def _bomb_stream(xml: bytes, padding_mb: int) -> tuple[bytes, int, int]:
    """A raw deflate stream of `xml` with `padding_mb` MB of spaces before its closing tag, and
    its (CRC, size). One 1 MB block of spaces, compressed once and repeated: each segment ends
    with a full flush, so the segments join into one valid stream without deflating gigabytes."""
    head, closing, tail = xml.rpartition(b"</worksheet>")
    block = b" " * MB
    block_stream = _raw_deflate(block, final=False)
    stream = _raw_deflate(head, final=False) + block_stream * padding_mb + _raw_deflate(closing + tail, True)
    crc = zlib.crc32(head)
    for _ in range(padding_mb):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(closing + tail, crc)
    return stream, crc, len(head) + padding_mb * MB + len(closing + tail)


def write_package(path: Path, entries: list[tuple[str, bytes, int, int]]) -> Path:
    """A zip of (name, raw deflate stream, CRC, declared size) entries, written field by field
    (zipfile cannot store a stream compressed elsewhere, nor a size that lies)."""
    out, directory = io.BytesIO(), io.BytesIO()
    for name, stream, crc, size in entries:
        offset = out.tell()
        encoded = name.encode()
        fields = (20, 0, zipfile.ZIP_DEFLATED, 0, 0x21, crc, len(stream), size, len(encoded), 0)
        out.write(b"PK\x03\x04" + struct.pack("<HHHHHLLLHH", *fields) + encoded + stream)
        directory.write(b"PK\x01\x02" + struct.pack("<HHHHHHLLLHHHHHLL", 20, 20, 0, zipfile.ZIP_DEFLATED,
                                                    0, 0x21, crc, len(stream), size, len(encoded), 0, 0, 0,
                                                    0, 0o644 << 16, offset) + encoded)
    start, data = out.tell(), directory.getvalue()
    out.write(data + b"PK\x05\x06" + struct.pack("<HHHHLLH", 0, 0, len(entries), len(entries), len(data),
                                                   start, 0))
    path.write_bytes(out.getvalue())
    return path


def make_bomb(path: Path, padding_mb: int, declared: int | None = None, sheets: int = 1) -> Path:
    """A valid xlsx whose every sheet inflates to about `padding_mb` MB; `declared`: the size
    its headers claim instead of the true one."""
    entries = []
    for name, data in _parts(sheets).items():
        if name.startswith("xl/worksheets/sheet"):
            stream, crc, size = _bomb_stream(data, padding_mb)
            entries.append((name, stream, crc, size if declared is None else declared))
        else:
            entries.append((name, _raw_deflate(data, final=True), zlib.crc32(data), len(data)))
    return write_package(path, entries)


#: Runs a command and prints its exit code and peak resident memory (kB). Through this small
#: process because Linux starts a child's ru_maxrss at its parent's peak (exec keeps the
#: high-water mark), and the test session's own is over 200 MB. The 4 GB address-space limit
#: is inherited by the command.
_MEASURE = """
import os, resource, subprocess, sys
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
with open(sys.argv[1], "wb") as out, open(sys.argv[2], "wb") as err:
    child = subprocess.Popen(sys.argv[3:], stdout=out, stderr=err)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped above
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def run_calc(book: Path) -> tuple[int, str, str, int]:
    """`rates-xl calc BOOK` in a child: (exit code, stdout, stderr, peak resident memory in bytes)."""
    out, err = book.with_suffix(".out"), book.with_suffix(".err")
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(out), str(err), sys.executable, "-m",
                           "rates_xl.cli", "calc", "--no-progress", str(book)],
                          capture_output=True, text=True, timeout=600, cwd=book.parent, check=True)
    code, peak_kb = (int(v) for v in done.stdout.split())
    return code, out.read_text(), err.read_text(), peak_kb * 1024


# -- the bombs ----------------------------------------------------------------------------------
def test_the_bomb_is_a_valid_workbook(tmp_path):
    """The test bomb is the real thing: a zip whose every entry reads back, CRC included."""
    book = make_bomb(tmp_path / "small.xlsx", padding_mb=3)
    with zipfile.ZipFile(book) as package:
        assert package.testzip() is None
        assert len(package.read(SHEET)) > 3 * MB
    bomb = make_bomb(tmp_path / "bomb.xlsx", padding_mb=1024)
    info = zipfile.ZipFile(bomb).getinfo(SHEET)
    assert info.file_size > 1 << 30 and info.file_size / info.compress_size > 900
    assert bomb.stat().st_size < 2 * MB


def _ratio(book: Path) -> str:
    info = zipfile.ZipFile(book).getinfo(SHEET)
    return f"{info.file_size / info.compress_size:,.0f}"


def test_calc_refuses_a_bomb_in_one_line_and_bounded_memory(tmp_path):
    bomb = make_bomb(tmp_path / "bomb.xlsx", padding_mb=2048)  # 2 MB that inflate to 2 GB
    code, out, err, peak = run_calc(bomb)
    assert code == 1, (out, err)
    assert err.splitlines() == [
        f"rates-xl calc: {bomb}: refused: the package would inflate to 2.0 GB (entry {SHEET}, "
        f"ratio {_ratio(bomb)}:1); not a workbook rates-xl will open"], err
    assert out == "" and "Traceback" not in err
    assert peak < 200 * MB, f"peak memory {peak / MB:.0f} MB"
    assert not (tmp_path / "bomb.values.xlsx").exists()


def test_calc_refuses_a_header_that_lies_about_its_size(tmp_path):
    """Declared 4 KB (no ratio, no total to object to), holds 1 GB: caught while inflating."""
    bomb = make_bomb(tmp_path / "liar.xlsx", padding_mb=1024, declared=4096)
    compressed = safezip._size(zipfile.ZipFile(bomb).getinfo(SHEET).compress_size)
    code, out, err, peak = run_calc(bomb)
    assert code == 1, (out, err)
    assert err.splitlines() == [
        f"rates-xl calc: {bomb}: refused: entry {SHEET} inflates past the 4 KB its header declares "
        f"(64 KB and more from {compressed}); not a workbook rates-xl will open"], err
    assert out == "" and "Traceback" not in err
    assert peak < 200 * MB, f"peak memory {peak / MB:.0f} MB"


def _plain(path: Path, entries: list[tuple[str, bytes]]) -> Path:
    return write_package(path, [(n, _raw_deflate(d, True), zlib.crc32(d), len(d)) for n, d in entries])


def test_a_bomb_among_good_books_is_refused_and_the_others_computed(tmp_path):
    folder = tmp_path / "books"
    folder.mkdir()
    _plain(folder / "good.xlsx", list(_parts().items()))
    bomb = make_bomb(folder / "bomb.xlsx", padding_mb=200)  # 200 MB at 1000:1: the ratio rule
    code, out, err, _ = run_calc(folder)
    assert code == 1, (out, err)
    assert err.splitlines() == [
        f"rates-xl calc: {bomb}: refused: the package would inflate to 200.0 MB (entry {SHEET}, "
        f"ratio {_ratio(bomb)}:1); not a workbook rates-xl will open"], err
    assert (folder / "good.values.xlsx").exists() and not (folder / "bomb.values.xlsx").exists()


def test_a_damaged_entry_does_not_hide_a_lying_one(tmp_path):
    """An unreadable part (here its local header's signature broken) used to end the check
    with no verdict, and the lying sheet after it went unmeasured."""
    bomb = make_bomb(tmp_path / "liar.xlsx", padding_mb=64, declared=4096)
    data = bytearray(bomb.read_bytes())
    first = zipfile.ZipFile(bomb).infolist()[0]
    assert first.filename != SHEET
    data[first.header_offset:first.header_offset + 4] = b"XXXX"
    bomb.write_bytes(bytes(data))
    assert "inflates past the 4 KB its header declares" in safezip.refusal(bomb)


def test_too_many_entries(tmp_path):
    path = _plain(tmp_path / "p.xlsx", [(f"x/{i}.xml", b"<a/>") for i in range(safezip.MAX_ENTRIES + 1)])
    assert safezip.refusal(path) == (f"{path}: refused: the package lists 10,001 entries in a "
                                     f"{safezip._size(_directory_size(path))} directory (at most 10,000); "
                                     "not a workbook rates-xl will open")


def _directory_size(path: Path) -> int:
    data = path.read_bytes()
    return struct.unpack_from("<L", data, data.rfind(b"PK\x05\x06") + 12)[0]


def test_a_small_entry_may_compress_well_a_large_one_not(tmp_path):
    fine = _plain(tmp_path / "fine.xlsx", [("xl/a.xml", b"a" * MB)])  # 1 MB at 1000:1: too small to matter
    assert safezip.refusal(fine) is None
    large = _plain(tmp_path / "large.xlsx", [("xl/a.xml", b"a" * (2 * MB))])
    assert "would inflate to 2.0 MB (entry xl/a.xml, ratio " in safezip.refusal(large)


def test_the_total_is_capped_even_at_a_modest_ratio(tmp_path, monkeypatch):
    monkeypatch.setattr(safezip, "MAX_TOTAL_BYTES", 3 * MB)
    data = os.urandom(MB // 2).hex().encode()  # 1 MB of hex digits: about 2:1
    path = _plain(tmp_path / "p.xlsx", [(f"xl/{i}.xml", data) for i in range(4)])
    assert "would inflate to 4.0 MB (entry xl/0.xml, ratio 2:1)" in safezip.refusal(path)


def test_what_is_not_a_zip_gets_no_verdict_here(tmp_path):
    """The engines say what is wrong with these; the check only refuses bombs."""
    (tmp_path / "text.xlsx").write_text("not a zip")
    (tmp_path / "cut.xlsx").write_bytes(make_bomb(tmp_path / "b.xlsx", 2).read_bytes()[:-30])
    for name in ("text.xlsx", "cut.xlsx", "missing.xlsx"):
        assert safezip.refusal(tmp_path / name) is None, name


def test_other_compression_methods_and_encryption_are_refused(tmp_path):
    path = tmp_path / "lzma.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_LZMA) as package:
        package.writestr("xl/workbook.xml", b"<workbook/>")
    assert "compressed with method 14" in safezip.refusal(path)
    data = bytearray(_plain(tmp_path / "enc.xlsx", [("xl/workbook.xml", b"<workbook/>")]).read_bytes())
    central = data.rfind(b"PK\x01\x02")
    data[central + 8] |= 1  # the encrypted flag of its central directory record
    (tmp_path / "enc.xlsx").write_bytes(bytes(data))
    assert "entry xl/workbook.xml is encrypted" in safezip.refusal(tmp_path / "enc.xlsx")


# -- real books pass --------------------------------------------------------------------------
def test_every_book_of_the_calc_corpus_and_the_templates_passes():
    books = sorted(CORPUS.rglob("*.xls[xm]")) + sorted((REPO / "templates").rglob("*.xls[xm]"))
    assert len(books) >= 20
    assert [b for b in books if safezip.refusal(b)] == []


@pytest.mark.skipif(not SHARED_CORPUS.is_dir(), reason=f"the Excel-made corpus is not at {SHARED_CORPUS}")
def test_the_excel_made_books_pass():
    """The function grids and the real models (../shared/corpus/models: a model's 9 external
    links, a report's 1.5 MB sheet) are no bombs."""
    books = sorted(SHARED_CORPUS.glob("*.xls[xm]")) + sorted((SHARED_CORPUS.parent / "models").glob("*.xls[xm]"))
    assert len(books) > 11 and [b for b in books if safezip.refusal(b)] == []


# -- every way into calc is protected, not only the command ------------------------------------
def test_the_library_entries_refuse_a_bomb(tmp_path):
    """The check sits where calc opens a book (calc/book.py), so calculate_many, a
    WorkbookCalculation and the frozen copy refuse one too (before, only `rates-xl calc` did,
    and a library caller had openpyxl inflate the lot)."""
    from rates_xl.calc.book import CalcError
    from rates_xl.calc.workbook import WorkbookCalculation, calculate_many

    bomb = make_bomb(tmp_path / "bomb.xlsx", padding_mb=3)  # 3 MB at 1000:1: the ratio rule
    good = _plain(tmp_path / "good.xlsx", list(_parts().items()))
    with pytest.raises(CalcError, match="refused: the package would inflate to 3.0 MB"):
        WorkbookCalculation(bomb)
    batch = calculate_many([bomb, good])
    assert "refused: the package would inflate" in batch.failures[bomb]
    assert list(batch.results) == [good] and batch.results[good].value("Sheet1", "A2") == 2
    # The book changed into a bomb between computing and writing its copy: the copy is made
    # of the bytes computed, read once (calc/package.py), and the bomb is never read.
    calc = WorkbookCalculation(good)
    result = calc.compute()
    good.write_bytes(bomb.read_bytes())
    copy = calc.freeze(result, tmp_path / "copy.xlsx")
    assert openpyxl.load_workbook(copy)["Sheet1"]["A2"].value == 2


@pytest.mark.parametrize("recalculated_on_load", [True, False], ids=["placeholders", "cached values"])
def test_a_string_shown_in_many_cells_past_the_limit_is_refused_in_one_line(tmp_path, recalculated_on_load):
    """A text bomb that inflates to little: one 32,767-character string (Excel's most for a
    cell), stored once in the shared strings and shown by 33,000 cells, 1.08 billion characters
    shown. Each copy calc writes holds a cell's text in the cell (openpyxl's inline strings):
    POI's poc-shared-strings.xlsx (110 KB, 1 MB shown 12,000 times) took 3.5 minutes before
    failing to write a copy past 2 GB. Now refused at the read, in bounded memory, whether the
    book's values are placeholders (XlsxWriter's `fullCalcOnLoad`: read by openpyxl, counted
    after) or cached (read by calc/stored_cells.py, counted as read)."""
    path = tmp_path / "shown.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Text")
    text = "x" * 32_767
    for row in range(33_000):
        sheet.write_string(row, 0, text)
    sheet.write_formula("B1", "=LEN(A1)")
    book.close()
    if not recalculated_on_load:
        parts = dict(_parts_of(path))
        assert b' fullCalcOnLoad="1"' in parts["xl/workbook.xml"]
        parts["xl/workbook.xml"] = parts["xl/workbook.xml"].replace(b' fullCalcOnLoad="1"', b"")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
            for name, data in parts.items():
                package.writestr(name, data)
    assert path.stat().st_size < 1 * MB
    code, out, err, peak = run_calc(path)
    assert code == 1, (out, err)
    assert err.splitlines() == [
        f"rates-xl calc: {path}: refused: its cells show 1,081,311,000 characters of text by the sheet 'Text' (a "
        "string stored once and shown in many cells counts in each), past the 1,073,741,824 a workbook's package "
        "may inflate to; not a workbook rates-xl will open"], err
    assert out == "" and "Traceback" not in err
    assert peak < 400 * MB, f"peak memory {peak / MB:.0f} MB"
    assert not (tmp_path / "shown.values.xlsx").exists()


def _parts_of(path: Path) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(path) as package:
        return [(name, package.read(name)) for name in package.namelist()]


_LOLZ = ('<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
         '<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]>')


@pytest.mark.parametrize("part, encoding, stored", [
    ("xl/sharedStrings.xml", "utf-8", False),  # apache/poi's 54764.xlsx
    ("[Content_Types].xml", "utf-16", True),
    ("xl/_rels/workbook.xml.rels", "utf-8", True),
])
def test_an_entity_bomb_is_refused_in_one_line(tmp_path, part, encoding, stored):
    """A DTD in a part's prolog is refused before any parser meets it (Open XML forbids one:
    ECMA-376 Part 2, M1.18); the parsers stopped it only at their amplification limits, and the
    line said "cannot read the workbook ... is it corrupt?"."""
    from rates_xl.calc.book import CalcError
    from rates_xl.calc.workbook import WorkbookCalculation

    parts = _parts()
    text = parts.get(part, b'<?xml version="1.0"?><sst/>').decode()
    declaration, _, rest = text.partition("?>")
    bombed = f"{declaration.replace('UTF-8', encoding.upper())}?>{_LOLZ}{rest}".encode(encoding)
    parts[part] = bombed
    path = tmp_path / "lolz.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED) as package:
        for name, data in parts.items():
            package.writestr(name, data)
    with pytest.raises(CalcError) as refused:
        WorkbookCalculation(path)
    assert str(refused.value) == (f"{path}: refused: part {part} declares a DTD (<!DOCTYPE>), which Open XML "
                                  "forbids for the entity expansion it allows (ECMA-376 Part 2, M1.18); not a "
                                  "workbook rates-xl will open")


def test_a_picture_s_own_doctype_is_no_refusal(tmp_path):
    """An SVG picture may declare its DTD (`<!DOCTYPE svg PUBLIC ...>`): it is no part of the
    package's markup, and no reader of calc's parses it."""
    svg = b'<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd"><svg/>'
    path = _plain(tmp_path / "svg.xlsx", [*_parts().items(), ("xl/media/image1.svg", svg)])
    assert safezip.refusal(path) is None
