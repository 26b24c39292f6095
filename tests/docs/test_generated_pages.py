"""The generated pages cover what they generate from: every function and argument, every
command, every message the code can write."""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

import pytest

from rates_xl.docgen import commands_page, generated_pages, troubleshooting_page
from rates_xl.functions import FUNCTIONS, args, catalogue, core, history, reference
from rates_xl.functions.args import COERCERS
from rates_xl.functions.messages import PREFIX


def test_the_function_reference_covers_every_function_argument_example_and_message():
    pages = reference.function_pages()
    assert list(pages) == list(FUNCTIONS)
    index = reference.index_page()
    for name, spec in FUNCTIONS.items():
        page = pages[name]
        assert page.startswith(f"# {name}\n"), name
        assert f"({name}.md)" in index, name
        assert reference.signature(spec) in page and reference.signature(spec, dotted=True) in page
        for arg in spec.args:
            param = f"`{arg.param}`" if arg.param else "not sent"
            row = f"| `{arg.name}` | {'required' if arg.required else 'optional'} | {COERCERS[arg.kind][1]} | {param} |"
            assert row in page, (name, arg.name)
        assert spec.examples, f"{name} has no examples in the table"
        for example in spec.examples:
            assert reference.formula(spec, example) in page, (name, example)
        messages = catalogue.all_messages(spec)
        for message in messages:
            assert message.text.startswith(PREFIX)
            assert f"`` {message.text} ``" in page, (name, message.text)
        # Each argument can be missing or wrong, and says so by its name.
        for arg in spec.args:
            named = [m for m in messages if m.text.startswith(f"{PREFIX} {arg.name}: ")]
            assert len(named) >= 2, (name, arg.name)
        if spec.endpoint is not None:
            assert any(" 403 " in m.text for m in messages) and any("unreachable" in m.text for m in messages)


def test_the_probes_reach_every_check_an_argument_kind_makes():
    """Every `raise ArgProblem` in args.py and history.py (the coercers) is reached by the
    catalogue's probes, so no message a cell can show is missing from the reference (a new
    check without a probe fails here)."""
    sources = [Path(args.__file__), Path(history.__file__)]
    raises = set()
    for source in sources:
        tree = ast.parse(source.read_text(encoding="utf-8"))
        raises |= {(str(source), node.lineno) for node in ast.walk(tree)
                   if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                   and getattr(node.exc.func, "id", None) == "ArgProblem"}
    assert len(raises) > 30
    reached: set[tuple[str, int]] = set()
    watched = {str(s) for s in sources}

    def tracer(frame, event, arg):
        if frame.f_code.co_filename not in watched:
            return None

        def lines(frame, event, arg):
            if event == "line":
                reached.add((frame.f_code.co_filename, frame.f_lineno))
            return lines

        return lines

    core._model_for.cache_clear()
    sys.settrace(tracer)
    try:
        for spec in FUNCTIONS.values():
            for arg in spec.args:
                catalogue.argument_messages(spec, arg)
    finally:
        sys.settrace(None)
    missing = sorted(raises - reached)
    assert not missing, f"lines never reached by a probe: {missing}"


def test_every_kind_of_service_failure_has_its_message_cause_and_fix():
    from rates_xl.client import errors
    from rates_xl.functions import messages

    swap, fixing = FUNCTIONS["RATES_SWAP"], FUNCTIONS["RATES_FIXING"]
    built = [f.build(swap) for f in catalogue.failures()] + [f.build(fixing) for f in catalogue.failures()]
    kinds = {type(exc) for exc in built if exc is not None}
    error_classes = {c for c in vars(errors).values()
                     if isinstance(c, type) and issubclass(c, errors.RatesError) and c is not errors.RatesError}
    assert error_classes <= kinds, error_classes - kinds
    reasons = {exc.reason for exc in built if isinstance(exc, errors.AuthError)}
    assert set(messages._AUTH) <= reasons
    for failure in catalogue.failures():
        assert failure.cause and failure.action, failure.key
    keys = [f.key for f in catalogue.failures()]
    assert len(keys) == len(set(keys))
    # No request, no service messages: RATES_STATUS can only fail on its settings or a defect.
    status = catalogue.service_messages(FUNCTIONS["RATES_STATUS"])
    assert [m.text.split(":")[0] for m in status] == [f"{PREFIX} settings", f"{PREFIX} internal error (KeyError); see the rates-xl log"]


def test_the_troubleshooting_page_lists_every_message_of_every_function():
    page = troubleshooting_page()
    for spec in FUNCTIONS.values():
        for message in catalogue.service_messages(spec):
            assert f"`` {message.text} ``" in page, message.text
    for kind in COERCERS:
        assert any(a.kind == kind for s in FUNCTIONS.values() for a in s.args)
    assert page.count("| `` #RATES! ") >= 60


def _walk(parser: argparse.ArgumentParser, prefix: str):
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, f"{prefix} {name}")


def test_the_commands_page_covers_every_subcommand_with_its_usage():
    from rates_xl.cli import build_parser

    page = commands_page()
    walked = list(_walk(build_parser(), "rates-xl"))
    assert len(walked) > 20
    for full, parser in walked:
        assert f"## `{full}`" in page, full
        assert f"usage: {full}" in page, full
        for action in parser._actions:
            for option in action.option_strings:
                assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", page), (full, option)


def test_generated_pages_are_the_ones_the_site_lists():
    pages = generated_pages()
    assert {f"reference/{n}.md" for n in FUNCTIONS} | {"reference/index.md", "commands.md", "settings.md",
                                                       "troubleshooting.md"} == set(pages)


@pytest.mark.parametrize("name", ["RATES_SWAP", "RATES.SWAP", "swap"])
def test_the_help_html_answers_either_spelling(name):
    page = reference.function_html(name)
    assert page is not None and "<h1>RATES_SWAP</h1>" in page
    assert reference.function_html("RATES_NOPE") is None


def test_the_routing_table_in_the_docs_is_the_generated_one():
    """docs/templates-and-calc.md holds `python -m rates_xl.calc.routing`'s table as it is now:
    a function routed anew (or its measured reason changed) without regenerating fails here."""
    from rates_xl.calc import routing, xlfuncs  # noqa: F401 - the table lists xlfuncs' functions

    doc = (Path(__file__).resolve().parents[2] / "docs" / "templates-and-calc.md").read_text(encoding="utf-8")
    shown = doc.partition(routing.BEGIN)[2].partition(routing.END)[0].strip("\n")
    assert shown == routing.table(), "regenerate it: python -m rates_xl.calc.routing"


def test_the_routing_tool_says_what_it_takes_and_fails_in_one_line(tmp_path, capsys):
    """`python -m rates_xl.calc.routing --help` took "--help" for the page and ended in a traceback."""
    from rates_xl.calc import routing

    with pytest.raises(SystemExit) as done:
        routing.main(["--help"])
    assert done.value.code == 0 and "Write the routing table" in capsys.readouterr().out
    assert routing.main([str(tmp_path / "missing" / "page.md")]) == 1
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 1 and printed[0].startswith("routing: cannot write the table into")
    page = tmp_path / "page.md"
    page.write_text("# Page\n", encoding="utf-8")
    assert routing.main([str(page)]) == 0 and routing.table() in page.read_text(encoding="utf-8")
