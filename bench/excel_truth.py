"""Fidelity on Excel's answers kept outside the project: `python -m bench.excel_truth`.

Two public truth sets the project does not ship (their files stay where they are; fetch them
yourself, e.g. `git clone https://github.com/fsprojects/ExcelFinancialFunctions`):

- `--financial DIR`: the Excel-generated test data of fsprojects/ExcelFinancialFunctions
  (tests/ExcelFinancialFunctions.Tests/testdata: one case per line, the arguments then Excel
  2010's answer): each function's cases written as formulas, one book per function, computed
  with `rates-xl calc --full`, and compared (relative 5E-10 or absolute 1E-6: the data holds 13
  significant digits). Its README names COUPDAYS and VDB as places where the data was not kept
  to Excel's; COUPDAYS holds 17 cases for that reason.
- `--books DIR`: Excel-made workbooks (IronCalc's xlsx/tests/calc_tests, 199 of its 202 books
  saved by Excel): each measured as `bench.excel_corpus` measures the corpus (equal, listed,
  silently wrong).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_FREQUENCY = {"Annual": "1", "SemiAnnual": "2", "Quarterly": "4"}
_BASIS = {"UsPsa30_360": "0", "ActualActual": "1", "Actual360": "2", "Actual365": "3", "Europ30_360": "4"}
_WORDS = {"DontSwitchToStraightLine": "TRUE", "SwitchToStraightLine": "FALSE", "True": "TRUE", "False": "FALSE",
          "BeginningOfPeriod": "1", "EndOfPeriod": "0", **_FREQUENCY, **_BASIS}
#: Data file -> Excel function. The arguments are Excel's, in its order, but for AMORDEGRC's
#: last (the F# port's own "Excel compliant" switch, left out).
FUNCTIONS = {name.lower(): name for name in """ACCRINT ACCRINTM AMORDEGRC AMORLINC COUPDAYBS COUPDAYS COUPDAYSNC
    COUPNCD COUPNUM COUPPCD CUMIPMT CUMPRINC DB DDB DISC DOLLARDE DOLLARFR DURATION EFFECT FV FVSCHEDULE INTRATE
    IPMT IRR ISPMT MDURATION MIRR NOMINAL NPER NPV ODDFPRICE ODDFYIELD ODDLPRICE PMT PPMT PRICE PRICEDISC PRICEMAT
    PV RATE RECEIVED SLN SYD TBILLEQ TBILLPRICE TBILLYIELD VDB XIRR YEARFRAC YIELDDISC YIELDMAT""".split()}
FUNCTIONS["coupdaysbs"] = "COUPDAYBS"  # (the file's name)
_TICKS_PER_DAY, _TICKS_TO_1899_12_30 = 864e9, 693593  # .NET DateTime ticks (COUPNCD, COUPPCD)


def _argument(text: str, *, in_array: bool = False) -> str:
    text = text.strip()
    if ";" in text:  # an array of values
        return "{" + ",".join(_argument(part, in_array=True) for part in text.split(";")) + "}"
    if text.endswith(("AM", "PM")):
        moment = datetime.datetime.strptime(text, "%m/%d/%Y %I:%M:%S %p")
        if in_array:  # (an array constant holds no call: the date's serial)
            return str((moment - datetime.datetime(1899, 12, 30)).days)
        return f"DATE({moment.year},{moment.month},{moment.day})"
    if text in _WORDS:
        return _WORDS[text]
    float(text)  # (a number, or the line is not read)
    return text


def _cases(path: Path, name: str) -> list[tuple[str, float]]:
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        *fields, answer = line.strip().split(",")
        if name == "AMORDEGRC":
            fields = fields[:-1]
        try:
            formula = f"={name}({','.join(_argument(f) for f in fields)})"
        except ValueError:
            continue  # a field this reader does not know
        excel = float(answer)
        if name in ("COUPNCD", "COUPPCD"):
            excel = excel / _TICKS_PER_DAY - _TICKS_TO_1899_12_30
        cases.append((formula, excel))
    return cases


def financial(folder: Path) -> list[dict]:
    import openpyxl

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(folder.glob("*.test")):
            name = FUNCTIONS.get(path.stem)
            cases = _cases(path, name) if name else []
            if not cases:
                continue
            book = openpyxl.Workbook()
            sheet = book.active
            sheet.title = "S"
            for r, (formula, _) in enumerate(cases, start=1):
                sheet.cell(row=r, column=1).value = formula
            source, out = Path(tmp) / f"{path.stem}.xlsx", Path(tmp) / f"{path.stem}_out.xlsx"
            book.save(source)
            subprocess.run([sys.executable, "-m", "rates_xl.cli", "calc", str(source), "--full", "--force",
                            "--no-progress", "-o", str(out)], capture_output=True, cwd=ROOT, check=False)
            got = [row[0] for row in openpyxl.load_workbook(out, data_only=True)["S"].iter_rows(values_only=True)]
            equal = other = 0
            for (_, excel), value in zip(cases, got, strict=False):
                if isinstance(value, datetime.datetime):
                    value = (value - datetime.datetime(1899, 12, 30)).days
                if isinstance(value, int | float) and not isinstance(value, bool) \
                        and math.isclose(value, excel, rel_tol=5e-10, abs_tol=1e-6):
                    equal += 1
                elif not isinstance(value, int | float) or isinstance(value, bool):
                    other += 1
            rows.append({"function": name, "cases": len(cases), "equal": equal,
                         "differ": len(cases) - equal - other, "not a number": other})
    return rows


def books(folder: Path) -> list[dict]:
    rows = []
    for path in sorted(folder.rglob("*.xlsx")):
        proc = subprocess.run([sys.executable, "-m", "bench.excel_corpus", "--child", str(path), "--wrong", "5"],
                              capture_output=True, text=True, cwd=ROOT, check=False)
        try:
            rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        except (IndexError, json.JSONDecodeError):
            rows.append({"book": path.name, "failed": (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.excel_truth", description=__doc__.splitlines()[0])
    parser.add_argument("--financial", type=Path, help="fsprojects/ExcelFinancialFunctions' testdata folder")
    parser.add_argument("--books", type=Path, help="a folder of Excel-made workbooks (searched recursively)")
    args = parser.parse_args(argv)
    if not args.financial and not args.books:
        parser.print_usage()
        return 2
    if args.financial:
        rows = financial(args.financial)
        print("| function | cases | equal | differ | not a number |\n|---|---:|---:|---:|---:|")
        for row in rows:
            print(f"| {row['function']} | {row['cases']} | {row['equal']} | {row['differ']} | {row['not a number']} |")
        print(f"| **all** | {sum(r['cases'] for r in rows)} | {sum(r['equal'] for r in rows)} | "
              f"{sum(r['differ'] for r in rows)} | {sum(r['not a number'] for r in rows)} |")
    if args.books:
        rows = books(args.books)
        measured = [r for r in rows if "failed" not in r]
        for row in rows:
            if "failed" in row or row["wrong"]:
                print(row["book"], row.get("failed") or row["examples"])
        print({key: sum(r[key] for r in measured) for key in ("formulas", "equal", "flagged", "wrong")},
              f"{len(measured)} books, {len(rows) - len(measured)} failed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
