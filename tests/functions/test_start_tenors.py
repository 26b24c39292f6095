"""What `0D` means (issue 31, point 4), held in one place: a start tenor counts from the
valuation date, as the service's interface says ("tenor runs from valuation time"), so `0D`
is the valuation date and a swap curve's points, which start at the index's spot, are
RATES_SWAP from `2D` for SOFR and ESTR. The README's example is the curve's 10Y point, and
the function reference, functions.json and docs/functions.md say the same."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rates_xl.functions import FUNCTIONS

ROOT = Path(__file__).resolve().parents[2]
#: A Friday, a Monday after a New Year holiday weekend, and the day before Thanksgiving.
MOMENTS = ["2026-01-02T16:00:00Z", "2026-01-05T16:00:00Z", "2026-11-25T16:00:00Z"]


def _readme_formula() -> tuple[str, tuple[str, ...]]:
    line = next(line for line in (ROOT / "README.md").read_text().splitlines() if "par swap rate" in line)
    match = re.search(r'=RATES_SWAP\(([^)]*)\)', line)
    assert match, line
    return line, tuple(part.strip().strip('"') for part in match[1].split(","))


@pytest.mark.parametrize("moment", MOMENTS)
def test_the_readmes_par_swap_rate_is_the_curves_10y_point(client, moment):
    _line, args = _readme_formula()
    swap, curve = FUNCTIONS["RATES_SWAP"], FUNCTIONS["RATES_SWAPCURVE"]
    rate = swap.core(*args, None, None, None, moment)
    points = dict((row[0], row[1]) for row in curve.core(args[0], moment)[1:])
    assert rate == points["10Y"], (args, rate, points["10Y"])
    # `0D` is another swap: it starts on the valuation date, before spot.
    today = client.swap_rate(args[0], "0D", "10Y", "1Y", valuation_time=moment)
    spot = client.swap_rate(args[0], "2D", "10Y", "1Y", valuation_time=moment)
    assert today.start_date.isoformat() == moment[:10] < spot.start_date.isoformat()
    assert today.swap_rate != rate


def test_every_page_says_0d_is_the_valuation_date_and_none_calls_it_spot():
    from rates_xl.addin.officejs.metadata import functions_json
    from rates_xl.functions.reference import blocks, to_markdown

    start = next(a for a in FUNCTIONS["RATES_SWAP"].args if a.name == "start")
    assert "0D is the valuation date itself" in start.doc and "2D" in start.doc
    described = json.loads(functions_json())
    swap = next(f for f in described["functions"] if f["id"] == "SWAP")
    assert any("0D is the valuation date itself" in p["description"] for p in swap["parameters"])
    page = to_markdown(blocks(FUNCTIONS["RATES_SWAP"]))
    assert "0D is the valuation date itself" in page
    functions_md = (ROOT / "docs" / "functions.md").read_text()
    assert "`0D` is the valuation date\nitself" in functions_md or "`0D` is the valuation date itself" in functions_md
    line, args = _readme_formula()
    assert args[1] == "2D" and "spot" in line
    for text in [line, page, functions_md, json.dumps(described)]:
        assert "0D (spot)" not in text
