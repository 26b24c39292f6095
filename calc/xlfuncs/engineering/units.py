"""CONVERT's units that `formulas`' table (formulas 1.3.4, functions/units.json) lacks, added
to it before the first conversion: each answered #N/A there, where Excel converts.

Checked against every unit of Microsoft's CONVERT page: two are missing, the pond (gram-force,
9.80665E-3 newton, with the metric prefixes, as Excel takes them: CONVERT(0.05, "Mpond", "N")
is 490.3325) and GRT, the gross registered ton's other name (regton). IronCalc's Excel-made
ENGINEERING__CONVERT.xlsx holds Excel's values (Force!C6, G6, J6, Volume!C39; MIT or
Apache-2.0, not committed; tests/calc/test_convert_units.py)."""

from __future__ import annotations

import threading

#: unit -> (its system, its size in the system's unit of `formulas`' table: newton, litre)
MISSING = {"pond": ("force", 9.80665e-3), "GRT": ("volume", 2831.6846592)}
#: Those taking the metric prefixes, read off the dyne's in the same table.
PREFIXED = {"pond": "dyn"}

_lock = threading.Lock()
_done = False


def complete() -> None:
    """Add the missing units (and their prefixed names) to `formulas`' table, once."""
    global _done
    with _lock:
        if _done:
            return
        from formulas.functions import eng

        table = eng._units()  # (an lru_cache: the dict every conversion reads)
        for unit, (system, size) in MISSING.items():
            table.setdefault(unit, {system: size})
            model = PREFIXED.get(unit)
            if model is None:
                continue
            base = table[model][system]
            for name, sizes in list(table.items()):
                if name.endswith(model) and name != model and system in sizes:
                    prefix = name[: -len(model)]
                    table.setdefault(prefix + unit, {system: size * (sizes[system] / base)})
        _done = True
