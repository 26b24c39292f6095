"""The RATES_* functions inside the `formulas` engine, and the fixes it needs (headless Excel
calculation; the table and the valuation pin are calc/engines/rates.py's).

`formulas` (EUPL) parses a workbook into a graph and computes it without Excel. Four of its
habits shape this module:

* Functions are looked up at parse time in one process-wide table (`formulas.get_functions()`),
  so ours must be registered *before* a workbook is loaded; a name it does not know becomes
  `#NAME?` without a word, hence `unknown_functions`, a static check run before computing.
* A formula whose arguments are all constants is computed once while the workbook loads.
  Ours must be re-evaluated in every planning round, so they are registered the way
  `formulas` registers NOW() and RAND(): impure, skipped at compile time.
* Functions receive `Ranges` and numpy arrays, `schedula.EMPTY` for empty cells and serial
  numbers for dates; the adapter below turns those into what Excel (and xlwings) passes a
  UDF, and turns answers back (2-D lists to arrays, dates to serial numbers).
* `INDEX(range, 0, n)` gives the first element instead of column n; `INDEX` is wrapped to
  slice whole rows and columns as Excel does (see `_fixed_index`).
* `WORKDAY` fails when it starts on a weekend or holiday (numpy's default roll is "raise");
  Excel counts from there, so it is re-registered with the roll Excel implies.
* An omitted argument (`RATES_SWAP(a,b,c,d,,,,t)`) reaches a function as 0; Excel hands a
  UDF "missing". The pass `rates_omitted` (calc/formula/arguments.py) rewrites the engine's
  copy of RATES_* calls so an omitted argument arrives as "" (not given).
"""

from __future__ import annotations

import collections
import functools
import threading
from collections.abc import Callable, Iterable
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from rates_xl.calc.engines import rates
from rates_xl.functions import errors
from rates_xl.functions.tokens import function_names
from rates_xl.functions.values import to_serial

if TYPE_CHECKING:
    from rates_xl.calc.sources import InternalFunction
    from rates_xl.functions.core import FunctionSpec

_lock = threading.Lock()
_registered: dict[str, FunctionSpec | InternalFunction] | None = None  # Excel name -> spec, once registered


def register_functions(table: dict[str, FunctionSpec | InternalFunction] | None = None
                       ) -> dict[str, FunctionSpec | InternalFunction]:
    """Register every RATES_* function (and the INDEX fix) in the `formulas` engine.

    Idempotent; call before loading a workbook. Returns the registered table.
    """
    global _registered
    import formulas

    from rates_xl.calc.xlfuncs import scipy_deferred
    from rates_xl.calc.xlfuncs.dates import text_dates

    scipy_deferred.stat()
    with _lock:
        table = rates.function_table() if table is None else table
        if _registered is table:
            return table
        engine = formulas.get_functions()
        for excel_name, spec in table.items():
            entry = impure(_adapt(excel_name, spec))
            for alias in rates.engine_names(excel_name):
                engine[alias] = entry
        if not getattr(engine["INDEX"], "rates_xl_fixed", False):
            engine["INDEX"] = _fixed_index(engine["INDEX"])
        _fix_workday(engine)
        _fix_arithmetic()
        text_dates.install()  # date text read as Excel reads it (calc/xlfuncs/dates/text_dates.py)
        for name in OURS_HERE:
            engine[name] = _ours(name)
        _registered = table
        return table


# -- the static check ------------------------------------------------------------------------
#: What the engine's parser computes itself, with no entry in its function table
#: (formulas/tokens/function.py reads `LET(` apart from other calls; its `LAMBDA(` answered
#: #VALUE! for `=LAMBDA(y,y*3)(A2)`, so a LAMBDA stays unknown: kept at Excel's value).
PARSED = frozenset({"LET"})


def known_to_engine(name: str) -> bool:
    """Whether the engine computes `name` (registered and not a placeholder)."""
    import formulas
    from formulas.functions import not_implemented

    from rates_xl.calc.xlfuncs import scipy_deferred

    upper = name.upper()
    if upper in PARSED:
        return True
    scipy_deferred.stat()
    engine = formulas.get_functions()
    for candidate in (upper, f"_XLFN.{upper}", f"_XLFN._XLWS.{upper}"):
        if candidate in engine and engine[candidate] is not not_implemented:
            return True
    return False


def unknown_functions(formulas_by_cell: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """{function name: [cell addresses]} for every call the engine would turn into #NAME?."""
    found: dict[str, list[str]] = collections.defaultdict(list)
    for address, formula in formulas_by_cell:
        for name in sorted(function_names(formula)):  # functions/tokens.py
            if not known_to_engine(name):
                found[name].append(address)
    return dict(found)


# -- value conversion between the engine and Excel-style Python values ------------------------
def from_engine(value: Any) -> Any:
    """One argument as Excel hands it to a UDF: a scalar, None for empty, or a 2-D list."""
    import numpy as np
    import schedula as sh
    from formulas.ranges import Ranges

    if isinstance(value, Ranges):
        value = value.value
    if isinstance(value, np.ndarray):
        if value.size == 1:
            value = value.ravel()[0]
        else:
            return [[scalar_from_engine(v) for v in row] for row in np.atleast_2d(value)]
    if value is sh.EMPTY:
        return None
    return scalar_from_engine(value)


def scalar_from_engine(value: Any) -> Any:
    if type(value) in _PLAIN:  # exactly Python's (numpy's float64 is a float): nothing to convert
        return value
    import numpy as np
    import schedula as sh

    if value is sh.EMPTY:
        return None
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.str_):
        return str(value)
    return value


#: Python's own scalar types, which `scalar_from_engine` hands back as they are.
_PLAIN = frozenset({float, int, str, bool})


def to_engine(value: Any) -> Any:
    """A UDF's answer as the engine stores it: a 2-D object array (Excel's shape).

    Where the stored spill range is larger than the answer the engine pads with the array's
    `_default`; ours is empty (what Excel shows when a spill shrinks), not #N/A.
    """
    import numpy as np

    rows = value if isinstance(value, list) else [[value]]
    rows = [row if isinstance(row, list | tuple) else [row] for row in rows]
    width = max((len(row) for row in rows), default=1)
    out = np.empty((max(len(rows), 1), width), dtype=object)
    out[:] = ""
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            out[i, j] = _scalar_to_engine(cell)
    return out.view(_spill_array_class())


_SPILL_ARRAY: type | None = None


def _spill_array_class() -> type:
    global _SPILL_ARRAY
    if _SPILL_ARRAY is None:
        import schedula as sh
        from formulas.functions import Array

        def reshape(self: Any, shape: Any, *shapes: Any, order: str = "C") -> Any:
            # The engine fits a result to the range the file stores (grown over the empty cells
            # beside it, engine.py): one that does not fit was laid into it row by row (a
            # 2-column curve in a 1-column range read Tenor, Rate, 1W, ... down one column).
            # Excel shows #SPILL! in the anchor when a spill is blocked; so does this copy.
            # A smaller result sits in the range's top-left corner, the rest empty (the engine
            # would repeat a one-column result across a wider range).
            import numpy as np
            from formulas.tokens.operand import XlError

            target = tuple(shape) if not shapes else (shape, *shapes)
            if len(target) != 2 or self.ndim != 2 or tuple(self.shape) == target:
                return Array.reshape(self, shape, *shapes, order=order)
            out = np.empty(target, dtype=object).view(type(self))
            out[:, :] = sh.EMPTY
            if self.size > 1 and (self.shape[0] > target[0] or self.shape[1] > target[1]):
                out[0, 0] = XlError("#SPILL!")  # not one of the engine's own errors; its text is
            else:
                out[:self.shape[0], :self.shape[1]] = self
            return out

        _SPILL_ARRAY = type("SpillArray", (Array,), {"_default": sh.EMPTY, "reshape": reshape})
    return _SPILL_ARRAY


def _scalar_to_engine(value: Any) -> Any:
    from formulas.tokens.operand import Error

    from rates_xl.functions.errors import CELL_TEXT

    if isinstance(value, str) and value in CELL_TEXT.values():  # a failed cell, or Fill=NA (errors.shown)
        return Error.errors[value]
    if isinstance(value, date):
        return to_serial(value)
    if value is None:
        return ""
    return value


def _is_xl_error(value: Any) -> bool:
    from formulas.tokens.operand import XlError

    return isinstance(value, XlError)


def _adapt(excel_name: str, spec: FunctionSpec | InternalFunction) -> Callable[..., Any]:
    def call(*raw: Any) -> Any:
        args = [from_engine(a) for a in raw]
        error = rates.first_error(args, _is_xl_error)
        if error is not None:
            return to_engine(error)
        try:
            result = rates.call(spec, args)
        except Exception as exc:  # the function layer should never raise; stay a cell value
            result = f"#RATES! {excel_name}: {type(exc).__name__}"[:254]
        # A failing call is an error value, as in Excel (a SUM over it is an error too); its
        # message is kept for the summary (functions/errors.engine_value, issue 28).
        return to_engine(errors.engine_value(excel_name, args, result, rates.context()))

    call.__name__ = excel_name
    return call


def impure(func: Callable[..., Any]) -> dict[str, Any]:
    """Registered like NOW(): not computed while loading, computed on every calculation."""
    from formulas.functions import COMPILING, wrap_impure_func

    return {
        "extra_inputs": collections.OrderedDict([(COMPILING, False)]),
        "function": wrap_impure_func(func),
    }


#: Functions this engine computes with calc/xlfuncs' implementation (the fast engine's), where
#: its own differs from Excel: TEXT rounds half to even (TEXT(1234.5,"0") "1234", Excel "1235"),
#: reads a format from a cell holding 0 as the number 0 and an empty one as "General", misreads
#: sections and scaling commas (docs/templates-and-calc.md's routing table); RATESXL.CMPROUND,
#: the operand of a comparison rounded as Excel compares (the pass `excel_comparisons`), and
#: RATESXL.CMPSNAP, both operands of one in one call; LOOKUP, whose vector form given a range of
#: two columns answered from its last row where Excel searches the first column (pycel's
#: Excel-made lookup.xlsx, Lookup!C28:G30; tests/calc/test_model_classes.py); HOUR, MINUTE and
#: SECOND, whose own rounded the seconds alone (SECOND of 10:37:59.52 was 60: dates/clock.py);
#: UPPER, LOWER and TRIM, whose own mapped "ß" to "SS" and trimmed tabs and CHAR(160), and PROPER
#: (text/case.py).
OURS_HERE = ("TEXT", "RATESXL.CMPROUND", "RATESXL.CMPSNAP", "LOOKUP", "HOUR", "MINUTE", "SECOND",
             "UPPER", "LOWER", "TRIM", "PROPER")


def _ours(name: str) -> Callable[..., object]:
    """calc/xlfuncs' callback for `name` in this engine: its arguments as formualizer hands them
    (calc/xlfuncs/bridge.py's conversions, the other way round), its answer back."""
    import numpy as np
    from formulas.functions import wrap_func

    from rates_xl.calc.xlfuncs import callbacks
    from rates_xl.calc.xlfuncs.bridge import from_formulas, to_formulas

    call = callbacks()[name]

    def ours(*args: object) -> object:
        answer = to_formulas(call(*[from_formulas(a) for a in args]))
        return answer if isinstance(answer, np.ndarray) else np.asarray([[answer]], object)

    ours.__name__ = name
    return wrap_func(ours)


def _fixed_index(original: dict[str, Any]) -> dict[str, Any]:
    """INDEX with Excel's meaning of row 0 / column 0 (the whole column / row), #REF! for a
    column or row past the range beside it (`INDEX(A1:B2,0,3)` was 0)."""
    import numpy as np
    import schedula as sh
    from formulas.functions import Array
    from formulas.ranges import Ranges
    from formulas.tokens.operand import Error

    delegate = original["function"]

    def scalar(x: Any) -> Any:
        if isinstance(x, Ranges):
            x = x.value
        if isinstance(x, np.ndarray):
            x = x.ravel()[0] if x.size == 1 else None
        return x

    @functools.wraps(delegate)
    def index(compiling: bool, array: Any, row_num: Any = None, col_num: Any = None,
              area_num: Any = None) -> Any:
        if compiling:
            return sh.NONE
        row, col = scalar(row_num), scalar(col_num)
        numbers = (int, float, np.integer, np.floating)
        if (area_num is None and isinstance(row, numbers)
                and (col_num is None or isinstance(col, numbers)) and (row == 0 or col == 0)):
            values = np.atleast_2d(np.asarray(array.value if isinstance(array, Ranges) else array,
                                              dtype=object))
            if row < 0 or (col_num is not None and col < 0):
                return Error.errors["#VALUE!"]  # a negative index, whatever the shape (LOOKUP!R54)
            if (row == 0 and col_num is not None and col > values.shape[1]) or (col == 0 and row > values.shape[0]):
                return Error.errors["#REF!"]  # Microsoft: "does not point to a cell within array"
            if row == 0 and (col_num is None or col == 0):
                return values.view(Array)
            if row == 0:
                return values[:, int(col) - 1:int(col)].view(Array)
            return values[int(row) - 1:int(row), :].view(Array)
        args = [array, row_num] + ([col_num] if col_num is not None else [])
        args += [area_num] if area_num is not None else []
        return delegate(compiling, *args)

    index.rates_xl_fixed = True  # type: ignore[attr-defined]  # a mark on the function object
    fixed = dict(original)
    fixed["function"] = index
    fixed["rates_xl_fixed"] = True
    return _Fixed(fixed)


class _Fixed(dict):
    """A registry entry that remembers it is ours (so registering twice does not nest)."""

    rates_xl_fixed = True


def _fix_arithmetic() -> None:
    """+ - * / ^ % and the negation reading text as Excel does (calc/xlfuncs/text/number_text.py:
    "2024-01-10" is 45301, "12:30" 0.520833, "10 %" 0.1), and ^ answering as Excel's. `formulas`
    read text with Python's float, so `=5+A1` over the text "2024-01-10" was #VALUE! where Excel
    has 45306 (formualizer's arithmetic reads it; tests/calc/test_near_zero.py); text whose
    reading is not settled here answers #NAME?, listed by the check, as RATESXL.NUMBER does. Its
    ^ gave 1 for 0^0 and a complex number for (-8)^(1/3) (tests/calc/test_powers.py). The
    operators are looked up when a formula is compiled, so the table is changed in place, once."""
    from formulas.errors import FoundError
    from formulas.functions import operators, wrap_ufunc
    from formulas.tokens.operand import Error

    from rates_xl.calc.xlfuncs.text.number_text import NOT_COMPUTED, number

    table = operators.OPERATORS
    if getattr(table["+"], "rates_xl_fixed", False):
        return

    def excel_number(value: object) -> float:
        if isinstance(value, str):
            read = number(value)
            if read == NOT_COMPUTED:
                raise FoundError(err=Error.errors["#NAME?"])
            if isinstance(read, str):
                raise ValueError(read)  # the engine's #VALUE!
            return read
        return float(value)  # type: ignore[arg-type]  # (a number or a logical: formulas' own reading)

    def power(x: float, y: float) -> object:
        # Excel's: 0^0 #NUM!, 0 to a negative power #DIV/0!, a negative number to a fraction
        # #NUM! (Python's gives a complex number, which reached the cell), too large #NUM!
        # (calc/formula/powers.py; tests/calc/test_powers.py).
        if x == 0 and y <= 0:
            return Error.errors["#NUM!" if y == 0 else "#DIV/0!"]
        if x < 0 and not float(y).is_integer():
            return Error.errors["#NUM!"]
        try:
            return x ** y
        except OverflowError:
            return Error.errors["#NUM!"]

    arithmetic = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
                  "/": lambda x, y: (x / y) if y else Error.errors["#DIV/0!"], "^": power,
                  "U-": lambda x: -x, "%": lambda x: x / 100.0}
    for name, func in arithmetic.items():
        fixed = wrap_ufunc(func, input_parser=lambda *a: map(excel_number, a))
        fixed.rates_xl_fixed = True
        table[name] = fixed


def _fix_workday(engine: dict[str, Any]) -> None:
    """WORKDAY and WORKDAY.INTL that accept a weekend or holiday start, as Excel does."""
    import numpy as np
    from formulas.functions import date as fdate
    from formulas.functions import wrap_ufunc

    if getattr(engine.get("WORKDAY"), "rates_xl_fixed", False):
        return
    original = fdate.xworkday_intl

    def workday_intl(start_date: Any, days: Any, weekend: Any = 1, holidays: Any = ()) -> Any:
        fdate.raise_errors(start_date)
        fdate.raise_errors(days)
        number = fdate._convert2float(days)
        if number == 0:
            return original(start_date, days, weekend, holidays)
        # Excel does not count the start day: roll a non-working start back (forward when
        # counting backwards) to the nearest working day, then count.
        start = np.datetime64(fdate.datetime.date(*fdate.xday(start_date, slice(0, 3))))
        roll: Literal["backward", "forward"] = "backward" if number > 0 else "forward"
        rolled = np.busday_offset(start, 0, roll=roll, weekmask=_weekmask(weekend), holidays=holidays)
        serial = int((rolled - np.datetime64("1899-12-30")).astype(int))
        return original(serial, days, weekend, holidays)

    holidays_once = _holidays_read_once(fdate.args_xworkday_intl)
    for name in ("WORKDAY", "WORKDAY.INTL", "_XLFN.WORKDAY.INTL"):
        if name not in engine:
            continue
        parser = (holidays_once if "INTL" in name else
                  (lambda start_date, days, hdays=(): holidays_once(start_date, days, 1, hdays, True)))
        fixed = wrap_ufunc(workday_intl, input_parser=lambda *a: a, check_error=lambda *a: None,
                           args_parser=parser, excluded={3})
        fixed.rates_xl_fixed = True
        engine[name] = fixed


def _holidays_read_once(parse: Callable[..., tuple]) -> Callable[..., tuple]:
    """`formulas`' reading of WORKDAY's arguments, its holidays read once per list: it checks and
    converts every holiday at every call (11 ms for a calendar's range; the swap pricer's 1,089
    WORKDAY calls over one list spent 12 of its 46 s there). The list's values and their types
    are the key (TRUE is refused where 1 is a date); a list that raises is read again each time."""
    import numpy as np

    known: dict[tuple, tuple] = {}  # (a few lists a book: emptied past 64)

    def parsed(start_date: object, days: object, weekend: object = 1, holidays: object = (),
               true_err: bool = False) -> tuple:
        key: tuple | None = None
        if isinstance(holidays, np.ndarray):
            try:
                key = (true_err, *((type(v), v) for v in np.ravel(holidays).tolist()))
                hash(key)
            except TypeError:
                key = None
        if key is None:
            return parse(start_date, days, weekend, holidays, true_err)
        dates = known.get(key)
        if dates is None:
            dates = parse(start_date, days, weekend, holidays, true_err)[3]
            if len(known) >= 64:
                known.clear()
            known[key] = dates
        return (*parse(start_date, days, weekend, (), true_err)[:3], dates)

    return parsed


def _weekmask(weekend: Any) -> str:
    masks = {1: "1111100", 2: "0111110", 3: "0011111", 4: "1001111", 5: "1100111", 6: "1110011",
             7: "1111001", 11: "1111110", 12: "0111111", 13: "1011111", 14: "1101111", 15: "1110111",
             16: "1111011", 17: "1111101"}
    if isinstance(weekend, str):
        return "".join("1" if v == "0" else "0" for v in weekend)
    return masks.get(int(weekend), "1111100")
