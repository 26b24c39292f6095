"""functions.json, generated from the function table, and the checks Excel applies to it.

Excel reads one JSON document listing each custom function: its id (the name the script
associates), its name (what users type after the namespace: `RATES.` + `SWAP`), its
parameters and its result. We generate it from `FUNCTIONS`; nothing here is written by hand.

Choices, all from the table:
- every parameter has type "any": a cell may hold a number (dates are serial numbers), text,
  TRUE/FALSE or nothing, and the core coerces each kind the same way for every host;
- dimensionality "scalar" for parameters (Excel lifts a range into one call per cell, as for
  a built-in function), but "matrix" for one that takes a range whole (`Arg.many`: a
  history's tenors and options, which then arrive as a 2-D array, one cell as [[v]]);
  "matrix" for every result that spills (table, column, rows);
- `options.volatile` when the table says so (RATES_STATUS);
- `options.stream` for every function whose answer can be valued as of now (Live mode,
  live.py): Excel hands it a `StreamingInvocation` and it may set its cell again and again.
  Not `cancelable`: Microsoft's metadata reference says a function cannot use both (a
  streaming invocation has `onCanceled` anyway), nor `volatile` (ignored with `stream`).

`problems(document)` checks the rules Microsoft documents for this file (custom-functions
metadata reference and naming guidelines); it is written here because the official
validator (`office-addin-manifest validate`) is an online service.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rates_xl.functions.core import FunctionSpec
from rates_xl.functions.sheet import looks_like_cell_reference

NAMESPACE = "RATES"
SCHEMA_URL = "https://developer.microsoft.com/json-schemas/office-js/custom-functions.schema.json"
#: The table's classic prefix; the Office.js name is what follows it.
CLASSIC_PREFIX = NAMESPACE + "_"


def officejs_name(spec: FunctionSpec) -> str:
    """RATES_SWAP -> SWAP (Excel shows it as RATES.SWAP)."""
    if not spec.name.startswith(CLASSIC_PREFIX):
        raise ValueError(f"{spec.name} does not start with {CLASSIC_PREFIX}")
    return spec.name[len(CLASSIC_PREFIX):]


def spills(spec: FunctionSpec) -> bool:
    return spec.result != "number"


def streams(spec: FunctionSpec) -> bool:
    """True for a function whose answer can change with time (a history or a tenor list
    cannot; STATUS is volatile): it streams, so Live mode can set its cell again."""
    from rates_xl.client.endpoints import ENDPOINTS, CacheClass

    return (spec.endpoint is not None and not spec.volatile
            and ENDPOINTS[spec.endpoint].cache_class is not CacheClass.HISTORY)


def function_entry(spec: FunctionSpec, help_base: str | None = None) -> dict[str, Any]:
    """One function's entry; with `help_base` (the server's URL) its helpUrl, the reference page."""
    name = officejs_name(spec)
    entry: dict[str, Any] = {
        "id": name,
        "name": name,
        "description": spec.description,
        "result": {"dimensionality": "matrix" if spills(spec) else "scalar"},
        "parameters": [
            {
                "name": arg.name,
                "description": arg.doc,
                "type": "any",
                "dimensionality": "matrix" if arg.many else "scalar",
                "optional": not arg.required,
            }
            for arg in spec.args
        ],
    }
    if help_base:
        from rates_xl.addin.officejs.help_pages import help_url

        entry["helpUrl"] = help_url(help_base, spec.name)
    if spec.volatile:
        entry["options"] = {"volatile": True}
    elif streams(spec):
        entry["options"] = {"stream": True}
    from rates_xl.functions.source import REFERENCE_ARGS

    if spec.name in REFERENCE_ARGS:  # RATES.SOURCE reads the referenced cell's formula
        entry["options"] = {**entry.get("options", {}), "requiresParameterAddresses": True}
    return entry


def script_references(table: dict[str, FunctionSpec] | None = None) -> dict[str, int]:
    """id -> the position of the argument whose cell the script reads (RATES.SOURCE's)."""
    from rates_xl.functions.source import REFERENCE_ARGS

    if table is None:
        from rates_xl.functions import FUNCTIONS as table
    return {officejs_name(spec): spec.arg_names.index(REFERENCE_ARGS[spec.name][0])
            for spec in table.values() if spec.name in REFERENCE_ARGS}


def functions_document(table: dict[str, FunctionSpec] | None = None,
                       help_base: str | None = None) -> dict[str, Any]:
    """The whole functions.json, in the table's order; `help_base`: see function_entry."""
    if table is None:
        from rates_xl.functions import FUNCTIONS as table
    return {"$schema": SCHEMA_URL,
            "functions": [function_entry(spec, help_base) for spec in table.values()]}


def functions_json(table: dict[str, FunctionSpec] | None = None, help_base: str | None = None) -> str:
    return json.dumps(functions_document(table, help_base), indent=2, ensure_ascii=False) + "\n"


def script_streaming(table: dict[str, FunctionSpec] | None = None) -> list[str]:
    """The ids of the streaming functions: the script gives them the streaming adapter."""
    if table is None:
        from rates_xl.functions import FUNCTIONS as table
    return [officejs_name(spec) for spec in table.values() if streams(spec)]


def script_arities(table: dict[str, FunctionSpec] | None = None) -> dict[str, int]:
    """id -> number of declared parameters: the script trims Excel's extra invocation
    argument (and anything beyond) to this many."""
    if table is None:
        from rates_xl.functions import FUNCTIONS as table
    return {officejs_name(spec): len(spec.args) for spec in table.values()}


# -- the documented rules ----------------------------------------------------------------------

_ID = re.compile(r"^[A-Z][A-Z0-9_.]*$")  # letters A-Z, digits, underscore, period; starts with a letter
_NAME = re.compile(r"^[^\W\d_][\w.]*$", re.UNICODE)  # Unicode letters, digits, underscore, period
_NAMESPACE = re.compile(r"^[A-Za-z][A-Za-z0-9.]*$")  # alphanumeric and periods
PARAMETER_TYPES = {"number", "string", "boolean", "any"}
DIMENSIONALITIES = {"scalar", "matrix"}
RESULT_TYPES = {"number", "string", "boolean", "any"}  # result.type is optional
OPTION_KEYS = {"cancelable", "requiresAddress", "requiresParameterAddresses", "stream", "volatile",
               "capturesCallingObject", "excludeFromAutoComplete", "linkedEntityLoadService"}
FUNCTION_KEYS = {"id", "name", "description", "helpUrl", "parameters", "result", "options"}
PARAMETER_KEYS = {"name", "description", "type", "dimensionality", "optional", "repeating",
                  "cellValueType"}
MAX_DESCRIPTION = 255  # what the Function Wizard shows; the classic host has the same limit


def problems(document: dict[str, Any], namespace: str = NAMESPACE) -> list[str]:
    """Every way `document` breaks the custom-functions metadata rules ([] when none)."""
    found: list[str] = []
    if not _NAMESPACE.match(namespace):
        found.append(f"namespace {namespace!r}: only letters, digits and periods")
    functions = document.get("functions")
    if not isinstance(functions, list) or not functions:
        return found + ["'functions' must be a non-empty list"]
    seen_ids: set[str] = set()
    seen_names: set[str] = set()
    for i, fn in enumerate(functions):
        where = f"functions[{i}] ({fn.get('id', '?')})"
        extra = set(fn) - FUNCTION_KEYS
        if extra:
            found.append(f"{where}: unknown keys {sorted(extra)}")
        fid, name = fn.get("id"), fn.get("name")
        for label, value, pattern in (("id", fid, _ID), ("name", name, _NAME)):
            if not isinstance(value, str) or not pattern.match(value):
                found.append(f"{where}: {label} {value!r} must start with a letter and hold only "
                             + ("A-Z, 0-9, _ and ." if label == "id" else "letters, digits, _ and ."))
            elif len(value) < 3:
                found.append(f"{where}: {label} {value!r} needs at least 3 characters")
            elif len(value) > 128:
                found.append(f"{where}: {label} {value!r} is longer than 128 characters")
            elif looks_like_cell_reference(value):
                found.append(f"{where}: {label} {value!r} reads as a cell reference")
        if isinstance(name, str) and name != name.upper():
            found.append(f"{where}: name {name!r} is not upper case (Excel's own names are)")
        if fid in seen_ids:
            found.append(f"{where}: duplicate id")
        if isinstance(name, str) and name.upper() in seen_names:
            found.append(f"{where}: duplicate name")
        seen_ids.add(fid)
        seen_names.add(str(name).upper())
        description = fn.get("description", "")
        if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
            found.append(f"{where}: description must be text of at most {MAX_DESCRIPTION} characters")
        result = fn.get("result")
        if not isinstance(result, dict):
            found.append(f"{where}: result must be an object")
        else:
            if result.get("dimensionality", "scalar") not in DIMENSIONALITIES:
                found.append(f"{where}: result.dimensionality {result.get('dimensionality')!r}")
            if "type" in result and result["type"] not in RESULT_TYPES:
                found.append(f"{where}: result.type {result['type']!r}")
        options = fn.get("options", {})
        if not isinstance(options, dict) or set(options) - OPTION_KEYS:
            found.append(f"{where}: options {options!r}")
        elif any(not isinstance(v, bool) for v in options.values()):
            found.append(f"{where}: option values must be true or false")
        elif options.get("volatile") and (options.get("stream") or options.get("cancelable")):
            found.append(f"{where}: a volatile function cannot also stream or be cancelable")
        elif options.get("stream") and (options.get("cancelable") or options.get("requiresAddress")):
            # "A function can't use both the stream and cancelable properties" (and the same
            # for requiresAddress): Microsoft's custom-functions JSON metadata reference.
            found.append(f"{where}: a streaming function cannot also be cancelable or requiresAddress")
        parameters = fn.get("parameters", [])
        if not isinstance(parameters, list):
            found.append(f"{where}: parameters must be a list")
            continue
        optional_seen = False
        names: set[str] = set()
        for j, p in enumerate(parameters):
            pwhere = f"{where} parameter {j} ({p.get('name', '?')})"
            if set(p) - PARAMETER_KEYS:
                found.append(f"{pwhere}: unknown keys {sorted(set(p) - PARAMETER_KEYS)}")
            pname = p.get("name")
            if not isinstance(pname, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", pname):
                found.append(f"{pwhere}: name must be an identifier")
            elif pname in names:
                found.append(f"{pwhere}: duplicate parameter name")
            names.add(str(pname))
            if p.get("type", "any") not in PARAMETER_TYPES:
                found.append(f"{pwhere}: type {p.get('type')!r} not one of {sorted(PARAMETER_TYPES)}")
            if p.get("dimensionality", "scalar") not in DIMENSIONALITIES:
                found.append(f"{pwhere}: dimensionality {p.get('dimensionality')!r}")
            if not isinstance(p.get("optional", False), bool):
                found.append(f"{pwhere}: optional must be true or false")
            if p.get("optional"):
                optional_seen = True
            elif optional_seen and not p.get("repeating"):
                found.append(f"{pwhere}: a required parameter after an optional one")
            if len(p.get("description", "")) > MAX_DESCRIPTION:
                found.append(f"{pwhere}: description longer than {MAX_DESCRIPTION} characters")
    return found
