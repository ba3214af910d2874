"""The bot server: our bots behind any front end, over JSON lines or HTTP (docs/server.md).

``python -m agents.serve`` answers one JSON request per line on stdin with one JSON reply
per line on stdout; ``python -m agents.serve --http --port 8000`` serves the same commands as
``POST /v1/<cmd>`` (FastAPI on uvicorn, loopback unless told otherwise). The server holds no
session: a position carries its game, its config (by value or a shipped preset's name) and
the state JSON, and every request that draws chance names its seed.
"""

from agents.serve.protocol import PROTOCOL, PROTOCOL_VERSION, Limits, ServeError, Service

__all__ = ["PROTOCOL", "PROTOCOL_VERSION", "Limits", "ServeError", "Service"]
