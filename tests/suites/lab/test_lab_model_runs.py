"""Lab episodes through the evaluation harness: a model over a loopback provider writes programs that run in
the sandboxed workspace, and the reference experimenter runs as ``actloop/lab-reference``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from actloop.suites.lab.experiments.hookes_law import SPEC
from actloop.suites.lab.instance import draw
from actloop.suites.lab.model_driver import extract_program
from actloop.suites.lab.reference_model import experiment_of, workspace_program
from episode_rows import run_json
from fake_providers import serve

LOOK = """```python
from lab_client import Lab
lab = Lab()
seen = lab.observe()
open("show/front.png", "wb").write(seen["images"]["front"])
open("note.txt", "w").write(seen["observation_id"])
print("observed", seen["observation_id"], seen["robot"]["time_s"])
```"""
SUBMIT = """Now I submit.
```python
from lab_client import Lab
lab = Lab()
oid = open("note.txt").read()
print(lab.submit({"k": 30.0}, [{"observation_id": oid, "instrument": "ruler", "value": 99.0}]))
```"""


@pytest.fixture(autouse=True)
def _sandbox_ready() -> None:
    from actloop.suites.lab.sandbox import agent_python_dir

    if not (agent_python_dir() / ".complete").exists():
        pytest.fail(f"the agents' Python ({agent_python_dir()}) is missing: run scripts/setup-lab-sandbox.sh")


def test_a_model_over_a_loopback_provider_gets_a_recorded_scored_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "dummy-key")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with serve([LOOK, SUBMIT]) as provider:
        monkeypatch.setenv("OPENAI_BASE_URL", provider.base_url)
        (row,) = run_json(
            "lab",
            [("hookes_law", 1, 1)],
            "openai/gpt-4o-mini",
            {"responses_api": False},
            tmp_path,
            timeout=60,
        )
    assert (row["success"], row["stop_reason"], row["steps"], row["error"]) == (False, "stop", 2, None)
    assert row["gate_evidence"] is False and "ruler not readable" in row["gate_evidence_evidence"]
    assert row["stop_stage"] != "success" and row["process_score"] < 100 and row["e"] > 1
    second = provider.requests[1][1]["messages"][-1]["content"]
    texts = [part["text"] for part in second if part["type"] == "text"]
    assert any(text.startswith("run 1: exit status 0") and "observed" in text for text in texts)
    assert [part["image_url"]["url"][:22] for part in second if part["type"] == "image_url"] == [
        "data:image/png;base64,"
    ]
    record = tmp_path / row["record_dir"]
    assert (record / "lab_record.jsonl").exists()
    assert json.loads((record / "lab_score.json").read_text())["score"]["gate_evidence"] is False
    assert (record / "frames" / "step001_run1_front.png").exists()
    sent = json.dumps(provider.requests)
    for name, value in draw(SPEC, 1).hidden.items():
        assert repr(value) not in sent and f"{value:.6g}" not in sent, name
    assert "lab_record" not in sent and "score" not in texts[0]


def test_the_reference_model_solves_an_instance_through_the_harness(tmp_path: Path) -> None:
    (row,) = run_json("lab", [("black_box_resistor", 2, 1)], "actloop/lab-reference", {}, tmp_path)
    assert (row["success"], row["stop_reason"], row["process_score"], row["steps"]) == (
        True,
        "success",
        100,
        1,
    )
    assert row["e"] <= 0.5 and row["sim_time_s"] > 0 and row["protocol"] == "T0"


def test_a_program_is_the_first_python_block_with_fences_on_their_own_lines() -> None:
    assert extract_program("text\n```python\nprint(1)\n```\nmore") == "print(1)\n"
    assert extract_program("```py\nx = '```'\n```") == "x = '```'\n"
    assert extract_program("no code here") is None
    assert extract_program("```bash\nls\n```") is None


def test_the_reference_program_is_self_contained() -> None:
    program = workspace_program("hookes_law")
    assert "actloop" not in program
    compile(program, "program.py", "exec")
    assert experiment_of(f"intro\n# {SPEC.title}\n...") == "hookes_law"
