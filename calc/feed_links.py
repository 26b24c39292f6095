"""Links to a live feed (DDE, OLE) read, kept and written back as the file holds them.

An old desk book reads a quote feed through a DDE link: `=[1]!'ES #F'`, link 1 a part
`<externalLink><ddeLink ddeService="WINROS" ddeTopic="LAST"><ddeItems>...` (an OLE link,
`<oleLink progId=...>`, the same way). An external link part holds one of three things
(ECMA-376 CT_ExternalLink: externalBook, ddeLink or oleLink; openpyxl's `ExternalLink` takes
all three), but openpyxl 3.1.5 reads only the first:

- `read_external_link` reads the part's relationships unguarded, and a DDE link has none:
  "KeyError: There is no item named 'xl/externalLinks/_rels/externalLink1.xml.rels'", the whole
  book lost (EPPlus's Excel-made dde.xlsx);
- `ExternalLink` drops `ddeLink` and `oleLink` ("ignore other items for the moment"), so a
  save writes an empty `<externalLink/>` where Excel had the feed.

`mend` gives openpyxl's workbook reader one that reads a link part as openpyxl does and, for a
feed's (or a workbook link's whose relationships are missing), keeps the part's bytes and its
relationships' (`Kept`) on the link it reads;
`write_links` (the writer's `_write_external_links`, calc/xlsx_writer.py) writes those back as
they were, every other link as openpyxl does. Each link keeps its place in the list: `[n]`
counts the links in order, so one left out would move every later link's cells onto another.

A cell reading a feed is not computed (calc cannot call a DDE server or an OLE object): it keeps
the value Excel saved and is listed (calc/formula/ranges.py `other_workbooks`, told which links
are feeds by `feeds`). Written by hand: openpyxl has no way to read or keep a link part it does
not model.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from xml.etree.ElementTree import Element

if TYPE_CHECKING:
    from zipfile import ZipFile

    from openpyxl import Workbook
    from openpyxl.workbook.external_link.external import ExternalLink

_KEPT = "_rates_xl_kept"  # (the attribute a link kept as it was carries its `Kept` in)
_lock = threading.Lock()
_mended: list[bool] = []


@dataclass(frozen=True)
class Kept:
    """A link part kept as the file holds it: its bytes, its relationships' (None: it has none,
    as a DDE link), and what it reads, for the summary (`DDE WINROS|LAST`; None: another
    workbook, a link whose relationships are missing, written back so rather than given an
    empty one)."""

    part: bytes
    rels: bytes | None
    feed: str | None


class _Manifest(Protocol):
    def append(self, part: object) -> None: ...


def mend() -> None:
    """openpyxl's workbook reader given `_read_link` for its `read_external_link` (once), only
    where that is still openpyxl's own (a later openpyxl's reading is left alone)."""
    if _mended:
        return
    from openpyxl.reader import workbook as reader
    from openpyxl.workbook.external_link import external

    with _lock:
        if _mended:
            return
        if reader.__dict__.get("read_external_link") is external.read_external_link:
            setattr(reader, "read_external_link", _read_link)  # noqa: B010 (its stub declares no such name)
        _mended.append(True)


def _read_link(archive: ZipFile, book_path: str) -> ExternalLink:
    """openpyxl 3.1.5's `read_external_link`, its relationships read only where the part has
    them, and a feed's part kept as it is (`Kept`)."""
    from openpyxl.packaging.relationship import Relationship, get_dependents, get_rels_path
    from openpyxl.workbook.external_link.external import ExternalLink
    from openpyxl.xml.functions import fromstring

    src = archive.read(book_path)
    node = fromstring(src)
    link = ExternalLink.from_tree(node)  # type: ignore[arg-type]  # (the stub wants lxml's element; either is read)
    if link is None:
        raise ValueError(f"{book_path} holds no external link")
    rels_path = get_rels_path(book_path)
    rels = archive.read(rels_path) if rels_path in archive.namelist() else None
    deps = get_dependents(archive, rels_path) if rels is not None else None
    # (no file of its own, a DDE link's: a relationship to none, which readers of `file_link`
    # such as the formulas engine's take for a link to no workbook, as they do an OLE link's)
    link.file_link = deps[0] if deps is not None and len(deps) else \
        Relationship(Id="rId1", type="externalLinkPath", Target="")
    if link.externalBook is None or rels is None:  # (a link to a workbook without its file's: as it was)
        feed = _feed(node) if link.externalBook is None else None
        setattr(link, _KEPT, Kept(src, rels, feed))  # noqa: B010 (openpyxl declares no such slot)
    return link


def _feed(node: Element) -> str:
    """What a link part that is no other workbook reads: `DDE service|topic`, `OLE progId`."""
    for child in node:
        tag = child.tag.rpartition("}")[2]
        if tag == "ddeLink":
            return f"DDE {child.get('ddeService', '')}|{child.get('ddeTopic', '')}"
        if tag == "oleLink":
            return f"OLE {child.get('progId', '')}".rstrip()
    return "an empty link"


def kept(link: object) -> Kept | None:
    """The part a link read by `_read_link` keeps, or None (a link openpyxl writes as it reads it)."""
    found = getattr(link, _KEPT, None)
    return found if isinstance(found, Kept) else None


def feeds(book: Workbook) -> dict[int, str]:
    """The book's links to a feed by their number (`[n]`, from 1): what each reads."""
    links = getattr(book, "_external_links", None) or ()
    return {n: found.feed for n, link in enumerate(links, 1)
            if (found := kept(link)) is not None and found.feed is not None}


def write_links(book: Workbook, archive: ZipFile, manifest: _Manifest) -> None:
    """openpyxl 3.1.5's `ExcelWriter._write_external_links`, a kept link's part and
    relationships (`kept`) written as the file held them."""
    from openpyxl.packaging.relationship import RelationshipList, get_rels_path
    from openpyxl.xml.functions import tostring

    for idx, link in enumerate(getattr(book, "_external_links", None) or (), 1):
        link._id = idx
        path = link.path[1:]
        found = kept(link)
        if found is not None:
            archive.writestr(path, found.part)
            if found.rels is not None:
                archive.writestr(get_rels_path(path), found.rels)
        else:
            archive.writestr(path, tostring(link.to_tree()))
            rels = RelationshipList()
            rels.append(link.file_link)
            archive.writestr(get_rels_path(path), tostring(rels.to_tree()))
        manifest.append(link)
