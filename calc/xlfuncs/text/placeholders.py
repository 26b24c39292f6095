"""TEXT of a number in a section holding `?`, the digit placeholder that pads with a space:
"? adds spaces for insignificant zeros on either side of the decimal point so that decimal
points align" (Microsoft, "Number format codes"). The bridged `formulas` TEXT wrote the `?`
as it is (TEXT(1.1,"|??.?|") was "|??.1?|", Excel's "| 1.1|"): 38 cells of apache/poi's
Excel-made NumberFormatTests.xlsx listed, now Excel's (its fractions' `?` are not laid out here).

A section is laid out here when it holds `?` among its own characters and only placeholders
(`0 # ?`), a point, thousands and scaling commas, `%` and literal text: the integer digits
right-aligned on the integer placeholders (more digits than placeholders all shown), each
position without a digit `0` for 0, a space for ?, nothing for #; the decimals rounded as
Excel rounds (numbers.py `rounded`), each insignificant trailing zero the same; a thousands
separator beside a space-padded position a space too (TEXT(1234567,"?,?????????") is
"    1,234,567"). A fraction, an exponent, a fill (`*`) or a bracketed code (`[$€-407]`) is
left to the caller (None).
"""

from __future__ import annotations

from rates_xl.calc.xlfuncs.text.numbers import rounded

_PLACEHOLDERS = "0#?"
#: What a placeholder shows where the number has no digit for it.
_PADDING = {"0": "0", "?": " ", "#": ""}


def own_characters(section: str) -> list[tuple[int, str]]:
    """(position, character) of the format's own characters: not quoted, escaped or bracketed."""
    out, i, quoted, bracket = [], 0, False, False
    while i < len(section):
        ch = section[i]
        if ch == "\\" and not quoted:
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif ch == "[" and not quoted:
            bracket = True
        elif ch == "]" and bracket:
            bracket = False
        elif not quoted and not bracket:
            out.append((i, ch))
        i += 1
    return out


def pieces(section: str) -> list[tuple[str | None, str]]:
    """The section in pieces, in order: (None, the text shown) for quoted text and an escaped
    character, (the character, the character) for each of its own (fractions.py and
    exponents.py read their sections so)."""
    out: list[tuple[str | None, str]] = []
    i = 0
    while i < len(section):
        ch = section[i]
        if ch == "\\" and i + 1 < len(section):
            out.append((None, section[i + 1]))
            i += 2
            continue
        if ch == '"':
            end = section.find('"', i + 1)
            end = len(section) if end < 0 else end
            out.append((None, section[i + 1:end]))
            i = end + 1
            continue
        out.append((ch, ch))
        i += 1
    return out


def scaling_commas(own: list[tuple[int, str]], last: int) -> list[int]:
    """The positions of the commas right after the last digit placeholder (at `last`), each
    scaling the number by 1,000 ("#,##0," shows thousands), among a format's own characters;
    and those right after the last integer placeholder, before the point (apache/poi's
    Excel-made NumberFormatTests.xlsx: TEXT(1234567,"#,.#,") is "1.2")."""
    scaling: list[int] = []
    for i, ch in own:
        if i > last and ch == ",":
            if scaling and i != scaling[-1] + 1 or not scaling and i != last + 1:
                break
            scaling.append(i)
    return _before_point(own) + scaling


def _before_point(own: list[tuple[int, str]]) -> list[int]:
    """The commas between the last integer placeholder and the point ("#,." of "#,.#,")."""
    point = next((i for i, ch in own if ch == "."), None)
    if point is None:
        return []
    whole = [i for i, ch in own if ch in _PLACEHOLDERS and i < point]
    if not whole:
        return []
    found = [i for i, ch in own if whole[-1] < i < point and ch == ","]
    between = [ch for i, ch in own if whole[-1] < i < point]
    return found if found and all(ch == "," for ch in between) else []


def laid_out(number: float, section: str) -> str | None:
    """`number` in `section` as Excel's TEXT writes it, or None for a section this does not lay out."""
    own = own_characters(section)
    chars = {i: ch for i, ch in own}
    letters = "".join(ch for _, ch in own).lower()
    if "?" not in letters or any(ch in letters for ch in "/e*@ymdhs") or "[" in section:
        return None
    holders = [i for i, ch in own if ch in _PLACEHOLDERS]
    point = next((i for i, ch in own if ch == "."), None)
    whole = [i for i in holders if point is None or i < point]
    decimals = [i for i in holders if point is not None and i > point]
    scaling = scaling_commas(own, holders[-1])
    separators = {i for i, ch in own if ch == "," and whole and whole[0] < i < whole[-1]}
    percent = letters.count("%")
    exact = rounded(abs(number) * 100 ** percent / 1000 ** len(scaling), len(decimals))
    integer, _, fraction = format(exact, "f").partition(".")
    digits = "" if integer == "0" else integer
    # What each integer position shows, right to left: its digit, else its placeholder's padding.
    cells = []
    for k in range(max(len(whole), len(digits))):
        holder = chars[whole[-1 - k]] if k < len(whole) else "#"
        cells.append(digits[-1 - k] if k < len(digits) else _PADDING[holder])
    written = []
    for k, cell in enumerate(cells):
        if separators and k and k % 3 == 0:  # a separator before this group, as its left cell shows
            written.append("," if cell not in (" ", "") else cell and " ")
        written.append(cell)
    integer_text = "".join(reversed(written))
    significant = len(fraction.rstrip("0"))
    shown = {i: fraction[j] if j < significant else _PADDING[chars[i]] for j, i in enumerate(decimals)}
    out, i, quoted = [], 0, False
    dropped = set(scaling) | separators
    while i < len(section):
        ch = section[i]
        if ch == "\\" and not quoted and i + 1 < len(section):
            out.append(section[i + 1])
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif quoted:
            out.append(ch)
        elif whole and i == whole[0]:
            out.append(integer_text)
        elif i in whole or i in dropped:
            pass
        elif i in shown:
            out.append(shown[i])
        elif i == point and not whole:
            out.append(integer_text + ".")
        else:
            out.append(ch)
        i += 1
    text = "".join(out)
    return f"-{text}" if number < 0 and exact else text
