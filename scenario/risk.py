"""`rates-xl risk`: each output cell's DV01 per index and its key-rate ladder, by central
differences over replays of the book under scenarios.

The book is loaded once (`calc.workbook.WorkbookCalculation`) and its pack read once
(`scenario.apply.prepare`: the curves calibrated once); then, for each index the book's
answers are on, the scenarios INDEX+1bp and INDEX-1bp and, for each bucket, INDEX:B+1bp and
INDEX:B-1bp each give a scenario pack, and the same loaded book is computed again from it:
the engine re-sets only the RATES_* cells and recomputes what depends on them
(`calc/engines/formualizer/model.py`), every other cell keeps its value. A sensitivity is
(value at +1 bp - value at -1 bp) / 2.

Default outputs are the formula cells no other formula reads (the book's results: the swap
pricer's NPV, PV01, DV01), numbers only. An output that reads no RATES_* answer, or only
answers the model cannot move (FX spot, a fixing), is listed with why, never given a silent 0.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rates_xl.errors import InputError
from rates_xl.functions.sheet import Key, address

#: The bump each side of a central difference, in bp.
BUMP_BP = 1.0


class RiskError(InputError):
    """The risk of a book cannot be measured: one line."""


@dataclass
class Output:
    """One output cell: its value at market, its DV01 per index and its ladder per index."""

    sheet: str
    cell: str
    label: str
    value: Any
    dv01: dict[str, float] = field(default_factory=dict)  # index -> change per +1 bp parallel
    ladder: dict[str, dict[str, float]] = field(default_factory=dict)  # index -> bucket -> change
    #: why it has no sensitivity (reads no RATES_* answer, or only ones not shifted); None: it has
    why: str | None = None
    #: answers it reads that no scenario moves (request -> why): its sensitivity leaves them out
    unshifted: dict[str, str] = field(default_factory=dict)
    #: RATES_* cells upstream whose request cannot be read from their formula (why)
    unlinked: list[str] = field(default_factory=list)

    @property
    def address(self) -> str:
        return address(self.sheet, self.cell)

    @property
    def size(self) -> float:
        return max((abs(v) for v in self.dv01.values() if math.isfinite(v)), default=0.0)


@dataclass
class Risk:
    book: Path
    pack_from: str  # where the market data came from, for the summary
    moment: str | None  # the valuation moment the pack was pinned at
    buckets: tuple[str, ...]
    indexes: list[str]
    outputs: list[Output]
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (cell, why) of chosen cells left out
    not_shifted: dict[str, str] = field(default_factory=dict)  # request -> why, for the whole pack
    fetched: int = 0  # calibration answers fetched (the pack lacked them)
    scenarios: int = 0
    seconds: dict[str, float] = field(default_factory=dict)  # load, calibrate, base, scenarios, total
    engine: str = ""
    pack: Any = None  # the market pack with the curves' calibration answers (the report carries it)


def measure(book: Path, pack: Any, *, cells: str | None = None, buckets: tuple[str, ...],
            client: Any = None, pack_from: str = "", bump: float = BUMP_BP) -> Risk:
    """DV01 and ladder of `book`'s outputs (or `cells`) from `pack`; `client` fetches what the
    curves need and the pack lacks (None: nothing is fetched)."""
    from rates_xl.calc.book import CalcError
    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.scenario.apply import ScenarioError, prepare
    from rates_xl.scenario.spec import Scenario, Shift

    seconds: dict[str, float] = {}
    started = time.perf_counter()
    try:
        calc = WorkbookCalculation(book)
    except CalcError as exc:
        raise RiskError(str(exc)) from None
    seconds["load"] = time.perf_counter() - started
    mark = time.perf_counter()
    try:
        prepared = prepare(pack, client)
    except ScenarioError as exc:
        raise RiskError(str(exc)) from None
    seconds["calibrate"] = time.perf_counter() - mark
    mark = time.perf_counter()
    base = _compute(calc, prepared.pack, pack.valuation_time)
    seconds["base"] = time.perf_counter() - mark
    outputs, skipped = _outputs(calc, base, cells, _graph(calc))
    indexes = sorted({i for e in prepared.entries.values() for i in e.indexes})
    everything = Scenario((Shift(None, None, bump),), buckets)
    not_shifted = {f"{e}?{'&'.join(f'{k}={v}' for k, v in p)}": why
                   for (e, p), why in prepared.not_shifted(everything).items()}
    _explain(calc, base, outputs, not_shifted, pack.valuation_time, _graph(calc))
    mark = time.perf_counter()
    count = 0
    for index in indexes:
        targets: list[tuple[str | None, str]] = [(None, "parallel")] + [(b, b) for b in buckets]
        for bucket, name in targets:
            moved = []
            for sign in (1, -1):
                scenario = Scenario((Shift(index, bucket, sign * bump),), buckets)
                moved.append(_compute(calc, _under(prepared, scenario), pack.valuation_time))
                count += 1
            for output in outputs:
                if output.why is not None:
                    continue
                change = _difference(moved[0], moved[1], (output.sheet, output.cell), bump)
                if bucket is None:
                    output.dv01[index] = change
                else:
                    output.ladder.setdefault(index, {})[name] = change
    seconds["scenarios"] = time.perf_counter() - mark
    seconds["total"] = time.perf_counter() - started
    for output in outputs:
        # A cell that reads answers the scenarios move and still does not change (a schedule's
        # date) has a true zero; one whose every answer is one no scenario moves has none.
        moved = any(output.dv01.values()) or any(v for ladder in output.ladder.values() for v in ladder.values())
        if output.why is None and not moved and output.unshifted:
            request, why = next(iter(output.unshifted.items()))
            output.why = f"reads only answers no scenario moves: {request} ({why})"
        elif output.why is None and not moved and output.unlinked:
            output.why = f"did not move, and not every answer it reads can be named: {output.unlinked[0]}"
    outputs.sort(key=lambda o: (o.why is not None, -o.size, o.sheet, o.cell))
    calibrated = _calibrated_pack(prepared, getattr(client, "pack_signer", None))
    return Risk(book, pack_from, pack.valuation_time, buckets, indexes, outputs, skipped, not_shifted,
                len(prepared.fetched), count, seconds, calc.engine_name, calibrated)


def _under(prepared: Any, scenario: Any) -> Any:
    from rates_xl.scenario.apply import apply

    return apply(prepared, scenario)


def _compute(calc: Any, pack: Any, moment: str | None) -> dict[Key, Any]:
    """The book's values replayed from `pack` (every answer loaded into the client first, so
    one evaluation answers every cell)."""
    from rates_xl.scenario.apply import replaying_client

    with replaying_client(pack) as client:
        calc.recorder = None  # each replay its own record (none is kept here)
        result = calc.compute(client, valuation_time=moment)
    values = dict(result.values)
    return values


def _difference(up: dict[Key, Any], down: dict[Key, Any], key: Key, bump: float) -> float:
    """(up - down) / (2 bump); 0 when the two are within diff's tolerance (1e-9, or 1e-12 of
    the value): sums in double precision wobble in their last digits, which is not a risk."""
    from rates_xl.calc.diff import DEFAULT_RELATIVE, DEFAULT_TOLERANCE

    a, b = up.get(key), down.get(key)
    if not (_number(a) and _number(b)):
        return math.nan
    a, b = float(a), float(b)
    if abs(a - b) <= max(DEFAULT_TOLERANCE, DEFAULT_RELATIVE * max(abs(a), abs(b))):
        return 0.0
    return (a - b) / (2 * bump)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(float(value))


def _graph(calc: Any) -> Any:
    """The book's dependency graph, built once (the recalculation scope may have built it)."""
    from rates_xl.calc.dependencies import Graph

    if calc.scope.graph is None:
        calc.scope.graph = Graph(calc.source)
    return calc.scope.graph


def _outputs(calc: Any, values: dict[Key, Any], cells: str | None,
             graph: Any) -> tuple[list[Output], list[tuple[str, str]]]:
    """The output cells: `cells` (references or defined names, comma-separated), else every
    formula cell no other formula reads; numbers only (the rest listed in `skipped`)."""
    from rates_xl.calc.attribution import cell_labels, read_cells

    source = calc.source
    skipped: list[tuple[str, str]] = []
    if cells is None:
        read = read_cells(source, graph)
        chosen = [key for key in source.cells if key not in read and key not in graph.unknown]
    else:
        chosen = _chosen(calc, cells)
    order = {title: i for i, title in enumerate(calc.book.sheetnames)}
    from rates_xl.functions.sheet import parse_cell

    chosen = sorted(dict.fromkeys(chosen), key=lambda k: (order.get(k[0], 0), *parse_cell(k[1])))
    labels = cell_labels(source, chosen, {**source.cached(), **values})
    out = []
    for key in chosen:
        value = values.get(key, source.cached().get(key))
        if key not in source.cells and cells is not None:
            skipped.append((address(*key), "not a formula cell: nothing moves it"))
        elif not _number(value):
            if cells is not None:
                skipped.append((address(*key), f"not a number ({str(value)[:40]!r})"))
        else:
            out.append(Output(key[0], key[1], labels.get(key, ""), value))
    if not out and not skipped:
        raise RiskError(f"{calc.path.name} has no output cell holding a number (a formula no other formula "
                        "reads); choose cells with --cells")
    return out, skipped


def _chosen(calc: Any, text: str) -> list[Key]:
    """`Swap!C31, Swap!C36:C37, npv` -> the cells; RiskError (one line) for one not in the book."""
    from rates_xl.functions.sheet import read_area, sheet_of, split_reference

    titles = {t.upper(): t for t in calc.book.sheetnames}
    found: list[Key] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if part.lower() in calc.names:
            found.append(calc.names[part.lower()])
            continue
        prefix, ref = split_reference(part)
        sheet = sheet_of(prefix) if prefix else calc.book.sheetnames[0]
        area = read_area(ref.replace("$", ""), whole_lines=False)
        if area is None or sheet is None or sheet.upper() not in titles:
            raise RiskError(f"--cells: {part!r} is not a cell or range of this book, nor one of its defined names")
        if (area.bottom - area.top + 1) * (area.right - area.left + 1) > 10000:
            raise RiskError(f"--cells: {part!r} is more than 10,000 cells")
        from rates_xl.functions.sheet import cell_address

        found += [(titles[sheet.upper()], cell_address(r, c)) for r, c in area.cells()]
    if not found:
        raise RiskError("--cells: no cell named")
    return found


def _explain(calc: Any, values: dict[Key, Any], outputs: list[Output], not_shifted: dict[str, str],
             moment: str | None, graph: Any) -> None:
    """Each output's answers that no scenario moves, and why one reads no RATES_* answer at all."""
    from rates_xl.calc.attribution import cells_reading
    from rates_xl.calc.dependencies import anchors_calling

    source = calc.source
    rates = anchors_calling(source.cells, None, rates=True)
    downstream = graph.downstream(rates) if rates else set()
    merged = {**source.cached(), **values}
    reading = cells_reading(source, merged, moment, set(not_shifted), graph) if not_shifted else {}
    for output in outputs:
        key = (output.sheet, output.cell)
        if key not in downstream:
            output.why = "reads no RATES_* answer: no curve moves it"
            continue
        for request in reading.get(key, ()):
            if request in not_shifted:
                output.unshifted[request] = not_shifted[request]
            else:  # "the request of X (not linked: why)": said as it is, never guessed
                output.unlinked.append(request)


def _calibrated_pack(prepared: Any, signer: Any) -> Any:
    """The market pack with the answers the curves were built from (fetched ones added):
    what the report carries, so the risk can be measured again from it."""
    from rates_xl.client.pack_seal import seal

    answers = {(a.endpoint, a.params): a for a in prepared.pack.answers}
    for answer in prepared.fetched:
        answers.setdefault((answer.endpoint, answer.params), answer)
    if len(answers) == len(prepared.pack.answers):
        return prepared.pack
    ordered = tuple(answers[k] for k in sorted(answers))
    return seal(prepared.pack.model_copy(update={"answers": ordered, "values": None}), signer)


__all__ = ["BUMP_BP", "Output", "Risk", "RiskError", "measure"]
