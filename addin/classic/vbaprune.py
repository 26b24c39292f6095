"""The add-in's xlwings module cut down to what the add-in calls.

xlwings.bas is written for every use of xlwings: RunPython through a console, frozen
executables, importing UDFs into a workbook, config sheets, Word, Access, PowerPoint, Mac.
The add-in uses a small part of it (the UDF server, its settings file, the ribbon's
RunPython). The rest carries what antivirus heuristics and olevba score highest (a command
shell, file deletion, editing the VBA project, AppleScript), so it goes, in two steps, both deterministic (same xlwings, same bytes):

1. `resolve_conditionals`: the conditional-compilation blocks whose conditions are known for
   this add-in, `Mac` (False: the classic add-in is Windows desktop Excel; xlwings' UDF DLL
   exists on Windows only) and `App` ("Microsoft Excel"), keep only the branch Excel on
   Windows compiles. Blocks on anything else (`VBA7`, `Win64`) stay as they are.
2. `prune`: the procedures reachable from the entry points (every procedure of the add-in's
   other modules: the UDF wrappers, the ribbon callbacks, RatesRegister, plus
   the named `entry_points`), without their comments, and the module-level declarations the
   kept code names. The module's leading comments (xlwings' licence) stay.

"Calls" are found conservatively: any word of a kept procedure's code that names a
procedure, *string literals included* (`Application.Run "Name"`, `CallByName obj, "Name"`,
`OnAction = "Name"` keep their target), comments excluded. A word that only looks like a
call (a variable with a procedure's name) keeps one procedure too many, never too few:
a missing one would be a compile error in Excel, which stops every RATES_ function.

Written by hand: no Python library parses VBA modules (oletools extracts and scans them but
has no procedure or call model); the subset needed here is lines, procedure headers and
`End Sub`/`End Function`, conditional directives and string/comment lexing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from rates_xl.errors import TaskError

#: What conditional compilation knows about the host the add-in runs in (see above).
KNOWN_CONSTANTS: dict[str, object] = {"mac": False, "app": "Microsoft Excel"}

_DIRECTIVE = re.compile(r"^\s*#\s*(If|ElseIf|Else|End\s*If)\b(.*)$", re.IGNORECASE)
_PROCEDURE_START = re.compile(
    r"^\s*(?:(?:Public|Private|Friend)\s+)?(?:Static\s+)?(Sub|Function|Property\s+(?:Get|Let|Set))\s+(\w+)",
    re.IGNORECASE)
_PROCEDURE_END = re.compile(r"^\s*End\s+(Sub|Function|Property)\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z_]\w*")
# Module-level declarations: `[Private|Public] Declare [PtrSafe] Function|Sub NAME`,
# `[Private|Public|Global] Const NAME`, `Private|Public|Dim|Global NAME [As ...], NAME2 ...`.
_DECLARE = re.compile(r"^\s*(?:(?:Public|Private)\s+)?Declare\s+(?:PtrSafe\s+)?(?:Function|Sub)\s+(\w+)", re.I)
_CONST = re.compile(r"^\s*(?:(?:Public|Private|Global)\s+)?Const\s+(\w+)", re.I)
_VARIABLES = re.compile(r"^\s*(?:Public|Private|Dim|Global)\s+(?!Declare\b|Const\b|Sub\b|Function\b"
                        r"|Property\b|Type\b|Enum\b|Event\b)(.*)$", re.I)


class VbaStructureError(TaskError):
    """The module does not have the shape this pruner understands; the build must stop."""


# -- lexing -----------------------------------------------------------------------------------
def code_of(line: str) -> str:
    """The line without its comment (a `'` outside a string); strings kept."""
    in_string = False
    for i, char in enumerate(line):
        if char == '"':
            in_string = not in_string  # a doubled "" toggles twice: still inside
        elif char == "'" and not in_string:
            return line[:i]
    return line


def words(text: str) -> set[str]:
    """Every identifier-like word of the code, lower case (VBA is case-insensitive), the
    words inside string literals included; comments left out."""
    found: set[str] = set()
    for line in text.splitlines():
        found.update(w.lower() for w in _WORD.findall(code_of(line)))
    return found


def logical_lines(lines: list[str]) -> list[list[str]]:
    """Physical lines grouped into statements (a line ending in " _" continues)."""
    groups: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        current.append(line)
        if not code_of(line).rstrip().endswith(" _"):
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return groups


# -- conditional compilation ------------------------------------------------------------------
@dataclass
class _Block:
    branches: list[tuple[str, list]] = field(default_factory=list)  # (directive line, items)
    end: str = ""


def _parse_blocks(lines: list[str]) -> list:
    """Lines and nested `#If` blocks, as a tree."""
    root: list = []
    stack: list[_Block] = []
    for line in lines:
        match = _DIRECTIVE.match(line)
        keyword = match.group(1).lower().replace(" ", "") if match else ""
        if keyword == "if":
            block = _Block([(line, [])])
            (stack[-1].branches[-1][1] if stack else root).append(block)
            stack.append(block)
        elif keyword in ("elseif", "else"):
            if not stack:
                raise VbaStructureError(f"#{match.group(1)} without #If: {line.strip()}")
            stack[-1].branches.append((line, []))
        elif keyword == "endif":
            if not stack:
                raise VbaStructureError(f"#End If without #If: {line.strip()}")
            stack.pop().end = line
        else:
            (stack[-1].branches[-1][1] if stack else root).append(line)
    if stack:
        raise VbaStructureError(f"#If without #End If: {stack[-1].branches[0][0].strip()}")
    return root


def _condition(directive: str, known: dict[str, object]) -> bool | None:
    """The value of an `#If`/`#ElseIf` condition when it only involves known constants."""
    match = _DIRECTIVE.match(code_of(directive))
    keyword = match.group(1).lower()
    if keyword == "else":
        return True
    text = re.sub(r"\s+Then\s*$", "", match.group(2).strip(), flags=re.I).strip()
    negate = False
    if text.lower().startswith("not "):
        negate, text = True, text[4:].strip()
    name, _, value = (part.strip() for part in text.partition("="))
    if name.lower() not in known or not re.fullmatch(r"\w+", name):
        return None
    if value:
        if not (value.startswith('"') and value.endswith('"')):
            return None
        result = known[name.lower()] == value[1:-1]
    elif isinstance(known[name.lower()], bool):
        result = bool(known[name.lower()])
    else:
        return None
    return result != negate


def _emit(items: list, known: dict[str, object], out: list[str]) -> None:
    for item in items:
        if isinstance(item, str):
            out.append(item)
            continue
        values = [_condition(line, known) for line, _ in item.branches]
        chosen = None
        for index, value in enumerate(values):
            if value is None:
                break  # an unknown condition before a true one: keep the block as it is
            if value:
                chosen = index
                break
        else:
            chosen = -1  # every condition known and false, no #Else: nothing compiles
        if chosen is None:
            for line, body in item.branches:
                out.append(line)
                _emit(body, known, out)
            out.append(item.end)
        elif chosen >= 0:
            _emit(item.branches[chosen][1], known, out)


def resolve_conditionals(text: str, known: dict[str, object] | None = None) -> str:
    """`text` with each `#If` block decided by `known` replaced by the branch that compiles."""
    out: list[str] = []
    _emit(_parse_blocks(text.split("\n")), KNOWN_CONSTANTS if known is None else known, out)
    return "\n".join(out)


# -- procedures and declarations --------------------------------------------------------------
@dataclass(frozen=True)
class Procedure:
    name: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Module:
    """A standard module split into its declarations section and its procedures."""

    declarations: tuple[str, ...]  # every line before the first procedure
    procedures: tuple[Procedure, ...]


def split_module(text: str) -> Module:
    lines = text.split("\n")
    declarations: list[str] = []
    procedures: list[Procedure] = []
    current: list[str] | None = None
    name = ""
    for line in lines:
        if current is not None:
            current.append(line)
            if _PROCEDURE_END.match(code_of(line)):
                procedures.append(Procedure(name, tuple(current)))
                current = None
            continue
        start = _PROCEDURE_START.match(code_of(line))
        if start:
            name, current = start.group(2), [line]
        elif not procedures:
            declarations.append(line)
        elif code_of(line).strip():
            # Between procedures only comments and blank lines are expected; anything else
            # (a directive left around a procedure, a stray statement) is not understood.
            raise VbaStructureError(f"unexpected line between procedures: {line.strip()}")
    if current is not None:
        raise VbaStructureError(f"{name} has no End line")
    names = [p.name.lower() for p in procedures]
    if len(names) != len(set(names)):
        raise VbaStructureError("a procedure is defined twice: "
                                + ", ".join(sorted({n for n in names if names.count(n) > 1})))
    return Module(tuple(declarations), tuple(procedures))


def without_comments(lines: Iterable[str]) -> list[str]:
    """The lines without their comments; a line that was only a comment goes.

    olevba and antivirus heuristics read comments as code: xlwings' own ("Call a command
    window ...", "Expand environment variables") would add keywords the code does not use.
    """
    out = []
    for line in lines:
        code = code_of(line).rstrip()
        if code.strip() or not line.strip():
            out.append(code)
    return out


def declared_names(statement: str) -> set[str]:
    """The names a module-level declaration statement declares (lower case); none for other lines."""
    code = code_of(statement).strip()
    for pattern in (_DECLARE, _CONST):
        match = pattern.match(code)
        if match:
            return {match.group(1).lower()}
    match = _VARIABLES.match(code)
    if match:
        names = set()
        for part in match.group(1).split(","):
            name = re.match(r"\s*(?:WithEvents\s+)?(\w+)", part, re.I)
            if name:
                names.add(name.group(1).lower())
        return names
    return set()


def reachable(module: Module, roots: Iterable[str]) -> set[str]:
    """Lower-case names of the procedures reachable from `roots` (words naming a procedure)."""
    bodies = {p.name.lower(): words("\n".join(p.lines)) for p in module.procedures}
    todo = [name for name in roots if name in bodies]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(word for word in bodies[name] if word in bodies and word not in seen)
    return seen


def prune(text: str, callers: Iterable[str], entry_points: Iterable[str] = ()) -> str:
    """The module `text` with only the procedures reachable from the code of `callers` (the
    other modules' sources) and from `entry_points` (names of procedures or declarations
    to keep though nothing calls them), and the declarations they name."""
    module = split_module(text)
    used_outside = set().union(*(words(source) for source in callers)) if callers else set()
    used_outside |= {e.lower() for e in entry_points}
    kept = reachable(module, used_outside)
    kept_procedures = [p for p in module.procedures if p.name.lower() in kept]
    referenced = used_outside | set().union(*(words("\n".join(p.lines)) for p in kept_procedures))
    declarations = _prune_declarations(list(module.declarations), referenced)
    out = declarations
    for procedure in kept_procedures:
        out += [*without_comments(procedure.lines), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _prune_declarations(lines: list[str], referenced: set[str]) -> list[str]:
    """Drop each declaration statement none of whose names is referenced (by the kept code or
    a kept declaration, e.g. a Const used in another), then any `#If` block left empty."""
    statements = logical_lines(lines)
    keep = [True] * len(statements)
    changed = True
    while changed:
        changed = False
        live = set(referenced)
        for i, statement in enumerate(statements):
            if keep[i]:
                names = declared_names(" ".join(statement))
                # A declaration's own name is not a use of it.
                live |= words("\n".join(statement)) - names
        for i, statement in enumerate(statements):
            names = declared_names(" ".join(statement))
            if keep[i] and names and not names & live:
                keep[i], changed = False, True
    kept = [line for i, statement in enumerate(statements) if keep[i] for line in statement]
    return _drop_empty_blocks(kept)


def _drop_empty_blocks(lines: list[str]) -> list[str]:
    def has_code(items: list) -> bool:
        return any(has_code_in_block(i) if isinstance(i, _Block) else bool(code_of(i).strip())
                   for i in items)

    def has_code_in_block(block: _Block) -> bool:
        return any(has_code(body) for _, body in block.branches)

    def emit(items: list, out: list[str]) -> None:
        for item in items:
            if isinstance(item, str):
                out.append(item)
            elif has_code_in_block(item):
                for line, body in item.branches:
                    out.append(line)
                    emit(body, out)
                out.append(item.end)

    out: list[str] = []
    emit(_parse_blocks(lines), out)
    return out
