"""The bench over a real HTTP connection with the workspace client (which imports nothing of actloop)."""

from __future__ import annotations

import http.client
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from PIL import Image

from actloop.suites.lab import server as server_module
from actloop.suites.lab.env import HOME_Q, MAX_JOINT_SPEED, LabEnv
from actloop.suites.lab.experiments import experiment_keys
from actloop.suites.lab.server import LabServer, serving
from actloop.suites.lab.workspace_files import CLIENT_FILE, load_client
from least_budget import least_budget_spring


@pytest.fixture
def served() -> Iterator[tuple[LabEnv, LabServer, ModuleType]]:
    env = LabEnv("hookes_law", 2)
    with serving(env) as server:
        yield env, server, load_client()


@pytest.fixture
def served_least_budget() -> Iterator[tuple[LabEnv, LabServer, ModuleType]]:
    """Hooke's law with the least budget a spec may have: a wait to its end is quick."""
    with least_budget_spring() as key:
        env = LabEnv(key, 2, render=False)
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
            for shown in (f"{value:.{digits}f}", f"{value:.{digits}g}"):
                if len(shown.lstrip("-0.").replace(".", "")) >= 4:  # 4 significant digits or more
                    assert shown not in text, (key, name)
        assert repr(value) not in text, (key, name)


def _raw(server: LabServer, path: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """One request as any client could send it; the status and the error the server gave."""
    # a wait to the end of the budget simulates all of it: give it time on a loaded machine
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=120)
    sent = {"Authorization": f"Bearer {server.token}", "Content-Length": str(len(body)), **(headers or {})}
    connection.putrequest("POST", path)
    for name, value in sent.items():
        connection.putheader(name, value)
    connection.endheaders(body)
    response = connection.getresponse()
    answer = json.loads(response.read())
    connection.close()
    return response.status, answer.get("error", "")


def test_every_request_gets_an_answer_and_booleans_are_not_numbers(
    served_least_budget: tuple[LabEnv, LabServer, ModuleType], capfd: pytest.CaptureFixture[str]
) -> None:
    env, server, _ = served_least_budget
    far_start = json.dumps({"position": [0.3, -0.2, 1.1], "quaternion": [1, 0, 0, 0], "start": [9] + [0] * 6})
    nested = b'{"targets": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    cases = [
        ("/v1/wait", b"{}", {"Content-Length": "abc"}, 400, "Content-Length must be a whole number"),
        ("/v1/move_joints", nested, None, 400, "the body is not JSON"),
        ("/v1/move_joints", b'{"targets": ' + b"[" * 40 + b"]" * 40 + b"}", None, 400, "nests deeper"),
        ("/v1/export", b'{"logger": [], "file": "a.csv"}', None, 422, "logger must be a string"),
        ("/v1/wait", b'{"seconds": true}', None, 422, "seconds must be a number, got True"),
        ("/v1/gripper", b'{"width_m": false}', None, 422, "width_m must be a number"),
        ("/v1/segment", b'{"part": {}}', None, 422, "part must be a string"),
        ("/v1/submit", b'{"result": {"k": true}, "citations": []}', None, 422, "result k must be a finite"),
        ("/v1/ik", far_start.encode(), None, 422, "start[0] = 9.0000 rad is outside"),
    ]  # fmt: skip
    for path, body, headers, status, said in cases:
        answered, error = _raw(server, path, body, headers)
        assert answered == status and said in error, (path, answered, error)
    assert env.clock.steps == 0 and env.submission is None
    status, _ = _raw(server, "/v1/wait", b'{"seconds": 1e308}')
    assert status == 200 and env.clock.steps_left == 0  # the wait lasts to the end of the budget
    status, error = _raw(server, "/v1/submit", b'{"result": {"k": 30.0}, "citations": []}')
    assert (status, env.submission) == (409, None) and "budget" in error  # one submission within the budget
    assert "Traceback" not in capfd.readouterr().err


def test_after_the_submission_only_state_and_calibration_answer(
    served: tuple[LabEnv, LabServer, ModuleType],
) -> None:
    _, server, client = served
    lab = client.Lab(server.url, server.token)
    lab.submit({"k": 30.0}, [])
    for call in (lab.observe, lambda: lab.ik([0.3, -0.2, 1.1], [0.5, 0.5, 0.5, -0.5]), lambda: lab.wait(1)):
        with pytest.raises(client.EpisodeOver, match="submitted"):
            call()
    assert lab.state()["time_s"] == 0 and "robot" in lab.calibration()
    lab.close()


def test_the_client_reaches_the_bench_through_its_unix_socket(
    served: tuple[LabEnv, LabServer, ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, server, client = served
    assert server.socket_path is not None
    config = tmp_path / "lab.json"
    config.write_text(json.dumps({"url": "http://127.0.0.1:1", "token": server.token,
                                  "socket": str(server.socket_path)}))  # fmt: skip
    monkeypatch.setenv("LAB_CONFIG", str(config))
    lab = client.Lab()
    assert lab.url == "http://lab" and lab.state()["time_s"] == 0
    lab.close()


def test_ik_takes_a_start_posture_and_move_joints_names_what_it_touched(
    served: tuple[LabEnv, LabServer, ModuleType],
) -> None:
    env, server, client = served
    lab = client.Lab(server.url, server.token)
    state = lab.state()
    elbow_up = [0.0, -0.3, 0.0, -1.8, 0.0, 1.5, 0.785]
    position, quaternion = state["hand_position"], state["hand_quaternion"]
    from_here = lab.ik(position, quaternion)["joints"]
    from_start = lab.ik(position, quaternion, start=elbow_up)["joints"]
    assert from_here == pytest.approx(state["joints"], abs=1e-3) and from_start != from_here
    with pytest.raises(client.LabError, match="start must be a list of 7 numbers"):
        lab._post("ik", position=position, quaternion=quaternion, start=[0.0] * 6)
    low = [*position[:2], 0.70]  # into the bench: the hand meets a weight and the table
    target = lab.ik(low, quaternion)["joints"]
    here, there = np.array(state["joints"]), np.array(target)
    steps = 1 + int(np.max(np.abs(there - here) / (np.array(MAX_JOINT_SPEED) / 240)))
    moved = lab.move_joints([list(here + (there - here) * (i + 1) / steps) for i in range(steps)])
    assert moved["completed"] and "table" in moved["contacts"]
    assert set(moved["contacts"]) <= {part.name for part in env.spec.parts} | {"table", "other object"}
    assert lab.move_joints([moved["joints"]])["contacts"] == sorted(moved["contacts"])
    lab.close()


def test_a_fault_of_the_bench_is_answered_with_500_and_told_on_stderr(
    served: tuple[LabEnv, LabServer, ModuleType],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    _, server, _ = served

    def broken(env: LabEnv, args: dict[str, object]) -> dict[str, object]:
        raise RuntimeError("a fault inside the bench")

    monkeypatch.setitem(server_module.CALLS, "wait", broken)
    assert _raw(server, "/v1/wait", b'{"seconds": 1}') == (
        500,
        "the bench failed on this request (RuntimeError)",
    )
    assert "RuntimeError: a fault inside the bench" in capfd.readouterr().err
    assert _raw(server, "/v1/gripper", b'{"width_m": 0.08}')[0] == 200  # and it goes on serving
