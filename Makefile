# The two commands a newcomer needs (see README):
#   make demo   set up .venv and answer questions on the bundled sample site
#   make test   set up .venv and run every check and test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXTRAS ?= dev
QUESTION ?= What course articles do you have?

.PHONY: demo test lint typecheck unit serve bench diagram clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "askai-graph needs Python 3.11+; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall whenever pyproject.toml changes or another set of extras is asked for.
$(VENV)/.installed-$(EXTRAS): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	@rm -f $(VENV)/.installed-*
	@touch $@

demo: $(VENV)/.installed-$(EXTRAS)
	$(BIN)/askai ask "$(QUESTION)"
	@echo
	$(BIN)/askai ask "How do I bake sourdough bread?"

test: lint typecheck unit

lint: $(VENV)/.installed-$(EXTRAS)
	$(BIN)/ruff check askai_graph tests bench graphs

typecheck: $(VENV)/.installed-$(EXTRAS)
	$(BIN)/mypy

# pytest exits 5 when it collected nothing: that is a failure, not a pass.
unit: $(VENV)/.installed-$(EXTRAS)
	$(BIN)/pytest $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

serve: $(VENV)/.installed-$(EXTRAS)
	$(BIN)/askai serve

bench: $(VENV)/.installed-$(EXTRAS)
	for script in bench/*.py; do $(BIN)/python $$script || exit 1; done

# Regenerate the committed diagram after changing the wiring (a test checks it).
diagram: $(VENV)/.installed-$(EXTRAS)
	$(BIN)/python -c 'from graphs.ask_ai import graph; print(graph.get_graph().draw_mermaid(), end="")' > graphs/ask_ai.mmd

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .langgraph_api
