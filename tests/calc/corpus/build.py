"""Build the calculation corpus: small workbooks covering what Excel saves, and their
reference copies recalculated by LibreOffice (an engine no one here wrote).

    python -m tests.calc.corpus.build            # writes tests/calc/corpus/{source,reference}/

`source/` holds the workbooks as XlsxWriter writes them (cached values absent or 0);
`reference/` holds each one after LibreOffice headless loaded it, recalculated every formula
(a throw-away profile sets "recalculate Excel files on load: always") and saved it, so each
formula cell carries LibreOffice's value. Both are committed: the fidelity test reads
`reference/` and needs no LibreOffice. Needs `soffice` (Debian's libreoffice-calc).
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import xlsxwriter

from tests.support.libreoffice import RECALCULATING_PROFILE

HERE = Path(__file__).parent
SOURCE, REFERENCE = HERE / "source", HERE / "reference"



def _workbook(path: Path) -> xlsxwriter.Workbook:
    # Newer functions (IFNA, DAYS, XOR ...) are stored with Excel's `_xlfn.` prefix.
    return xlsxwriter.Workbook(path, {"use_future_functions": True})


def families(path: Path) -> None:
    """Many function families over a small data block (about 260 formulas)."""
    wb = _workbook(path)
    data = wb.add_worksheet("Data")
    date_format = wb.add_format({"num_format": "yyyy-mm-dd"})
    for i in range(20):
        data.write(i, 0, i + 1)
        data.write(i, 1, round(math.sin(i) * 100, 3))
        data.write(i, 2, ["alpha", "Beta", "gamma ray", " delta ", "EPS"][i % 5])
        data.write_datetime(i, 3, datetime(2024, 1 + i % 12, 1 + (i * 3) % 28), date_format)
        data.write(i, 4, i % 3 == 0)
    calc = wb.add_worksheet("Calc")
    formulas = []
    for r in range(1, 21):
        formulas += [
            f"=Data!A{r}*2+Data!B{r}", f"=ROUND(Data!B{r}/7,3)", f"=ABS(Data!B{r})", f"=MOD(Data!A{r},4)",
            f"=POWER(Data!A{r},2)-SQRT(Data!A{r})", f"=INT(Data!B{r})", f"=LEN(Data!C{r})", f"=UPPER(Data!C{r})",
            f"=TRIM(Data!C{r})", f'=LEFT(Data!C{r},3)&"-"&RIGHT(Data!C{r},2)', f'=SUBSTITUTE(Data!C{r},"a","A")',
            f"=YEAR(Data!D{r})*100+MONTH(Data!D{r})", f"=DAY(Data!D{r})+WEEKDAY(Data!D{r})", f"=EDATE(Data!D{r},3)",
            f"=EOMONTH(Data!D{r},1)", f'=IF(Data!B{r}>0,"up","down")', f"=AND(Data!E{r},Data!A{r}>5)",
            f"=IFERROR(1/(Data!A{r}-10),-1)", f"=ISNUMBER(Data!C{r})", f"=ROUNDUP(Data!B{r},-1)",
            f"=LN(Data!A{r})+EXP(Data!A{r}/20)", f"=MID(Data!C{r},2,3)", f'=TEXT(Data!A{r},"000")',
        ]
    formulas += ["=SUM(Data!A1:A20)", "=AVERAGE(Data!B1:B20)", "=MAX(Data!B1:B20)-MIN(Data!B1:B20)",
                 "=COUNT(Data!A1:E20)", "=COUNTA(Data!C1:C20)", '=COUNTIF(Data!C1:C20,"alpha")',
                 '=SUMIF(Data!B1:B20,">0")', "=SUMPRODUCT(Data!A1:A20,Data!B1:B20)", "=MEDIAN(Data!B1:B20)",
                 "=STDEV(Data!B1:B20)", "=LARGE(Data!B1:B20,3)", "=SMALL(Data!B1:B20,2)",
                 "=VLOOKUP(7,Data!A1:C20,3,FALSE)", "=INDEX(Data!B1:B20,MATCH(12,Data!A1:A20,0))",
                 "=HLOOKUP(3,Data!A1:C3,2)", "=NPV(0.05,Data!A1:A5)", "=PMT(0.04/12,360,-300000)",
                 "=FV(0.03,10,-100)", "=PV(0.05,20,-1000)", "=NETWORKDAYS(Data!D1,Data!D2)",
                 "=WORKDAY(Data!D3,10)", "=DATE(2025,2,30)", '=DATEVALUE("2025-03-15")',
                 '=CONCATENATE("a",1,TRUE)', "=CHOOSE(2,Data!A1,Data!A2,Data!A3)", "=ROWS(Data!A1:B7)",
                 "=COLUMNS(Data!A1:E1)", "=SUMSQ(Data!A1:A4)", "=PRODUCT(Data!A1:A6)", '=REPT("ab",3)',
                 "=SIGN(Data!B5)", "=TRUNC(Data!B6,1)", "=FLOOR(Data!B7,5)", "=CEILING(Data!A7,4)"]
    for i, formula in enumerate(formulas):
        calc.write_formula(i // 12, i % 12, formula)
    wb.close()


def edge_cases(path: Path) -> None:
    """Coercion, blanks, errors, comparisons and conditional aggregates: where engines differ."""
    wb = _workbook(path)
    ws = wb.add_worksheet("In")
    # No booleans inside ranges: LibreOffice stores them as numbers (SUM and COUNT then differ
    # from Excel's); a boolean cell read on its own is in D1.
    values = [5, "7", None, 4, "text", -2.5, 0, "", 1e-9, 123456789.125]
    ws.write_boolean("D1", True)
    for i, value in enumerate(values):
        if value is None:
            continue
        ws.write_string(i, 0, value) if isinstance(value, str) else ws.write(i, 0, value)
        ws.write(i, 1, ["a", "b", "a", "c", "b", "a", "c", "a", "b", "c"][i])
        ws.write(i, 2, i * 3 - 10)
    out = wb.add_worksheet("Out")
    formulas = [
        "=In!A1+In!A2", "=In!A2*2", "=In!A3+1", "=In!A4+1", "=In!A5&In!A1", "=SUM(In!A1:A10)",
        "=COUNT(In!A1:A10)", "=COUNTA(In!A1:A10)", "=COUNTBLANK(In!A1:A10)", "=AVERAGE(In!A1:A10)",
        "=In!A1=5", '=In!A2="7"', '=In!B1<"b"', '=UPPER(In!B1)="A"', "=In!A3=0", '=In!A3=""', "=In!D1+1",
        "=ISBLANK(In!A3)", "=ISBLANK(In!A8)", "=ISTEXT(In!A2)", "=ISLOGICAL(In!D1)", "=N(In!D1)",
        "=In!A1/In!A7", "=IFERROR(In!A1/In!A7,\"div\")", "=ISERROR(In!A5*1)", "=IFNA(NA(),0)",
        "=ISNA(MATCH(99,In!C1:C10,0))", "=ERROR.TYPE(In!A1/In!A7)", '=SUMIFS(In!C1:C10,In!B1:B10,"a")',
        '=COUNTIFS(In!B1:B10,"b",In!C1:C10,">0")', '=AVERAGEIF(In!B1:B10,"c",In!C1:C10)',
        '=SUMIF(In!B1:B10,"<>a",In!C1:C10)', '=COUNTIF(In!C1:C10,">=2")', '=COUNTIF(In!B1:B10,"a*")',
        "=INDEX(In!A1:C10,4,3)", '=MATCH("c",In!B1:B10,0)', "=MATCH(5,In!C1:C10,1)",
        '=VLOOKUP("b",In!B1:C10,2,FALSE)', "=LOOKUP(6,In!C1:C10)", "=ROUND(2.5,0)", "=ROUND(-2.5,0)",
        "=ROUND(1.005,2)", "=MROUND(10,3)", "=ROUNDDOWN(-1.55,1)", "=INT(-1.5)", "=TRUNC(-1.5)",
        "=MOD(-7,3)", "=MOD(7,-3)", "=QUOTIENT(-7,2)", "=POWER(8,1/3)", "=SQRT(2)", "=LOG(100)",
        "=LOG(8,2)", "=FACT(10)", "=COMBIN(10,3)", "=GCD(24,36)", "=LCM(4,6)", "=PI()*2",
        "=DEGREES(PI())", "=ATAN2(1,1)", "=DATE(2024,2,29)+365", "=DATEDIF(DATE(2020,1,31),DATE(2024,3,1),\"m\")",
        "=DAYS(DATE(2024,3,1),DATE(2024,2,1))", "=YEARFRAC(DATE(2024,1,1),DATE(2024,7,1),1)",
        "=YEARFRAC(DATE(2024,1,31),DATE(2024,7,31),0)", "=EOMONTH(DATE(2024,1,31),1)",
        "=EDATE(DATE(2024,1,31),1)", "=WEEKDAY(DATE(2024,6,1),2)", "=WEEKNUM(DATE(2024,6,1))",
        "=NETWORKDAYS(DATE(2024,1,1),DATE(2024,12,31))", "=WORKDAY(DATE(2024,12,24),3)",
        "=TIME(12,30,0)", '=TEXT(DATE(2024,5,6),"yyyy-mm-dd")', '=TEXT(0.1234,"0.0%")',
        '=TEXT(1234.5,"#,##0.00")', '=VALUE("1.5e3")', '=FIND("b","abcb")', '=SEARCH("B","abcb",3)',
        '=SUBSTITUTE("a-b-c","-","+",2)', '=REPLACE("abcdef",2,3,"X")', '=PROPER("hello world")',
        '=EXACT("a","A")', '=LEN("  x ")', '=TRIM("  a   b ")', '=CHAR(65)&CODE("a")', '=REPT("-",5)',
        '=MID("abcdef",3,10)', '=LEFT("abc",5)', '=RIGHT("abc",0)', '=FIXED(1234.567,1)',
        "=PMT(0.05/12,60,10000)", "=IPMT(0.05/12,1,60,10000)", "=PPMT(0.05/12,1,60,10000)",
        "=NPER(0.01,-100,1000)", "=RATE(60,-200,10000)", "=IRR({-100,30,40,50})",
        "=XNPV(0.05,{-100,60,60},{45000,45365,45730})", "=EFFECT(0.05,12)", "=NOMINAL(0.05,12)",
        "=SLN(1000,100,5)", "=DB(1000,100,5,1)", "=DDB(1000,100,5,1)",
        "=MAX(In!A1:A10)", "=MIN(In!A1:A10)", "=MAXA(In!A1:A10)", "=MEDIAN(In!C1:C10)",
        "=MODE(1,2,2,3)", "=STDEV.P(In!C1:C10)", "=VAR.S(In!C1:C10)", "=PERCENTILE(In!C1:C10,0.3)",
        "=QUARTILE(In!C1:C10,1)", "=RANK(In!C5,In!C1:C10)", "=CORREL(In!C1:C10,In!C1:C10)",
        "=SLOPE(In!C1:C10,In!C1:C10)", "=NORM.S.DIST(1,TRUE)", "=NORMSINV(0.975)",
        "=AND(TRUE,In!D1)", "=OR(FALSE,In!A7)", "=XOR(TRUE,TRUE)", "=NOT(In!A7)",
        "=IF(In!A3,\"yes\",\"no\")", "=CHOOSE(3,\"a\",\"b\",\"c\")", "=ABS(In!A6)",
        "=SIGN(In!A6)", "=EVEN(3.1)", "=ODD(-2)", "=1E+308*10", "=SUMPRODUCT(In!C1:C10,In!C1:C10)",
        "=SUMSQ(In!C1:C3)", "=PRODUCT(In!C4:C6)", "=SUBTOTAL(9,In!C1:C10)", "=ROWS(In!A:A)",
        '=HYPERLINK("https://example.invalid","link")', '=T("x")&T(1)', '=CONCATENATE(In!A1,In!B1)',
        "=In!A10*1000", "=In!A9*1e9", "=0.1+0.2", "=1-0.9", "=2^0.5", "=-2^2", "=(-2)^2",
        "=10%", "=50%*In!A1", '="a"<"B"', "=TRUE+TRUE", "=\"1\"+\"2\"",
        "=YEAR(TODAY())>2000", "=RAND()<1", "=NOW()-TODAY()<1",  # volatile: counted apart
    ]
    for i, formula in enumerate(formulas):
        out.write_formula(i // 10, i % 10, formula)
    wb.close()


def names_and_references(path: Path) -> None:
    """Defined names of several kinds, and functions that return references."""
    wb = _workbook(path)
    ws = wb.add_worksheet("Inputs")
    other = wb.add_worksheet("Other sheet")
    for i in range(10):
        ws.write(i, 0, (i + 1) * 10)
        ws.write(i, 1, f"k{i}")
        other.write(i, 0, i * 0.5)
    wb.define_name("rate", "=0.05")  # a constant
    wb.define_name("label", '="fixed"')  # a text constant
    wb.define_name("amounts", "=Inputs!$A$1:$A$10")  # a range
    wb.define_name("keys", "=Inputs!$B$1:$B$10")
    wb.define_name("first_amount", "=Inputs!$A$1")  # a cell
    wb.define_name("grown", "=amounts*(1+rate)")  # a formula over names
    wb.define_name("'Other sheet'!local", "='Other sheet'!$A$1:$A$10")  # sheet-scoped
    wb.define_name("_xlnm.Print_Area", "=Inputs!$A$1:$B$10")  # hidden kind: a print area
    wb.define_name("bad_name", "=#REF!")  # a dangling name Excel keeps
    calc = wb.add_worksheet("Calc")
    rows = ["=SUM(amounts)", "=first_amount*rate", "=label&\"!\"", "=SUM(OFFSET(Inputs!A1,2,0,3,1))",
            "=OFFSET(Inputs!A1,4,1)", '=SUM(INDIRECT("Inputs!A1:A4"))', '=INDIRECT("Inputs!B"&3)',
            "=SUM(INDEX(Inputs!A1:B10,0,1))", "=SUM(INDEX(Inputs!A1:A10,2):INDEX(Inputs!A1:A10,5))",
            "=SUM(CHOOSE(2,Inputs!A1:A3,Inputs!A4:A6))", "=COUNT(amounts)", "=MAX(amounts)/first_amount",
            "=SUMPRODUCT(amounts,'Other sheet'!A1:A10)", "=SUM(Inputs!A:A)", "=ROW(Inputs!A7)+COLUMN(Inputs!C1)",
            "=INDEX(amounts,3)*2", "=MATCH(\"k4\",Inputs!B1:B10,0)", "=AVERAGE(Inputs!A2:A9)",
            '=SUMPRODUCT(--(RIGHT(keys,1)>"4"),amounts)']  # a scalar function over a name
    for i, formula in enumerate(rows):
        calc.write_formula(i, 0, formula)
    other.write_formula("C1", "=SUM(local)")
    wb.close()


def arrays(path: Path) -> None:
    """Array formulas (CSE) and the class a fast engine gets wrong: scalar functions over ranges."""
    wb = _workbook(path)
    ws = wb.add_worksheet("Arr")
    for i in range(8):
        ws.write(i, 0, ["3", 4, "x", 7.5, "", 12, "ab", 9][i] if i != 4 else None)
        ws.write_datetime(i, 1, datetime(2020 + i, 1 + i, 10), wb.add_format({"num_format": "yyyy-mm-dd"}))
        ws.write(i, 2, i * 1.5)
    ws.write_array_formula("D1:D8", "{=IF(ISNUMBER(A1:A8),A1:A8*2,0)}")
    ws.write_array_formula("E1:E8", "{=YEAR(B1:B8)+MONTH(B1:B8)/100}")
    ws.write_array_formula("F1:F8", "{=LEFT(A1:A8&\"zz\",2)}")
    ws.write_array_formula("G1:G8", "{=EXP(C1:C8/10)}")
    ws.write_array_formula("H1:H8", "{=C1:C8*2+1}")
    ws.write_array_formula("I1", "{=SUM(LEN(A1:A8))}")  # aggregated: needs the exact engine
    ws.write_array_formula("I2", "{=SUM(IF(ISNUMBER(A1:A8),A1:A8))}")
    ws.write_formula("I3", "=SUMPRODUCT(LEN(A1:A8))")
    ws.write_formula("I4", "=SUMPRODUCT((C1:C8>3)*C1:C8)")
    ws.write_formula("I5", "=SUMPRODUCT(--(YEAR(B1:B8)>2023),C1:C8)")  # the finance idiom
    ws.write_formula("I6", "=SUMPRODUCT(LEN(A:A))")  # a whole column: not written out, kept
    ws.write_array_formula("J1:K2", "{=TRANSPOSE(C1:D2)}")
    ws.write_formula("L3", "=C3:C5*10")  # implicit intersection in an ordinary cell
    ws.write_formula("L9", "=C3:C5*10")  # no intersection: #VALUE!
    merged = wb.add_format({"align": "center"})
    ws.merge_range("M1:N2", "merged", merged)
    ws.write_formula("M4", "=M1&\"!\"")
    wb.close()


def circular(path: Path, iterate: bool) -> None:
    """A loop: interest on an average balance that includes the interest."""
    wb = _workbook(path)
    ws = wb.add_worksheet("Loop")
    ws.write("A1", 1000)
    ws.write("A2", 0.05)
    ws.write_formula("B1", "=A2*(A1+B2)/2")  # interest
    ws.write_formula("B2", "=A1+B1")  # closing balance
    ws.write_formula("B3", "=B2*2")  # depends on the loop
    ws.write_formula("B4", "=A1*3")  # independent of it
    if iterate:
        wb.set_calc_mode("auto")
        wb.calc_on_load = True
    wb.close()
    if iterate:
        _set_iteration(path, count=100, delta=0.000001)


def _set_iteration(path: Path, count: int, delta: float) -> None:
    import openpyxl

    book = openpyxl.load_workbook(path)
    book.calculation.iterate = True
    book.calculation.iterateCount = count
    book.calculation.iterateDelta = delta
    book.save(path)


def generated(path: Path, formulas: int = 12000, sheets: int = 8) -> None:
    """A large workbook like the ones treasury teams keep (speed, memory and fidelity): many
    sheets, 14 function families, defined names of several kinds (a constant, ranges, a
    sheet-scoped name), cross-sheet chains, SUMPRODUCT over a scalar function of a range, and
    a link to another workbook with its cached values."""
    wb = _workbook(path)
    per_sheet = formulas // sheets
    data = wb.add_worksheet("Data")
    date_format = wb.add_format({"num_format": "yyyy-mm-dd"})
    for i in range(500):
        data.write_row(i, 0, [i + 1, (i * 37) % 101 / 7, f"item{i % 17}"])
        data.write_datetime(i, 3, datetime(2023, 1, 1) + timedelta(days=i * 3), date_format)
    wb.define_name("bump", "=0.0025")  # a constant
    wb.define_name("ids", "=Data!$A$1:$A$500")  # ranges
    wb.define_name("amounts", "=Data!$B$1:$B$500")
    wb.define_name("dates", "=Data!$D$1:$D$500")
    templates = ["=Data!A{r}*{k}+Data!B{r}", "=ROUND(Data!B{r}*{k}/3,4)", "=IF(Data!A{r}>{k},Data!B{r},-Data!B{r})",
                 "=LEN(Data!C{r})+{k}", "=YEAR(Data!D{r})+MONTH(Data!D{r})*{k}",
                 "=VLOOKUP(Data!A{r},Data!A$1:C$500,2,FALSE)*{k}", "=SUM(Data!A{r}:B{r})+{k}",
                 "=MAX(Data!B{r},{k})", "=EXP(-Data!B{r}/{k})", "=IFERROR(Data!B{r}/(Data!A{r}-{k}),0)",
                 "=INDEX(amounts,MATCH(Data!A{r},ids,0))*(1+bump)", '=COUNTIF(Data!C$1:C$500,Data!C{r})+{k}',
                 "=EDATE(Data!D{r},{k})-Data!D{r}", '=TEXT(Data!D{r},"yyyy-mm")&"-"&{k}',
                 "=NETWORKDAYS(Data!D{r},Data!D{r}+{k}*7)", "=SUMIF(Data!C$1:C$500,Data!C{r},amounts)/{k}"]
    for s in range(sheets):
        ws = wb.add_worksheet(f"S{s + 1}")
        for i in range(per_sheet):
            r, k = i % 500 + 1, s + 2
            row, col = i % 500, i // 500
            if s == 0 and i == 0:
                ws.write_formula(row, col, "=SUM(amounts)")
            elif col > 0 and i % 5 == 0:  # a chain on the sheet's own earlier cells
                ws.write_formula(row, col, f"={xlsxwriter.utility.xl_col_to_name(col - 1)}{r}*1.01+1")
            elif s > 0 and i % 97 == 0:  # across sheets
                ws.write_formula(row, col, f"=S{s}!A{r}+S1!local_k")
            elif i % 251 == 0:  # the SUMPRODUCT idiom over a name
                ws.write_formula(row, col, f"=SUMPRODUCT(--(YEAR(dates)={2023 + s % 4}),amounts)")
            elif i % 499 == 0:  # a linked workbook's cached values
                ws.write_formula(row, col, f"=[1]Rates!B2*{k}", None, 0.0425 * k)
            else:
                ws.write_formula(row, col, templates[(i + s) % len(templates)].format(r=r, k=k))
    wb.define_name("S1!local_k", "=S1!$A$1")  # sheet-scoped (once the sheet exists)
    wb.close()
    add_external_link(path, "market data.xlsx", "Rates", {"B2": 0.0425, "B3": 0.04})


def external_link(path: Path) -> None:
    """Formulas reading another workbook through an externalLink part with cached values, as
    Excel saves them (XlsxWriter cannot write the part: it is added to the package after)."""
    wb = _workbook(path)
    ws = wb.add_worksheet("Book")
    ws.write_formula("A1", "=[1]Rates!B2*100", None, 4.25)
    ws.write_formula("A2", "=A1+1", None, 5.25)
    ws.write_formula("A3", "=SUM([1]Rates!B2:B3)", None, 0.0825)
    ws.write_formula("A4", "=ext_rate*2", None, 0.085)
    wb.define_name("ext_rate", "=[1]Rates!$B$2")
    wb.close()
    add_external_link(path, "market data.xlsx", "Rates", {"B2": 0.0425, "B3": 0.04})


MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELS_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'


def add_external_link(path: Path, target: str, sheet: str, cells: dict[str, float]) -> None:
    """A link to another workbook (`target`) whose part caches `cells` of its `sheet`: the
    file's link 1."""
    add_links(path, [external_book(target, sheet, cells)])


def external_book(target: str, sheet: str, cells: dict[str, float]) -> tuple[str, str]:
    """A link part to another workbook caching `cells` of its `sheet`, and its relationships."""
    import re

    rows: dict[int, list[str]] = {}
    for ref, value in cells.items():
        rows.setdefault(int(re.sub(r"\D", "", ref)), []).append(f'<cell r="{ref}"><v>{value}</v></cell>')
    data = "".join(f'<row r="{r}">{"".join(c)}</row>' for r, c in sorted(rows.items()))
    link = (f'{_HEAD}<externalLink xmlns="{MAIN_NS}" '
            f'xmlns:r="{RELS_NS}"><externalBook r:id="rId1"><sheetNames><sheetName val="{sheet}"/></sheetNames>'
            f'<sheetDataSet><sheetData sheetId="0">{data}</sheetData></sheetDataSet></externalBook></externalLink>')
    return link, _link_rels("externalLinkPath", target)


def _link_rels(kind: str, target: str) -> str:
    return (f'{_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{RELS_NS}/{kind}" Target="{target}" TargetMode="External"/>'
            '</Relationships>')


def edit_parts(path: Path, edit: Callable[[dict[str, bytes]], object]) -> None:
    """The package at `path` written again with its parts (name -> bytes) as `edit` leaves them."""
    import zipfile

    with zipfile.ZipFile(path) as src:
        parts = {name: src.read(name) for name in src.namelist()}
    edit(parts)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for name, content in parts.items():
            out.writestr(name, content)


def saved_by_excel(parts: dict[str, bytes], sheet: int, values: dict[str, object],
                   tags: dict[str, str] | None = None) -> None:
    """In `edit_parts`' parts of a book openpyxl wrote (no cached values, fullCalcOnLoad), each
    formula cell of xl/worksheets/sheet{sheet}.xml given the value Excel saved for it (an error
    value as `t="e"`, a logical as `t="b"`, other text as `t="str"`), `tags`: attributes added
    to a cell's tag (`vm="1"`); and workbook.xml's calcPr as Excel writes it (calcId alone)."""
    name = f"xl/worksheets/sheet{sheet}.xml"
    text = parts[name].decode()
    for cell, value in values.items():
        kind = (' t="b"' if isinstance(value, bool) else
                ' t="e"' if isinstance(value, str) and value.startswith("#") else
                ' t="str"' if isinstance(value, str) else "")
        stored = int(value) if isinstance(value, bool) else value
        extra = f" {tags[cell]}" if tags and cell in tags else ""
        text, found = re.subn(rf'<c r="{cell}"([^>]*)><f>(.*?)</f><v\s*/?>(?:</v>)?',
                              rf'<c r="{cell}"\1{kind}{extra}><f>\2</f><v>{stored}</v>', text)
        assert found == 1, f"{name}: no formula cell {cell}"
    parts[name] = text.encode()
    parts["xl/workbook.xml"] = re.sub(rb"<calcPr[^>]*/>", b'<calcPr calcId="191029"/>', parts["xl/workbook.xml"])


def add_links(path: Path, links: list[tuple[str, str | None]]) -> None:
    """The file's external links, in order (`[1]` the first): each a link part and its
    relationships (None: it has none, as a DDE link)."""
    def add(parts: dict[str, bytes]) -> None:
        numbers = range(1, len(links) + 1)
        references = "".join(f'<externalReference r:id="rIdExt{n}"/>' for n in numbers)
        parts["xl/workbook.xml"] = parts["xl/workbook.xml"].decode().replace(
            "</sheets>", f"</sheets><externalReferences>{references}</externalReferences>", 1).encode()
        rels = "".join(f'<Relationship Id="rIdExt{n}" Type="{RELS_NS}/externalLink" '
                       f'Target="externalLinks/externalLink{n}.xml"/>' for n in numbers)
        parts["xl/_rels/workbook.xml.rels"] = parts["xl/_rels/workbook.xml.rels"].decode().replace(
            "</Relationships>", f"{rels}</Relationships>").encode()
        types = "".join(f'<Override PartName="/xl/externalLinks/externalLink{n}.xml" ContentType='
                        '"application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/>'
                        for n in numbers)
        parts["[Content_Types].xml"] = parts["[Content_Types].xml"].decode().replace(
            "</Types>", f"{types}</Types>").encode()
        for n, (link, link_rels) in zip(numbers, links, strict=True):
            parts[f"xl/externalLinks/externalLink{n}.xml"] = link.encode()
            if link_rels is not None:
                parts[f"xl/externalLinks/_rels/externalLink{n}.xml.rels"] = link_rels.encode()
    edit_parts(path, add)


def dde_link(service: str, topic: str, items: list[str]) -> tuple[str, None]:
    """A link to a DDE feed as Excel writes one (EPPlus's Excel-made dde.xlsx): no
    relationships."""
    listed = "".join(f'<ddeItem name="{item}" advise="1"/>' for item in items)
    return (f'{_HEAD}<externalLink xmlns="{MAIN_NS}"><ddeLink xmlns:r="{RELS_NS}" ddeService="{service}" '
            f'ddeTopic="{topic}"><ddeItems>{listed}</ddeItems></ddeLink></externalLink>'), None


def ole_link(prog_id: str, target: str, items: list[str]) -> tuple[str, str]:
    """A link to an OLE object as Excel writes one (dde.xlsx's), and its relationships."""
    listed = "".join(f'<oleItem name="{item}" advise="1"/>' for item in items)
    link = (f'{_HEAD}<externalLink xmlns="{MAIN_NS}"><oleLink xmlns:r="{RELS_NS}" r:id="rId1" '
            f'progId="{prog_id}"><oleItems>{listed}</oleItems></oleLink></externalLink>')
    return link, _link_rels("oleObject", target)


def features(path: Path, vba_project: Path | None = None) -> None:
    """What a real workbook carries besides formulas: merged cells, hidden and very hidden
    sheets, a chart, comments, data validation, dynamic arrays and newer functions (`_xlfn.`),
    and (with `vba_project`) a VBA project."""
    wb = _workbook(path)
    ws = wb.add_worksheet("Main")
    hidden = wb.add_worksheet("Hidden")
    very = wb.add_worksheet("VeryHidden")
    hidden.hide()
    very.very_hidden() if hasattr(very, "very_hidden") else very.hide()
    for i in range(6):
        ws.write(i + 1, 0, f"r{i}")
        ws.write(i + 1, 1, (i + 1) * 1.5)
        hidden.write(i, 0, i * 10)
        very.write(i, 0, i * 100)
    ws.merge_range("D1:E1", "Merged title")
    ws.write_formula("D2", "=SUM(B2:B7)")
    ws.write_formula("D3", "=SUM(Hidden!A1:A6)+SUM(VeryHidden!A1:A6)")
    ws.write_comment("D2", "the total")
    ws.data_validation("F2", {"validate": "list", "source": ["a", "b"]})
    ws.write_dynamic_array_formula("G2:G7", "=SORT(B2:B7,1,-1)")
    ws.write_dynamic_array_formula("H2:H4", "=SEQUENCE(3)")
    ws.write_formula("I2", '=XLOOKUP("r2",A2:A7,B2:B7)')
    ws.write_formula("I3", '=TEXTJOIN("-",TRUE,A2:A4)')
    ws.write_formula("I4", "=IFS(B2>1,\"big\",TRUE,\"small\")")
    ws.write_formula("I5", "=D1")  # a merged cell's value
    chart = wb.add_chart({"type": "line"})
    chart.add_series({"values": "=Main!$B$2:$B$7", "categories": "=Main!$A$2:$A$7"})
    ws.insert_chart("K2", chart)
    if vba_project is not None:
        wb.add_vba_project(str(vba_project))
    wb.close()


def pivot(path: Path) -> None:
    """The source of a pivot table: LibreOffice adds the pivot itself (`pivot_uno.py`), with
    formulas beside it that read its output."""
    wb = _workbook(path)
    data = wb.add_worksheet("Data")
    sheet = wb.add_worksheet("Pivot")
    data.write_row(0, 0, ["desk", "ccy", "notional"])
    rows = [("rates", "USD", 10), ("rates", "EUR", 20), ("fx", "USD", 5), ("fx", "GBP", 7),
            ("credit", "EUR", 3), ("rates", "USD", 1), ("fx", "EUR", 2), ("credit", "USD", 4)]
    for i, row in enumerate(rows, 1):
        data.write_row(i, 0, row)
    sheet.write_formula("A1", "=SUM(Data!C2:C9)")
    sheet.write_formula("A2", "=SUM(E2:E4)")  # the pivot's output (filled in by LibreOffice)
    sheet.write_formula("A3", "=A1-A2")
    wb.close()


def recalculate_with_pivot(source: Path, out_dir: Path) -> Path:
    """LibreOffice through UNO: add the pivot table, recalculate, save (see pivot_uno.py)."""
    python = shutil.which("python3", path="/usr/bin") or "python3"
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / source.name
    subprocess.run([python, str(HERE / "pivot_uno.py"), str(source), str(target)], check=True,
                   capture_output=True, timeout=300)
    return target


BUILDERS = {
    "families": families,
    "edge_cases": edge_cases,
    "names_and_references": names_and_references,
    "arrays": arrays,
    "circular_iterative": lambda p: circular(p, True),
    "circular_off": lambda p: circular(p, False),
    "external_link": external_link,
    "pivot": pivot,
    "generated_12000": generated,
}


def recalculate(source: Path, out_dir: Path) -> Path:
    """LibreOffice headless: load (recalculating every formula), save as .xlsx into out_dir."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        raise RuntimeError("LibreOffice (soffice) is not installed: apt-get install libreoffice-calc")
    with tempfile.TemporaryDirectory() as profile:
        user = Path(profile) / "user"
        user.mkdir()
        (user / "registrymodifications.xcu").write_text(RECALCULATING_PROFILE)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
                            "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", tmp, str(source)],
                           check=True, capture_output=True, timeout=180)
            made = Path(tmp) / f"{source.stem}.xlsx"
            out_dir.mkdir(parents=True, exist_ok=True)
            target = out_dir / source.name
            shutil.copy(made, target)
    _relative_links(target)
    return target


def _relative_links(path: Path) -> None:
    """LibreOffice writes a link to another workbook as a path from where it ran: keep the
    file name only, as Excel does for a book beside it (no machine's folders in the corpus)."""
    import re
    import zipfile

    with zipfile.ZipFile(path) as src:
        parts = {name: src.read(name) for name in src.namelist()}
    changed = False
    for name, content in parts.items():
        if name.startswith("xl/externalLinks/_rels/"):
            fixed = re.sub(rb'Target="[^"]*/([^"/]+)"', rb'Target="\1"', content)
            changed |= fixed != content
            parts[name] = fixed
    if changed:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
            for name, content in parts.items():
                out.writestr(name, content)


def main(names: list[str] | None = None) -> int:
    SOURCE.mkdir(parents=True, exist_ok=True)
    for name, build in BUILDERS.items():
        if names and name not in names:
            continue
        path = SOURCE / f"{name}.xlsx"
        build(path)
        (recalculate_with_pivot if name == "pivot" else recalculate)(path, REFERENCE)
        print(f"{name}: source and reference written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
