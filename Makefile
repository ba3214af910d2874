# make train - create .venv if needed, install the train extra, train the MaskablePPO
#              self-play league on LunatixLoop-v0, four players (configs/train/lunatix_maskppo.yaml,
#              docs/training.md) and write runs/lunatix_maskppo/report.md; PLAYERS=2 trains the
#              2-player agent (runs/lunatix_maskppo_2p); GAME=ryderz trains on LazerRyderz-v0
#              (configs/train/ryderz_maskppo.yaml, two players); SEEDS=0,1,2 trains each seed
#              (runs/<name>/seed<k>/) and reports their mean (resumes); TRAIN_CONFIG=path.yaml
#              picks any config (configs/train/<game>_vs_random.yaml: against random players)
# make test  - create .venv if needed, install the project with its dev, train, serve and
#              integrations extras, run ruff (check, format --check), mypy (--strict on the rules
#              packages and tabletop: [tool.mypy] in pyproject.toml) + pytest (the RLlib tests
#              excepted: make test-rllib)
# make test-rllib - create .venv-rllib (Ray pins its own gymnasium) with the dev and
#              distributed extras, run the RLlib tests (tests/integrations/, marker rllib)
# make arena - the ratings tables of docs/bots.md (random, heuristic, MCTS at two budgets and
#              the shipped `trained` bots and the agents of `make train` where
#              runs/<game>_maskppo/ exists); resumes
#              (ARENA_GAMES=20 games per lineup, ARENA_PROCESSES=2)
# make bench-ryderz-coldstart - Lazer Ryderz's first env step with an empty numba cache
#              against a warm one (fresh processes, interleaved)
# make bench-validation - the cost of state_from_dict (every state of 200 random games, and
#              the largest inputs the limits admit) in random-play decisions, both games
# make bench-server - the bot server under load: transport overhead at 50 clients, MCTS budgets,
#              200 clients flooding, 10,000 hostile requests (bench/bench_server.py)
# make bench-compare AGAINST=DIR - engines and envs of this checkout against another, interleaved
# make bench-rllib - training throughput of RLlib's PPO beside sb3-contrib's MaskablePPO, one run
# make play  - play one seeded Lunatix Loop game between random players, printed round by round
#              (SEED=7 another seed; GAME=ryderz a Lazer Ryderz game)
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
TRAIN_STAMP := $(VENV)/.installed-train
BENCH_STAMP := $(VENV)/.installed-bench
RLLIB_VENV := .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed
SEED ?= 0
GAME ?= lunatix
comma := ,
TRAIN_CONFIG ?= configs/train/$(GAME)_maskppo.yaml

ARENA_GAMES ?= 20
ARENA_PROCESSES ?= 2
ARENA_OUT ?= runs/ratings
# the two MCTS budgets of the tables (docs/bots.md)
MCTS_RYDERZ ?= mcts:sims=30,depth=0,prior=heuristic,norm=1,mcts:sims=100,depth=0,prior=heuristic,norm=1
MCTS_LUNATIX ?= mcts:sims=100,depth=8,rollout=heuristic,prior=heuristic,norm=1,minor=0,memo=1,crn=1,eval=fitted,mcts:sims=400,depth=8,rollout=heuristic,prior=heuristic,norm=1,minor=0,memo=1,crn=1,eval=fitted
ARENA = $(BIN)/python -m agents.ratings --games $(ARENA_GAMES) --processes $(ARENA_PROCESSES) --resume

.PHONY: train test test-rllib play lint arena bench bench-env bench-ryderz bench-ryderz-env bench-mcts bench-rllib bench-ryderz-coldstart bench-validation bench-server bench-compare clean

train: $(TRAIN_STAMP)
	$(BIN)/python -m train.train --config $(TRAIN_CONFIG) $(if $(PLAYERS),--players $(PLAYERS)) \
		$(if $(SEEDS),--seeds $(SEEDS))

$(TRAIN_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[train]'
	touch $(TRAIN_STAMP)

# the tests need every extra (the train tests torch and sb3-contrib): none is skipped in CI
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,train,serve,integrations]'
	touch $(STAMP) $(TRAIN_STAMP)

# the bench extra (OpenSpiel, wheels only) is optional: where it does not install, the engine
# benchmarks skip its rows, and the next run tries again
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q --only-binary open_spiel -e '.[dev,bench]' \
		&& touch $(BENCH_STAMP) \
		|| echo "open_spiel did not install: the benchmarks skip its rows"

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadfile -m "not rllib"

$(RLLIB_STAMP): pyproject.toml
	test -x $(RLLIB_VENV)/bin/python || $(PY) -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/python -m pip install -q --upgrade pip
	$(RLLIB_VENV)/bin/python -m pip install -q -e '.[dev,distributed]'
	touch $(RLLIB_STAMP)

test-rllib: $(RLLIB_STAMP)
	$(RLLIB_VENV)/bin/python -m pytest -m rllib tests/integrations/test_rllib*.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

arena: $(STAMP)
	$(ARENA) --game ryderz --players 2 --out $(ARENA_OUT)/ryderz_2p \
		--bots random,heuristic,$(MCTS_RYDERZ)$(if $(wildcard agents/trained/ryderz_2p/policy.json),$(comma)trained)$(if $(wildcard runs/ryderz_maskppo/policy.json),$(comma)policy:runs/ryderz_maskppo)
	$(ARENA) --game lunatix --players 4 --fill random --out $(ARENA_OUT)/lunatix_4p \
		--bots heuristic,$(MCTS_LUNATIX)$(if $(wildcard agents/trained/lunatix_4p/policy.json),$(comma)trained)$(if $(wildcard runs/lunatix_maskppo/policy.json),$(comma)policy:runs/lunatix_maskppo)
	$(ARENA) --game lunatix --players 2 --out $(ARENA_OUT)/lunatix_2p \
		--bots random,heuristic,$(MCTS_LUNATIX)$(if $(wildcard agents/trained/lunatix_2p/policy.json),$(comma)trained)

play: $(STAMP)
	$(BIN)/python -m $(GAME)_env.play --seed $(SEED)

bench: $(BENCH_STAMP)
	$(BIN)/python bench/bench_lunatix_engine.py

bench-env: $(STAMP)
	$(BIN)/python bench/bench_lunatix_env.py

bench-ryderz: $(BENCH_STAMP)
	$(BIN)/python bench/bench_ryderz_engine.py

bench-mcts: $(BENCH_STAMP)
	$(BIN)/python bench/bench_mcts.py

bench-validation: $(STAMP)
	$(BIN)/python bench/bench_validation.py

bench-ryderz-coldstart: $(STAMP)
	$(BIN)/python bench/bench_ryderz_coldstart.py

# the bot server under load, loopback only (issue 16's figures; bench/bench_server.py)
bench-server: $(STAMP)
	$(BIN)/python bench/bench_server.py

# this checkout against another (AGAINST=/path/to/old/checkout, e.g. a git worktree)
bench-compare: $(STAMP)
	$(BIN)/python bench/bench_compare.py --against $(AGAINST)

# RLlib's PPO beside sb3-contrib's MaskablePPO (its SB3 side runs in .venv)
bench-rllib: $(RLLIB_STAMP) $(STAMP)
	$(RLLIB_VENV)/bin/python bench/bench_rllib_throughput.py --sb3-python $(BIN)/python

bench-ryderz-env: $(STAMP)
	$(BIN)/python bench/bench_ryderz_env.py

clean:
	rm -rf $(VENV) $(RLLIB_VENV) .pytest_cache .ruff_cache .hypothesis
