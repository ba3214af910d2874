# make train - create .venv if needed, install the train extra, train MaskablePPO on
#              LunatixLoop-v0 (~10 min on 2 cores) and write runs/<name>/report.md;
#              GAME=ryderz trains on LazerRyderz-v0 (configs/train/ryderz_maskppo.yaml, two
#              players, ~10 min) and adds a GIF of one evaluation game;
#              TRAIN_CONFIG=path.yaml picks any config
# make test  - create .venv if needed, install the project with its dev, train and serve extras,
#              run ruff + pytest
# make play  - play one seeded Lunatix Loop game between random players, printed round by round
#              (SEED=7 another seed; GAME=ryderz a Lazer Ryderz game)
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
TRAIN_STAMP := $(VENV)/.installed-train
BENCH_STAMP := $(VENV)/.installed-bench
SEED ?= 0
GAME ?= lunatix
TRAIN_CONFIG ?= configs/train/$(GAME)_maskppo.yaml

.PHONY: train test play lint bench bench-env bench-ryderz bench-ryderz-env clean

train: $(TRAIN_STAMP)
	$(BIN)/python -m train.train --config $(TRAIN_CONFIG)

$(TRAIN_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[train]'
	touch $(TRAIN_STAMP)

# the tests need every extra (the train tests torch and sb3-contrib): none is skipped in CI
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,train,serve]'
	touch $(STAMP) $(TRAIN_STAMP)

# the bench extra (OpenSpiel, wheels only) is optional: where it does not install, the engine
# benchmarks skip its rows, and the next run tries again
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q --only-binary open_spiel -e '.[dev,bench]' \
		&& touch $(BENCH_STAMP) \
		|| echo "open_spiel did not install: the benchmarks skip its rows"

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n 2 --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check .

play: $(STAMP)
	$(BIN)/python -m $(GAME)_env.play --seed $(SEED)

bench: $(BENCH_STAMP)
	$(BIN)/python bench/bench_lunatix_engine.py

bench-env: $(STAMP)
	$(BIN)/python bench/bench_lunatix_env.py

bench-ryderz: $(BENCH_STAMP)
	$(BIN)/python bench/bench_ryderz_engine.py

bench-ryderz-env: $(STAMP)
	$(BIN)/python bench/bench_ryderz_env.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
