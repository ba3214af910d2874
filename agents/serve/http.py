"""The HTTP transport: ``POST /v1/<cmd>`` with the JSON-lines request as its body (FastAPI on
uvicorn). Requests are computed on a bounded pool of threads; when ``workers`` are busy and
``queue`` more wait, a request is answered 429 ``busy`` at once. Bodies above the request limit
are refused (413) before they are read whole. Every answer is the protocol's reply object, with
the HTTP status of its error code (docs/server.md)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from agents.serve.protocol import ERROR_STATUS, PROTOCOL_VERSION, ServeError, Service, fail

#: what each command's body holds, for the OpenAPI schema (docs/server.md has the details)
COMMAND_DOCS = {
    "info": "The protocol version, the games, the bots and their settings, the limits.",
    "new_game": "`game`, `seed`, and `players` + rule `options` or a `config`: a new position.",
    "legal": "`position`, `seat`: the seat's legal actions (JSON, int, text).",
    "apply": "`position`, `actions` (seat string -> action JSON), `seed`: the next position.",
    "move": "`position`, `seat`, `bot` (a spec), `seed`, optional `budget_ms`: the bot's action.",
    "render": "`position`, optional `seat`: a PNG picture of the board (base64).",
    "validate": "`position`: whether the rules can reach it, and the first problem if not.",
}


#: the play page (plain HTML and JS, no build step), served at / and beside it
WEB_FILES = {
    "index.html": "text/html; charset=utf-8",
    "play.js": "text/javascript; charset=utf-8",
    "play.css": "text/css; charset=utf-8",
}


class _Admission:
    """At most ``limit`` requests admitted at once (computing or waiting for a worker)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0
        self.lock = threading.Lock()

    def enter(self) -> bool:
        with self.lock:
            if self.count >= self.limit:
                return False
            self.count += 1
            return True

    def leave(self) -> None:
        with self.lock:
            self.count -= 1


def _busy(limit: int) -> JSONResponse:
    """429 at once, telling the client when to try again (``Retry-After``, seconds)."""
    busy = fail("busy", f"{limit} requests are being served; try again")
    return JSONResponse(
        {"id": None, "ok": False, "error": busy.to_json()},
        status_code=429,
        headers={"Retry-After": "1"},
    )


def _reply(reply: dict[str, Any]) -> JSONResponse:
    status = 200 if reply.get("ok") else ERROR_STATUS.get(reply["error"]["code"], 400)
    return JSONResponse(reply, status_code=status)


def create_app(
    service: Service,
    workers: int = 4,
    queue: int = 64,
    cors: Sequence[str] = (),
) -> FastAPI:
    """The FastAPI app serving ``service``: ``workers`` threads, ``queue`` more waiting."""
    app = FastAPI(
        title="Tabletop racing bot server",
        version=str(PROTOCOL_VERSION),
        description="Bots for Lunatix Loop and Lazer Ryderz behind any front end: "
        "the JSON-lines protocol over HTTP (docs/server.md).",
    )
    if cors:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cors),
            allow_methods=["GET", "POST"],
            allow_headers=["Content-Type"],
        )
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bot-server")
    admission = _Admission(workers + queue)
    app.state.admission = admission  # (requests admitted now: ``count`` of ``limit``)
    limit = service.limits.max_request_bytes

    async def read_body(request: Request) -> bytes | None:
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            return None
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                return None
        return bytes(body)

    async def run_command(cmd: str, request: Request) -> JSONResponse:
        if not admission.enter():
            return _busy(admission.limit)
        try:
            body = await read_body(request)
            if body is None:
                err = fail("too_large", f"a request body is at most {limit} bytes")
                return _reply({"id": None, "ok": False, "error": err.to_json()})
            try:
                req = service.parse_line(body if body.strip() else b"{}")
            except ServeError as exc:
                return _reply(service.error_reply(exc))
            if service.quick(req, cmd):  # a few ms: two thread hand-offs would cost more
                return _reply(service.handle(req, cmd))
            loop = asyncio.get_running_loop()
            return _reply(await loop.run_in_executor(pool, service.handle, req, cmd))
        finally:
            admission.leave()

    for cmd, doc in COMMAND_DOCS.items():

        async def endpoint(request: Request, cmd: str = cmd) -> JSONResponse:
            return await run_command(cmd, request)

        app.add_api_route(
            f"/v1/{cmd}",
            endpoint,
            methods=["POST"],
            name=cmd,
            summary=doc,
            openapi_extra={
                "requestBody": {
                    "required": cmd != "info",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            },
        )

    @app.get("/v1/info", summary=COMMAND_DOCS["info"])
    async def info_get(request: Request) -> JSONResponse:
        return await run_command("info", request)

    for name, media in WEB_FILES.items():
        content = resources.files("agents.serve").joinpath("web", name).read_bytes()

        async def page(content: bytes = content, media: str = media) -> Response:
            return Response(content, media_type=media, headers={"Cache-Control": "no-cache"})

        route = "/" if name == "index.html" else f"/{name}"
        app.add_api_route(route, page, methods=["GET"], include_in_schema=False)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = "unknown_command" if exc.status_code in (404, 405) else "bad_request"
        message = (
            f"no such route {request.method} {request.url.path}; commands are POST /v1/<cmd>"
            if code == "unknown_command"
            else str(exc.detail)
        )
        return JSONResponse(
            {"id": None, "ok": False, "error": {"code": code, "message": message, "path": ""}},
            status_code=404 if code == "unknown_command" else 400,
        )

    app.state.service = service
    app.state.pool = pool
    return app


def run(
    service: Service,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 4,
    queue: int = 64,
    cors: Sequence[str] = (),
) -> None:
    """Serve until interrupted (uvicorn, one process, the thread pool computing)."""
    import uvicorn

    app = create_app(service, workers=workers, queue=queue, cors=cors)
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_keep_alive=5)
