"""A stylesheet openpyxl cannot read: the book read with its number formats alone.

openpyxl reads `xl/styles.xml` whole and strictly, and one value it does not take fails the
whole book: an empty `<fill/>` ("TypeError: expected <class 'openpyxl.styles.fills.Fill'>",
ClosedXML's TryToLoad EmptyFill.xlsx), a colour that is no aRGB (`rgb="FED+"`, InvalidColors.xlsx),
a font inside `mc:AlternateContent` (Hancom Office's, Apache POI's style-alternate-content.xlsx).
Excel opens each of them.

`plain` is the stylesheet kept to what a calculation and a value's meaning need: each cell
format's number format (a date stays a date, a percentage a percentage), every custom number
format, and the differential formats conditional formats point at (`differential=False`: as
many empty ones, when those are what fails). Fonts, fills, borders, alignments and cell styles
are left out, so the values-frozen copy lacks them, which the summary says (calc/workbook.py).
Written by hand: openpyxl has no lenient reading of a stylesheet.
"""

from __future__ import annotations

from collections.abc import Iterator
from xml.etree import ElementTree

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
#: Excel's limit on a book's cell formats (MS-OI29500 2.1.727, cellXfs: "Excel limits the
#: occurrences of this element to 65430"): a hostile `s="999999999"` asks no more defaults.
MAX_CELL_FORMATS = 65_430
_DEFAULT_XF = '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
_CHOICE = "Choice"  # (mc:AlternateContent's first branch: its Fallback holds what a reader takes)


def plain(styles: bytes, *, differential: bool = True, least: int = 1) -> bytes | None:
    """`styles` (xl/styles.xml) kept to its number formats (and its differential formats as
    they are, or as many empty ones), with at least `least` cell formats (a cell whose format
    is past the last one gets the default, as Excel repairs it; openpyxl failed the book:
    "IndexError: list index out of range", ClosedXML's TryToLoad LO_xlsx_tdf100709.xlsx); None
    when it is no XML at all."""
    try:
        root = ElementTree.fromstring(styles)
    except ElementTree.ParseError:
        return None
    formats = []
    for element in _all(root, "numFmt"):
        number, code = element.get("numFmtId", ""), element.get("formatCode", "")
        if number.isdigit() and code:
            formats.append(f'<numFmt numFmtId="{number}" formatCode="{_escape(code)}"/>')
    cell_formats = []
    for block in _all(root, "cellXfs"):
        for xf in _all(block, "xf"):
            number = xf.get("numFmtId", "0")
            cell_formats.append(f'<xf numFmtId="{number if number.isdigit() else 0}" fontId="0" fillId="0" '
                                'borderId="0" xfId="0" applyNumberFormat="1"/>')
        break
    cell_formats += [_DEFAULT_XF] * (min(least, MAX_CELL_FORMATS) - len(cell_formats))
    dxfs = next(_all(root, "dxfs"), None)
    if dxfs is None:
        differentials = '<dxfs count="0"/>'
    elif differential:
        differentials = ElementTree.tostring(dxfs, encoding="unicode")
    else:
        count = sum(1 for _ in _all(dxfs, "dxf"))
        differentials = f'<dxfs count="{count}">{"<dxf/>" * count}</dxfs>'
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="{_MAIN}">'
            f'<numFmts count="{len(formats)}">{"".join(formats)}</numFmts>'
            '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
            '<fills count="2"><fill><patternFill patternType="none"/></fill>'
            '<fill><patternFill patternType="gray125"/></fill></fills>'
            '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
            '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
            f'<cellXfs count="{len(cell_formats)}">{"".join(cell_formats)}'
            '</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
            f'{differentials}</styleSheet>').encode()


def _all(root: ElementTree.Element, local: str) -> Iterator[ElementTree.Element]:
    """`root`'s descendants named `local` in any namespace, but those in an mc:Choice branch
    (a reader that does not know the branch takes the Fallback beside it)."""
    def walk(element: ElementTree.Element) -> Iterator[ElementTree.Element]:
        for child in element:
            name = child.tag.rpartition("}")[2]
            if name == _CHOICE:
                continue
            if name == local:
                yield child
            else:
                yield from walk(child)
    return walk(root)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
