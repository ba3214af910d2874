"""The arena: seats rotated, results independent of the process count and of resuming,
scoring, ratings, files and the CLI; bot specs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents import arena as ar
from agents.bot import RandomBot
from agents.specs import BotSpecError, make_bot, parse
from agents.stats import wilson
from tabletop.errors import ConfigError


def strip_times(results: list[ar.GameResult]) -> list[dict]:
    """The results without their think times (wall clock)."""
    return [{k: v for k, v in vars(r).items() if k != "think_seconds"} for r in results]


@pytest.fixture(scope="module")
def lunatix_cfg() -> ar.ArenaConfig:
    return ar.ArenaConfig(game="lunatix", bots=("random", "random", "random"), games=7, seed=5)


def test_games_round_up_to_every_seat_order_and_every_slot_sits_everywhere(
    lunatix_cfg: ar.ArenaConfig,
) -> None:
    results = ar.run(lunatix_cfg)
    assert lunatix_cfg.total_games == 9 and len(results) == 9
    for slot in range(3):
        seats = sorted(r.seat_of_slot[slot] for r in results)
        assert seats == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    # paired seeds: the three seat orders of seed number k share the game seed, and so the
    # same first chance draws (the start dots, dealt before any decision)
    assert [r.index for r in results] == list(range(9))


@pytest.mark.parametrize("game", ["lunatix", "ryderz"])
def test_same_results_with_one_and_two_processes(game: str) -> None:
    cfg = ar.ArenaConfig(
        game=game,
        bots=("random", "random"),
        games=4,
        seed=2,
        rules={"round_limit": 8} if game == "ryderz" else {},
    )
    one = ar.run(cfg, processes=1)
    two = ar.run(cfg, processes=2)
    assert strip_times(one) == strip_times(two)
    assert ar.summarize(cfg, one)["bots"][0]["wins"] == ar.summarize(cfg, two)["bots"][0]["wins"]


def test_resume_continues_an_interrupted_run_to_the_same_table(tmp_path: Path) -> None:
    cfg = ar.ArenaConfig(game="lunatix", bots=("random", "random"), games=6, seed=1)
    full = ar.arena(cfg, out=tmp_path / "full")
    part = tmp_path / "part"
    first = ar.run(cfg)[:3]  # as if interrupted after three games
    ar.save(part, cfg, first, final=False)
    assert not (part / ar.RESULTS_MD).exists()
    resumed = ar.arena(cfg, out=part, resume=True)
    assert resumed["games"] == 6
    full_json = json.loads((tmp_path / "full" / ar.RESULTS_JSON).read_text())
    part_json = json.loads((part / ar.RESULTS_JSON).read_text())
    strip = [{k: v for k, v in r.items() if k != "think_seconds"} for r in full_json["results"]]
    assert strip == [
        {k: v for k, v in r.items() if k != "think_seconds"} for r in part_json["results"]
    ]
    drop = ("ms_per_decision", "think_seconds")
    assert [{k: v for k, v in b.items() if k not in drop} for b in full["bots"]] == [
        {k: v for k, v in b.items() if k not in drop} for b in resumed["bots"]
    ]


def test_resume_refuses_another_runs_file(tmp_path: Path) -> None:
    cfg = ar.ArenaConfig(game="lunatix", bots=("random", "random"), games=2, seed=1)
    ar.arena(cfg, out=tmp_path)
    other = ar.ArenaConfig(game="lunatix", bots=("random", "random"), games=2, seed=2)
    with pytest.raises(ConfigError, match="another run"):
        ar.arena(other, out=tmp_path, resume=True)
    (tmp_path / ar.RESULTS_JSON).write_text("{not json")
    with pytest.raises(ConfigError, match="cannot resume"):
        ar.arena(cfg, out=tmp_path, resume=True)


def test_resume_rejects_a_malformed_result(tmp_path: Path) -> None:
    cfg = ar.ArenaConfig(game="lunatix", bots=("random", "random"), games=2, seed=1)
    ar.arena(cfg, out=tmp_path)
    data = json.loads((tmp_path / ar.RESULTS_JSON).read_text())
    data["results"][0]["index"] = 99
    (tmp_path / ar.RESULTS_JSON).write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="out of range"):
        ar.arena(cfg, out=tmp_path, resume=True)
    data["results"][0] = {"index": 0}
    (tmp_path / ar.RESULTS_JSON).write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="malformed"):
        ar.arena(cfg, out=tmp_path, resume=True)


def result(index: int, winner: int | None, reason: str = "win") -> ar.GameResult:
    n = 2
    returns = [0.0, 0.0] if winner is None else [1.0 if s == winner else -1.0 for s in range(n)]
    return ar.GameResult(
        index=index,
        seat_of_slot=[index % 2, 1 - index % 2],
        reason=reason,
        winner_slot=winner,
        returns=returns,
        decisions=[10, 10],
        think_seconds=[0.01, 0.02],
        rounds=3,
    )


def test_scoring_counts_a_game_nobody_wins_as_a_draw() -> None:
    cfg = ar.ArenaConfig(game="ryderz", bots=("heuristic", "random"), games=4)
    rs = [result(0, 0), result(1, 0), result(2, None, "truncated"), result(3, 1)]
    s = ar.summarize(cfg, rs)
    h, r = s["bots"]
    assert (h["wins"], h["draws"], h["losses"]) == (2, 1, 1)
    assert h["score"] == pytest.approx(2.5 / 4) and r["score"] == pytest.approx(1.5 / 4)
    assert h["score_ci"] == list(wilson(2.5, 4))
    assert h["mean_return"] == pytest.approx(1 / 4)
    assert h["ms_per_decision"] == pytest.approx(1000 * 0.04 / 40)
    assert s["outcomes"] == {"win": 3, "truncated": 1}
    assert h["mu"] > r["mu"]  # rated above the bot it beat more often
    md = ar.to_markdown(s)
    assert "`heuristic`" in md and "truncated: 1" in md and "draw" in md


def test_ratings_are_tied_when_every_game_is_a_draw() -> None:
    cfg = ar.ArenaConfig(game="lunatix", bots=("heuristic", "random"), games=2)
    s = ar.summarize(cfg, [result(0, None, "all_out"), result(1, None, "all_out")])
    assert s["bots"][0]["mu"] == pytest.approx(s["bots"][1]["mu"])


def test_wilson_interval() -> None:
    lo, hi = wilson(95, 100)
    assert lo == pytest.approx(0.888, abs=1e-3) and hi == pytest.approx(0.978, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)


def test_cli_prints_and_writes_the_table(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    rc = ar.main(
        [
            "--game",
            "lunatix",
            "--players",
            "3",
            "--bots",
            "random",
            "--games",
            "3",
            "--out",
            str(tmp_path),
            "--no-progress",
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert "| `random` | 3 | 3 |" in out
    assert (tmp_path / ar.RESULTS_MD).read_text() in out
    data = json.loads((tmp_path / ar.RESULTS_JSON).read_text())
    assert data["config"]["bots"] == ["random"] * 3 and len(data["results"]) == 3


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "lunatix", "--bots", "random"], "at least two seats"),
        (["--game", "lunatix", "--bots", "random,nobody"], "unknown bot 'nobody'"),
        (["--game", "lunatix", "--bots", "random,random", "--games", "0"], "at least 1"),
        (["--game", "lunatix", "--players", "1", "--bots", "random,random"], "--players 1"),
        (["--game", "lunatix", "--bots", "random,random", "--resume"], "--resume needs --out"),
        (["--game", "lunatix", "--bots", "random,random", "--rules", "x"], "key=value"),
    ],
)
def test_cli_rejects_bad_input(
    argv: list[str], message: str, capsys: pytest.CaptureFixture
) -> None:
    assert ar.main([*argv, "--no-progress"]) == 2
    assert message in capsys.readouterr().err


def test_config_from_json_validates() -> None:
    good = {"game": "lunatix", "bots": ["random", "random"], "games": 2, "seed": 0, "rules": {}}
    assert ar.config_from_json(good).bots == ("random", "random")
    for bad in (
        {**good, "extra": 1},
        {**good, "games": "2"},
        {**good, "bots": "random"},
        {**good, "seed": True},
        {**good, "game": "chess"},
        [1],
    ):
        with pytest.raises(ValueError):
            ar.config_from_json(bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- specs
def test_spec_parsing_round_trips_canonically() -> None:
    assert str(parse("random")) == "random"
    assert str(parse(" mcts:sims=400,depth=6 ")) == "mcts:sims=400,depth=6"
    assert parse("policy:runs/x").path == "runs/x"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "non-empty"),
        ("alphazero", "unknown bot"),
        ("random:x=1", "takes no options"),
        ("mcts:sims", "key=value"),
        ("mcts:speed=3", "keys"),
        ("mcts:sims=abc", "not a number"),
        ("mcts:sims=0", "positive"),
        ("mcts:sims=1,sims=2", "twice"),
        ("mcts:rollout=smart", "one of"),
        ("policy:", "needs a path"),
    ],
)
def test_bad_specs_are_refused_naming_what_is_allowed(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message):
        parse(spec)


def test_make_bot_builds_named_bots() -> None:
    bot = make_bot("random", "ryderz", seed=1)
    assert isinstance(bot, RandomBot) and bot.name == "random"
    mcts = make_bot("mcts:sims=20,depth=0,eval=zero", "lunatix", seed=1)
    assert mcts.name == "mcts:sims=20,depth=0,eval=zero"
    assert mcts.sims == 20 and mcts.rollout_depth == 0


def test_split_specs_keeps_mcts_options_together() -> None:
    from agents.specs import split_specs

    assert split_specs("heuristic,mcts:sims=400,depth=4,random") == [
        "heuristic",
        "mcts:sims=400,depth=4",
        "random",
    ]
    assert split_specs("policy:runs/a=b,random") == ["policy:runs/a=b", "random"]
    assert split_specs(" random , ,heuristic") == ["random", "heuristic"]
