# Each target sets itself up: a virtual environment in .venv, created on first use and refreshed
# when pyproject.toml changes. Run `make help` for the list.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PROFILE ?= default
PROBE ?=
# CI runs `make check CHECK_FLAGS=--no-cache`: the gate without the check cache
CHECK_FLAGS ?=
ADDR ?= 127.0.0.1:8000

.PHONY: help serve site test check measure bench clean

help:
	@echo "make serve     live site at http://$(ADDR) (rebuilds on changes to docs, claims, runs, probes)"
	@echo "make site      static site in site/ with the gate on (mkdocs build --strict)"
	@echo "make test      the test suite (installs what it needs)"
	@echo "make check     the gate alone: ledger check"
	@echo "make measure   run the MLX probes [PROBE=name] [PROFILE=quick|default|gpu]"
	@echo "make bench     benchmarks: the gate vs parse-only; the plugin build vs a plain MkDocs build"

$(VENV)/.site: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.test: $(VENV)/.site
	$(PY) -m pip install -q -e ".[test,probes]"
	touch $@

$(VENV)/.probes: $(VENV)/.site
	$(PY) -m pip install -q -e ".[probes]"
	touch $@

serve: $(VENV)/.site
	$(VENV)/bin/mkdocs serve --dev-addr $(ADDR)

site: $(VENV)/.site
	$(VENV)/bin/mkdocs build --strict

check: $(VENV)/.site
	$(VENV)/bin/ledger check $(CHECK_FLAGS)

test: $(VENV)/.test
	@scripts/ensure-chromium
	$(PY) -m pytest -q

measure: $(VENV)/.probes
	@test -f probes/__main__.py || { echo "make measure: the MLX probes arrive with issue #3"; exit 1; }
	$(PY) -m probes $(if $(PROBE),--probe $(PROBE)) --profile $(PROFILE)

bench: $(VENV)/.site
	$(PY) benchmarks/check_time.py
	$(PY) benchmarks/build_time.py

clean:
	rm -rf site .pytest_cache
