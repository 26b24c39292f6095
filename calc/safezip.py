"""Refuse a zip bomb before anything inflates a workbook package.

calc hands a book to openpyxl, formualizer and the formulas package, each of
which opens the zip itself and inflates whole parts into memory: a 2 MB package whose sheet
inflates to 2 GB took 2.1 GB of memory, an 8 MB one 5.9 GB before a MemoryError. `refusal`
looks first, in bounded memory (the central directory, 64 KB buffers):

- the end record: how many entries and how large a central directory (before zipfile reads it);
- every entry: compressed with deflate or stored (what Excel and every xlsx writer use; a
  method we cannot measure is refused), not encrypted;
- the sizes the headers declare: the total, and the ratio of each entry over 1 MB;
- what the entries really inflate to, streamed with a cap: a header may lie about its size
  (readers that trust the data, not the header, would inflate the lot), so each deflated
  entry is inflated 64 KB at a time and refused as soon as it passes its declared size. A
  damaged entry is skipped, not a reason to stop looking at the others;
- a DTD in a part's prolog (`_declares_dtd`): Open XML forbids one, the entity bomb it allows
  being the reason (ECMA-376 Part 2, M1.18: implementers "shall treat the presence of DTD
  declarations as an error"), and the parsers stopped such a book only at their amplification
  limits, said as "cannot read the workbook ... is it corrupt?".

Written by hand because zipfile has no such check (Python's docs only warn about bombs) and
no well-kept library does it for a package others then open. A package that is not a zip or
is damaged gets no verdict here (None): the engines' own reading says what is wrong with it.

The limits, from real books (measured: every Excel-made book of ../shared/corpus/excel, the
calc corpus, the templates, and a generated 37-sheet model of 1.67 million cells):
their largest package inflates to 79 MB (45 entries), and no entry over 1 MB compresses
better than 14:1 (XML with distinct cell references rarely passes 20:1). A bomb made of one
repeated byte reaches deflate's limit, about 1030:1.
"""

from __future__ import annotations

import io
import os
import struct
import zipfile
import zlib
from pathlib import Path

from rates_xl.errors import Internal

#: Total the entries may inflate to: 12 times the largest real model measured (79 MB), and
#: far past what the engines can hold in memory anyway (openpyxl needs several times a
#: sheet's XML).
MAX_TOTAL_BYTES = 1 << 30
#: An entry larger than this that compresses better than MAX_RATIO is a bomb: 7 times the
#: best ratio of a real entry over 1 MB (14:1), a tenth of a bomb's (about 1030:1).
RATIO_FLOOR_BYTES = 1 << 20
MAX_RATIO = 100
#: Entries: a 37-sheet model has about 50 (sheets, their relationships, styles, charts).
MAX_ENTRIES = 10_000
#: The central directory zipfile reads into memory (about 100 bytes an entry in Excel's files).
MAX_CENTRAL_DIRECTORY_BYTES = 4 << 20
CHUNK = 64 << 10

_EOCD = b"PK\x05\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_LOCAL_HEADER = b"PK\x03\x04"
_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
_REFUSED = "not a workbook rates-xl will open"
#: The parts read as XML (a DTD in an embedded picture, an SVG's, is no part of the package's markup).
_MARKUP = (".xml", ".rels", ".vml")


class _Damaged(Internal):
    """The package is not a readable zip: no verdict here."""


def refusal(path: str | os.PathLike[str], data: bytes | None = None) -> str | None:
    """One line, "BOOK: refused: why; not a workbook rates-xl will open", when the package
    would inflate beyond the limits above (or cannot be measured); None otherwise, including
    for a file that is missing or not a zip at all (the engines report those). `data`: the
    file's bytes, already read (calc/book.py reads a book once)."""
    path = Path(path)
    try:
        with (io.BytesIO(data) if data is not None else path.open("rb")) as handle:
            reason = _inspect(handle)
    except (OSError, _Damaged, zipfile.BadZipFile, ValueError, EOFError, struct.error):
        return None  # not a zip zipfile reads: every engine's reading fails and says so
    return f"{path}: refused: {reason}; {_REFUSED}" if reason else None


def _inspect(handle) -> str | None:
    try:
        entries, directory_size = _end_record(handle)
    except _Damaged:
        if not zipfile.is_zipfile(handle):
            raise
        # zipfile finds a directory this reading cannot measure: no real workbook looks so.
        return "the package's end record cannot be measured"
    if entries > MAX_ENTRIES or directory_size > MAX_CENTRAL_DIRECTORY_BYTES:
        return (f"the package lists {entries:,} entries in a {_size(directory_size)} directory "
                f"(at most {MAX_ENTRIES:,})")
    with zipfile.ZipFile(handle) as package:
        infos = package.infolist()
    if len(infos) > MAX_ENTRIES:
        return f"the package holds {len(infos):,} entries (at most {MAX_ENTRIES:,})"
    for info in infos:
        if info.compress_type not in _METHODS:
            return (f"entry {info.filename} is compressed with method {info.compress_type} "
                    "(Excel writes deflate)")
        if info.flag_bits & 0x1:
            return f"entry {info.filename} is encrypted"
    total = sum(info.file_size for info in infos)
    largest = max(infos, key=lambda info: info.file_size, default=None)
    if total > MAX_TOTAL_BYTES:
        return f"the package would inflate to {_size(total)} ({_entry(largest)})"
    for info in infos:
        if info.file_size > RATIO_FLOOR_BYTES and _ratio(info) > MAX_RATIO:
            return f"the package would inflate to {_size(total)} ({_entry(info)})"
    for info in infos:
        markup = info.filename.lower().endswith(_MARKUP)
        if info.compress_type == zipfile.ZIP_STORED and not markup:
            continue  # (its size is what it holds; nothing to read of it)
        try:
            produced, head = _inflate(handle, info, limit=info.file_size, head=markup)
        except (_Damaged, zlib.error):
            continue  # a damaged entry fails whoever reads it; the others are still measured
        if produced > info.file_size:
            return (f"entry {info.filename} inflates past the {_size(info.file_size)} its header "
                    f"declares ({_size(produced)} and more from {_size(info.compress_size)})")
        if markup and _declares_dtd(head):
            return (f"part {info.filename} declares a DTD (<!DOCTYPE>), which Open XML forbids for the "
                    "entity expansion it allows (ECMA-376 Part 2, M1.18)")
    return None


def _declares_dtd(head: bytes) -> bool:
    """Whether a part's first bytes (its prolog, where a DTD must stand) declare a DTD: an
    entity bomb's `<!DOCTYPE lolz [<!ENTITY lol1 "&lol;&lol;...">` (apache/poi's 54764.xlsx),
    which the parsers stop only at their amplification limits, in UTF-8 or UTF-16."""
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        head = head.decode("utf-16", "replace").encode()
    return b"<!DOCTYPE" in head


def _end_record(handle) -> tuple[int, int]:
    """(entries, central directory size) from the end of central directory record (zip64's
    when the classic one says so)."""
    size = handle.seek(0, os.SEEK_END)
    tail_size = min(size, 22 + 0xFFFF)  # the record and the longest comment
    handle.seek(size - tail_size)
    tail = handle.read(tail_size)
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < 22:
        raise _Damaged
    entries, directory_size = struct.unpack_from("<HL", tail, at + 10)
    if entries == 0xFFFF or directory_size == 0xFFFFFFFF:
        locator = at - 20
        if locator < 0 or tail[locator:locator + 4] != _EOCD64_LOCATOR:
            raise _Damaged
        (offset,) = struct.unpack_from("<Q", tail, locator + 8)
        handle.seek(offset)
        record = handle.read(56)
        if len(record) < 56 or record[:4] != _EOCD64:
            raise _Damaged
        entries, directory_size = struct.unpack_from("<QQ", record, 32)
    return entries, directory_size


def _inflate(handle, info: zipfile.ZipInfo, limit: int, head: bool = False) -> tuple[int, bytes]:
    """How many bytes the entry produces (a deflate stream counted 64 KB at a time and stopped
    as soon as it passes `limit`; a stored entry its size), and, with `head`, its first 64 KB
    or fewer (a stored entry is read only then)."""
    handle.seek(info.header_offset)
    header = handle.read(30)
    if len(header) < 30 or header[:4] != _LOCAL_HEADER:
        raise _Damaged
    name_length, extra_length = struct.unpack_from("<HH", header, 26)
    handle.seek(info.header_offset + 30 + name_length + extra_length)
    if info.compress_type == zipfile.ZIP_STORED:
        return info.file_size, handle.read(min(CHUNK, info.compress_size)) if head else b""
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    produced, left, first = 0, info.compress_size, b""
    while left > 0 and not inflater.eof:
        data = handle.read(min(CHUNK, left))
        if not data:
            break
        left -= len(data)
        while data and not inflater.eof:
            out = inflater.decompress(data, CHUNK)
            first = first or out  # (free: the first chunk is inflated anyway)
            produced += len(out)
            if produced > limit:
                return produced, first
            data = inflater.unconsumed_tail
    return produced, first


def _ratio(info: zipfile.ZipInfo) -> float:
    return info.file_size / max(info.compress_size, 1)


def _entry(info: zipfile.ZipInfo | None) -> str:
    if info is None:
        return "no entries"
    return f"entry {info.filename}, ratio {_ratio(info):,.0f}:1"


def _size(count: int) -> str:
    if count >= 1 << 30:
        return f"{count / (1 << 30):,.1f} GB"
    if count >= 1 << 20:
        return f"{count / (1 << 20):,.1f} MB"
    if count >= 1 << 10:
        return f"{count / (1 << 10):,.0f} KB"
    return f"{count} bytes"
