"""The scoring of #3 (coupled oscillators): a careful run, the spectrum's peak bins missing on the same log,
gates, milestones, the tolerance's edges, a hand left on a glider, and the T2 skills on the track's
controls.

Test scaffolding stands in for the agent's hands: glider A is displaced by setting the exact state, the
logger started by setting it, and the robot's touch of a glider by the track's contact watch answering so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.coupled_oscillators import SPEC, CoupledOscillatorsEvaluator
from actloop.suites.lab.platforms.air_track import AirTrack
from actloop.suites.lab.reference.coupled_oscillators import COLUMNS, TrackOperator, rows_of
from actloop.suites.lab.reference.modes import fit_modes, spectral_peaks, undamped
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills
from scoring_scaffold import succeeds_on_tolerance

KEY = "coupled_oscillators"
Citation = dict[str, object]
Rows = list[dict[str, float]]


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 2, render=False)
    yield bench
    bench.close()


def track(env: LabEnv) -> AirTrack:
    assert isinstance(env.platform, AirTrack)
    return env.platform


def watcher(env: LabEnv) -> CoupledOscillatorsEvaluator:
    assert isinstance(env.evaluator, CoupledOscillatorsEvaluator)
    return env.evaluator


def swing(env: LabEnv, tmp_path: Path, seconds: float, state: list[float] | None = None) -> Rows:
    """Glider A let go 4 cm left of its rest (or the gliders set to ``state``), the logger on for
    ``seconds``; the log exported."""
    track(env).state = state or [-0.04, 0.0, 0.0, 0.0]
    track(env).logging = True
    watcher(env).acted = True
    env.wait(seconds)
    text = env.export("logger", "log.csv")["csv"]
    (tmp_path / "log.csv").write_text(text)
    return rows_of(text)


def cite(rows: Rows, seconds: float = 45.0, every: int = 12) -> tuple[list[Citation], dict[str, float]]:
    """Every ``every``-th row of the first ``seconds`` (both columns), and the modes fitted to them."""
    inside = [i for i, r in enumerate(rows) if r["time_s"] <= rows[0]["time_s"] + seconds][::every]
    citations: list[Citation] = [
        {"file": "log.csv", "row": i, "column": c, "value": rows[i][c]} for i in inside for c in COLUMNS
    ]
    fitted = fit_modes([rows[i]["time_s"] for i in inside], *([rows[i][c] for i in inside] for c in COLUMNS))
    return citations, {"omega_1": undamped(fitted[0]), "omega_2": undamped(fitted[1])}


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv, tmp_path: Path) -> None:
    citations, answer = cite(swing(env, tmp_path, 46.0))
    env.submit(answer, citations)
    result, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts if not v.valid][:3]
    assert result.success and result.process_score == 100, (result.gates, result.milestones)
    assert max(result.errors.values()) <= 0.1, result.errors


def test_the_spectrums_peak_bins_miss_on_the_same_log(env: LabEnv, tmp_path: Path) -> None:
    rows = swing(env, tmp_path, 40.0)
    t = np.array([r["time_s"] for r in rows])
    y = np.array([[r[c] for c in COLUMNS] for r in rows])
    naive = spectral_peaks(t, y, pad=1)
    truth = watcher(env).targets()
    misses = [abs(w / truth[k] - 1) for w, k in zip(naive, ("omega_1", "omega_2"), strict=True)]
    assert max(misses) > 0.002, misses


def test_a_position_logged_while_the_robot_touched_a_glider_fails_the_condition_gate(
    env: LabEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = track(env)
    glider = next(iter(bench._glider_geoms))
    monkeypatch.setattr(bench._contacts, "touched", lambda data: {glider})
    bench.logging = True
    env.wait(0.5)
    monkeypatch.undo()
    rows = swing(env, tmp_path, 46.0, [-0.04, 0.0, 0.0, 0.0])
    free = [i for i, r in enumerate(rows) if r["time_s"] > 0.6]
    citations, answer = cite([rows[i] for i in free])
    citations = [{**c, "row": free[int(c["row"])]} for c in citations]  # type: ignore[call-overload]
    citations.append({"file": "log.csv", "row": 10, "column": "position_b", "value": rows[10]["position_b"]})
    env.submit(answer, citations)
    result, verdicts = env.score()
    assert not result.gates["conditions"].passed and not result.success
    assert "gliders free did not hold" in verdicts[-1].reason and verdicts[-2].valid


def test_a_fabricated_row_fails_the_evidence_gate(env: LabEnv, tmp_path: Path) -> None:
    citations, answer = cite(swing(env, tmp_path, 46.0))
    citations[7] = {**citations[7], "value": float(citations[7]["value"]) + 0.05}  # type: ignore[arg-type]
    env.submit(answer, citations)
    result, _ = env.score()
    assert not result.gates["evidence"].passed and not result.success


def test_l4_names_the_short_span_of_cited_rows(env: LabEnv, tmp_path: Path) -> None:
    citations, answer = cite(swing(env, tmp_path, 46.0), seconds=30.0)
    env.submit(answer, citations)
    result, _ = env.score()
    assert not result.milestones["L4"].passed and "40 s are needed" in result.milestones["L4"].evidence
    assert result.milestones["L2"].passed and result.milestones["L3"].passed


def test_one_mode_alone_does_not_reach_l2(env: LabEnv, tmp_path: Path) -> None:
    """Let go in the first mode's shape, the second stays below 1 mm: no stretch shows both modes."""
    (_, ratio), _ = track(env).motion.shapes()
    swing(env, tmp_path, 41.0, [-0.04, -0.04 * ratio, 0.0, 0.0])
    env.submit({"omega_1": 1.0, "omega_2": 2.0}, [])
    result, _ = env.score()
    assert not result.milestones["L2"].passed and "never moved free with both modes" in (
        result.milestones["L2"].evidence
    )


@pytest.mark.parametrize(
    ("omega_1", "omega_2", "passes"),
    [(1.0019, 0.9981, True), (0.9981, 1.0019, True), (1.0021, 1.0, False), (1.0, 0.9979, False)],
)
def test_each_mode_is_scored_within_a_fifth_of_a_percent(
    omega_1: float, omega_2: float, passes: bool
) -> None:
    truth = {"omega_1": 7.0, "omega_2": 9.5}
    judged = succeeds_on_tolerance(
        {"omega_1": 7.0 * omega_1, "omega_2": 9.5 * omega_2}, truth, SPEC.quantities
    )
    assert judged is passes


def test_t2_skills_press_log_and_slide_a_glider_and_a_glider_held_at_submission_fails_the_restore() -> None:
    env = LabEnv(KEY, 1, level="T2")
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        skills.press(lab, "log_key")
        skills.slide(lab, "glider_a", [-1.0, 0.0, 0.0], 0.03)
        lab.wait(0.5)
        after = server.run(
            lambda: {"log": track(env).logging, "modes": list(watcher(env).stretches[-1].modes)}
        )
        TrackOperator(lab).hold(1)  # fingers closed round glider_b's handle at submission
        lab.submit({"omega_1": 1.0, "omega_2": 2.0}, [])
        lab.close()
    result, _ = env.score()
    env.close()
    assert after["log"] and sum(after["modes"]) == pytest.approx(0.03, abs=0.01)
    assert (
        not result.gates["restored"].passed
        and "touching glider_b_handle" in result.gates["restored"].evidence
    )
