"""A VBA project (`xl/vbaProject.bin`) written from module sources, without Excel.

The project is stored *source only* ([MS-OVBA]): each module stream holds the module's
compressed source at offset 0 and no compiled p-code, and `_VBA_PROJECT` carries version
0xFFFF, so Excel ignores the (absent) performance cache and compiles the source when it
loads the add-in. What is in the file:

    vbaProject.bin (a compound file, [MS-CFB] version 3)
      PROJECT        text: project id, modules, name, protection state (2.3.1)
      PROJECTwm      module names in MBCS and UTF-16 (2.3.3)
      VBA/_VBA_PROJECT   7 bytes: source only (2.3.4.1)
      VBA/dir        compressed: project information, references, module records (2.3.4.2)
      VBA/<module>   compressed source of each module (2.3.4.3)

What is written here by hand, and why:
- The compound-file container. No well-kept Python library writes one: `olefile` and
  `compoundfiles`/`cfb` only read, `ms-cfb` (0.0.6) is young, needs PyYAML and a red-black
  tree package and leaves the DIFAT unimplemented. A small file like ours (well under the
  109 FAT sectors the header itself can list) needs a few dozen lines: `compound_file`.
- The project structures (dir records, PROJECT, PROJECTwm, the "data encryption" of the
  protection fields, 2.4.3). `ms-ovba` (0.0.1) does this, but ships no licence text (only a
  classifier), writes work files into the current directory and needs workarounds; the
  records are plain length-prefixed fields, written below in the order of the spec.
- The MS-OVBA compression (2.4.1). `ms-ovba-compression` 1.0.1 (MIT) exists, but what it
  writes for texts over about 2 KB (our ribbon module among them) does not decompress, with
  its own decompressor or with oletools', so `compress` below is ours: 4096-byte chunks of literal and copy tokens,
  matches found through a table of 3-byte prefixes. oletools' decompressor reads it back in
  the tests.

Nothing here is random or dated: the project id and the encryption seed are derived from
the sources, the compound file's timestamps are zero, so the same sources give the same
bytes. Proof that the result is readable comes from tools no one here wrote: oletools'
olevba and LibreOffice (tests/addin/test_build.py); that Excel compiles it is on the manual
checklist in addin/README.md.
"""

from __future__ import annotations

import hashlib
import struct
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

CODEPAGE = 1252  # Windows Latin 1: module text, names and the PROJECT stream are MBCS
ENCODING = "cp1252"
LCID = 0x0409

#: Host Extender Info of every Excel project (2.3.1.18).
HOST_EXTENDER = "&H00000001={3832D640-CF90-11CF-8E43-00A0C911005A};VBE;&H00000000"
#: The Office type library (for IRibbonControl), the libid Excel itself writes into the
#: xlwings ribbon template; VBA resolves it by GUID and major version, the path is a hint.
OFFICE_LIBID = ("*\\G{2DF8D04C-5BFA-101B-BDE5-00AA0044DE52}#2.0#0#C:\\Program Files (x86)\\"
                "Common Files\\Microsoft Shared\\OFFICE16\\MSO.DLL#Microsoft Office 16.0 Object Library")
STDOLE_LIBID = "*\\G{00020430-0000-0000-C000-000000000046}#2.0#0#C:\\Windows\\System32\\stdole2.tlb#OLE Automation"
#: VB_Base of the workbook's and a worksheet's document module.
WORKBOOK_BASE = "0{00020819-0000-0000-C000-000000000046}"
WORKSHEET_BASE = "0{00020820-0000-0000-C000-000000000046}"


@dataclass(frozen=True)
class Module:
    """One module: `kind` is "standard" (a .bas) or "document" (ThisWorkbook, a sheet)."""

    name: str
    source: str  # the text as the VBA editor exports it, Attribute lines first
    kind: str = "standard"

    def source_bytes(self) -> bytes:
        """CRLF line endings whatever the source had; one CRLF at the end."""
        text = self.source.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n") + "\n"
        return text.replace("\n", "\r\n").encode(ENCODING)


def document_module(name: str, base: str) -> Module:
    """An empty document module, with the attributes Excel gives one."""
    lines = [f'Attribute VB_Name = "{name}"', f'Attribute VB_Base = "{base}"',
             "Attribute VB_GlobalNameSpace = False", "Attribute VB_Creatable = False",
             "Attribute VB_PredeclaredId = True", "Attribute VB_Exposed = True",
             "Attribute VB_TemplateDerived = False", "Attribute VB_Customizable = True"]
    return Module(name, "\r\n".join(lines), "document")


# -- MS-OVBA compression (2.4.1) -------------------------------------------------------------
CHUNK = 4096


def _copy_token_layout(position: int) -> tuple[int, int]:
    """(bits for the length, largest length) of a copy token at `position` in its chunk."""
    bit_count = max((position - 1).bit_length(), 4)
    return 16 - bit_count, (0xFFFF >> bit_count) + 3


def compress(data: bytes) -> bytes:
    """A CompressedContainer: signature byte, then one chunk per 4096 bytes of input."""
    out = bytearray(b"\x01")
    for start in range(0, len(data), CHUNK):
        out += _compress_chunk(data[start:start + CHUNK])
    return bytes(out)


def _compress_chunk(chunk: bytes) -> bytes:
    body = bytearray()
    recent: dict[bytes, list[int]] = {}  # 3-byte prefix -> positions, newest last
    position = 0
    while position < len(chunk):
        flag_at = len(body)
        body.append(0)
        for bit in range(8):
            if position >= len(chunk):
                break
            length_bits, max_length = _copy_token_layout(position)
            best_length, best_offset = 0, 0
            limit = min(max_length, len(chunk) - position)
            for candidate in reversed(recent.get(chunk[position:position + 3], [])[-64:]):
                length = 0
                while length < limit and chunk[candidate + length] == chunk[position + length]:
                    length += 1
                if length > best_length:
                    best_length, best_offset = length, position - candidate
            step = best_length if best_length >= 3 else 1
            if step >= 3:
                token = ((best_offset - 1) << length_bits) | (best_length - 3)
                body += token.to_bytes(2, "little")
                body[flag_at] |= 1 << bit
            else:
                body.append(chunk[position])
            for p in range(position, position + step):
                recent.setdefault(chunk[p:p + 3], []).append(p)
            position += step
    if len(body) > CHUNK:  # incompressible: a raw chunk (only a full one may be raw)
        if len(chunk) != CHUNK:
            raise ValueError("a short final chunk that does not compress")
        return (0x3000 | (CHUNK - 1)).to_bytes(2, "little") + chunk
    return (0xB000 | (len(body) + 2 - 3)).to_bytes(2, "little") + bytes(body)


def decompress(data: bytes) -> bytes:
    """The inverse of `compress` (any valid CompressedContainer)."""
    if not data or data[0] != 1:
        raise ValueError("not a compressed container (signature byte must be 1)")
    out = bytearray()
    position = 1
    while position < len(data):
        header = int.from_bytes(data[position:position + 2], "little")
        end = position + (header & 0x0FFF) + 3
        position += 2
        chunk_start = len(out)
        if not header & 0x8000:  # raw chunk
            out += data[position:position + CHUNK]
            position += CHUNK
            continue
        while position < end:
            flags = data[position]
            position += 1
            for bit in range(8):
                if position >= end:
                    break
                if not flags & (1 << bit):
                    out.append(data[position])
                    position += 1
                    continue
                token = int.from_bytes(data[position:position + 2], "little")
                position += 2
                length_bits, _ = _copy_token_layout(len(out) - chunk_start)
                offset = (token >> length_bits) + 1
                length = (token & ((1 << length_bits) - 1)) + 3
                for _ in range(length):
                    out.append(out[-offset])
    return bytes(out)


# -- data encryption of CMG, DPB and GC (2.4.3.2) ---------------------------------------------
def encrypt(data: bytes, project_id: str, seed: int) -> str:
    """The hex text of an encrypted protection field; `seed` is any byte."""
    version = 2
    proj_key = sum(project_id.encode(ENCODING)) & 0xFF
    out = bytearray([seed, seed ^ version, seed ^ proj_key])
    unencrypted_1, encrypted_1, encrypted_2 = proj_key, out[2], out[1]
    for _ in range((seed & 6) // 2):  # "ignored" bytes
        temp = 0
        byte = temp ^ ((encrypted_2 + unencrypted_1) & 0xFF)
        out.append(byte)
        encrypted_2, encrypted_1, unencrypted_1 = encrypted_1, byte, temp
    for plain in struct.pack("<I", len(data)) + data:
        byte = plain ^ ((encrypted_2 + unencrypted_1) & 0xFF)
        out.append(byte)
        encrypted_2, encrypted_1, unencrypted_1 = encrypted_1, byte, plain
    return out.hex().upper()


def decrypt(text: str) -> tuple[bytes, int]:
    """(data, project key) of an encrypted field: the inverse of `encrypt`."""
    raw = bytes.fromhex(text)
    seed = raw[0]
    version, proj_key = raw[1] ^ seed, raw[2] ^ seed
    if version != 2:
        raise ValueError(f"encrypted field version {version}, expected 2")
    unencrypted_1, encrypted_1, encrypted_2 = proj_key, raw[2], raw[1]
    position = 3
    for _ in range((seed & 6) // 2):
        byte = raw[position]
        plain = byte ^ ((encrypted_2 + unencrypted_1) & 0xFF)
        encrypted_2, encrypted_1, unencrypted_1 = encrypted_1, byte, plain
        position += 1
    plain_bytes = bytearray()
    for byte in raw[position:]:
        plain = byte ^ ((encrypted_2 + unencrypted_1) & 0xFF)
        plain_bytes.append(plain)
        encrypted_2, encrypted_1, unencrypted_1 = encrypted_1, byte, plain
    length = struct.unpack("<I", bytes(plain_bytes[:4]))[0]
    return bytes(plain_bytes[4:4 + length]), proj_key


# -- the dir stream (2.3.4.2) -----------------------------------------------------------------
def _record(record_id: int, payload: bytes) -> bytes:
    return struct.pack("<HI", record_id, len(payload)) + payload


def _text_record(record_id: int, text: str, unicode_id: int | None = None) -> bytes:
    out = _record(record_id, text.encode(ENCODING))
    if unicode_id is not None:
        out += _record(unicode_id, text.encode("utf-16-le"))
    return out


def _reference(name: str, libid: str) -> bytes:
    """REFERENCENAME + REFERENCEREGISTERED (2.3.4.2.2.2 and .5)."""
    libid_bytes = libid.encode(ENCODING)
    registered = struct.pack("<I", len(libid_bytes)) + libid_bytes + struct.pack("<IH", 0, 0)
    return _text_record(0x0016, name, 0x003E) + _record(0x000D, registered)


def dir_stream(project_name: str, modules: Sequence[Module]) -> bytes:
    """The uncompressed dir stream."""
    out = bytearray()
    out += _record(0x0001, struct.pack("<I", 1))            # PROJECTSYSKIND: 32-bit Windows
    out += _record(0x0002, struct.pack("<I", LCID))         # PROJECTLCID
    out += _record(0x0014, struct.pack("<I", LCID))         # PROJECTLCIDINVOKE
    out += _record(0x0003, struct.pack("<H", CODEPAGE))     # PROJECTCODEPAGE
    out += _text_record(0x0004, project_name)               # PROJECTNAME
    out += _text_record(0x0005, "", 0x0040)                 # PROJECTDOCSTRING
    out += _text_record(0x0006, "", 0x003D)                 # PROJECTHELPFILEPATH
    out += _record(0x0007, struct.pack("<I", 0))            # PROJECTHELPCONTEXT
    out += _record(0x0008, struct.pack("<I", 0))            # PROJECTLIBFLAGS
    out += struct.pack("<HIIH", 0x0009, 4, 1, 0)            # PROJECTVERSION 1.0 (size field is 4)
    out += _text_record(0x000C, "", 0x003C)                 # PROJECTCONSTANTS
    out += _reference("stdole", STDOLE_LIBID)
    out += _reference("Office", OFFICE_LIBID)
    out += _record(0x000F, struct.pack("<H", len(modules)))  # PROJECTMODULES
    out += _record(0x0013, struct.pack("<H", 0xFFFF))       # PROJECTCOOKIE
    for module in modules:
        out += _text_record(0x0019, module.name)            # MODULENAME
        out += _record(0x0047, module.name.encode("utf-16-le"))  # MODULENAMEUNICODE
        out += _text_record(0x001A, module.name, 0x0032)    # MODULESTREAMNAME
        out += _text_record(0x001C, "", 0x0048)             # MODULEDOCSTRING
        out += _record(0x0031, struct.pack("<I", 0))        # MODULEOFFSET: source at 0, no p-code
        out += _record(0x001E, struct.pack("<I", 0))        # MODULEHELPCONTEXT
        out += _record(0x002C, struct.pack("<H", 0xFFFF))   # MODULECOOKIE
        out += _record(0x0021 if module.kind == "standard" else 0x0022, b"")  # MODULETYPE
        out += _record(0x002B, b"")                         # module terminator
    out += _record(0x0010, b"")                             # dir terminator
    return bytes(out)


#: _VBA_PROJECT (2.3.4.1): Reserved1 0x61CC, Version 0xFFFF (no performance cache: Excel
#: compiles the source), Reserved2 0x00, Reserved3 (ignored on read) 0x0001, the seven bytes
#: Excel itself wrote into xlwings' (source-only) ribbon template.
VBA_PROJECT_STREAM = struct.pack("<HHBH", 0x61CC, 0xFFFF, 0x00, 0x0001)


def project_stream(project_name: str, project_id: str, modules: Sequence[Module], seed: int) -> bytes:
    """The PROJECT stream (2.3.1): unprotected, no password, visible."""
    lines = [f'ID="{project_id}"']
    for module in modules:
        lines.append(f"Document={module.name}/&H00000000" if module.kind == "document"
                     else f"Module={module.name}")
    lines += [
        f'Name="{project_name}"',
        'HelpContextID="0"',
        'VersionCompatible32="393222000"',
        f'CMG="{encrypt(struct.pack("<I", 0), project_id, seed)}"',         # not protected
        f'DPB="{encrypt(bytes([0]), project_id, (seed + 1) & 0xFF)}"',      # no password
        f'GC="{encrypt(bytes([0xFF]), project_id, (seed + 2) & 0xFF)}"',    # visible
        "",
        "[Host Extender Info]",
        HOST_EXTENDER,
        "",
        "[Workspace]",
        *(f"{module.name}=0, 0, 0, 0, C" for module in modules),
    ]
    return ("\r\n".join(lines) + "\r\n").encode(ENCODING)


def projectwm_stream(modules: Sequence[Module]) -> bytes:
    out = bytearray()
    for module in modules:
        out += module.name.encode(ENCODING) + b"\x00" + module.name.encode("utf-16-le") + b"\x00\x00"
    return bytes(out + b"\x00\x00")


def build_vba_project(project_name: str, modules: Sequence[Module]) -> bytes:
    """vbaProject.bin for these modules, source only; the same input gives the same bytes."""
    names = [m.name.casefold() for m in modules]
    if len(set(names)) != len(names):
        raise ValueError("module names must be unique")
    for module in modules:
        if not (0 < len(module.name) <= 31) or not module.name.isidentifier():
            raise ValueError(f"not a VBA module name: {module.name!r}")
    digest = hashlib.sha256(project_name.encode() + b"\0".join(
        m.name.encode() + b"\0" + m.source_bytes() for m in modules)).digest()
    project_id = "{" + str(uuid.UUID(bytes=digest[:16])).upper() + "}"
    streams = {
        "PROJECT": project_stream(project_name, project_id, modules, digest[16]),
        "PROJECTwm": projectwm_stream(modules),
        "VBA/_VBA_PROJECT": VBA_PROJECT_STREAM,
        "VBA/dir": compress(dir_stream(project_name, modules)),
    }
    for module in modules:
        streams[f"VBA/{module.name}"] = compress(module.source_bytes())
    return compound_file(streams)


# -- the compound file ([MS-CFB], version 3) ---------------------------------------------------
SECTOR = 512
MINI_SECTOR = 64
MINI_CUTOFF = 4096
FREESECT, ENDOFCHAIN, FATSECT = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD
NOSTREAM = 0xFFFFFFFF
_HEADER_FAT_SLOTS = 109


@dataclass
class _Entry:
    name: str
    kind: int  # 1 storage, 2 stream, 5 root
    data: bytes = b""
    children: list[int] | None = None
    left: int = NOSTREAM
    right: int = NOSTREAM
    child: int = NOSTREAM
    red: bool = False
    start: int = ENDOFCHAIN
    size: int = 0


def _cfb_key(name: str) -> tuple[int, str]:
    """The order of siblings in a storage (2.6.4): shorter names first, then by upper case."""
    return len(name), name.upper()


def _tree(entries: list[_Entry], ids: list[int]) -> int:
    """Link `ids` as a balanced binary search tree; returns the root id.

    Nodes on the deepest level of an imperfect tree are red, all others black: every path
    from the root then passes the same number of black nodes, as a red-black tree must.
    """
    ids = sorted(ids, key=lambda i: _cfb_key(entries[i].name))
    depths: dict[int, int] = {}

    def link(lo: int, hi: int, depth: int) -> int:
        if lo >= hi:
            return NOSTREAM
        mid = (lo + hi) // 2
        node = ids[mid]
        depths[node] = depth
        entries[node].left = link(lo, mid, depth + 1)
        entries[node].right = link(mid + 1, hi, depth + 1)
        return node

    root = link(0, len(ids), 0)
    if depths:
        deepest = max(depths.values())
        if len(ids) != 2 ** (deepest + 1) - 1:  # not a perfect tree
            for node, depth in depths.items():
                entries[node].red = depth == deepest and depth > 0
    return root


def compound_file(streams: dict[str, bytes]) -> bytes:
    """A compound file holding `streams` ("STORAGE/NAME" paths, one level of storages)."""
    entries = [_Entry("Root Entry", 5, children=[])]
    storages: dict[str, int] = {}
    for path in sorted(streams):  # sorted: the same streams always give the same file
        *folders, name = path.split("/")
        parent = 0
        for folder in folders:
            if folder not in storages:
                storages[folder] = len(entries)
                entries.append(_Entry(folder, 1, children=[]))
                entries[parent].children.append(storages[folder])
            parent = storages[folder]
        entries[parent].children.append(len(entries))
        entries.append(_Entry(name, 2, data=streams[path]))
    for entry in entries:
        if len(entry.name) > 31:
            raise ValueError(f"compound-file names have at most 31 characters: {entry.name}")
        if entry.children is not None:
            entry.child = _tree(entries, entry.children)

    # Small streams live in the mini stream (64-byte sectors), the others in 512-byte sectors.
    mini_stream, minifat = bytearray(), []
    big: list[_Entry] = []
    for entry in entries:
        if entry.kind != 2:
            continue
        entry.size = len(entry.data)
        if entry.size < MINI_CUTOFF:
            count = -(-entry.size // MINI_SECTOR)
            entry.start = len(minifat) if count else ENDOFCHAIN
            minifat += [len(minifat) + n + 1 for n in range(count - 1)] + [ENDOFCHAIN] * bool(count)
            mini_stream += entry.data.ljust(count * MINI_SECTOR, b"\0")
        else:
            big.append(entry)

    def sectors(n_bytes: int) -> int:
        return -(-n_bytes // SECTOR)

    n_dir = sectors(len(entries) * 128)
    n_minifat = sectors(len(minifat) * 4)
    n_mini = sectors(len(mini_stream))
    n_big = [sectors(len(e.data)) for e in big]
    n_fat = 1
    while n_fat * (SECTOR // 4) < n_fat + n_dir + n_minifat + n_mini + sum(n_big):
        n_fat += 1
    if n_fat > _HEADER_FAT_SLOTS:
        raise ValueError("too large for a compound file without DIFAT sectors")

    fat = [FATSECT] * n_fat
    body = bytearray()

    def place(data: bytes, count: int) -> int:
        if not count:
            return ENDOFCHAIN
        start = len(fat)
        fat.extend(start + n + 1 for n in range(count - 1))
        fat.append(ENDOFCHAIN)
        body.extend(data.ljust(count * SECTOR, b"\0"))
        return start

    dir_start = place(b"", n_dir)  # the directory, filled in below
    minifat_start = place(b"".join(struct.pack("<I", v) for v in minifat), n_minifat)
    entries[0].start = place(bytes(mini_stream), n_mini)
    entries[0].size = len(mini_stream)
    for entry, count in zip(big, n_big, strict=True):
        entry.start = place(entry.data, count)
    fat.extend([FREESECT] * (n_fat * (SECTOR // 4) - len(fat)))

    directory = bytearray()
    for entry in entries:
        name = entry.name.encode("utf-16-le") + b"\0\0"
        directory += struct.pack(
            "<64sHBBIII16sI8s8sIQ", name, len(name), entry.kind, 0 if entry.red else 1,
            entry.left, entry.right, entry.child, b"\0" * 16, 0, b"\0" * 8, b"\0" * 8,
            entry.start if entry.kind != 1 else 0, entry.size)
    while len(directory) < n_dir * SECTOR:  # unused entries
        directory += struct.pack("<64sHBBIII16sI8s8sIQ", b"", 0, 0, 0, NOSTREAM, NOSTREAM,
                                 NOSTREAM, b"\0" * 16, 0, b"\0" * 8, b"\0" * 8, 0, 0)
    body[:len(directory)] = directory  # the directory's sectors come first

    header = struct.pack(
        "<8s16sHHHHH6sIIIIIIIII", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", b"\0" * 16,
        0x003E, 0x0003, 0xFFFE, 9, 6, b"\0" * 6, 0, n_fat, dir_start, 0,
        MINI_CUTOFF, minifat_start, n_minifat, ENDOFCHAIN, 0)
    header += b"".join(struct.pack("<I", i) for i in range(n_fat))
    header += struct.pack("<I", FREESECT) * (_HEADER_FAT_SLOTS - n_fat)
    fat_bytes = b"".join(struct.pack("<I", v) for v in fat)
    return bytes(header + fat_bytes + body)
