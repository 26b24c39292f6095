"""Excel's engineering functions computed here (Insert Function: Engineering).

- `bessel`: BESSELI, BESSELJ, BESSELK, BESSELY with Excel's approximations;
- `complex`: the IM* functions answering a complex number, written as Excel writes it.
"""
