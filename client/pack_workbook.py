"""The market-data pack inside a workbook: an OOXML custom XML part, or a file beside it.

ECMA-376 Part 1, 22.5 (Custom XML Data Properties): a package may hold custom XML parts
(`customXml/itemN.xml`), each with a properties part (`customXml/itemPropsN.xml`, which
gives it an itemID) and reached by a `customXml` relationship from the workbook part. Excel
keeps such parts when it saves a workbook, which is why the pack travels this way.

Written by hand on the zip (zipfile): no spreadsheet library writes custom XML parts, and
openpyxl, which reads and rewrites the whole book, drops them (tests/client/test_pack_workbook.py).
Every other part is copied byte for byte, with its own compression.

The part is `<marketDataPack xmlns="urn:rates-xl:market-data-pack" version="2">` holding
the pack's JSON as text. No extra compression: the zip already deflates the part, and a
pack of 500 requests adds well under 1 MB (measured in docs/market-data-pack.md).
"""

from __future__ import annotations

import posixpath
import re
import shutil
import uuid
import zipfile
import zlib
from pathlib import Path
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from rates_xl.client.pack import Pack, PackError, loads

NAMESPACE = "urn:rates-xl:market-data-pack"
_ROOT = f"{{{NAMESPACE}}}marketDataPack"
_REL_CUSTOM_XML = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/customXml"
_REL_CUSTOM_XML_PROPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/customXmlProps"
_REL_OFFICE_DOCUMENT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
_PROPS_TYPE = "application/vnd.openxmlformats-officedocument.customXmlProperties+xml"
_ITEM_RE = re.compile(r"^customXml/item(\d+)\.xml$", re.IGNORECASE)
#: A pack part larger than this is refused on read (a zip bomb is not a pack).
MAX_PART_BYTES = 64 << 20


def beside(book: str | Path) -> Path:
    """Where a pack written beside a book lives: `BOOK.pack.json` next to `BOOK.xlsx`."""
    book = Path(book)
    return book.with_name(book.stem + ".pack.json")


def read_pack(book: str | Path) -> Pack | None:
    """The pack inside the workbook, or None when it carries none (never written, or saved
    by a program that drops custom XML parts).

    Read one way or refused: a package with two parts of one name (OPC names are
    case-insensitive; zip readers disagree on which of two entries wins), two pack parts, a
    part that is not well-formed XML, declares a DOCTYPE (entities: a reader that expands
    them reads other text), holds anything but the pack's text (a comment or an element
    splits the text, and readers join it differently) or whose version disagrees with its
    JSON: each is one line (`PackError`)."""
    name = Path(book).name
    try:
        with zipfile.ZipFile(book) as archive:
            infos = archive.infolist()
            seen: set[str] = set()
            for info in infos:
                folded = info.filename.casefold()
                if folded in seen:
                    raise PackError(f"{name} holds two parts named {info.filename[:80]!r}: programs read "
                                    "such a package differently, so its market-data pack is not read")
                seen.add(folded)
            found = []
            for info in infos:
                if not _ITEM_RE.match(info.filename):
                    continue
                if info.file_size > MAX_PART_BYTES:
                    raise PackError(f"the market-data pack in {name} is larger than "
                                    f"{MAX_PART_BYTES >> 20} MB: refused")
                read = pack_text(archive.read(info), f"{name}:{info.filename}")
                if read is not None:
                    found.append((info.filename, read))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, NotImplementedError,
            zlib.error) as exc:
        raise PackError(f"cannot read {name} as a workbook: {exc}") from None
    if not found:
        return None
    if len(found) > 1:
        raise PackError(f"{name} carries {len(found)} market-data packs ({', '.join(n for n, _ in found)}): "
                        "a book carries one, so none of them is read")
    part, (text, version) = found[0]
    pack = loads(text)
    if version is not None and version != str(pack.version):
        raise PackError(f"the market-data pack part {name}:{part} says version {version[:10]!r} outside and "
                        f"{pack.version} inside: refused")
    return pack


class _Refusing(ElementTree.TreeBuilder):
    """Keeps comments and processing instructions (so they can be refused) and stops at a
    DOCTYPE, before any entity it declares is expanded."""

    def doctype(self, *args: object) -> None:
        raise PackError("declares a DOCTYPE")


def pack_text(data: bytes, where: str) -> tuple[str, str | None] | None:
    """The JSON text of a custom XML part holding a pack and the part's version attribute;
    None for another program's part."""
    mentions = NAMESPACE.encode() in data or NAMESPACE.encode("utf-16-le") in data
    parser = ElementTree.XMLParser(target=_Refusing(insert_comments=True, insert_pis=True))
    try:
        parser.feed(data)
        root = parser.close()
    except PackError as exc:
        if not mentions:
            return None
        raise PackError(f"the market-data pack part {where} {exc}: refused") from None
    except ElementTree.ParseError as exc:
        if not mentions:
            return None  # another program's part, damaged: not ours to judge
        raise PackError(f"the market-data pack part {where} is not well-formed XML ({exc})") from None
    if root.tag != _ROOT:
        return None
    if len(root) or set(root.attrib) - {"version"}:
        raise PackError(f"the market-data pack part {where} holds more than the pack's text "
                        "(an element, a comment or an attribute): refused")
    return root.text or "", root.attrib.get("version")


def require_pack(book: str | Path) -> Pack:
    """The pack to replay a book from: inside it, else beside it; else one clear line."""
    inside = read_pack(book)
    if inside is not None:
        return inside
    side = beside(book)
    if side.exists():
        from rates_xl.client.pack import read

        return read(side)
    for copy in copies_beside(book):  # calc's copy of it carries one: say so, with the command
        try:
            carries = read_pack(copy) is not None
        except PackError:
            carries = False
        if carries:
            raise PackError(f"{Path(book).name} carries no market-data pack, but {copy.name} beside it "
                            f"does (the copy rates-xl calc wrote): rates-xl calc {Path(book).name} "
                            f"--replay {copy.name}")
    raise PackError(f"{Path(book).name} carries no market-data pack and there is no {side.name} "
                    "beside it (was it saved by a program that drops custom XML parts?): "
                    "nothing to replay")


def copies_beside(book: str | Path) -> list[Path]:
    """The copies `rates-xl calc` writes beside a book by default (BOOK.values.xlsx/.xlsm)."""
    book = Path(book)
    return [path for suffix in (".xlsx", ".xlsm") if (path := book.with_name(f"{book.stem}.values{suffix}")).exists()]


def write_pack(book: str | Path, pack: Pack) -> None:
    """Put `pack` into the workbook (replacing the one it holds), leaving every other part as it was."""
    book = Path(book)
    with zipfile.ZipFile(book) as archive:
        infos = archive.infolist()
        parts = {info.filename: archive.read(info) for info in infos}
        existing = _pack_part(archive)
    content = item_xml(pack)
    if existing is not None:
        parts[existing] = content
        _relate(parts, existing)
        added: list[zipfile.ZipInfo] = []
    else:
        added = _add_part(parts, content)
    # Written beside, then moved over: a crash never leaves half a workbook; the book keeps
    # its mode (mkstemp's 0600 made every copy calc wrote private, issue 31).
    from rates_xl import atomic

    with atomic.replacing(book) as temp:
        with zipfile.ZipFile(temp, "w") as out:
            for info in infos:
                out.writestr(info, parts[info.filename])
            for info in added:
                out.writestr(info, parts[info.filename])
        shutil.copymode(book, temp)


def item_xml(pack: Pack) -> bytes:
    """The custom XML part's content (also what the add-in hands Excel's CustomXMLParts.Add)."""
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            f'<marketDataPack xmlns="{NAMESPACE}" version="{pack.version}">'
            f"{escape(pack.dumps())}</marketDataPack>").encode()


def _pack_part(archive: zipfile.ZipFile) -> str | None:
    """The name of the custom XML part holding a pack, by its root element (one that says
    it is ours but cannot be read is ours too: it is replaced); two are refused."""
    found = []
    for info in archive.infolist():
        if _ITEM_RE.match(info.filename) and info.file_size <= MAX_PART_BYTES:
            try:
                ours = pack_text(archive.read(info), info.filename) is not None
            except PackError:
                ours = True
            if ours:
                found.append(info.filename)
    if len(found) > 1:
        raise PackError(f"the book carries {len(found)} market-data packs: refused")
    return found[0] if found else None


def _add_part(parts: dict[str, bytes], item_xml: bytes) -> list[zipfile.ZipInfo]:
    """Add the item, its properties and relationships, and the content type; returns the new entries."""
    taken = {int(m.group(1)) for name in parts if (m := _ITEM_RE.match(name))}
    n = max(taken, default=0) + 1
    item, props, item_rels = f"customXml/item{n}.xml", f"customXml/itemProps{n}.xml", f"customXml/_rels/item{n}.xml.rels"
    parts[item] = item_xml
    parts[props] = (
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        f'<ds:datastoreItem ds:itemID="{{{str(uuid.uuid4()).upper()}}}" '
        'xmlns:ds="http://schemas.openxmlformats.org/officeDocument/2006/customXml">'
        f'<ds:schemaRefs><ds:schemaRef ds:uri="{NAMESPACE}"/></ds:schemaRefs></ds:datastoreItem>').encode()
    parts[item_rels] = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{_REL_CUSTOM_XML_PROPS}" Target="itemProps{n}.xml"/>'
        "</Relationships>").encode()
    _relate(parts, item)
    types = parts["[Content_Types].xml"].decode("utf-8")
    additions = f'<Override PartName="/{props}" ContentType="{_PROPS_TYPE}"/>'
    if not re.search(r'<Default\s+Extension="xml"', types, re.IGNORECASE):
        additions = '<Default Extension="xml" ContentType="application/xml"/>' + additions
    parts["[Content_Types].xml"] = types.replace("</Types>", additions + "</Types>").encode("utf-8")
    added = []
    for name in (item, props, item_rels):
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        added.append(info)
    return added


def _relate(parts: dict[str, bytes], item: str) -> None:
    """Make sure the workbook part has a customXml relationship to `item`. (LibreOffice moves
    it to the package root when it saves; Excel looks for it on the workbook part.)"""
    workbook = _workbook_part(parts)
    rels_name = posixpath.join(posixpath.dirname(workbook), "_rels", posixpath.basename(workbook) + ".rels")
    rels = parts[rels_name].decode("utf-8")
    target = posixpath.relpath(item, posixpath.dirname(workbook))
    if f'Target="{target}"' in rels:
        return
    used = {int(i) for i in re.findall(r'Id="rId(\d+)"', rels)}
    rel_id = f"rId{max(used, default=0) + 1}"
    rels = rels.replace("</Relationships>", f'<Relationship Id="{rel_id}" Type="{_REL_CUSTOM_XML}" '
                                            f'Target="{target}"/></Relationships>')
    parts[rels_name] = rels.encode("utf-8")


def _workbook_part(parts: dict[str, bytes]) -> str:
    """The workbook part's name, from the package relationships (usually xl/workbook.xml)."""
    rels = parts.get("_rels/.rels", b"").decode("utf-8")
    for match in re.finditer(r"<Relationship\b[^>]*>", rels):
        tag = match.group(0)
        if _REL_OFFICE_DOCUMENT in tag:
            target = re.search(r'Target="([^"]+)"', tag)
            if target:
                return target.group(1).lstrip("/")
    raise PackError("not a workbook: no officeDocument relationship")


__all__ = ["beside", "item_xml", "read_pack", "require_pack", "write_pack", "NAMESPACE"]
