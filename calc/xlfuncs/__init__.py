"""Excel-exact implementations of Excel functions the fast engine gets wrong, registered with
formualizer in place of its own (`register`); `calc/routing.py` says which function goes where.
Grouped as Excel's Insert Function dialog groups them:

- `financial/`: `payments` (PMT, PV), `annuity` (NPER, FV, PPMT, IPMT, CUMIPMT, CUMPRINC, RATE), `cashflows` (XNPV, XIRR), `irr` (IRR, MIRR), `fractional` (DOLLARDE, DOLLARFR),
  `bondprice` (PRICE, YIELD, DURATION, MDURATION), `maturity` (PRICEMAT, YIELDMAT), `tbills` (TBILL*), `coupons` (COUPDAYS ... COUPNUM),
  `accrued` (ACCRINT, ACCRINTM), `moneymarket` (DISC, INTRATE, RECEIVED, PRICEDISC, YIELDDISC), `depreciation` (DB,
  DDB, VDB), `french` (AMORLINC, AMORDEGRC), `oddcoupon` (ODDL*), `oddfirst` (ODDF*);
- `dates/`: `daycount` (YEARFRAC, DATEDIF, EDATE, EOMONTH), `clock` (TIME, HOUR, MINUTE, SECOND), `calendar` (DATE),
  `text_dates` (DATEVALUE, and date text as every `formulas` function reads it);
- `lookup/` (lookup and reference): `lookups` (XLOOKUP, XMATCH, LOOKUP, MATCH, VLOOKUP,
  HLOOKUP), `indexing` (INDEX), `address` (ADDRESS), `arrays` (VSTACK, TAKE, TOCOL, EXPAND ...),
  `ordering` (SORT, SORTBY, UNIQUE, FILTER), `groupby` (GROUPBY, PIVOTBY) and `aggregations`
  (their functions);
- `text/`: `characters` (CHAR, CODE in the saving Excel's code page), `find` (FIND, SEARCH),
  `substrings` (LEFT, RIGHT, MID, REPLACE), `delimited` (TEXTBEFORE, TEXTAFTER), `textsplit`,
  `textformat` (TEXT), `totext` (ARRAYTOTEXT, VALUETOTEXT), `baht` (BAHTTEXT), `regex`
  (REGEXTEST, REGEXEXTRACT, REGEXREPLACE), `numbers` (VALUE, FIXED, DOLLAR), `concatenation`
  (RATESXL.NUMTEXT: a number as Excel's text, for `&`, CONCATENATE, LEN ...);
- `statistical/`: `stats` (SKEW.P, MODE.MULT, STDEVA/VARA), `conditional` (SUMIF(S),
  COUNTIF(S), AVERAGEIF(S), MAXIFS, MINIFS), `ets` (the FORECAST.ETS family), `trend` (TREND,
  GROWTH), `percentiles` (PERCENTILE, QUARTILE), `largest` (LARGE, SMALL);
- `math_trig/`: `matrix` (MINVERSE), `sumproduct` (SUMPRODUCT over arguments of different
  sizes or holding logical values), `rounding` (FLOOR), `multiples` (MROUND), `divisors` (GCD, LCM),
  `series` (MULTINOMIAL, SERIESSUM);
- `database.py` (DSUM, DAVERAGE, DGET ... over a criteria range);
- `engineering/`: `bessel` (BESSELI/J/K/Y), `complex` (the IM* functions), `bases` (the bridged
  BIN2DEC, DEC2HEX ... without `formulas`' dispatcher per call);
- `logical/`: `lambdas` (the LAMBDA family: MAP, BYROW, SCAN ..., through RATESXL.LAMBDA), `pipes`
  (the formulas it compiles, run without schedula's dispatch per call);
- `information/`: `reference` (N, and T: a reference's first cell).

And what they share: `bridge.py` (the `formulas` package's implementations called from
formualizer), `unvectorized.py` (those of them `formulas` lifts over arrays with `np.vectorize`,
called on scalars without it), `limits.py` (Excel's limits on their answers: PERMUT, REPT ... stopped
there instead of computing forever), `scipy_deferred.py` (their statistical module imported with scipy left for its
first use), `stats_light/` (the scipy.stats distributions and statistics that module calls,
answered from scipy.special with scipy.stats' bits, without its import), `scalars.py` (the bridged scalar functions), `coercion.py` (Excel's coercions,
elementwise application), `omitted.py` (an omitted argument told apart from 0), `types.py`
(the values they take and answer, named). The rewritings
of a formula that route calls here are calc/formula's passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs import database, limits
from rates_xl.calc.xlfuncs.coercion import Callback, Factory, Facts
from rates_xl.calc.xlfuncs.dates import calendar, clock, daycount, days360, system1904, text_dates
from rates_xl.calc.xlfuncs.engineering import bessel, bits, complex
from rates_xl.calc.xlfuncs.financial import (
    accrued,
    annuity,
    bondprice,
    cashflows,
    compounding,
    coupons,
    depreciation,
    fractional,
    french,
    irr,
    maturity,
    moneymarket,
    oddcoupon,
    oddfirst,
    payments,
    tbills,
)
from rates_xl.calc.xlfuncs.information import reference
from rates_xl.calc.xlfuncs.logical import comparison, lambdas
from rates_xl.calc.xlfuncs.lookup import (
    address,
    arrays,
    groupby,
    indexing,
    lookups,
    ordering,
    reference_text,
    unions,
)
from rates_xl.calc.xlfuncs.math_trig import (
    divisors,
    logarithm,
    matrix,
    multiples,
    quotient,
    roman,
    rounding,
    series,
    sumproduct,
)
from rates_xl.calc.xlfuncs.statistical import (
    binomial,
    conditional,
    ets,
    frequency,
    largest,
    percentiles,
    stats,
    tails,
    trend,
)
from rates_xl.calc.xlfuncs.text import (
    baht,
    case,
    characters,
    concatenation,
    delimited,
    find,
    number_text,
    numbers,
    regex,
    substrings,
    textformat,
    textsplit,
    totext,
)
from rates_xl.calc.xlfuncs.types import Answer

if TYPE_CHECKING:
    from formualizer import Workbook
    from openpyxl import Workbook as OpenpyxlWorkbook

    from rates_xl.calc.package import Package

#: Excel functions implemented in this package: name -> factory(book facts) -> callback.
OURS: dict[str, Factory] = {
    "CHAR": characters.char,
    "CODE": characters.code,
    "XLOOKUP": lookups.xlookup,
    "XMATCH": lookups.xmatch,
    "LOOKUP": lookups.lookup,
    "MATCH": lookups.match,
    "VLOOKUP": lookups.vlookup,
    "HLOOKUP": lookups.hlookup,
    **conditional.FUNCTIONS,
    "PMT": payments.pmt,
    "PV": payments.pv,
    "ISPMT": payments.ispmt,
    **compounding.FUNCTIONS,
    "NPER": annuity.nper,
    "FV": annuity.fv,
    "PPMT": annuity.ppmt,
    "IPMT": annuity.ipmt,
    "CUMIPMT": annuity.cumipmt,
    "CUMPRINC": annuity.cumprinc,
    "RATE": annuity.rate,
    "XNPV": cashflows.xnpv,
    "NPV": cashflows.npv,
    "XIRR": cashflows.xirr,
    "IRR": irr.irr,
    "MIRR": irr.mirr,
    "DOLLARDE": fractional.dollarde,
    "DOLLARFR": fractional.dollarfr,
    **bondprice.FUNCTIONS,
    **coupons.FUNCTIONS,
    **maturity.FUNCTIONS,
    **tbills.FUNCTIONS,
    **accrued.FUNCTIONS,
    **moneymarket.FUNCTIONS,
    **depreciation.FUNCTIONS,
    **french.FUNCTIONS,
    lambdas.CALLBACK: lambdas.callback,
    "GROUPBY": groupby.groupby,
    "PIVOTBY": groupby.pivotby,
    "N": reference.n,
    "T": reference.t,
    **arrays.FUNCTIONS,
    **ordering.FUNCTIONS,
    **regex.FUNCTIONS,
    **delimited.FUNCTIONS,
    **stats.FUNCTIONS,
    **complex.FUNCTIONS,
    **bessel.FUNCTIONS,
    **oddcoupon.FUNCTIONS,
    **oddfirst.FUNCTIONS,
    **largest.FUNCTIONS,
    **matrix.FUNCTIONS,
    sumproduct.NAME: sumproduct.misshapen,
    sumproduct.LOGICALS: sumproduct.logicals,
    "ADDRESS": address.address,
    "FIND": find.find,
    "SEARCH": find.search,
    "ARRAYTOTEXT": totext.arraytotext,
    "VALUETOTEXT": totext.valuetotext,
    "BAHTTEXT": baht.bahttext,
    "TEXTSPLIT": textsplit.textsplit,
    "TEXT": textformat.text,
    "TIME": clock.time_,
    **clock.FUNCTIONS,
    **text_dates.FUNCTIONS,
    **substrings.FUNCTIONS,
    **case.FUNCTIONS,
    **ets.FUNCTIONS,
    **indexing.FUNCTIONS,
    **rounding.FUNCTIONS,
    **divisors.FUNCTIONS,
    "MULTINOMIAL": series.multinomial,
    "COMBINA": series.combina,
    **logarithm.FUNCTIONS,
    **quotient.FUNCTIONS,
    "SERIESSUM": series.seriessum,
    **multiples.FUNCTIONS,
    **calendar.FUNCTIONS,
    **numbers.FUNCTIONS,
    **percentiles.FUNCTIONS,
    **binomial.FUNCTIONS,
    **daycount.FUNCTIONS,
    **days360.FUNCTIONS,
    **trend.FUNCTIONS,
    **database.FUNCTIONS,
    concatenation.NAME: concatenation.numtext,
    reference_text.NAME: reference_text.reftext,
    unions.NAME: unions.union,
    limits.TEXT_LIMIT_NAME: limits.text_limit,
    comparison.NAME: comparison.cmpround,
    comparison.SNAP: comparison.cmpsnap,
    number_text.NAME: number_text.number_of,
}

#: Why each is ours (what formualizer gets wrong; measured with bench/excel_corpus.py).
WHY = {
    "CHAR": "Latin-1 instead of the saving Excel's code page (Mac Roman / Windows-1252): 157 cells",
    "CODE": "as CHAR",
    "XLOOKUP": "match modes -1/1 and binary searches #N/A; empty lookup values: ironcalc_XLOOKUP 269 -> 429 of 439",
    "XMATCH": "as XLOOKUP: 90 -> 53 wrong cells; Excel's bisection, modes lifted over arrays, match mode 3 "
              "(regex): formulas_test XLOOKUP +148, XMATCH +39 cells",
    "LOOKUP": "mixed types in the vector (a value of another type is stepped over, as Excel's bisection does): +123",
    "MATCH": "as LOOKUP for match type 1; -1 read from the first while not smaller",
    "VLOOKUP": "as LOOKUP; an error as the lookup value passed on (formualizer: #N/A); an array of column "
               "numbers: one answer each (an ordinary cell shows the first: calc/formula/hazards.py ARRAY_ANSWERS): "
               "formulas_test VLOOKUP +14, HLOOKUP +17 cells",
    "HLOOKUP": "as VLOOKUP",
    "SUMIFS": "an error in a summed matching cell is skipped: ironcalc_SUMIFS 256 -> 285 of 285",
    "SUMIF": "as SUMIFS",
    "AVERAGEIFS": "as SUMIFS",
    "AVERAGEIF": "as SUMIFS",
    "MAXIFS": "as SUMIFS",
    "MINIFS": "as SUMIFS",
    "COUNTIFS": "error criteria and mixed types: +18 cells",
    "PMT": "a rate of -100 % or below gives a number where Excel says #NUM!; text arguments",
    "PV": "text arguments as PMT; below a rate of -100 % its formula, where formualizer and PMT answer #NUM! (Excel "
          "2010's answers: 460 cases): calc/xlfuncs/financial/payments.py",
    "NPER": "any non-zero type is 1 (formulas: #VALUE!), a rate of 0 ignores the type: calc/xlfuncs/financial/annuity.py",
    "FV": "as NPER",
    "PPMT": "the closed form for end-of-period payments, not PMT - IPMT (cancels to noise): "
            "calc/xlfuncs/financial/annuity.py; otherwise formulas'",
    "PRICE": "Excel's days on every basis (formualizer: off from the 4th digit on actual/360; ours was off at "
             "30/360 month ends): every one of Excel 2010's 10,982 answers in fsprojects/ExcelFinancialFunctions' "
             "test data: calc/xlfuncs/financial/bondprice.py, daycounts.py",
    "YIELD": "as PRICE (formualizer inverts its own PRICE)",
    "DURATION": "unknown to formualizer: PRICE's discounting, Excel 2010's 5,492 answers in "
                "fsprojects/ExcelFinancialFunctions' test data (LibreOffice's reading differs): calc/xlfuncs/financial/bondprice.py",
    "MDURATION": "as DURATION, divided by 1 + yield / frequency (5,492 answers)",
    "PRICEMAT": "unknown to formualizer: Microsoft's formula, Excel 2010's 1,942 answers in "
                "fsprojects/ExcelFinancialFunctions' test data: calc/xlfuncs/financial/maturity.py",
    "YIELDMAT": "as PRICEMAT (2,912 answers)",
    **{name: "formualizer's arithmetic with Excel's checks: a maturity up to one calendar year on, a bill priced at or "
             "below 0 #NUM! (formualizer priced it negative), numeric text read, logical values #VALUE! (IronCalc's "
             "Excel-made TBILLs.xlsx): calc/xlfuncs/financial/tbills.py" for name in tbills.FUNCTIONS},
    "IPMT": "every positive interest (a loan entered as a negative pv, a negative rate) was #NUM! (formulas): "
            "IPMT(5%,1,10,-1000) is 50 in Excel; checked against LibreOffice: calc/xlfuncs/financial/annuity.py",
    "CUMIPMT": "IPMT's arithmetic summed over the whole periods from start to end, a fractional start from the next "
               "(Excel 2010's answers: formulas truncated it, 48 of 210 cases off), computed here on plain numbers "
               "(formulas' numpy_financial one imported formulas for it: 0.05 CPU s of the loan tracker's run); its "
               "checks formulas', text, logicals and arrays formulas': calc/xlfuncs/financial/annuity.py",
    "CUMPRINC": "as CUMIPMT, PPMT's closed form summed (formualizer truncated the periods and nper: 96 of 210 of "
                "Excel 2010's cases off)",
    "RATE": "Newton's iteration from the guess computed here on plain numbers (the bridged `formulas` one, "
            "numpy_financial's on numpy scalars up to 1,000 steps, cost 0.05 CPU s of formulas_test.xlsx's run), "
            "any non-zero type 1 (formulas: the type in the arithmetic); text and arrays formulas': "
            "calc/xlfuncs/financial/annuity.py",
    "DOLLARDE": "the numerator over the fraction's digits unrounded (formualizer rounded it: DOLLARDE(15.58,8) was 15.75, "
                "Excel and LibreOffice 15.725), #DIV/0! for a fraction from 0 to 1: calc/xlfuncs/financial/fractional.py",
    "DOLLARFR": "#DIV/0! for a fraction from 0 to 1 (formualizer: #NUM!), otherwise formualizer's arithmetic: "
                "calc/xlfuncs/financial/fractional.py",
    "MIRR": "the flows as Excel reads them (an empty cell, text and logicals left out: formualizer read an empty cell as 0, TRUE as 1), "
            "then formualizer's own arithmetic: calc/xlfuncs/financial/irr.py",
    "IRR": "the flows as Excel reads them (an empty cell, text and logicals left out: formulas read them as flows), "
           "formulas' roots up to 200 flows, past it the one rate of flows whose signs change once found by halving, "
           "#NUM! past 1,000 flows whose signs change more: calc/xlfuncs/financial/irr.py",
    "NPV": "only the numbers of a range counted (Microsoft's NPV: text, logical values and empty cells in a "
           "reference left out; formulas' counted a text \"10\" and answered #VALUE! for a TRUE there), terms "
           "summed in the book's order: calc/xlfuncs/financial/cashflows.py",
    "XIRR": "halving an interval from 0 to the guess as Excel does (its answers are dyadic fractions of the guess), formulas' checks: calc/xlfuncs/financial/cashflows.py",
    **{name: "unknown to formualizer; formulas' (Microsoft's examples, LibreOffice on every basis and frequency) "
             "but COUPDAYBS on a coupon date (it gave -1) and COUPDAYSNC on 30/360 (Excel's count, its 917 "
             "answers in fsprojects/ExcelFinancialFunctions' test data): calc/xlfuncs/financial/coupons.py" for name in coupons.FUNCTIONS},
    "ACCRINT": "Excel's sum over quasi-coupon periods from a reference date before the settlement (formualizer: the "
               "days from issue to settlement, 792 of 1,923 Excel 2010 cases off), every basis, calc_method both ways "
               "(Excel 16's 549 cells in IronCalc's books): calc/xlfuncs/financial/accrued.py",
    "ACCRINTM": "par x rate x YEARFRAC, Excel's on actual/actual too (362 of 362 Excel 2010 cases): "
                "calc/xlfuncs/financial/accrued.py",
    **{name: "unknown to formualizer (formulas' right on actual/360 and actual/365 only): Microsoft's formula over "
             "YEARFRAC on every basis, Excel 2010's value on every case: calc/xlfuncs/financial/moneymarket.py"
       for name in moneymarket.FUNCTIONS},
    "DB": "a period between 0 and 1 is the first (formualizer: #NUM!; Excel 2010's answers: 72 cases), the period "
          "after the life Microsoft's formula (formualizer: what is left above the salvage): "
          "calc/xlfuncs/financial/depreciation.py",
    "DDB": "a period between 0 and 1 is the first (formualizer: #NUM!; Excel 2010's answers: 96 cases): "
           "calc/xlfuncs/financial/depreciation.py",
    **{name: "unknown to formualizer (not computed): the French depreciation from Microsoft's page and Excel 2010's "
             "answers (11,522 and 23,042 cases, every basis); a rate of 0 and AMORDEGRC's lives of 3, 4 and 5 years "
             "listed: calc/xlfuncs/financial/french.py" for name in french.FUNCTIONS},
    "VDB": "unknown to formualizer (not computed); formulas' answers #VALUE! for a period ending at the asset's life. "
           "Excel 2010's 2,546 answers, Microsoft's examples: calc/xlfuncs/financial/depreciation.py",
    "XNPV": "an error as the rate passed on, TRUE #VALUE!, empty #NUM!; an empty cell, text or boolean among the values, or more or fewer values than dates, #NUM!; then formulas', summed in the book's order: calc/xlfuncs/financial/cashflows.py",
    lambdas.CALLBACK: "computes a call of the LAMBDA family (calc/xlfuncs/logical/lambdas.py)",
    "GROUPBY": "formualizer does not know it (#NAME?): formulas_test 272 cells not computed -> equal",
    "PIVOTBY": "as GROUPBY: 588 cells, 571 now equal (17 listed: `_xleta.IF`, a cell as the function)",
    "N": "a multi-cell reference reads its first cell; N(TRUE) is 1",
    "T": "a multi-cell reference reads its first cell",
    **{name: "spill shapes, #N/A padding and errors in counts as Excel (formualizer: wrong shapes, "
             "or unknown): calc/xlfuncs/lookup/arrays.py" for name in arrays.FUNCTIONS},
    **{name: "Excel's order of types, errors in FILTER's include, UNIQUE's options lifted: "
             "calc/xlfuncs/lookup/ordering.py" for name in ordering.FUNCTIONS},
    **{name: "unknown to formualizer: calc/xlfuncs/text/regex.py (the regex package, re's syntax; a match "
             "stopped at 1 s, #VALUE!)" for name in regex.FUNCTIONS},
    **{name: "several delimiters, negative instances and match_end: calc/xlfuncs/text/delimited.py"
       for name in delimited.FUNCTIONS},
    **{name: f"{why}: calc/xlfuncs/statistical/stats.py" for name, why in stats.WHY.items()},
    "COUNTIF": "as COUNTIFS (an error criterion counts that error; an array of criteria answers one count "
               "each: +23); formualizer's matches `?` against a byte in a range holding a number "
               "(COUNTIF(A1:A3,\"J?rgen\") missed \"Jürgen\") and disagreed with our SUMIF on \"ß\"",
    **{name: "formulas' arithmetic written as Excel writes a complex number (15 significant "
             "digits, E-notation below 1E-5): calc/xlfuncs/engineering/complex.py" for name in complex.FUNCTIONS},
    **{name: "Excel's approximations (Abramowitz & Stegun polynomials, recurrences), not the exact "
             "function (formulas/scipy: 8th digit off, 11 cells): calc/xlfuncs/engineering/bessel.py"
       for name in bessel.FUNCTIONS},
    "ODDLPRICE": "the odd last period cut into quasi-coupon periods, as Excel's formula and Excel 2010's "
                 "30,602 values in fsprojects/ExcelFinancialFunctions' data (formulas: one year fraction, off "
                 "from the 4th digit on actual-day bases); a maturity on a 29th or 30th clipped in February, which no "
                 "case shows, listed (#NAME?): calc/xlfuncs/financial/oddcoupon.py",
    "ODDLYIELD": "as ODDLPRICE",
    "ODDFPRICE": "Microsoft's formula over quasi-coupon periods, computed here on plain numbers as Excel 2010's "
                 "19,322 values in fsprojects/ExcelFinancialFunctions' data (formulas' ODDFYIELD imports scipy, "
                 "0.3 CPU s); calls no case shows (a first coupon off the maturity's dates, a 29th or 30th clipped in "
                 "February) listed (#NAME?); the frequency truncated (2.3 is 2; formulas: "
                 "#NUM!); text and arrays formulas': calc/xlfuncs/financial/oddfirst.py",
    "ODDFYIELD": "as ODDFPRICE",
    **{name: "formulas' arithmetic computed here on a range of plain values and a number k (calling formulas "
             "imported it: 0.05 CPU s of a small book); errors, scalars and arrays of k formulas': "
             "calc/xlfuncs/statistical/largest.py" for name in largest.FUNCTIONS},
    **{name: f"{why}: calc/xlfuncs/statistical/ets.py" for name, why in ets.WHY.items()},
    "MINVERSE": "LU with partial pivoting as Excel (formulas: numpy's LAPACK, last digits off): "
                "calc/xlfuncs/math_trig/matrix.py",
    sumproduct.NAME: "SUMPRODUCT over arguments of different sizes (formualizer broadcasts): the "
                     "first error, else #VALUE! (calc/xlfuncs/math_trig/sumproduct.py): +3 cells",
    **{name: "COUNTIF(S) over whole columns or rows (the pass whole_line_counts): the blank cells past the used ones "
             "counted where every criterion counts a blank, as Excel (formualizer hands the used cells only): "
             "calc/xlfuncs/statistical/conditional.py" for name in conditional.WHOLE_LINES.values()},
    sumproduct.LOGICALS: "SUMPRODUCT whose arguments may hold a logical value, counted as 0 as Excel counts it "
                         "(formualizer: TRUE as 1): calc/xlfuncs/math_trig/sumproduct.py",
    "ADDRESS": "an empty sheet_text's '!', R1C1 style, quoted sheet names: formulas_test +19 cells",
    "FIND": "an array given to it read as its first element (formualizer): calc/xlfuncs/text/find.py",
    "SEARCH": "`?` matched against a byte, not a character (SEARCH(\"J?rgen\",\"Jürgen\"): #VALUE!), a number "
              "written with 17 digits (poi EverythingTests!H1216): calc/xlfuncs/text/find.py",
    "ARRAYTOTEXT": "formats other than 0 and 1 taken, empty text lost in the strict format, a format "
                   "array not applied to each element: calc/xlfuncs/text/totext.py",
    "VALUETOTEXT": "as ARRAYTOTEXT",
    "BAHTTEXT": "formualizer does not know it; the `formulas` one needs a package we lack (#VALUE!): "
                "calc/xlfuncs/text/baht.py",
    "TEXT": "its sections (positive;negative;zero;text) as Excel reads them: formulas' gave \"($1,234.50)\" for "
            "TEXT(1234.5,\"$#,##0.00;($#,##0.00)\") and \"-($1,234.50)\" for -1234.5; each section then formulas' "
            "(format codes: spaces, %, commas as scaling: +27 cells), ? padding with a space where formulas "
            "wrote it as it is (apache/poi's NumberFormatTests.xlsx: +38 cells), fractions (\"# ??/32\": formulas "
            "wrote the placeholders as they are, \"100 ??/32\" for 99.5; +211 cells), exponents (\"##0.0E+0\": "
            "+245 cells), conditions and logicals (+40 cells): calc/xlfuncs/text/textformat.py, placeholders.py, "
            "fractions.py, exponents.py",
    "TEXTSPLIT": "an empty delimiter splits nothing (Excel: #VALUE!); arrays as the text or options not "
                 "applied to each element: calc/xlfuncs/text/textsplit.py",
    "TIME": "a negative total wrapped into the day before where Excel says #NUM!: calc/xlfuncs/dates/clock.py",
    "SECOND": "of a number, the time rounded to the nearest second before it is split (formulas' rounded the "
              "seconds alone: SECOND of 10:37:59.52 was 60, MINUTE 37): calc/xlfuncs/dates/clock.py; a time "
              "given as text, formulas' (\"6:45 PM\", Microsoft's HOUR page: 18; formualizer: #VALUE!)",
    "MINUTE": "as SECOND",
    "DATEVALUE": "formualizer's read \"1/1/1899\" as -364 and \"2/29/1900\" (Excel's day 60) as #VALUE!; "
                 "`formulas`' with Excel's reading of date text (a year before 1900 and a day the month lacks "
                 "#VALUE!, a locale's day and month order not computed): calc/xlfuncs/dates/text_dates.py",
    "HOUR": "as SECOND (HOUR of 23:59:59.6 is 0, the next day's)",
    **{name: "numeric text as a count or start, an empty old text (the bridged `formulas` ones: #VALUE!): "
             "calc/xlfuncs/text/substrings.py" for name in substrings.FUNCTIONS},
    **{name: "applied to each element of an array (formualizer: the first element alone, `LOWER(A1#)`); a "
             "character's case one for one, as Windows maps it (\"straße\" is \"STRAßE\"; formualizer's "
             "\"STRASSE\"): calc/xlfuncs/text/case.py" for name in ("UPPER", "LOWER")},
    "PROPER": "a letter after a digit capitalized, as after any character other than a letter (Microsoft's "
              "example: \"76BudGet\" is \"76Budget\"; formualizer's \"76budget\"): calc/xlfuncs/text/case.py",
    "TRIM": "the space (code 32) alone removed, as Microsoft's TRIM page says (formualizer's collapsed every white "
            "space: a tab became a space, a CHAR(160) vanished): calc/xlfuncs/text/case.py",
    **{name: "INDEX of an array constant (a 2-D one's whole row, array constants as the row lifted, an "
             "error as area_num) or of a union / 2-D range as the whole formula: calc/xlfuncs/lookup/indexing.py"
       for name in indexing.FUNCTIONS},
    "FLOOR": "FLOOR(0,0) is 0 (formulas: #DIV/0!), then formulas': calc/xlfuncs/math_trig/rounding.py",
    "GCD": "an empty cell, text and an omitted argument as Excel reads them (formulas: #VALUE!): IronCalc's "
           "Excel-made GCD_LCM and LCM_GCD books 138 -> 2 cells listed, 0 wrong: calc/xlfuncs/math_trig/divisors.py",
    "LCM": "as GCD, and in Python's integers (formulas' int64 wrapped past 2^63)",
    "COMBINA": "a number of 0 with any chosen but 0 #NUM! (formualizer: 0): IronCalc's Excel-made COMBIN_COMBINA "
               "book 4 -> 0 cells listed: calc/xlfuncs/math_trig/series.py",
    "LOG": "a base of 1 #DIV/0! (formualizer: #NUM!), the base omitted LOG10's (formualizer: LOG(1000) "
           "2.9999999999999996): IronCalc's Excel-made LOG_LOG10_LN book 4 -> 0 cells listed: "
           "calc/xlfuncs/math_trig/logarithm.py",
    "QUOTIENT": "a logical value #VALUE!, as the Analysis ToolPak's (formualizer read TRUE as 1): IronCalc's "
                "Excel-made MOD_QUOTIENT book 2 -> 0 cells listed: calc/xlfuncs/math_trig/quotient.py",
    "ISPMT": "#DIV/0! for nper 0 (formualizer: #NUM!): IronCalc's Excel-made ISPMT book 3 -> 0 cells listed: "
             "calc/xlfuncs/financial/payments.py",
    "NOMINAL": "a logical value #VALUE!, as the Analysis ToolPak's (formualizer read TRUE as 1): IronCalc's "
               "Excel-made NOMINAL_EFFECT book 4 -> 0 cells listed: calc/xlfuncs/financial/compounding.py",
    "EFFECT": "as NOMINAL",
    "MULTINOMIAL": "a range or an array among the arguments (listed), a logical value #VALUE! (formualizer: a "
                   "number); IronCalc's Excel-made MULTINOMIAL book 10 -> 0 cells listed: calc/xlfuncs/math_trig/series.py",
    "SERIESSUM": "a range or an array of coefficients (listed); IronCalc's Excel-made SERIESSUM book 8 -> 0 cells "
                 "listed: calc/xlfuncs/math_trig/series.py",
    "MROUND": "an omitted argument is #N/A (formualizer hands 0), then formulas' (signs: +1): "
              "calc/xlfuncs/math_trig/multiples.py",
    "DAYS360": "serial 0 as Excel's January 0, 1900 (formualizer: 31 December 1899, DAYS360(10,0) -9 for -10), "
               "dates rounded to the second, the method as the text \"TRUE\": IronCalc's Excel-made DAYS_DAYS360 "
               "book 5 -> 0 cells listed: calc/xlfuncs/dates/days360.py",
    "DATE": "a day count past the month before March 1900 (Excel's 29 February 1900), then formulas': "
            "calc/xlfuncs/dates/calendar.py",
    "BINOM.DIST.RANGE": "number_s2 below number_s or past the trials #NUM! (formulas: -0.18, a probability below "
                        "0), by Microsoft's rules; Excel 16's values in IronCalc's STATISTICAL__BINOM.xlsx: "
                        "calc/xlfuncs/statistical/binomial.py",
    "PERCENTILE": "text, logical values and empty cells in the array skipped (formulas: #VALUE!), then formulas' (the k argument's checks: +21): calc/xlfuncs/statistical/percentiles.py",
    "PERCENTILE.INC": "text, logical values and empty cells in the array skipped (formulas: #VALUE!), then formulas' (as PERCENTILE: +21): calc/xlfuncs/statistical/percentiles.py",
    "PERCENTILE.EXC": "text, logical values and empty cells in the array skipped (formulas: #VALUE!), then formulas' (the exclusive method: +13): calc/xlfuncs/statistical/percentiles.py",
    "QUARTILE": "text, logical values and empty cells in the array skipped (formulas: #VALUE!), then formulas' (the quartile argument's checks and interpolation: +23): calc/xlfuncs/statistical/percentiles.py",
    "QUARTILE.INC": "text, logical values and empty cells in the array skipped (formulas: #VALUE!), then formulas' (as QUARTILE: +21): calc/xlfuncs/statistical/percentiles.py",
    "QUARTILE.EXC": "text, logical values and empty cells in the array skipped (formulas: #VALUE!), then formulas' (the exclusive method: +17): calc/xlfuncs/statistical/percentiles.py",
    "FIXED": "half-way roundings away from zero on 15 digits, as ROUND (formulas: FIXED(2.675,2) \"2.67\", Excel "
             "\"2.68\"), then formulas' (rounding and grouping: +11): calc/xlfuncs/text/numbers.py",
    "DOLLAR": "FIXED's digits (half-way roundings away from zero on 15 digits, zeros past them) in the currency "
              "format (formualizer: DOLLAR(0.285,2) \"$0.28\", Excel \"$0.29\"; the sign lost past 2^63): "
              "calc/xlfuncs/text/numbers.py",
    "VALUE": "\"$1,000\" and thousands separators (formulas: #VALUE!, \"1,000\" a date); a time alone (formulas: "
             "on 1 January of this year), a date that is none (formulas: rolled on), \"50%\" (formulas: #VALUE!): "
             "calc/xlfuncs/text/value_text.py; then formulas': calc/xlfuncs/text/numbers.py",
    **{name: "one x variable: #VALUE! for a single new x, #REF! for points in columns, a column for a row of new "
             "x's (formulas'); several x variables stay formulas': calc/xlfuncs/statistical/trend.py" for name in trend.FUNCTIONS},
    "EDATE": "computed here on plain dates after February 1900, as formulas' (a property test), a hundred "
             "times faster; the rest formulas' (Excel's coercions, ranges and arrays: +19): calc/xlfuncs/dates/daycount.py",
    "EOMONTH": "as EDATE (formulas': +20)",
    "YEARFRAC": "basis 1 over two dates less than a year apart across a year end divided by the average "
                "year (formulas: YEARFRAC(31 Dec 2023, 31 Jan 2024, 1) was 31/365.5, Excel 31/365): every basis "
                "by Wheeler's reading of Excel (Apache POI's), checked against LibreOffice: calc/xlfuncs/dates/daycount.py",
    "DATEDIF": "\"MD\" as Excel counts it (formulas: 15 days where Excel gives 12, 1 where Microsoft documents "
               "-2), checked against LibreOffice; its other units formulas': calc/xlfuncs/dates/daycount.py",
    "DAVERAGE": "formualizer's database functions were off on 69 of Excel 16's 506 cells in IronCalc's DATABASE_* "
                "books (a text condition matched whole, not as a beginning; labels that are numbers or booleans not "
                "found; an empty criteria row picking nothing); ours all 506, by Microsoft's rules; computed criteria "
                "listed: calc/xlfuncs/database.py",
    **{name: "as DAVERAGE" for name in database.FUNCTIONS if name != "DAVERAGE"},
    limits.TEXT_LIMIT_NAME: "a join (&, CONCATENATE) past a cell's 32,767 characters as #VALUE!, inside a formula "
                            "too (formualizer: no limit): calc/formula/text_limit.py",
    reference_text.NAME: "INDIRECT's text checked as Excel reads it: #REF! for a word naming nothing, an empty cell, "
                         "a number, a sheet the book lacks (formualizer: #NAME?, #VALUE!, or another sheet's cell); "
                         "R1C1 text given a1 FALSE read for the formula's cell (formualizer: #REF!): "
                         "calc/xlfuncs/lookup/reference_text.py",
    unions.NAME: "a union of ranges, `(B1,B3)`, as RANK's reference (formualizer knows no union: #VALUE!): "
                 "calc/formula/unions.py, calc/xlfuncs/lookup/unions.py",
    concatenation.NAME: "a number joined by & or CONCATENATE as Excel's text, 15 significant digits (formualizer: "
                        "17, \"0.30000000000000004\" for 0.1+0.2): calc/xlfuncs/text/concatenation.py",
    comparison.NAME: "an operand of =, <>, <, >, <=, >= rounded to 15 significant digits for the comparison, as "
                     "Excel compares (formualizer and formulas: `=0.1+0.2=0.3` FALSE, Excel TRUE): "
                     "calc/xlfuncs/logical/comparison.py",
    comparison.SNAP: "as RATESXL.CMPROUND, one call for both operands where one is a cell or a number: "
                     "calc/xlfuncs/logical/comparison.py",
    number_text.NAME: "a text a formula answers, where one of formualizer's functions wants a number, read as "
                      "Excel reads it (formualizer: #VALUE! for a date or a time): calc/formula/number_arguments.py",
}

#: Excel functions formualizer does not know, computed through a rewriting of the formula
#: (calc/xlfuncs/logical/lambdas.py) -> what the rewriting is and what it was measured to give.
_MEASURED = {"SCAN": 48, "MAKEARRAY": 33, "BYROW": 30, "BYCOL": 15, "REDUCE": 15, "MAP": 11}
REWRITTEN = {
    **{name: f"formualizer does not know it: computed by `formulas`' implementation through "
             f"RATESXL.LAMBDA (formulas_test: {_MEASURED[name]} cells not computed -> equal)"
       for name in sorted(lambdas.TAKING_LAMBDA)},
    "LAMBDA": "called in place, written as LET (formualizer's own): 2 cells not computed -> equal",
}


def handled() -> set[str]:
    """Names a stored formula may call that formualizer does not know but we compute. Not
    LAMBDA: one left after the rewriting (kept in a LET, a named LAMBDA) is unknown to the
    engine, and its formula is listed as not computed."""
    return (set(OURS) | set(REWRITTEN)) - {"LAMBDA"}


def callbacks(facts: Facts | None = None) -> dict[str, Callback]:
    """Every replacement callback by the name the engine knows (with Excel's prefixes)."""
    from rates_xl.calc import routing
    from rates_xl.calc.xlfuncs import bridge, limits

    facts = facts or {}
    found: dict[str, Callback] = {}
    for name in routing.BRIDGED:
        found[name] = bridge.bridged(name)
    for name, factory in OURS.items():
        call = factory(facts)
        # Functions that tell an omitted argument from an empty cell read the marker themselves.
        found[name] = call if getattr(call, "reads_omitted", False) else _reading_omitted(call)
        if name in limits.GROWING_TEXT:  # a text past a cell's limit: #VALUE! (limits.py)
            found[name] = limits.capped(found[name])
    for name in multiples.NAMES:  # a multiple read on 15 significant digits (math_trig/multiples.py)
        found[name] = multiples.exact(name, found.get(name) or bridge.bridged(name))
    for name in binomial.PROBABILITY_AT:  # #NUM! for a probability of 0 or 1 (statistical/binomial.py)
        found[name] = binomial.probability_checked(name, found.get(name) or bridge.bridged(name))
    for name in tails.NORMAL:  # the cumulative normal's lower tail (statistical/tails.py)
        found[name] = tails.lower_tail(name, found.get(name) or bridge.bridged(name))
    for name in tails.TRUNCATED:  # POISSON.DIST's x, T.TEST's tails and type truncated (statistical/tails.py)
        found[name] = tails.whole_numbers(name, found.get(name) or bridge.bridged(name))
    for name in bits.IMPLEMENTATIONS:  # Excel's 2^48 - 1 and its #NUM! past it (engineering/bits.py)
        found[name] = bits.excel_bits(name, found.get(name) or bridge.bridged(name))
    found["COMPLEX"] = complex.suffix_default(found.get("COMPLEX") or bridge.bridged("COMPLEX"))  # empty: "i"
    found["IMARGUMENT"] = complex.argument(found.get("IMARGUMENT") or bridge.bridged("IMARGUMENT"))
    found["ROMAN"] = roman.logical_form(found.get("ROMAN") or bridge.bridged("ROMAN"))  # FALSE: form 4
    found["FREQUENCY"] = frequency.bins_in_place(found.get("FREQUENCY") or bridge.bridged("FREQUENCY"))
    for name in ("LINEST", "LOGEST"):  # their standard errors under their coefficients (statistical/trend.py)
        found[name] = trend.stats_in_excels_order(found.get(name) or bridge.bridged(name))
    if facts.get("date1904"):  # dates counted from 1904: dates/system1904.py
        found.update({name: bridge.bridged(name) for name in system1904.NATIVE})
        for name in system1904.DATES.keys() & found.keys():
            found[name] = system1904.shifted(name, found[name])
        for name in system1904.FROM_TEXT.keys() & found.keys():
            found[name] = system1904.from_text(name, found[name])
        for name in ("VALUE", number_text.NAME):  # a date read out of text
            found[name] = system1904.value(found[name])
        found = {name: system1904.serials(call) for name, call in found.items()}
        found["TODAY"], found["NOW"] = system1904.today(), system1904.now()
    return found


def _reading_omitted(call: Callback) -> Callback:
    from rates_xl.calc.xlfuncs.omitted import OMITTED, given

    def wrapped(*args: EngineValue) -> Answer:
        # Most calls omit nothing: `in` (a comparison per argument, in C) finds that first.
        return call(*given(args)) if OMITTED in args else call(*args)

    wrapped.__name__ = call.__name__
    return wrapped


#: OURS' names, for the pass `ours_omitted` (built once: it is asked for every formula).
OURS_NAMES = frozenset(OURS)


def register(workbook: Workbook, facts: Facts | None = None) -> None:
    """Register the replacements with a formualizer workbook, under every spelling a stored
    formula may use (`_xlfn.`, `_xlfn._xlws.`)."""
    for name, call in callbacks(facts).items():
        for spelling in (name, f"_XLFN.{name}", f"_XLFN._XLWS.{name}"):
            try:
                workbook.register_function(spelling, call, volatile=False, deterministic=True,
                                           allow_override_builtin=True)
            except Exception:  # noqa: BLE001 - a spelling the engine refuses: the others stay
                continue


def book_facts(package: Package, book: OpenpyxlWorkbook | None = None) -> Facts:
    """What some functions need to know of the book (calc/package.py `Package`): the
    application that saved it, for CHAR and CODE (Mac Roman in Excel for Mac, Windows-1252
    elsewhere); of `book` (openpyxl's, when given) its sheets' titles and its defined names and
    tables, for INDIRECT's text (lookup/reference_text.py), and its date system (dates/system1904.py)."""
    from openpyxl.utils.datetime import CALENDAR_MAC_1904

    facts: Facts = {"application": package.application()}
    if book is not None:
        facts["date1904"] = getattr(book, "epoch", None) == CALENDAR_MAC_1904
        facts["sheets"] = frozenset(ws.title.upper() for ws in book.worksheets)
        from rates_xl.calc.formula.defined_names import is_reference

        # (a name of a constant or a formula is none INDIRECT reads: #REF!, reference_text.py)
        names = {str(name).upper() for name, defined in book.defined_names.items() if is_reference(defined.attr_text)}
        for ws in book.worksheets:
            names |= {str(name).upper() for name, defined in getattr(ws, "defined_names", {}).items()
                      if is_reference(defined.attr_text)}
            names |= {str(table.displayName).upper() for table in getattr(ws, "tables", {}).values()}
        facts["names"] = frozenset(names)
    return facts
