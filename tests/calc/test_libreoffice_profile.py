"""The profile that makes LibreOffice recompute every formula on load (bench.libreoffice_ratio's
yardstick, tests/calc/corpus/build.py's reference books): with it a stale cached value is
recomputed, without it LibreOffice shows the file's value, so a comparison of speed or values
against LibreOffice without it would measure reading a file, not calculating it."""

from __future__ import annotations

from tests.support import libreoffice


@libreoffice.needed
def test_the_recalculating_profile_recomputes_a_stale_value_and_the_default_one_does_not(tmp_path):
    recalculating = libreoffice.recalculating_profile(tmp_path / "recalculating")
    assert libreoffice.recalculates_on_load(recalculating, tmp_path / "a")
    default = libreoffice.recalculating_profile(
        tmp_path / "default", '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<oor:items xmlns:oor="http://openoffice.org/2001/registry"></oor:items>\n')
    assert not libreoffice.recalculates_on_load(default, tmp_path / "b")
