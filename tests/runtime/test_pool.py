"""The environment pool: many environments per host process, least-loaded placement, dead hosts replaced."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

import pytest

from actloop.errors import ConfigError
from actloop.runtime import EnvPool, EnvWorkerDied, EnvWorkerError, EnvWorkerTimeout, HostedEnv, make_env
from actloop.suites.vabench.protocol.decisions import MoveWorld, Translation

FACTORY = "fake_env:FakeEnv"
MOVE = MoveWorld(Translation("z", "-", 20.0))


def test_environments_share_few_hosts_and_stay_independent() -> None:
    with EnvPool(2) as pool:
        envs = [pool.open(FACTORY, {"seed": seed}) for seed in range(5)]
        assert len(set(pool.pids)) == 2
        assert [env.pid for env in envs].count(pool.pids[0]) == 3  # least-loaded placement: 3 + 2
        for env in envs:
            env.reset()
        envs[0].step(MOVE)
        assert envs[0].step(MOVE).observation.step == 2
        assert envs[3].step(MOVE).observation.step == 1  # same host as envs[0]: its steps are its own
        for env in envs:
            env.close()
            env.close()  # idempotent


def test_closing_gives_the_slot_back() -> None:
    with EnvPool(2) as pool:
        a = pool.open(FACTORY, {})
        b = pool.open(FACTORY, {})
        assert a.pid != b.pid
        a.close()
        c = pool.open(FACTORY, {})
        assert c.pid == a.pid  # the emptier host
        b.close()
        c.close()


def test_concurrent_opens_spread_over_hosts() -> None:
    with EnvPool(2) as pool:
        envs: list[HostedEnv] = []
        threads = [threading.Thread(target=lambda: envs.append(pool.open(FACTORY, {}))) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted([env.pid for env in envs].count(pid) for pid in pool.pids) == [3, 3]
        for env in envs:
            env.close()


def test_a_dead_host_fails_its_environments_and_is_replaced() -> None:
    with EnvPool(1) as pool:
        env = pool.open(FACTORY, {})
        env.reset()
        dead_pid = env.pid
        assert dead_pid is not None
        os.kill(dead_pid, signal.SIGKILL)
        with pytest.raises(EnvWorkerDied):
            env.reset()
        with pytest.raises(EnvWorkerError, match="unusable"):
            env.step(MOVE)
        env.close()  # nothing left to close: no error
        fresh = pool.open(FACTORY, {})
        assert fresh.pid != dead_pid and fresh.reset().observation.step == 0
        fresh.close()


def test_a_hung_call_times_out_and_the_host_is_replaced() -> None:
    with EnvPool(1, timeout=1.5) as pool:
        env = pool.open(FACTORY, {"hang_on_step": 30.0})
        env.reset()
        with pytest.raises(EnvWorkerTimeout):
            env.step(MOVE)
        env.close()
        fresh = pool.open(FACTORY, {})
        assert fresh.reset().observation.step == 0
        fresh.close()


def end(pid: int) -> None:
    """Make sure process ``pid`` is gone: continued and killed if it is still there."""
    for sig in (signal.SIGCONT, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def test_a_stopped_host_is_killed_at_its_deadline_and_only_its_environments_fail() -> None:
    with EnvPool(2, timeout=3.0) as pool:
        frozen, other = pool.open(FACTORY, {}), pool.open(FACTORY, {})
        pid = frozen.pid
        assert pid is not None and pid != other.pid
        frozen.reset()
        os.kill(pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            with pytest.raises(EnvWorkerTimeout, match=r"gave no answer to step\(\) in 3.0 s"):
                frozen.step(MOVE)
            assert time.monotonic() - started < 4.5  # killed at the deadline, no grace for a stopped host
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)  # killed and reaped: not even a zombie is left
            assert other.step(MOVE).observation.step == 1  # the other host's environment goes on
            frozen.close()
            other.close()
        finally:
            end(pid)


def test_build_errors_surface_and_leave_the_host_usable() -> None:
    with EnvPool(1) as pool:
        with pytest.raises(EnvWorkerError, match="refused to build"):
            make_env(FACTORY, {"fail_on_init": True}, "pool", pool=pool.name)
        env = make_env(FACTORY, {}, "pool", pool=pool.name)
        assert env.reset().observation.step == 0
        env.close()


def test_a_closed_or_unknown_pool_is_a_clear_error() -> None:
    pool = EnvPool(1)
    pool.close()
    with pytest.raises(ConfigError, match="is closed"):
        pool.open(FACTORY, {})
    with pytest.raises(ConfigError, match="no open environment pool"):
        make_env(FACTORY, {}, "pool", pool=pool.name)
    with pytest.raises(ConfigError, match="needs the name"):
        make_env(FACTORY, {}, "pool")
    with pytest.raises(ConfigError, match="at least one"):
        EnvPool(0)
