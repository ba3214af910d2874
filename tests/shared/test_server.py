"""The bot server (agents.serve): every command in-process, the JSON-lines transport in a
real subprocess, the HTTP transport through a real HTTP client against uvicorn."""

from __future__ import annotations

import base64
import copy
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from serving import serving

from agents.serve import Limits, Service
from agents.serve.http import create_app
from tabletop import registry
from tabletop.protocol import play_chance

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("lunatix", "ryderz")


@pytest.fixture(scope="module")
def svc() -> Service:
    return Service()


def ok(reply: dict[str, Any]) -> dict[str, Any]:
    assert reply["ok"], reply
    return reply


def err(reply: dict[str, Any], code: str, path: str | None = None) -> dict[str, Any]:
    assert not reply["ok"], reply
    assert reply["error"]["code"] == code, reply
    if path is not None:
        assert reply["error"]["path"] == path, reply
    return reply["error"]


def new(svc: Service, game: str, seed: int = 1, players: int = 2) -> dict[str, Any]:
    r = ok(svc.handle({"cmd": "new_game", "game": game, "players": players, "seed": seed}))
    return r["position"]


# ------------------------------------------------------------------ commands
def test_info_names_the_games_bots_and_limits(svc: Service) -> None:
    r = ok(svc.handle({"id": "a", "cmd": "info"}))
    assert r["id"] == "a" and r["version"] == 1
    assert [g["name"] for g in r["games"]] == list(registry.names())
    players = {g["name"]: g["players"] for g in r["games"]}
    assert players["ryderz"] == [2, 3, 4] and 2 in players["lunatix"]
    assert {b["kind"] for b in r["bots"]} == {"random", "heuristic", "trained", "mcts"}
    mcts = next(b for b in r["bots"] if b["kind"] == "mcts")
    assert "sims" in mcts["settings"] and mcts["settings"]["rollout"] == ["random", "heuristic"]
    assert r["limits"]["max_move_ms"] == Limits().max_move_ms


@pytest.mark.parametrize("game", GAMES)
def test_new_game_is_at_a_decision_and_seeded(svc: Service, game: str) -> None:
    a = ok(svc.handle({"cmd": "new_game", "game": game, "players": 3, "seed": 5}))
    b = ok(svc.handle({"cmd": "new_game", "game": game, "players": 3, "seed": 5}))
    assert a["position"] == b["position"] and a["deciding"] and not a["terminal"]
    g = registry.get(game).game_from_config_dict(a["position"]["config"])
    assert g.num_players == 3
    s = g.state_from_dict(a["position"]["state"])
    assert not s.is_chance_node() and s.current_players() == tuple(a["deciding"])


@pytest.mark.parametrize("game", GAMES)
def test_apply_is_the_engine_with_the_requests_seed(svc: Service, game: str) -> None:
    pos = new(svc, game)
    legal = ok(svc.handle({"cmd": "legal", "position": pos, "seat": pos_deciding(svc, pos)[0]}))
    assert legal["deciding"] and legal["actions"]
    acts = {}
    g = registry.get(game).game_from_config_dict(pos["config"])
    s = g.state_from_dict(pos["state"])
    for seat in s.current_players():
        first = ok(svc.handle({"cmd": "legal", "position": pos, "seat": seat}))["actions"][-1]
        acts[str(seat)] = first["action"]
        assert g.action_to_json(g.action_from_json(first["action"])) == first["action"]
    r = ok(svc.handle({"cmd": "apply", "position": pos, "actions": acts, "seed": 9}))
    s.apply_actions({int(k): g.action_from_json(v) for k, v in acts.items()})
    rng = np.random.default_rng(9)
    drawn = 0
    while s.is_chance_node() and not s.is_terminal():
        play_chance(s, rng)
        drawn += 1
    assert r["position"]["state"] == s.to_dict()
    assert [st["kind"] for st in r["steps"]] == ["actions"] + ["chance"] * drawn
    again = ok(svc.handle({"cmd": "apply", "position": pos, "actions": acts, "seed": 9}))
    assert again["position"] == r["position"]


def pos_deciding(svc: Service, pos: dict[str, Any]) -> list[int]:
    return ok(svc.handle({"cmd": "validate", "position": pos}))["deciding"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bot", ["random", "heuristic", "trained", "mcts:sims=10"])
def test_every_bot_moves_legally_and_reproducibly(svc: Service, game: str, bot: str) -> None:
    pos = new(svc, game, seed=2)
    actions = {}
    for seat in pos_deciding(svc, pos):
        req = {"cmd": "move", "position": pos, "seat": seat, "bot": bot, "seed": 4}
        a, b = ok(svc.handle(req)), ok(svc.handle(copy.deepcopy(req)))
        assert a["action"] == b["action"] and a["text"] == b["text"]
        legal = ok(svc.handle({"cmd": "legal", "position": pos, "seat": seat}))["actions"]
        if not isinstance(a["action"], list):  # a Lazer Ryderz launch's position is continuous
            assert a["action"] in [x["action"] for x in legal]
        actions[str(seat)] = a["action"]
    ok(svc.handle({"cmd": "apply", "position": pos, "actions": actions, "seed": 0}))


def test_a_trained_policy_missing_for_the_player_count_is_refused(svc: Service) -> None:
    pos = new(svc, "lunatix", players=3)  # the shipped Lunatix policies are 2- and 4-player
    seat = pos_deciding(svc, pos)[0]
    req = {"cmd": "move", "position": pos, "seat": seat, "bot": "trained", "seed": 0}
    e = err(svc.handle(req), "unsupported_bot", "bot")
    assert "3 players" in e["message"]


def test_heuristic_options_are_not_served(svc: Service) -> None:
    pos = new(svc, "lunatix", seed=3)
    seat = pos_deciding(svc, pos)[0]
    req = {"cmd": "move", "position": pos, "seat": seat, "seed": 0}
    e = err(svc.handle({**req, "bot": "heuristic:hit_cost=3"}), "unsupported_bot", "bot")
    assert "not served" in e["message"]
    assert ok(svc.handle({**req, "bot": "heuristic"}))["bot"] == "heuristic"


def test_mcts_is_bounded_by_its_budget(svc: Service) -> None:
    pos = new(svc, "lunatix", seed=3)
    seat = pos_deciding(svc, pos)[0]
    req = {"cmd": "move", "position": pos, "seat": seat, "seed": 0}
    r = ok(svc.handle({**req, "bot": "mcts:sims=20000", "budget_ms": 150}))
    assert r["bot"].startswith("mcts:") and "ms=150" in r["bot"]
    err(svc.handle({**req, "bot": "mcts", "budget_ms": 10**9}), "unsupported_bot", "budget_ms")
    err(svc.handle({**req, "bot": "mcts", "budget_ms": True}), "unsupported_bot", "budget_ms")
    err(svc.handle({**req, "bot": "mcts:sims=999999999"}), "unsupported_bot", "bot")
    err(svc.handle({**req, "bot": "mcts:depth=100000"}), "unsupported_bot", "bot")
    err(svc.handle({**req, "bot": "heuristic", "budget_ms": 100}), "unsupported_bot", "budget_ms")


@pytest.mark.parametrize("game", GAMES)
def test_render_is_a_png_of_public_information(svc: Service, game: str) -> None:
    pos = new(svc, game, seed=6, players=3)
    r = ok(svc.handle({"cmd": "render", "position": pos}))
    png = base64.b64decode(r["png_base64"])
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and r["width"] > 100 and r["height"] > 100
    # every seat sees the same picture: redrawing what seat 0 cannot see changes no pixel
    g = registry.get(game).game_from_config_dict(pos["config"])
    s = g.state_from_dict(pos["state"])
    other = s.resample_hidden(0, np.random.default_rng(1))
    hidden = {**pos, "state": other.to_dict()}
    again = ok(svc.handle({"cmd": "render", "position": hidden, "seat": 1}))
    assert again["png_base64"] == r["png_base64"]


def test_validate_reports_the_first_problem(svc: Service) -> None:
    pos = new(svc, "lunatix")
    assert ok(svc.handle({"cmd": "validate", "position": pos}))["valid"] is True
    bad = copy.deepcopy(pos)
    bad["state"]["cars"][0]["speed"] = 35
    r = ok(svc.handle({"cmd": "validate", "position": bad}))
    assert r["valid"] is False and r["problem"]["code"] == "invalid_position"
    assert "cars[0].speed" in r["problem"]["message"]


# ------------------------------------------------------------------ refusals
def test_bad_requests_are_typed_errors(svc: Service) -> None:
    pos = new(svc, "lunatix")
    seat = pos_deciding(svc, pos)[0]
    err(svc.handle_line("not json"), "bad_request")
    err(svc.handle_line('{"cmd": "info", "x": NaN}'), "bad_request")
    err(svc.handle_line("[1, 2]"), "bad_request")
    err(svc.handle({"cmd": "dance"}), "unknown_command", "cmd")
    err(svc.handle({"cmd": 7}), "bad_request", "cmd")
    err(svc.handle({"cmd": "info", "id": [1]}), "bad_request", "id")
    err(svc.handle({"cmd": "info", "verbose": True}), "bad_request", "verbose")
    err(svc.handle({"cmd": "new_game", "game": "chess", "seed": 0}), "unknown_game", "game")
    err(svc.handle({"cmd": "new_game", "game": "lunatix", "seed": -1}), "bad_request", "seed")
    err(svc.handle({"cmd": "new_game", "game": "lunatix", "seed": "1"}), "bad_request", "seed")
    err(
        svc.handle({"cmd": "new_game", "game": "lunatix", "players": 9, "seed": 0}),
        "bad_config",
        "options",
    )
    for s in ("0", True, 1.0, -1, 2):
        err(svc.handle({"cmd": "legal", "position": pos, "seat": s}), "bad_seat", "seat")
    err(svc.handle({"cmd": "legal", "position": pos}), "bad_request", "seat")
    err(
        svc.handle({"cmd": "move", "position": pos, "seat": seat, "bot": "policy:/etc", "seed": 0}),
        "unsupported_bot",
        "bot",
    )
    err(
        svc.handle({"cmd": "move", "position": pos, "seat": seat, "bot": "alphazero", "seed": 0}),
        "unsupported_bot",
    )
    apply = {"cmd": "apply", "position": pos, "seed": 0}
    err(svc.handle({**apply, "actions": {"00": 1}}), "bad_seat")
    err(svc.handle({**apply, "actions": {}}), "bad_request", "actions")
    err(svc.handle({**apply, "actions": {str(seat): 10**9}}), "illegal_action")
    err(svc.handle({**apply, "actions": {str(seat): "x"}}), "illegal_action")


def test_positions_name_no_file_and_are_validated(svc: Service) -> None:
    pos = new(svc, "lunatix")
    leak = copy.deepcopy(pos)
    leak["config"]["decks"] = "/etc/passwd"
    e = err(svc.handle({"cmd": "legal", "position": leak, "seat": 0}), "bad_config")
    assert "root:" not in e["message"]
    r = ok(svc.handle({"cmd": "validate", "position": leak}))
    assert r["valid"] is False and r["problem"]["code"] == "bad_config"
    deep: Any = 0
    for _ in range(100):
        deep = [deep]
    e = err(svc.handle({"cmd": "validate", "position": {**pos, "state": deep}}), "too_large")
    assert "deep" in e["message"] or "depth" in e["message"]
    extra = {**pos, "extra": 1}
    err(svc.handle({"cmd": "validate", "position": extra}), "bad_request", "position")
    err(svc.handle_line("x" * (Limits().max_request_bytes + 1)), "too_large")


def test_the_server_runs_without_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from agents.serve import Service\n"
        "svc = Service()\n"
        "for game in ('lunatix', 'ryderz'):\n"
        "    r = svc.handle({'cmd': 'new_game', 'game': game, 'players': 2, 'seed': 0})\n"
        "    pos = r['position']; seat = r['deciding'][0]\n"
        "    for bot in ('trained', 'heuristic', 'mcts:sims=5'):\n"
        "        m = svc.handle({'cmd': 'move', 'position': pos, 'seat': seat, 'bot': bot,"
        " 'seed': 0})\n"
        "        assert m['ok'], m\n"
        "    assert svc.handle({'cmd': 'render', 'position': pos})['ok']\n"
        "print('served without torch')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "served without torch" in out.stdout


def test_the_serve_extra_installs_no_torch() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert not any(req.lower().startswith("torch") for req in extras["serve"])
    assert any(req.startswith("fastapi") for req in extras["serve"])


# ------------------------------------------------------------------ JSON lines
def test_json_lines_in_a_subprocess() -> None:
    limit = Limits().max_request_bytes
    lines = [
        json.dumps({"id": 1, "cmd": "new_game", "game": "ryderz", "players": 2, "seed": 3}),
        "",
        "x" * (limit + 10),
        "{bad",
        json.dumps({"id": 2, "cmd": "info"}),
    ]
    out = subprocess.run(
        [sys.executable, "-m", "agents.serve"],
        input="\n".join(lines) + "\n",
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    replies = [json.loads(x) for x in out.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, None, None, 2]
    assert replies[0]["ok"] and replies[3]["ok"]
    assert [r["error"]["code"] for r in replies[1:3]] == ["too_large", "bad_request"]


# ------------------------------------------------------------------ HTTP
@pytest.fixture(scope="module")
def http() -> Iterator[tuple[str, Service]]:
    """A real uvicorn server with a tiny pool (one worker, one waiting) so that a third
    request at once is refused."""
    service = Service()
    app = create_app(service, workers=1, queue=1, cors=["http://example.test"])
    with serving(app) as base:
        yield base, service


def test_http_commands_and_statuses(http: tuple[str, Service]) -> None:
    base, _ = http
    with httpx.Client(base_url=base, timeout=60) as c:
        assert c.get("/v1/info").json()["protocol"] == "tabletop-bot-server"
        r = c.post("/v1/new_game", json={"id": 7, "game": "lunatix", "players": 2, "seed": 1})
        assert r.status_code == 200 and r.json()["id"] == 7
        pos = r.json()["position"]
        seat = r.json()["deciding"][0]
        m = c.post("/v1/move", json={"position": pos, "seat": seat, "bot": "heuristic", "seed": 0})
        assert m.status_code == 200 and m.json()["ok"]
        statuses = {
            "bad json": c.post("/v1/legal", content=b"{").status_code,
            "bad seat": c.post("/v1/legal", json={"position": pos, "seat": "0"}).status_code,
            "unknown route": c.post("/v1/dance", json={}).status_code,
            "get a command": c.get("/v1/move").status_code,
            "too large": c.post(
                "/v1/info", content=b" " * (Limits().max_request_bytes + 1)
            ).status_code,
            "invalid position": c.post(
                "/v1/validate", json={"position": {**pos, "state": {}}}
            ).status_code,
        }
        assert statuses == {
            "bad json": 400,
            "bad seat": 422,
            "unknown route": 404,
            "get a command": 404,
            "too large": 413,
            "invalid position": 200,  # validate answers valid: false
        }
        assert (
            c.post("/v1/legal", json={"position": {**pos, "state": {}}, "seat": 0}).json()["error"][
                "code"
            ]
            == "invalid_position"
        )
        schema = c.get("/openapi.json").json()
        assert {f"/v1/{cmd}" for cmd in Service.COMMANDS} <= set(schema["paths"])
        pre = c.options(
            "/v1/info",
            headers={"Origin": "http://example.test", "Access-Control-Request-Method": "POST"},
        )
        assert pre.headers.get("access-control-allow-origin") == "http://example.test"


def test_http_answers_429_when_the_pool_is_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """One move computing (held in the worker until the third request is answered), one
    waiting: a third request at once is refused. The hold, and waiting until the server has
    admitted both, make the test independent of how fast a loaded machine starts threads."""
    service = Service()
    app = create_app(service, workers=1, queue=1)
    with serving(app) as base:
        _pool_full_is_refused(base, service, app.state.admission, monkeypatch)


def _pool_full_is_refused(
    base: str, service: Service, admission: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    with httpx.Client(base_url=base, timeout=60) as c:
        pos = c.post("/v1/new_game", json={"game": "lunatix", "players": 2, "seed": 1}).json()
    seat = pos["deciding"][0]
    slow = {"position": pos["position"], "seat": seat, "bot": "mcts", "budget_ms": 50, "seed": 0}
    computing, release = threading.Event(), threading.Event()
    handle = service.handle

    def held(req: Any, cmd: str) -> Any:
        if cmd == "move":
            computing.set()
            release.wait(timeout=60)
        return handle(req, cmd)

    monkeypatch.setattr(service, "handle", held)
    results: list[int] = []

    def call() -> None:
        with httpx.Client(base_url=base, timeout=60) as c:
            results.append(c.post("/v1/move", json=slow).status_code)

    threads = [threading.Thread(target=call) for _ in range(2)]  # one computing, one waiting
    for t in threads:
        t.start()
    assert computing.wait(timeout=60)
    deadline = time.monotonic() + 60
    while admission.count < 2 and time.monotonic() < deadline:  # the second, waiting
        time.sleep(0.01)
    assert admission.count == 2
    with httpx.Client(base_url=base, timeout=60) as c:
        third = c.post("/v1/info", json={})
    release.set()
    for t in threads:
        t.join()
    assert third.status_code == 429 and third.json()["error"]["code"] == "busy"
    assert third.headers["retry-after"] == "1"
    assert sorted(results) == [200, 200]
    with httpx.Client(base_url=base, timeout=60) as c:  # and it serves again afterwards
        assert c.post("/v1/info", json={}).status_code == 200


def test_quick_commands_are_told_from_searches_and_drawings() -> None:
    quick = {
        "info": {},
        "legal": {"seat": 0},
        "apply": {},
        "validate": {},
        "move random": {"bot": "random"},
        "move heuristic": {"bot": "heuristic"},
        "move trained": {"bot": "trained"},
    }
    slow = {
        "new_game": {},
        "render": {},
        "move mcts": {"bot": "mcts"},
        "move mcts with settings": {"bot": "mcts:sims=10"},
    }
    assert all(Service.quick(body, name.split()[0]) for name, body in quick.items())
    assert not any(Service.quick(body, name.split()[0]) for name, body in slow.items())
    assert not Service.quick({"bot": " mcts:ms=2000"}, "move")  # a spec as the parser reads it
    assert Service.quick({"bot": "no such bot"}, "move")  # refused at once
    assert Service.quick({"cmd": "move", "bot": "random"})  # the command from the body
    assert not Service.quick({"cmd": "render"})


def test_http_answers_quick_commands_while_a_search_computes() -> None:
    """An MCTS move computes on a worker thread: the event loop keeps answering."""
    app = create_app(Service(), workers=1, queue=4)
    with serving(app) as base, httpx.Client(base_url=base, timeout=60) as c:
        pos = c.post("/v1/new_game", json={"game": "lunatix", "players": 2, "seed": 1}).json()
        slow = {
            "position": pos["position"],
            "seat": pos["deciding"][0],
            "bot": "mcts",
            "budget_ms": 1500,
            "seed": 0,
        }
        done: list[float] = []

        def search() -> None:
            with httpx.Client(base_url=base, timeout=60) as c2:
                assert c2.post("/v1/move", json=slow).status_code == 200
                done.append(time.perf_counter())

        t = threading.Thread(target=search)
        t.start()
        time.sleep(0.3)
        legal = c.post("/v1/legal", json={"position": pos["position"], "seat": 0})
        answered = time.perf_counter()
        t.join()
        assert legal.status_code == 200
        assert answered < done[0]  # answered while the search was still computing


def test_render_draws_each_position_with_its_own_game_when_caches_evict() -> None:
    # adapters were cached by the game object's id: an evicted game's id can be reused by
    # another game, which would then be drawn with the wrong rules
    small = Service(Limits(game_cache=1))
    positions = [new(small, game, seed=3, players=n) for game, n in
                 (("lunatix", 2), ("ryderz", 2), ("lunatix", 4), ("ryderz", 3))]  # fmt: skip
    for _ in range(2):
        for pos in positions:
            fresh = ok(Service().handle({"cmd": "render", "position": pos}))
            got = ok(small.handle({"cmd": "render", "position": pos}))
            assert got["png_base64"] == fresh["png_base64"]
