"""Excel's text functions computed here (Insert Function: Text).

- `characters.py`: CHAR, CODE (the code page of the Excel that saved the book);
- `find.py`: FIND over arrays, SEARCH's wildcards over characters;
- `substrings.py`: LEFT, RIGHT, MID, REPLACE; `case.py`: UPPER and LOWER over arrays;
- `delimited.py`: TEXTBEFORE, TEXTAFTER; `textsplit.py`: TEXTSPLIT;
- `textformat.py`: TEXT's sections (positive;negative;zero;text); `datetimes.py`: its date and time sections;
  `placeholders.py`: a section padding with `?`; `fractions.py`: a fraction's section ("# ??/32");
  `exponents.py`: a scientific one ("##0.0E+0");
- `totext.py`: ARRAYTOTEXT, VALUETOTEXT; `baht.py`: BAHTTEXT;
- `regex.py`: REGEXTEST, REGEXEXTRACT, REGEXREPLACE;
- `numbers.py`: VALUE ("$1,000"), FIXED's rounding, the General format; `value_text.py`: VALUE of a
  time alone, a date that is none, a percentage; `number_text.py`: text where a function wants a
  number (RATESXL.NUMBER, for calc/formula/number_arguments.py);
- `concatenation.py`: RATESXL.NUMTEXT, a number as Excel's text (the pass `numbers_as_text`
  routes `&` and CONCATENATE's operands to it).
"""
