"""The Excel surface the add-in uses (rates_xl.addin.classic.excel_surface) is provided by
xlwings' own classes and by the serial-Excel stand-in, member by member.

xlwings' classes are checked on the class (their members are properties and methods, which
need no Excel to exist). The COM objects behind `.api` exist only in Windows Excel: on
Linux they cannot be checked; each COM member must name its Microsoft reference page
(COM_DOCS), and the stand-in must provide it so the tests exercise it.
"""

from __future__ import annotations

import importlib

import pytest

from rates_xl.addin.classic import excel_surface as surface
from tests.support import serial_excel

try:  # Python 3.13 has it in typing; typing_extensions (a pydantic dependency) before that
    from typing import get_protocol_members  # type: ignore[attr-defined]
except ImportError:
    from typing_extensions import get_protocol_members


def missing(protocol: type, obj: object) -> list[str]:
    """The members of `protocol` that `obj` (a class or an instance) does not have.

    Looked up on the type and the instance's own attributes, never by calling a property
    (a property of the stand-in may need a spill to answer)."""
    have = set(dir(obj if isinstance(obj, type) else type(obj))) | set(getattr(obj, "__dict__", {}))
    return sorted(set(get_protocol_members(protocol)) - have)


def stand_in_objects() -> dict[type, object]:
    """One stand-in object per Protocol, from a book with a spilling curve."""
    app = serial_excel.App()
    book = app.add_book("Surface.xlsx", {"Curve": {"A1": "x"}})
    sheet = book.sheets[0]
    book.sheets.active = sheet
    book.select(0, "A1")
    rng = sheet.range("A1")
    return {
        surface.App: app, surface.Book: book, surface.Sheets: book.sheets, surface.Sheet: sheet,
        surface.Range: rng, surface.ComApplication: app.api,
        surface.ComWorkbooks: app.api.Workbooks, surface.ComRange: rng.api,
        surface.ComWindow: app.api.Windows[0], surface.ComWorkbook: app.api.Windows[0].Parent,
    }


ALL = [*surface.XLWINGS_CLASSES, *surface.COM_PROTOCOLS]


def test_every_protocol_names_members():
    for protocol in ALL:
        assert get_protocol_members(protocol), protocol


@pytest.mark.parametrize("protocol", list(surface.XLWINGS_CLASSES), ids=lambda p: p.__name__)
def test_xlwings_classes_provide_every_member(protocol):
    module, name = surface.XLWINGS_CLASSES[protocol].split(":")
    cls = getattr(importlib.import_module(module), name)
    assert missing(protocol, cls) == []


@pytest.mark.parametrize("protocol", ALL, ids=lambda p: p.__name__)
def test_the_stand_in_provides_every_member(protocol):
    assert missing(protocol, stand_in_objects()[protocol]) == []


def test_every_com_member_names_its_microsoft_page():
    named = {(p.__name__, m) for p in surface.COM_PROTOCOLS for m in get_protocol_members(p)}
    assert named == set(surface.COM_DOCS)
    assert all(url.startswith("https://learn.microsoft.com/office/vba/api/excel.")
               for url in surface.COM_DOCS.values())


def test_a_missing_member_is_reported():
    # The check must fail for an object without one member, or it proves nothing.
    members = get_protocol_members(surface.App)
    partial = type("NoHwnd", (), {m: None for m in members if m != "hwnd"})
    assert missing(surface.App, partial) == ["hwnd"]
    assert missing(surface.App, type("Full", (), dict.fromkeys(members))) == []


def test_the_spill_range_is_a_com_range():
    # Range.SpillingToRange gives a Range: the add-in reads its Address.
    app = serial_excel.App()
    book = app.add_book("Spill.xlsx", {"S": {"A1": "={1;2;3}"}})
    app.calculate_full()
    api = book.sheets[0].range("A1").api
    assert api.HasSpill
    assert missing(surface.ComRange, api.SpillingToRange) == []
    assert api.SpillingToRange.Address == "$A$1:$A$3"


def test_templates_menu_through_excels_inputbox():
    # inputbox_choose is the real dialog: on the stand-in, a typed 2 picks the second option,
    # Cancel (False) picks nothing.
    from rates_xl.addin.classic import ribbon_context

    app = serial_excel.App()
    app.api.input_answers = [2.0]
    assert ribbon_context.inputbox_choose(app, "Pick", "Rates", ["a", "b", "c"]) == 1
    assert ribbon_context.inputbox_choose(app, "Pick", "Rates", ["a", "b", "c"]) is None
    assert [title for _, title in app.api.input_prompts] == ["Rates", "Rates"]
