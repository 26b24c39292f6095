"""Random formulas computed by us and by LibreOffice, their disagreements listed: where to look
for a silently wrong number that no Excel-made book shows (`python -m bench.libreoffice_opinion`).

    python -m bench.libreoffice_opinion [--cases 1500] [--seed 1] [--family financial ...]

Each family writes one book of random calls of the functions a finance model uses (bond and
cash-flow functions over random dates and bases; dates and workdays; rounding and the time of
day; text read as a number; SUMIF's criteria and the statistics over a block of mixed cells;
case and spaces),
computes it with `rates-xl calc --full` (in process) and with LibreOffice headless (every
formula recalculated on load: tests/support/libreoffice.py), and prints per function how many
answers agree (numbers to 1E-9 relatively, any error with any error) and the first few that
do not.

LibreOffice is another implementation of Excel's rules, not Excel: a disagreement is a place
to look, settled by Excel's own answers (the corpus, the Excel-made books of `bench.excel_truth`,
Microsoft's pages), never by LibreOffice's. Those settled for LibreOffice's side are in
docs/performance.md with what was mended; those settled for ours stay listed by this script
(LibreOffice 7.4: MROUND over numbers of two signs, T-bills past a year, XNPV below 0 %,
30/360 and actual/actual bond arithmetic that Excel 2010's own cases give as ours, booleans in
ranges read as numbers, "*" matching numbers, "ß" upper-cased to "ẞ", CHAR(160) written in
another code page ...).
"""

from __future__ import annotations

import argparse
import collections
import csv
import datetime
import math
import random
import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support import libreoffice

#: Functions stored with Excel's _xlfn. prefix in a file.
_PREFIXED = ("DAYS(", "ISOWEEKNUM(", "CEILING.MATH(", "FLOOR.MATH(", "NORM.S.DIST(", "NORM.INV(", "T.DIST.2T(",
             "STDEV.S(", "VAR.P(", "PERCENTILE.INC(", "QUARTILE.INC(", "RANK.EQ(", "RANK.AVG(", "MODE.SNGL(")


class _Draw:
    """Random arguments of the kinds the families use."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def date(self) -> str:
        r = self.r
        year, month = r.randint(1995, 2060), r.randint(1, 12)
        last = [31, 29 if year % 4 == 0 and (year % 100 or year % 400 == 0) else 28, 31, 30, 31, 30, 31, 31,
                30, 31, 30, 31][month - 1]
        day = last if r.random() < 0.3 else r.randint(1, 28)  # month ends: where day counts differ
        return f"DATE({year},{month},{day})"

    def num(self, low: float, high: float, places: int = 4) -> str:
        return repr(round(self.r.uniform(low, high), places))

    def pick(self, *items: Any) -> Any:
        return self.r.choice(items)

    def flows(self, low: int, high: int) -> str:
        return ",".join([self.num(-1e4, -1, 2)] + [self.num(-500, 3000, 2) for _ in range(self.r.randint(low, high))])


def _financial(d: _Draw) -> list[Callable[[], str]]:
    freq, basis = (lambda: d.pick(1, 2, 4)), (lambda: d.r.randint(0, 4))
    return [
        lambda: f"YEARFRAC({d.date()},{d.date()},{basis()})",
        lambda: f"{d.pick('COUPDAYBS', 'COUPDAYS', 'COUPDAYSNC', 'COUPNCD', 'COUPPCD', 'COUPNUM')}"
                f"({d.date()},{d.date()},{freq()},{basis()})",
        lambda: f"PRICE({d.date()},{d.date()},{d.num(0, 0.12)},{d.num(0.001, 0.15)},100,{freq()},{basis()})",
        lambda: f"YIELD({d.date()},{d.date()},{d.num(0, 0.12)},{d.num(60, 140, 3)},100,{freq()},{basis()})",
        lambda: f"{d.pick('DURATION', 'MDURATION')}({d.date()},{d.date()},{d.num(0, 0.12)},{d.num(0.001, 0.15)},"
                f"{freq()},{basis()})",
        lambda: f"{d.pick('IPMT', 'PPMT')}({d.num(0, 0.2)}/12,{d.r.randint(1, 360)},360,{d.num(-1e6, 1e6, 2)},0,"
                f"{d.r.randint(0, 1)})",
        lambda: f"RATE({d.r.randint(1, 360)},{d.num(-1e3, 1e3, 2)},{d.num(-1e5, 1e5, 2)},{d.num(-1e4, 1e4, 2)})",
        lambda: f"IRR({{{d.flows(1, 10)}}})",
        lambda: f"XIRR({{{d.flows(3, 3)}}},{{40000,{d.r.randint(40001, 41000)},{d.r.randint(40001, 41000)},"
                f"{d.r.randint(40001, 41000)}}})",
        lambda: f"XNPV({d.num(0.001, 0.3)},{{{d.flows(3, 3)}}},{{40000,40100,40400,40800}})",
        lambda: f"{d.pick('DISC', 'INTRATE')}({d.date()},{d.date()},{d.num(80, 100, 3)},100,{basis()})",
        lambda: f"{d.pick('DB', 'DDB', 'SYD')}({d.num(1e3, 1e6, 2)},{d.num(0, 1e3, 2)},{d.r.randint(1, 20)},"
                f"{d.r.randint(1, 20)})",
    ]


def _dates(d: _Draw) -> list[Callable[[], str]]:
    weekend = lambda: d.pick("1", "2", "7", "11", "17", '"0000011"', '"1010100"')  # noqa: E731
    holidays = lambda: "{" + ",".join(str(d.r.randint(33000, 55000)) for _ in range(3)) + "}"  # noqa: E731
    return [
        lambda: f"EDATE({d.date()},{d.r.randint(-60, 60)})", lambda: f"EOMONTH({d.date()},{d.r.randint(-60, 60)})",
        lambda: f"DAYS360({d.date()},{d.date()},{d.pick('TRUE', 'FALSE')})",
        lambda: f"NETWORKDAYS({d.date()},{d.date()},{holidays()})",
        lambda: f"WORKDAY({d.date()},{d.r.randint(-400, 400)},{holidays()})",
        lambda: f"WORKDAY.INTL({d.date()},{d.r.randint(-400, 400)},{weekend()})",
        lambda: f"WEEKDAY({d.date()},{d.pick(1, 2, 3, 11, 12, 13, 14, 15, 16, 17)})",
        lambda: f"DATEDIF({d.date()},{d.date()},\"{d.pick('Y', 'M', 'D', 'MD', 'YM', 'YD')}\")",
        lambda: f"DATE({d.r.randint(1900, 2100)},{d.r.randint(-30, 30)},{d.r.randint(-60, 60)})",
    ]


def _rounding(d: _Draw) -> list[Callable[[], str]]:
    value = lambda: repr(round(d.r.uniform(-1000, 1000), d.r.randint(0, 6)))  # noqa: E731
    moment = lambda: repr(round(d.r.random(), d.r.randint(3, 12)))  # noqa: E731
    return [
        lambda: f"ROUND({value()},{d.r.randint(0, 4)})", lambda: f"ROUNDUP({value()}*{value()},{d.r.randint(-2, 4)})",
        lambda: f"MOD({value()},{d.pick('3', '-3', '0.1', '-0.7', '2.5')})",
        lambda: f"MROUND({abs(float(value()))},{d.pick('0.1', '0.05', '0.25', '3')})",
        lambda: f"{d.pick('HOUR', 'MINUTE', 'SECOND')}({moment()})",
        lambda: f"TEXT({moment()},\"hh:mm:ss\")", lambda: f"FIXED({value()},{d.r.randint(-2, 4)})",
    ]


def _text_numbers(d: _Draw) -> list[Callable[[], str]]:
    texts = ["1,234.5", "12%", "(123)", " 42 ", "1 1/2", "0 3/8", "2024-03-01", "12:30", "-0.5E-2", "1e3"]
    return [lambda: f'VALUE("{d.pick(*texts)}")', lambda: f'"{d.pick(*texts)}"*2']


#: The mixed block the criteria and statistics read (D1:F60): numbers, texts, numeric texts,
#: dates, blanks.
_BLOCK = [0, 1, 2, 3, 5, 5.5, 10, -1, 100, 0.1, 7, 7, 45301, "apple", "Apple", "apricot", "b", "a*b", "10", "5.5",
          "2024-01-10", " ", "x y", None]
_CRITERIA = ['">5"', '"<=5"', '"<>5"', '"5"', "5", '"<>"', '"="', '""', '"a*"', '"?pple"', '"*"', '"~*"', '"10"',
             '">=2024-01-10"', '"<2024-01-05"', '">"&DATE(2024,1,10)', '"<apple"', '"5.5"', '">0.1"', '"<50%"']


def _criteria(d: _Draw) -> list[Callable[[], str]]:
    crit = lambda: d.pick(*_CRITERIA)  # noqa: E731
    return [
        lambda: f"COUNTIF(D1:D60,{crit()})", lambda: f"SUMIF(D1:D60,{crit()},F1:F60)",
        lambda: f"COUNTIFS(D1:D60,{crit()},E1:E60,{crit()})", lambda: f"AVERAGEIF(D1:D60,{crit()},F1:F60)",
        lambda: f"MATCH({crit()},D1:D60,0)",
    ]


def _statistics(d: _Draw) -> list[Callable[[], str]]:
    def cells() -> str:
        col, top = d.pick("D", "E"), d.r.randint(1, 20)
        return f"{col}{top}:{col}{d.r.randint(top, 60)}"
    return [lambda: f"{d.pick('AVERAGE', 'MEDIAN', 'STDEV.S', 'VAR.P', 'KURT', 'SKEW', 'MODE.SNGL', 'COUNT')}({cells()})",
            lambda: f"PERCENTILE.INC({cells()},{round(d.r.random(), 2)})",
            lambda: f"RANK.EQ({d.pick(1, 5, 7, 10)},{cells()},{d.r.randint(0, 1)})"]


def _strings(d: _Draw) -> list[Callable[[], str]]:
    words = ['"straße"', '" a  b "', '"tab"&CHAR(9)&"x"', '"x"&CHAR(160)&" y "', '"Hello World"', '"ÄÖÜ"',
             '"MiXeD"', '"a,b,c"']
    word = lambda: d.pick(*words)  # noqa: E731
    return [lambda: f"{d.pick('UPPER', 'LOWER', 'TRIM', 'PROPER', 'LEN', 'CLEAN')}({word()})",
            lambda: f"LEN({d.pick('UPPER', 'TRIM')}({word()}))",
            lambda: f"SUBSTITUTE({word()},\"{d.pick('a', ' ', 'ß')}\",\"#\")",
            lambda: f"MID({word()},{d.r.randint(1, 6)},{d.r.randint(1, 6)})"]


FAMILIES = {"financial": _financial, "dates": _dates, "rounding": _rounding, "text": _text_numbers,
            "criteria": _criteria, "statistics": _statistics, "strings": _strings}


def _book(path: Path, formulas: list[str], seed: int) -> None:
    import openpyxl

    chance = random.Random(seed)
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row, formula in enumerate(formulas, start=1):
        prefixed = "_xlfn." + formula if formula.startswith(_PREFIXED) else formula
        sheet.cell(row=row, column=1).value = "=" + prefixed
    for row in range(1, 61):
        for col in (4, 5):
            sheet.cell(row=row, column=col).value = chance.choice(_BLOCK)
        sheet.cell(row=row, column=6).value = chance.randint(1, 9)
    book.save(path)


_LO_DATE = re.compile(r"(\d\d)/(\d\d)/(\d{4})")


def _theirs(text: str) -> Any:
    """A LibreOffice cell text as a value: numbers (a percentage, a date it wrote as one) or the text."""
    if (found := _LO_DATE.fullmatch(text)) is not None:
        return float((datetime.date(int(found[3]), int(found[1]), int(found[2])) - datetime.date(1899, 12, 30)).days)
    try:
        return float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        return text


def _agree(ours: Any, theirs: Any) -> bool:
    if isinstance(ours, bool) or isinstance(theirs, bool):
        return str(ours).upper() == str(theirs).upper()
    if isinstance(ours, int | float) and isinstance(theirs, float):
        return math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(ours, str) and isinstance(theirs, str):
        error = ours.startswith("#") and (theirs.startswith("#") or theirs.startswith("Err:"))
        return error or ours == theirs
    return isinstance(ours, str) and isinstance(theirs, float) and _theirs(ours) == theirs


def compare(family: str, cases: int, seed: int, where: Path) -> dict[str, list[tuple[str, Any, Any]]]:
    """Each function's calls in `family` -> the disagreements among them (formula, ours, theirs);
    every function called appears, with an empty list where all agree."""
    from rates_xl.calc.workbook import WorkbookCalculation

    draw = _Draw(seed)
    makers = FAMILIES[family](draw)
    formulas = [draw.r.choice(makers)() for _ in range(cases)]
    path = where / f"{family}.xlsx"
    _book(path, formulas, seed)
    values = WorkbookCalculation(path, full=True).compute().values
    rows = libreoffice.computed_rows(path, where / family)
    found: dict[str, list[tuple[str, Any, Any]]] = collections.defaultdict(list)
    for row, formula in enumerate(formulas, start=1):
        name = formula.split("(", 1)[0].lstrip('"').split('"')[0] or "arithmetic"
        ours = values.get(("S", f"A{row}"))
        theirs = _theirs(rows[row - 1][0] if row - 1 < len(rows) and rows[row - 1] else "")
        found[name] += [] if _agree(ours, theirs) else [(formula, ours, theirs)]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.libreoffice_opinion", description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1500, help="calls in each family's book")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES), help="default: every family")
    parser.add_argument("--examples", type=int, default=3, help="disagreements shown per function")
    args = parser.parse_args(argv)
    if libreoffice.SOFFICE is None:
        print("LibreOffice (soffice) is not installed: apt-get install libreoffice-calc")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        for family in args.family or list(FAMILIES):
            try:
                found = compare(family, args.cases, args.seed, Path(tmp))
            except (subprocess.SubprocessError, OSError, csv.Error) as exc:
                print(f"{family}: LibreOffice did not compute the book ({exc})")
                continue
            differ = sum(map(len, found.values()))
            print(f"\n## {family}: {differ} of {args.cases} calls disagree\n")
            print("| function | disagree | first of them (ours; LibreOffice's) |\n|---|---:|---|")
            for name, rows in sorted(found.items(), key=lambda item: -len(item[1])):
                shown = "; ".join(f"`{f}` {o!r}; {t!r}" for f, o, t in rows[:args.examples])
                print(f"| {name} | {len(rows)} | {shown} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
