"""Manual-mode books and Excel's arithmetic (issue 30, point 5).

- A book saved in manual calculation mode with "Recalculate workbook before saving" on
  (`calcOnSave`, Excel's default: Application.CalculateBeforeSave; MS-XLS 2.4.37) holds Excel's
  answers: it is checked against them as an automatic book is, and the summary says which case
  it was; with it off, or a calculation left unfinished (`calcCompleted="0"`), nothing is.
- Excel sets the result of a last + or - to 0 when it is within about 15 significant digits
  of its operands (Microsoft, "Floating-point arithmetic may give inaccurate results in Excel",
  "Example when a value reaches zero"; calc/formula/terms.py): `=X26-AF25` over two sums of the
  same three numbers is 0 in Excel where IEEE arithmetic leaves -7.45E-09, and a check column
  `(C1-E1)*10^6` reading it then differs. The engine computes Excel's 0, in the cells that read
  it too."""

from __future__ import annotations

import openpyxl
import pytest

from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.cli import main
from tests.calc.excel_cases import corpus_cells_against_excel
from tests.calc.test_recalc import _calc_pr, excel_saved

#: Three amounts whose sum in two orders differs by one binary unit (7.45E-09 near 4E7).
AMOUNTS = (12687284.88, 26948674.74, 787397.16)


def _model(tmp_path, calc_pr: bytes):
    a, b, c = AMOUNTS
    assert (a + b + c) - (c + b + a) == pytest.approx(-7.450580596923828e-09)  # IEEE's residue
    cells = {"B1": a, "B2": b, "B3": c, "E1": 0.002,
             "X26": "=B1+B2+B3", "AF25": "=B3+B2+B1",
             "C1": "=X26-AF25",  # a last subtraction: Excel's 0
             "D1": "=(C1-E1)*10^6",  # the model's check column: a product, read from C1
             "F1": "=(X26-AF25)*10^6"}  # in parentheses: Excel leaves the residue
    # Excel's values (Microsoft's rule): 0 for C1, so D1 is exactly -2000.
    cached = {"X26": a + b + c, "AF25": c + b + a, "C1": 0, "D1": -2000.0,
              "F1": ((a + b + c) - (c + b + a)) * 10 ** 6}
    return _calc_pr(excel_saved(tmp_path / "model.xlsx", cells, cached), calc_pr)


#: Both engines compute Excel's 0 (the formulas engine through the same pass: calc/engines/formulas).
ENGINES = ["fast", "formulas"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_manual_book_recalculated_on_save_is_checked_and_its_last_subtraction_is_excels_zero(tmp_path, capsys,
                                                                                               engine):
    book = _model(tmp_path, b'<calcPr calcId="191029" calcMode="manual"/>')  # calcOnSave: its default
    result = WorkbookCalculation(book, full=True, engine_name=engine).compute()
    assert result.value("S", "C1") == 0 and result.value("S", "D1") == -2000.0
    assert result.value("S", "F1") == pytest.approx(-0.007450580596923828)
    assert not result.manual_calculation and result.checked == 5 and result.stale == []
    assert any("recalculated by Excel when it saved" in note for note in result.notes)
    assert main(["calc", str(book), "--full", "--no-progress", "--engine", engine]) == 0
    out = capsys.readouterr().out
    assert "5 checked against Excel's values" in out and "calcOnSave" in out
    copy = openpyxl.load_workbook(tmp_path / "model.values.xlsx", data_only=True)["S"]
    assert copy["C1"].value == 0 and copy["D1"].value == -2000


def test_a_wrong_value_in_a_checked_manual_book_is_listed_not_silent(tmp_path):
    """Checked, a cell the engine disagrees with Excel on is stale and listed (here: C1's
    cached value edited to 1, as if Excel had answered otherwise): Excel's value is kept."""
    book = _model(tmp_path, b'<calcPr calcId="191029" calcMode="manual"/>')
    import re
    import zipfile

    with zipfile.ZipFile(book) as src:
        parts = {item.filename: src.read(item.filename) for item in src.infolist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    sheet, count = re.subn(r'(<c r="C1"[^>]*><f>X26-AF25</f><v>)0(</v>)', r"\g<1>1\g<2>", sheet)
    assert count == 1
    parts["xl/worksheets/sheet1.xml"] = sheet.encode()
    with zipfile.ZipFile(book, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, data in parts.items():
            dst.writestr(name, data)
    result = WorkbookCalculation(book, full=True).compute()
    assert {s.cell for s in result.stale} >= {"C1"}
    assert "where Excel has 1, so Excel's value is kept" in next(s.reason for s in result.stale if s.cell == "C1")
    assert result.value("S", "C1") == 1


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("calc_pr", [b'<calcPr calcId="191029" calcMode="manual" calcOnSave="0"/>',
                                     b'<calcPr calcId="191029" calcCompleted="0"/>'])
def test_values_excel_may_not_have_recalculated_are_not_checked_and_the_summary_says_so(tmp_path, calc_pr, engine):
    book = _model(tmp_path, calc_pr)
    result = WorkbookCalculation(book, full=True, engine_name=engine).compute()
    assert result.checked == 0 and result.value("S", "C1") == 0 and result.value("S", "D1") == -2000.0
    assert any("calcOnSave off" in note or "calcCompleted off" in note for note in result.notes)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_adjustment_follows_microsofts_examples(tmp_path, engine):
    """KB 78113's `=1.333+1.225-1.333-1.225` and `=0.5-0.4-0.1` are 0; in parentheses or under
    a product the residue stays; `=100.1-100-0.1` keeps its -5.7E-15 (0.0999999999999943 and 0.1
    differ at the 15th digit); a product is never adjusted; an operand holding a call is
    evaluated once (RAND is left alone)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    formulas = {"A1": "=1.333+1.225-1.333-1.225", "A2": "=0.5-0.4-0.1", "A3": "=(0.5-0.4-0.1)",
                "A4": "=1*(0.5-0.4-0.1)", "A5": "=100.1-100-0.1", "A6": "=SUM(0.5,-0.4)-0.1",
                "A7": "=B1*3-0.3", "A8": "=RAND()*0", "A9": "=IF(TRUE,0.5-0.4-0.1)"}
    for cell, formula in formulas.items():
        sheet[cell] = formula
    sheet["B1"] = 0.1
    book.save(tmp_path / "kb.xlsx")
    values = WorkbookCalculation(tmp_path / "kb.xlsx", engine_name=engine).compute().values
    got = {cell: values[("S", cell)] for cell in formulas}
    assert got["A1"] == got["A2"] == got["A6"] == got["A7"] == 0 and got["A8"] == 0
    assert got["A3"] == got["A4"] == got["A9"] == pytest.approx(-2.7755575615628914e-17)
    assert got["A5"] == pytest.approx(-5.689893001203927e-15)


@pytest.mark.parametrize("name", ["poi_FormulaEvalTestData_Copy.xlsx", "formulas_test.xlsx"])
def test_corpus_cells_ending_in_a_sum_stay_excels(name):
    """Every formula of the corpus book whose last operation is + or - (rewritten where Excel
    cached 0) is computed to Excel's cached value."""
    from rates_xl.calc.formula.terms import final_sum
    from rates_xl.calc.formula.tree import Formula

    sums, differ = corpus_cells_against_excel(
        name, lambda text: final_sum(Formula(text if text.startswith("=") else "=" + text)) is not None)
    assert sums
    assert differ == []


def _book(tmp_path, cells: dict, name: str = "sums.xlsx"):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for cell, value in cells.items():
        sheet[cell] = value
    book.save(tmp_path / name)
    return tmp_path / name


def test_the_values_decide_which_sums_get_excels_zero(tmp_path):
    """A sum whose last operand is one number or one cell is written out only where an
    evaluation lands it near 0, and again until none is left: C1 is near 0 only once A1 has
    Excel's 0 (B1 = 1 then, 0.72 before), so it takes a second round. The result is what
    writing every sum out gives (main at 8e36f93: 0, 1, 0, 0); the sums that stay far from 0
    (`=A{n}+1`, a chain) keep the formula as written in the engine's copy."""
    cells = {"A1": "=0.5-0.4-0.1", "B1": "=1+A1*1e16", "C1": "=B1-1.0000000000000002", "D1": "=C1*1e20",
             "E1": "='S'!A1+F1", "A2": 1, **{f"A{n}": f"=A{n - 1}+1" for n in range(3, 40)}}
    calc = WorkbookCalculation(_book(tmp_path, cells))
    values = calc.compute().values
    assert [values[("S", c)] for c in ("A1", "B1", "C1", "D1", "E1")] == [0, 1, 0, 0, 0]
    assert values[("S", "A39")] == 38
    model = calc.engine.model
    assert set(model.snapped) == {("S", 1, 1), ("S", 1, 3)}
    assert model.prepared.sums[("S", 1, 5)] == ("S", 1, 6)  # an empty cell: 0, never near
    assert model.prepared.written[("S", 39, 1)] == "=A38+1"
    assert model.workbook.get_formula("S", 39, 1).lstrip("=").replace(" ", "") == "A38+1"


def test_a_book_whose_values_cannot_decide_has_every_sum_written_out(tmp_path):
    """A legacy array filled past its result (`{=TRANSPOSE(D1:E1)}` over C1:C3: C3 is #N/A,
    set after the evaluation) computes values no evaluation shows, so no sum is left to the
    values."""
    from openpyxl.worksheet.formula import ArrayFormula

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["A1"], sheet["D1"], sheet["E1"] = "=0.5-0.4-0.1", 1, 2
    sheet["C1"] = ArrayFormula("C1:C3", "=TRANSPOSE(D1:E1)")
    book.save(tmp_path / "legacy.xlsx")
    calc = WorkbookCalculation(tmp_path / "legacy.xlsx")
    values = calc.compute().values
    assert values[("S", "A1")] == 0 and values[("S", "C3")] == "#N/A"
    assert calc.engine.model.prepared.sums == {}
    assert calc.engine.model.prepared.written[("S", 1, 1)].startswith("=IF(ABS(0.5-0.4-0.1)")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("written_out", [False, True], ids=["values_decide", "every_sum_written"])
def test_a_last_operand_holding_text_read_as_a_number_keeps_the_sum(tmp_path, engine, written_out):
    """`=5+A1` over a cell holding the text "2024-01-10" is 45306 in Excel (the sum reads the
    text as VALUE does): the adjustment, written out because the operand is no number, read the
    operand's size with ABS, which answers #VALUE! for such text, so the cell was #VALUE!. Both
    paths: the sum left to the values (`to_snap` writes it out) and every sum written out (a
    book with a legacy array filled past its result)."""
    from openpyxl.worksheet.formula import ArrayFormula

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    cells = {"D1": "2024-01-10", "D2": 5, "D3": "12:30", "D4": "10",
             "A1": "=D2+D1", "A2": "=D2-D1", "A3": "=SUM(D2)+D1", "A4": "=1+D3", "A5": "=D2+D4",
             "A6": "=45301-D1", "A7": "=D1-45301"}
    for cell, value in cells.items():
        sheet[cell] = value
    if written_out:
        sheet["F1"], sheet["G1"], sheet["H1"] = ArrayFormula("F1:F3", "=TRANSPOSE(G1:H1)"), 1, 2
    book.save(tmp_path / "texts.xlsx")
    calc = WorkbookCalculation(tmp_path / "texts.xlsx", full=True, engine_name=engine)
    values = calc.compute().values
    got = [values[("S", f"A{n}")] for n in range(1, 8)]
    assert got == [45306, -45296, 45306, pytest.approx(1.5208333333333333), 15, 0, 0]
