# pointledger: every target sets up what it needs (a virtualenv in .venv) first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: setup run test bench clean fuzz soak docs

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

# The README's table of warehouse relations, from sql/warehouse/dictionary.toml (and, with a
# warehouse in var/, the browsable data dictionary in var/dictionary/)
docs: $(STAMP)
	$(BIN)/python -m pipelines.core.dictionary
	@if [ -f var/warehouse.duckdb ]; then $(BIN)/pointledger docs --state var; fi

# Bytecode caches on, whatever the shell says (PYTHONDONTWRITEBYTECODE=1 in some images): each of the
# two workers rewrites and compiles ~200 test modules when there is no cache (6 s instead of 2 s),
# and each process a test starts compiles the pipelines again.
test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -q -n auto --dist loadfile --durations=15

# BENCH=sweden runs one benchmark; SE_CLUBS / SE_MONTHS size the Swedish one (issue 8's target: 300 × 24)
bench: $(STAMP)
	SE_CLUBS=$(or $(SE_CLUBS),8) SE_MONTHS=$(or $(SE_MONTHS),1) $(BIN)/python -m pipelines.bench $(BENCH)

# The long mutation campaign (issue 14): FUZZ_FILES generated files per parser through each
# system's process; crashing inputs and summary.json in bench-out/fuzz/. FUZZ_MINUTES caps the time.
fuzz: $(STAMP)
	$(BIN)/python -m pipelines.fuzz campaign --files $(or $(FUZZ_FILES),10000) --jobs $(or $(FUZZ_JOBS),2) \
	  --batch $(or $(FUZZ_BATCH),25) --chunk 50 \
	  --seed $(or $(FUZZ_SEED),14) --minutes $(or $(FUZZ_MINUTES),0) --minimise 150 --out bench-out/fuzz

# Runs SIGKILLed at random moments (SOAK_KILLS, at least 30), each night finished, every warehouse
# relation and publication compared with a clean single run; bench-out/soak/summary.json.
soak: $(STAMP)
	$(BIN)/python -m pipelines.fuzz soak --kills $(or $(SOAK_KILLS),30) --copies $(or $(SOAK_COPIES),2) \
	  --seed $(or $(SOAK_SEED),14) --out bench-out/soak

clean:
	rm -rf var
