# Everything a fresh machine needs: `make demo` runs the main job, `make test` the tests.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint format clean apertium java

setup: $(STAMP)

# Real machine translation for the labelled derivatives (unspin eval make-derivatives and
# its tests). Installed from Debian where missing and when we may; otherwise those tests skip.
apertium:
	@command -v apertium >/dev/null && apertium -l 2>/dev/null | grep -q eng-spa || \
	  { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	      (apt-get install -y -q apertium apertium-eng-spa >/dev/null 2>&1 || \
	       (apt-get update -q >/dev/null && apt-get install -y -q apertium apertium-eng-spa >/dev/null)) \
	      || echo "warning: could not install apertium; machine-translation tests will skip"; \
	    else echo "note: apertium missing and not root; machine-translation tests will skip"; fi; }

# Java 17 for pyspark (unspin scan --engine spark and its test); installed from Debian where
# missing and when we may; otherwise the Spark test skips.
java:
	@command -v java >/dev/null || \
	  { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	      (apt-get install -y -q openjdk-17-jre-headless >/dev/null 2>&1 || \
	       (apt-get update -q >/dev/null && apt-get install -y -q openjdk-17-jre-headless >/dev/null)) \
	      || echo "warning: could not install Java; the Spark test will skip"; \
	    else echo "note: Java missing and not root; the Spark test will skip"; fi; }

$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements.lock
	$(BIN)/pip install -q --no-deps -e .
	touch $(STAMP)

demo: setup
	$(BIN)/unspin scan examples/articles --out results/

test: setup lint apertium java
	$(BIN)/pytest -q

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

format: setup
	$(BIN)/ruff check --fix src tests bench
	$(BIN)/ruff format src tests bench

clean:
	rm -rf $(VENV) results .pytest_cache .ruff_cache
