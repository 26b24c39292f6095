Attribute VB_Name = "RatesRibbon"
' rates-xl: the ribbon's only callback. Every button of the Rates tab calls RatesOnAction,
' which hands the button's id to Python; the handlers live in rates_xl.addin.classic.ribbon
' (its ACTIONS table). Keep this module dumb: logic here cannot be tested on Linux.
'
' RunPython is the public function of the xlwings module in this add-in's VBA project.
' With "USE UDF SERVER" = True (set by `rates-xl addin install`) it runs the command inside
' the process that evaluates the RATES_ cells, so Refresh and Clear Cache act on their cache.
' The id goes in single quotes: the command line form of RunPython wraps the command in
' double quotes. Ids are [A-Za-z0-9_] only (checked by the tests), so nothing to escape.
Option Explicit

Public Sub RatesOnAction(control As IRibbonControl)
    RunPython "import rates_xl.addin.classic.ribbon as r; r.on_action('" & control.Id & "')"
End Sub
