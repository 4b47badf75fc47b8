# runlens: the two commands a new machine needs.
#   make sample   install into .venv, build the marts over the bundled sample (data/sample)
#   make test     install into .venv with the dev tools, lint, and run every test
# Point runlens at your own logs with RUNLENS_RAW_DIR=/path/to/logs make sample.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
export DBT_PROFILES_DIR := $(CURDIR)
export DBT_SEND_ANONYMOUS_USAGE_STATS := false

.PHONY: sample build test lint clean

sample: build

build: $(VENV)/.installed-runtime
	$(BIN)/dbt build

test: $(VENV)/.installed-dev lint
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	RUNLENS_DB=$${RUNLENS_LINT_DB:-$$(mktemp -d)/lint.duckdb} $(BIN)/sqlfluff lint models

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-runtime: requirements.txt constraints.txt | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt constraints.txt | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt -c constraints.txt
	touch $@ $(VENV)/.installed-runtime

clean:
	rm -rf target logs runlens.duckdb
