# alphaprover — the two promised commands on a fresh Debian machine (as root):
#   make demo   a real solve of bundled miniF2F problems with the shipped checkpoint on Coq
#   make test   installs everything it needs (apt + pip), then runs the whole test suite
# Both are idempotent: set-up steps are skipped when already done.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
APT_PACKAGES := coq libcoq-coquelicot libcoq-hammer libcoq-flocq libcoq-coqprime libcoq-bignums coinor-csdp chromium python3-venv g++ ninja-build
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup system-deps python-deps demo test test-fast bench clean

setup: system-deps python-deps

# Debian packages: Coq 8.16 (+ Coquelicot, CoqHammer), CSDP (psatz's oracle) and Chromium for the HTML-view test.
system-deps:
	@if command -v coqtop >/dev/null && command -v chromium >/dev/null && command -v csdp >/dev/null \
	    && [ -d /usr/lib/ocaml/coq/user-contrib/Coquelicot ] && [ -d /usr/lib/ocaml/coq/user-contrib/Hammer ] \
	    && [ -d /usr/lib/ocaml/coq/user-contrib/Flocq ] && [ -d /usr/lib/ocaml/coq/user-contrib/Coqprime ]; then \
	  echo "system deps present"; \
	else \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $(APT_PACKAGES) >/dev/null; \
	fi

# A venv with the project installed editable; torch pinned to the CPU build (pyproject pins it).
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[test]"
	touch $@

python-deps: $(VENV)/.installed

demo: setup
	$(VENV)/bin/alphaprover demo

test: setup
	$(VENV)/bin/pytest -q

test-fast: python-deps
	$(VENV)/bin/pytest -q -m "not integration"

bench: setup
	$(PY) benchmarks/env_latency.py
	$(PY) benchmarks/network_throughput.py
	$(PY) benchmarks/search_overhead.py

clean:
	rm -rf $(VENV) runs outputs results .pytest_cache
