"""The runtime tests build :mod:`fake_env` environments, in this process and in spawned children."""

from __future__ import annotations

from pathlib import Path

import pytest

FAKE_ENV_DIR = Path(__file__).resolve().parents[1] / "agent"


@pytest.fixture(autouse=True)
def _fake_env_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    # spawned children inherit the parent's sys.path, so the child can import the fake env too
    monkeypatch.syspath_prepend(str(FAKE_ENV_DIR))
