"""Scalar, statistical, engineering and financial functions computed by the `formulas`
package's implementations (called from formualizer through `bridge.py`), where formualizer
is measured wrong on Excel's answers (bench/excel_corpus.py on ../shared/corpus/excel):
Excel's argument coercions (text "TRUE" read as a boolean in a number argument, a literal ""
in a list of values is #VALUE! while text in a range is skipped, errors first-wins), ranges
given to single-value arguments (Excel applies the function to each element: the `formulas`
implementations lift over arrays themselves), and functions formualizer does not know
(T.TEST, MMULT, the IM* complex family, ODDF*/ODDL*).

Only names and module names here: importing this module costs nothing; `formulas` (and
scipy, for `stat`) is imported at the first call of one of these functions.
"""

from __future__ import annotations

#: Function -> the `formulas.functions` submodule that defines it.
MODULES: dict[str, str] = {
    **dict.fromkeys("""
        NORMDIST NORMINV NORMSDIST NORMSINV CRITBINOM HYPGEOMDIST
        CHITEST FTEST PERCENTRANK TTEST ZTEST
    """.split(), "comp"),
    **dict.fromkeys("""
        DATEDIF EDATE EOMONTH TIMEVALUE WEEKDAY WEEKNUM HOUR MINUTE SECOND
    """.split(), "date"),
    **dict.fromkeys("""
        BESSELI BESSELJ BESSELK BESSELY BIN2DEC BIN2HEX BIN2OCT BITAND BITLSHIFT BITOR
        BITRSHIFT BITXOR COMPLEX DEC2BIN DEC2HEX DEC2OCT DELTA ERF ERF.PRECISE ERFC
        ERFC.PRECISE GESTEP HEX2BIN HEX2DEC HEX2OCT IMABS IMAGINARY IMARGUMENT
        IMCONJUGATE IMCOS IMCOSH IMCOT IMCSC IMCSCH IMEXP IMLN IMLOG10 IMLOG2 IMPOWER
        IMPRODUCT IMREAL IMSEC IMSECH IMSIN IMSINH IMSQRT IMSUB IMSUM IMTAN OCT2BIN
        OCT2DEC OCT2HEX
    """.split(), "eng"),
    **dict.fromkeys("""
        CUMIPMT FV NPER ODDFPRICE ODDFYIELD ODDLPRICE ODDLYIELD RATE XNPV
    """.split(), "financial"),
    **dict.fromkeys("""
        ERROR.TYPE
    """.split(), "info"),
    **dict.fromkeys("""
        ACOT ACOTH ARABIC CEILING.MATH COT COTH CSC CSCH DECIMAL FACTDOUBLE FLOOR.MATH
        MDETERM MINVERSE MMULT PERCENTOF POWER ROMAN SEC SECH SQRTPI
    """.split(), "math"),
    **dict.fromkeys("""
        BETA.DIST BETA.INV BINOM.DIST BINOM.DIST.RANGE BINOM.INV CHISQ.DIST
        CHISQ.DIST.RT CHISQ.INV CHISQ.INV.RT CHISQ.TEST CONFIDENCE.NORM CONFIDENCE.T
        CORREL COVARIANCE.P COVARIANCE.S EXPON.DIST F.DIST F.DIST.RT F.INV F.INV.RT
        F.TEST FISHER FISHERINV FORECAST.ETS FORECAST.ETS.CONFINT
        FORECAST.ETS.SEASONALITY FORECAST.ETS.STAT GAMMA GAMMA.DIST GAMMA.INV GAMMALN
        GAMMALN.PRECISE GAUSS GROWTH HYPGEOM.DIST INTERCEPT KURT LINEST LOGEST
        LOGNORM.DIST LOGNORM.INV MODE.MULT MODE.SNGL NEGBINOM.DIST NORM.DIST NORM.INV
        NORM.S.DIST NORM.S.INV PEARSON PERCENTRANK.EXC PERCENTRANK.INC PERMUT
        PERMUTATIONA PHI POISSON.DIST PROB RSQ SKEW.P SLOPE STANDARDIZE STDEVA STDEVPA
        STEYX T.DIST T.DIST.2T T.DIST.RT T.INV T.INV.2T T.TEST TREND TRIMMEAN VARA VARPA
        WEIBULL.DIST Z.TEST
    """.split(), "stat"),
    **dict.fromkeys("""
        ASC BAHTTEXT FINDB LEFT LEFTB LENB MID MIDB REPLACE REPLACEB REPT RIGHT RIGHTB
        SEARCHB UNICHAR UNICODE
    """.split(), "text"),
}

#: Why each is bridged: what formualizer gets wrong, and the cells of ../shared/corpus/excel
#: equal to Excel's gained (and lost, in brackets: listed as stale, never silent) with
#: `python -m bench.excel_corpus --full`, main c63ff2d -> this routing.
WHY: dict[str, str] = {
    "ACOT": "Excel's coercions, ranges and arrays in its arguments: +16",
    "ACOTH": "Excel's coercions, ranges and arrays in its arguments: +16",
    "ARABIC": "Excel's coercions, ranges and arrays in its arguments: +16",
    "ASC": "Excel's coercions, ranges and arrays in its arguments: +18",
    "BAHTTEXT": "formualizer does not know it: +8",
    "BESSELI": "Excel's coercions, ranges and arrays in its arguments: +11 (-6)",
    "BESSELJ": "Excel's coercions, ranges and arrays in its arguments: +18",
    "BESSELK": "Excel's coercions, ranges and arrays in its arguments: +17 (-1)",
    "BESSELY": "Excel's coercions, ranges and arrays in its arguments: +17",
    "BETA.DIST": "Excel's coercions, ranges and arrays in its arguments: +20",
    "BETA.INV": "Excel's coercions, ranges and arrays in its arguments: +20",
    "BIN2DEC": "Excel's coercions, ranges and arrays in its arguments: +1",
    "BIN2HEX": "Excel's coercions, ranges and arrays in its arguments: +2",
    "BIN2OCT": "Excel's coercions, ranges and arrays in its arguments: +2",
    "BINOM.DIST": "Excel's coercions, ranges and arrays in its arguments: +21",
    "BINOM.DIST.RANGE": "Excel's coercions, ranges and arrays in its arguments: +21",
    "BINOM.INV": "Excel's coercions, ranges and arrays in its arguments: +18",
    "BITAND": "Excel's coercions, ranges and arrays in its arguments: +17",
    "BITLSHIFT": "Excel's coercions, ranges and arrays in its arguments: +14",
    "BITOR": "Excel's coercions, ranges and arrays in its arguments: +14",
    "BITRSHIFT": "Excel's coercions, ranges and arrays in its arguments: +14",
    "BITXOR": "Excel's coercions, ranges and arrays in its arguments: +14",
    "CEILING.MATH": "Excel's coercions, ranges and arrays in its arguments: +3",
    "CHISQ.DIST": "Excel's coercions, ranges and arrays in its arguments: +20",
    "CHISQ.DIST.RT": "Excel's coercions, ranges and arrays in its arguments: +19",
    "CHISQ.INV": "Excel's coercions, ranges and arrays in its arguments: +19",
    "CHISQ.INV.RT": "Excel's coercions, ranges and arrays in its arguments: +18",
    "CHISQ.TEST": "Excel's coercions, ranges and arrays in its arguments: +32",
    "COMPLEX": "Excel's coercions, ranges and arrays in its arguments: +18",
    "CONFIDENCE.NORM": "Excel's coercions, ranges and arrays in its arguments: +19",
    "CONFIDENCE.T": "Excel's coercions, ranges and arrays in its arguments: +20",
    "CORREL": "Excel's coercions, ranges and arrays in its arguments: +2",
    "COT": "Excel's coercions, ranges and arrays in its arguments: +16",
    "COTH": "Excel's coercions, ranges and arrays in its arguments: +16",
    "COVARIANCE.P": "Excel's coercions, ranges and arrays in its arguments: +2",
    "COVARIANCE.S": "Excel's coercions, ranges and arrays in its arguments: +2",
    "CSC": "Excel's coercions, ranges and arrays in its arguments: +16",
    "CSCH": "Excel's coercions, ranges and arrays in its arguments: +16",
    "CUMIPMT": "Excel's coercions, ranges and arrays in its arguments: +23",
    "DEC2BIN": "Excel's coercions, ranges and arrays in its arguments: +1",
    "DEC2HEX": "Excel's coercions, ranges and arrays in its arguments: +1",
    "DEC2OCT": "Excel's coercions, ranges and arrays in its arguments: +1",
    "DECIMAL": "Excel's coercions, ranges and arrays in its arguments: +16 (-1)",
    "DELTA": "Excel's coercions, ranges and arrays in its arguments: +18",
    "ERF": "Excel's coercions, ranges and arrays in its arguments: +19",
    "ERF.PRECISE": "Excel's coercions, ranges and arrays in its arguments: +18",
    "ERFC": "Excel's coercions, ranges and arrays in its arguments: +18",
    "ERFC.PRECISE": "Excel's coercions, ranges and arrays in its arguments: +18",
    "CRITBINOM": "BINOM.INV's own (Microsoft: CRITBINOM is BINOM.INV's predecessor); formualizer's answered "
                 "10 for CRITBINOM(10,0,0.5) (by its definition: 0) and #NUM! for 1E+10 trials",
    "HYPGEOMDIST": "HYPGEOM.DIST's density after Microsoft's HYPGEOMDIST domain checks (calc/xlfuncs/limits.py); "
                   "formualizer's answered 5.5E-12 for HYPGEOMDIST(1,4,8,1E+15) (exact: 3.2E-14)",
    "ERROR.TYPE": "Excel's coercions, ranges and arrays in its arguments: +17 (-1)",
    "EXPON.DIST": "Excel's coercions, ranges and arrays in its arguments: +20",
    "F.DIST": "Excel's coercions, ranges and arrays in its arguments: +20",
    "F.DIST.RT": "Excel's coercions, ranges and arrays in its arguments: +19",
    "F.INV": "Excel's coercions, ranges and arrays in its arguments: +19",
    "F.INV.RT": "Excel's coercions, ranges and arrays in its arguments: +18",
    "F.TEST": "Excel's coercions, ranges and arrays in its arguments: +31",
    "FACTDOUBLE": "Excel's coercions, ranges and arrays in its arguments: +18",
    "FINDB": "Excel's coercions, ranges and arrays in its arguments: +17",
    "FISHER": "Excel's coercions, ranges and arrays in its arguments: +18",
    "FISHERINV": "Excel's coercions, ranges and arrays in its arguments: +18",
    "FLOOR.MATH": "Excel's coercions, ranges and arrays in its arguments: +35",
    "FORECAST.ETS": "formualizer does not know it: +7",
    "FORECAST.ETS.CONFINT": "formualizer does not know it: +7",
    "FORECAST.ETS.SEASONALITY": "formualizer does not know it: +11",
    "FORECAST.ETS.STAT": "formualizer does not know it: +7",
    "FV": "Excel's coercions, ranges and arrays in its arguments: +17 (-3)",
    "GAMMA": "Excel's coercions, ranges and arrays in its arguments: +19",
    "GAMMA.DIST": "Excel's coercions, ranges and arrays in its arguments: +20",
    "GAMMA.INV": "Excel's coercions, ranges and arrays in its arguments: +18",
    "GAMMALN": "Excel's coercions, ranges and arrays in its arguments: +18",
    "GAMMALN.PRECISE": "Excel's coercions, ranges and arrays in its arguments: +18",
    "GAUSS": "Excel's coercions, ranges and arrays in its arguments: +18",
    "GESTEP": "Excel's coercions, ranges and arrays in its arguments: +18",
    "HEX2BIN": "Excel's coercions, ranges and arrays in its arguments: +10",
    "HEX2DEC": "Excel's coercions, ranges and arrays in its arguments: +10",
    "HEX2OCT": "Excel's coercions, ranges and arrays in its arguments: +10",
    "HOUR": "a time given as text (\"6:45 PM\", Microsoft's HOUR page: 18; formualizer: #VALUE!)",
    "MINUTE": "as HOUR",
    "SECOND": "as HOUR",
    "HYPGEOM.DIST": "Excel's coercions, ranges and arrays in its arguments: +21",
    "IMABS": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMAGINARY": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMARGUMENT": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMCONJUGATE": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMCOS": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMCOSH": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMCOT": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMCSC": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMCSCH": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMEXP": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMLN": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMLOG10": "Excel's coercions, ranges and arrays in its arguments: +19",
    "IMLOG2": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMPOWER": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMPRODUCT": "Excel's coercions, ranges and arrays in its arguments: +19",
    "IMREAL": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMSEC": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMSECH": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMSIN": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMSINH": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMSQRT": "Excel's coercions, ranges and arrays in its arguments: +18",
    "IMSUB": "Excel's coercions, ranges and arrays in its arguments: +22",
    "IMSUM": "Excel's coercions, ranges and arrays in its arguments: +32",
    "IMTAN": "Excel's coercions, ranges and arrays in its arguments: +18",
    "INTERCEPT": "Excel's coercions, ranges and arrays in its arguments: +2",
    "KURT": "Excel's coercions, ranges and arrays in its arguments: +2",
    "LEFT": "Excel's coercions, ranges and arrays in its arguments: +15",
    "LEFTB": "Excel's coercions, ranges and arrays in its arguments: +18",
    "LENB": "Excel's coercions, ranges and arrays in its arguments: +17",
    "LINEST": "Excel's coercions, ranges and arrays in its arguments: +6",
    "LOGEST": "Excel's coercions, ranges and arrays in its arguments: +6",
    "LOGNORM.DIST": "Excel's coercions, ranges and arrays in its arguments: +20",
    "LOGNORM.INV": "Excel's coercions, ranges and arrays in its arguments: +18",
    "MDETERM": "formualizer does not know it: +19",
    "MID": "Excel's coercions, ranges and arrays in its arguments: +13",
    "MIDB": "Excel's coercions, ranges and arrays in its arguments: +17",
    "MINVERSE": "formualizer does not know it: +49",
    "MMULT": "formualizer does not know it: +88",
    "MODE.MULT": "Excel's coercions, ranges and arrays in its arguments: +10",
    "MODE.SNGL": "Excel's coercions, ranges and arrays in its arguments: +30",
    "NEGBINOM.DIST": "Excel's coercions, ranges and arrays in its arguments: +20",
    "NORM.DIST": "Excel's coercions, ranges and arrays in its arguments: +20",
    "NORM.INV": "Excel's coercions, ranges and arrays in its arguments: +18",
    "NORM.S.DIST": "Excel's coercions, ranges and arrays in its arguments: +20",
    "NORM.S.INV": "Excel's coercions, ranges and arrays in its arguments: +18",
    "NORMDIST": "Excel's coercions, ranges and arrays in its arguments: +20",
    "NORMINV": "Excel's coercions, ranges and arrays in its arguments: +18",
    "NORMSDIST": "Excel's coercions, ranges and arrays in its arguments: +18",
    "NORMSINV": "Excel's coercions, ranges and arrays in its arguments: +18",
    "NPER": "Excel's coercions, ranges and arrays in its arguments: +19 (-5)",
    "OCT2BIN": "Excel's coercions, ranges and arrays in its arguments: +3",
    "OCT2DEC": "Excel's coercions, ranges and arrays in its arguments: +2",
    "OCT2HEX": "Excel's coercions, ranges and arrays in its arguments: +3",
    "ODDFPRICE": "formualizer does not know it: +42",
    "ODDFYIELD": "formualizer does not know it: +28",
    "ODDLPRICE": "formualizer does not know it: +3",
    "ODDLYIELD": "formualizer does not know it: +3",
    "PEARSON": "Excel's coercions, ranges and arrays in its arguments: +32",
    "PERCENTOF": "formualizer does not know it: +31",
    "PERCENTRANK.EXC": "Excel's coercions, ranges and arrays in its arguments: +32",
    "PERCENTRANK.INC": "Excel's coercions, ranges and arrays in its arguments: +32",
    "PERMUT": "Excel's coercions, ranges and arrays in its arguments: +17",
    "PERMUTATIONA": "formualizer does not know it: +32",
    "PHI": "Excel's coercions, ranges and arrays in its arguments: +17",
    "POISSON.DIST": "Excel's coercions, ranges and arrays in its arguments: +21",
    "POWER": "Excel's coercions, ranges and arrays in its arguments: +18",
    "PROB": "formualizer does not know it: +32",
    "RATE": "Excel's coercions, ranges and arrays in its arguments: +17",
    "REPLACE": "Excel's coercions, ranges and arrays in its arguments: +14",
    "REPLACEB": "Excel's coercions, ranges and arrays in its arguments: +18",
    "REPT": "Excel's coercions, ranges and arrays in its arguments: +17",
    "RIGHT": "Excel's coercions, ranges and arrays in its arguments: +15",
    "RIGHTB": "Excel's coercions, ranges and arrays in its arguments: +18",
    "ROMAN": "Excel's coercions, ranges and arrays in its arguments: +16",
    "RSQ": "Excel's coercions, ranges and arrays in its arguments: +2",
    "SEARCHB": "Excel's coercions, ranges and arrays in its arguments: +17",
    "SEC": "Excel's coercions, ranges and arrays in its arguments: +16",
    "SECH": "Excel's coercions, ranges and arrays in its arguments: +16",
    "SKEW.P": "Excel's coercions, ranges and arrays in its arguments: +13",
    "SLOPE": "Excel's coercions, ranges and arrays in its arguments: +2",
    "SQRTPI": "Excel's coercions, ranges and arrays in its arguments: +17",
    "STANDARDIZE": "Excel's coercions, ranges and arrays in its arguments: +19",
    "STDEVA": "Excel's coercions, ranges and arrays in its arguments: +2 (-1)",
    "STDEVPA": "Excel's coercions, ranges and arrays in its arguments: +29 (-2)",
    "STEYX": "Excel's coercions, ranges and arrays in its arguments: +31",
    "T.DIST": "Excel's coercions, ranges and arrays in its arguments: +21",
    "T.DIST.2T": "Excel's coercions, ranges and arrays in its arguments: +19",
    "T.DIST.RT": "Excel's coercions, ranges and arrays in its arguments: +19",
    "T.INV": "Excel's coercions, ranges and arrays in its arguments: +18",
    "T.INV.2T": "Excel's coercions, ranges and arrays in its arguments: +18",
    "T.TEST": "Excel's coercions, ranges and arrays in its arguments: +192",
    "TIMEVALUE": "Excel's coercions, ranges and arrays in its arguments: +18",
    "TRIMMEAN": "Excel's coercions, ranges and arrays in its arguments: +32",
    "UNICHAR": "Excel's coercions, ranges and arrays in its arguments: +17",
    "UNICODE": "Excel's coercions, ranges and arrays in its arguments: +17",
    "VARA": "Excel's coercions, ranges and arrays in its arguments: +30 (-1)",
    "VARPA": "Excel's coercions, ranges and arrays in its arguments: +29 (-2)",
    "WEEKDAY": "Excel's coercions, ranges and arrays in its arguments: +17",
    "WEEKNUM": "Excel's coercions, ranges and arrays in its arguments: +18",
    "WEIBULL.DIST": "Excel's coercions, ranges and arrays in its arguments: +20",
    "XNPV": "Excel's coercions, ranges and arrays in its arguments: +19 (-6)",
    "Z.TEST": "Excel's coercions, ranges and arrays in its arguments: +32",
    # The compatibility names (Microsoft: each is its .TEST or .INC function under Excel 2007's
    # name), `formulas`' own aliases of the functions above.
    **{old: f"the compatibility name of {new} (formualizer's own took no range: listed)" for old, new in (
        ("CHITEST", "CHISQ.TEST"), ("FTEST", "F.TEST"), ("PERCENTRANK", "PERCENTRANK.INC"), ("TTEST", "T.TEST"),
        ("ZTEST", "Z.TEST"))},
}

#: Of them, those whose `formulas` implementation takes arrays as Excel does (ranges in
#: every argument, or applied to each element of an array given for one value).
LIFTING = frozenset(MODULES)

#: Arguments (0-based) that take one value, of functions whose `formulas` implementation does
#: not apply itself to each element of an array given there: the bridge does, as Excel does
#: (FORECAST.ETS(C38:Q38, ...) over a legacy array range, IRR with a range of guesses).
SINGLE_VALUE_ARGUMENTS: dict[str, tuple[int, ...]] = {
    "FORECAST.ETS": (0,), "FORECAST.ETS.CONFINT": (3,), "FORECAST.ETS.SEASONALITY": (2,),
    "FORECAST.ETS.STAT": (2,), "BAHTTEXT": (0,), "IRR": (1,),
}

#: Analysis ToolPak functions: given a reference to more than one cell where one value is
#: wanted, Excel answers #VALUE! rather than applying them to each cell (formulas_test.xlsx:
#: EDATE(I9,C9:G9), WEEKNUM(C23:F23), ISODD(C15:Q15), MROUND(C45:G45,2) ... all #VALUE!).
REFUSING_RANGES: dict[str, tuple[int, ...] | None] = {
    **dict.fromkeys("EDATE EOMONTH WEEKNUM YEARFRAC ISODD ISEVEN MROUND".split()),  # any argument
    "XIRR": (2,),  # the guess (XIRR($C$55:$G$55,$C$54:$G$54,D56:Q56) is #VALUE!)
    # the database functions' field (DGET($A$1:$H$11,E1:$F$1,...) is #VALUE!: calc/xlfuncs/database.py)
    **dict.fromkeys("DAVERAGE DCOUNT DCOUNTA DGET DMAX DMIN DPRODUCT DSTDEV DSTDEVP DSUM DVAR DVARP".split(), (1,)),
}

#: Functions (bridged or ours) that apply themselves to each element of an array given where
#: one value is wanted, measured right on the corpus: the analysis lets them take arrays.
TAKING_ARRAYS = frozenset("SEARCH CONVERT IMDIV PPMT IPMT PMT PV".split()) | {"N", "T"}  # N, T: reference.py

#: Arguments that are matrices: a single value there is a 1x1 matrix (MDETERM(B50) of one
#: cell is that value; `formulas` answers #VALUE! for a scalar).
MATRIX_ARGUMENTS: dict[str, tuple[int, ...]] = {"MDETERM": (0,), "MINVERSE": (0,), "MMULT": (0, 1)}
