"""The calls of given functions in a formula's tokens (openpyxl's Tokenizer), with their
arguments: what a rewriting that routes one function's calls needs (indexing.py)."""

from __future__ import annotations

from typing import Any


def calls(tokens: list[Any], names: frozenset[str]) -> list[tuple[int, int, list[list[Any]]]]:
    """Each call of a function in `names` ("INDEX(", upper case, with the parenthesis): its
    opening token's index, its closing token's, its arguments' tokens (no white space; a nested
    call's own arguments are not its caller's), sorted by where they open."""
    found = []
    stack: list[tuple[bool, int, list[list[Any]]]] = []  # per open call, parenthesis, array

    def owner() -> list[list[Any]] | None:
        return next((frame[2] for frame in reversed(stack) if frame[0]), None)

    for index, token in enumerate(tokens):
        if token.type == "WHITE-SPACE":
            continue
        if token.subtype == "OPEN" and token.type in ("FUNC", "PAREN", "ARRAY"):
            if (arguments := owner()) is not None:
                arguments[-1].append(token)
            ours = token.type == "FUNC" and token.value.upper() in names
            stack.append((ours, index, [[]]))
        elif token.subtype == "CLOSE" and token.type in ("FUNC", "PAREN", "ARRAY") and stack:
            ours, start, arguments = stack.pop()
            if ours:
                found.append((start, index, arguments))
            if (outer := owner()) is not None:
                outer[-1].append(token)
        elif token.type == "SEP" and token.subtype == "ARG" and stack and stack[-1][0]:
            stack[-1][2].append([])
        elif (arguments := owner()) is not None:
            arguments[-1].append(token)
    return sorted(found)
