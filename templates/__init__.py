"""Pricing templates and the demo (`rates-xl demo`).

The templates are Python, built into the .xlsx files shipped beside them and computed with
the headless calculator in `rates_xl.calc`:

- `swap_pricer.py`: a vanilla fixed/float swap valued from the service's curves;
- `curve_dashboard.py`: three swap curves side by side, a chart, 2s10s and 5s30s;
- `fx_hedging.py`: FX spot, a ladder of forwards, the cost of hedging;
- `swap_spreads.py`: swap rate minus government zero yield by tenor (US, UK, DE);
- `history.py`: historical swap rates, one tenor's closes and a date-by-tenor grid;
- `layout.py`: what every template shares (styles, inputs, outputs, spills);
- `build.py`: `rates-xl templates build`; `render.py`: every template as PNG pages for review;
- `demo.py`: `rates-xl demo`, every template computed against an in-process sandbox;
- `cli.py`: `demo` and `templates build|list`.
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
