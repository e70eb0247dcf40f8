"""Provider failures say what happened: status, URL and server text; a wrong key or model stops the
model's run at once with a non-zero exit, and those episodes run again once it is fixed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from actloop.agent.failures import ModelFailure
from actloop.cli import main
from episode_rows import run_json
from fake_providers import FakeProviders, serve

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
HERE = Path(__file__).resolve().parent
STOP = '{"stop": true, "reason": "done"}'


@pytest.fixture(autouse=True)
def loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setenv("OPENAI_API_KEY", "dummy-key")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def _evaluate(server: FakeProviders, out: Path, seeds: list[int]) -> list[dict[str, Any]]:
    """Episodes of the fake environment through the OpenAI Chat provider against ``server``."""
    return run_json(
        "fake",
        [("pick_cube", seed, 0) for seed in seeds],
        "openai/gpt-4o-mini",
        {"responses_api": False},
        out,
        env_factory="fake_env:FakeEnv",
        isolation="inline",
        model_base_url=server.base_url,
        max_retries=1,
        timeout=30,
    )


@pytest.mark.parametrize("status", [401, 404])
def test_a_configuration_failure_names_status_url_and_server_text_and_stops_the_model(
    status: int, tmp_path: Path
) -> None:
    with serve([status] * 4) as server:
        rows = _evaluate(server, tmp_path, [1, 2, 3])
        requests = len(server.requests)
    assert requests == 1  # the first failure stopped the model's other episodes
    first, *rest = rows
    assert first["stop_reason"] == "infra_error" and first["error_kind"] == "configuration"
    assert f"HTTP {status}" in first["error"] and f"url {server.base_url}/chat/completions" in first["error"]
    assert f"scripted {status}" in first["error"]
    for row in rest:
        assert row["error_kind"] == "configuration" and row["error"].startswith("not run: an earlier episode")


def test_a_provider_failure_is_not_a_configuration_failure(tmp_path: Path) -> None:
    with serve([500] * 10) as server:
        (row,) = _evaluate(server, tmp_path, [1])
    assert row["stop_reason"] == "infra_error" and row["error_kind"] == "provider"
    assert "HTTP 500" in row["error"]


def test_a_retry_error_is_described_by_its_last_attempt() -> None:
    class Attempt:
        def exception(self) -> BaseException:
            return ConnectionError("refused")

    class RetryError(Exception):
        last_attempt = Attempt()

    failure = ModelFailure.from_exception(RetryError("gave up"))
    assert str(failure) == "ConnectionError: refused" and failure.kind == "provider"


def test_the_command_line_exits_non_zero_and_reruns_after_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FAKE_API_KEY", "dummy-key")
    out = tmp_path / "out"
    argv = [
        "run",
        "--tasks",
        "grasp_single_cube",
        "--seeds",
        "1",
        "--model",
        "openai-api/fake/m",
        "--out",
        str(out),
    ]
    with serve([401, STOP]) as server:
        monkeypatch.setenv("FAKE_BASE_URL", server.base_url)
        assert main(argv) == 1
        printed = " ".join(capsys.readouterr().out.split())
        assert "error: openai-api/fake/m: AuthenticationError" in printed and "HTTP 401" in printed
        assert main(argv) == 0  # the key is fixed (the server now answers): the episode runs again
        assert len(server.requests) == 2
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [row["stop_reason"] for row in rows] == ["infra_error", "stop"]
