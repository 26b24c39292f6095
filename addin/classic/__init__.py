"""The classic Excel host: xlwings UDFs (`RATES_SWAP`) on Windows desktop Excel.

- `udfs`: the UDF module xlwings imports (`UDF Modules = rates_xl.addin.classic.udfs`), a thin
  layer over the host-free core in `rates_xl.functions`;
- `vba`: xlwings' own VBA wrapper generator run headless over `udfs`;
- `ribbon` (+ `ribbon/customUI14.xml`, `vba/RatesRibbon.bas`): the Rates tab and its handlers;
  `scope` and `refresh`: which cells a Refresh covers and their freshness floor;
- `build` and `install`: the .xlam and its place in XLSTART.
"""
