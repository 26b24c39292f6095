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
    "CONVERT": "formualizer lacks most units and every prefix (#N/A)",
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
