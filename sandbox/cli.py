"""`rates-xl sandbox`: run the local reference service in the foreground.

Imports nothing heavy at import time: FastAPI, uvicorn and QuantLib load in the handler.
"""

from __future__ import annotations

import argparse

from rates_xl.errors import CommandError, UsageError
from rates_xl.sandbox import BUILTIN_KEYS, DEFAULT_PORT, KEY_KINDS


def _extra_key(text: str) -> tuple[str, str]:
    key, _, kind = text.partition("=")
    kind = kind or "paid"
    if not key or kind not in KEY_KINDS:
        raise argparse.ArgumentTypeError(f"expected KEY or KEY=KIND with KIND one of {', '.join(KEY_KINDS)}")
    return key, kind


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError("expected a number between 0 and 1")
    return value


def _non_negative(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError("expected a number >= 0")
    return value


def _positive(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("expected a number > 0")
    return value


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "sandbox",
        help="run the local reference Rates Data Service (no key, no network needed)",
        description="Serve the sandbox Rates Data Service on loopback until Ctrl+C.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--rate-limit", type=_positive, default=20.0, metavar="RPS", help="requests per second per key (default 20)")
    parser.add_argument("--burst", type=int, default=50, metavar="N", help="burst allowance per key (default 50)")
    parser.add_argument("--latency-ms", type=_non_negative, default=0.0, metavar="MS", help="delay added to every answer")
    parser.add_argument("--fail-rate", type=_fraction, default=0.0, metavar="P", help="fraction of answers turned into 503")
    parser.add_argument("--storm-seconds", type=_non_negative, default=0.0, metavar="S", help="answer 429 to everything for the first S seconds")
    parser.add_argument("--extra-key", type=_extra_key, action="append", default=[], metavar="KEY[=KIND]",
                        help=f"accept another key; KIND is one of {', '.join(KEY_KINDS)} (default paid)")
    parser.add_argument("--seed", type=int, default=0, help="scenario seed (default 0)")
    parser.add_argument("--shift", metavar="SPEC",
                        help="serve the curves shifted by a scenario (SOFR+1bp, *+25bp, SOFR:10Y+1bp, "
                             "SOFR:2Y-5bp,SOFR:10Y+5bp): each index's par quotes move by the scenario's amount at "
                             "their maturity and the curve is bootstrapped again; fixings, history, FX spot and "
                             "government yields stay. The oracle for rates-xl calc --scenario (docs/scenarios.md)")
    parser.add_argument("--buckets", metavar="TENORS", default=None,
                        help="with --shift: the key-rate buckets (default 1Y,2Y,5Y,10Y,30Y)")
    parser.add_argument("--pack", metavar="FILE",
                        help="serve only the answers of a market-data pack (a .pack.json, or a workbook "
                             "holding one) to replay a book; anything else is a 404 saying so. The pack is "
                             "checked first: an edited one is refused")
    parser.add_argument("--allow-edited-pack", action="store_true",
                        help="with --pack: serve a pack whose check fails (an answer edited after it was "
                             "recorded) anyway")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.burst < 1:
        raise CommandError("--burst must be at least 1")
    try:
        from rates_xl.sandbox.server import serve
    except ImportError as exc:  # the sandbox extra is not installed
        from rates_xl.extras import missing_extra

        raise CommandError(f"the sandbox needs FastAPI, uvicorn and QuantLib: {missing_extra(exc, 'sandbox')}") from None
    shift = _shift(args)

    if args.pack:
        if shift is not None:
            raise UsageError("--shift and --pack: choose one (a pack's answers are served as recorded)")
        return _serve_pack(args, serve)

    def announce(port: int) -> None:
        host = f"[{args.host}]" if ":" in args.host else args.host
        print(f"rates-xl sandbox serving at http://{host}:{port}  (API under /v1, schema at /openapi.json)")
        if shift is not None:
            print(f"SHIFTED curves: {shift.described()}: a scenario, not the market (every answer says so in "
                  "its X-Rates-Scenario header).")
        print("keys (send as x-api-key):")
        for key, kind in {**BUILTIN_KEYS, **dict(args.extra_key)}.items():
            print(f"  {key:<20} {kind}")
        print("Ctrl+C stops it.", flush=True)

    try:
        serve(args.host, args.port, announce=announce, rate_limit=args.rate_limit, burst=args.burst,
              latency_ms=args.latency_ms, fail_rate=args.fail_rate, storm_seconds=args.storm_seconds,
              extra_keys=dict(args.extra_key), seed=args.seed, shift=shift)
    except OSError as exc:
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    return 0


def _shift(args: argparse.Namespace):
    """--shift SPEC [--buckets ...] read, its indexes named as the sandbox names them; one line
    (exit 2) for a spec that cannot be read or an index the sandbox does not have."""

    if args.shift is None:
        if args.buckets is not None:
            raise UsageError("--buckets goes with --shift")
        return None
    from rates_xl.sandbox.app import shift_of
    from rates_xl.scenario.spec import SpecError

    try:
        return shift_of(args.shift, args.buckets)
    except SpecError as exc:
        raise UsageError(f"--shift: {exc}") from None


def _serve_pack(args: argparse.Namespace, serve) -> int:
    """`--pack FILE`: the pack's answers over HTTP, so the add-in in Excel can replay a book."""
    from pathlib import Path

    from rates_xl.client.pack import PackError, read
    from rates_xl.client.pack_workbook import require_pack
    from rates_xl.sandbox.pack_app import create_pack_app

    path = Path(args.pack)
    try:
        pack = read(path) if path.suffix.lower() == ".json" else require_pack(path)
    except PackError as exc:
        raise CommandError(str(exc)) from None
    from rates_xl.client.pack_seal import check, signer_from_settings

    if pack.scenario is not None:
        # Served over HTTP, its answers would reach cells as if from a service: never.
        raise CommandError(f"{path.name} holds a scenario's pack ({pack.scenario.described}): its answers are not "
                           "market data and are not served; replay it with rates-xl calc --replay, or use the "
                           "Scenario control in Excel (docs/scenarios.md)")
    verdict = check(pack, signer_from_settings())
    if verdict.is_edited and not args.allow_edited_pack:
        raise CommandError(f"{path.name}: its market-data pack was {verdict.headline()}: not served (a replay "
                           "of it would not be a reproduction); --allow-edited-pack serves it anyway")

    def announce(port: int) -> None:
        host = f"[{args.host}]" if ":" in args.host else args.host
        print(f"rates-xl sandbox replaying {path.name} at http://{host}:{port}: {len(pack.answers)} answers "
              f"recorded from {pack.base_url} ({pack.created[:19]}Z); no key needed")
        print(f"Pack check: {verdict.headline()}.")
        print("Anything not in the pack is a 404 saying so. Ctrl+C stops it.", flush=True)

    try:
        serve(args.host, args.port, announce=announce, app=create_pack_app(pack))
    except OSError as exc:
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    return 0
