"""The Office.js host: `=RATES.SWAP(...)` on Windows (Microsoft 365), Mac and Excel on the web.

Everything here is generated from the one function table (`rates_xl.functions.FUNCTIONS`)
and answered by its host-free core, like the classic xlwings host beside it:

- `static/`: functions.html (the shared-runtime page) and functions.js (the one generic
  adapter: queue, one batched POST, per-call time limit, errors);
- `metadata.py`: functions.json (Excel's custom-functions metadata) and the script's arities;
- `assets.py`: the files the server hands Excel, built from `static/` and the table;
- `help_pages.py`: each function's reference page, the `helpUrl` Excel opens;
- `manifest.py`: the XML add-in-only manifest, rendered for a base URL;
- `batch.py`: one batched POST -> plan, prefetch the distinct requests, compute each call;
- `packs.py`: sealing the pack the task pane writes into the book;
- `scenarios.py`: the task pane's Scenario control (a book's pack under a shift, per user);
- `live_hub.py`: Live mode for this host: one scheduler per server, shared by every page;
- `app.py`: the FastAPI app (`rates-xl serve`): files, manifest, batch, the security checks;
- `origins.py`: which web origins may read which answers (CORS), in one place;
- `limits.py`: what one client can cost the server (connections, time, memory, threads);
- `server.py`: uvicorn over TLS on 127.0.0.1, in the foreground or a thread (tests);
- `certs.py`: a local certificate authority and a localhost certificate, trusted per user;
- `sideload.py`: the manifest registered with Excel for the current user, and the reverse;
- `cli.py`: `rates-xl serve`, `rates-xl officejs ...`, `rates-xl respell`;
- the team server (`rates-xl serve` for many users): `team.py` (sign-in, fair share,
  accounting, access log), `auth.py` (who is asking), `jwks.py` (the identity provider's
  keys), `users.py` (per-user tokens), `fairness.py` and `shared_fairness.py` (each user's
  share, in one process or through Redis), `team_cli.py` (its options and `serve users`).

Nothing here imports xlwings (or `xlwings.pro`, whose Office.js code is not licensed for
commercial use).
"""
