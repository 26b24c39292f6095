"""`rates-xl risk`'s two outputs: the table in the terminal (largest DV01 first) and the
workbook with the ladder and its chart (XlsxWriter), which carries the market data it came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rates_xl.scenario.risk import Risk

MAX_SHOWN = 20
#: Outputs charted (one series each, the largest first): more would not read.
MAX_SERIES = 6


def rows(risk: Risk) -> list[tuple[Any, str, float, dict[str, float]]]:
    """(output, index, DV01, ladder) for every output and index with a sensitivity, largest first."""
    found = []
    for output in risk.outputs:
        if output.why is not None:
            continue
        moved = [(index, dv01) for index, dv01 in output.dv01.items()
                 if dv01 or any(output.ladder.get(index, {}).values())]
        for index, dv01 in moved:
            found.append((output, index, dv01, output.ladder.get(index, {})))
        if not moved:  # a true zero (a schedule's date reads the curves and does not move): one row
            found.append((output, "any", 0.0, dict.fromkeys(risk.buckets, 0.0)))
    def size(row: tuple[Any, str, float, dict[str, float]]) -> tuple[float, float]:
        ladder = [abs(v) for v in row[3].values() if v == v]
        return (abs(row[2]) if row[2] == row[2] else 0.0), max(ladder, default=0.0)

    return sorted(found, key=lambda r: tuple(-x for x in size(r)))


def headline(risk: Risk) -> str:
    indexes = ", ".join(risk.indexes) or "none"
    moment = f", valued at {risk.moment}" if risk.moment else ""
    return (f"Risk of {risk.book.name}: {len(risk.outputs)} output cell{'s' if len(risk.outputs) != 1 else ''}, "
            f"{len(risk.indexes)} index{'es' if len(risk.indexes) != 1 else ''} ({indexes}), key-rate buckets "
            f"{' '.join(risk.buckets)}; change per +1 bp by central differences (+1 bp and -1 bp) over "
            f"{risk.scenarios} replays of the book (market data: {risk.pack_from}{moment}).")


def timing(risk: Risk) -> str:
    s = risk.seconds
    each = s.get("scenarios", 0.0) / risk.scenarios if risk.scenarios else 0.0
    return (f"Timing: {s.get('total', 0):.2f} s in all: loading the book {s.get('load', 0):.2f} s, the curves "
            f"{s.get('calibrate', 0):.2f} s, the market replay {s.get('base', 0):.2f} s, {risk.scenarios} scenarios "
            f"{s.get('scenarios', 0):.2f} s ({each * 1000:.0f} ms each, {risk.engine} engine).")


def print_table(risk: Risk) -> None:
    from rich.console import Console
    from rich.table import Table

    terminal = Console()
    # A terminal's own width (rich fits the table to it); a pipe or a log gets every digit.
    console = Console(highlight=False, width=terminal.width if terminal.is_terminal else 160)
    print(headline(risk), flush=True)
    found = rows(risk)
    if found:
        table = Table(title=f"DV01 and key-rate ladder (change per +1 bp; largest first{_more(found)})",
                      title_justify="left")
        table.add_column("Cell", no_wrap=True)
        table.add_column("Label", overflow="ellipsis", max_width=16, no_wrap=True)
        for title in ("Value", "Index", "DV01", *risk.buckets, "Ladder sum"):
            table.add_column(title, justify="left" if title == "Index" else "right", no_wrap=True)
        for output, index, dv01, ladder in found[:MAX_SHOWN]:
            table.add_row(output.address, output.label, _n(output.value), index, _n(dv01),
                          *[_n(ladder.get(b)) for b in risk.buckets], _n(ladder_sum(ladder)))
        console.print(table)
    for output in [o for o in risk.outputs if o.why is not None]:
        print(f"  {output.address} ({output.label or 'no label'}): no sensitivity: {output.why}.")
    for output in [o for o in risk.outputs if o.why is None and o.unshifted]:
        request, why = next(iter(output.unshifted.items()))
        more = f" and {len(output.unshifted) - 1} more" if len(output.unshifted) > 1 else ""
        print(f"  {output.address}: its sensitivity leaves out answers no scenario moves: {request} ({why}){more}.")
    for cell, why in risk.skipped:
        print(f"  {cell}: left out: {why}.")
    if risk.not_shifted:
        print(f"Not shifted ({len(risk.not_shifted)} answer{'s' if len(risk.not_shifted) != 1 else ''} of the pack "
              "keep their value under every scenario):")
        for request, why in list(risk.not_shifted.items())[:MAX_SHOWN]:
            print(f"  {request}: {why}")
        if len(risk.not_shifted) > MAX_SHOWN:
            print(f"  ... and {len(risk.not_shifted) - MAX_SHOWN} more (in the workbook)")
    if risk.fetched:
        print(f"Curves: {risk.fetched} answer{'s' if risk.fetched != 1 else ''} the pack lacked fetched once and "
              "recorded in the report's pack.")
    print(timing(risk))


def ladder_sum(ladder: dict[str, float]) -> float:
    """The rungs added up (a sum of wobbles below 1e-9 is 0, as each rung's is)."""
    total = sum(ladder.values())
    return 0.0 if abs(total) <= 1e-9 else total


def _more(found: list[Any]) -> str:
    return f"; the first {MAX_SHOWN} of {len(found)}" if len(found) > MAX_SHOWN else ""


def _n(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if value != value:
            return "n/a"
        return f"{value:,.2f}" if abs(value) >= 100 else f"{value:.4g}"
    return str(value)


def write_workbook(risk: Risk, out: Path) -> Path:
    """The ladder workbook: a table of every sensitivity, a chart of the ladders, what has none
    and why, what was not shifted, the method; the market data inside (its pack)."""
    import xlsxwriter

    from rates_xl import atomic
    from rates_xl.client.pack_workbook import write_pack

    found = rows(risk)
    with atomic.replacing(out) as tmp:
        book = xlsxwriter.Workbook(str(tmp), {"nan_inf_to_errors": True})
        book.set_properties({"title": f"rates-xl risk of {risk.book.name}",
                             "subject": "DV01 and key-rate ladder (sensitivities to the market, not market data)"})
        bold = book.add_format({"bold": True})
        title = book.add_format({"bold": True, "font_size": 14})
        head = book.add_format({"bold": True, "bg_color": "#DDEBF7", "border": 1, "text_wrap": True})
        money = book.add_format({"num_format": "#,##0.00;[Red]-#,##0.00", "border": 1})
        text = book.add_format({"border": 1})
        sheet = book.add_worksheet("Ladder")
        columns = ["Cell", "Label", "Value", "Index", "DV01 (+1 bp parallel)", *risk.buckets, "Ladder sum",
                   "Ladder sum - DV01"]
        wrap = book.add_format({"text_wrap": True, "valign": "top"})
        last_column = len(columns) - 1
        sheet.write(0, 0, f"DV01 and key-rate ladder: {risk.book.name}", title)
        sheet.merge_range(1, 0, 1, last_column, headline(risk), wrap)
        sheet.merge_range(2, 0, 2, last_column, "Each number: the cell's change for +1 bp, (value at +1 bp - value "
                          "at -1 bp) / 2, the book replayed from its market-data pack under each scenario "
                          "(docs/scenarios.md). A sensitivity, not market data.", wrap)
        sheet.set_row(1, 45)
        sheet.set_row(2, 30)
        top = 4
        sheet.set_row(top, 30)
        for c, name in enumerate(columns):
            sheet.write(top, c, name, head)
        for r, (output, index, dv01, ladder) in enumerate(found, start=top + 1):
            sheet.write(r, 0, output.address, text)
            sheet.write(r, 1, output.label, text)
            sheet.write_number(r, 2, float(output.value), money)
            sheet.write(r, 3, index, text)
            sheet.write_number(r, 4, dv01, money)
            for c, bucket in enumerate(risk.buckets, start=5):
                sheet.write_number(r, c, ladder.get(bucket, float("nan")), money)
            total = ladder_sum(ladder)
            sheet.write_number(r, 5 + len(risk.buckets), total, money)
            sheet.write_number(r, 6 + len(risk.buckets), total - dv01, money)
        sheet.set_column(0, 0, 18)
        sheet.set_column(1, 1, 20)
        sheet.set_column(2, len(columns) - 1, 14)
        sheet.set_landscape()
        sheet.fit_to_pages(1, 0)  # one page wide, as long as it takes
        sheet.set_margins(left=0.4, right=0.4, top=0.5, bottom=0.5)
        row = top + 2 + len(found)
        if found:
            # The largest output's ladder, one series per index (outputs of other sizes on one
            # axis would not read): the table above holds every one.
            largest = found[0][0]
            chart = book.add_chart({"type": "column"})
            for r, (output, index, _dv01, _ladder) in enumerate(found, start=top + 1):
                if output is not largest or len(chart.series) >= MAX_SERIES:
                    continue
                chart.add_series({
                    "name": index,
                    "categories": ["Ladder", top, 5, top, 4 + len(risk.buckets)],
                    "values": ["Ladder", r, 5, r, 4 + len(risk.buckets)],
                    "data_labels": {"value": True, "num_format": "#,##0.00"},
                })
            # (a title holding "Sheet!A1" would be read by XlsxWriter as a reference)
            shown = largest.label or largest.address
            chart.set_title({"name": f"Key-rate ladder of {shown.replace('!', ' ')}: change per +1 bp"})
            chart.set_x_axis({"name": "Key-rate bucket"})
            chart.set_y_axis({"name": "Change per +1 bp", "num_format": "#,##0"})
            chart.set_legend({"position": "bottom"})
            chart.set_size({"width": 860, "height": 360})
            sheet.insert_chart(row + 1, 0, chart)
            row += 20
        without = [o for o in risk.outputs if o.why is not None]
        if without or risk.skipped:
            sheet.write(row, 0, "No sensitivity, and why", bold)
            for output in without:
                row += 1
                sheet.write(row, 0, output.address)
                sheet.write(row, 1, output.label)
                sheet.merge_range(row, 2, row, last_column, output.why)
            for cell, why in risk.skipped:
                row += 1
                sheet.write(row, 0, cell)
                sheet.merge_range(row, 2, row, last_column, f"left out: {why}")
            row += 2
        partial = [o for o in risk.outputs if o.why is None and o.unshifted]
        if partial:
            sheet.write(row, 0, "Sensitivities that leave out answers no scenario moves", bold)
            for output in partial:
                for request, why in output.unshifted.items():
                    row += 1
                    sheet.write(row, 0, output.address)
                    sheet.write(row, 1, request)
                    sheet.merge_range(row, 2, row, last_column, why)
            row += 2
        sheet.write(row, 0, "Answers not shifted under any scenario", bold)
        if not risk.not_shifted:
            sheet.write(row + 1, 0, "none")
        for request, why in risk.not_shifted.items():
            row += 1
            sheet.merge_range(row, 0, row, 1, request)
            sheet.merge_range(row, 2, row, last_column, why)
        row += 2
        sheet.merge_range(row, 0, row, last_column, timing(risk), wrap)
        sheet.set_row(row, 30)
        sheet.print_area(0, 0, row, last_column)
        book.close()
        if risk.pack is not None:
            write_pack(tmp, risk.pack)
    return out


__all__ = ["headline", "print_table", "rows", "timing", "write_workbook"]
