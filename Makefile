# One-command set-up: every target creates .venv and installs the project when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
GL_STAMP := $(VENV)/.gl-backend
BROWSER_STAMP := $(VENV)/.browser-path
SANDBOX_STAMP := $(VENV)/.agent-python
AGENTS_STAMP := $(VENV)/.coding-agents
DEMO_OUT ?= runs/demo

.PHONY: demo test bench lint format clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

$(GL_STAMP): scripts/setup-gl.sh | $(STAMP)
	scripts/setup-gl.sh > $(GL_STAMP)

# Headless Chromium for the trajectory viewer's browser tests (Debian's package, driven by playwright).
$(BROWSER_STAMP): scripts/setup-browser.sh | $(STAMP)
	scripts/setup-browser.sh > $(BROWSER_STAMP)

# bubblewrap and the agents' Python for the lab suite's sandbox.
$(SANDBOX_STAMP): scripts/setup-lab-sandbox.sh | $(STAMP)
	scripts/setup-lab-sandbox.sh > $(SANDBOX_STAMP)

# The coding agents' CLIs (Node and npm from Debian when missing), for the lab suite's agent adapters.
$(AGENTS_STAMP): scripts/setup-coding-agents.sh | $(STAMP)
	scripts/setup-coding-agents.sh > $(AGENTS_STAMP)

demo: $(STAMP) $(GL_STAMP)
	MUJOCO_GL=$$(cat $(GL_STAMP)) $(BIN)/actloop demo --out $(DEMO_OUT)

test: $(STAMP) $(GL_STAMP) $(BROWSER_STAMP) $(SANDBOX_STAMP) $(AGENTS_STAMP)
	MUJOCO_GL=$$(cat $(GL_STAMP)) ACTLOOP_REQUIRE_BROWSER=1 ACTLOOP_AGENT_PYTHON=$$(cat $(SANDBOX_STAMP)) \
		ACTLOOP_CODING_AGENTS_DIR=$$(cat $(AGENTS_STAMP)) ACTLOOP_REQUIRE_SANDBOX=1 $(BIN)/pytest -q -n 2

bench: $(STAMP) $(GL_STAMP)
	MUJOCO_GL=$$(cat $(GL_STAMP)) $(BIN)/actloop bench
	MUJOCO_GL=$$(cat $(GL_STAMP)) $(BIN)/actloop bench --suite lab

lint: $(STAMP)
	$(BIN)/ruff check src tests examples
	$(BIN)/ruff format --check src tests examples
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format src tests examples
	$(BIN)/ruff check --fix src tests examples

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
