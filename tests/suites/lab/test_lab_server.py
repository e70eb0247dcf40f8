"""The bench over a real HTTP connection with the workspace client (which imports nothing of actloop)."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest
from PIL import Image

from actloop.suites.lab.env import HOME_Q, LabEnv
from actloop.suites.lab.experiments import experiment_keys
from actloop.suites.lab.server import LabServer, serving
from actloop.suites.lab.workspace_files import CLIENT_FILE, load_client


@pytest.fixture
def served() -> Iterator[tuple[LabEnv, LabServer, ModuleType]]:
    env = LabEnv("hookes_law", 2)
    with serving(env) as server:
        yield env, server, load_client()


def test_the_client_imports_nothing_of_the_evaluator() -> None:
    source = CLIENT_FILE.read_text()
    assert "actloop" not in source.replace("actloop_", "") and "mujoco" not in source
    before = set(sys.modules)
    load_client()
    assert not {m for m in set(sys.modules) - before if m.startswith(("actloop", "mujoco"))}


def test_a_full_exchange(served: tuple[LabEnv, LabServer, ModuleType]) -> None:
    _, server, client = served
    lab = client.Lab(server.url, server.token)
    seen = lab.observe()
    assert seen["observation_id"].endswith("-1")
    assert Image.open(io.BytesIO(seen["images"]["front"])).size == (640, 480)
    assert set(lab.calibration()) >= {"front", "side", "wrist"}
    path = [[HOME_Q[0] + 0.1 * (i + 1) / 48, *HOME_Q[1:]] for i in range(48)]
    assert lab.move_joints(path)["steps"] == 48
    assert lab.wait(1.0)["time_s"] == pytest.approx(48 / 240 + 1.0)
    assert lab.submit({"k": 30.0}, [])["submitted"]
    with pytest.raises(client.EpisodeOver, match="submitted"):
        lab.wait(1.0)
    lab.close()


def test_refusals_have_their_status_and_move_nothing(served: tuple[LabEnv, LabServer, ModuleType]) -> None:
    env, server, client = served
    with pytest.raises(client.LabError) as wrong:
        client.Lab(server.url, "not-the-token").state()
    assert wrong.value.status == 401
    lab = client.Lab(server.url, server.token)
    with pytest.raises(client.LabError) as bad:
        lab.move_joints([[0.0] * 6])
    assert bad.value.status == 422 and "7 numbers" in str(bad.value) and env.clock.steps == 0
    raw = lab._http.post("/v1/gripper", content=b'{"width_m": NaN}')  # what a non-Python client could send
    assert raw.status_code == 422 and "width_m must be a number" in raw.json()["error"]
    with pytest.raises(client.LabError) as unknown:
        lab._post("teleport")
    assert unknown.value.status == 404


@pytest.mark.parametrize("key", experiment_keys())
def test_no_hidden_value_appears_in_any_response(key: str) -> None:
    env = LabEnv(key, 2)
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        responses = [
            lab.state(),
            lab.calibration(),
            lab.wait(0.5),
            lab.ik([0.3, -0.2, 1.1], [0.5, 0.5, 0.5, -0.5]),
        ]
        seen = lab.observe()
        seen.pop("images")
        lab.close()
    text = json.dumps([*responses, seen])
    for name, value in env.instance.hidden.items():
        for digits in (4, 5, 6, 8, 10):
            assert f"{value:.{digits}f}" not in text, (key, name)
        assert repr(value) not in text, (key, name)
