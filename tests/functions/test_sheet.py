"""functions/sheet.py: the one place for A1 cells, sheet-name quoting and RATES calls.

The cases are the ones where the former copies disagreed: calc's two `_quote` helpers
(`'Bob's'` against `'Bob''s'`; `2024` and `A1` left bare by one), and the classic scope's
and respell's call patterns (only respell knew `_xldudf_RATES_SWAP(`).
"""

from __future__ import annotations

import pytest
from openpyxl.utils.cell import get_column_letter

from rates_xl.functions import sheet


@pytest.mark.parametrize(("number", "letters"), [(1, "A"), (26, "Z"), (27, "AA"), (702, "ZZ"),
                                                 (703, "AAA"), (16384, "XFD")])
def test_columns_round_trip(number: int, letters: str) -> None:
    assert sheet.column_letters(number) == letters
    assert sheet.column_number(letters) == number
    assert sheet.column_number(letters.lower()) == number


def test_every_column_round_trips_and_agrees_with_openpyxl() -> None:
    for n in range(1, sheet.MAX_COL + 1):
        letters = sheet.column_letters(n)
        assert letters == get_column_letter(n)
        assert sheet.column_number(letters) == n


@pytest.mark.parametrize("bad", ["", "XFE", "ZZZ", "AAAA", "A1", "1", "$A", " A", "É", None, 3])
def test_bad_column_letters_raise_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        sheet.column_number(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, -1, 16385, True, 1.0, "A", None])
def test_bad_column_numbers_raise_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        sheet.column_letters(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "cell"), [("B7", (7, 2)), ("$B$7", (7, 2)), ("b7", (7, 2)),
                                            (" $A1 ", (1, 1)), ("XFD1048576", (1048576, 16384))])
def test_parse_cell(text: str, cell: tuple[int, int]) -> None:
    assert sheet.parse_cell(text) == cell
    assert sheet.cell_address(*cell) == text.strip().replace("$", "").upper()


@pytest.mark.parametrize("bad", ["", "B", "7", "B0", "XFE1", "A1048577", "A1:B2", "Sheet1!A1", "R1C1", None])
def test_bad_cells_raise_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        sheet.parse_cell(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(("row", "col"), [(0, 1), (1048577, 1), (1, 0), (1, 16385)])
def test_cell_address_outside_the_sheet_raises(row: int, col: int) -> None:
    with pytest.raises(ValueError):
        sheet.cell_address(row, col)


def test_areas_in_either_corner_order() -> None:
    assert sheet.parse_area("A1:C10") == sheet.Area(1, 1, 10, 3)
    assert sheet.parse_area("$C$10:A1") == (1, 1, 10, 3)  # an Area unpacks as (top, left, bottom, right)
    assert sheet.parse_area("B2") == (2, 2, 2, 2)
    assert sheet.parse_area("$B:c") == (1, 2, sheet.MAX_ROW, 3)
    assert sheet.parse_area("5:$2") == (2, 1, 5, sheet.MAX_COL)
    for bad in ("A1:B2:C3", "A1:", ":B2", "A:1", "", "Sheet1!A1", "XFE1", "A0", "0:1", "Table1[Col]", None):
        with pytest.raises(ValueError):
            sheet.parse_area(bad)  # type: ignore[arg-type]
        assert bad is None or sheet.read_area(bad) is None
    assert sheet.read_area("A:C", whole_lines=False) is None
    assert sheet.read_area("A1:C3", whole_lines=False) == (1, 1, 3, 3)


def test_area_arithmetic() -> None:
    a, b = sheet.Area(2, 2, 4, 5), sheet.Area(3, 4, 9, 9)
    assert (3, 4) in a and (1, 2) not in a and "B2" not in a
    assert a.intersection(b) == (3, 4, 4, 5) and a.intersects(b)
    assert a.intersection(sheet.Area(5, 1, 5, 1)) is None
    assert a.span(b) == (2, 2, 9, 9)
    assert (a.rows, a.columns, a.size) == (3, 4, 12)
    assert list(sheet.Area(1, 1, 2, 2).cells()) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert a.a1() == "B2:E4" and a.a1(absolute=True) == "$B$2:$E$4" and sheet.Area.cell(7, 2).a1() == "B7"
    assert sheet.Area.of(4, 5, 2, 2) == a
    assert sheet.is_whole_lines(sheet.parse_area("C:C")) and not sheet.is_whole_lines(a)


def test_references_split_off_their_sheet() -> None:
    assert sheet.split_reference("'Bob''s'!$A$1:B3") == ("'Bob''s'!", "$A$1:B3")
    assert sheet.split_reference("B3") == ("", "B3")
    assert sheet.sheet_of("'Bob''s'!") == "Bob's" and sheet.sheet_of("") is None


@pytest.mark.parametrize(("name", "quoted"), [
    ("Data", "Data"),
    ("Sheet1", "Sheet1"),
    ("_inputs", "_inputs"),
    ("Données", "Données"),  # Unicode letters make a plain name, as in Excel
    ("My Data", "'My Data'"),
    ("Bob's", "'Bob''s'"),  # the apostrophe doubled, as Excel writes it
    ("'", "''''"),
    ("Bob'", "'Bob'''"),  # a trailing apostrophe survives unquoting
    ("2024", "'2024'"),  # digits first
    ("1Q", "'1Q'"),
    ("A1", "'A1'"),  # reads as a cell
    ("xfd1048576", "'xfd1048576'"),
    ("R1C1", "'R1C1'"),  # reads as an R1C1 reference
    ("RC", "'RC'"),
    ("R", "'R'"),
    ("C", "'C'"),
    ("XFE1", "XFE1"),  # past the last column: a name
    ("Q1-2024", "'Q1-2024'"),
    ("a.b", "'a.b'"),
    ("日本", "日本"),
    ("Ünïcode Sheet", "'Ünïcode Sheet'"),
])
def test_quote_sheet_follows_excel(name: str, quoted: str) -> None:
    assert sheet.quote_sheet(name) == quoted
    assert sheet.unquote_sheet(quoted) == name
    assert sheet.address(name, "B7") == f"{quoted}!B7"


def test_cell_like_names() -> None:
    assert sheet.looks_like_cell_reference("XFD1048576")
    assert sheet.looks_like_cell_reference("a1")
    assert not sheet.looks_like_cell_reference("XFE1")
    assert not sheet.looks_like_cell_reference("AB1048577")
    assert not sheet.looks_like_cell_reference("SWAPCURVE")
    assert not sheet.looks_like_cell_reference("A0")


@pytest.mark.parametrize(("formula", "calls"), [
    ("=RATES_SWAP(A1)", ["SWAP"]),
    ("=rates_swap (A1)", ["SWAP"]),  # any case; a space before "(" as Excel allows
    ("=RATES.SWAP(A1)", ["SWAP"]),  # Office.js spelling
    ("=_xludf.RATES_SWAP(A1)", ["SWAP"]),  # an unknown function, as some writers store it
    ("=_xldudf_RATES_SWAP(A1)", ["SWAP"]),  # Office.js stored form (the scope missed this one)
    ("=[1]!RATES_SWAP(A1)", ["SWAP"]),  # through an external link to the add-in
    ("=rates_xl.xlam!RATES_SWAP(A1)", ["SWAP"]),
    ("='C:\\addins\\rates_xl.xlam'!RATES_SWAP(A1)", ["SWAP"]),
    ("=RATES_SWAPCURVE(A1)+RATES.DISCOUNT(B1)", ["SWAPCURVE", "DISCOUNT"]),
    ("=SUM(RATES_SWAP(A1),1)", ["SWAP"]),
    # look-alikes that are not calls
    ("=XRATES_SWAP(A1)", []),
    ("=MY.RATES_SWAP(A1)", []),
    ("=MY_RATES_SWAP(A1)", []),
    ("=_xldudf_XRATES_SWAP(A1)", []),
    ('="RATES_SWAP(A1)"', []),  # in a string literal
    ('=CONCAT("a""RATES_SWAP(", B1)', []),  # an escaped quote inside the literal
    ("='RATES_SWAP(1)'!A1", []),  # a quoted sheet name
    ("=RATES_SWAP", []),  # a name, not a call
    ("=RATES_(A1)", []),
    ("RATES_SWAP(A1)", []),  # text, not a formula
    (None, []),
    (3.5, []),
])
def test_rates_calls(formula: object, calls: list[str]) -> None:
    assert sheet.rates_calls(formula) == calls


def test_rates_names() -> None:
    assert sheet.is_rates_name("RATES_SWAP")
    assert sheet.is_rates_name("rates.swap")
    assert not sheet.is_rates_name("XRATES_SWAP")
    assert not sheet.is_rates_name("RATESWAP")


def test_a_range_written_the_other_way_round_is_put_in_order() -> None:
    """Excel reads `A3:A1` as A1:A3 (calc/formula/reversed_ranges.py): each `$` stays with its
    row or column; one cell, a name and a row 0 as they are."""
    assert sheet.ordered_reference("$F$1:D22") == "D$1:$F22"
    assert sheet.ordered_reference("'My S'!$C$3:A$1") == "'My S'!A$1:$C$3"
    assert sheet.ordered_reference("AA1:Z1") == "Z1:AA1" and sheet.ordered_reference("C:$A") == "$A:C"
    assert sheet.ordered_reference("5:1") == "1:5" and sheet.ordered_reference("1:0") == "1:0"
    assert sheet.ordered_reference("A1:B2") == "A1:B2" and sheet.ordered_reference("Block") == "Block"
    assert sheet.may_hold_reversed_range("=SUM(A3:A1)") and not sheet.may_hold_reversed_range("=SUM(A1:A3)")
    assert sheet.may_hold_reversed_range("=SUM(Z:A)") and not sheet.may_hold_reversed_range("=LOG10(A1)")


def test_a_range_resized_from_its_top_left_cell() -> None:
    """SUMIF's sum range read at its range's size (calc/formula/criteria_ranges.py): each `$`
    kept; a row a whole column does not write fixed, so that copies of the formula read the same
    cells; None past the sheet's edge or for a name."""
    assert sheet.resized_reference("U1", 5, 1) == "U1:U5"
    assert sheet.resized_reference("$U$1:$W$1", 5, 1) == "$U$1:$U$5"
    assert sheet.resized_reference("'My S'!U$2:V9", 1, 3) == "'My S'!U$2:W$2"
    assert sheet.resized_reference("U:U", 3, 1) == "U$1:U$3" and sheet.resized_reference("$3:$3", 1, 2) == "$A$3:$B$3"
    assert sheet.resized_reference("B2:B9", 1, 1) == "B2"
    assert sheet.resized_reference("U2", 1_048_576, 1) is None and sheet.resized_reference("Block", 2, 1) is None


def test_r1c1_read_for_a_cell() -> None:
    """INDIRECT's text given a1 FALSE (calc/xlfuncs/lookup/reference_text.py), for the cell in
    row 5, column 5 (E5): absolute, relative, whole rows and columns, a range, a sheet."""
    cases = {"R3C20": "T3", "rc[-1]": "D5", "R2C1:R3C2": "A2:B3", "R3": "3:3", "C[1]": "F:F", "R": "5:5",
             "RC": "E5", "'My S'!R[1]C[1]": "'My S'!F6", "R3:R5": "3:5", "C2:C4": "B:D"}
    assert {text: sheet.r1c1_reference(text, 5, 5) for text in cases} == cases
    for text in ("R0C1", "RC[-5]", "T3", "R1C1:R2", "Name", "", "R1C1:R2C2:R3C3"):
        assert sheet.r1c1_reference(text, 5, 5) is None, text
    assert sheet.r1c1_reference("R3C20") == "T3" and sheet.r1c1_reference("RC[-1]") is None


def test_no_other_module_reads_a1_or_renames_these_rules() -> None:
    """One A1 parser: no module outside functions/sheet.py holds an A1 pattern or reads
    openpyxl's cell utilities (whose corner order, (left, top, right, bottom), is not ours),
    and none re-exports this module's names under another (the former `book.row_col`,
    `book.quote`, `workbook._address`, `cli._quote` ...)."""
    import ast
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    a1 = re.compile(r"\[A-Za-z\]\{1,3\}|\[A-Z\]\{1,3\}")
    exported = {name for name in dir(sheet) if not name.startswith("__")}
    found = []
    for folder in ("calc", "functions", "addin", "cli", "client", "templates", "sandbox"):
        for path in sorted((root / folder).rglob("*.py")):
            where = path.relative_to(root).as_posix()
            if where == "functions/sheet.py":
                continue
            text = path.read_text(encoding="utf-8")
            if a1.search(text):
                found.append(f"{where}: an A1 pattern")
            if "openpyxl.utils.cell" in text:
                found.append(f"{where}: openpyxl.utils.cell")
            tree = ast.parse(text)
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module == "rates_xl.functions.sheet":
                    found += [f"{where}: imports {a.name} as {a.asname}" for a in node.names if a.asname]
            for node in tree.body:  # module level: `column = column_letters`
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name | ast.Tuple):
                    values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                    if any(isinstance(v, ast.Name) and v.id in exported and v.id[0].islower() for v in values):
                        found.append(f"{where}:{node.lineno}: another name for a functions/sheet.py rule")
    assert not found, found
