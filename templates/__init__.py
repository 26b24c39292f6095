"""Pricing templates and the demo (`rates-xl demo`).

- The templates are Python (`swap_pricer`, `curve_dashboard`, `fx_hedging`, `swap_spreads`,
  `history`, laid out with `layout`) built into the .xlsx files shipped beside them
  (`rates-xl templates build`, see `build`); they are computed with the headless calculator
  in `rates_xl.calc`.
- `demo` runs every template against an in-process sandbox.
"""

from __future__ import annotations

from pathlib import Path

#: Template name -> what it shows. The built workbook is `<name>.xlsx` in this folder.
TEMPLATES: dict[str, str] = {
    "swap_pricer": "Vanilla fixed/float swap: leg PVs, NPV, par rate vs RATES_SWAP, DV01",
    "curve_dashboard": "SOFR, ESTR and 3M EURIBOR swap curves with a chart; 2s10s and 5s30s",
    "fx_hedging": "FX spot, forward ladder, forward points, implied yield differential, hedge cost",
    "swap_spreads": "Swap rate minus government zero yield by tenor for US, UK and DE",
    "history": "Historical swap rates: one tenor's daily closes, and a date-by-tenor grid (2Y/5Y/10Y/30Y), with charts",
}

PACKAGE_DIR = Path(__file__).resolve().parent


def template_path(name: str) -> Path:
    """The shipped workbook of a template."""
    if name not in TEMPLATES:
        raise KeyError(f"unknown template {name!r}; known: {', '.join(TEMPLATES)}")
    return PACKAGE_DIR / f"{name}.xlsx"
