"""Scoring the black-box resistor on the circuit board: the board's mechanics, the circuit, gates,
milestones and the restored bench.

Test scaffolding stands in for the agent's hands and eyes where a scripted arm would be slow: the box is set
into the socket or onto its pad by setting its pose, the rocker by setting its angle, the supply's setting
directly, and close-ups of the meters are logged as served with the readability a close wrist camera has
(the readability geometry, the keys and the rocker are tested on their own below).
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from actloop.sim.camera import look_at
from actloop.suites.lab.card import task_card
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.black_box_resistor import (
    BOX,
    SOCKET,
    SPEC,
    BlackBoxEvaluator,
)
from actloop.suites.lab.instance import draw
from actloop.suites.lab.platforms.circuit_board import (
    BOX_HALF,
    ROCKER_RANGE_RAD,
    SEAT_Z,
    VOLTMETER_OHMS,
    CircuitBoard,
)
from actloop.suites.lab.readability import visibility
from actloop.suites.lab.reference.black_box_resistor import CELLS
from actloop.suites.lab.reference.black_box_resistor import fit_resistance as reference_fit
from actloop.suites.lab.reference.circuit_board import HAND, VIEW_HEIGHT
from actloop.suites.lab.reference.display import Camera, project, read_display, window_corners
from close_up_scaffold import cite_shown, serve_close_up

SEED = 4

METERS = ("voltmeter", "ammeter")


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("black_box_resistor", SEED, render=False)
    yield bench
    bench.close()


def board(env: LabEnv) -> CircuitBoard:
    assert isinstance(env.platform, CircuitBoard)
    return env.platform


def evaluator(env: LabEnv) -> BlackBoxEvaluator:
    assert isinstance(env.evaluator, BlackBoxEvaluator)
    return env.evaluator


def put_box(env: LabEnv, x: float, y: float, z: float, tilt: float = 0.0) -> None:
    joint = env._model.joint(f"{BOX.name}_free")
    quat = [np.cos(tilt / 2), np.sin(tilt / 2), 0.0, 0.0]
    env._world.data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [x, y, z, *quat]
    env._world.data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


def seat(env: LabEnv, dx: float = 0.0) -> None:
    put_box(env, SOCKET.centre[0] + dx, SOCKET.centre[1], SEAT_Z + BOX_HALF[2] + 0.0003)
    env.wait(0.3)


def home(env: LabEnv) -> None:
    put_box(env, *BOX.home, 0.74 + BOX_HALF[2] + 0.0003)
    env.wait(0.3)


def power(env: LabEnv, on: bool) -> None:
    rocker = env._model.joint("rocker")
    env._world.data.qpos[rocker.qposadr[0]] = ROCKER_RANGE_RAD if on else -ROCKER_RANGE_RAD
    env._world.data.qvel[rocker.dofadr[0]] = 0.0


def close_up(env: LabEnv) -> str:
    """Serve a close-up of both meters (scaffolding: what the wrist camera 22 cm above makes readable)."""
    return serve_close_up(env, METERS, 30.0)


def cite(env: LabEnv, observation_id: str) -> list[dict[str, object]]:
    return cite_shown(env, observation_id, METERS)


def measure(env: LabEnv, settings: tuple[int, ...] = (2, 4, 6, 8)) -> list[dict[str, object]]:
    """Readings at each setting with the box seated and the supply on; the bench is left live."""
    seat(env)
    power(env, True)
    citations: list[dict[str, object]] = []
    for volts in settings:
        board(env).setting = volts
        env.wait(1.0)
        citations += cite(env, close_up(env))
    return citations


def fit(citations: list[dict[str, object]]) -> float:
    values = [float(c["value"]) for c in citations]  # type: ignore[arg-type]
    return reference_fit(list(zip(values[::2], values[1::2], strict=True)), VOLTMETER_OHMS)


def restore(env: LabEnv) -> None:
    power(env, False)
    home(env)


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    citations = measure(env)
    evaluator(env).acted = True  # scaffolding: the robot would have carried the box and pressed the keys
    restore(env)
    env.submit({"R": fit(citations)}, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts) and len(verdicts) == 8
    assert score.success and score.process_score == 100, score.gates
    assert score.e < 0.2 and "settings [2.0, 4.0, 6.0, 8.0]" in score.milestones["L4"].evidence


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    citations = measure(env)
    evaluator(env).acted = True
    env.submit({"R": fit(citations)}, citations)  # the supply on, the box still in the socket
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "the supply is on" in score.gates["restored"].evidence
    assert "not upright on its pad" in score.gates["restored"].evidence


def test_the_box_left_in_the_socket_with_the_supply_off_is_not_restored(env: LabEnv) -> None:
    citations = measure(env)
    power(env, False)
    env.wait(0.3)
    env.submit({"R": fit(citations)}, citations)
    restored = env.score()[0].gates["restored"]
    assert not restored.passed and "supply is on" not in restored.evidence


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations = measure(env)
    citations[3] = {**citations[3], "value": float(citations[3]["value"]) + 0.002}  # type: ignore[arg-type]
    restore(env)
    env.submit({"R": env.evaluator.targets()["R"]}, citations)
    score, _ = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert "7 of 8 citations match" in score.gates["evidence"].evidence


def test_half_a_count_off_still_matches_the_display(env: LabEnv) -> None:
    citations = measure(env)
    citations[3] = {**citations[3], "value": float(citations[3]["value"]) + 0.0004}  # type: ignore[arg-type]
    restore(env)
    env.submit({"R": fit(citations)}, citations)
    assert env.score()[0].gates["evidence"].passed


@pytest.mark.parametrize(
    ("situation", "valid"),
    [
        ("supply off", False),
        ("box beside the socket", False),
        ("0.3 s after switching on", False),
        ("0.7 s after switching on", True),
    ],
)
def test_readings_count_only_with_the_supply_on_and_the_box_in_circuit(
    env: LabEnv, situation: str, valid: bool
) -> None:
    citations = measure(env)
    if situation == "supply off":
        power(env, False)
        env.wait(1.0)
    elif situation == "box beside the socket":
        put_box(env, SOCKET.centre[0], SOCKET.centre[1] - 0.06, 0.752 + BOX_HALF[2] + 0.0003)
        env.wait(1.0)
    else:
        power(env, False)
        env.wait(1.0)
        power(env, True)
        env.wait(0.3 if situation.startswith("0.3") else 0.7)
    citations += cite(env, close_up(env))
    restore(env)
    env.submit({"R": env.evaluator.targets()["R"]}, citations)
    score, verdicts = env.score()
    assert score.gates["evidence"].passed
    assert score.gates["conditions"].passed is valid, score.gates["conditions"].evidence
    assert all(v.valid is valid for v in verdicts[-2:])


@pytest.mark.parametrize(("factor", "succeeds"), [(1.00299, True), (0.99701, True), (1.00301, False)])
def test_the_tolerance_is_three_per_mille(env: LabEnv, factor: float, succeeds: bool) -> None:
    citations = measure(env)
    evaluator(env).acted = True
    restore(env)
    ohms = env.evaluator.targets()["R"] * factor
    env.submit({"R": ohms}, citations)
    score, _ = env.score()
    assert score.errors["R"] == pytest.approx(abs(factor - 1) / 0.003, rel=1e-6)
    assert score.gates["evidence"].passed and score.success is succeeds


def test_readings_at_one_setting_do_not_reach_l4(env: LabEnv) -> None:
    citations = measure(env, settings=(5, 5))
    evaluator(env).acted = True
    restore(env)
    env.submit({"R": env.evaluator.targets()["R"]}, citations)
    score, _ = env.score()
    assert score.milestones["L3"].passed and not score.milestones["L4"].passed and score.level == 3


@pytest.mark.parametrize(
    ("dx", "dz", "tilt", "seated"),
    [
        (0.0, 0.0, 0.0, True),
        (0.0035, 0.0, 0.0, True),
        (0.0, 0.0, 0.05, True),
        (0.0, 0.004, 0.0, False),
        (0.0, 0.0, 0.2, False),
    ],
)
def test_the_box_is_seated_only_level_and_down_in_the_socket(
    env: LabEnv, dx: float, dz: float, tilt: float, seated: bool
) -> None:
    x, y = SOCKET.centre
    put_box(env, x + dx, y, SEAT_Z + BOX_HALF[2] + dz, tilt)
    env._step(1)  # one step: the pose as set, before it falls or settles
    assert (board(env).seated[SOCKET.name] == BOX.name) is seated


def test_the_box_beyond_the_seat_tolerance_is_out_of_circuit(env: LabEnv) -> None:
    x, y = SOCKET.centre
    put_box(env, x + 0.0045, y, SEAT_Z + BOX_HALF[2])
    env._step(1)
    assert board(env).seated[SOCKET.name] is None


def test_the_circuit_gives_ohms_law_through_the_box_and_the_voltmeter(env: LabEnv) -> None:
    ohms = env.instance.hidden["R"]
    v_zero, i_zero = env.instance.hidden["voltmeter_zero"], env.instance.hidden["ammeter_zero"]
    seat(env)
    power(env, True)
    board(env).setting = 7
    env.wait(0.1)
    true = board(env).true_values(env._world.data)
    volts = true["voltmeter"] - v_zero
    assert volts == pytest.approx(7.0 * ohms / (ohms + 0.2) / (1 + 0.2 / VOLTMETER_OHMS), rel=1e-6)
    assert true["ammeter"] - i_zero == pytest.approx(1000 * volts * (1 / ohms + 1 / VOLTMETER_OHMS), rel=1e-9)
    put_box(env, *BOX.home, 0.74 + BOX_HALF[2] + 0.0003)
    env.wait(0.1)
    true = board(env).true_values(env._world.data)
    assert true["ammeter"] - i_zero == pytest.approx(1000 * 7.0 / VOLTMETER_OHMS, rel=1e-3)
    power(env, False)
    env.wait(0.1)
    assert board(env).true_values(env._world.data) == pytest.approx({"voltmeter": v_zero, "ammeter": i_zero})


def test_a_key_press_steps_the_setting_once_and_a_light_touch_not_at_all(env: LabEnv) -> None:
    key = env._model.body("key_up").id
    data = env._world.data
    for force, expected in ((0.5, 0), (4.0, 1), (4.0, 2)):
        data.xfrc_applied[key, 2] = -force
        env.wait(0.3)
        data.xfrc_applied[key, 2] = 0.0
        env.wait(0.3)
        assert board(env).setting == expected, force
    down = env._model.body("key_down").id
    data.xfrc_applied[down, 2] = -4.0
    env.wait(0.3)
    data.xfrc_applied[down, 2] = 0.0
    env.wait(0.3)
    assert board(env).setting == 1


def test_the_rocker_snaps_over_only_when_pressed_past_its_centre(env: LabEnv) -> None:
    rocker = env._model.body("rocker").id
    data = env._world.data
    for torque, on in ((0.01, False), (0.05, True)):  # about x: the front end down
        data.xfrc_applied[rocker, 3] = torque
        env.wait(0.3)
        data.xfrc_applied[rocker, 3] = 0.0
        env.wait(0.5)
        assert board(env).powered is on, torque
    data.xfrc_applied[rocker, 3] = -0.05
    env.wait(0.3)
    data.xfrc_applied[rocker, 3] = 0.0
    env.wait(0.5)
    assert not board(env).powered


def test_a_close_camera_reads_the_meters_and_a_far_one_does_not(env: LabEnv) -> None:
    sites = env.platform.reading_sites(env._world.data)
    fy = env.calibration()["wrist"]["intrinsics"]["fy"]
    for name in ("voltmeter", "ammeter"):
        site = sites[name]
        for height, readable in ((0.22, True), (0.9, False)):
            pose = look_at(site.point + np.array([0.0, -0.02, height]), site.point)
            (seen,) = visibility(
                env._model,
                env._world.data,
                "test",
                (np.array(pose.position), pose.rotation()),
                fy,
                {name: site},
            )
            assert seen.in_view and seen.unoccluded and (seen.pixel_size >= 10.0) is readable, seen
    served = env.observe()  # the fixed cameras see the meters from about a metre: too small to read
    views = env.instrument_log.observations[served["observation_id"]].views
    assert {v.camera for v in views} >= {"front", "side"} and not any(v.readable for v in views)


def test_the_displays_show_what_the_instrument_log_says() -> None:
    env = LabEnv("black_box_resistor", SEED)
    try:
        seat(env)
        power(env, True)
        board(env).setting = 6
        layout = env.calibration()["layout"]
        lcds = {name: layout[f"{name}_lcd"] for name in CELLS}
        x = (lcds["voltmeter"][0] + lcds["ammeter"][0]) / 2
        y = lcds["voltmeter"][1] - 0.09
        target = env.ik([x, y, lcds["voltmeter"][2] + VIEW_HEIGHT], HAND)
        env._arm.set_configuration(env._world.data, np.array(target["joints"]), gripper_open=True)
        env._world.data.ctrl[env._arm_actuators] = target["joints"]
        env.wait(1.0)
        seen = env.observe()
        image = np.asarray(Image.open(io.BytesIO(seen["images"]["wrist"])).convert("RGB"))
        robot = seen["robot"]
        camera = Camera.wrist(env.calibration(), robot["hand_position"], robot["hand_quaternion"])
        observation = env.instrument_log.observations[seen["observation_id"]]
        for name, cells in CELLS.items():
            corners = window_corners(tuple(lcds[name]), (1, 0, 0), (0, 1, 0), *layout["lcd_window_size"])
            text = read_display(image, project(corners, camera), cells)
            assert float(text) == observation.shown[name]
            assert any(v.readable for v in observation.views_of(name))
    finally:
        env.close()


def test_the_card_publishes_the_voltmeter_input_resistance() -> None:
    card = task_card(SPEC, draw(SPEC, SEED))
    assert "the voltmeter's input resistance (`voltmeter_resistance`): 1e+07 ohm" in card


def press(env: LabEnv, key: str) -> None:
    body = env._model.body(f"key_{key}").id
    env._world.data.xfrc_applied[body, 2] = -4.0
    env.wait(0.3)
    env._world.data.xfrc_applied[body, 2] = 0.0
    env.wait(0.3)


def test_the_rec_key_records_both_meters_and_exported_rows_are_evidence(env: LabEnv) -> None:
    seat(env)
    power(env, True)
    board(env).setting = 2
    env.wait(1.0)
    press(env, "rec")
    assert board(env).recording() == {"logger"}
    env.wait(2.0)
    board(env).setting = 6
    env.wait(2.0)
    press(env, "rec")
    assert board(env).recording() == set()
    exported = env.export("logger", "sweep.csv")
    lines = exported["csv"].splitlines()
    assert lines[0] == "time_s,voltmeter,ammeter" and exported["rows"] == len(lines) - 1 >= 16
    times = [float(line.split(",")[0]) for line in lines[1:]]
    assert all(b - a == pytest.approx(0.25) for a, b in itertools.pairwise(times))
    # one row at each setting, late enough that the meters have settled
    rows = [next(i for i, t in enumerate(times) if t > times[0] + 1.5), len(times) - 3]
    citations = []
    for row in rows:
        cells = lines[row + 1].split(",")
        citations += [
            {"file": "sweep.csv", "row": row, "column": "voltmeter", "value": float(cells[1])},
            {"file": "sweep.csv", "row": row, "column": "ammeter", "value": float(cells[2])},
        ]
    shown = float(lines[rows[0] + 2].split(",")[1])
    fabricated = {"file": "sweep.csv", "row": rows[0] + 1, "column": "voltmeter", "value": shown + 0.01}
    power(env, False)
    env.wait(0.5)
    home(env)
    env.submit({"R": env.instance.hidden["R"]}, [*citations, fabricated])
    score, verdicts = env.score()
    assert [v.valid for v in verdicts] == [True, True, True, True, False]
    assert "row" in verdicts[-1].reason and score.milestones["L4"].passed
    assert not score.gates["evidence"].passed  # the fabricated row fails the gate


def test_an_export_is_refused_for_an_unknown_logger_a_path_or_a_reused_name(env: LabEnv) -> None:
    from actloop.suites.lab.env import LabRequestError

    with pytest.raises(LabRequestError, match="no logger 'scope'"):
        env.export("scope", "a.csv")
    for name in ("../a.csv", "a.txt", "/tmp/a.csv", ""):
        with pytest.raises(LabRequestError, match=r"plain \.csv name"):
            env.export("logger", name)
    assert env.export("logger", "a.csv")["rows"] == 0
    with pytest.raises(LabRequestError, match="already exported"):
        env.export("logger", "a.csv")


def test_the_client_writes_an_exported_file_into_its_workspace(tmp_path: Path) -> None:
    import importlib.util

    from actloop.suites.lab.server import serving
    from actloop.suites.lab.workspace_files import write_workspace

    bench = LabEnv("black_box_resistor", SEED, render=False)
    with serving(bench) as server:
        write_workspace(tmp_path, "card", server.url, server.token)
        spec = importlib.util.spec_from_file_location("lab_client", tmp_path / "lab_client.py")
        assert spec is not None and spec.loader is not None
        client = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(client)
        lab = client.Lab()
        written = lab.export("logger", "empty.csv")
        assert written == {"file": str(tmp_path / "empty.csv"), "rows": 0}
        assert (tmp_path / "empty.csv").read_text() == "time_s,voltmeter,ammeter\n"
        with pytest.raises(client.LabError, match="plain"):
            lab.export("logger", "../escape.csv")
        lab.close()
    assert not (tmp_path.parent / "escape.csv").exists()
