"""Environment runtimes: a spawned worker process (default) or in-process, behind one interface."""

from actloop.core.factory import resolve_factory
from actloop.runtime.inline import InProcessEnv
from actloop.runtime.make import Isolation, ManagedEnv, make_env
from actloop.runtime.worker import EnvWorker, EnvWorkerDied, EnvWorkerError, EnvWorkerTimeout

__all__ = [
    "EnvWorker",
    "EnvWorkerDied",
    "EnvWorkerError",
    "EnvWorkerTimeout",
    "InProcessEnv",
    "Isolation",
    "ManagedEnv",
    "make_env",
    "resolve_factory",
]
