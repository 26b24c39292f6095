"""What tests and benchmarks share: the one place for fixtures that are not tests.

The contract, checked by tests/test_support_layout.py:
- tests import these modules and never anything from bench/; bench/ imports
  `tests.support.*` and no other test module;
- these modules import our code only as `rates_xl.*`, and each other only as
  `tests.support.*` (never another test module), so either side can move without the other.

Modules:
    serial_excel, serial_excel_engine  a serial stand-in for desktop Excel (its contract with
                                       the add-in: rates_xl.addin.classic.excel_surface)
    serial_excel_book                  its workbooks, sheets and ranges (and their COM members)
    serial_excel_graph                 its formula cells and the dependency graph it calculates by
    serial_excel_rtd                   Excel's side of RTD for the stand-in (App.use_rtd)
    sandbox       the sandbox in a child process, free loopback ports, wait_until
    commands      `rates-xl ...` as a user types it: the console script, a fresh HOME
    timing        bounds on waits that tell a mechanism from a hang on a busy machine
    worker_exit   a pytest plugin: an xdist worker's clean-up is not cut short by execnet's SIGINT
    file_order    a pytest plugin: the files that take longest are handed to the workers first
    bytecode      a pytest plugin: where Python may write no bytecode, the run's written once
    sends         what the client sent (from its log), most in a window, open sockets
    cells         cell and formula generators pinned to one past valuation time, GOOD_CELLS
    samples       one valid call per worksheet function and the same request made directly
    faultserver   a loopback HTTP server whose every answer a test chooses
    faults        a fault-injecting Transport over a real one (the client's transport layer)
    badnet        a loopback network that drops, stalls or resets connections on demand
    rawtls        a bare TLS socket to a loopback server, for HTTP spoken by hand
    redis_server  a real redis-server on a free port (the team tests and benchmark)
    team_worker   one client process of the multi-process tests (run as a script)
    soak          the soak's traffic and measurement (CI runs it short, bench at length)
    libreoffice   LibreOffice headless as a second opinion, and the profile that recalculates
    budget_books  the workbooks of a calc's budget: a whole sheet over one far cell, a long chain
    outcomes      a call's outcome (answer, array or exception), to compare two implementations
    any_share     how much of calc, functions and client is annotated `Any` (tests/test_any_share.py)
"""
