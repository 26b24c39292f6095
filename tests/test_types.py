"""The type check CI runs (`python -m tests.support.typecheck`, .ci/run): mypy over calc,
functions and client as installed, with pyproject.toml's [tool.mypy]. Shown failing on a
deliberately wrong type in a module that uses the package, and passing on the package itself
in the same run, so it cannot pass by reading nothing."""

from __future__ import annotations

import importlib.util
import textwrap
import uuid

import pytest

from tests.support import typecheck

pytestmark = pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                                reason="mypy is not installed (the dev extra installs it)")


def test_a_wrong_type_against_the_package_fails_the_check_and_the_package_itself_passes(tmp_path):
    # A name of its own: mypy's cache would otherwise replay an earlier run's errors, with
    # that run's path.
    wrong = tmp_path / f"uses_rates_xl_{uuid.uuid4().hex}.py"
    wrong.write_text(textwrap.dedent('''\
        from rates_xl.functions.context import CallContext
        from rates_xl.functions.sheet import parse_area

        area = parse_area("A1:B2")
        rows: str = area.rows  # an int, not text
        CallContext(fresh_since="yesterday")  # a time.time() moment, not text
        '''))
    done = typecheck.run([str(wrong)])
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert done.returncode == 1, done.stdout + done.stderr
    assert [line.split(":")[1] for line in errors] == ["5", "6"], done.stdout
    assert 'expression has type "int", variable has type "str"' in errors[0]
    assert '"fresh_since"' in errors[1] and '"str"' in errors[1]
    # Every error is the deliberate ones: calc, functions and client themselves pass.
    assert all(line.startswith(str(wrong)) for line in errors), done.stdout
