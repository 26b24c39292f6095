"""Which engine computes which Excel function: one table, one decision.

The fast engine (formualizer) computes every function it knows, except:

- `BRIDGED`: computed by the `formulas` package's implementation, called from formualizer
  (`calc/xlfuncs/bridge.py`), where that one is measured right on Excel's answers and
  formualizer's is not;
- `OURS`: Excel-exact implementations written here (`calc/xlfuncs/`), where neither is right;
- `NOT_COMPUTED`: functions neither engine gets right on the corpus: a formula calling one
  is not computed; it keeps the file's cached value (Excel's) and is listed with the reason.

Each entry says what was measured (`python -m bench.excel_corpus`, ../shared/corpus/excel).
`python -m rates_xl.calc.routing` writes the table in docs/templates-and-calc.md.
"""

from __future__ import annotations

from rates_xl.calc.xlfuncs import scalars as _scalars

#: Function -> why the `formulas` implementation is used (formualizer's fault it avoids).
BRIDGED: dict[str, str] = {
    "CONVERT": "formualizer lacks most units and every prefix (#N/A): 1,409 cells",
    "FORECAST": "errors and mismatched arrays: +24",
    "FORECAST.LINEAR": "as FORECAST: +22",
    "XIRR": "Newton from Excel's guess, error checks: +7",
    "IRR": "as XIRR: +9",
    "CEILING": "zero and negative significance: +9",
    "FLOOR": "zero and negative significance: +7",
    "ISODD": "text and boolean arguments: +3",
    "ISEVEN": "text and boolean arguments: +3",
    "RANK.AVG": "ties and errors in the reference: +19",
    "RANK.EQ": "errors in the reference: +19",
    "LARGE": "errors and k checks over arrays: +17 (-2 on scalar text / boolean arguments)",
    "SMALL": "errors and k checks over arrays: +17",
    "MROUND": "signs: +1",
    "PPMT": "types and errors: +6",
    "IMDIV": "complex division by zero: +5",
    "NUMBERVALUE": "separators and percent signs: +9",
    "ISOWEEKNUM": "arrays and errors: +8",
    "SUBSTITUTE": "instance numbers: +6 (-1: an empty old text)",
    "VALUE": "currency and grouping (\"$1,000\"): +2",
    "DATE": "years before 1900 and days before 1 March 1900: +6",
    "FREQUENCY": "bins: +9",
    "SUMX2PY2": "arrays of different shapes: +6",
    "SUMX2MY2": "arrays of different shapes: +4",
    "SUMXMY2": "arrays of different shapes: +3",
    "MODE": "no repeated value (#N/A): +2",
    # formualizer does not know it (it was not computed): Microsoft's example, and LibreOffice
    # (tests/calc/test_bonds.py). Not VDB: formulas' answers #VALUE! for a period ending at the
    # asset's life, where Excel (Microsoft's examples) and LibreOffice give the depreciation.
    "FVSCHEDULE": "unknown to formualizer: Microsoft's example, LibreOffice",
}
BRIDGED.update(_scalars.WHY)  # Excel's coercions and lifting in scalar functions (calc/xlfuncs/scalars.py)

#: Money-market functions formualizer does not know, bridged to `formulas` only on the day-count
#: bases where its answers are known to be right: name -> (the basis argument's position, those
#: bases). A call giving one of them as a number goes to `RATESXL.<name>` (the pass
#: `gated_basis`, calc/formula/calls.py); any other call (basis 0, 1 or 4, omitted, or read from a
#: cell) is not computed and listed, as every call was. On actual/360 and actual/365 (2 and 3, the
#: money-market bases: the days are counted as they fall) `formulas` equals LibreOffice on every
#: date tried, month ends and 29 February included (tests/calc/test_bonds.py); on 30/360 and
#: actual/actual the two disagree at month ends and neither is known to be Excel's.
BASIS_GATED: dict[str, tuple[int, frozenset[int]]] = {
    name: (4, frozenset({2, 3})) for name in ("DISC", "INTRATE", "RECEIVED", "PRICEDISC", "YIELDDISC")
}

#: Functions formualizer computes whose answer on some bases is not known to be Excel's: name ->
#: (the basis argument's position, those bases, why). A call giving one of them as a number is
#: not computed, listed with the reason (the pass `gated_basis`). ACCRINT and ACCRINTM on
#: actual/actual over more than a year: formualizer, `formulas` and LibreOffice give three
#: answers (ACCRINTM(DATE(2020,9,1),DATE(2025,1,8),5%,1000,1): 217.626, 217.609, 217.213).
UNSETTLED_BASIS: dict[str, tuple[int, frozenset[int], str]] = {
    name: (at, frozenset({1}), f"{name} on the actual/actual basis: formualizer, formulas and LibreOffice "
           "answer it differently over more than a year, and none is known to be Excel's")
    for name, at in (("ACCRINT", 6), ("ACCRINTM", 4))
}

#: Function -> why it is not computed (the cached value is kept, the cell listed).
NOT_COMPUTED: dict[str, str] = {
}


def engine_for(name: str) -> str:
    """'xlfuncs', 'formulas (bridged)', 'not computed' or 'formualizer' for one function."""
    from rates_xl.calc import xlfuncs

    name = name.upper()
    if name in NOT_COMPUTED:
        return "not computed"
    if name in xlfuncs.OURS or name in xlfuncs.REWRITTEN:
        return "rates-xl (calc/xlfuncs)"
    if name in BRIDGED:
        return "formulas (bridged)"
    return "formualizer"


def not_computed(functions: set[str]) -> str | None:
    """Why a formula calling `functions` is not computed, or None."""
    found = sorted(functions & NOT_COMPUTED.keys())
    if not found:
        return None
    return "; ".join(f"{name}: {NOT_COMPUTED[name]}" for name in found)


BEGIN = "<!-- routing table: generated by `python -m rates_xl.calc.routing`; do not edit by hand -->"
END = "<!-- end of the routing table -->"


def table() -> str:
    """The per-function routing table in Markdown: every function not left to formualizer."""
    from rates_xl.calc import xlfuncs

    lines = ["| function | computed by | why (measured on ../shared/corpus/excel) |", "|---|---|---|"]
    rows = [(name, "rates-xl (`calc/xlfuncs`)", xlfuncs.WHY.get(name, "")) for name in xlfuncs.OURS]
    rows += [(name, "rates-xl (`calc/xlfuncs`, formula rewritten)", why)
             for name, why in xlfuncs.REWRITTEN.items()]
    rows += [(name, "formulas (bridged)", why) for name, why in BRIDGED.items() if name not in xlfuncs.OURS]
    rows += [(name, "not computed: cached value kept, listed", why) for name, why in NOT_COMPUTED.items()]
    rows += [(name, f"formulas (bridged) on bases {', '.join(map(str, sorted(bases)))}; not computed, listed, "
              "on the others", "unknown to formualizer; formulas equals LibreOffice on those bases at every date "
              "tried (tests/calc/test_bonds.py), not on 30/360 and actual/actual at month ends")
             for name, (_, bases) in BASIS_GATED.items()]
    rows += [(name, f"formualizer; not computed, listed, on basis {', '.join(map(str, sorted(bases)))}", why)
             for name, (_, bases, why) in UNSETTLED_BASIS.items()]
    for name, engine, why in sorted(rows):
        lines.append(f"| {name} | {engine} | {why} |")
    lines.append("")
    lines.append(f"{len(rows)} functions routed ({len(xlfuncs.OURS)} ours, "
                 f"{len([r for r in rows if r[1] == 'formulas (bridged)'])} bridged, {len(BASIS_GATED)} bridged "
                 f"on some bases, {len(NOT_COMPUTED)} not computed); every other function is formualizer's, and one it does not know "
                 "is not computed (listed).")
    return "\n".join(lines)


def write(path: str) -> None:
    """Replace the table between the markers in `path` (appended when they are missing)."""
    from pathlib import Path

    doc = Path(path)
    text = doc.read_text(encoding="utf-8")
    block = f"{BEGIN}\n{table()}\n{END}"
    if BEGIN in text and END in text:
        head, _, rest = text.partition(BEGIN)
        text = head + block + rest.partition(END)[2]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    import sys

    from rates_xl.calc import xlfuncs  # noqa: F401 - the table lists its functions

    write(sys.argv[1] if len(sys.argv) > 1 else "docs/templates-and-calc.md")
