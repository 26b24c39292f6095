"""Every command line in README.md and docs/ works as written (issue 31): read out of the
Markdown (`markdown_commands.py`), each page's commands are followed in reading order, as a
reader would, in a folder and a HOME of their own (no key, no keychain, no settings), with
the sandbox standing in for the service where a command needs one.

- A shell block's line (```bash, ```bat) is run through `bash -c` as written, with the few
  substitutions a test machine needs (`SUBSTITUTIONS`: a free port for 8766, the sandbox's
  URL and key for `...`, a generated certificate for /etc/rates-xl/tls.crt); `export X=Y`
  sets the page's environment; a server (`rates-xl serve`, `rates-xl sandbox`, `mkdocs
  serve`) is started, waited for, left running while the page goes on, then stopped with
  Ctrl+C. `pip install` lines are run by test_install_commands.py in fresh virtual
  environments.
- An inline command (`rates-xl templates list` in the prose) is run too when it is complete
  (`RUN_INLINE`); any other names a command and options the parser must know, a benchmark
  `python -m bench --list` must list, or a module that must exist.
- What cannot run here is listed with the reason (`NOT_RUN`): Windows-only steps, the test
  suite itself, Docker. A listed command no longer in the docs fails, and so does a new
  command that does not work: it must work or be listed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rates_xl.cli import INTERRUPT_GRACE_S
from rates_xl.sandbox import PAID_KEY
from rates_xl.templates import template_path
from tests.docs.markdown_commands import (
    _COMMAND_START,
    ROOT,
    SHELL_LANGUAGES,
    Documented,
    documented,
    every_command,
    pages,
)
from tests.support.commands import fresh_env
from tests.support.sandbox import free_port
from tests.support.timing import within

#: Documented, not run here, and why. (An entry that the docs no longer hold fails.)
NOT_RUN = {
    'pip install -e ".[dev]" && python -m pytest': "the README's test command: this suite itself (CI runs it "
                                                   "verbatim, .ci/run)",
    "python -m pytest": "the test suite itself (CI runs it)",
    "python -m pytest -n0 tests/x.py": "a form: tests/x.py stands for a test file",
    "stress --cpu 4 --timeout 3h &": "the load the suite is run under five times: hours, not a test",
    "for i in 1 2 3 4 5; do python -m pytest -p no:cacheprovider || break; done": "the suite itself, five times",
    "setx RATES_TEAM_URL redis://cache.internal:6379/0": "Windows only (setx writes the user's environment in the "
                                                         "registry); the page says export elsewhere",
    "set RATES_BASE_URL=http://127.0.0.1:8765": "Windows' cmd only: the same setting is exported on headless.md",
    "set RATES_API_KEY=sandbox-paid": "Windows' cmd only: the same setting is exported on headless.md",
    "docker run": "needs Docker, which this machine does not have (the Dockerfile's own steps are plain pip)",
    "docker exec <container> rates-xl serve users add NAME": "needs Docker; `rates-xl serve users add` itself runs "
                                                             "on team-server.md",
}
#: Code spans that start like a command and are not one.
NOT_COMMANDS = {
    "rates-xl market-data pack": "the `kind` field of a pack file",
    "rates-xl serve refused the batch (401): sign-in refused: expired": "a message the task pane shows",
}
#: Inline commands complete as written and quick: run, not only checked.
RUN_INLINE = {
    "rates-xl templates list", "rates-xl cache info", "rates-xl cache clear", "rates-xl cache clear --team",
    "rates-xl key status", "rates-xl officejs install --platform web", "rates-xl officejs uninstall",
    "rates-xl officejs certs --untrust", "rates-xl respell BOOK --to officejs",
    "rates-xl call swap_rate index=SOFR start_date=2D maturity_date=10Y fixed_leg_frequency=1Y",
    "rates-xl call swap_rate index=SOFR start_date=0D maturity_date=10Y fixed_leg_frequency=1Y",
    "rates-xl calc BOOK.xlsx", "rates-xl sandbox", "rates-xl officejs manifest --url URL -o manifest.xml",
    "rates-xl calc templates/history.xlsx", "rates-xl serve --live-share 50", "mkdocs serve",
    "mkdocs build --strict", "rates-xl addin uninstall", "rates-xl doctor",
}
#: What a command presumes that the page set up elsewhere (the environment it adds).
PRESUMES = {"rates-xl cache clear --team": "team"}
#: Exit codes other than 0 a command may end with, and why.
EXITS = {
    "rates-xl doctor": ({0, 1}, "a report: 1 when a check fails (no Excel, no DLL on Linux)"),
    "rates-xl diff book.values.xlsx today.values.xlsx -o explain.xlsx": ({0, 4}, "4 when something moved since"),
    "rates-xl calc book.xlsx -o today.values.xlsx && rates-xl diff book.values.xlsx today.values.xlsx":
        ({0, 4}, "the diff's 4 when something moved since"),
    "rates-xl diff book.values.xlsx book.scenario-SOFR+1bp.values.xlsx": ({4}, "a scenario moves the book: 4"),
}
#: Servers: what they print once they listen.
SERVERS = {"rates-xl serve": "manifest: ", "rates-xl sandbox": " at http://127.0.0.1:",  # serving or replaying
           "mkdocs serve": "Serving on"}


# -- the page's world ----------------------------------------------------------------------------
@dataclass
class World:
    """One page's folder, environment and running servers."""

    folder: Path
    env: dict[str, str]
    sandbox_url: str
    redis_url: str
    servers: list[subprocess.Popen] = field(default_factory=list)
    provider: Any = None  # the stand-in identity provider, started when a page names Entra ID
    ports: dict[str, int] = field(default_factory=dict)
    said: list[str] = field(default_factory=list)  # what each command printed, for the report

    def port(self, name: str) -> int:
        return self.ports.setdefault(name, free_port())


def _fixtures(folder: Path) -> Path:
    """What the docs' commands name: book.xlsx (the swap pricer), reports/ (two books),
    templates/history.xlsx."""
    folder.mkdir(parents=True)
    shutil.copyfile(template_path("swap_pricer"), folder / "book.xlsx")
    (folder / "reports").mkdir()
    for name in ("curve_dashboard", "history"):
        shutil.copyfile(template_path(name), folder / "reports" / f"{name}.xlsx")
    (folder / "templates").mkdir()
    shutil.copyfile(template_path("history"), folder / "templates" / "history.xlsx")
    return folder


def _world(tmp_path: Path, sandbox_url: str, redis_url: str, page: str) -> World:
    folder = _fixtures(tmp_path / "reader")
    home = tmp_path / "home"
    env = fresh_env(home, RATES_BASE_URL=sandbox_url,
                    # A keychain that works (a file): `rates-xl key set` stores the key there.
                    PYTHON_KEYRING_BACKEND="tests.addin.fake_keyring.FileKeyring",
                    RATES_XL_TEST_KEYRING=str(home / "keyring.json"), PYTHONPATH=str(ROOT),
                    PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    sets_key = any(c.block is not None and (c.text == "rates-xl key set" or c.text.startswith("export RATES_API_KEY"))
                   for c in documented(page))
    if not sets_key:  # the page assumes a key is set: the sandbox's
        env["RATES_API_KEY"] = PAID_KEY
    return World(folder, env, sandbox_url, redis_url)


def _certificate(world: World) -> tuple[Path, Path]:
    """The company's certificate for rates.corp.example (and localhost), from a throwaway CA."""
    import trustme

    cert, key = world.folder / "tls.crt", world.folder / "tls.key"
    if not cert.exists():
        ca = trustme.CA()
        issued = ca.issue_cert("rates.corp.example", "localhost", "127.0.0.1")
        issued.cert_chain_pems[0].write_to_path(str(cert))
        issued.private_key_pem.write_to_path(str(key))
        ca.cert_pem.write_to_path(str(world.folder / "ca.pem"))
    return cert, key


def _substituted(text: str, world: World) -> str:
    """The command as run here: a free port for 8766, loopback for 0.0.0.0, the sandbox for
    the service, a generated certificate for the company's, the running server for its host."""
    if text.startswith("rates-xl serve") and " users " not in f"{text} ":
        world.ports["serve"] = free_port()  # each server its own port; curl asks the last one
        text = text.replace(" ...", "").replace("--host 0.0.0.0", "--host 127.0.0.1")
        serve_port = world.ports["serve"]
        text = re.sub(r"--port \d+", f"--port {serve_port}", text)
        if "--port" not in text:
            text += f" --port {serve_port}"
        if "--users" in text and "--public-url" not in text:  # `...`: the options of the line above
            text += " --public-url https://rates.corp.example --cert /etc/rates-xl/tls.crt --key /etc/rates-xl/tls.key"
        text = text.replace("https://rates.corp.example", f"https://rates.corp.example:{serve_port}")
    if "/etc/rates-xl/" in text:
        cert, key = _certificate(world)
        text = text.replace("/etc/rates-xl/tls.crt", str(cert)).replace("/etc/rates-xl/tls.key", str(key))
    if text.startswith("curl ") and "rates.corp.example" in text:
        cert, _key = _certificate(world)
        serve_port = world.port("serve")
        text = text.replace("https://rates.corp.example/", f"https://rates.corp.example:{serve_port}/")
        text = text.replace("curl ", f"curl -sSf --resolve rates.corp.example:{serve_port}:127.0.0.1 "
                                     f"--cacert {world.folder / 'ca.pem'} ", 1)
    if text.startswith("rates-xl sandbox") and "--port" not in text:
        text += " --port 0"
    if text.startswith("mkdocs "):
        text += f" -f {ROOT / 'mkdocs.yml'}" + (f" -a 127.0.0.1:{world.port('mkdocs')}" if " serve" in text
                                                  else f" --site-dir {world.folder / 'site'}")
    return (text.replace("BOOK.xlsx", "book.xlsx").replace(" BOOK ", " book.xlsx ")
            .replace("--url URL", "--url https://localhost:8766")
            .replace("rates-xl diff A B", "rates-xl diff book.values.xlsx replayed.xlsx")
            .replace("--pack FILE", "--pack book.values.xlsx"))


def _exported(text: str, world: World) -> None:
    """`export NAME=VALUE` for the page's next commands; the docs' placeholders filled in."""
    name, value = text.removeprefix("export ").split("=", 1)
    filled = {"RATES_API_KEY": PAID_KEY, "RATES_BASE_URL": world.sandbox_url,
              "RATES_TEAM_URL": world.redis_url}
    value = filled.get(name, value) if "..." in value or "cache.internal" in value else value
    if value.startswith("https://login.microsoftonline.com/"):  # Entra ID: a stand-in on loopback
        from tests.support.oidc_provider import Provider

        world.provider = world.provider or Provider()
        value = world.provider.issuer
    if value == "<application (client) id>":
        from tests.support.oidc_provider import CLIENT_ID

        value = CLIENT_ID
    world.env[name] = value


# -- running -------------------------------------------------------------------------------------
def _run(command: Documented, world: World, cwd: Path | None = None) -> None:
    """Run one command in the page's world (in `cwd`, default the page's folder)."""
    text = command.text
    if text.startswith("export "):
        _exported(text, world)
        world.said.append(f"$ {text}")
        return
    run = _substituted(text, world)
    server = next((ready for start, ready in SERVERS.items() if run.startswith(start)
                   and " users" not in run), None)
    if server is not None:
        _start_server(command, run, server, world)
        return
    env = dict(world.env)
    if PRESUMES.get(text) == "team":
        env["RATES_TEAM_URL"] = world.redis_url
    stdin = f"{PAID_KEY}\n" if run == "rates-xl key set" else None
    done = subprocess.run(["bash", "-c", run], cwd=cwd or world.folder, env=env, capture_output=True, text=True,
                          timeout=600, input=stdin, stdin=None if stdin else subprocess.DEVNULL, check=False)
    world.said.append(f"$ {run}\n{done.stdout}{done.stderr}")
    allowed = EXITS.get(text, ({0}, ""))[0]
    assert done.returncode in allowed, f"{command.where}: `{text}` exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    for bad in ("Traceback", "internal error", "Exception ignored"):
        assert bad not in done.stderr + done.stdout, f"{command.where}: `{text}`:\n{done.stderr}"


def _start_server(command: Documented, run: str, ready: str, world: World) -> None:
    process = subprocess.Popen(["bash", "-c", f"exec {run}"], cwd=world.folder, env=world.env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    world.servers.append(process)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(process.stdout.readline, "")), daemon=True)
    reader.start()
    deadline = time.monotonic() + 120
    while not any(ready in line for line in list(lines)):
        assert process.poll() is None, f"{command.where}: `{command.text}` ended:\n{''.join(lines)}"
        assert time.monotonic() < deadline, f"{command.where}: `{command.text}` never said {ready!r}:\n{''.join(lines)}"
        time.sleep(0.1)
    world.said.append(f"$ {run}  (a server: left running)\n{''.join(lines)}")


@contextmanager
def _page_world(tmp_path: Path, sandbox_url: str, redis_url: str, page: str) -> Iterator[World]:
    world = _world(tmp_path, sandbox_url, redis_url, page)
    try:
        yield world
    finally:
        for process in world.servers:  # Ctrl+C, as a reader stops a server
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
        for process in world.servers:
            ours = "rates-xl" in process.args[-1]
            try:
                process.wait(within(INTERRUPT_GRACE_S, 60.0) if ours else 60)
            except subprocess.TimeoutExpired:
                # mkdocs' own serve may still be building when Ctrl+C comes on a loaded machine:
                # not ours to hold to the console script's rule, ended as a reader would.
                process.terminate() if not ours else process.kill()
                process.wait(30)
            assert process.returncode in ((0, 130, -signal.SIGINT) if ours else (0, 1, 130, -2, -15)), process.args
        if world.provider is not None:
            world.provider.stop()


# -- the tests -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    from tests.support.redis_server import REDIS_BINARY, RedisServer

    if REDIS_BINARY is None:  # the team's commands then run solo: a Redis nobody answers at
        yield f"redis://127.0.0.1:{free_port()}/0"
        return
    server = RedisServer().start()
    yield server.url
    server.stop()


def _runnable(command: Documented) -> bool:
    if command.text in NOT_RUN or command.text in NOT_COMMANDS or command.text.startswith("pip install"):
        return False
    return command.block is not None or command.text in RUN_INLINE


PAGES_WITH_COMMANDS = [page for page in pages() if any(_runnable(c) for c in documented(page))]


@pytest.mark.parametrize("page", PAGES_WITH_COMMANDS)
def test_each_pages_commands_run_as_written_in_reading_order(page, tmp_path, sandbox, redis_url):
    with _page_world(tmp_path, sandbox.base_url, redis_url, page) as world:
        for number, command in enumerate(documented(page)):
            if not _runnable(command):
                continue
            # A command in the prose is a mention, not a step: it runs in a folder of its own
            # (the same HOME), so it neither needs nor disturbs the steps' files.
            _run(command, world, None if command.block is not None else _fixtures(tmp_path / f"inline-{number}"))
    (tmp_path / "said.txt").write_text("\n".join(world.said))


def _parser_path(words: list[str]) -> tuple[argparse.ArgumentParser, list[str]]:
    """The subcommand's parser the words name, and the words after it."""
    from rates_xl.cli import build_parser

    parser = build_parser()
    while words:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or words[0] not in subs[0].choices:
            break
        parser, words = subs[0].choices[words[0]], words[1:]
    return parser, words


def test_every_other_documented_command_names_what_exists():
    """A command in the prose that is not run (a reference such as `rates-xl calc --replay`,
    a benchmark) names a subcommand and options the parser knows, a benchmark `python -m
    bench` lists, a module or a file that exists."""
    listed = subprocess.run([sys.executable, "-m", "bench", "--list"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120, check=True).stdout
    benchmarks = {line.split()[0] for line in listed.splitlines() if line.strip()}
    problems = []
    for command in every_command():
        text = command.text
        if _runnable(command) or text in NOT_RUN or text in NOT_COMMANDS or text.startswith("pip install"):
            continue
        words = shlex.split(re.sub(r"\[|\]|\|classic", " ", text))
        if words[0] == "rates-xl":
            parser, rest = _parser_path(words[1:])
            known = {o for a in parser._actions for o in a.option_strings}
            unknown = [w.split("=")[0] for w in rest if w.startswith("-") and w.split("=")[0] not in known]
            if parser.prog == "rates-xl" or unknown:
                problems.append(f"{command.where}: `{text}`: {'no such command' if parser.prog == 'rates-xl' else unknown}")
        elif words[:3] == ["python", "-m", "bench"]:
            if len(words) > 3 and words[3] not in benchmarks and words[3] != "--list":
                problems.append(f"{command.where}: `{text}`: no benchmark {words[3]}")
        elif words[:2] == ["python", "-m"]:
            module = words[2]
            found = (importlib.util.find_spec(module) if not module.startswith("bench")
                     else (ROOT / (module.replace(".", "/") + ".py")).exists())
            if not found:
                problems.append(f"{command.where}: `{text}`: no module {module}")
        elif words[0] == "python":
            if not (ROOT / words[1]).exists():
                problems.append(f"{command.where}: `{text}`: no file {words[1]}")
        elif words == ["redis-server"]:  # the team's own server (Debian's package): installed by CI
            if shutil.which("redis-server") is None:
                problems.append(f"{command.where}: `{text}`: not installed (.ci/run installs it)")
        else:
            problems.append(f"{command.where}: `{text}`: neither run nor checked: run it or list it in NOT_RUN")
    assert not problems, "\n".join(problems)


def test_the_lists_of_commands_not_run_hold_only_what_the_docs_say():
    written = {command.text for command in every_command()}
    for listed in (NOT_RUN, NOT_COMMANDS, EXITS):
        assert set(listed) <= written, set(listed) - written
    assert RUN_INLINE <= written, RUN_INLINE - written


def test_no_command_hides_in_a_fence_that_is_not_a_shells():
    """A command shown in a fence with no language (or ```text) would be read by no test: a
    line there that starts like a command must be in a shell's fence (```bash)."""
    hidden = []
    for page in pages():
        language = None
        for number, line in enumerate((ROOT / page).read_text(encoding="utf-8").splitlines(), start=1):
            fence = re.match(r"^\s*```\s*([\w+-]*)", line)
            if fence:
                language = fence[1].lower() if language is None else None
                continue
            if language is not None and language not in SHELL_LANGUAGES and _COMMAND_START.match(line.strip()):
                hidden.append(f"{page}:{number} (```{language}): {line.strip()}")
    assert not hidden, "\n".join(hidden)
