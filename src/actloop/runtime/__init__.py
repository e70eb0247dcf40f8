"""Environment runtimes behind one interface: a pool of host processes, a worker process per environment,
a Ray actor, or in-process."""

from actloop.core.factory import resolve_factory
from actloop.runtime.inline import InProcessEnv
from actloop.runtime.make import Isolation, ManagedEnv, make_env
from actloop.runtime.pool import EnvPool
from actloop.runtime.worker import (
    EnvHost,
    EnvWorker,
    EnvWorkerDied,
    EnvWorkerError,
    EnvWorkerTimeout,
    HostedEnv,
)

__all__ = [
    "EnvHost",
    "EnvPool",
    "EnvWorker",
    "EnvWorkerDied",
    "EnvWorkerError",
    "EnvWorkerTimeout",
    "HostedEnv",
    "InProcessEnv",
    "Isolation",
    "ManagedEnv",
    "make_env",
    "resolve_factory",
]
