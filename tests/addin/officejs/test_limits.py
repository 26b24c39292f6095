"""What a hostile or clumsy client can cost `rates-xl serve` (issue 17, items 6 and 7): every
malformed body is a 4xx with one line, never a 500; connections that never finish their
headers are closed and cannot crowd out a real request; slow batches occupy a bounded pool
of their own and never delay the static files. Each against a real uvicorn on loopback."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from rates_xl.addin.officejs.limits import Limits
from rates_xl.client import RatesClient
from rates_xl.sandbox import PAID_KEY
from tests.support.badnet import BadNetwork
from tests.support.rawtls import is_closed, tls_socket
from tests.support.sandbox import free_port, wait_until
from tests.support.timing import within

SWAP = {"fn": "SWAP", "args": ["SOFR", "0D", "5Y", "1Y"]}
#: What a request stuck behind the server's own limits would wait: the test client's timeout.
HUNG_S = 30.0


def post(served, data, content_type="application/json", **kwargs):
    return served.http.post(served.url + "/api/batch", data=data, timeout=60,
                            headers={"Origin": served.url, "Content-Type": content_type}, **kwargs)


def one_line_refusal(response, status: int) -> str:
    assert response.status_code == status, (response.status_code, response.text[:300])
    detail = response.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and "Traceback" not in response.text
    return detail


def test_malformed_bodies_are_4xx_with_one_line_never_500(serve, sandbox_client):
    served = serve(client=sandbox_client)

    def chunks():  # no Content-Length: only counting what arrives can catch it
        for _ in range(12):
            yield b"[" * 100_000

    assert "over 1000000 bytes" in one_line_refusal(post(served, chunks()), 413)
    assert "nested too deeply" in one_line_refusal(post(served, b"[" * 100_000), 400)
    assert "nested too deeply" in one_line_refusal(post(served, b'{"a":' * 50_000), 400)
    assert "not JSON" in one_line_refusal(post(served, b'{"calls": ["\xff\xfe"]}'), 400)
    assert "expected" in one_line_refusal(post(served, b"[1, 2]"), 400)
    # The server is still well after all that.
    assert "value" in served.batch([SWAP]).json()["results"][0]


def test_a_bad_number_fails_its_own_cell_not_the_batch(serve, sandbox_client):
    served = serve(client=sandbox_client)
    body = ('{"calls": [{"fn": "SWAP", "args": ["SOFR", "0D", "5Y", "1Y"]},'
            '{"fn": "DISCOUNT", "args": ["SOFR", ' + "9" * 4000 + "]},"
            '{"fn": "DISCOUNT", "args": ["SOFR", ' + "9" * 5000 + "]},"
            '{"fn": "DISCOUNT", "args": ["SOFR", 1e999]},'
            '{"fn": "DISCOUNT", "args": ["SOFR", NaN]},'
            '{"fn": "SWAP", "args": ["SOFR", "0D", -Infinity, "1Y"]},'
            '{"fn": "TENORS", "args": ["SOFR"]}]}')
    response = post(served, body.encode())
    assert response.status_code == 200, response.text[:300]
    results = response.json()["results"]
    assert "value" in results[0] and "value" in results[-1]
    for bad in results[1:5]:
        assert bad == {"error": "invalidValue", "message": "pay_date: not a number a cell can hold"}, bad
    assert results[5] == {"error": "invalidValue", "message": "maturity: not a number a cell can hold"}


def test_connections_that_never_finish_their_headers_are_closed_and_crowd_out_nobody(serve, sandbox_client):
    limits = Limits(header_timeout_s=1.5, max_connections=32)
    served = serve(client=sandbox_client, limits=limits)
    slow = []
    try:
        for _ in range(100):
            sock = tls_socket(served.running.port)
            sock.sendall(b"GET /manifest.xml HT")  # half a request line, never finished
            slow.append(sock)
        started = time.perf_counter()
        got = served.http.get(served.url + "/manifest.xml", timeout=30)
        # Served at once (the cap closed the oldest to make room), not after the 30 s a request
        # stuck behind them would wait.
        assert got.status_code == 200 and time.perf_counter() - started < within(0.0, HUNG_S)
        assert "value" in served.batch([SWAP]).json()["results"][0]
        # The cap closed the oldest at once, the header timeout the rest.
        assert sum(is_closed(s) for s in slow[:60]) == 60
        still_open = slow[60:]

        def all_closed() -> bool:
            still_open[:] = [s for s in still_open if not is_closed(s)]
            return not still_open

        assert wait_until(all_closed, timeout=limits.header_timeout_s + 5)
        # A request trickled one byte at a time is closed at the same deadline, not served: the
        # server closes it before its last byte (the trickle takes 20 s, the limit 1.5 s).
        trickle = tls_socket(served.running.port)
        request = b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Pad: " + b"p" * 160 + b"\r\n"
        sent = 0
        for byte in request:
            with contextlib.suppress(OSError):
                trickle.sendall(bytes([byte]))
            sent += 1
            time.sleep(0.1)
            if is_closed(trickle):
                break
        assert is_closed(trickle) and sent < len(request), (sent, len(request))
    finally:
        for sock in slow:
            sock.close()


def test_a_body_that_never_ends_is_408(serve, sandbox_client):
    served = serve(client=sandbox_client, limits=Limits(body_timeout_s=1.0))
    sock = tls_socket(served.running.port)
    sock.sendall(f"POST /api/batch HTTP/1.1\r\nHost: localhost\r\nOrigin: {served.url}\r\n"
                 "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"calls\"".encode())
    sock.settimeout(10)
    answer = b""
    while chunk := sock.recv(4096):  # the server closes the connection after its answer
        answer += chunk
    answer = answer.decode()
    assert answer.startswith("HTTP/1.1 408") and "did not arrive within 1 s" in answer
    sock.close()


def test_the_rest_of_a_refused_body_is_cut_off_at_the_header_limit(serve, sandbox_client):
    """A 413 is answered at once (the client can read it); the body that keeps coming after
    it is discarded, for at most the header time limit, then the connection is closed."""
    limits = Limits(header_timeout_s=1.0, max_body=1000)
    served = serve(client=sandbox_client, limits=limits)
    sock = tls_socket(served.running.port)
    sock.sendall(f"POST /api/batch HTTP/1.1\r\nHost: localhost\r\nOrigin: {served.url}\r\n"
                 "Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n".encode())
    sock.settimeout(10)
    answer = b""
    while not answer.endswith(b"}"):  # the JSON body ends the answer
        answer += sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 413 ") and b"over 1000 bytes" in answer
    start = time.monotonic()
    # The rest of the declared 100 MB would take 5,000 s at this pace: closed at the limit.
    while time.monotonic() - start < within(limits.header_timeout_s, HUNG_S):
        try:
            sock.sendall(b"x" * 1000)
        except OSError:
            break
        if is_closed(sock):
            break
        time.sleep(0.05)
    assert is_closed(sock)
    sock.close()


def test_300_hanging_connections_within_256_file_descriptors_leave_room(tls, sandbox, tmp_path):
    """macOS starts processes with 256 file descriptors: the real `rates-xl serve`, so
    limited, must still answer while 300 connections try to hang in their headers (without
    the cap, the first ~245 take every descriptor and nothing else is accepted)."""
    resource = pytest.importorskip("resource")
    port = free_port()
    env = {**os.environ, "RATES_BASE_URL": sandbox.base_url, "RATES_API_KEY": PAID_KEY,
           "RATES_XL_DATA_DIR": str(tmp_path)}

    def limit_files():
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    command = [str(Path(sys.executable).parent / "rates-xl"), "serve", "--port", str(port),
               "--cert", str(tls.cert), "--key", str(tls.key)]
    process = subprocess.Popen(command, env=env, preexec_fn=limit_files,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    http = requests.Session()
    http.verify, http.trust_env = str(tls.ca), False
    url = f"https://localhost:{port}"
    slow = []
    try:
        def up():
            with contextlib.suppress(requests.RequestException):
                return http.get(url + "/manifest.xml", timeout=2).status_code == 200
            return False

        assert wait_until(up, timeout=30), "rates-xl serve did not start"
        for _ in range(300):
            try:
                sock = tls_socket(port, timeout=2)
                sock.sendall(b"GET / HTTP/1.1\r\nHost: loc")
            except OSError:  # the server is full: no more accepted (what used to happen)
                break
            slow.append(sock)
        got = http.get(url + "/manifest.xml", timeout=8)
        assert got.status_code == 200
        answer = http.post(url + "/api/batch", json={"calls": [SWAP]}, headers={"Origin": url}, timeout=20)
        assert "value" in answer.json()["results"][0]
    finally:
        for sock in slow:
            sock.close()
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(10)
        if process.poll() is None:
            process.kill()


def test_45_slow_batches_leave_the_static_files_fast_and_run_in_a_bounded_pool(serve):
    """45 batches wait on a service that holds every request: the manifest and the metadata
    still answer at once, and at most `batch_workers` batches hold a request."""
    held = BadNetwork("hold")
    client = RatesClient(base_url=held.base_url, api_key=PAID_KEY, max_attempts=1, timeout=60, deadline=60)
    limits = Limits()
    served = serve(client=client, limits=limits)
    answers: list[int] = []

    def one_batch(i: int) -> None:
        session = requests.Session()
        session.verify, session.trust_env = served.http.verify, False
        call = {"fn": "SWAP", "args": ["SOFR", "0D", f"{i + 1}Y", "1Y"]}  # distinct: a request each
        response = session.post(served.url + "/api/batch", json={"calls": [call]},
                                headers={"Origin": served.url}, timeout=120)
        answers.append(response.status_code)

    threads = [threading.Thread(target=one_batch, args=(i,), daemon=True) for i in range(45)]
    try:
        for thread in threads:
            thread.start()
        assert wait_until(lambda: held.accepted >= limits.batch_workers, timeout=30)
        assert wait_until(lambda: served.app.state.batches.in_flight == 45, timeout=30)
        time.sleep(0.5)  # give any unbounded pool time to show itself
        for path in ("/manifest.xml", f"/v/{served.app.state.version}/functions.json"):
            started = time.perf_counter()
            assert served.http.get(served.url + path, timeout=30).status_code == 200
            assert time.perf_counter() - started < within(0.0, HUNG_S), path  # a hang, not a benchmark: see bench/
        assert held.accepted == limits.batch_workers  # the rest wait in the queue
    finally:
        held.stop()  # every held request fails now: the batches finish
        for thread in threads:
            thread.join(60)
        client.close()
    assert answers == [200] * 45


def test_batches_beyond_the_queue_get_a_quick_503_with_retry_after(serve):
    held = BadNetwork("hold")
    client = RatesClient(base_url=held.base_url, api_key=PAID_KEY, max_attempts=1, timeout=60, deadline=60)
    served = serve(client=client, limits=Limits(batch_workers=2, batch_queue=3))
    statuses: list[int] = []
    threads = [threading.Thread(target=lambda i=i: statuses.append(served.batch(
        [{"fn": "SWAP", "args": ["SOFR", "0D", f"{i + 1}Y", "1Y"]}]).status_code), daemon=True) for i in range(5)]
    try:
        for thread in threads:
            thread.start()
        assert wait_until(lambda: served.app.state.batches.in_flight == 5, timeout=30)
        started = time.perf_counter()
        busy = served.batch([SWAP])
        assert busy.status_code == 503 and busy.headers["retry-after"] == "2"
        assert busy.json()["detail"].startswith("busy: 5 batches in progress")
        assert time.perf_counter() - started < within(0.0, HUNG_S)  # at once, not after a held batch
    finally:
        held.stop()
        for thread in threads:
            thread.join(60)
        client.close()
    assert statuses == [200] * 5
