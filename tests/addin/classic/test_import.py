"""Excel starts the UDF server by importing `rates_xl.addin.classic.udfs`: it must stay light.

The figure (python -X importtime) is reported, not asserted; what is checked here is the
structure that keeps it low: the client, pydantic and the sandbox load on first use.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ["rates_xl.client.client", "requests", "tenacity", "pydantic", "rates_xl.sandbox", "formulas", "QuantLib"]


def test_importing_the_udf_module_defers_heavy_libraries():
    code = (
        "import json, sys; import rates_xl.addin.classic.udfs as f; "
        f"print(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(done.stdout)
    assert not any(loaded.values()), loaded
