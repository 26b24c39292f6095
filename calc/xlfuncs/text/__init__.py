"""Excel's text functions computed here (Insert Function: Text).

- `characters`: CHAR, CODE (the code page of the Excel that saved the book);
- `find`: FIND over arrays, SEARCH's wildcards over characters;
- `substrings`: LEFT, RIGHT, MID, REPLACE;
- `delimited`: TEXTBEFORE, TEXTAFTER; `textsplit`: TEXTSPLIT;
- `textformat`: TEXT's sections (positive;negative;zero;text);
- `totext`: ARRAYTOTEXT, VALUETOTEXT; `baht`: BAHTTEXT;
- `regex`: REGEXTEST, REGEXEXTRACT, REGEXREPLACE;
- `numbers`: VALUE ("$1,000") and FIXED's rounding;
- `concatenation`: RATESXL.NUMTEXT, a number as Excel's text (the pass `numbers_as_text`
  routes `&` and CONCATENATE's operands to it).
"""
