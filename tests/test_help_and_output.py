"""The help and output slips a newcomer met (issue 31, point 9), each through `rates-xl`."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import time

import openpyxl

from rates_xl.cli import build_parser
from rates_xl.templates import template_path
from tests.support.commands import console_script, fresh_env, rates_xl
from tests.support.sandbox import free_port


def _parsers(parser: argparse.ArgumentParser, prefix=()):
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*prefix, name))


def test_no_help_shows_a_doubled_percent_and_every_command_group_says_what_it_is():
    for words, parser in _parsers(build_parser()):
        text = parser.format_help()
        assert "%%" not in text and "%(" not in text, words
        groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if groups and words:  # `templates`, `officejs`, `addin` ...: what the group is for
            assert parser.description, f"rates-xl {' '.join(words)} --help has no description"


def test_addin_install_help_names_the_settings_file_as_windows_writes_it(tmp_path):
    done = rates_xl("addin", "install", "--help", cwd=tmp_path, env=fresh_env(tmp_path / "home"))
    flat = " ".join(done.stdout.split())
    assert "%USERPROFILE%\\.rates_xl\\rates_xl.conf" in flat and "%%" not in flat


def test_serve_usage_shows_users_as_the_optional_subcommand_it_is(tmp_path):
    usage = rates_xl("serve", "--help", cwd=tmp_path, env=fresh_env(tmp_path / "home")).stdout.split("\n\n")[0]
    lines = usage.splitlines()
    assert lines[0].startswith("usage: rates-xl serve [-h]")
    assert not any(line.strip() == "users ..." or line.rstrip().endswith(" users ...") for line in lines), usage
    assert lines[-1].strip().startswith("rates-xl serve users {add,list,remove} ...")


def test_serve_on_another_port_says_how_to_install_for_that_port(tmp_path, sandbox):
    port = free_port()
    env = fresh_env(tmp_path / "home", RATES_BASE_URL=sandbox.base_url, RATES_API_KEY="sandbox-paid")
    process = subprocess.Popen([console_script(), "serve", "--certs", "--port", str(port)], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        lines = []
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith("manifest: "):
                break
    finally:
        process.terminate()
        process.communicate(timeout=30)
    said = "".join(lines)
    assert f"install it with `rates-xl officejs install --url https://localhost:{port}`" in said, said


def test_respelling_twice_never_doubles_the_suffix(tmp_path):
    env = fresh_env(tmp_path / "home")
    shutil.copyfile(template_path("history"), tmp_path / "book.xlsx")
    assert rates_xl("respell", "book.xlsx", "--to", "officejs", cwd=tmp_path, env=env).returncode == 0
    back = rates_xl("respell", "book-officejs.xlsx", "--to", "classic", cwd=tmp_path, env=env)
    assert back.returncode == 0 and back.stdout.startswith("book-classic.xlsx: "), back.stdout + back.stderr
    again = rates_xl("respell", "book-officejs.xlsx", "--to", "officejs", cwd=tmp_path, env=env)
    assert again.returncode == 1 and again.stderr.strip() == (
        "rates-xl respell: book-officejs.xlsx is already named for officejs (respelled before?): "
        "give -o FILE for the new copy")
    assert sorted(p.name for p in tmp_path.glob("*.xlsx")) == ["book-classic.xlsx", "book-officejs.xlsx", "book.xlsx"]


def test_calc_of_a_folder_leaves_out_the_copies_it_wrote_and_counts_in_english(tmp_path, sandbox):
    env = fresh_env(tmp_path / "home", RATES_BASE_URL=sandbox.base_url, RATES_API_KEY="sandbox-paid")
    folder = tmp_path / "reports"
    folder.mkdir()
    book = openpyxl.Workbook()
    book.active["A1"] = '=RATES_SWAP("SOFR","0D","10Y","1Y")'
    book.save(folder / "one.xlsx")
    first = rates_xl("calc", "reports/one.xlsx", "--no-progress", cwd=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    assert "1 formula in " in first.stdout and "1 distinct service request, 1 sent" in first.stdout, first.stdout
    replayed = rates_xl("calc", "reports/one.xlsx", "--replay", "reports/one.values.xlsx", "-o",
                        "reports/replayed.xlsx", "--no-progress", cwd=tmp_path, env=env)
    assert replayed.returncode == 0, replayed.stderr
    again = rates_xl("calc", "reports", "--no-progress", "--force", cwd=tmp_path, env=env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0] == ("Left out 2 copies rates-xl calc wrote (values only): one.values.xlsx, "
                                            "replayed.xlsx.")
    assert "0 formulas" not in again.stdout and "none engine" not in again.stdout
    assert "Computed one.xlsx: 1 formula in " in again.stdout
    alone = rates_xl("calc", "reports/replayed.xlsx", "--no-progress", "-o", "r2.xlsx", cwd=tmp_path, env=env)
    assert "Computed replayed.xlsx: no formulas (values only: nothing to compute)" in alone.stdout


def test_a_reader_that_leaves_early_is_no_bug(tmp_path):
    process = subprocess.Popen([console_script(), "templates", "list"], cwd=tmp_path,
                               env=fresh_env(tmp_path / "home"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL)
    process.stdout.close()  # `| head -0`: nobody reads
    err = process.communicate(timeout=60)[1].decode()
    assert "internal error" not in err and "Traceback" not in err and "Exception ignored" not in err, err
    assert process.returncode in (0, 141)
