# Two commands a newcomer needs: `make demo` (the offline demo call) and `make test`.
# Both create .venv on first use and are quick afterwards.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo chat test simulate bench flow-check clean

$(STAMP): pyproject.toml installer/dev-setup.sh models/manifest.toml
	PYTHON=$(PYTHON) installer/dev-setup.sh $(VENV)
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/appliance demo

chat: $(STAMP)
	$(BIN)/appliance chat --clinic config/clinic.demo.yaml

simulate: $(STAMP)
	$(BIN)/appliance simulate tests/scenarios

flow-check: $(STAMP)
	$(BIN)/appliance flow check

test: $(STAMP)
	$(BIN)/appliance flow check
	$(BIN)/appliance simulate tests/scenarios
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) var
