# Flocklab entry points. Each target creates .venv (Python >= 3.11, pip) when needed.
#   make run        the default study set: simulations, figures, HTML report (results/)
#   make quick      every model's headline figure at a small size (config/quick.yaml, minutes)
#   make test       ruff + the test suite (CI runs it, then .ci/slurm-test)
#   make test-fast  ruff + the fast lane: no slow validations, no pipeline runs (minutes)
#   make test-slow  the long statistical validations too
#   make test-slurm the workflow on a one-node Slurm started on this machine (root, apt-get)
#   make bench      the kernel benchmark (benchmarks/results/)
#   make docs       the documentation site (docs/_build/html), warnings as errors

PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
CORES  ?= 2
STAMP   = $(VENV)/.installed

.PHONY: run quick report test test-fast test-slow test-slurm lint bench docs clean-results

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,slurm,explore]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/snakemake --cores $(CORES)
	$(BIN)/snakemake --report results/report.html

quick: $(STAMP)
	$(BIN)/flocklab run config/quick.yaml --cores $(CORES)

report: $(STAMP)
	$(BIN)/snakemake --report results/report.html

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -m "not slow"

test-fast: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -m "not slow and not pipeline"

test-slurm: $(STAMP)
	bash .ci/slurm-test

test-slow: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/snakemake --lint

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_vicsek.py

DOCS_STAMP = $(VENV)/.installed-docs

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	MPLBACKEND=Agg $(BIN)/python -m sphinx -b html -W --keep-going -j 1 docs docs/_build/html

clean-results:
	rm -rf results .snakemake
