"""`rates-xl cache info|clear`: the persistent tier (and the team's shared answers)."""

from __future__ import annotations

import argparse

from rates_xl.errors import CommandError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "cache",
        help="the persistent cache: where it is, how big, how many answers, hit rate; clear it",
        description="Answers that never change (history that ended, past fixings, anything "
        "valued as of a past time) are kept on disk across Excel sessions. `info` says where, "
        "how big, how many answers and the hit rate; `clear` empties it. With RATES_TEAM_URL "
        "set, both also report the team backend.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    info = actions.add_parser("info", help="where the cache is, its size, answers and hit rate")
    info.set_defaults(handler=run_cache_info)
    clear = actions.add_parser("clear", help="empty the persistent cache on this machine")
    clear.add_argument("--team", action="store_true",
                       help="also delete this key's answers shared on the team's Redis")
    clear.set_defaults(handler=run_cache_clear)


def _megabytes(count: float) -> str:
    return f"{count / 1024:.0f} kB" if count < 1024 * 1024 else f"{count / 1024 / 1024:.1f} MB"


def run_cache_info(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from rates_xl.client.tiers import stored_tiers

    settings, disk, team = stored_tiers()
    table = Table(title="rates-xl cache", show_header=False)
    table.add_column("what")
    table.add_column("value")
    if not settings.persistent:
        table.add_row("persistent tier", "off (RATES_PERSISTENT=false)")
    elif not disk.directory.exists():
        table.add_row("persistent tier", f"empty: nothing stored yet at {disk.directory}")
    else:
        info = disk.info()
        table.add_row("persistent tier", info["state"])
        table.add_row("folder", info["folder"])
        if "answers" in info:
            asked = info["hits"] + info["misses"]
            rate = f"{info['hits'] / asked:.0%} ({info['hits']} of {asked} looks)" if asked else "no looks yet"
            table.add_row("size", f"{_megabytes(info['bytes'])} of {_megabytes(info['size_limit'])}")
            table.add_row("answers", str(info["answers"]))
            table.add_row("hit rate", rate)
        disk.close()
    if team is None:
        table.add_row("team backend", "off (set RATES_TEAM_URL=redis://... to share a limit and a cache)")
    else:
        team.link.ping()
        table.add_row("team backend", team.link.describe())
        if team.link.up:
            shared = team.count()
            table.add_row("shared answers (this key)", str(shared))
        team.link.close()
    Console().print(table)
    return 0


def run_cache_clear(args: argparse.Namespace) -> int:
    from rates_xl.client.tiers import stored_tiers

    settings, disk, team = stored_tiers()
    shared = None
    if args.team:
        if team is None:  # refuse before clearing anything
            raise CommandError("--team: no team backend is set (RATES_TEAM_URL); nothing was cleared")
        shared = team
        team.link.ping()
        if not team.link.up:
            raise CommandError(f"--team: the team backend at {team.link.url} cannot be reached "
                               f"({team.link.problem}); nothing was cleared")
    if disk.directory.exists():
        before = disk.info().get("answers", 0)
        disk.clear()
        disk.close()
        print(f"cleared {before} answer{'' if before == 1 else 's'} from {disk.directory}")
    else:
        print(f"nothing to clear: no persistent cache at {disk.directory}")
    if shared is not None:
        dropped = shared.clear_scope()
        if not shared.link.up:
            raise CommandError(f"--team: the team backend at {shared.link.url} cannot be reached "
                               f"({shared.link.problem}); nothing shared was cleared")
        print(f"cleared {dropped} shared answer{'' if dropped == 1 else 's'} of this key from {shared.link.url}")
        shared.link.close()
    return 0
