"""``python -m agents.serve``: the bot server over JSON lines (stdin/stdout), or over HTTP
with ``--http`` (docs/server.md)."""

from __future__ import annotations

import argparse
import sys

from agents.serve.jsonlines import serve_lines
from agents.serve.protocol import Limits, Service


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and serve until end of input (JSON lines) or a signal (HTTP)."""
    ap = argparse.ArgumentParser(prog="python -m agents.serve", description=__doc__)
    ap.add_argument("--http", action="store_true", help="serve HTTP instead of JSON lines")
    ap.add_argument("--host", default="127.0.0.1", help="HTTP address (default: loopback)")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--workers", type=int, default=4, help="HTTP: requests computed at once")
    ap.add_argument("--queue", type=int, default=64, help="HTTP: requests waiting beyond those")
    ap.add_argument(
        "--cors", default="", help="HTTP: comma-separated origins allowed by CORS (default none)"
    )
    ap.add_argument("--max-move-ms", type=float, default=Limits.max_move_ms)
    args = ap.parse_args(argv)
    service = Service(Limits(max_move_ms=args.max_move_ms))
    service.warm(copies=args.workers)
    if not args.http:
        serve_lines(service, sys.stdin.buffer, sys.stdout.buffer)
        return 0
    from agents.serve.http import run

    run(
        service,
        host=args.host,
        port=args.port,
        workers=args.workers,
        queue=args.queue,
        cors=[o for o in args.cors.split(",") if o],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
