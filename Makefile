# Everything a fresh machine needs: `make demo` runs the main job, `make test` the tests.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint format clean apertium

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

test: setup lint apertium
	$(BIN)/pytest -q

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

format: setup
	$(BIN)/ruff check --fix src tests bench
	$(BIN)/ruff format src tests bench

clean:
	rm -rf $(VENV) results .pytest_cache .ruff_cache
