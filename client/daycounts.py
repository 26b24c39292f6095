"""Day count names: the service speaks QuantLib's class and convention names.

One table for the client (cache-key normalisation) and the worksheet functions
(validation). Kept free of imports so the UDF module can load it cheaply.
"""

from __future__ import annotations

import re

DAY_COUNTS = (
    "Actual360", "Actual365Fixed", "Actual366", "Actual364", "Actual36525", "Actual365NoLeap",
    "ActualActual", "ActualActualISDA", "ActualActualISMA", "ActualActualBond",
    "ActualActualHistorical", "ActualActualActual365", "ActualActualAFB", "ActualActualEuro",
    "Thirty360", "Thirty360BondBasis", "Thirty360USA", "Thirty360European",
    "Thirty360EurobondBasis", "Thirty360Italian", "Thirty360German", "Thirty360ISMA",
    "Thirty360ISDA", "Thirty360NASD", "Thirty365", "Business252", "SimpleDayCounter",
)

#: Market shorthand -> QuantLib name.
ALIASES = {
    "ACT/360": "Actual360", "A360": "Actual360", "ACT360": "Actual360",
    "ACT/365": "Actual365Fixed", "ACT/365F": "Actual365Fixed", "ACT/365FIXED": "Actual365Fixed",
    "A365F": "Actual365Fixed", "ACT365F": "Actual365Fixed",
    "ACT/ACT": "ActualActualISDA", "ACT/ACTISDA": "ActualActualISDA",
    "30/360": "Thirty360BondBasis", "30/360BONDBASIS": "Thirty360BondBasis",
    "30E/360": "Thirty360EurobondBasis", "30/360US": "Thirty360USA",
}

_BY_KEY = {d.upper(): d for d in DAY_COUNTS} | ALIASES


def canonical_day_count(text: str) -> str | None:
    """The service's name for a day count in any case or shorthand, or None if unknown."""
    return _BY_KEY.get(re.sub(r"[\s_()-]", "", text).upper())
