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
        NORMDIST NORMINV NORMSDIST NORMSINV
    """.split(), "comp"),
    **dict.fromkeys("""
        DATEDIF EDATE EOMONTH TIMEVALUE WEEKDAY WEEKNUM
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
        CUMIPMT FV IPMT NPER NPV ODDFPRICE ODDFYIELD ODDLPRICE ODDLYIELD RATE XNPV
    """.split(), "financial"),
    **dict.fromkeys("""
        ERROR.TYPE
    """.split(), "info"),
    **dict.fromkeys("""
        ACOT ACOTH ARABIC CEILING.MATH COT COTH CSC CSCH DECIMAL FACTDOUBLE FLOOR.MATH
        GCD LCM MDETERM MINVERSE MMULT PERCENTOF POWER ROMAN SEC SECH SQRTPI
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
        SEARCH SEARCHB UNICHAR UNICODE
    """.split(), "text"),
}

#: Why each is bridged (measured: cells of the corpus equal to Excel's, before -> after).
WHY: dict[str, str] = {name: "measuring" for name in MODULES}

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
}

#: Functions (bridged or ours) that apply themselves to each element of an array given where
#: one value is wanted, measured right on the corpus: the analysis lets them take arrays.
TAKING_ARRAYS = frozenset("SEARCH CONVERT IMDIV PPMT PMT PV".split()) | {"N", "T"}  # N, T: reference.py
