"""Sign-in on a team server behind a misbehaving identity provider (issue 27, point 3): the
stand-in provider on loopback (tests/support/oidc_provider.py) trickling its JWKS a byte
every 0.2 s, or sending 60 MB of it, with the verifier's default settings (5 s per fetch,
1 MB cap). Figures: how long a sign-in with a known key takes while such a refresh runs
(goal: under 0.5 s), how long a cold start waits before it is refused (goal: the fetch's
deadline + 0.5 s), and the memory a huge JWKS costs (goal: bounded by the cap).

    python -m bench signin          (about 40 s)
"""

from __future__ import annotations

import statistics
import threading
import time
import tracemalloc

from bench.common import figure, main_for, result

MB = 1 << 20
SIGN_INS = 20


def run(runs: int = 3) -> dict:
    from rates_xl.addin.officejs.auth import OidcSettings, OidcVerifier, SignInRefused
    from tests.support.oidc_provider import CLIENT_ID, Provider, new_key

    def verifier(provider: Provider) -> OidcVerifier:
        # refresh_cooldown_s=0: every run starts its refresh at once (default 10 s).
        return OidcVerifier(OidcSettings(issuer=provider.issuer, client_id=CLIENT_ID, refresh_cooldown_s=0.0))

    def refresh_behind(made: OidcVerifier, provider: Provider) -> threading.Thread:
        """A token naming a key the verifier does not know: it starts a refresh."""
        _, other = new_key()
        token = provider.token(key=other, kid="rotated-in")

        def attempt() -> None:
            try:
                made.verify(token)
            except SignInRefused:
                pass

        thread = threading.Thread(target=attempt, daemon=True)
        thread.start()
        ends = time.monotonic() + 10
        while provider.active == 0 and time.monotonic() < ends:
            time.sleep(0.005)
        return thread

    def known_key_sign_ins(made: OidcVerifier, provider: Provider) -> tuple[float, float, bool]:
        """(median, slowest) seconds of SIGN_INS known-key sign-ins, and whether the
        provider was still sending when they ended."""
        good = provider.token()
        times = []
        for _ in range(SIGN_INS):
            started = time.perf_counter()
            made.verify(good)
            times.append(time.perf_counter() - started)
        return statistics.median(times), max(times), provider.active > 0

    trickle_median, trickle_max, trickle_overlap = [], [], []
    cold, huge_median, huge_memory = [], [], []
    for _ in range(runs):
        provider = Provider()
        try:
            made = verifier(provider)
            made.verify(provider.token())
            provider.trickle(0.2)
            pending = refresh_behind(made, provider)
            median, slowest, overlapped = known_key_sign_ins(made, provider)
            trickle_median.append(median * 1000)
            trickle_max.append(slowest * 1000)
            trickle_overlap.append(1.0 if overlapped else 0.0)
            pending.join()

            started = time.monotonic()  # a cold start: no key yet, the JWKS trickling
            try:
                verifier(provider).verify(provider.token())
            except SignInRefused:
                pass
            cold.append(time.monotonic() - started)

            provider.normal()
            made = verifier(provider)
            made.verify(provider.token())
            provider.huge(60, declared=False)
            tracemalloc.start()
            pending = refresh_behind(made, provider)
            median, _, _ = known_key_sign_ins(made, provider)
            pending.join()
            huge_memory.append(tracemalloc.get_traced_memory()[1] / MB)
            tracemalloc.stop()
            huge_median.append(median * 1000)
        finally:
            provider.stop()
    return result(
        "signin", "Sign-in behind a trickled (1 byte / 0.2 s) and a 60 MB JWKS (default settings)",
        [
            figure(f"known key while the JWKS trickles: median of {SIGN_INS} sign-ins", trickle_median, "ms",
                   target=500, digits=2),
            figure(f"known key while the JWKS trickles: slowest of {SIGN_INS}", trickle_max, "ms", target=500,
                   digits=2),
            figure("... answered while the provider was still sending (1 = yes)", trickle_overlap, "",
                   target=1, better="equal", digits=0),
            figure("cold start behind the trickle: refused after", cold, "s", target=5.5),
            figure(f"known key while 60 MB arrive (chunked): median of {SIGN_INS}", huge_median, "ms",
                   target=500, digits=2),
            figure("60 MB JWKS refresh: peak traced memory", huge_memory, "MB"),
        ],
        runs=runs,
    )


if __name__ == "__main__":
    main_for(run, 3)
