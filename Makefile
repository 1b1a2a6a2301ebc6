# pointledger: every target sets up what it needs (a virtualenv in .venv) first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: setup run test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

# The nightly job on the bundled sample inbox. Exit 3 means "posted, some input quarantined",
# which the samples do on purpose (they contain a malformed post), so it counts as success here.
run: $(STAMP)
	@$(BIN)/pointledger run --inbox data/samples/inbox --state var; rc=$$?; \
	 if [ $$rc -eq 3 ]; then echo "(exit 3: some sample input was quarantined on purpose; see the quarantine view)"; exit 0; fi; \
	 exit $$rc

test: $(STAMP)
	$(BIN)/pytest -q -n auto --dist loadfile

bench: $(STAMP)
	$(BIN)/python -m pipelines.bench

clean:
	rm -rf var
