"""Numbers read as text (`&`, CONCATENATE, CONCAT, TEXTJOIN, LEN, EXACT, UPPER ..., SEARCH) as
Excel writes them: 15 significant digits. formualizer wrote the shortest exact decimal, 17
digits for a sum with binary noise (`="Total "&(0.1+0.2)` gave "Total 0.30000000000000004";
Excel, like LibreOffice: "Total 0.3"). Checked against LibreOffice, another implementation of
Excel's rule that nobody here wrote, over the range where both write decimals (1E-5 to 1E15)."""

from __future__ import annotations

from rates_xl.calc.xlfuncs.coercion import number_text
from tests.support import libreoffice

#: Computed numbers with binary noise, or more digits than Excel keeps.
NUMBERS = ["=1/3", "=2/3", "=0.1+0.2", "=1234.56+0.00000000001", "=-1/7", "=100000/3", "=10/3*1E-4",
           "=0.000123456789012345678", "=123456789012345", "=2.5", "=1E-5"]
FORMULAS = ['=""&A{r}', '="x"&A{r}&"y"', "=LEN(A{r})", "=UPPER(A{r})", "=TRIM(A{r})",
            '=CONCATENATE("n=",A{r})', '=_xlfn.CONCAT(A{r},"|")', '=_xlfn.TEXTJOIN(";",TRUE,A{r},A{r})',
            '=EXACT(A{r},""&A{r})', '=IF(A{r}&""=""&A{r},"same","differ")']


def test_fifteen_significant_digits():
    assert number_text(1 / 3) == "0.333333333333333"
    assert number_text(0.1 + 0.2) == "0.3"
    assert number_text(-1 / 7) == "-0.142857142857143"
    assert number_text(1e-05) == "0.00001"  # poi EverythingTests!H1216: SEARCH(1,1E-05) is 7
    assert number_text(1.28233995888454e-06) == "1.28233995888454E-06"  # formulas_test ENGINEERING!S37
    assert number_text(1234567890123456.0) == "1.23456789012346E+15"
    assert number_text(123456789012345.0) == "123456789012345"
    assert number_text(45000.0) == "45000" and number_text(0.0) == "0"


def _book(path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for r, number in enumerate(NUMBERS, start=1):
        sheet.cell(row=r, column=1).value = number
        for c, formula in enumerate(FORMULAS, start=2):
            sheet.cell(row=r, column=c).value = formula.format(r=r)
    book.save(path)


@libreoffice.needed
def test_numbers_as_text_as_libreoffice_writes_them(tmp_path):
    _book(tmp_path / "numtext.xlsx")
    result, theirs = libreoffice.ours_and_theirs(tmp_path / "numtext.xlsx", tmp_path)
    assert not result.skipped
    differ = []
    for r in range(1, len(NUMBERS) + 1):
        for c in range(2, len(FORMULAS) + 2):
            ours = result.values[("S", f"{chr(64 + c)}{r}")]
            ours = "TRUE" if ours is True else "FALSE" if ours is False else \
                number_text(ours) if isinstance(ours, float) else ours
            if ours != theirs[r - 1][c - 1]:
                differ.append((NUMBERS[r - 1], FORMULAS[c - 2], ours, theirs[r - 1][c - 1]))
    assert differ == []


def test_a_typed_number_excel_would_write_otherwise_is_written_as_excel_writes_it(tmp_path):
    """A number typed in a formula with more than 15 significant digits (a book written by a
    program: Excel keeps 15) or small enough for E-notation was joined with the engine's digits:
    `=82824945586.99316&""` gave "82824945586.99316" where Excel writes the number it holds as
    "82824945586.9932", `=0.0000000001&""` "0.0000000001" (Excel "1E-10"). Found by
    bench/libreoffice_opinion.py's family `joins`; LibreOffice writes these alike."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    cases = {'=82824945586.99316&""': "82824945586.9932", '=LEN(97631699721206.53)': 16,
             '=CONCATENATE("x",59480849510860.57)': "x59480849510860.6", '=0.0000000001&""': "1E-10",
             '=1234567890123456&""': "1.23456789012346E+15", '=100000000000000000&""': "1E+17",
             '=123456789012345&""': "123456789012345", '="x"&1.10': "x1.1", '=1.5E+3&""': "1500"}
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row, formula in enumerate(cases, start=1):
        sheet.cell(row=row, column=1).value = formula
    book.save(tmp_path / "typed.xlsx")
    values = WorkbookCalculation(tmp_path / "typed.xlsx", full=True).compute().values
    assert {formula: values[("S", f"A{row}")] for row, formula in enumerate(cases, start=1)} == cases


def test_search_reads_characters_not_bytes():
    """formualizer's SEARCH matched `?` against a byte (#VALUE! for any character past ASCII)."""
    from rates_xl.calc.xlfuncs import callbacks

    search = callbacks()["SEARCH"]
    assert search("J?rgen", "Jürgen") == 1 and search("?e", "straße") == 5
    assert search("É", "café") == 4 and search("a*c", "xabc") == 2 and search("~*", "a*b") == 2
    assert search("x", "abc") == {"type": "Error", "kind": "Value"}


def test_numtext_answers_as_text_lifted():
    """RATESXL.NUMTEXT's own path for one text or one number answers as `text` lifted over the
    arguments with the omitted marker read as empty (what it was before that path)."""
    from rates_xl.calc.xlfuncs import callbacks
    from rates_xl.calc.xlfuncs.coercion import elementwise, text
    from rates_xl.calc.xlfuncs.omitted import OMITTED, given

    numtext = callbacks()["RATESXL.NUMTEXT"]
    lifted = elementwise(text)
    values = ["", "x", "0.1", " 1 ", OMITTED, 0.0, -0.0, 1 / 3, 0.1 + 0.2, 1e-06, 1e15, 12345678901234567.0,
              float("inf"), float("nan"), 3, True, False, None, {"type": "Error", "kind": "Div"},
              [[1 / 3, "a"], [None, True]], [[OMITTED]]]
    for value in values:
        assert repr(numtext(value)) == repr(lifted(*given((value,)))), value
    assert numtext("Total ") == "Total " and numtext(0.1 + 0.2) == "0.3" and numtext(OMITTED) == ""
    assert numtext([[1 / 3, "a"]]) == [["0.333333333333333", "a"]]
