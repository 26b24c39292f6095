Attribute VB_Name = "RatesRibbon"
' rates-xl: the ribbon's callbacks. Every button of the Rates tab calls RatesOnAction,
' which hands the button's id to Python (the Live toggle calls RatesOnToggle, which hands
' "<id>_on" or "<id>_off"); the handlers live in rates_xl.addin.classic.ribbon
' (its ACTIONS table). Keep this module small: logic here cannot be tested on Linux.
'
' RunPython is the public function of this add-in's xlwings module: it hands the Python
' statement to the one Python process that evaluates the RATES_ cells of every workbook
' (the UDF server), so Refresh and Clear Cache act on their cache.
' The id goes in single quotes inside the Python statement. Ids are [A-Za-z0-9_] only
' (checked by the tests), so nothing to escape.
'
' Errors never reach VBA's debugger: the handler is set before anything else runs, and the
' Refresh buttons, which need a workbook, say so in a short message when there is none or
' the active window is in Protected View.
Option Explicit

Private Const TITLE As String = "Rates"
' The ribbon (kept to redraw the Scenario button) and the scenario it shows ("": at market).
Private RatesUI As IRibbonUI
Private RatesScenarioShown As String

Public Sub RatesOnLoad(ribbon As IRibbonUI)
    ' Office calls this when it loads the Rates tab, as the add-in starts (the customUI's
    ' onLoad; Microsoft, office/vba/api/office.iribbonui). The add-in's one start-up step: the
    ' Function Wizard's texts for the RATES_ functions (module RatesRegister). It starts here
    ' and not from a workbook event procedure, which scanners used by IT (oletools' mraptor,
    ' endpoint antivirus) count against a macro that also loads a DLL.
    On Error Resume Next
    Set RatesUI = ribbon
    RatesRegisterFunctions
    ' Then, once Excel is ready (OnTime without LatestTime waits for Ready mode: Microsoft,
    ' office/vba/api/excel.application.ontime), the add-in's Python starts (RatesStart): a
    ' workbook opened before it, whose waiting cells' RTD topics Excel could not reconnect,
    ' is recalculated there.
    Application.OnTime Now, "'" & ThisWorkbook.Name & "'!RatesStart"
End Sub

Public Sub RatesStart()
    ' Starts the add-in's Python (the UDF server, where the RTD server lives) and recalculates
    ' the RATES_ cells of open workbooks that show an error (rates_xl.addin.classic.ribbon_refresh.start).
    ' Nothing is shown if it fails: the first RATES_ cell starts Python anyway.
    On Error Resume Next
    RunPython "import rates_xl.addin.classic.ribbon as r; r.on_action('rates_start')"
End Sub

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
    MsgBox "The Rates add-in could not complete this button: " & Err.Description & vbCrLf & vbCrLf & _
           "In a terminal, type `rates-xl doctor` to check the set-up.", vbExclamation, TITLE
End Sub

Public Sub RatesOnToggle(control As IRibbonControl, pressed As Boolean)
    ' The Live toggle: the same Python entry point, with "_on" or "_off" after the id.
    ' First the flag RatesAnswer reads (RatesRtd): while on, every answered RATES_ cell
    ' subscribes to its "live" RTD topic, through which Live recalculates it.
    Dim id As String
    On Error GoTo Failed
    If control.Id = "rates_live" Then RatesLiveOn = pressed
    If pressed Then
        id = control.Id & "_on"
    Else
        id = control.Id & "_off"
    End If
    RunPython "import rates_xl.addin.classic.ribbon as r; r.on_action('" & id & "')"
    Exit Sub
Failed:
    MsgBox "The Rates add-in could not switch Live mode: " & Err.Description & vbCrLf & vbCrLf & _
           "In a terminal, type `rates-xl doctor` to check the set-up.", vbExclamation, TITLE
End Sub

Public Sub RatesGetLabel(control As IRibbonControl, ByRef label)
    ' The Scenario button's label: "At Market", or the scenario a workbook shows
    ' (rates_xl.addin.classic.scenario sets it with RatesShowScenario).
    On Error Resume Next
    If RatesScenarioShown = "" Then
        label = "At Market"
    Else
        label = "SCENARIO " & RatesScenarioShown
    End If
End Sub

Public Sub RatesShowScenario(shown As String)
    ' Called from Python when a scenario is applied or switched off: the Scenario button is
    ' redrawn with its new label.
    On Error Resume Next
    RatesScenarioShown = shown
    If Not RatesUI Is Nothing Then RatesUI.InvalidateControl "rates_scenario"
End Sub

Public Sub RatesFill()
    ' Manual calculation in one F9 (rates_xl.addin.classic.manual): scheduled by Python with
    ' Application.OnTime after a calculation in manual mode left RATES_ cells waiting; fetches
    ' their answers and calculates them, and the chains they feed, here on Excel's main thread.
    On Error GoTo Failed
    RunPython "import rates_xl.addin.classic.ribbon as r; r.on_action('rates_fill')"
    Exit Sub
Failed:
    MsgBox "The Rates add-in could not fill the cells waiting after F9: " & Err.Description & vbCrLf & _
           "Press F9 again, or Refresh Workbook.", vbExclamation, TITLE
End Sub

Private Function RatesWorkbookReady() As Boolean
    ' True when an editable workbook is active; otherwise tells the user why not.
    Dim viewWindow As Object
    On Error Resume Next
    Set viewWindow = Application.ActiveProtectedViewWindow  ' Excel 2010 and later
    On Error GoTo 0
    If Not viewWindow Is Nothing Then
        MsgBox "This workbook is open in Protected View. Click Enable Editing, then try again.", _
               vbInformation, TITLE
    ElseIf ActiveWorkbook Is Nothing Then
        MsgBox "Open a workbook first: Refresh works on the RATES_ cells of the active workbook.", _
               vbInformation, TITLE
    Else
        RatesWorkbookReady = True
    End If
End Function
