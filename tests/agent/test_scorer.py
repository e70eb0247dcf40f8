"""The Inspect scorer reads any suite's row: the shared fields always, a suite's own fields when present."""

from __future__ import annotations

import asyncio
from typing import Any

from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from actloop.agent.scorer import episode_scorer
from actloop.agent.solver import RESULT_KEY


def _score(row: dict[str, Any] | None) -> Any:
    state = TaskState(model="m/a", sample_id="s", epoch=1, input="episode", messages=[])  # type: ignore[arg-type]
    if row is not None:
        state.store.set(RESULT_KEY, row)
    return asyncio.run(episode_scorer()(state, Target("")))


def test_a_vabench_row_and_a_lab_row_are_both_scored() -> None:
    shared = {"stop_reason": "stop", "error": None}
    vabench = _score({**shared, "success": False, "failed_conditions": ["lifted"], "paper_success": True})
    assert vabench.value == 0 and "failed conditions: lifted" in vabench.explanation
    assert "paper-literal verdict: success" in vabench.explanation and vabench.metadata == {
        "paper_success": True
    }
    lab = _score({**shared, "stop_reason": "success", "success": True, "stop_stage": "success", "e": 0.1,
                  "process_score": 100})  # fmt: skip
    assert lab.value == 1 and "stopped at: success" in lab.explanation
    assert lab.metadata == {"e": 0.1, "process_score": 100}
    assert _score(None).value == 0
