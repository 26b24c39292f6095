"""`rates-xl doctor` reports Defender's two ASR rules and Excel's macro policy from the
registry (addin/it_policy.py), here with a fake reader holding what group policy,
Set-MpPreference and the Trust Center write (issue 28)."""

from __future__ import annotations

from rates_xl.addin import doctor_addin, doctor_check, it_policy

WIN32 = "92e97fa1-2edf-4476-bdd6-9dd0b4dddc7b"
CHILD = "d4f940ab-401b-4efc-aadc-ad5f3c50688a"


class FakeReader:
    def __init__(self, values=None):
        self.values = {(h, k.casefold(), n.casefold()): v for (h, k, n), v in (values or {}).items()}
        self.asked = []

    def value(self, hive, key, name):
        self.asked.append((hive, key, name))
        return self.values.get((hive, key.casefold(), name.casefold()))


def by_name(findings):
    return {f.name: f for f in findings}


def test_nothing_configured_is_said_as_such_never_as_allowed():
    found = by_name(it_policy.findings(FakeReader()))
    for title, _ in it_policy.ASR_RULES.values():
        assert found[f"asr: {title}"].blocks is False
        assert "not configured here" in found[f"asr: {title}"].detail
    assert found["macro settings"].blocks is False and "default" in found["macro settings"].detail


def test_the_asr_rules_in_block_warn_and_audit():
    policy = it_policy.ASR_KEYS[0]
    local = it_policy.ASR_KEYS[1]
    found = by_name(it_policy.asr(FakeReader({("HKLM", policy, WIN32.upper()): "1", ("HKLM", local, CHILD): "2"})))
    win32 = found["asr: Block Win32 API calls from Office macros"]
    assert win32.blocks and win32.detail.startswith("block") and WIN32 in win32.fix
    child = found["asr: Block all Office applications from creating child processes"]
    assert not child.blocks and child.detail == "audit"
    warn = by_name(it_policy.asr(FakeReader({("HKLM", policy, CHILD): "6"})))
    assert warn["asr: Block all Office applications from creating child processes"].blocks  # warn stops it too


def test_macro_policy_trusted_locations_and_signed_add_ins():
    office = it_policy.OFFICE
    found = by_name(it_policy.macros(FakeReader({("HKCU", office, "VBAWarnings"): 4})))
    assert not found["macro settings"].blocks and "trusted location" in found["macro settings"].detail
    found = by_name(it_policy.macros(FakeReader({
        ("HKCU", office, "VBAWarnings"): 4,
        ("HKCU", office + r"\Trusted Locations", "AllLocationsDisabled"): 1,
        ("HKCU", office, "RequireAddinSig"): 1})))
    assert found["macro settings"].blocks and "group policy" in found["macro settings"].detail
    assert found["signed add-ins only"].blocks and "sign" in found["signed add-ins only"].fix
    user = by_name(it_policy.macros(FakeReader({("HKCU", it_policy.OFFICE_USER, "VBAWarnings"): 1})))
    assert "enable all macros (the user's Trust Center)" in user["macro settings"].detail


def test_doctor_shows_them_on_windows_and_not_elsewhere():
    reader = FakeReader({("HKLM", it_policy.ASR_KEYS[0], CHILD): "1"})
    checks = {c.name: c for c in doctor_addin.check_policy("win32", reader)}
    assert checks["asr: Block all Office applications from creating child processes"].state == doctor_check.FAIL
    assert checks["asr: Block Win32 API calls from Office macros"].state == doctor_check.OK
    assert [c.state for c in doctor_addin.check_policy("linux", reader)] == [doctor_check.NA]
    assert all(hive in ("HKLM", "HKCU") for hive, _, _ in reader.asked)  # read only, two hives
