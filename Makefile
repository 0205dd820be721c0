# Checks for chunkscope. The tools come from the active environment (pip install -e '.[dev]');
# point BIN at another environment's bin directory, with a trailing slash, to use its tools:
#   make check BIN=/path/to/.venv/bin/
# .ci/run runs the same checks in the same order; keep the two in step.

BIN ?=
# This checkout's sources come first, so the checks see them even when another checkout is installed.
export PYTHONPATH := $(CURDIR)/src$(if $(PYTHONPATH),:$(PYTHONPATH))

LINTED := src tests benchmarks

.PHONY: check lint test golden docs

## check: every check CI runs, in CI's order (stops at the first failure)
check: lint test

## lint: the static checks and the documentation build
lint:
	$(BIN)ruff check $(LINTED)
	$(BIN)ruff format --check $(LINTED)
	$(BIN)mypy
	$(BIN)lint-imports
	$(BIN)mkdocs build --strict

## test: the pytest part of the README's test command
test:
	$(BIN)pytest -n 2

## golden: regenerate tests/golden after an intended change to a report; review `git diff tests/golden` after
golden:
	CHUNKSCOPE_REGEN_GOLDEN=1 $(BIN)pytest tests/cli/test_golden.py
	@echo "golden files regenerated: review every change with  git diff tests/golden"

## docs: build the documentation site into site/
docs:
	$(BIN)mkdocs build --strict
