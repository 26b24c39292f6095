"""Excel's math and trigonometry functions computed here (Insert Function: Math & Trig).

- `matrix`: MINVERSE's LU steps;
- `sumproduct`: SUMPRODUCT over arguments of different sizes (an error or #VALUE!);
- `rounding`: FLOOR(0, 0).
"""
