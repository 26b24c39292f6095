"""One check of `rates-xl doctor`: `Check` (its name, its state, what was found, the fix) and
the four states. A leaf: doctor.py, doctor_addin.py and doctor_network.py make them.
"""

from __future__ import annotations

from dataclasses import dataclass

#: NA: the check does not apply on this machine (the classic add-in's checks without Excel).
OK, WARN, FAIL, NA = "ok", "warn", "FAIL", "n/a"


@dataclass(frozen=True)
class Check:
    name: str
    state: str  # OK, WARN, FAIL or NA
    detail: str
    fix: str = ""
