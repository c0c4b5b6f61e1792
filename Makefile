# KernelIndex. `make help` lists the targets; `make build` and `make test` set everything up.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
KI := $(BIN)/kernelindex
DATA ?= data
SITE ?= site
PORT ?= 8000
# Where the site will be served (https://example.org/kernelindex): sitemap.xml, absolute feed links
# and a 404 page that works at any depth need it; empty, pages stay relative (make build BASE_URL=...)
BASE_URL ?=
# This repository's URL and the commit whose bundled kernels were measured: with both, our kernels
# link to their source and pin their install there (make build REPOSITORY=https://github.com/o/r COMMIT=<sha>)
REPOSITORY ?=
COMMIT ?=
PYTEST_ARGS ?=
# text, or github for ::error annotations in GitHub Actions (make validate OUTPUT_FORMAT=github)
OUTPUT_FORMAT ?= text

.DEFAULT_GOAL := help
.PHONY: help install install-kernels install-browser validate fmt fmt-check schema test test-site build site-size serve bench clean import-liger import-kernelbench

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The site builder and test tools only: no torch, so a data PR's CI installs in seconds.
$(VENV)/.site-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

# torch (CPU build, pinned), triton and numpy for the kernels and the harness.
$(VENV)/.kernels-installed: pyproject.toml $(VENV)/.site-installed
	$(BIN)/python -m pip install --quiet -e '.[dev,kernels]'
	@touch $@

# Browser tests: Playwright's Python package (its driver only: browsers come from Debian, see
# .ci/run) and axe-core from npm, into the gitignored .cache/ (nothing vendored into the repo).
AXE_VERSION ?= 4.14.1
AXE := .cache/npm/node_modules/axe-core/axe.min.js

$(VENV)/.browser-installed: pyproject.toml $(VENV)/.site-installed
	$(BIN)/python -m pip install --quiet -e '.[dev,browser]'
	@touch $@

$(AXE):
	@if command -v npm >/dev/null 2>&1; then \
	  mkdir -p .cache/npm && npm install --prefix .cache/npm --no-audit --no-fund --no-save --silent axe-core@$(AXE_VERSION) \
	    || echo "WARNING: npm could not install axe-core: the accessibility checks will be skipped" >&2; \
	else echo "WARNING: npm is missing: the accessibility checks (axe-core) will be skipped" >&2; fi

install: $(VENV)/.site-installed ## Create .venv with the site builder and test tools (no torch)

install-kernels: $(VENV)/.kernels-installed ## Add torch (CPU), triton and numpy for kernels and harness

install-browser: $(VENV)/.browser-installed $(AXE) ## Add Playwright (no browser download) and axe-core for the browser tests

validate: install ## Check every file under data/ (errors print as path:line:col)
	$(KI) validate --format $(OUTPUT_FORMAT) $(DATA)

fmt: install ## Rewrite data files into canonical form, keeping comments
	$(KI) fmt $(DATA)

fmt-check: install ## Fail if a data file is not in canonical form
	$(KI) fmt --check --format $(OUTPUT_FORMAT) $(DATA)

schema: install ## Regenerate the JSON Schemas in schemas/json/
	$(KI) schema

test: install-kernels install-browser ## Run every test (kernels on the CPU, browser tests in Debian's Chromium)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-site: install ## Run the tests that need neither torch nor a browser (what a data PR's CI runs)
	$(BIN)/python -m pytest -m "not kernels and not browser" $(PYTEST_ARGS)

# Liger-Kernel's gh-pages history, kept beside the checkout (CI has ../shared too).
LIGER_HISTORY ?= ../shared/data/liger-gh-pages

import-liger: install ## Re-import Liger-Kernel's CSV and its gh-pages history (LIGER_HISTORY=...) into data/
	$(KI) import liger $(DATA)/sources/liger-kernel-bench/all_benchmark_data.csv $(LIGER_HISTORY) --data $(DATA)

import-kernelbench: install ## Re-import KernelBench's timings (data/sources/kernelbench) into data/
	$(KI) import kernelbench --data $(DATA) $(DATA)/sources/kernelbench/timing

build: install ## Build the site from data/ into site/ (redoes only what changed; see README)
	$(KI) build --data $(DATA) --out $(SITE)$(if $(BASE_URL), --base-url '$(BASE_URL)')$(if $(REPOSITORY), --repository '$(REPOSITORY)')$(if $(COMMIT), --commit '$(COMMIT)')

site-size: install ## Check the built site against static hosts' limits (HOSTS="github-pages gitlab-pages")
	$(KI) site-size $(SITE) $(foreach host,$(or $(HOSTS),github-pages),--host $(host))

serve: build ## Build, then preview the site at http://127.0.0.1:$(PORT)/
	$(KI) serve --dir $(SITE) --port $(PORT)

bench: install-kernels ## Time the bundled kernels side by side on a GPU (see benchmarks/RESULTS.md)
	$(BIN)/python benchmarks/kernels_bench.py --out benchmarks/results

clean: ## Remove the built site and caches (keeps .venv)
	rm -rf $(SITE) .pytest_cache .cache
