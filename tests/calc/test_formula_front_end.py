"""The formula front end (calc/formula): one tokenizer, one tree, one ordered list of passes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rates_xl.calc.formula.passes import EVERY, NAMES, ORDINARY, PASSES, WRITTEN, Site, one, rewrite
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.tokens import INFIX, OTHER, FormulaError, range_operands, tokenize

ROOT = Path(__file__).resolve().parents[2]


def test_every_pass_says_what_excel_does_and_what_proves_it():
    names = [p.name for p in PASSES]
    assert len(names) == len(set(names))
    proof = re.compile(r"\w+\.xlsx|tests/\w+")
    for p in PASSES:
        assert p.cells in (NAMES, EVERY, ORDINARY, "array formulas", WRITTEN), p.name
        assert len(p.doc) > 120 and proof.search(p.doc), f"{p.name}: say which Excel behaviour and which cell proves it"
        assert all(word == word.upper() for word in p.needs), p.name


def test_the_one_tokenizer_counts_characters_and_covers_the_formula():
    for text in ('=IF("ß€"=A1,B1&"Ü",C1)', "=('Financial Model'!E85)/'Financial Model'!#REF!", "= SUM( A1 , B2 )",
                 "=A1:B2  C3", "=LAMBDA(x,x+\"ß\")(2)"):
        tokens = tokenize(text)
        assert "".join(text[t.start:t.end] for t in tokens) == text[1:], text
        assert all(text[t.start:t.end].strip().endswith(t.text.strip()) for t in tokens), text


@pytest.mark.parametrize(("formula", "expected"), [
    # A dead reference: the tokenizer leaves out its sheet, which belongs to the #REF! token.
    ("='Model'!#REF!+1", [("Operand", "Error", "#REF!", 1, 14), ("OpInfix", "None", "+", 14, 15),
                          ("Operand", "Number", "1", 15, 16)]),
    # Offsets in characters, not UTF-8 bytes ("ß€" is 5 bytes, 2 characters).
    ("=\"ß€\"&'Käse'!A1", [("Operand", "Text", '"ß€"', 1, 5), ("OpInfix", "None", "&", 5, 6),
                           ("Operand", "Range", "'Käse'!A1", 6, 15)]),
    # A call, a space after a separator, an array constant's rows and columns, a prefix and a postfix.
    ("=_xlfn.XLOOKUP(A1, {1;2},-B1%)", [
        ("Func", "Open", "_xlfn.XLOOKUP(", 1, 15), ("Operand", "Range", "A1", 15, 17), ("Sep", "Arg", ",", 17, 18),
        ("Whitespace", "None", " ", 18, 19), ("Array", "Open", "{", 19, 20), ("Operand", "Number", "1", 20, 21),
        ("Sep", "Row", ";", 21, 22), ("Operand", "Number", "2", 22, 23), ("Array", "Close", "}", 23, 24),
        ("Sep", "Arg", ",", 24, 25), ("OpPrefix", "None", "-", 25, 26), ("Operand", "Range", "B1", 26, 28),
        ("OpPostfix", "None", "%", 28, 29), ("Func", "Close", ")", 29, 30)]),
])
def test_every_field_of_a_token(formula, expected):
    """Each token's kind, subtype, text and character offsets, written out by hand."""
    tokens = tokenize.__wrapped__(formula)  # read afresh, not from the cache
    assert [tuple(t) for t in tokens] == expected
    assert all(type(t).__name__ == "Token" for t in tokens)
    assert [t.name for t in tokens if t.is_call] == (["XLOOKUP"] if "XLOOKUP" in formula else [])


#: The one module that reads openpyxl's formula tokens: it writes a shared formula's copies as
#: openpyxl's own reader does (its Translator, which tokenizes with openpyxl's tokenizer), text
#: for text, for the cells openpyxl makes; it reads no formula for its meaning.
OPENPYXL_READER_TWIN = "calc/shared_formulas.py"


def test_no_other_module_tokenizes_a_formula():
    """formualizer's tokenizer is read through functions/tokens.py alone (character offsets);
    openpyxl's, which refused `=A1#`, is read nowhere but where openpyxl's own reading is
    reproduced (OPENPYXL_READER_TWIN)."""
    found = []
    for folder in ("calc", "functions", "addin", "cli", "client", "templates"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            text = path.read_text(encoding="utf-8")
            if ("openpyxl.formula" in text and where != OPENPYXL_READER_TWIN) or (
                    "formualizer.tokenize(" in text and where != "functions/tokens.py"):
                found.append(where)
    assert found == []
    # the exception names a module that still reads them (else it goes)
    assert "openpyxl.formula" in (ROOT / OPENPYXL_READER_TWIN).read_text(encoding="utf-8")


@pytest.mark.parametrize(("formula", "expected"), [
    ("=SUM(A1:B2, C3)+Sheet2!D4:E5:F6", [OTHER, "A1:B2", OTHER, "C3", OTHER, "Sheet2!D4:E5", ":", "F6"]),
    # Side by side only where the tokens are: a space before the ':' keeps them apart.
    ("=A1 :B2", ["A1", OTHER, ":", "B2"]),
    ("=A1:INDEX(B:B,2)", ["A1", ":", OTHER, "B:B", OTHER]),
    ("='Model'!#REF!+Tbl[Col]+x", [OTHER, "Tbl[Col]", OTHER, "x"]),
    ('=1+"A1"', [OTHER]),
    ("=SUM(", None),
])
def test_what_the_reference_reader_reads_of_the_tokens(formula, expected):
    """`range_operands` (calc/dependencies.py's read of a formula) is `tokenize` read lean:
    Range operands, ':' operators and one OTHER for each run of other tokens between them."""
    assert range_operands(formula) == expected
    try:
        tokens = tokenize.__wrapped__(formula)
    except FormulaError:
        assert expected is None
        return
    lean: list[str | None] = []
    for t in tokens:
        if t.is_range or (t.kind == INFIX and t.text == ":"):
            lean.append(t.text)
        elif not lean or lean[-1] is not OTHER:
            lean.append(OTHER)
    assert lean == expected


@pytest.mark.parametrize(("formula", "expected"), [
    # openpyxl's tokenizer refused a spill reference: the pass left such a formula alone.
    ('=AND("TRUE",A1#)', "=AND(TRUE,A1#)"),
    # formualizer's offsets counted bytes: the LAMBDA came out mangled (`LET(x,),x+"ß"))`).
    ('=LAMBDA(x,x+"ß")(2)', '=_xlfn.LET(x,2,x+"ß")'),
    ('=MAP(A1:A3,LAMBDA(x,x&"€"))', '=RATESXL.LAMBDA("=MAP(RXL_REF_A,LAMBDA(x,x&""€""))",A1:A3)'),
    # Two spaces kept as written (openpyxl's tokens lost one).
    ('=COUNT(2, "A",  "")', '=COUNT(2, "",  "")'),
])
def test_what_the_former_tokenizers_got_wrong(formula, expected):
    assert rewrite(formula, Site("S", 1, 1)).text == expected


def test_a_pass_reads_tokens_only_when_its_trigger_says_so():
    """Most formulas go through every pass without a token read: the triggers test the text."""
    read = rewrite("=A1*2+B1", Site("S", 1, 1))
    assert read.text == "=A1*2+B1" and read._tokens is None


def test_one_pass_alone():
    assert one("type_of", "=TYPE(_xleta.SUM)+1") == "=128+1"
    assert one("at_sign", "=_xlfn.SINGLE(A1:A10)", Site("S", 4, 2)) == "=A4"


def test_edits_keep_what_lies_between_tokens():
    formula = Formula('=IF( "ß" = A1 ,  B1 , C1 )')
    edits = formula.edits()
    b1 = next(i for i, t in enumerate(formula.tokens) if t.text == "B1")
    edits.replace(b1, b1 + 1, "D9")
    assert edits.text() == '=IF( "ß" = A1 ,  D9 , C1 )'
    call = formula.groups[0]
    assert [formula.span_text(a) for a in call.arguments] == ['"ß" = A1', "B1", "C1"]
