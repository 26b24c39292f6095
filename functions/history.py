"""History as desks use it: RATES_SWAPHISTORY's options and its date-by-tenor grid.

Bloomberg's BDH is what rates desks know, so the options read as BDH's do: one `options`
argument of `NAME=VALUE` pairs, `"Per=M Fill=P Days=A Sort=D"`, case and spaces forgiven
(docs/history.md says why one argument and not six). `OPTIONS` is the table of them: each
name, its spellings, its values and what each means; `parse_options` reads a cell against
it, `parse_tenors` reads the tenor argument (one tenor, a range or array of them, or a
comma list), and `grid` turns the service's answers, one per tenor, into the spill.

The grid, in order:

1. the days: from the first close any tenor has to the last (within start and end), the
   days `Days` names: T the index's business days (`client/calendars.py`), W every weekday,
   A every calendar day; a day the service published a close on is always among them, so
   no close is ever dropped;
2. each tenor's value on each day: its close that day, else per `Fill`: P the previous
   close, B an empty cell, NA Excel's #N/A (`messages.NOT_AVAILABLE`);
3. periods (`Per` other than D): one row per calendar week (Monday to Sunday), month,
   quarter, half-year or year, dated by its last day among the days of step 1, holding the
   last close of the period (`Quote=C`, BDH's default) or the average of its closes
   (`Quote=A`); a period without a close is filled as in step 2;
4. `Sort=D` puts the latest row first, `Dts=H` leaves the date column out, `Dir=H` turns
   the table so dates run across; the header row (Date, then each tenor; `Rate` for a single
   tenor given alone) comes first unless `headers` is FALSE.

A tenor the service refused or lacks fails its own column: each of its cells holds the
cell message (`functions/messages.py`) and the other tenors stand.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from rates_xl.functions.args import ArgProblem, scalar, show, tenor
from rates_xl.functions.messages import PREFIX
from rates_xl.functions.values import StoredValue

#: Tenors in one grid: one request each, so a cell's cost stays bounded.
MAX_TENORS = 30
NO_DATA = f"{PREFIX} no data: the service returned no points for this request"


# -- the options ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Option:
    """One BDH-style option: its name, other spellings of the name, and its values
    (canonical value -> (spellings, what it means)); the first value is the default."""

    name: str
    names: tuple[str, ...]
    values: dict[str, tuple[tuple[str, ...], str]]
    what: str  # what the option chooses, for messages and the docs

    @property
    def default(self) -> str:
        return next(iter(self.values))

    def value(self, text: str) -> str | None:
        key = re.sub(r"[\s_/-]", "", text).upper()
        for value, (spellings, _) in self.values.items():
            if key == value or key in spellings:
                return value
        return None


OPTIONS: dict[str, Option] = {o.name: o for o in [
    Option("Per", ("PERIOD", "PERIODICITY"), {
        "D": (("DAILY", "CD"), "daily: one row per day"),
        "W": (("WEEKLY", "CW"), "weekly: one row per calendar week, Monday to Sunday"),
        "M": (("MONTHLY", "CM"), "monthly"),
        "Q": (("QUARTERLY", "CQ"), "quarterly"),
        "S": (("SEMIANNUAL", "SEMIANNUALLY", "CS"), "semi-annual: January to June, July to December"),
        "Y": (("YEARLY", "ANNUAL", "ANNUALLY", "CY"), "yearly"),
    }, "a periodicity"),
    Option("Fill", ("FILLMETHOD",), {
        "P": (("PREVIOUS", "C", "PREV"), "the previous close"),
        "B": (("BLANK",), "an empty cell"),
        "NA": (("N", "NA", "#NA", "NAN"), "Excel's #N/A (a line chart skips it)"),
    }, "a fill"),
    Option("Days", ("DAY",), {
        "T": (("TRADING", "BUSINESS", "ACTIVE"), "the index's business days"),
        "W": (("WEEKDAYS", "WEEKDAY", "N"), "every weekday, Monday to Friday"),
        "A": (("ALL", "C", "CALENDAR"), "every calendar day"),
    }, "a day set"),
    Option("Sort", ("ORDER",), {
        "A": (("ASC", "ASCENDING", "OLDEST"), "oldest first"),
        "D": (("DESC", "DESCENDING", "LATEST", "R", "REVERSE"), "latest first"),
    }, "a sort order"),
    Option("Dts", ("DATES", "DATE"), {
        "S": (("SHOW", "Y", "YES", "TRUE"), "the date column shown"),
        "H": (("HIDE", "N", "NO", "FALSE"), "the date column left out"),
    }, "a date display"),
    Option("Dir", ("DIRECTION", "ORIENTATION"), {
        "V": (("VERTICAL", "DOWN", "ROWS"), "dates down the rows, tenors across"),
        "H": (("HORIZONTAL", "ACROSS", "COLUMNS"), "dates across the columns, tenors down"),
    }, "a direction"),
    Option("Quote", ("QUOTETYPE",), {
        "C": (("CLOSE", "LAST"), "a period's last close"),
        "A": (("AVERAGE", "AVG", "MEAN", "G"), "the average of a period's closes"),
    }, "a quote"),
]}
#: The calendar override (BDH's CDR): any calendar of client/calendars.py, by name or code.
CDR = "CDR"
_CDR_NAMES = ("CDR", "CALENDAR")
_OPTION_BY_NAME = {n: o for o in OPTIONS.values() for n in (o.name.upper(), *o.names)}
#: Periodicities BDH anchors other than on calendar periods: named in the message, not offered.
_ANCHORED = {"A": "anchored on the end date", "F": "fiscal"}


@dataclass(frozen=True)
class HistoryOptions:
    """The options of one history cell, checked; the defaults are BDH's."""

    per: str = "D"
    fill: str = "P"
    days: str = "T"
    sort: str = "A"
    dts: str = "S"
    dir: str = "V"
    quote: str = "C"
    cdr: str | None = None  # a calendar name of client/calendars.py; None: the index's

    def text(self) -> str:
        """The options that differ from the defaults, as one would type them."""
        default = HistoryOptions()
        parts = [f"{o.name}={getattr(self, o.name.lower())}" for o in OPTIONS.values()
                 if getattr(self, o.name.lower()) != getattr(default, o.name.lower())]
        if self.cdr:
            parts.append(f"CDR={self.cdr}")
        return " ".join(parts)


def _option_list() -> str:
    return ", ".join(OPTIONS) + " or CDR"


def parse_options(value: object) -> HistoryOptions:
    """An options cell (or a range of them) -> HistoryOptions; ArgProblem names the option."""
    cells = _cells(value)
    texts = []
    for cell in cells:
        cell = scalar(cell)
        if cell is None:
            continue
        if not isinstance(cell, str):
            raise ArgProblem(f"{show(cell)} is not options text like \"Per=M Fill=P\"")
        texts.append(cell)
    text = re.sub(r"\s*=\s*", "=", " ".join(texts)).strip()
    chosen: dict[str, str] = {}
    canonical: str | None
    for token in re.split(r"[\s,;]+", text) if text else []:
        name, sep, raw = token.partition("=")
        if not sep or not name or not raw:
            raise ArgProblem(f"{show(token)} is not NAME=VALUE; write options like \"Per=M Fill=P\"")
        key = name.upper()
        if key in _CDR_NAMES:
            from rates_xl.client.calendars import CALENDARS, calendar_name

            found = calendar_name(raw)
            if found is None:
                raise ArgProblem(f"CDR={raw}: {raw} is not a calendar rates-xl knows; use one of "
                                 + ", ".join(CALENDARS)[:120] + "...")
            canonical, label = found, CDR
        else:
            option = _OPTION_BY_NAME.get(key)
            if option is None:
                raise ArgProblem(f"{show(name)} is not an option; use {_option_list()} (as in \"Per=M Fill=P\")")
            canonical = option.value(raw)
            if canonical is None:
                values = ", ".join(option.values)
                extra = ""
                if option.name == "Per" and raw[:1].upper() in _ANCHORED and len(raw) == 2:
                    extra = f" (periods {_ANCHORED[raw[:1].upper()]} are not offered: periods are calendar ones)"
                raise ArgProblem(f"{option.name}={raw}: {raw} is not {option.what}{extra}; use "
                                 f"{option.name}={values}")
            label = option.name
        if label in chosen and chosen[label] != canonical:
            raise ArgProblem(f"{label} is given twice ({label}={chosen[label]} and {label}={canonical}); keep one")
        chosen[label] = canonical
    return HistoryOptions(**{("cdr" if k == CDR else k.lower()): v for k, v in chosen.items()})


# -- the tenors -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Tenors:
    """The tenors of one history cell, in the order given. `listed`: given as a range, an
    array or a comma list (the header names each tenor) rather than as one tenor (`Rate`)."""

    items: tuple[str, ...]
    listed: bool


def parse_tenors(value: object) -> Tenors:
    """One tenor, a range or array of them (one row or one column) or a comma list -> Tenors.
    A blank, a duplicate or a non-tenor is named with its place; ArgProblem."""
    if hasattr(value, "tolist") and hasattr(value, "shape"):  # numpy arrays
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        rows = [list(r) if isinstance(r, (list, tuple)) else [r] for r in value]
        height, width = len(rows), max((len(r) for r in rows), default=0)
        if height > 1 and width > 1:
            raise ArgProblem(f"a block of {height} x {width} cells; give one row or one column of tenors")
        cells = [c for r in rows for c in r]
        if len(cells) == 1:
            return parse_tenors(cells[0])
        if all(c is None or isinstance(c, str) and not c.strip() for c in cells):
            raise ArgProblem(f"the range of {len(cells)} cells is empty; put a tenor like 10Y in each")
        where = "cell {n} of the range"
        texts: list[object] = []
        for n, cell in enumerate(cells, 1):
            try:
                cell = scalar(cell)
            except ArgProblem as problem:
                raise ArgProblem(f"{where.format(n=n)}: {problem}") from None
            texts.append(cell)
        return _checked(texts, where, listed=True)
    value = scalar(value)
    if value is None:
        raise ArgProblem("missing; give a tenor like 10Y, a range of tenors or a list like 2Y,5Y,10Y")
    if isinstance(value, str) and re.search(r"[,;]", value):
        return _checked([p.strip() or None for p in re.split(r"[,;]", value)], "item {n} of the list",
                        listed=True)
    return Tenors((tenor(value),), listed=False)


def _checked(texts: Sequence[object], where: str, listed: bool) -> Tenors:
    if len(texts) > MAX_TENORS:
        raise ArgProblem(f"{len(texts)} tenors; one grid takes at most {MAX_TENORS} (one request each)")
    out: list[str] = []
    seen: dict[tuple[int, str], tuple[int, str]] = {}
    for n, text in enumerate(texts, 1):
        if text is None:
            raise ArgProblem(f"{where.format(n=n)} is empty; give a tenor in each (no blanks)")
        try:
            item = tenor(text)
        except ArgProblem as problem:
            raise ArgProblem(f"{where.format(n=n)}: {problem}") from None
        length = _length(item)
        if length in seen:
            m, first = seen[length]
            same = f"{first} appears twice" if first == item else f"{first} and {item} are the same tenor"
            kind, _, container = where.partition(" {n} ")
            raise ArgProblem(f"{same} ({kind}s {m} and {n} {container}); give each tenor once")
        seen[length] = (n, item)
        out.append(item)
    return Tenors(tuple(out), listed)


def _length(item: str) -> tuple[int, str]:
    """A tenor's length, so that 12M and 1Y (or 7D and 1W) are one tenor."""
    n, unit = int(item[:-1]), item[-1]
    if unit in "MY":
        return n * (12 if unit == "Y" else 1), "M"
    return n * (7 if unit == "W" else 1), "D"


def _cells(value: object) -> list[object]:
    if hasattr(value, "tolist") and hasattr(value, "shape"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        out: list[object] = []
        for item in value:
            out += _cells(item)
        return out
    return [value]


# -- the grid ---------------------------------------------------------------------------------------

Point = tuple[date, float]


def grid(columns: Sequence[Sequence[Point] | str], tenors: Tenors, options: HistoryOptions,
         start: date, end: date, business_day: Callable[[date], bool] | None,
         headers: bool, na: StoredValue) -> list[list[StoredValue]] | str:
    """The spill for one history cell.

    `columns`: per tenor, its closes (date, rate) or the cell message of its failure;
    `business_day`: the index calendar's test (None: unknown, the days with a close stand
    for it); `na`: what a cell shows for Fill=NA. A string (a message) when no tenor has a
    close to show.
    """
    # Per tenor, its closes in the dates asked, or the message of its failure.
    closes: list[dict[date, float] | str] = [
        column if isinstance(column, str) else {d: r for d, r in column if start <= d <= end}
        for column in columns]
    answered = [c for c in closes if not isinstance(c, str)]
    if not answered:
        return next(c for c in columns if isinstance(c, str))
    observed = sorted(set().union(*answered))
    if not observed:
        return NO_DATA
    days = _days(observed, options.days, business_day)
    if options.per == "D":
        rows = [(day, day) for day in days]  # (label, the period's first day)
    else:
        rows = _periods(days, options.per)
    table: list[list[StoredValue]] = [[label] for label, _ in rows]
    for values in closes:
        if isinstance(values, str):  # the tenor's message, in each of its cells
            for row in table:
                row.append(values)
            continue
        for row, value in zip(table, _values(values, rows, options, na), strict=True):
            row.append(value)
    if options.sort == "D":
        table.reverse()
    if headers:
        names = list(tenors.items) if tenors.listed else ["Rate"]
        table.insert(0, ["Date", *names])
    if options.dts == "H":
        table = [row[1:] for row in table]
    if options.dir == "H":
        table = [list(col) for col in zip(*table, strict=True)]
    return table


def _days(observed: list[date], days: str, business_day: Callable[[date], bool] | None) -> list[date]:
    """The days of the grid between the first and the last close (every close's day among them)."""
    first, last = observed[0], observed[-1]
    if days == "T" and business_day is None:
        return observed
    closes = set(observed)
    out = []
    day = first
    while day <= last:
        if (days == "A" or day in closes or business_day is not None and business_day(day)
                or days == "W" and day.weekday() < 5):
            out.append(day)
        day += timedelta(days=1)
    return out


def _period(day: date, per: str) -> tuple[int, int]:
    if per == "W":
        monday = day - timedelta(days=day.weekday())
        return monday.year, monday.toordinal()
    if per == "M":
        return day.year, day.month
    if per == "Q":
        return day.year, (day.month - 1) // 3
    if per == "S":
        return day.year, (day.month - 1) // 6
    return day.year, 0


def _periods(days: list[date], per: str) -> list[tuple[date, date]]:
    """(label, first day) per period: the label is the period's last day in `days`."""
    out: list[tuple[date, date]] = []
    current = None
    for day in days:
        key = _period(day, per)
        if key != current:
            out.append((day, day))
            current = key
        else:
            out[-1] = (day, out[-1][1])
    return out


def _values(closes: dict[date, float], rows: list[tuple[date, date]], options: HistoryOptions,
            na: StoredValue) -> Iterable[StoredValue]:
    """One tenor's value on each row: the period's close (or average), else the fill."""
    ordered = sorted(closes.items())
    i, previous = 0, None
    for label, first in rows:
        in_period = []
        while i < len(ordered) and ordered[i][0] <= label:
            if ordered[i][0] >= first:
                in_period.append(ordered[i][1])
            previous = ordered[i][1]
            i += 1
        if in_period:
            yield in_period[-1] if options.quote == "C" else sum(in_period) / len(in_period)
        elif options.fill == "P" and previous is not None:
            yield previous
        elif options.fill == "B":
            yield ""
        else:  # Fill=NA, or nothing earlier to carry: no value, and a chart or a SUM must see so
            yield na
