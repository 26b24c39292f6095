"""What Excel will import: xlwings' own VBA wrapper generator, run with the Windows-only
modules stubbed (rates_xl.addin.classic.vba), checked against a snapshot and the function table.

To accept an intended change of the VBA: RATES_XL_UPDATE_SNAPSHOTS=1 pytest tests/addin/classic.
"""

from __future__ import annotations

import inspect
import json
import os
import re
from pathlib import Path

import pytest

from rates_xl.addin.classic.udfs import CATEGORY, UDFS
from rates_xl.addin.classic.vba import export_udf_vba
from rates_xl.functions import FUNCTIONS

SNAPSHOTS = Path(__file__).parent / "snapshots"

# VBA keywords that cannot name a parameter (Excel would refuse to compile the module).
VBA_RESERVED = {
    "and", "as", "boolean", "byref", "byte", "byval", "call", "case", "const", "currency", "date",
    "declare", "dim", "do", "double", "each", "else", "elseif", "end", "enum", "eqv", "erase", "error",
    "event", "exit", "false", "for", "friend", "function", "get", "global", "gosub", "goto", "if",
    "imp", "implements", "in", "integer", "is", "let", "lib", "like", "long", "loop", "lset", "me",
    "mod", "new", "next", "not", "nothing", "null", "object", "on", "option", "optional", "or",
    "paramarray", "preserve", "private", "property", "public", "raiseevent", "redim", "rem", "resume",
    "return", "rset", "select", "set", "single", "static", "step", "stop", "string", "sub", "then",
    "to", "true", "type", "typeof", "until", "variant", "wend", "while", "with", "withevents", "xor",
}


@pytest.fixture(scope="module")
def exported():
    return export_udf_vba("rates_xl.xlam")


def test_the_wrappers_are_generated_once_per_process_and_each_caller_gets_its_own_copy(exported, monkeypatch):
    """`doctor` and `addin install` build the add-in more than once: xlwings' generator (a child
    Python, a second of CPU) runs once; a caller changing its answer changes no other's."""
    from rates_xl.addin.classic import vba

    def no_child(*_args, **_kwargs):
        raise AssertionError("the generator ran again")

    again = export_udf_vba("rates_xl.xlam")
    monkeypatch.setattr(vba.subprocess, "run", no_child)
    assert export_udf_vba("rates_xl.xlam") == again == exported
    again["macro_options"].clear()
    again["vba"] = ""
    assert export_udf_vba("rates_xl.xlam") == exported and exported["macro_options"]
    with pytest.raises(AssertionError, match="ran again"):  # another name is generated for itself
        export_udf_vba("other.xlam")


def _check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("RATES_XL_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text)
    assert path.exists(), f"no snapshot {name}; create it with RATES_XL_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(), f"{name} changed; if intended, update with RATES_XL_UPDATE_SNAPSHOTS=1"


def test_vba_module_matches_snapshot(exported):
    _check_snapshot("xlwings_udfs.bas", exported["vba"])


def test_macro_options_match_snapshot(exported):
    _check_snapshot("macro_options.json", json.dumps(exported["macro_options"], indent=1, sort_keys=True) + "\n")


def test_one_vba_function_per_udf_with_the_right_optional_arguments(exported):
    signatures = dict(re.findall(r"^Function (RATES_\w+)\((.*)\)$", exported["vba"], flags=re.M))
    assert sorted(signatures) == sorted(FUNCTIONS)
    for name, spec in FUNCTIONS.items():
        params = [p.strip() for p in signatures[name].split(",") if p.strip()]
        expected = [a.name if a.required else f"Optional {a.name}" for a in spec.args]
        assert params == expected, name  # `caller` is hidden from Excel
        # ...but passed: xlwings puts Nothing in its place and fills in the calling Range.
        call = re.search(rf'{name} = XLPy.CallUDF\("rates_xl.addin.classic.udfs", "{name}", Array\((.*?)\), ActiveWorkbook',
                         exported["vba"]).group(1)
        assert call.split(", ") == [*spec.arg_names, "Nothing"]


def test_no_parameter_is_a_vba_keyword():
    for spec in FUNCTIONS.values():
        for arg in spec.args:
            assert arg.name.lower() not in VBA_RESERVED, f"{spec.name}.{arg.name}"
            assert re.fullmatch(r"[a-z][a-z0-9_]*", arg.name)


def test_wizard_and_volatility(exported):
    blocks = dict(re.findall(r"^Function (RATES_\w+)\(.*?\)\n(.*?)^End Function", exported["vba"], flags=re.M | re.S))
    for name, spec in FUNCTIONS.items():
        # No early exit (xlwings issue 1574: it returns 0 during a recalculation on open).
        assert "CommandBars" not in blocks[name], name
        assert ("Application.Volatile" in blocks[name]) == spec.volatile, name


def test_function_wizard_texts(exported):
    options = {o["macro"].split("!")[1]: o for o in exported["macro_options"]}
    assert sorted(options) == sorted(FUNCTIONS)
    for name, spec in FUNCTIONS.items():
        o = options[name]
        assert o["Category"] == CATEGORY == "RATES"
        assert o["Description"] == spec.description and len(spec.description) < 255
        assert (o["ArgumentDescriptions"] or []) == [a.doc for a in spec.args]
        assert all(len(a.doc) < 255 for a in spec.args)
    # the units are said where users read them
    assert "percent" in options["RATES_SWAP"]["Description"]
    assert "DECIMAL" in options["RATES_GOVYIELD"]["Description"]


def test_python_signatures_follow_the_table():
    for name, spec in FUNCTIONS.items():
        params = list(inspect.signature(UDFS[name]).parameters.values())
        assert [p.name for p in params] == [*spec.arg_names, "caller"]
        assert params[-1].default is None
        for p, arg in zip(params, spec.args, strict=False):
            assert (p.default is inspect.Parameter.empty) == arg.required
