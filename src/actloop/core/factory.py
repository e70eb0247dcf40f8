"""Resolve an environment factory from an import path string such as ``"pkg.module:Class"``."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from actloop.core.environment import Environment
from actloop.errors import ConfigError

EnvFactory = Callable[..., Environment]


def resolve_factory(path: str) -> EnvFactory:
    """Import ``"module.path:attr"`` (``attr`` may be dotted) and return the callable it names."""
    module_name, sep, attr_path = path.partition(":")
    if not sep or not module_name or not attr_path:
        raise ConfigError(f"environment factory must look like 'package.module:Name', got {path!r}")
    target: Any = importlib.import_module(module_name)
    for part in attr_path.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise ConfigError(f"environment factory {path!r} is not callable")
    factory: EnvFactory = target
    return factory
