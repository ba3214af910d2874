"""Hostile requests to the bot server: malformed JSON, wrong types, mutated positions, huge
and deep bodies, out-of-range budgets. Every one is answered with a reply object (never an
exception out of ``handle``), none with ``internal`` (a 5xx), and a valid request is served
after each. ``TABLETOP_SOAK_GAMES`` sizes it (5 requests per soak game: 1,500 in ``make
test``, 10,000 in ``.ci/run``); a small HTTP share goes through uvicorn."""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serving import serving

from agents.serve import Service
from agents.serve.http import create_app
from agents.serve.protocol import COMMAND_FIELDS

EXAMPLES = 5 * int(os.environ.get("TABLETOP_SOAK_GAMES", "300"))
SVC = Service()
POSITIONS = {
    game: SVC.handle({"cmd": "new_game", "game": game, "players": 2, "seed": 4})["position"]
    for game in ("lunatix", "ryderz")
}
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.lists(st.integers(-3, 3), max_size=4),
    st.dictionaries(st.text(max_size=4), st.integers(-3, 3), max_size=3),
    st.sampled_from(["0", "1", "heuristic", "mcts", "policy:/etc/passwd", "lunatix", "ryderz"]),
)
FIELDS = ["id", "cmd", "game", "seed", "players", "options", "config", "position", "seat"]
FIELDS += ["actions", "bot", "budget_ms", "format"]
COMMANDS = ["info", "new_game", "legal", "apply", "move", "render", "validate", "nope"]


def _paths(v: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(v, dict):
        for k, x in v.items():
            out += _paths(x, (*prefix, k))
    elif isinstance(v, list):
        for i, x in enumerate(v[:6]):
            out += _paths(x, (*prefix, i))
    return out


def base_request(cmd: str, game: str) -> dict[str, Any]:
    """A valid request of ``cmd`` (before the fuzz breaks it)."""
    pos = copy.deepcopy(POSITIONS[game])
    seat = SVC.handle({"cmd": "validate", "position": pos})["deciding"][0]
    full: dict[str, Any] = {
        "game": game,
        "seed": 1,
        "players": 2,
        "position": pos,
        "seat": seat,
        "bot": "random",
        "actions": {str(seat): 0},
        "format": "png",
    }
    fields = COMMAND_FIELDS.get(cmd, frozenset({"position"}))
    return {"cmd": cmd, **{k: v for k, v in full.items() if k in fields}}


@st.composite
def requests(draw: st.DrawFn) -> Any:
    """A valid request of some command, then broken in one to three places: a field replaced
    by junk or removed, an unknown field added, or one value of its position replaced or
    removed."""
    cmd = draw(st.sampled_from(COMMANDS))
    req = base_request(cmd, draw(st.sampled_from(sorted(POSITIONS))))
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["field", "drop", "extra", "position", "position"]))
        if how == "field" and len(req) > 1:
            req[draw(st.sampled_from(sorted(req)))] = draw(JUNK)
        elif how == "drop" and len(req) > 1:
            req.pop(draw(st.sampled_from(sorted(req))))
        elif how == "extra":
            req[draw(st.sampled_from(FIELDS))] = draw(JUNK)
        elif isinstance(req.get("position"), dict):
            paths = [p for p in _paths(req["position"]) if p]
            if not paths:
                continue
            path = draw(st.sampled_from(paths))
            parent = req["position"]
            for k in path[:-1]:
                parent = parent[k]
            if draw(st.booleans()) and isinstance(parent, dict):
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = draw(JUNK)
    return req


def check_reply(reply: Any) -> None:
    assert isinstance(reply, dict) and reply.get("ok") in (True, False), reply
    if not reply["ok"]:
        assert reply["error"]["code"] != "internal", reply
        assert isinstance(reply["error"]["message"], str) and reply["error"]["message"]
    json.dumps(reply)  # every reply is JSON


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(requests())
def test_hostile_requests_are_answered_without_a_5xx(req: Any) -> None:
    if req.get("cmd") == "move" and isinstance(req.get("budget_ms"), int | float):
        req["budget_ms"] = min(req["budget_ms"], 50) if req["budget_ms"] > 0 else req["budget_ms"]
    check_reply(SVC.handle(req))
    check_reply(SVC.handle_line(json.dumps(req)))


@settings(max_examples=max(50, EXAMPLES // 20), deadline=None, derandomize=True)
@given(st.binary(max_size=300))
def test_any_bytes_are_answered(data: bytes) -> None:
    check_reply(SVC.handle_line(data))


def test_hostile_bodies_over_http_then_a_valid_request() -> None:
    bodies: list[bytes] = [
        b"",
        b"{",
        b"[]",
        b"null",
        b'{"cmd": "info", "x": NaN}',
        b"[" * 100_000,
        b'{"a": ' * 5000 + b"1" + b"}" * 5000,
        b" " * (SVC.limits.max_request_bytes + 1),
        json.dumps({"position": {"game": "lunatix", "config": {"decks": "/etc/passwd"}}}).encode(),
        json.dumps({"seat": 0, "position": POSITIONS["ryderz"], "bot": "mcts:sims=1e99"}).encode(),
        "é".encode("latin-1"),
    ]
    with serving(create_app(Service(), workers=2, queue=8)) as base:
        with httpx.Client(base_url=base, timeout=60) as c:
            for body in bodies:
                for cmd in ("legal", "move", "apply", "info"):
                    r = c.post(f"/v1/{cmd}", content=body)
                    assert r.status_code < 500, (cmd, body[:60], r.text[:300])
                    check_reply(r.json())
                    ok = c.post("/v1/validate", json={"position": POSITIONS["lunatix"]})
                    assert ok.status_code == 200 and ok.json()["valid"]


@pytest.mark.parametrize("game", sorted(POSITIONS))
def test_deep_and_wide_positions_stop_at_the_limits(game: str) -> None:
    pos = copy.deepcopy(POSITIONS[game])
    pos["state"]["padding"] = list(range(100_000))
    r = SVC.handle({"cmd": "validate", "position": pos})
    assert not r["ok"] and r["error"]["code"] == "too_large"
