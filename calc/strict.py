"""A Strict Open XML workbook (ISO/IEC 29500-1 strict, Excel's "Strict Open XML Spreadsheet"
in Save As) read as the Transitional package it maps to, which every reader of calc reads.

Strict names its vocabularies at purl.oclc.org where Transitional (ECMA-376 Part 4, what Excel
saves by default and openpyxl reads) names schemas.openxmlformats.org; the elements and
attributes calc reads are the same in both. Excel and LibreOffice open Strict books; openpyxl
finds no sheet in one (Apache POI's usermodel refuses one too: its bug 57699). So each XML
part's namespace names, and the relationship types of its `.rels`, are mapped as the
`NAMESPACES` table says, the root's `conformance="strict"` is dropped, and the rest of the
bytes are kept as they are: cell text, formulas and values are never touched (a value that
merely looks like a namespace is text, not a name). Dates a Strict book stores as ISO 8601
text (`<c t="d">`) are read as any `t="d"` cell is. Both copies calc writes are Transitional,
and the summary says so.

Done on the bytes, by hand: no library maps Strict to Transitional in Python (pjfanning's
ooxml-strict-converter, Java, does it over StAX events, with the table below). Where each start
tag begins is the XML parser's answer (expat, `CurrentByteIndex`), not a search of the text, so
a comment, a CDATA section or a text that looks like a tag is never taken for one, and a
malformed part is left as it is (openpyxl then refuses it, in one line).
"""

from __future__ import annotations

import io
import re
import zipfile

from rates_xl.calc.package import repacked

_PURL = "http://purl.oclc.org/ooxml/"
_OPENXML = "http://schemas.openxmlformats.org/"

#: Strict namespace -> Transitional namespace: ISO/IEC 29500-1 (strict) against 29500-4
#: (transitional), as Apache POI's bug 57699 converter (pjfanning/ooxml-strict-converter,
#: ooxml-strict-mappings.properties) lists them. The package's own vocabularies (content
#: types, relationships, core properties) are OPC's and the same in both.
NAMESPACES: dict[str, str] = {
    _PURL + "spreadsheetml/main": _OPENXML + "spreadsheetml/2006/main",
    _PURL + "officeDocument/relationships": _OPENXML + "officeDocument/2006/relationships",
    _PURL + "officeDocument/extendedProperties": _OPENXML + "officeDocument/2006/extended-properties",
    _PURL + "officeDocument/customProperties": _OPENXML + "officeDocument/2006/custom-properties",
    _PURL + "officeDocument/docPropsVTypes": _OPENXML + "officeDocument/2006/docPropsVTypes",
    _PURL + "officeDocument/sharedTypes": _OPENXML + "officeDocument/2006/sharedTypes",
    _PURL + "officeDocument/customXml": _OPENXML + "officeDocument/2006/customXml",
    _PURL + "officeDocument/bibliography": _OPENXML + "officeDocument/2006/bibliography",
    _PURL + "officeDocument/characteristics": _OPENXML + "officeDocument/2006/characteristics",
    _PURL + "officeDocument/math": _OPENXML + "officeDocument/2006/math",
    _PURL + "drawingml/main": _OPENXML + "drawingml/2006/main",
    _PURL + "drawingml/chart": _OPENXML + "drawingml/2006/chart",
    _PURL + "drawingml/chartDrawing": _OPENXML + "drawingml/2006/chartDrawing",
    _PURL + "drawingml/diagram": _OPENXML + "drawingml/2006/diagram",
    _PURL + "drawingml/lockedCanvas": _OPENXML + "drawingml/2006/lockedCanvas",
    _PURL + "drawingml/picture": _OPENXML + "drawingml/2006/picture",
    _PURL + "drawingml/spreadsheetDrawing": _OPENXML + "drawingml/2006/spreadsheetDrawing",
    _PURL + "drawingml/wordprocessingDrawing": _OPENXML + "drawingml/2006/wordprocessingDrawing",
    _PURL + "schemaLibrary/main": _OPENXML + "schemaLibrary/2006/main",
}

#: A relationship type is its vocabulary's name and the kind (`.../relationships/worksheet`);
#: the two kinds renamed between the two (the rest keep their name).
_KINDS = {"extendedProperties": "extended-properties", "customProperties": "custom-properties"}

_RELATIONSHIPS = _PURL + "officeDocument/relationships"

#: The package relationship to a Strict workbook (a Transitional one names schemas.openxmlformats.org).
_STRICT_WORKBOOK = (_RELATIONSHIPS + "/officeDocument").encode()

#: A start tag from its "<" (expat says where one begins): its quoted values skipped as units.
_TAG = re.compile(rb"<[^\s/>]+(?:[^>\"']|\"[^\"]*\"|'[^']*')*>")
#: One attribute of a start tag: its name and quoted value.
_ATTRIBUTE = re.compile(rb"(\s)([^\s=/>]+)(\s*=\s*)(\"[^\"]*\"|'[^']*')")
_PURL_BYTES = _PURL.encode()


def is_strict(data: bytes) -> bool:
    """Whether the package `data` is a Strict Open XML workbook (its package relationship to
    the workbook is Strict's; apache/poi's Excel-made SimpleStrict.xlsx, sample.strict.xlsx)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            return _STRICT_WORKBOOK in package.read("_rels/.rels")
    except (KeyError, OSError, zipfile.BadZipFile, ValueError):
        return False


def transitional(data: bytes) -> bytes:
    """The Strict package `data` with every XML part's Strict names mapped to Transitional
    ones (`data` itself when nothing names one)."""
    return repacked(data, _part) or data


def _part(name: str, content: bytes) -> tuple[str, bytes]:
    if not name.lower().endswith((".xml", ".rels", ".vml")) or _PURL_BYTES not in content:
        return name, content
    starts = _naming_tags(content)
    if not starts:
        return name, content
    out, done = [], 0
    for start in starts:
        tag = _TAG.match(content, start)
        if tag is None:  # (not where expat said a tag starts: left as it is)
            continue
        out += [content[done:start], _ATTRIBUTE.sub(_attribute, tag.group())]
        done = tag.end()
    return name, b"".join(out) + content[done:]


def _naming_tags(content: bytes) -> list[int]:
    """Where each start tag with an attribute value in Strict's names begins (byte offsets, in
    order); none for a part expat cannot read."""
    from xml.parsers import expat

    parser = expat.ParserCreate()  # (no namespace processing: `xmlns` is an attribute like any)
    parser.ordered_attributes = True
    starts: list[int] = []
    purl = _PURL

    def start(_name: str, attributes: list[str]) -> None:
        if any(value.startswith(purl) for value in attributes[1::2]):
            starts.append(parser.CurrentByteIndex)

    parser.StartElementHandler = start
    try:
        parser.Parse(content, True)
    except expat.ExpatError:
        return []
    return starts


def _attribute(match: re.Match[bytes]) -> bytes:
    space, name, equals, quoted = match.groups()
    value = quoted[1:-1]
    if name == b"conformance" and value == b"strict":
        return b""  # (the root's claim: the package is Transitional now)
    if not value.startswith(_PURL_BYTES):
        return match.group()
    mapped = mapped_name(value.decode("utf-8", "replace"))
    if mapped is None:
        return match.group()
    return space + name + equals + quoted[:1] + mapped.encode() + quoted[-1:]


def mapped_name(value: str) -> str | None:
    """A Strict namespace or relationship type as Transitional names it (None: not one of
    Strict's). An attribute whose value is one (`xmlns`, a relationship's Type, a graphic's
    `uri`) is rewritten; no other value is."""
    if value in NAMESPACES:
        return NAMESPACES[value]
    vocabulary, _, kind = value.rpartition("/")
    if vocabulary == _RELATIONSHIPS and kind:
        return f"{NAMESPACES[_RELATIONSHIPS]}/{_KINDS.get(kind, kind)}"
    return None
