"""The Office.js host: `=RATES.SWAP(...)` on Windows (Microsoft 365), Mac and Excel on the web.

Everything here is generated from the one function table (`rates_xl.functions.FUNCTIONS`)
and answered by its host-free core, like the classic xlwings host beside it:

| module        | what it is                                                                    |
|---------------|-------------------------------------------------------------------------------|
| `metadata`    | functions.json (Excel's custom-functions metadata) and the script's arities   |
| `static/`     | functions.html (the shared-runtime page) and functions.js (the one generic    |
|               | adapter: queue, one batched POST, per-call time limit, errors)                |
| `manifest`    | the XML add-in-only manifest, rendered for a base URL                          |
| `batch`       | one batched POST -> plan, prefetch the distinct requests, `spec.core` per call |
| `app`         | the FastAPI app (`rates-xl serve`): files, manifest, batch, the security checks |
| `server`      | uvicorn over TLS on 127.0.0.1, in the foreground or a thread (tests)          |
| `certs`       | a local certificate authority and a localhost certificate, trusted per user   |
| `sideload`    | the manifest registered with Excel for the current user, and the reverse      |
| `cli`         | `rates-xl serve`, `rates-xl officejs ...`, `rates-xl respell`                 |

Nothing here imports xlwings (or `xlwings.pro`, whose Office.js code is not licensed for
commercial use).
"""
