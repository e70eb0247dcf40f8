"""The spawned environment worker: proxying, remote errors, dead workers, and the inline variant."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from actloop.errors import ConfigError
from actloop.runtime import (
    EnvWorker,
    EnvWorkerDied,
    EnvWorkerError,
    EnvWorkerTimeout,
    InProcessEnv,
    make_env,
    resolve_factory,
)
from actloop.suites.vabench.protocol.decisions import MoveWorld, SetGripper, Translation

FACTORY = "fake_env:FakeEnv"
MOVE = MoveWorld(Translation("z", "-", 20.0))


def test_spawned_worker_proxies_calls() -> None:
    with EnvWorker(FACTORY, {"task": "pick_cube", "seed": 3, "protocol": "passive"}) as env:
        assert env.pid is not None and env.pid != os.getpid()
        assert env.instruction == "Pick up the red cube."
        assert env.budget == 5
        assert env.action_space.camera is False
        first = env.reset()
        assert first.observation.step == 0
        assert first.observation.arms[0].gc == (0.3, 0.0, 0.9)
        env.step(MOVE)
        done = env.step(SetGripper("close"))
        assert done.done and done.stop_reason == "success" and done.evaluation.success
        assert env.frames_at(1) is not None and env.frames_at(99) is None
    with pytest.raises(EnvWorkerError, match="unusable"):
        env.reset()


def test_remote_exception_carries_traceback() -> None:
    with EnvWorker(FACTORY, {"fail_on_step": True}) as env:
        env.reset()
        with pytest.raises(EnvWorkerError) as info:
            env.step(MOVE)
        assert info.value.remote_type == "RuntimeError"
        assert "fake env exploded" in str(info.value)
        assert "fake_env.py" in info.value.remote_traceback
        assert env.reset().observation.step == 0  # the worker survives an env exception


def test_construction_error_surfaces() -> None:
    with pytest.raises(EnvWorkerError, match="refused to build") as info:
        EnvWorker(FACTORY, {"fail_on_init": True})
    assert "Traceback" in info.value.remote_traceback


def test_killed_worker_raises_promptly() -> None:
    env = EnvWorker(FACTORY, {"hang_on_step": 30.0})
    env.reset()
    assert env.pid is not None
    threading.Timer(0.3, os.kill, (env.pid, signal.SIGKILL)).start()
    start = time.monotonic()
    with pytest.raises(EnvWorkerDied, match="died during step"):
        env.step(MOVE)
    assert time.monotonic() - start < 5.0
    with pytest.raises(EnvWorkerError):
        env.reset()
    env.close()


def test_killed_idle_worker_raises() -> None:
    env = EnvWorker(FACTORY, {})
    assert env.pid is not None
    os.kill(env.pid, signal.SIGKILL)
    with pytest.raises(EnvWorkerDied):
        env.reset()


def test_call_timeout_terminates_worker() -> None:
    env = make_env(FACTORY, {"hang_on_step": 30.0}, "process", timeout=2.0)
    env.reset()
    with pytest.raises(EnvWorkerTimeout):
        env.step(MOVE)
    env.close()


def test_inline_variant_has_same_interface() -> None:
    env = make_env(FACTORY, {"seed": 1}, "inline")
    assert isinstance(env, InProcessEnv)
    with env:
        assert env.reset().observation.budget == env.budget == 5
        assert env.step(MOVE).observation.step == 1


def test_inline_calls_run_on_one_thread() -> None:
    # renderers' OpenGL contexts are bound to the thread that created them
    env = InProcessEnv(FACTORY, {})
    callers = [threading.Thread(target=env.reset), threading.Thread(target=env.step, args=(MOVE,))]
    for caller in callers:
        caller.start()
        caller.join()
    fake = env._env
    env.close()
    assert len(fake.threads) == 1 and threading.get_ident() not in fake.threads  # type: ignore[attr-defined]
    assert fake.closed  # type: ignore[attr-defined]


def test_factory_strings_are_validated() -> None:
    with pytest.raises(ConfigError, match="must look like"):
        resolve_factory("fake_env.FakeEnv")
    with pytest.raises(ConfigError, match="isolation"):
        make_env(FACTORY, {}, "thread")  # type: ignore[arg-type]
