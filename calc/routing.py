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

#: Function -> why the `formulas` implementation is used (formualizer's fault it avoids).
BRIDGED: dict[str, str] = {
    "CONVERT": "formualizer lacks most units and every prefix (#N/A): 1,409 cells",
    "TEXT": "format codes (spaces, %, commas as scaling): +27 cells",
    "FIXED": "rounding and grouping: +11",
    "YEARFRAC": "day-count bases and error arguments: +12",
    "QUARTILE": "the quartile argument's checks and interpolation: +23",
    "QUARTILE.INC": "as QUARTILE: +21",
    "QUARTILE.EXC": "the exclusive method: +17",
    "PERCENTILE": "the k argument's checks: +21",
    "PERCENTILE.INC": "as PERCENTILE: +21",
    "PERCENTILE.EXC": "the exclusive method: +13",
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
}

#: Function -> why it is not computed (the cached value is kept, the cell listed).
_ARRAY_SHAPING = "formualizer differs from Excel on the corpus (spill shape, errors inside)"

NOT_COMPUTED: dict[str, str] = {
    "VSTACK": _ARRAY_SHAPING + ": 90 of 90 cells wrong",
    "HSTACK": _ARRAY_SHAPING + ": 21 of 21",
    "CHOOSECOLS": _ARRAY_SHAPING + ": 36 of 58",
    "CHOOSEROWS": _ARRAY_SHAPING + ": 18 of 40",
    "TAKE": _ARRAY_SHAPING + ": 23 of 37",
    "DROP": _ARRAY_SHAPING + ": 16 of 48",
    "TOCOL": _ARRAY_SHAPING + ": 17 of 46",
    "TOROW": _ARRAY_SHAPING + ": 10 of 36",
    "SORTBY": _ARRAY_SHAPING + ": 18 of 26",
    "TYPE": "arrays and references: 7 of 32",
}


def engine_for(name: str) -> str:
    """'xlfuncs', 'formulas (bridged)', 'not computed' or 'formualizer' for one function."""
    from rates_xl.calc import xlfuncs

    name = name.upper()
    if name in NOT_COMPUTED:
        return "not computed"
    if name in xlfuncs.OURS:
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
