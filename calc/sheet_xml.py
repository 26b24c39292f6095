"""A worksheet part's rows and cells (`<sheetData>`) read by regular expressions, where they are
written as Excel writes them; everything else in the part, and every part written otherwise,
is left to openpyxl's XML parser.

Written by hand because no library reads XML without making an object of every element: the
XML parser openpyxl uses (expat, through ElementTree) built formulas_test.xlsx's 37,000 cells'
elements (a `<c>`, its `<v>`, its `<f>`) in 0.05 CPU s, and openpyxl's loop over its events
took as much again; one regular expression reads the same text item by item in C (`items`), and
calc/stored_cells.py makes openpyxl's cells from its groups. So each cell must read here
exactly as the parser reads it (tests/calc/test_stored_cells.py compares both on every corpus,
template and test book), and `split` answers None, leaving the part to openpyxl's parser,
wherever that could fail to hold:

- the part is not UTF-8, or holds a comment, CDATA, a processing instruction or a document
  type declaration before its `<sheetData>`, a row before it, or a namespace declared
  anywhere but on its root `<worksheet>` (whose default namespace must be SpreadsheetML's);
- the rows are not `_ITEM`s from start to end (rows holding cells, white space between them):
  a `<c>` with attributes out of Excel's order or
  a reference not written as Excel writes it, inline text (`<is>`), any other child or
  attribute, a quote other than `"`, white space anywhere but between rows and cells;
- the text holds what XML reads otherwise than as written (but a line's end, CR LF or CR, which
  XML reads as LF, as here): an entity other than the five XML predefines (`&#10;` ...), a
  character XML forbids, `]]>`; or an attribute's value holds a tab or a line's end (XML reads
  each as a space).
"""

from __future__ import annotations

import re

from rates_xl.functions.sheet import A1_DIGITS, A1_LETTERS

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_XML = "http://www.w3.org/XML/1998/namespace"

#: One `<c>` as Excel writes it: its reference (whole, letters, digits: functions/sheet.py's A1 as
#: Excel writes it in a file), `s`, `t`, `cm`, then an ordinary formula's text, a shared
#: formula's copy (`si`), an array formula (its `ref`, its text) or any other `<f>` (its
#: attributes, its text), and its `<v>` (text,
#: or `<v/>`). `vm`, `ph` and an `<f>`'s `ca` (calculate always) neither openpyxl nor calc reads.
#: Every quantifier is possessive (`?+`, `*+`, `{1,9}+`, `(?>...)`: Python 3.11): what follows each can
#: never match what it took (a run of digits then `"`, an optional attribute then one of another
#: name, `/>` or `>`, one `<f ...>` then `<v` or `</c>`, and every other `<f>` alternative ends
#: where the one taken ends), so giving any of it back never finds another match, and the
#: expression matches as it would without, keeping no backtracking state: formulas_test.xlsx's
#: 1.7 MB of cells 0.038 -> 0.028 CPU s (the same items on every corpus, test and template book,
#: and on 2.4 million random strings of row and cell markup).
_CELL = (rf'<c r="(((?>{A1_LETTERS}))((?>{A1_DIGITS})))"' r'(?: s="([0-9]{1,9}+)")?+(?: t="([a-zA-Z]{1,9}+)")?+'
         r'(?: cm="([0-9]{1,9}+)")?+(?: vm="[0-9]{1,9}+")?+(?: ph="[01]")?+'
         r'(?:/>|>(?:<f(?: ca="(?:1|0|true|false)")?+>([^<]*+)</f>'
         r'|<f t="shared"(?: ca="(?:1|0|true|false)")?+ si="([0-9]{1,9}+)"/>'
         r'|<f t="array" ref="([^"<&\t\n\r]*+)">([^<]*+)</f>'
         r'|<f((?: [a-zA-Z0-9]{1,9}+="[^"<&\t\n\r]*+")*+)(?:/>|>([^<]*+)</f>))?+'
         r'(?:<v(?: xml:space="preserve")?+>([^<]*+)</v>|(<v/>))?+</c>)')
#: A `<row>`'s attributes (no namespace declared there: `_namespaces` reads the root's alone).
_ROW_ATTRIBUTES = r'((?: (?!xmlns)[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?="[^"<&\t\n\r]*")*)'
_SPACE = r"[ \t\n]*+"
#: One item of `<sheetData>`'s content, after white space: a row's start (its attributes, and
#: "/" when it ends there too), a row's end, or a cell (`_CELL`'s groups).
_ITEM = re.compile(rf"{_SPACE}(?:<row{_ROW_ATTRIBUTES}(/?)>|(</row>)|{_CELL})")
_ATTRIBUTE = re.compile(r'([\w.:-]+)="([^"]*)"')

#: An `&` that does not start one of XML's five predefined entities.
_OTHER_ENTITY = re.compile(r"&(?!(?:amp|lt|gt|quot|apos);)")
#: The control characters XML 1.0 does not allow in a document (expat refuses the part): each
#: is one byte in UTF-8, found by deleting them all from the part's bytes (`_not_xml`).
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])
_DECLARATION = re.compile(rb"<\?xml[^>]*?encoding=[\"']([^\"']*)[\"']")
_ROOT = re.compile(rb"<worksheet((?:\s+[\w.:-]+\s*=\s*\"[^\"]*\")*)\s*>")
_ROW_BEFORE = re.compile(rb"<(?:[\w.-]+:)?row[\s/>]")


class Split:
    """A part's `<sheetData>` content read (`items`) apart from the rest of the part (bytes, its
    `<sheetData>` left empty, for openpyxl's parser), and the prefixes its root declares."""

    __slots__ = ("items", "namespaces", "rest")

    def __init__(self, items: list[Item], rest: bytes, namespaces: dict[str, str]) -> None:
        self.items, self.rest, self.namespaces = items, rest, namespaces


#: A row's start or a cell, as `items` reads it: `_ITEM`'s groups (the row's attributes, "/" or "",
#: None for the row's end, which `items` keeps no item for; then `_CELL`'s, all None for a row).
Item = tuple[str | None, ...]  # (str, or None where a group did not match)


def split(data: bytes) -> Split | None:
    """`data` (a worksheet part) with its rows and cells read (`items`), or None when they
    must be read by openpyxl's parser (see the module's docstring)."""
    start = data.find(b"<sheetData>")
    if start < 0:
        return None
    head, begin = data[:start], start + len(b"<sheetData>")
    end = data.find(b"</sheetData>", begin)
    declaration = _DECLARATION.match(head.removeprefix(b"\xef\xbb\xbf"))
    if end < 0 or (declaration is not None and declaration.group(1).lower() not in (b"utf-8", b"utf8")):
        return None
    past = head.find(b"?>") + 2 if head.lstrip(b"\xef\xbb\xbf").startswith(b"<?xml") else 0
    if b"<!" in head or b"<?" in head[past:] or _ROW_BEFORE.search(head):
        return None
    namespaces = _namespaces(head)
    if namespaces is None:
        return None
    raw = data[begin:end]
    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\r" in content:  # (XML reads a line's end, CR LF or CR, as LF before anything else)
        content = content.replace("\r\n", "\n").replace("\r", "\n")
    if ("&" in content and _OTHER_ENTITY.search(content)) or _not_xml(raw, content):
        return None
    found = items(content)
    if found is None:
        return None
    return Split(found, data[:begin] + data[end:], namespaces)


def items(content: str) -> list[Item] | None:
    """The rows' starts and the cells of `<sheetData>`'s content, in order; None unless the
    content is made of rows holding cells alone, with white space between them: read before
    any cell is made, and checked as it is read (a regular expression over the whole content
    first walked every character once more: 0.015 of formulas_test.xlsx's 0.2 CPU s)."""
    found: list[Item] = []
    keep, match = found.append, _ITEM.match
    position, in_row = 0, False
    while (item := match(content, position)) is not None:
        position = item.end()
        groups = item.groups()
        if groups[3] is not None:  # a cell
            if not in_row:
                return None
            keep(groups)
        elif groups[2] is not None:  # a row's end
            if not in_row:
                return None
            in_row = False
        else:  # a row's start
            if in_row:
                return None
            in_row = not groups[1]
            keep(groups)
    if in_row or content[position:].strip(" \t\n"):
        return None
    return found


def _not_xml(raw: bytes, content: str) -> bool:
    """Whether the text (`raw`, decoded: `content`) holds a character XML 1.0 does not allow
    in a document (expat refuses the part) or `]]>`, which it refuses in text. (One regular
    expression searching for all of them read formulas_test.xlsx's 1.7 MB of cells in 0.014
    CPU s, character by character; these C searches take 0.002.)"""
    if len(raw.translate(None, _CONTROL_BYTES)) != len(raw) or "]]>" in content:
        return True
    # U+FFFE and U+FFFF, only in text beyond ASCII (`isascii` reads a flag the string holds).
    return not content.isascii() and ("\ufffe" in content or "\uffff" in content)


def _namespaces(head: bytes) -> dict[str, str] | None:
    """Prefix -> namespace of the root `<worksheet>` (SpreadsheetML's by default); None when
    a namespace is declared anywhere else before `<sheetData>` or not as expected."""
    root = _ROOT.search(head)
    if root is None or head.count(b"xmlns") != root.group(1).count(b"xmlns"):
        return None
    try:
        attributes = root.group(1).decode("utf-8")
    except UnicodeDecodeError:
        return None
    namespaces = {"xml": _XML}
    default = None
    for name, value in re.findall(r'([\w.:-]+)\s*=\s*"([^"]*)"', attributes):
        if name == "xmlns":
            default = value
        elif name.startswith("xmlns:"):
            namespaces[name[6:]] = value
    return namespaces if default == _MAIN else None


def row_attributes(text: str, namespaces: dict[str, str]) -> dict[str, str]:
    """A `<row>`'s attributes as the XML parser gives them (`{namespace}name` for a prefixed
    one; entities and white space are not in `_SHEET_DATA`'s values). A prefix the root does
    not declare, or an attribute written twice, is the parser's error too."""
    from xml.etree.ElementTree import ParseError

    attributes: dict[str, str] = {}
    for name, value in _ATTRIBUTE.findall(text):
        if ":" in name:
            prefix, local = name.split(":", 1)
            if prefix not in namespaces:
                raise ParseError(f"unbound prefix: {prefix}")
            name = f"{{{namespaces[prefix]}}}{local}"
        if name in attributes:
            raise ParseError(f"duplicate attribute: {name}")
        attributes[name] = value
    return attributes


def formula_attributes(text: str) -> dict[str, str]:
    """An `<f>`'s attributes (`_CELL`'s group), as the XML parser gives them."""
    from xml.etree.ElementTree import ParseError

    found = _ATTRIBUTE.findall(text)
    attributes = dict(found)
    if len(attributes) != len(found):
        raise ParseError("duplicate attribute")
    return attributes


def unescape(text: str) -> str:
    """Text with XML's five predefined entities read (`split` lets no other through)."""
    if "&" not in text:
        return text
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"') \
        .replace("&apos;", "'").replace("&amp;", "&")
