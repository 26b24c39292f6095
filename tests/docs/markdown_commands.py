"""The command lines a reader of README.md and docs/ is told to type, read out of the Markdown.

Two kinds:

- **block** commands: each line of a fenced code block whose language is a shell's (`bash`,
  `sh`, `shell`, `console`, `bat`, `cmd`), a trailing comment cut (`# ...`, `:: ...`), a line
  ending in a backslash joined to the next;
- **inline** commands: a `code span` in the prose that starts like a command
  (`rates-xl templates list`, `pip install ".[team]"`, `python -m bench soak`).

A page's block commands are followed in order, like a reader would: `tests/docs/
test_documented_commands.py` runs them; the pip ones are installed or resolved in fresh virtual
environments by `tests/docs/test_install_commands.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL_LANGUAGES = {"bash", "sh", "shell", "console", "bat", "cmd"}
#: How an inline code span starts when it is a command a reader types.
_COMMAND_START = re.compile(r"^(rates-xl [a-z]|pip install |python -m |python bench/|mkdocs |docker |redis-server"
                            r"|set [A-Z_]+=|setx |export [A-Z_]+=|curl )")
_FENCE = re.compile(r"^\s*```\s*([\w+-]*)")


@dataclass(frozen=True)
class Documented:
    page: str  # repository path of the Markdown file
    line: int  # where the command starts
    text: str  # the command as written, its trailing comment cut
    block: int | None  # the page's shell block it belongs to (0, 1, ...); None: inline in prose

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[str]:
    return ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))]


def documented(page: str) -> list[Documented]:
    """Every command of one page, blocks and inline, in reading order."""
    found: list[Documented] = []
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    language: str | None = None  # inside a fence: its language ("" when none)
    blocks = -1
    pending: tuple[int, str] | None = None  # a line continued with a backslash
    prose: list[tuple[int, str]] = []  # the paragraph being read (a code span may wrap)
    for number, line in enumerate(lines, start=1):
        fence = _FENCE.match(line)
        if language is None and not fence:
            if line.strip():
                prose.append((number, line))
                continue
            found += _inline(page, prose)
            prose = []
            continue
        found += _inline(page, prose)
        prose = []
        if fence and language is None:
            language = fence[1].lower()
            if language in SHELL_LANGUAGES:
                blocks += 1
            continue
        if fence:
            language = None
            continue
        if language not in SHELL_LANGUAGES:
            continue
        text = _without_comment(line, language).strip()
        if pending is not None:
            start, before = pending
            text = f"{before} {text}".strip()
            number = start
            pending = None
        if text.endswith("\\"):
            pending = (number, text[:-1].strip())
            continue
        if text:
            found.append(Documented(page, number, text, blocks))
    return found + _inline(page, prose)


def _inline(page: str, paragraph: list[tuple[int, str]]) -> list[Documented]:
    """The commands in one paragraph's code spans (a span may run over a line break)."""
    if not paragraph:
        return []
    text = " ".join(line.strip() for _number, line in paragraph)
    starts = [(len(" ".join(line.strip() for _n, line in paragraph[:i])), number)
              for i, (number, _line) in enumerate(paragraph)]
    found = []
    for match in re.finditer(r"`([^`]+)`", text):
        span = " ".join(match[1].split())
        if _COMMAND_START.match(span):
            line = max(number for offset, number in starts if offset <= match.start())
            found.append(Documented(page, line, span, None))
    return found


def _without_comment(line: str, language: str) -> str:
    """The line without its trailing comment: `# ...` after white space (bash), `:: ...` (bat)."""
    if language in ("bat", "cmd"):
        return line.split("::", 1)[0] if "::" in line else line
    quoted = False
    for i, char in enumerate(line):
        if char in "\"'":
            quoted = not quoted
        if char == "#" and not quoted and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def every_command() -> list[Documented]:
    return [command for page in pages() for command in documented(page)]
