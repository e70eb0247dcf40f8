"""The circuit board's kit: its published layout is the scene's, and carries nothing hidden; its part texts
follow its constants."""

from __future__ import annotations

import numpy as np
import pytest

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.platforms import circuit_board
from actloop.suites.lab.platforms.circuit_board import BOX_HALF, DISPLAY_SIZE_M, KEYS, CircuitBoard
from actloop.suites.lab.platforms.display import FACE_DEPTH_M


@pytest.fixture(scope="module")
def env() -> LabEnv:
    bench = LabEnv("black_box_resistor", 1, render=False)
    yield bench
    bench.close()


def test_the_published_layout_is_where_the_scene_has_it(env: LabEnv) -> None:
    layout = env.calibration()["layout"]
    model, data = env.model, env.data
    board = env.platform
    assert isinstance(board, CircuitBoard)

    def body(name: str) -> np.ndarray:
        return model.body(name).pos

    def key_top(name: str) -> float:
        return float(data.geom(name).xpos[2] + model.geom(name).size[1])  # a cylinder: radius, half height

    for socket in board.sockets:
        assert np.allclose(layout[socket.name], body(socket.name), atol=1e-9)
    for box in board.boxes:
        assert np.allclose(layout[f"{box.name}_pad"][:2], body(box.name)[:2], atol=1e-9)
        assert layout[f"{box.name}_pad"][2] == pytest.approx(TABLE_TOP_Z, abs=1e-9)
    assert np.allclose(layout["rocker"], body("rocker"), atol=1e-9)
    for key in KEYS:
        assert np.allclose(layout[f"key_{key}"][:2], data.geom(f"key_{key}").xpos[:2], atol=1e-9)
        assert layout[f"key_{key}"][2] == pytest.approx(key_top(f"key_{key}"), abs=1e-9)
    for meter in board.meters:
        lcd = data.geom(meter.face.geom).xpos
        assert np.allclose(
            layout[f"{meter.spec.name}_lcd"], [lcd[0], lcd[1], lcd[2] + FACE_DEPTH_M], atol=1e-9
        )
    assert layout["box_size"] == pytest.approx([2 * h for h in BOX_HALF])
    assert layout["lcd_window_size"] == pytest.approx(list(DISPLAY_SIZE_M))


def test_part_texts_follow_the_kit_constants(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "from 0 to 10 V in steps of 1 V" in circuit_board.supply_part().function
    assert (
        "from 0 to 5 V in steps of 0.5 V" in circuit_board.supply_part([0.5 * i for i in range(11)]).function
    )
    assert "four rows a second" in circuit_board.logger_part("both meters").function
    monkeypatch.setattr(circuit_board, "LOGGER_HZ", 2.5)
    assert "of both meters, 2.5 rows a second" in circuit_board.logger_part("both meters").function
