"""A network that is wrong rather than down, on 127.0.0.1: a listening socket that accepts
connections and then never answers ("hold", as behind a firewall or a proxy that swallows
requests), resets them at once ("reset", RST as a crashed proxy sends), or closes them
without a word ("close", FIN). Connections are counted so tests can check how many times
the client really tried."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading

MODES = ("hold", "reset", "close")


class BadNetwork:
    def __init__(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        self.mode = mode
        self.accepted = 0
        self._held: list[socket.socket] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self._listener.settimeout(0.05)
        self.base_url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, name=f"badnet-{mode}", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self.accepted += 1
            if self.mode == "hold":
                with self._lock:
                    self._held.append(conn)  # never read, never answered, never closed
                continue
            if self.mode == "reset":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(5)
        with contextlib.suppress(OSError):
            self._listener.close()
        with self._lock:
            for conn in self._held:
                with contextlib.suppress(OSError):
                    conn.close()
            self._held.clear()

    def __enter__(self) -> BadNetwork:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
