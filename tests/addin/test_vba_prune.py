"""The add-in's VBA carries only what it calls (issue 17, item 11).

- olevba's suspicious keywords in the built add-in are exactly the ones justified in
  addin/README.md (a new one fails here);
- no dangling reference: every name of xlwings.bas (procedure or declaration) that the built
  project's code mentions, string literals included (`Application.Run "Name"`,
  `CallByName`), is defined in the project: a missing one would be a compile error in Excel;
  checked with a lexer written here, not the pruner's;
- the pruner and the conditional-compilation resolver on small modules.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rates_xl.addin.classic import vba, vbaprune

README = Path(vba.__file__).resolve().parents[1] / "README.md"


@pytest.fixture(scope="module")
def modules(built) -> dict[str, str]:
    return {m.name: m.source for m in built.modules}


# -- olevba -----------------------------------------------------------------------------------
def _justified() -> set[str]:
    """The keywords of the README's table "What the VBA carries, and why"."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### What the VBA carries, and why"):]
    section = section[:section.index("\n### ")]
    found = set()
    for row in re.findall(r"^\| (.+?) \| .+ \| .+ \|$", section, re.M):
        if row.startswith("`"):
            found.update(re.findall(r"`([^`]+)`", row))
    return found


def test_olevba_lists_exactly_the_justified_keywords(built):
    olevba = pytest.importorskip("oletools.olevba", reason="oletools (the dev extra) is not installed")
    parser = olevba.VBA_Parser("rates_xl.xlam", data=built.xlam)
    flagged = {keyword for kind, keyword, _ in parser.analyze_macros() if kind in ("Suspicious", "AutoExec")}
    parser.close()
    # olevba reports a keyword in the case it met first; the README names it as VBA spells it.
    assert {k.lower() for k in flagged} == {k.lower() for k in _justified()}, (
        f"olevba flags {sorted(flagged)}; addin/README.md justifies {sorted(_justified())}")


def test_what_the_issue_named_is_gone(modules):
    code = "\n".join(_code(text) for text in modules.values())
    for word in ("Kill", "VBProject", "VBComponents", "MacScript", "AppleScriptTask", "FileCopy",
                 "MkDir", "cmd.exe /C", ".Run", "Shell.Application", "libc.dylib"):
        assert word.lower() not in code.lower(), word
    assert 'CreateObject("WScript.Shell")' in code  # the one left, for ExpandEnvironmentStrings


# -- no dangling reference --------------------------------------------------------------------
_CODE = re.compile(r'^((?:[^"\']|"(?:[^"]|"")*")*)')  # up to a ' outside a string
_DEFINITION = re.compile(
    r"^\s*(?:(?:Public|Private|Friend|Global)\s+)?(?:Static\s+)?(?:Declare\s+(?:PtrSafe\s+)?)?"
    r"(?:Sub|Function|Property\s+(?:Get|Let|Set)|Const)\s+(\w+)", re.I | re.M)
_VARIABLE = re.compile(r"^(?:Public|Private|Dim|Global)\s+(\w+)\s+As\b", re.I | re.M)


def _code(text: str) -> str:
    return "\n".join(_CODE.match(line).group(1) for line in text.replace("\r\n", "\n").split("\n"))


def _defined(text: str) -> set[str]:
    code = _code(text)
    return {n.lower() for n in _DEFINITION.findall(code) + _VARIABLE.findall(code)}


def _xlwings_names() -> set[str]:
    """Every procedure and declaration of xlwings.bas, as installed and as patched."""
    _, raw = vba.installed_xlwings_bas()
    return _defined(raw) | _defined(vba.xlwings_module())


def dangling(modules: dict[str, str]) -> set[str]:
    defined = set().union(*(_defined(text) for text in modules.values()))
    mentioned = set().union(*({w.lower() for w in re.findall(r"[A-Za-z_]\w*", _code(text))}
                              for text in modules.values()))
    return (mentioned & _xlwings_names()) - defined


def test_every_name_the_project_uses_is_defined(modules):
    assert "ParentFolder" in vba.procedures(modules["xlwings"])  # what the checker below must see
    assert dangling(modules) == set()


def test_the_check_finds_a_procedure_cut_too_much(modules):
    procedures = vba.procedures(modules["xlwings"])
    for name in ("ParentFolder", "XLPy", "ExpandEnvironmentStrings", "RunPython"):
        start = modules["xlwings"].index(f"Function {name}(")
        end = modules["xlwings"].index("End Function", start) + len("End Function")
        cut = dict(modules, xlwings=modules["xlwings"][:start] + modules["xlwings"][end:])
        assert dangling(cut) == {name.lower()}, name
    assert "KillPy" not in procedures  # what nobody calls is gone


def test_a_name_in_a_string_counts_as_a_call(modules):
    """Application.Run "Name" and CallByName name their target in a string: a procedure the
    pruner dropped, named that way, is reported."""
    extra = 'Sub X()\n    Application.Run "KillPy"\nEnd Sub\n'
    assert dangling(dict(modules, Extra=extra)) == {"killpy"}


# -- the pruner -------------------------------------------------------------------------------
MODULE = """Attribute VB_Name = "m"
' licence text
#If VBA7 Then
    Private Declare PtrSafe Function Native Lib "x.dll" (ByVal a As Long) As Long
    Private Declare PtrSafe Function Unused Lib "x.dll" () As Long
#Else
    Private Declare Function Native Lib "x.dll" (ByVal a As Long) As Long
#End If
Private Const DLL_NAME As String = "x.dll"
Private Const ORPHAN As String = "y"
Private mState As Long, mOther As Long

Function Entry()
    ' a comment naming Dropped does not keep it
    Entry = Helper() + Native(1)
End Function

Private Function Helper()
    Helper = CallByName(Nothing, "ByName", VbMethod) & DLL_NAME  ' trailing comment
    Application.Run "'book.xlam'!ByRun"
    mState = 1
End Function

Function ByName()
End Function

Sub ByRun()
End Sub

Sub Dropped()
    Kill "x"
    ORPHAN2 = ORPHAN
End Sub
"""


def test_prune_keeps_what_is_reachable_and_the_declarations_it_names():
    out = vbaprune.prune(MODULE, ["Sub Caller()\n    x = Entry()\nEnd Sub"])
    assert list(vba.procedures(out)) == ["Entry", "Helper", "ByName", "ByRun"]
    assert "Kill" not in out and "ORPHAN" not in out and "Unused" not in out
    assert out.count("Function Native Lib") == 2 and "DLL_NAME As String" in out
    assert "Private mState As Long, mOther As Long" in out  # one statement: kept whole
    assert "' licence text" in out  # the leading comments stay
    assert "a comment naming" not in out and "trailing comment" not in out
    assert vbaprune.prune(MODULE, ["Sub Caller()\n    x = Entry()\nEnd Sub"]) == out  # deterministic


def test_prune_keeps_named_entry_points_and_drops_empty_blocks():
    out = vbaprune.prune(MODULE, [], entry_points=["Dropped"])
    assert list(vba.procedures(out)) == ["Dropped"] and "ORPHAN As String" in out
    assert "Native" not in out and "#If VBA7" not in out  # the block became empty


def test_a_module_it_does_not_understand_stops_the_build():
    with pytest.raises(vbaprune.VbaStructureError, match="between procedures"):
        vbaprune.prune(MODULE.replace("Sub ByRun()", "x = 1\nSub ByRun()"), [])
    with pytest.raises(vbaprune.VbaStructureError, match="no End line"):
        vbaprune.prune(MODULE.rstrip().rpartition("\n")[0], [])
    _, text = vba.installed_xlwings_bas()
    broken = text.replace("Function XLPy()", "#If Win64 Then\nFunction XLPy()\n#End If\nFunction Z()", 1)
    with pytest.raises(vba.VbaSourceError, match="vbaprune"):
        vba.xlwings_module("9.9", broken, callers=[])


@pytest.mark.parametrize("source, expected", [
    ("#If Mac Then\nA\n#Else\nB\n#End If", "B"),
    ("#If Not Mac Then\nA\n#End If", "A"),
    ("#If Mac Then ' a comment\nA\n#End If\nC", "C"),
    ('#If App = "Microsoft Excel" Then\nA\n#ElseIf App = "Microsoft Word" Then\nB\n#Else\nC\n#End If', "A"),
    ('#If App = "Microsoft Word" Then\nA\n#ElseIf App = "Microsoft Access" Then\nB\n#End If', ""),
    ("#If VBA7 Then\n#If Mac Then\nA\n#End If\n#If Win64 Then\nB\n#End If\n#End If",
     "#If VBA7 Then\n#If Win64 Then\nB\n#End If\n#End If"),
    ("#If MAC_OFFICE_VERSION >= 15 Then\nA\n#Else\nB\n#End If", "#If MAC_OFFICE_VERSION >= 15 Then\nA\n#Else\nB\n#End If"),
    ("#If Win64 Then\nA\n#ElseIf Mac Then\nB\n#End If", "#If Win64 Then\nA\n#ElseIf Mac Then\nB\n#End If"),
])
def test_conditional_compilation_is_decided_only_where_known(source, expected):
    assert vbaprune.resolve_conditionals(source) == expected


def test_the_xlwings_module_has_no_mac_or_other_office_branch(modules):
    directives = re.findall(r"^\s*#(?:If|ElseIf)\b.*$", modules["xlwings"], re.M)
    assert directives and all(re.search(r"\b(VBA7|Win64)\b", d) for d in directives), directives
