"""`rates-xl respell`: a workbook's RATES formulas from one host's spelling to the other's,
and nothing else in the file changed."""

from __future__ import annotations

import zipfile

import pytest

from rates_xl.addin import respell
from rates_xl.client import RatesClient
from rates_xl.sandbox import PAID_KEY

V = "2026-11-20T16:00:00Z"
# (cell, formula as typed in the classic host, how Excel stores it once respelled for Office.js)
CELLS = [
    ("A1", f'=RATES_SWAP("SOFR","0D","5Y","1Y",,,,"{V}")', f'_xldudf_RATES_SWAP("SOFR","0D","5Y","1Y",,,,"{V}")'),
    ("A2", f'=RATES_DF("SOFR","1Y","{V}")', f'_xldudf_RATES_DISCOUNT("SOFR","1Y","{V}")'),  # a former name
    ("A3", f'=rates_fx("EURUSD","{V}")*2', f'_xldudf_RATES_FXSPOT("EURUSD","{V}")*2'),  # lower case, former
    ("A4", f'=RATES.FORWARD("SOFR","3M","6M","{V}")', f'_xldudf_RATES_FORWARD("SOFR","3M","6M","{V}")'),  # dotted
    ("A5", '="RATES_SWAP(" & "not a call"', None),  # text in a string literal stays
    ("A6", "=RATES_FOO(1)+MYRATES_SWAP(2)", None),  # not our functions
    ("A7", f'=IF(A1>0,_xludf.RATES_DISCOUNT("SOFR","2Y","{V}"),0)',
     f'IF(A1&gt;0,_xldudf_RATES_DISCOUNT("SOFR","2Y","{V}"),0)'),  # XML-escaped in the part
    ("A8", "='RATES_SWAP(x'!A1", None),  # a quoted sheet name that looks like a call
]


def build(path):
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Rates")
    book.add_worksheet("RATES_SWAP(x")
    for cell, formula, _ in CELLS:
        sheet.write_formula(cell, formula)
    sheet.write_dynamic_array_formula("C1:D27", f'=RATES_SWAPCURVE("SOFR","{V}")')
    sheet.data_validation("E1", {"validate": "custom", "value": '=RATES_DFCURVE("SOFR","0D","1Y","6M")<>""'})
    sheet.conditional_format("F1", {"type": "formula", "criteria": '=RATES_FX("EURUSD")>1'})
    book.define_name("spot", '=RATES_FX("EURUSD")')
    sheet.write("G1", "RATES_SWAP(text in a cell")
    chart = book.add_chart({"type": "line"})
    chart.add_series({"values": "=Rates!$D$2:$D$27"})
    sheet.insert_chart("H2", chart)
    book.close()


def parts(path):
    with zipfile.ZipFile(path) as z:
        return [(i.filename, i.compress_type, i.date_time, z.read(i)) for i in z.infolist()]


def test_to_officejs_changes_formula_text_only(tmp_path):
    book, out = tmp_path / "classic.xlsx", tmp_path / "officejs.xlsx"
    build(book)
    report = respell.respell_file(book, out, to="officejs")
    before, after = parts(book), parts(out)
    assert [p[:3] for p in before] == [p[:3] for p in after]  # same parts, order, compression, dates
    changed = {name for (name, _, _, a), (_, _, _, b) in zip(before, after, strict=True) if a != b}
    assert changed == {"xl/worksheets/sheet1.xml", "xl/workbook.xml"}
    sheet = dict((p[0], p[3].decode()) for p in before)["xl/worksheets/sheet1.xml"]
    expected = sheet
    for _, formula, stored in CELLS:
        if stored:
            expected = expected.replace(formula[1:].replace(">", "&gt;"), stored)
    expected = expected.replace("RATES_SWAPCURVE(", "_xldudf_RATES_SWAPCURVE(")
    expected = expected.replace("RATES_DFCURVE(", "_xldudf_RATES_DISCOUNTCURVE(")
    expected = expected.replace('RATES_FX("EURUSD")&gt;1', '_xldudf_RATES_FXSPOT("EURUSD")&gt;1')
    assert expected != sheet
    assert dict((p[0], p[3].decode()) for p in after)["xl/worksheets/sheet1.xml"] == expected
    workbook_xml = dict((p[0], p[3].decode()) for p in after)["xl/workbook.xml"]
    assert '_xldudf_RATES_FXSPOT(&quot;EURUSD&quot;)' in workbook_xml or '_xldudf_RATES_FXSPOT("EURUSD")' in workbook_xml
    assert report.formulas == 9 and report.parts == 2
    assert report.names["RATES_DF -> _xldudf_RATES_DISCOUNT"] == 1
    with zipfile.ZipFile(out) as z:
        assert z.testzip() is None


def test_back_to_classic_and_idempotent(tmp_path):
    book = tmp_path / "classic.xlsx"
    build(book)
    respell.respell_file(book, tmp_path / "o.xlsx", to="officejs")
    respell.respell_file(tmp_path / "o.xlsx", tmp_path / "c.xlsx", to="classic")
    respell.respell_file(book, tmp_path / "c2.xlsx", to="classic")
    assert parts(tmp_path / "c.xlsx") == parts(tmp_path / "c2.xlsx")  # either way: the same file
    text = dict((p[0], p[3].decode()) for p in parts(tmp_path / "c.xlsx"))["xl/worksheets/sheet1.xml"]
    assert "RATES_DISCOUNT(" in text and "RATES_DF(" not in text and "_xldudf_" not in text
    assert "RATES.FORWARD" not in text and "RATES_FORWARD(" in text
    again = respell.respell_file(tmp_path / "o.xlsx", tmp_path / "o2.xlsx", to="officejs")
    assert again.formulas == 0 and parts(tmp_path / "o.xlsx") == parts(tmp_path / "o2.xlsx")


def test_the_headless_engine_computes_both_spellings_alike(tmp_path, sandbox):
    from rates_xl.calc.workbook import WorkbookCalculation

    book = tmp_path / "classic.xlsx"
    build(book)
    respell.respell_file(book, tmp_path / "officejs.xlsx", to="officejs")
    values = []
    for path in (book, tmp_path / "officejs.xlsx"):
        calc = WorkbookCalculation(path)
        assert calc.unknown_functions == {} or set(calc.unknown_functions) <= {"RATES_FOO", "MYRATES_SWAP"}
        with RatesClient(sandbox.base_url, api_key=PAID_KEY) as client:
            result = calc.compute(client)
        values.append([result.value("Rates", c) for c in ("A1", "A2", "A3", "A4", "A7", "D2")])
    assert values[0] == values[1]
    assert all(isinstance(v, float) for v in values[0])


def test_the_command(tmp_path, capsys):
    from rates_xl.cli import main

    book = tmp_path / "book.xlsx"
    build(book)
    assert main(["respell", str(book), "--to", "officejs"]) == 0
    assert "book-officejs.xlsx: 9 formulas rewritten in 2 parts" in capsys.readouterr().out
    assert main(["respell", str(book), "--to", "officejs"]) == 1
    assert "exists; choose another -o or add --force" in capsys.readouterr().err
    assert main(["respell", str(book), "--to", "officejs", "--force"]) == 0
    (tmp_path / "notes.xlsx").write_text("not a zip")
    assert main(["respell", str(tmp_path / "notes.xlsx"), "--to", "classic"]) == 1
    assert "is not an Excel workbook" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["respell", str(book), "--to", "dotted"])


def test_a_refused_book_leaves_no_temporary_file_behind(tmp_path):
    """Written beside the output and renamed into place (rates_xl.atomic): a book refused
    half-way leaves neither the output nor a hidden temporary file."""
    from rates_xl.addin.respell import RespellError, respell_file

    book = tmp_path / "not-a-workbook.xlsx"
    with zipfile.ZipFile(book, "w") as package:
        package.writestr("hello.txt", "no xl/workbook.xml here")
    out = tmp_path / "out.xlsx"
    with pytest.raises(RespellError, match="no xl/workbook.xml"):
        respell_file(book, out, to="officejs")
    assert sorted(p.name for p in tmp_path.iterdir()) == [book.name]
