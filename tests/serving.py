"""A real uvicorn server on a free loopback port, in a thread, for the server's tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve ``app`` until the block ends; yields its base URL once it answers."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            httpx.get(f"{base}/v1/info", timeout=5)
            break
        except httpx.TransportError:
            time.sleep(0.05)
    try:
        yield base
    finally:
        server.should_exit = True
        thread.join(10)
