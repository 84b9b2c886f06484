# Each target sets itself up: a virtual environment in .venv, created on first use and refreshed when
# pyproject.toml or constraints.txt changes. Every install is pinned by constraints.txt, so a new
# release of a dependency cannot break a fresh clone; `make constraints` refreshes the pins.
# Run `make help` for the list.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q -c constraints.txt
PROFILE ?= default
PROBE ?=
# CI runs `make check CHECK_FLAGS="--no-cache --require-history"`: the gate without the check cache, on full history
CHECK_FLAGS ?=
ADDR ?= 127.0.0.1:8000
FAST := not site and not browser and not probes and not slow

.PHONY: help setup serve site test test-fast lint ruff check measure bench constraints clean

help:
	@echo "make setup       the virtual environment in .venv with the site stack (every target makes it itself)"
	@echo "make serve       live site at http://$(ADDR) (rebuilds on changes to docs, claims, runs, probes)"
	@echo "make site        static site in site/ with the gate on (mkdocs build --strict)"
	@echo "make test        the whole test suite (installs what it needs, chromium included)"
	@echo "make test-fast   the tests without site builds, the browser, the probes or installs (seconds)"
	@echo "make lint        ruff format --check, ruff check, mypy"
	@echo "make check       the gate alone: ledger check"
	@echo "make measure     run the MLX probes [PROBE=name] [PROFILE=quick|default|gpu]"
	@echo "make bench       benchmarks: the gate vs parse-only; the plugin build vs a plain MkDocs build"
	@echo "make constraints refresh constraints.txt from the newest releases (then run make test)"

$(VENV)/.site: pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PIP) -e ".[site]"
	touch $@

$(VENV)/.test: $(VENV)/.site
	$(PIP) -e ".[site,test,probes,lint]"
	touch $@

$(VENV)/.probes: $(VENV)/.site
	$(PIP) -e ".[probes]"
	touch $@

setup: $(VENV)/.site

serve: $(VENV)/.site
	$(VENV)/bin/mkdocs serve --dev-addr $(ADDR)

site: $(VENV)/.site
	$(VENV)/bin/mkdocs build --strict

check: $(VENV)/.site
	$(VENV)/bin/ledger check $(CHECK_FLAGS)

test: $(VENV)/.test
	@scripts/ensure-chromium
	$(PY) -m pytest -q

test-fast: $(VENV)/.test
	$(PY) -m pytest -q -n 2 -m "$(FAST)"

lint: ruff
	$(VENV)/bin/mypy

ruff: $(VENV)/.test
	$(VENV)/bin/ruff format --check generator tests figures benchmarks scripts .github
	$(VENV)/bin/ruff check generator tests figures benchmarks scripts .github

measure: $(VENV)/.probes
	$(VENV)/bin/ledger measure $(PROBE) --profile $(PROFILE)

bench: $(VENV)/.site
	$(PY) benchmarks/check_time.py
	$(PY) benchmarks/build_time.py

# The newest releases that satisfy pyproject.toml, installed into a scratch environment and frozen.
constraints:
	rm -rf .constraints-venv
	$(PYTHON) -m venv .constraints-venv
	.constraints-venv/bin/python -m pip install -q --upgrade pip
	.constraints-venv/bin/python -m pip install -q ".[site,test,probes,lint]"
	.constraints-venv/bin/python -m pip freeze --exclude evidence-ledger > constraints.txt
	rm -rf .constraints-venv
	@echo "constraints.txt refreshed: review the diff, then run make test"

clean:
	rm -rf site .pytest_cache .constraints-venv
