"""The JSON-lines transport: one request per line in, one reply per line out, in order."""

from __future__ import annotations

import json
from typing import IO

from agents.serve.protocol import Service, fail


def serve_lines(service: Service, stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """Answer each line of ``stdin`` on ``stdout`` until end of input; returns the number of
    requests answered. A line longer than the request limit is answered ``too_large`` and
    skipped without being held in memory whole; blank lines are ignored."""
    limit = service.limits.max_request_bytes
    answered = 0
    while True:
        line = stdin.readline(limit + 1)
        if not line:
            return answered
        if len(line) > limit and not line.endswith(b"\n"):
            while True:  # drop the rest of the over-long line
                rest = stdin.readline(limit + 1)
                if not rest or rest.endswith(b"\n"):
                    break
            err = fail("too_large", f"a request is at most {limit} bytes")
            reply = {"id": None, "ok": False, "error": err.to_json()}
        elif not line.strip():
            continue
        else:
            reply = service.handle_line(line)
        stdout.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
        stdout.flush()
        answered += 1
