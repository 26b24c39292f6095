"""The Excel hosts and what installs and checks them.

- `classic/`: the classic host, xlwings UDFs (`RATES_SWAP`) on Windows desktop Excel;
- `officejs/`: the Office.js host (`RATES.SWAP`) on Microsoft 365, Mac and the web;
- `cli.py`: `rates-xl addin build|install|uninstall`, `key set|status|clear`, `doctor`;
- `doctor.py`: the installation checked end to end, with what to fix for each failure;
- `doctor_check.py`: one check's outcome (`Check`) and its four states;
- `doctor_addin.py`: the classic add-in's set-up checked (settings, Python, DLL, XLSTART, RTD, policy);
- `doctor_network.py`: the network as the client sees it checked (certificates, proxy, TLS, a request);
- `it_policy.py`: what Windows and Office policy allow the classic add-in (read only);
- `respell.py`: a workbook's RATES formulas rewritten from one host's spelling to the other's.
"""
