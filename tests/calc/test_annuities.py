"""The annuity functions (PMT, IPMT, PPMT, PV, FV, NPER, RATE, CUMIPMT, CUMPRINC) over rates,
signs and payment timings, checked against LibreOffice, whose implementation of them is
Excel's formula; and IPMT's published answer. (Not the last of 360 periods at 7 %: FV's terms
there are 1E15 apart from their difference, and any two implementations differ in the 4th digit.)"""

from __future__ import annotations

import itertools

import pytest

from tests.support import libreoffice

RATES = ["0.05/12", "0.07", "-0.01", "0"]
LOANS = ["100000", "-2500"]
FORMULAS = [
    "PMT({r},{n},{pv})", "PMT({r},{n},{pv},500,1)", "IPMT({r},1,{n},{pv})", "IPMT({r},3,{n},{pv})",
    "IPMT({r},3,{n},{pv},0,1)", "IPMT({r},1,{n},{pv},0,1)", "IPMT({r},12,{n},{pv},100)",
    "PPMT({r},3,{n},{pv})", "PPMT({r},3,{n},{pv},0,1)", "PV({r},{n},-500)", "PV({r},{n},-500,100,1)",
    "FV({r},{n},-500,{pv})", "FV({r},{n},-500,{pv},1)", "NPER({r},-900,{pv})",
]


def test_ipmt_of_a_loan_entered_as_negative():
    """Excel: IPMT(5%, 1, 10, -1000) is 50 (interest received); `formulas` answered #NUM!."""
    from rates_xl.calc.xlfuncs import callbacks

    ipmt = callbacks()["IPMT"]
    assert ipmt(0.05, 1.0, 10.0, -1000.0) == pytest.approx(50.0)
    assert ipmt(0.05, 11.0, 10.0, 1000.0) == {"type": "Error", "kind": "Num"}  # per past nper


@libreoffice.needed
def test_annuities_as_libreoffice_computes_them(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    cases = [f.format(r=r, n=n, pv=pv) for r, n, pv in itertools.product(RATES, ("12", "360"), LOANS)
             for f in FORMULAS]
    cases += ["RATE(360,-600,100000)", "RATE(12,-100,1000,0,1)", "RATE(48,-200,8000,-500)",
              "CUMIPMT(0.05/12,360,100000,1,12,0)", "CUMIPMT(0.05/12,360,100000,13,24,1)",
              "CUMPRINC(0.05/12,360,100000,1,12,0)", "CUMPRINC(0.07,12,5000,3,5,1)"]
    for r, formula in enumerate(cases, start=1):
        sheet.cell(row=r, column=1).value = "=" + formula
    book.save(tmp_path / "annuities.xlsx")
    result, theirs = libreoffice.ours_and_theirs(tmp_path / "annuities.xlsx", tmp_path)
    differ = []
    for r, formula in enumerate(cases, start=1):
        ours, lo = result.values[("S", f"A{r}")], theirs[r - 1][0]
        try:  # (RATE's answer comes percent-formatted)
            same = ours == pytest.approx(float(lo[:-1]) / 100 if lo.endswith("%") else float(lo), rel=1e-9, abs=1e-9)
        except ValueError:  # an error: LibreOffice writes Err:502 where Excel writes #NUM!
            same = ours == {"Err:502": "#NUM!", "#DIV/0!": "#DIV/0!"}.get(lo, lo)
        if not same:
            differ.append((formula, ours, lo))
    assert differ == []
