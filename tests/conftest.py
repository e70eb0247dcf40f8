"""Shared fixtures. ``import actloop`` selects the headless GL backend before MuJoCo loads."""

from __future__ import annotations

import os
import socketserver
from collections.abc import Callable, Iterator
from functools import partialmethod
from pathlib import Path
from typing import Any

import pytest

import actloop  # noqa: F401  (selects MUJOCO_GL)
from actloop.suites.vabench.env import SpatialEnv

TASK = "grasp_single_cube"
SEED = 1000


@pytest.fixture(scope="session", autouse=True)
def servers_stop_promptly() -> Iterator[None]:
    """Every server a test runs (a served bench, the annotation server, a fake provider) checks for its
    shutdown every 20 ms rather than every half second, so it stops as soon as the test is done with it."""
    with pytest.MonkeyPatch.context() as patch:
        serve_forever = partialmethod(socketserver.BaseServer.serve_forever, poll_interval=0.02)
        patch.setattr(socketserver.BaseServer, "serve_forever", serve_forever)
        yield


@pytest.fixture
def make_env() -> Iterator[Callable[..., SpatialEnv]]:
    """A factory of environments, each built as ``SpatialEnv(task, seed, **kwargs)``, reset unless
    ``reset=False``, and closed when the test ends."""
    made: list[SpatialEnv] = []

    def make(task: str, seed: int = SEED, *, reset: bool = True, **kwargs: Any) -> SpatialEnv:
        environment = SpatialEnv(task, seed, **kwargs)
        made.append(environment)
        if reset:
            environment.reset()
        return environment

    yield make
    for environment in made:
        environment.close()


@pytest.fixture
def env(request: pytest.FixtureRequest, make_env: Callable[..., SpatialEnv]) -> SpatialEnv:
    """The reset environment of the test module's ``TASK`` at its ``SEED``; a module without them gets
    grasp_single_cube at seed 1000."""
    return make_env(getattr(request.module, "TASK", TASK), getattr(request.module, "SEED", SEED))


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium via Playwright; missing, it skips (fails with ACTLOOP_REQUIRE_BROWSER=1)."""
    required = os.environ.get("ACTLOOP_REQUIRE_BROWSER") == "1"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        (pytest.fail if required else pytest.skip)("playwright is not installed (pip install -e '.[dev]')")
    if not CHROMIUM.exists():
        (pytest.fail if required else pytest.skip)("no /usr/bin/chromium: run scripts/setup-browser.sh")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
