"""RATE computed here (calc/xlfuncs/financial/annuity.py): every RATE cell of the corpus books
(both folders, found and read at test time) computed through the engine to Excel's cached
value, and hostile arguments: the payment type, an omitted or empty guess, no present value,
a fractional nper, text, errors and equations without a root. Where the iteration settles, the
rate is checked by putting it back into PV / FV (this package's own, tests/calc/test_annuities.py
checks them against LibreOffice), and against the bridged `formulas` implementation it replaces."""

from __future__ import annotations

import itertools
import re
import zipfile
from pathlib import Path

import pytest

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs import callbacks
from rates_xl.calc.xlfuncs.bridge import bridged
from rates_xl.calc.xlfuncs.omitted import OMITTED
from tests.calc.excel_cases import assert_array_as_excel, assert_cell_as_excel
from tests.support.excel_corpus import CORPUS, MODELS

RATE = callbacks()["RATE"]
PV = callbacks()["PV"]
FV = callbacks()["FV"]
NUM = error("#NUM!")

_CALL = re.compile(r"(?<![A-Za-z0-9_.])RATE\(")


def _rate_cells() -> list[tuple[Path, str, bool]]:
    """(book, Sheet!cell, whether an array formula's anchor) of every formula calling RATE in the corpus books of both folders
    (shared formulas expanded by openpyxl; only the books whose XML names RATE are read)."""
    import openpyxl

    books = sorted(CORPUS.glob("*.xlsx")) + sorted(MODELS.glob("*.xlsx"))
    if not books:
        pytest.skip(f"{CORPUS} is absent (Excel-made corpus, read from ../shared at test time)")
    found = []
    for path in books:
        with zipfile.ZipFile(path) as archive:
            if not any(_CALL.search(archive.read(n).decode("utf-8", "replace"))
                       for n in archive.namelist() if n.startswith("xl/worksheets/sheet")):
                continue
        book = openpyxl.load_workbook(path, read_only=True)
        for sheet in book.worksheets:
            for row in sheet.iter_rows():
                for cell in row:
                    text = getattr(cell.value, "text", cell.value)  # a legacy array formula's text
                    if isinstance(text, str) and text.startswith("=") and _CALL.search(text.upper()):
                        found.append((path, f"{sheet.title}!{cell.coordinate}", text is not cell.value))
        book.close()
    return found


def test_every_rate_cell_of_the_corpus_as_excel(tmp_path):
    cells = _rate_cells()
    # formulas_test FINANCIAL!R45:AF45 and the arrays AG45, AH45:AW45; poi EverythingTests!D1112
    assert len(cells) >= 18, cells
    for path, address, array in cells:
        assert path.parent == CORPUS, f"{path.name}: a RATE cell in a model, not reproducible here"
        made = tmp_path / address.replace("!", "_")
        made.mkdir()
        check = assert_array_as_excel if array else assert_cell_as_excel
        check("RATE", path.name, address, made)


@pytest.mark.parametrize("kind", [1.0, 5.0, -1.0, 0.5, True])
def test_any_non_zero_type_means_payments_at_the_start(kind):
    found = RATE(12.0, -100.0, 1000.0, 0.0, kind)
    assert found == RATE(12.0, -100.0, 1000.0, 0.0, 1.0)
    assert PV(found, 12.0, -100.0, 0.0, 1.0) == pytest.approx(1000.0, rel=1e-12)
    at_end = RATE(12.0, -100.0, 1000.0, 0.0, 0.0)
    assert at_end != pytest.approx(found, rel=1e-3)
    assert PV(at_end, 12.0, -100.0) == pytest.approx(1000.0, rel=1e-12)
    assert RATE(12.0, -100.0, 1000.0, 0.0, False) == RATE(12.0, -100.0, 1000.0, 0.0, None) == at_end


def test_an_omitted_guess_is_ten_percent_and_an_empty_one_zero():
    given = RATE(48.0, -200.0, 8000.0, 0.0, 0.0, 0.1)
    assert RATE(48.0, -200.0, 8000.0) == given
    assert RATE(48.0, -200.0, 8000.0, OMITTED, OMITTED, OMITTED) == given
    assert RATE(48.0, -200.0, 8000.0, 0.0, 0.0, OMITTED) == given
    assert round(given, 4) == 0.0077  # Microsoft's example: RATE(4*12, -200, 8000) 1 % a month
    from_zero = RATE(48.0, -200.0, 8000.0, 0.0, 0.0, None)  # an empty cell: Newton from 0 (its limit)
    assert from_zero == pytest.approx(given, rel=1e-12)
    # From a guess near the other root (below -100 %): Excel's #NUM! (no rate of -100 % or below)
    assert RATE(2.0, -388.0, 22000.0, 0.0, 0.0, -1.2) == NUM
    assert RATE(2.0, -388.0, 22000.0, 0.0, 0.0, -0.8) == pytest.approx(RATE(2.0, -388.0, 22000.0), rel=1e-12)


def test_no_present_value_and_a_fractional_nper():
    saving = RATE(10.0, -100.0, 0.0, 1200.0)
    assert FV(saving, 10.0, -100.0) == pytest.approx(1200.0, rel=1e-12)
    none = RATE(10.0, -100.0, 0.0, 1000.0)  # ten payments of 100 make 1000 at no interest
    assert isinstance(none, float) and abs(none) < 1e-9
    found = RATE(10.5, -100.0, 1000.0)
    assert PV(found, 10.5, -100.0) == pytest.approx(1000.0, rel=1e-12)
    # A fractional nper taken below -100 %: (1+r)^10.5 of a negative number, #NUM!
    assert RATE(0.5, -100.0, 1000.0) == NUM


def test_past_microsofts_twenty_steps():
    """A 30-year monthly loan from the default guess of 10 % takes 37 of Newton's steps;
    LibreOffice (150 steps) and `formulas` (1,000) answer it, as here."""
    found = RATE(360.0, -600.0, 100000.0)
    assert PV(found, 360.0, -600.0) == pytest.approx(100000.0, rel=1e-12)
    assert found == pytest.approx(bridged("RATE")(360.0, -600.0, 100000.0), rel=1e-9)


@pytest.mark.parametrize("args", [
    (10.0, 100.0, 1000.0),  # money received both ways: no rate makes the balance 0
    (10.0, 0.0, 0.0),  # nothing paid, nothing owed: every rate (Newton's step 0 / 0)
    (0.0, -388.0, 22000.0),  # no periods (formulas_test FINANCIAL!T45: #NUM!)
    (-0.1, -388.0, 22000.0),  # FINANCIAL!R45
    (None, -388.0, 22000.0),  # an empty nper (FINANCIAL!W45)
    (12.0, -100.0, 1000.0, 0.0, 0.0, 1e300),  # a guess whose powers overflow
])
def test_no_solution_is_num(args):
    assert RATE(*args) == NUM


def test_text_and_errors():
    assert RATE("ciao", -388.0, 22000.0) == error("#VALUE!")
    assert RATE("48", -200.0, 8000.0) == pytest.approx(RATE(48.0, -200.0, 8000.0), rel=1e-9)
    assert RATE(error("#DIV/0!"), error("#REF!"), 1000.0) == error("#DIV/0!")  # the first
    assert RATE(10.0, -100.0, error("#N/A")) == error("#N/A")
    assert RATE(10.0, -100.0, 1000.0, 0.0, 0.0, error("#NAME?")) == error("#NAME?")
    # One array argument: each element as its own call (formulas_test FINANCIAL!AH45:AW45)
    grid = [[2.0, None, error("#DIV/0!")], [True, 4.0, -0.1]]
    assert RATE(grid, -388.0, 22000.0) == [[RATE(v, -388.0, 22000.0) for v in row] for row in grid]
    assert RATE(48.0, -200.0, [[8000.0], [0.0]]) == [[RATE(48.0, -200.0, 8000.0)], [RATE(48.0, -200.0, 0.0)]]
    # Text in it, or two arrays: `formulas`' lifting, each element
    lifted = RATE([[48.0, "360"]], -200.0, 8000.0)
    assert lifted[0][0] == pytest.approx(RATE(48.0, -200.0, 8000.0), rel=1e-9)
    assert lifted[0][1] == pytest.approx(RATE(360.0, -200.0, 8000.0), rel=1e-7)  # (its tolerance 1e-6)
    assert RATE([[2.0, 4.0]], -388.0, [[22000.0, 22000.0]]) == bridged("RATE")([[2.0, 4.0]], -388.0, [[22000.0, 22000.0]])


def test_as_the_bridged_formulas_implementation_where_it_settles():
    theirs = bridged("RATE")
    compared = 0
    for nper, pmt, pv, fv, kind, guess in itertools.product(
            (1.0, 5.0, 12.0, 58.0, 10.5), (-388.0, -100.0, 50.0), (22000.0, 1000.0, 0.0, -5000.0),
            (0.0, 300.0, -2000.0), (0.0, 1.0), (0.1, 0.01, -0.5)):
        args = (nper, pmt, pv, fv, kind, guess)
        mine, expected = RATE(*args), theirs(*args)
        if mine == NUM:
            continue  # not settled in 150 steps (formulas: up to 1,000), or below -100 %
        scale = abs(pv) + abs(fv) + abs(pmt) * nper
        off = abs(FV(mine, nper, pmt, pv, kind) - fv)
        assert off <= 1e-9 * scale, (args, mine, off)  # a root: its balance 0
        if isinstance(expected, float) and abs(FV(expected, nper, pmt, pv, kind) - fv) <= 1e-7 * scale:
            # numpy_financial stops at a step below 1e-6, here below 1e-7; (where its answer is
            # no root, near 0: its (1+r)^n - 1 over r cancelled to noise, ours is the root)
            assert mine == pytest.approx(expected, rel=1e-6, abs=1e-10), (args, mine, expected)
            compared += 1
    assert compared > 300
