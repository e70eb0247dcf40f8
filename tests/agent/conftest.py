"""Harness tests run episodes of the ``fake`` suite (:mod:`fake_env`), registered here."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # spawned environment workers inherit sys.path

import fake_env  # noqa: F401  (registers the fake suite)
