"""The error values newer than Excel 2007's seven (#SPILL!, #CALC!, #GETTING_DATA, #FIELD!,
#BUSY! ...) held in a cell: a formula's value Excel saved that calc keeps (one not recomputed,
or listed), or a constant pasted as a value.

formualizer reads only the seven from a file and refused the whole book over any other
(`Unsupported cell error value '#CALC!'`): one pasted #CALC! sent the book to the slow
`formulas` engine. A kept #SPILL! or #CALC! was written into the engine's copy as text (openpyxl
knows the seven alone), so `IFERROR(A1,0)` recomputed for NOW read the text: #VALUE!, silently.
Now each is given to the engine once loaded (calc/engines/formualizer/cells.py `FILE_ERRORS`):
#SPILL! and #CALC! as themselves (ERROR.TYPE 9 and 14, calc/xlfuncs/information/errors.py),
and each formula reading one the engine has no kind for is listed, Excel's value kept."""

from __future__ import annotations

import re

import openpyxl

from rates_xl.cli import main
from tests.calc.corpus.build import edit_parts, saved_by_excel

NOW = "+ROUND(NOW(),0)*0"  # (recomputed in the default mode too)
#: row -> (the error Excel saved for A, ERROR.TYPE of it)
ERRORS = {1: ("#SPILL!", 9), 2: ("#CALC!", 14), 3: ("#BUSY!", 15), 4: ("#FIELD!", 13)}


def _book(path, constant: bool = False):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row in ERRORS:
        sheet[f"A{row}"] = "pasted" if constant else f"=INDEX(Z1:Z9,{row})"
        sheet[f"B{row}"] = f"=IFERROR(A{row},0){NOW}"
        sheet[f"C{row}"] = f"=ERROR.TYPE(A{row}){NOW}"
        sheet[f"D{row}"] = f"=C{row}*2"  # (reads a reader)
    book.save(path)

    def excel_saved_it(parts):
        values: dict[str, object] = {}
        for row, (error, number) in ERRORS.items():
            values.update({f"B{row}": 0, f"C{row}": number, f"D{row}": 2 * number})
            if not constant:
                values[f"A{row}"] = error
        saved_by_excel(parts, 1, values)
        if constant:  # (a value pasted over each formula's answer)
            text = parts["xl/worksheets/sheet1.xml"].decode()
            for row, (error, _number) in ERRORS.items():
                text = re.sub(rf'<c r="A{row}"[^>]*>.*?</c>', f'<c r="A{row}" t="e"><v>{error}</v></c>', text)
            parts["xl/worksheets/sheet1.xml"] = text.encode()

    edit_parts(path, excel_saved_it)
    return path


def _run(book, out, capsys):
    code = main(["calc", str(book), "-o", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    return code, printed, openpyxl.load_workbook(out)["S"]


def test_spill_and_calc_kept_are_read_as_excel_reads_them(tmp_path, capsys):
    code, printed, values = _run(_book(tmp_path / "kept.xlsx"), tmp_path / "out.xlsx", capsys)
    assert "(fast engine)" in printed
    for row in (1, 2):
        error, number = ERRORS[row]
        assert [values[f"{c}{row}"].value for c in "ABCD"] == [error, 0, number, 2 * number], row
        assert f"S!B{row}: not computed" not in printed and f"S!C{row}: not computed" not in printed


def test_a_formula_reading_an_error_the_engine_has_no_kind_for_is_listed(tmp_path, capsys):
    code, printed, values = _run(_book(tmp_path / "kept.xlsx"), tmp_path / "out.xlsx", capsys)
    for row in (3, 4):
        error, number = ERRORS[row]
        assert [values[f"{c}{row}"].value for c in "ABCD"] == [error, 0, number, 2 * number], row
        for column in "BC":  # (D reads C: kept at Excel's value, not recomputed in this mode)
            assert (f"S!{column}{row}: not computed (it reads S!A{row}, which holds {error}, an error the "
                    "engine cannot hold)") in printed
    assert code == 3


def test_a_pasted_error_no_longer_sends_the_book_to_the_slow_engine(tmp_path, capsys):
    book = _book(tmp_path / "pasted.xlsx", constant=True)
    code = main(["calc", str(book), "--full", "-o", str(tmp_path / "out.xlsx"), "--no-progress"])
    printed = capsys.readouterr().out
    assert "(fast engine)" in printed and "formulas engine" not in printed
    values = openpyxl.load_workbook(tmp_path / "out.xlsx")["S"]
    assert [values[f"{c}2"].value for c in "ABCD"] == ["#CALC!", 0, 14, 28]
    for row in (3, 4):  # (C and D through it, every formula recomputed)
        assert all(f"S!{column}{row}: not computed (it reads S!A{row}" in printed for column in "BCD")
    assert code == 3 and "0 stale" in printed


def test_a_volatile_cell_excel_saved_as_getting_data_is_held_for_the_check(tmp_path, capsys):
    """The check holds each volatile cell at the value Excel saved: formualizer answers
    #GETTING_DATA but refuses to be given it ("Unknown error kind"), and the whole book failed
    ("cannot be computed")."""
    book = openpyxl.Workbook()
    book.active["A1"], book.active["B1"] = "=IF(NOW()>0,7)", "=IFERROR(A1,5)"
    book.save(tmp_path / "cube.xlsx")

    def excel_saved_it(parts):
        saved_by_excel(parts, 1, {"A1": "#GETTING_DATA", "B1": 5})

    edit_parts(tmp_path / "cube.xlsx", excel_saved_it)
    assert main(["calc", str(tmp_path / "cube.xlsx"), "--full", "-o", str(tmp_path / "out.xlsx"), "--no-progress"]) == 0
    assert "1 checked against Excel's values at the book's stored inputs; 0 stale" in capsys.readouterr().out
    assert openpyxl.load_workbook(tmp_path / "out.xlsx").active["B1"].value == 7  # (5 at Excel's A1, checked)
