"""The formulas of a finance model (conditional sums, lookups, dates, text labels, statistics,
cash flows) over a table with what real tables hold: a blank, a number typed as text, text
differing in case and trailing space, a computed number with binary noise. Computed by
rates-xl calc and by LibreOffice, cell by cell. Not compared: functions LibreOffice reads only
under another name in a file (XLOOKUP, XOR, IFS, SWITCH ...), and IRR of a flow that its
Newton iteration does not converge on (LibreOffice Err:523; ours finds the root)."""

from __future__ import annotations

import pytest

from tests.support import libreoffice

ROWS = [("EUR", (2024, 1, 31), 100.5, "A"), ("USD", (2024, 2, 29), -20.25, "B"), ("GBP", (2024, 3, 31), 0, "A"),
        ("EUR", (2024, 4, 30), 55.125, ""), ("USD", (2024, 5, 31), None, "B"), ("JPY", (2024, 6, 28), "=1E6/3", "A"),
        ("eur", (2024, 7, 31), 7.5, "C"), ("USD ", (2024, 8, 30), "12", "B")]
FORMULAS = [
    'SUMIFS(C2:C9,A2:A9,"EUR")', 'SUMIFS(C2:C9,A2:A9,"usd*")', 'COUNTIFS(A2:A9,"<>EUR",D2:D9,"B")',
    'AVERAGEIFS(C2:C9,D2:D9,"A")', 'SUMIFS(C2:C9,B2:B9,">="&DATE(2024,3,31),B2:B9,"<"&DATE(2024,7,1))',
    'SUMIF(D2:D9,"<>",C2:C9)', 'COUNTIF(D2:D9,"")', 'COUNTIF(C2:C9,">0")',
    'SUMPRODUCT((A2:A9="EUR")*(C2:C9))', 'SUMPRODUCT(--(D2:D9="A"),C2:C9)', 'SUMPRODUCT((MONTH(B2:B9)>3)*C2:C9)',
    'VLOOKUP("GBP",A2:C9,3,FALSE)', 'VLOOKUP("usd",A2:C9,3,FALSE)', 'INDEX(C2:C9,MATCH("JPY",A2:A9,0))',
    'MATCH(DATE(2024,5,15),B2:B9,1)', 'LOOKUP(DATE(2024,5,15),B2:B9,C2:C9)', 'COUNTA(C2:C9)', 'COUNT(C2:C9)',
    'COUNTBLANK(C2:C9)', 'SUM(C2:C9)', 'AVERAGE(C2:C9)', 'MAX(C2:C9)', 'MIN(C2:C9)', 'C9*2', 'C9+1', 'SUM(C9,1)',
    'N(C9)', 'ISNUMBER(C9)', 'ROUND(C7,2)', 'TEXT(B6,"dd-mmm-yy")', 'TEXT(B4,"mmmm yyyy")', 'EOMONTH(B4,1)',
    'EDATE(B2,1)', 'YEAR(B9)&"-Q"&ROUNDUP(MONTH(B9)/3,0)', 'IFERROR(C6/C5,"n/a")', 'IF(C6="","blank","x")',
    'C6=0', 'C6=""', 'LEN(C6)', 'ISBLANK(C6)', 'TRIM(A9)', 'A9="USD"', 'EXACT(A8,"EUR")', 'UPPER(A8)=A2',
    'CONCATENATE(A2," ",C2)', 'A2&TEXT(C2,"0.0")', '"Total: "&SUM(C2:C5)', '"Share "&C7/SUM(C2:C9)',
    'TEXT(SUM(C2:C5),"#,##0.00;(#,##0.00)")', 'TEXT(C3,"$#,##0_);($#,##0)")', 'OFFSET(C2,2,0)',
    'SUM(OFFSET(C2,0,0,3,1))', 'INDIRECT("C"&3)', 'AND(C2>0,C3<0)', 'OR(C6,C5)', 'NOT(C5)', 'SIGN(C3)', 'INT(C3)',
    'MOD(C3,7)', 'STDEV(C2:C9)', 'MEDIAN(C2:C9)', 'LARGE(C2:C9,2)', 'RANK(C2,C2:C9)', 'PERCENTILE(C2:C9,0.5)',
    'QUARTILE(C2:C9,1)', 'NPV(0.1,C2:C4)', 'PMT(0.05/12,360,-C7)', 'DAYS360(B2,B9)', 'NETWORKDAYS(B2,B9)',
    'DATEDIF(B2,B9,"m")', 'YEARFRAC(B2,B9,0)', 'YEARFRAC(B2,B9,1)', 'WEEKDAY(B9)', 'VALUE("12")+C9', 'C9&""',
    '--C9', 'SUM(C8:C9)',
]


@libreoffice.needed
def test_a_models_formulas_as_libreoffice_computes_them(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for r, (ccy, (y, m, d), amount, key) in enumerate(ROWS, start=2):
        sheet.cell(row=r, column=1).value = ccy
        sheet.cell(row=r, column=2).value = f"=DATE({y},{m},{d})"
        if amount is not None:
            sheet.cell(row=r, column=3).value = amount
        sheet.cell(row=r, column=4).value = key
    for r, formula in enumerate(FORMULAS, start=1):
        sheet.cell(row=r, column=8).value = "=" + formula
        sheet.cell(row=r, column=9).value = formula
    book.save(tmp_path / "model.xlsx")
    result, theirs = libreoffice.ours_and_theirs(tmp_path / "model.xlsx", tmp_path)
    assert not result.skipped
    differ = []
    for r, formula in enumerate(FORMULAS, start=1):
        ours, lo = result.values.get(("S", f"H{r}")), theirs[r - 1][7]
        if isinstance(ours, bool):
            same = str(ours).upper() == lo
        elif isinstance(ours, int | float):
            same = ours == pytest.approx(float(lo), rel=1e-9, abs=1e-12) if lo not in ("", "#VALUE!") else False
        else:
            same = (ours or "") == lo
        if not same:
            differ.append((formula, ours, lo))
    assert differ == []
