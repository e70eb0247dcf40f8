# One-command set-up: every target creates .venv and installs the project when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
GL_STAMP := $(VENV)/.gl-backend
DEMO_OUT ?= runs/demo

.PHONY: demo test bench lint format clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

$(GL_STAMP): scripts/setup-gl.sh | $(STAMP)
	scripts/setup-gl.sh > $(GL_STAMP)

demo: $(STAMP) $(GL_STAMP)
	MUJOCO_GL=$$(cat $(GL_STAMP)) $(BIN)/actloop demo --out $(DEMO_OUT)

test: $(STAMP) $(GL_STAMP)
	MUJOCO_GL=$$(cat $(GL_STAMP)) $(BIN)/pytest -q -n 2

bench: $(STAMP) $(GL_STAMP)
	MUJOCO_GL=$$(cat $(GL_STAMP)) $(BIN)/actloop bench

lint: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

format: $(STAMP)
	$(BIN)/ruff format src tests
	$(BIN)/ruff check --fix src tests

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
