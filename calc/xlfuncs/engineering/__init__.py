"""Excel's engineering functions computed here (Insert Function: Engineering).

- `bessel.py`: BESSELI, BESSELJ, BESSELK, BESSELY with Excel's approximations;
- `complex.py`: the IM* functions answering a complex number, written as Excel writes it;
- `bases.py`: the bridged BIN2DEC, DEC2HEX ... (formulas' own helpers) without a dispatcher per call,
  `places` read as Excel reads it;
- `bits.py`: BITAND, BITOR, BITXOR, BITLSHIFT, BITRSHIFT on single values (2^48 - 1, #NUM! past it);
- `units.py`: CONVERT's units `formulas`' table lacks (the pond, GRT).
"""
