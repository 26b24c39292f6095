"""Remakes docs/img/spilled-curve.png, the README's picture: a one-formula workbook
(=RATES_SWAPCURVE("SOFR") spilling into B4 and a chart of it), computed by `rates-xl calc`
against the local sandbox (no key, no network), printed by LibreOffice, page 1 cropped.

Needs soffice and pdftoppm. Run from the repository root: python docs/img/make_spilled_curve.py
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import xlsxwriter

OUT = Path(__file__).with_name("spilled-curve.png")


def book(path: Path) -> None:
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("Curve")
    ws.write("B1", "SOFR swap curve, spilled by one formula",
             wb.add_format({"bold": True, "font_size": 13, "font_color": "#1F3864"}))
    ws.write("B2", 'B4 holds =RATES_SWAPCURVE("SOFR"); rates in percent',
             wb.add_format({"italic": True, "font_color": "#555555"}))
    ws.write_dynamic_array_formula("B4:C30", '=RATES_SWAPCURVE("SOFR")', wb.add_format({"num_format": "0.0000"}))
    ws.set_column("A:A", 2)
    ws.set_column("B:B", 9)
    ws.set_column("C:C", 10)
    chart = wb.add_chart({"type": "line"})
    chart.add_series({"name": "SOFR", "categories": "=Curve!$B$5:$B$30", "values": "=Curve!$C$5:$C$30",
                      "marker": {"type": "circle", "size": 4}, "line": {"color": "#1F5FA8"}})
    chart.set_title({"name": "SOFR par swap rate by tenor (%)", "name_font": {"size": 11}})
    chart.set_legend({"none": True})
    chart.set_size({"width": 470, "height": 390})
    chart.set_y_axis({"num_format": "0.0"})
    ws.insert_chart("E4", chart)
    ws.print_row_col_headers()
    ws.hide_gridlines(0)
    ws.set_landscape()
    ws.fit_to_pages(1, 1)
    ws.print_area("A1:L30")
    ws.set_margins(left=0.3, right=0.3, top=0.3, bottom=0.3)
    wb.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        book(work / "curve.xlsx")
        subprocess.run(["rates-xl", "calc", str(work / "curve.xlsx"), "--sandbox", "--no-progress",
                        "-o", str(work / "values.xlsx")], check=True)
        subprocess.run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", str(work),
                        str(work / "values.xlsx")], check=True, capture_output=True)
        subprocess.run(["pdftoppm", "-r", "100", "-png", "-f", "1", "-l", "1", "-x", "28", "-y", "28",
                        "-W", "1020", "-H", "650", str(work / "values.pdf"), str(work / "shot")], check=True)
        shutil.copy(work / "shot-1.png", OUT)


if __name__ == "__main__":
    main()
