"""The team server's part of `rates-xl serve`: its sign-in options and `serve users ...`.

Every option also reads an environment variable (RATES_SERVE_*), so a container or a
service unit configures the server without a command line. Cheap to import: PyJWT and
FastAPI are imported when a team server starts.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from rates_xl.errors import CommandError

ENV = {
    "oidc_issuer": "RATES_SERVE_OIDC_ISSUER",
    "oidc_client_id": "RATES_SERVE_OIDC_CLIENT_ID",
    "oidc_audience": "RATES_SERVE_OIDC_AUDIENCE",
    "oidc_jwks_url": "RATES_SERVE_OIDC_JWKS_URL",
    "oidc_resource": "RATES_SERVE_OIDC_RESOURCE",
    "users_file": "RATES_SERVE_USERS_FILE",
}


def _missing(exc: ImportError) -> str:
    from rates_xl.extras import missing_extra

    return missing_extra(exc, "officejs")


def _error(message: str) -> Exception:
    return CommandError(message)


def register(serve: argparse.ArgumentParser) -> None:
    """The team options of `serve`, and its `users` subcommand."""
    team = serve.add_argument_group(
        "team server", "Sign users in (a team server: see the deployment guide). With any of these, the "
        "batch endpoint answers only signed-in users (Authorization: Bearer).")
    team.add_argument("--oidc-issuer", default=os.environ.get(ENV["oidc_issuer"]), metavar="URL",
                      help="the identity provider's issuer, e.g. https://login.microsoftonline.com/<tenant>/v2.0 "
                      f"(${ENV['oidc_issuer']}); its keys are found through its OpenID configuration")
    team.add_argument("--oidc-client-id", default=os.environ.get(ENV["oidc_client_id"]), metavar="UUID",
                      help=f"the add-in's application (client) id at the provider (${ENV['oidc_client_id']})")
    team.add_argument("--oidc-audience", default=os.environ.get(ENV["oidc_audience"]),
                      help=f"the tokens' aud (default: the client id) (${ENV['oidc_audience']})")
    team.add_argument("--oidc-jwks-url", default=os.environ.get(ENV["oidc_jwks_url"]), metavar="URL",
                      help=f"the provider's keys, if not found by discovery (${ENV['oidc_jwks_url']})")
    team.add_argument("--oidc-resource", default=os.environ.get(ENV["oidc_resource"]), metavar="URI",
                      help="the Application ID URI (default api://<public host>/<client id>) "
                      f"(${ENV['oidc_resource']})")
    team.add_argument("--users", action="store_true", default=bool(os.environ.get(ENV["users_file"])),
                      help="admit the per-user tokens of `rates-xl serve users add` too (or alone); "
                      f"on when ${ENV['users_file']} is set")
    team.add_argument("--users-file", default=os.environ.get(ENV["users_file"]), metavar="PATH",
                      help=f"where the per-user tokens are kept (${ENV['users_file']}; default: the "
                      "config folder's serve/users.json)")

    # `users` is optional: hidden from serve's own usage line (argparse lists a subcommand there
    # as required, `users ...`), which gets a second line for it instead.
    commands = serve.add_subparsers(dest="serve_command", metavar="users", required=False, help=argparse.SUPPRESS)
    users = commands.add_parser(
        "users", help="per-user tokens for a team without single sign-on",
        description="Issue, list and revoke the tokens a team server admits (with --users). A token is "
        "shown once, when issued; the server keeps only its SHA-256.")
    users.add_argument("--users-file", default=os.environ.get(ENV["users_file"]), metavar="PATH",
                       help="the tokens' file (default: the config folder's serve/users.json)")
    actions = users.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="issue a token for NAME (shown once)")
    add.add_argument("name")
    actions.add_parser("list", help="the users who have a token")
    remove = actions.add_parser("remove", help="revoke NAME's token (a running server stops admitting it)")
    remove.add_argument("name")
    users.set_defaults(handler=run_users)
    own = serve.format_usage().removeprefix("usage: ").rstrip()
    serve.usage = own + f"\n       {serve.prog} users {{add,list,remove}} ...  (per-user tokens: {serve.prog} users --help)"


def _store(args: argparse.Namespace) -> Any:
    from rates_xl.addin.officejs.users import UserStore, default_path

    return UserStore(Path(args.users_file) if args.users_file else default_path())


def run_users(args: argparse.Namespace) -> int:
    from rates_xl.addin.officejs.users import UsersError

    store = _store(args)
    try:
        if args.users_command == "add":
            token = store.add(args.name)
            print(f"token for {args.name} (shown this once; give it to them privately): {token}")
        elif args.users_command == "remove":
            store.remove(args.name)
            print(f"removed {args.name}: their token is refused from now on")
        else:
            listed = store.list()
            for name, created in listed:
                print(f"{name}\t{created}")
            if not listed:
                print(f"no users yet ({store.path}): rates-xl serve users add NAME")
    except UsersError as exc:
        raise _error(str(exc)) from None
    return 0


def team_from_args(args: argparse.Namespace, public_url: str) -> Any:
    """The team.Team the options ask for, or None for the local single-user server."""
    sso_asked = any(getattr(args, name, None) for name in ("oidc_issuer", "oidc_client_id", "oidc_jwks_url"))
    if not sso_asked and not args.users:
        return None
    try:
        from rates_xl.addin.officejs import auth, team
    except ImportError as exc:
        raise _error(_missing(exc)) from None
    verifier = sso = None
    if sso_asked:
        if not (args.oidc_issuer and args.oidc_client_id):
            raise _error("single sign-on needs --oidc-issuer and --oidc-client-id")
        try:
            sso = team.SsoManifest(args.oidc_client_id, args.oidc_resource
                                   or team.default_resource(public_url, args.oidc_client_id))
            verifier = auth.OidcVerifier(auth.OidcSettings(
                issuer=args.oidc_issuer, client_id=args.oidc_client_id, audience=args.oidc_audience,
                jwks_url=args.oidc_jwks_url))
        except ValueError as exc:
            raise _error(str(exc)) from None
    _access_log_to_stderr()
    return team.Team(auth.Authenticator(oidc=verifier, users=_store(args) if args.users else None), sso=sso)


def _access_log_to_stderr() -> None:
    """The access log (logger rates_xl.access, INFO) on stderr beside uvicorn's own lines,
    unless the deployment configured logging itself."""
    import logging

    access = logging.getLogger("rates_xl.access")
    if not access.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s access: %(message)s"))
        access.addHandler(handler)
        access.setLevel(logging.INFO)
