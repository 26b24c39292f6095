"""Add a pivot table to a workbook with LibreOffice, as Excel users make them.

Run with a Python that has LibreOffice's `uno` module (Debian: python3-uno, /usr/bin/python3):

    python3 pivot_uno.py IN.xlsx OUT.xlsx

Opens IN in a headless LibreOffice (a throw-away profile), adds a pivot table (DataPilot)
summing Data!C by Data!A at Pivot!D1, recalculates every formula and saves OUT as .xlsx,
with its pivot cache (xl/pivotCache/) and pivot table parts. openpyxl and XlsxWriter cannot
write a pivot table; this is the only reason the corpus needs UNO.
"""

import os
import subprocess
import sys
import tempfile
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.sheet.DataPilotFieldOrientation import DATA, ROW
from com.sun.star.sheet.GeneralFunction import SUM
from com.sun.star.table import CellAddress, CellRangeAddress


def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def connect(pipe):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(120):
        try:
            return resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
        except Exception:
            time.sleep(0.5)
    raise RuntimeError("LibreOffice did not start")


def add_pivot(doc, rows):
    pivot = doc.Sheets.getByName("Pivot")
    tables = pivot.getDataPilotTables()
    desc = tables.createDataPilotDescriptor()
    source = CellRangeAddress()
    source.Sheet, source.StartColumn, source.StartRow, source.EndColumn, source.EndRow = 0, 0, 0, 2, rows
    desc.setSourceRange(source)
    fields = desc.getDataPilotFields()
    fields.getByIndex(0).Orientation = ROW
    value = fields.getByIndex(2)
    value.Orientation, value.Function = DATA, SUM
    target = CellAddress()
    target.Sheet, target.Column, target.Row = 1, 3, 0
    tables.insertNewByName("Pivot1", target, desc)


def main(src, out, rows=8):
    src, out = os.path.abspath(src), os.path.abspath(out)
    profile = tempfile.mkdtemp()
    pipe = f"rates_pivot_{os.getpid()}"
    proc = subprocess.Popen(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
                             f"--accept=pipe,name={pipe};urp;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ctx = connect(pipe)
        desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(src), "_blank", 0, (prop("Hidden", True),))
        add_pivot(doc, rows)
        doc.calculateAll()
        doc.storeToURL(uno.systemPathToFileUrl(out), (prop("FilterName", "Calc MS Excel 2007 XML"),))
        doc.close(True)
    finally:
        proc.terminate()
        proc.wait(30)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
