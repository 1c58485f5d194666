"""A real llama.cpp server for tests and ``bench/serving.py``: ``python -m llama_cpp.server`` with
the embedded SmolLM2 GGUF on a free localhost port, started, waited for, stopped (and killed, to
test a server that dies mid-batch).

``--interrupt_requests False``: llama-cpp-python's server otherwise ends a streaming answer as soon
as another request arrives (its default, for chat UIs) — concurrent clients would see every
stream but the newest cut short.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO, Any

from gramwright.models import locate_embedded_gguf


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    def __init__(self, port: int | None = None, *, log: Path | None = None, threads: int = 2) -> None:
        self.port = port or free_port()
        self.log = log
        self.threads = threads
        self.proc: subprocess.Popen[bytes] | None = None
        self._log_fh: IO[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        return [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(locate_embedded_gguf()),
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", "4096", "--n_threads", str(self.threads),
            "--interrupt_requests", "False",
        ]  # fmt: skip

    def start(self, timeout: float = 180.0) -> LlamaServer:
        out: Any = subprocess.DEVNULL
        if self.log is not None:
            self._log_fh = out = open(self.log, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            self.command(), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode} (log: {self.log})")
            try:
                with urllib.request.urlopen(self.url + "/v1/models", timeout=2) as response:
                    if json.loads(response.read()).get("data"):
                        return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer within {timeout:.0f} s")

    def kill(self) -> None:
        """SIGKILL, as a crash: no goodbye to the clients."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        if self._log_fh is not None:
            self._log_fh.close()
            self._log_fh = None

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
