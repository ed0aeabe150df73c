# Everything a fresh machine needs: `make demo` runs the main job, `make test` the tests.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint format clean apertium browser java

setup: $(STAMP)

# Real machine translation (Apertium: English-Spanish, English-Catalan, Esperanto-English)
# and the OpenOffice thesaurus for the labelled derivatives (unspin eval make-derivatives,
# make-routes and their tests). Installed from Debian where missing and when we may;
# otherwise those tests skip, saying which package is missing.
# the last five: bench/lang_routes.py's round trips of Spanish, French, Portuguese, Italian
APT_PACKAGES := apertium apertium-eng-spa apertium-eng-cat apertium-eo-en mythes-en-us \
	apertium-fr-es apertium-es-pt apertium-cat-ita apertium-fra-cat apertium-pt-gl
apertium:
	@modes="$$(apertium -l 2>/dev/null)"; \
	 if echo "$$modes" | grep -qw eng-spa && echo "$$modes" | grep -qw eng-cat && \
	    echo "$$modes" | grep -qw en-eo && echo "$$modes" | grep -qw fr-es && \
	    echo "$$modes" | grep -qw es-pt && echo "$$modes" | grep -qw cat-ita && \
	    echo "$$modes" | grep -qw fra-cat && echo "$$modes" | grep -qw pt-gl && \
	    [ -f /usr/share/mythes/th_en_US_v2.idx ]; then :; \
	 elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	   (apt-get install -y -q $(APT_PACKAGES) >/dev/null 2>&1 || \
	    (apt-get update -q >/dev/null && apt-get install -y -q $(APT_PACKAGES) >/dev/null)) \
	   || echo "warning: could not install $(APT_PACKAGES); machine-translation and thesaurus tests will skip"; \
	 else echo "note: some of $(APT_PACKAGES) missing and not root; their tests will skip"; fi

# Headless Chromium for the browser tests (tests/test_browser.py, driven by Playwright's
# Python package from requirements.lock). Installed from Debian where missing and when we
# may; otherwise those tests skip and say why.
browser:
	@command -v chromium >/dev/null || \
	  { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	      (apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 || \
	       (apt-get update -q >/dev/null && apt-get install -y -q chromium chromium-driver >/dev/null)) \
	      || echo "warning: could not install chromium; browser tests will skip"; \
	    else echo "note: chromium missing and not root; browser tests will skip"; fi; }

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
	@# fuzzing the readers (tests/test_fuzz.py): best effort, the test skips without it
	$(BIN)/pip install -q atheris==3.0.0 || echo "warning: atheris did not install; the fuzz test will skip"
	touch $(STAMP)

demo: setup
	$(BIN)/unspin scan examples/articles --out results/

test: setup lint apertium browser java
	$(BIN)/pytest -q

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

format: setup
	$(BIN)/ruff check --fix src tests bench
	$(BIN)/ruff format src tests bench

clean:
	rm -rf $(VENV) results .pytest_cache .ruff_cache
