"""The Inspect scorer: 1 if the suite's checker reported success at the end of the episode."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from actloop.agent.solver import RESULT_KEY


@scorer(metrics=[accuracy(), stderr()])
def episode_scorer() -> Scorer:
    """Score the episode result stored by :func:`~actloop.agent.solver.episode_solver`."""

    async def score(state: TaskState, target: Target) -> Score:
        row = state.store.get(RESULT_KEY)
        if row is None:
            return Score(value=0, explanation="no episode result: the episode did not finish")
        parts = [f"stop_reason: {row['stop_reason']}"]
        # suites' own fields, where the suite has them (vabench: failed conditions, the paper's verdict)
        if row.get("failed_conditions"):
            parts.append("failed conditions: " + ", ".join(row["failed_conditions"]))
        if "paper_success" in row:
            parts.append(f"paper-literal verdict: {'success' if row['paper_success'] else 'failure'}")
        if row.get("stop_stage"):
            parts.append(f"stopped at: {row['stop_stage']}")
        if row["error"]:
            parts.append(f"error: {row['error']}")
        return Score(
            value=1 if row["success"] else 0,
            answer=row["stop_reason"],
            explanation="; ".join(parts),
            metadata={k: row[k] for k in ("paper_success", "e", "process_score") if k in row},
        )

    return score
