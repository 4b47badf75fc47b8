# runlens: the two commands a new machine needs.
#   make sample   install into .venv, build the marts over the bundled sample (data/sample) and
#                 render the Markdown reports into reports/
#   make test     install into .venv with the dev tools and the frameworks extra, lint, and run every test
# Point runlens at your own logs with RUNLENS_RAW_DIR=/path/to/logs make sample, or profile logs
# that W&B, TensorBoard, MLflow or a text logger wrote with: make profile FROM="/path/to/logs ..."
# Both run the `runlens` command that the venv installs from this checkout (editable: pyproject.toml).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
export DBT_PROFILES_DIR := $(CURDIR)
export DBT_SEND_ANONYMOUS_USAGE_STATS := false

.PHONY: sample build test lint clean profile postgres spark

# runlens itself from this checkout, editable, with no dependencies (they are requirements.txt's
# pins, installed before): it puts the `runlens` command in the venv
INSTALL_RUNLENS = $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .

sample: build
	$(BIN)/runlens report

# runlens build checks the raw folder before dbt starts: a mistake is one line and exit 2
build: $(VENV)/.installed-runtime
	$(BIN)/runlens build

# Import existing W&B / TensorBoard / MLflow / text logs into imported/ (the contract's JSONL), build the
# marts from them into imported.duckdb and render the reports into reports/imported/.
IMPORTED ?= imported
profile: $(VENV)/.installed-importers
	@test -n "$(FROM)" || { echo 'runlens: say what to import: make profile FROM="/path/to/mlruns /path/to/lightning_logs"' >&2; exit 2; }
	$(BIN)/runlens profile $(FROM) --into $(IMPORTED) --db $(IMPORTED).duckdb --reports reports/imported $(if $(FORMAT),--format $(FORMAT))

# The optional engines (docs/engines.md): the same marts on PostgreSQL or Spark.
postgres: $(VENV)/.installed-engines
	$(BIN)/python scripts/engine_build.py postgres

spark: $(VENV)/.installed-engines
	SPARK_LOCAL_IP=$${SPARK_LOCAL_IP:-127.0.0.1} $(BIN)/python scripts/engine_build.py spark

test: $(VENV)/.installed-dev lint
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	RUNLENS_DB=$${RUNLENS_LINT_DB:-$$(mktemp -d)/lint.duckdb} $(BIN)/sqlfluff lint models
	cd runlens/report/queries && $(CURDIR)/$(BIN)/sqlfluff lint .
	cd runlens/refresh/build_summary/queries && $(CURDIR)/$(BIN)/sqlfluff lint .

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-runtime: requirements.txt constraints.txt pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
	$(INSTALL_RUNLENS)
	touch $@

$(VENV)/.installed-importers: requirements.txt requirements-importers.txt constraints.txt pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-importers.txt -c constraints.txt
	$(INSTALL_RUNLENS)
	touch $@ $(VENV)/.installed-runtime

$(VENV)/.installed-engines: requirements.txt requirements-engines.txt constraints.txt pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-engines.txt -c constraints.txt
	$(INSTALL_RUNLENS)
	touch $@ $(VENV)/.installed-runtime

# The frameworks extra (torch, Lightning, transformers, Keras, MLflow): only tests use them, the writer's
# callback tests to train and the MLflow system-metrics tests to run MLflow's own monitor; the
# pipeline, its importers and the writer itself (writer/, standard library only) do not need them.
$(VENV)/.installed-frameworks: requirements-frameworks.txt constraints.txt | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-frameworks.txt -c constraints.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-importers.txt requirements-engines.txt requirements-frameworks.txt requirements-bench.txt requirements-dev.txt requirements-hta.txt constraints.txt pyproject.toml | $(VENV)/bin/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt -c constraints.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-hta.txt
	$(INSTALL_RUNLENS)
	touch $@ $(VENV)/.installed-runtime $(VENV)/.installed-importers $(VENV)/.installed-engines $(VENV)/.installed-frameworks

clean:
	rm -rf target logs runlens.duckdb* reports/*/ reports/index.md imported imported.duckdb* spark-warehouse metastore_db
