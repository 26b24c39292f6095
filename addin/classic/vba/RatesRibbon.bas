Attribute VB_Name = "RatesRibbon"
' rates-xl: the ribbon's only callback. Every button of the Rates tab calls RatesOnAction,
' which hands the button's id to Python; the handlers live in rates_xl.addin.classic.ribbon
' (its ACTIONS table). Keep this module small: logic here cannot be tested on Linux.
'
' RunPython is the public function of this add-in's xlwings module. With "USE UDF SERVER" =
' True (written by `rates-xl addin install` into %USERPROFILE%\.rates_xl\rates_xl.conf) it
' runs the command inside the one Python process that evaluates the RATES_ cells of every
' workbook, so Refresh and Clear Cache act on their cache.
' The id goes in single quotes: the command line form of RunPython wraps the command in
' double quotes. Ids are [A-Za-z0-9_] only (checked by the tests), so nothing to escape.
'
' Errors never reach VBA's debugger: the handler is set before anything else runs, and the
' Refresh buttons, which need a workbook, say so in a short message when there is none or
' the active window is in Protected View.
Option Explicit

Private Const TITLE As String = "Rates"

Public Sub RatesOnAction(control As IRibbonControl)
    Dim id As String
    On Error GoTo Failed
    id = control.Id
    If Left$(id, 14) = "rates_refresh_" Then
        If Not RatesWorkbookReady() Then Exit Sub
    End If
    RunPython "import rates_xl.addin.classic.ribbon as r; r.on_action('" & id & "')"
    Exit Sub
Failed:
    MsgBox "The Rates add-in could not run this button: " & Err.Description & vbCrLf & vbCrLf & _
           "Run `rates-xl doctor` in a command prompt to check the set-up.", vbExclamation, TITLE
End Sub

Private Function RatesWorkbookReady() As Boolean
    ' True when an editable workbook is active; otherwise tells the user why not.
    Dim protectedView As Object
    On Error Resume Next
    Set protectedView = Application.ActiveProtectedViewWindow  ' Excel 2010 and later
    On Error GoTo 0
    If Not protectedView Is Nothing Then
        MsgBox "This workbook is open in Protected View. Click Enable Editing, then try again.", _
               vbInformation, TITLE
    ElseIf ActiveWorkbook Is Nothing Then
        MsgBox "Open a workbook first: Refresh works on the RATES_ cells of the active workbook.", _
               vbInformation, TITLE
    Else
        RatesWorkbookReady = True
    End If
End Function
