"""`formulas`' statistical functions load scipy at their first use of it, not at import
(calc/xlfuncs/scipy_deferred.py): a book calling LARGE never pays for scipy.stats, one calling
T.DIST is answered by calc/xlfuncs/stats_light/ from scipy.special's compiled ufuncs (neither
scipy.stats nor scipy.special's package imported), one calling TREND or LINEST by numpy's lstsq
(scipy.linalg not imported), one calling SKEW (not covered there) imports scipy.stats then, and each gets the same
answer as `formulas` gives with scipy imported the ordinary way; PERCENTILE and QUARTILE leave
numpy.ma unimported. Fresh processes: the test run
itself has imported scipy long before."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import formulas
import pytest

from rates_xl.calc.xlfuncs import scipy_deferred

_CHILD = r"""
import json, sys
import numpy as np
from rates_xl.calc.xlfuncs import bridge, stats_light

large = bridge.bridged("LARGE")([[3.0, None, 9.0, "x", 1.0]], 2)
small = bridge.bridged("SMALL")([[3.0, 9.0, 1.0]], [[1, 4]])
percentile = bridge.bridged("PERCENTILE")([[1.0, 2.0, 3.0, 4.0]], 0.3)  # formulas.functions.comp
quartile = bridge.bridged("QUARTILE")([[1.0, 2.0, 3.0, 4.0, 7.0]], 1)
masked_before = "numpy.ma" in sys.modules
plain_masked = np.ma.is_masked(np.zeros(2))
ceiling = bridge.bridged("CEILING")(2.5, 1)  # formulas.functions.math
random_before = "numpy.random" in sys.modules
loaded_before = sorted(m for m in ("scipy.stats", "scipy.linalg", "scipy.interpolate") if m in sys.modules)
tdist = bridge.bridged("T.DIST")(0.5, 3, True)  # scipy.stats.t: stats_light's, from scipy.special's ufuncs
binom = bridge.bridged("BINOM.DIST")(3, 10, 0.3, True)
slope = bridge.bridged("TREND")([[1.0, 2.0, 4.0]], [[1.0, 2.0, 3.0]], [[4.0]])  # scipy.linalg.lstsq: numpy's
linest = bridge.bridged("LINEST")([[1.0, 2.0, 4.0, 4.5]], [[1.0, 2.0, 3.0, 5.0]], True, True)
growth = bridge.bridged("GROWTH")([[1.0, 2.0, 4.0]], [[1.0, 2.0, 3.0]], [[4.0]])
stats_after_tdist = "scipy.stats" in sys.modules
special_after_tdist = sorted(m for m in ("scipy.special", "scipy.special._ufuncs", "scipy.linalg") if m in sys.modules)
skew = bridge.bridged("SKEW")([[1.0, 2.0, 4.0, 9.0]])  # scipy.stats.skew: the real module's
import formulas
rand = formulas.get_functions()["RAND"]["function"](False)  # formulas' RAND: numpy.random's rand, imported now
masked = np.ma.is_masked(np.ma.masked_array([1.0, 2.0], mask=[True, False]))  # numpy.ma, imported now
print(json.dumps({"large": large, "small": small, "percentile": percentile, "loaded_before": loaded_before,
                  "quartile": quartile, "masked_before": masked_before, "plain_masked": plain_masked,
                  "masked": masked, "np_ma": [type(np.ma).__name__, np.ma is sys.modules.get("numpy.ma")],
                  "ceiling": ceiling, "random_before": random_before, "rand": rand,
                  "random_after_rand": "numpy.random" in sys.modules,
                  "np_random": type(np.random).__name__,
                  "tdist": tdist, "binom": binom, "trend": slope, "linest": linest, "growth": growth,
                  "stats_after_tdist": stats_after_tdist, "special_after_tdist": special_after_tdist, "skew": skew,
                  "stats_after_skew": "scipy.stats" in sys.modules,
                  "tdist_after_skew": bridge.bridged("T.DIST")(0.5, 3, True),
                  "light": sys.modules["scipy"].__version__.startswith(stats_light.READ_FROM),
                  "stat_stats": type(sys.modules["formulas.functions.stat"].stats).__name__}))
"""

_PLAIN = r"""
import json
import scipy.stats, scipy.linalg, scipy.interpolate  # as `formulas` imports them, up front
from rates_xl.calc.xlfuncs import bridge

print(json.dumps({"tdist": bridge.bridged("T.DIST")(0.5, 3, True),
                  "binom": bridge.bridged("BINOM.DIST")(3, 10, 0.3, True),
                  "skew": bridge.bridged("SKEW")([[1.0, 2.0, 4.0, 9.0]]),
                  "trend": bridge.bridged("TREND")([[1.0, 2.0, 4.0]], [[1.0, 2.0, 3.0]], [[4.0]]),
                  "linest": bridge.bridged("LINEST")([[1.0, 2.0, 4.0, 4.5]], [[1.0, 2.0, 3.0, 5.0]], True, True),
                  "growth": bridge.bridged("GROWTH")([[1.0, 2.0, 4.0]], [[1.0, 2.0, 3.0]], [[4.0]]),
                  "stat_stats": type(__import__("formulas.functions.stat").functions.stat.stats).__name__}))
"""


def _run(code: str) -> dict:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_large_small_and_percentile_never_import_scipy_stats():
    got = _run(_CHILD)
    assert got["large"] == 3.0  # 9, 3, 1: the text and the empty cell are not numbers
    assert got["small"] == [[1.0, {"type": "Error", "kind": "Num"}]]  # k = 4 of 3 values: #NUM!
    assert got["percentile"] == 1.9 and got["quartile"] == 2.0
    # np.percentile's np.unique asks np.ma.is_masked of a plain array: answered without numpy.ma
    # (under the numpy release read); a masked array's question imports it, and it is numpy.ma then
    import numpy

    assert got["masked_before"] is (numpy.__version__ != scipy_deferred.MASKED_READ_FROM)
    assert got["plain_masked"] is False and got["masked"] is True and got["np_ma"] == ["module", True]
    assert got["loaded_before"] == []
    # formulas.functions.math is imported without numpy.random (a RAND through formulas imports it)
    assert got["ceiling"] == 3.0 and got["random_before"] is (formulas.__version__ != scipy_deferred.MATH_READ_FROM)
    assert 0 <= got["rand"] < 1 and got["random_after_rand"] is True and got["np_random"] == "module"
    # T.DIST, BINOM.DIST, TREND, LINEST, GROWTH: scipy.special's compiled ufuncs only (not its package,
    # nor scipy.linalg), under the scipy release stats_light was read from (the installed one here);
    # under another, the real scipy.stats and scipy.linalg
    assert got["stats_after_tdist"] is not got["light"]
    if got["light"]:
        assert got["special_after_tdist"] == ["scipy.special._ufuncs"]
    assert got["stats_after_skew"] is True  # SKEW is not stats_light's: the real module


def test_a_function_using_scipy_answers_as_with_scipy_imported_up_front():
    deferred, plain = _run(_CHILD), _run(_PLAIN)
    assert deferred["stat_stats"] == "_OnFirstUse"
    assert plain["stat_stats"] == "module"  # already imported: nothing deferred
    assert deferred["tdist"] == deferred["tdist_after_skew"] == plain["tdist"] == 0.6742760175759245
    assert deferred["binom"] == plain["binom"] and abs(deferred["binom"] - 0.6496107184) < 1e-10
    assert deferred["trend"] == plain["trend"]
    assert deferred["linest"] == plain["linest"] and deferred["growth"] == plain["growth"]
    assert deferred["skew"] == plain["skew"]
    assert abs(deferred["trend"] - 16 / 3) < 1e-12  # the least-squares line through (1,1) (2,2) (3,4) at 4


def _module_level_random_reads(path: Path) -> list[str]:
    """`np.random.X` read in `path` outside any function body (what runs at its import)."""
    found = []

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if (isinstance(child, ast.Attribute) and isinstance(child.value, ast.Attribute)
                    and child.value.attr == "random" and isinstance(child.value.value, ast.Name)):
                found.append(f"{child.value.value.id}.random.{child.attr}")
            walk(child)

    walk(ast.parse(path.read_text(encoding="utf-8")))
    return found


def test_formulas_math_reads_numpy_random_at_its_import_only_for_rand():
    """What `_math` relies on, read in the installed `formulas`: at its import, the math module
    reads nothing of numpy.random but `rand` (RAND's entry). Fails on another release: read its
    math module again, then move MATH_READ_FROM."""
    spec = importlib.util.find_spec(scipy_deferred.MATH)
    assert spec is not None and spec.origin is not None
    if formulas.__version__ != scipy_deferred.MATH_READ_FROM:
        pytest.fail(f"formulas {formulas.__version__}: read {spec.origin} for np.random at its top, then "
                    f"set MATH_READ_FROM (now {scipy_deferred.MATH_READ_FROM})")
    assert _module_level_random_reads(Path(spec.origin)) == ["np.random.rand"]


def test_the_source_check_sees_a_read_at_the_top_and_not_one_in_a_function(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import numpy as np\nA = np.random.rand\ndef f():\n    return np.random.randint(3)\n")
    assert _module_level_random_reads(module) == ["np.random.rand"]


def test_numpy_unique_reads_numpy_ma_only_for_is_masked():
    """What `_masked` relies on to pay, read in the installed numpy: np.unique's helper asks
    numpy.ma only `np.ma.is_masked(ar)`, and a plain ndarray has no mask. Fails on another release:
    read numpy/lib/_arraysetops_impl.py again, then move MASKED_READ_FROM."""
    import inspect

    import numpy
    from numpy.lib import _arraysetops_impl

    if numpy.__version__ != scipy_deferred.MASKED_READ_FROM:
        pytest.fail(f"numpy {numpy.__version__}: read np.unique's uses of np.ma, then set "
                    f"MASKED_READ_FROM (now {scipy_deferred.MASKED_READ_FROM})")
    source = inspect.getsource(_arraysetops_impl)
    assert [line.strip() for line in source.splitlines() if "np.ma." in line] == [
        "if not optional_indices and not return_counts and not np.ma.is_masked(ar):"]
    assert numpy.ma.getmask(numpy.zeros(3)) is numpy.ma.nomask and numpy.ma.is_masked(numpy.zeros(3)) is False


def test_the_stand_in_keeps_each_answer():
    """`formulas`' function bodies read `stats.t` at each call: the stand-in answers a name once
    (stats_light's distribution, or the real module's attribute) and keeps it as its own."""
    from rates_xl.calc.xlfuncs import stats_light

    stand_in = scipy_deferred._OnFirstUse("scipy.stats")
    first = stand_in.t
    assert first is stand_in.t and vars(stand_in)["t"] is first
    if stats_light.light("scipy.stats", "t") is not None:  # (under the scipy release stats_light read)
        assert first is stats_light.STATS["t"]
    assert "skew" not in vars(stand_in)
    assert stand_in.skew is importlib.import_module("scipy.stats").skew and "skew" in vars(stand_in)
    with pytest.raises(AttributeError):
        stand_in.__wrapped__  # noqa: B018 - the import system's questions are not scipy's
