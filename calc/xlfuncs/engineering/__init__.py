"""Excel's engineering functions computed here (Insert Function: Engineering).

- `bessel.py`: BESSELI, BESSELJ, BESSELK, BESSELY with Excel's approximations;
- `complex.py`: the IM* functions answering a complex number, written as Excel writes it;
- `bases.py`: the bridged BIN2DEC, DEC2HEX ... (formulas' own helpers) without a dispatcher per call.
"""
