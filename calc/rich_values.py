"""What a cell holding a rich value is (`<c t="e" vm="N"><v>#VALUE!</v></c>`): Excel stores
#VALUE! there for readers that know no rich value (openpyxl and the engines among them), and
the value itself in xl/richData, reached through xl/metadata.xml:

    vm="N" (1-based) -> valueMetadata's Nth block, its `rc t v`: t names (1-based) the
    metadataType XLRICHVALUE, v (0-based) a block of futureMetadata XLRICHVALUE
    -> that block's `xlrd:rvb i` -> rdrichvalue.xml's ith `rv`, whose `s` (0-based) names a
    structure of rdrichvaluestructure.xml: its type `t` and the names `k n` of the rv's `v`s.

An `_error` structure is an error value: its `errorType`, 0-based in Excel's enumeration
(ERROR.TYPE minus one: formulas_test.xlsx's #VALUE! cells are 2, #CALC! 13, #N/A 6;
calc/xlfuncs/information/errors.py), is what the cell holds: #CALC! for an empty FILTER,
#SPILL!, #BUSY! ... (the #VALUE! Excel stores being the fallback). Any other structure
(`_localImage`, `_webimage`, an entity of a linked data type) is a picture or a data type.

Written by hand: openpyxl reads neither the `vm` attribute nor the rich data parts.
"""

from __future__ import annotations

import posixpath
import zipfile
from xml.etree import ElementTree

from rates_xl.functions.values import ERROR_ENUMERATION

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_RICH = "{http://schemas.microsoft.com/office/spreadsheetml/2017/richdata}"
#: What a rich value that is no error is, to a reader of the summary.
PICTURE_OR_DATA_TYPE = "a picture or a data type (a rich value)"


def and_others(count: int) -> str:
    """What a reason naming one such cell as an example adds for `count` others ("" for none)."""
    return f" (and {count} other such cell{'s' if count > 1 else ''})" if count > 0 else ""


def values(package: zipfile.ZipFile, names: set[str], metadata: str, vm: dict[tuple[str, str], int],
           ) -> dict[tuple[str, str], str]:
    """(sheet title, coordinate) -> the error value a rich value is (`ERROR_ENUMERATION`), an
    error of a type past them (`an error of type 15`), or PICTURE_OR_DATA_TYPE: of the cells
    `vm` gives (-> their vm, 1-based). A value whose records are missing or malformed is
    PICTURE_OR_DATA_TYPE (a cell whose value calc cannot tell)."""
    root = ElementTree.fromstring(package.read(metadata))
    types = [t.get("name", "") for t in root.iter(f"{_MAIN}metadataType")]
    rich_blocks: list[int | None] = []  # futureMetadata XLRICHVALUE block -> its rich value's index
    for future in root.iter(f"{_MAIN}futureMetadata"):
        if future.get("name") == "XLRICHVALUE":
            for block in future.findall(f"{_MAIN}bk"):
                found = next((e.get("i") for e in block.iter(f"{_RICH}rvb")), None)
                rich_blocks.append(int(found) if found is not None and found.isdigit() else None)
    by_vm: list[int | None] = []  # valueMetadata block (0-based) -> its rich value's index
    value_metadata = root.find(f"{_MAIN}valueMetadata")
    for block in value_metadata.findall(f"{_MAIN}bk") if value_metadata is not None else []:
        record = block.find(f"{_MAIN}rc")
        index = None
        if record is not None:
            t, v = record.get("t", ""), record.get("v", "")
            if t.isdigit() and v.isdigit() and 0 < int(t) <= len(types) and types[int(t) - 1] == "XLRICHVALUE" \
                    and int(v) < len(rich_blocks):
                index = rich_blocks[int(v)]
        by_vm.append(index)
    rich = _rich_values(package, names, posixpath.dirname(metadata))
    out = {}
    for cell, n in vm.items():
        index = by_vm[n - 1] if 0 < n <= len(by_vm) else None
        out[cell] = rich[index] if index is not None and 0 <= index < len(rich) else PICTURE_OR_DATA_TYPE
    return out


def _rich_values(package: zipfile.ZipFile, names: set[str], folder: str) -> list[str]:
    """What each rich value of the book is (`values`), in order."""
    lowered = {name.lower(): name for name in names}
    data = lowered.get(posixpath.join(folder, "richData", "rdrichvalue.xml").lower())
    structures = lowered.get(posixpath.join(folder, "richData", "rdrichvaluestructure.xml").lower())
    if data is None or structures is None:
        return []
    shapes = [(s.get("t", ""), [k.get("n", "") for k in s.findall(f"{_RICH}k")])
              for s in ElementTree.fromstring(package.read(structures)).findall(f"{_RICH}s")]
    found = []
    for rv in ElementTree.fromstring(package.read(data)).findall(f"{_RICH}rv"):
        s = rv.get("s", "")
        kind, keys = shapes[int(s)] if s.isdigit() and int(s) < len(shapes) else ("", [])
        what = PICTURE_OR_DATA_TYPE
        if kind == "_error":
            fields = dict(zip(keys, ((v.text or "") for v in rv.findall(f"{_RICH}v")), strict=False))
            number = fields.get("errorType", "")
            if number.isdigit():
                what = (ERROR_ENUMERATION[int(number)] if int(number) < len(ERROR_ENUMERATION)
                        else f"an error of type {int(number) + 1}")
        found.append(what)
    return found

