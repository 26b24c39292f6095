"""BAHTTEXT: a number as Thai text in baht and satang, by Microsoft's rules (formualizer does
not know it; the `formulas` implementation needs the `bahttext` package, absent: #VALUE!).
Written here because no maintained Python library does it the way Excel does.

The amount is rounded to whole satang (half away from zero). Baht are read in blocks of six
digits joined by ล้าน (million): within a block a digit is read with its place (สิบ, ร้อย,
พัน, หมื่น, แสน); a 1 in the tens place is สิบ alone, a 2 there ยี่สิบ; a 1 in the units place
is เอ็ด when any higher digit of the amount is not 0 (11 สิบเอ็ด, 101 หนึ่งร้อยเอ็ด). Whole baht
end in บาทถ้วน, else บาท and the satang read the same way and สตางค์; zero is ศูนย์บาทถ้วน,
a negative amount starts with ลบ.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, Facts, elementwise, number

_DIGITS = ["ศูนย์", "หนึ่ง", "สอง", "สาม", "สี่", "ห้า", "หก", "เจ็ด", "แปด", "เก้า"]
_PLACES = ["", "สิบ", "ร้อย", "พัน", "หมื่น", "แสน"]
_MILLION, _BAHT, _WHOLE, _SATANG, _MINUS = "ล้าน", "บาท", "ถ้วน", "สตางค์", "ลบ"


def _block(value: int, higher: bool) -> str:
    """One block of up to six digits (1 <= value <= 999999); `higher`: a digit above the
    block is not 0 (a units 1 is then เอ็ด)."""
    digits = [int(d) for d in str(value)]
    out = []
    for i, digit in enumerate(digits):
        place = len(digits) - 1 - i
        if digit == 0:
            continue
        if place == 1:
            out.append({1: "", 2: "ยี่"}.get(digit, _DIGITS[digit]) + _PLACES[1])
        elif place == 0 and digit == 1 and (higher or value > 1):
            out.append("เอ็ด")
        else:
            out.append(_DIGITS[digit] + _PLACES[place])
    return "".join(out)


def _read(value: int) -> str:
    """A whole number of baht or satang (value >= 1)."""
    blocks = []
    while value:
        value, block = divmod(value, 1_000_000)
        blocks.append(block)
    out = []
    for index in range(len(blocks) - 1, -1, -1):
        block = blocks[index]
        higher = any(blocks[index + 1:])
        if block:
            out.append(_block(block, higher))
        if index:
            out.append(_MILLION)
    return "".join(out)


def _bahttext(value: EngineValue) -> str:
    amount = Decimal(repr(number(value))).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    sign = _MINUS if amount < 0 else ""
    satang_total = int(abs(amount) * 100)
    baht, satang = divmod(satang_total, 100)
    if not baht and not satang:
        return "ศูนย์" + _BAHT + _WHOLE
    text = (_read(baht) + _BAHT) if baht else ""
    text += (_read(satang) + _SATANG) if satang else _WHOLE
    return sign + text


def bahttext(_facts: Facts) -> Callback:
    call = elementwise(_bahttext)
    call.__name__ = "BAHTTEXT"
    return call
