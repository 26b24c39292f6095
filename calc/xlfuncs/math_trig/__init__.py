"""Excel's math and trigonometry functions computed here (Insert Function: Math & Trig).

- `matrix.py`: MINVERSE's LU steps;
- `sumproduct.py`: SUMPRODUCT over arguments of different sizes (an error or #VALUE!);
- `rounding.py`: FLOOR(0, 0); `multiples.py`: FLOOR, CEILING and kin, MROUND on 15 significant digits;
- `divisors.py`: GCD and LCM; `numeric_text.py`: text read as a number where these functions want one;
- `series.py`: MULTINOMIAL and SERIESSUM over ranges and arrays, COMBINA of 0;
- `logarithm.py`: LOG (a base of 1, the base omitted); `quotient.py`: QUOTIENT (logical values);
- `roman.py`: ROMAN's form given as a logical value.
"""
