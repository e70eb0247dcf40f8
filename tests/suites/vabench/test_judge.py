"""``actloop judge``: an LLM judge labels a run's episodes on the rubric through Inspect's real OpenAI
provider against a loopback fake, with bounded repairs and retries, a log, resumption, and requests that
show the model-facing frames but never the checker's state."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from actloop.cli import main
from actloop.errors import ConfigError
from actloop.suites.vabench.diagnostics.judge import log_path, rater_name
from actloop.suites.vabench.diagnostics.judge_evidence import episode_content
from actloop.suites.vabench.diagnostics.judge_prompt import (
    JudgeAnswer,
    gate_item,
    is_complete,
    parse_answer,
    system_prompt,
)
from actloop.suites.vabench.diagnostics.records import ITEMS, read_judgments, record_path
from actloop.suites.vabench.diagnostics.rubric import CRITERIA, RUBRIC_VERSION, rubric_document
from fake_providers import USAGE_IN, USAGE_OUT, FakeProviders, serve

sys.path.insert(0, str(Path(__file__).parents[2] / "report"))
from report_records import row, write_dir, write_record

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
MODEL = "openai/gpt-4o-mini"
RATER = "openai-gpt-4o-mini"
GRASP = "grasp_single_cube__seed1__run1__active"
PLACE = "place_single_cube__seed2__run1__active"
SECRETS = ("SECRET_CONDITION", "SECRET_METRIC", "SECRET_CHECKPOINT", "SECRET_FAILED")
"""Checker state planted in the records (the evaluation after each action, the failed conditions)."""


@pytest.fixture(autouse=True)
def loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "dummy-key")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def answer(ambiguity: int = 1, recovery: int = 1, value: int = 1, **changes: Any) -> str:
    """A valid judge reply (criteria gated off are null), with ``changes`` to single items."""
    values: dict[str, Any] = {"gate:ambiguity": ambiguity, "gate:recovery": recovery}
    for c in CRITERIA:
        gate = gate_item(c)
        values[c.code] = None if gate is not None and values[gate] == 0 else value
    values.update(changes)
    return json.dumps(
        {item: {"value": v, "justification": f"{item} seen at step 1."} for item, v in values.items()}
    )


def make_run(directory: Path, rows: list[dict[str, Any]] | None = None) -> Path:
    """A synthetic run of two episodes whose records hold planted checker state."""
    rows = rows or [row("grasp_single_cube", 1, 1, "fail"), row("place_single_cube", 2, 1, "success")]
    for data in rows:
        data["failed_conditions"] = ["SECRET_FAILED"]
        data["checkpoints"] = {"SECRET_CHECKPOINT": True}
    write_dir(directory, rows)
    for data in rows:
        events = directory / data["record_dir"] / "events.jsonl"
        text = (
            events.read_text()
            .replace("lifted_gt_50mm", "SECRET_CONDITION")
            .replace("lift_mm", "SECRET_METRIC")
        )
        events.write_text(text.replace('"approached"', '"SECRET_CHECKPOINT"'))
    return directory


def judge(server: FakeProviders, run: Path, *extra: str, model: str = MODEL) -> int:
    return main(
        [
            "judge",
            str(run),
            "--model",
            model,
            "--model-base-url",
            server.base_url,
            "-M",
            "responses_api=false",
            "-M",
            "max_retries=0",  # the SDK's own retries off: every request reaches the judge's bounds
            "--backoff",
            "0.01",
            "--max-connections",
            "1",
            *extra,
        ]
    )


def log_lines(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log_path(run, RATER).read_text().splitlines()]


def user_texts(body: dict[str, Any]) -> list[str]:
    """The text of every user message of a Chat Completions request."""
    texts = []
    for message in body["messages"]:
        if message["role"] == "user":
            content = message["content"]
            parts = [content] if isinstance(content, str) else [p.get("text", "") for p in content]
            texts.append("\n".join(parts))
    return texts


def test_three_votes_become_judgments_and_the_log_holds_model_and_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(tmp_path / "run")
    replies: list[str | int] = [answer(value=1), answer(recovery=0, value=0), answer(ambiguity=0, TL=0)]
    with serve(replies * 2) as server:
        code = judge(server, run)
    assert code == 0 and len(server.requests) == 6
    found = read_judgments(run)
    assert found.problems == []
    current = found.current()
    assert sorted(current) == [("judge", RATER, v) for v in range(3)]
    for episode in (GRASP, PLACE):
        assert current[("judge", RATER, 0)][episode] == dict.fromkeys(ITEMS, 1)
        assert current[("judge", RATER, 1)][episode] == {
            "gate:ambiguity": 1, "gate:recovery": 0, "TL": 0, "AE": 0, "SR": 0, "MS": 0, "MP": 0, "FG": 0,
        }  # fmt: skip
        assert current[("judge", RATER, 2)][episode]["TL"] == 0
        assert "AE" not in current[("judge", RATER, 2)][episode]  # its gate is 0: NA
    notes = found.justifications()[("judge", RATER, 0)][GRASP]
    assert notes["FG"] == "FG seen at step 1."
    assert {j.kind for j in found.judgments} == {"judge"}
    assert [p.name for p in (run / "diagnostics" / "judge").iterdir()] == [f"{RATER}.jsonl"]
    lines = log_lines(run)
    assert [line["episode"] for line in lines] == [GRASP, PLACE]
    for line in lines:
        assert line["ok"] and line["model"] == MODEL and line["rater"] == RATER
        assert (
            line["tokens"]["input_tokens"] == 3 * USAGE_IN
            and line["tokens"]["output_tokens"] == 3 * USAGE_OUT
        )
        assert [v["vote"] for v in line["votes"]] == [0, 1, 2] and line["rubric_version"] == RUBRIC_VERSION
    assert "judged 2, already complete 0, failed 0" in capsys.readouterr().out


def test_a_malformed_reply_is_repaired_saying_what_was_wrong(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    with serve(["I think the robot did well.", answer()]) as server:
        assert judge(server, run, "--votes", "1", "--episodes", "grasp*") == 0
    assert len(server.requests) == 2
    repair = server.requests[1][1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": "I think the robot did well."}
    assert "not accepted" in repair[-1]["content"] and "JSON" in repair[-1]["content"]
    (line,) = log_lines(run)
    assert line["ok"] and line["votes"][0]["repairs"] == 1 and line["votes"][0]["model_calls"] == 2
    assert read_judgments(run).current()[("judge", RATER, 0)][GRASP]["TL"] == 1


def test_an_answer_against_its_gate_is_repaired(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    inconsistent = answer(recovery=0, ED=1)  # ED judged although no error was observed
    with serve([inconsistent, answer(recovery=0)]) as server:
        assert judge(server, run, "--votes", "1", "--episodes", "grasp*") == 0
    repair = server.requests[1][1]["messages"][-1]["content"]
    assert "ED: answered 1 although gate:recovery is 0" in repair
    answers = read_judgments(run).current()[("judge", RATER, 0)][GRASP]
    assert answers["gate:recovery"] == 0 and "ED" not in answers


def test_a_rate_limit_is_retried_after_a_backoff(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    with serve([429, 429, answer()]) as server:
        assert judge(server, run, "--votes", "1", "--episodes", "grasp*") == 0
    assert len(server.requests) == 3
    (line,) = log_lines(run)
    assert line["ok"] and line["votes"][0]["retries"] == 2 and line["votes"][0]["repairs"] == 0


def test_an_episode_without_a_valid_answer_is_recorded_as_failed_and_the_exit_code_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(tmp_path / "run")
    with serve(["{}", "{}", "{}", answer()]) as server:
        code = judge(server, run, "--votes", "1")
    assert code == 1
    grasp, place = log_lines(run)
    assert not grasp["ok"] and "no valid answer after 2 repair(s)" in grasp["reason"]
    assert "missing key(s): gate:ambiguity" in grasp["reason"]
    assert place["ok"]
    current = read_judgments(run).current()[("judge", RATER, 0)]
    assert GRASP not in current and PLACE in current
    out = capsys.readouterr().out
    assert f"failed {GRASP}: vote 0: no valid answer" in out and "1 episode(s) failed" in out


def test_a_provider_that_stays_down_fails_the_episode_after_bounded_retries(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    with serve([500] * 3 + [answer()] * 3) as server:
        code = judge(server, run, "--votes", "2", "--max-retries", "2")
    assert code == 1
    grasp, place = log_lines(run)
    assert "provider failure" in grasp["reason"] and "HTTP 500" in grasp["reason"]
    assert grasp["votes"][0]["retries"] == 2 and grasp["votes"][1]["reason"].startswith(
        "not run after vote 0"
    )
    assert place["ok"] and len(server.requests) == 3 + 2


def test_a_configuration_failure_stops_the_run_at_once(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    with serve([401] * 10) as server:
        assert judge(server, run) == 1
    assert len(server.requests) == 1
    grasp, place = log_lines(run)
    assert "HTTP 401" in grasp["reason"] and grasp["votes"][1]["reason"].startswith("not run after vote 0")
    assert place["reason"].startswith("vote 0: not run: ") and "HTTP 401" in place["reason"]


def test_rerunning_asks_only_for_votes_not_yet_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(tmp_path / "run")
    with serve([answer()] * 10) as server:
        assert judge(server, run, "--episodes", "grasp*") == 0
        assert len(server.requests) == 3
        assert judge(server, run, "--votes", "3") == 0  # the grasp episode is complete
        assert len(server.requests) == 6
        assert judge(server, run, "--votes", "4") == 0  # one more vote of each
        assert len(server.requests) == 8
        assert judge(server, run, "--votes", "4") == 0
        assert len(server.requests) == 8
    out = capsys.readouterr().out
    assert "judged 1, already complete 1, failed 0" in out and "judged 0, already complete 2, failed 0" in out
    assert [line["episode"] for line in log_lines(run)] == [GRASP, PLACE, GRASP, PLACE]
    assert log_lines(run)[-1]["votes"][0]["vote"] == 3


def test_requests_show_the_rubric_and_frames_and_never_the_checker_state(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    with serve([answer()] * 2) as server:
        assert judge(server, run, "--votes", "1") == 0
    for index, (_, body) in enumerate(server.requests):
        text = json.dumps(body)
        assert not [s for s in SECRETS if s in text]
        assert body["messages"][0] == {"role": "system", "content": system_prompt()}
        assert (
            json.dumps(rubric_document(), indent=1) in body["messages"][0]["content"]
        )  # as annotators see it
        images = [p["image_url"]["url"] for p in body["messages"][1]["content"] if p["type"] == "image_url"]
        record = run / "episodes" / (GRASP, PLACE)[index]
        frames = sorted((record / "frames").iterdir())
        assert len(images) == len(frames) == 2
        assert images[0] == episode_content(record).content[1].model_dump()["image"]
        (shown,) = user_texts(body)
        assert "Instruction: Pick up the red cube." in shown and "step: 1" in shown
        action = '{"action":"gripper.move_world","axis":"z","sign":"-","distance_mm":20} -> dispatched: true'
        assert (
            f"Action {action}; valid: true; planner success: true; planner reason: motion executed" in shown
        )
        assert (
            shown.count('"reason": "move closer"') == 1 and "Terminal outcome" in shown
        )  # in the reply only
        assert '"gc":[0.1,0.2,0.9]' in shown  # the proprioception after the action


def test_episodes_are_judged_concurrently_up_to_the_limit(tmp_path: Path) -> None:
    rows = [row("grasp_single_cube", seed, 1, "fail") for seed in range(1, 6)]
    run = make_run(tmp_path / "run", rows)
    guard, flight = threading.Lock(), {"now": 0, "most": 0}

    def slow(path: str, body: dict[str, Any]) -> str:
        with guard:
            flight["now"] += 1
            flight["most"] = max(flight["most"], flight["now"])
        time.sleep(0.2)
        with guard:
            flight["now"] -= 1
        return answer()

    with serve([], slow) as server:
        # Inspect keeps one connection limit per model name and process: a name of its own
        assert judge(server, run, "--votes", "1", "--max-connections", "2", model="openai/concurrent") == 0
    assert len(server.requests) == 5 and flight["most"] == 2


def test_an_episode_glob_that_matches_nothing_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_run(tmp_path / "run")
    with serve([]) as server:
        assert judge(server, run, "--episodes", "lift_pot*") == 2
    assert "no episode of" in capsys.readouterr().out and server.requests == []


def test_many_frames_are_subsampled_evenly_and_the_omitted_ones_named(tmp_path: Path) -> None:
    data = row("place_single_cube", 3, 1, "fail")
    record = write_record(tmp_path / data["record_dir"], data, steps=10)
    (record / "frames" / "step004_active.png").unlink()  # a frame missing from the record is said so
    content = episode_content(record, max_frames=4)
    images = [p for p in content.content if p.type == "image"]
    assert content.frames_total == 9 and len(images) == 4 and content.frames_sent == 4
    assert content.omitted == [f"step {s} view active" for s in (1, 2, 5, 7, 8)]
    text = "\n".join(p.text for p in content.content if p.type == "text")
    assert "Left out: step 1 view active, step 2 view active" in text
    assert "[image: step 4 view active, missing from the record]" in text
    assert "[image: step 5 view active, left out of this request]" in text
    assert "[image: step 9 view active]" in text


def test_a_frame_linked_out_of_the_record_and_a_cut_off_line_are_never_sent(tmp_path: Path) -> None:
    data = row("place_single_cube", 3, 1, "fail")
    record = write_record(tmp_path / "run" / data["record_dir"], data, steps=3)
    secret = tmp_path / "secret.png"
    secret.write_bytes((record / "frames" / "step001_active.png").read_bytes())
    (record / "frames" / "step001_active.png").unlink()
    (record / "frames" / "step001_active.png").symlink_to(secret)
    with (record / "events.jsonl").open("a") as events:
        events.write('{"type": "env_step", "da')
    content = episode_content(record)
    text = "\n".join(p.text for p in content.content if p.type == "text")
    assert content.frames_total == 2 and "[image: step 1 view active, missing from the record]" in text
    assert "(1 unreadable line(s) of the record are left out.)" in text


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("no json here", "no JSON object"),
        (answer(extra=1), "unknown key(s): extra"),
        (json.dumps({k: v for k, v in json.loads(answer()).items() if k != "MP"}), "missing key(s): MP"),
        (answer(TL=2), "TL: value must be 0, 1 or null, not 2"),
        (answer(TL=True), "TL: value must be 0, 1 or null, not true"),
        (answer(SR=1.0), "SR: value must be 0, 1 or null, not 1.0"),
        (answer(FG=None), "FG: it applies to every episode"),
        (answer(ambiguity=0, AE=0), "AE: answered 0 although gate:ambiguity is 0"),
        (answer(PF=None), "PF: null although gate:recovery is 1"),
        (answer(**{"gate:recovery": None}), "gate:recovery: a gate is 0 or 1, not null"),
        (
            answer().replace('"TL seen at step 1."', '" "'),
            "TL: the justification must be a non-empty sentence",
        ),
        (answer().replace('{"value": 1, "justification": "MS seen at step 1."}', "1"), "MS: expected {"),
    ],
)
def test_the_parser_names_what_is_wrong(reply: str, problem: str) -> None:
    problems = parse_answer(reply)
    assert isinstance(problems, list) and any(problem in p for p in problems), problems


def test_a_valid_answer_in_a_fence_parses_and_gated_criteria_are_na() -> None:
    parsed = parse_answer(f"Here is my judgment:\n```json\n{answer(ambiguity=0, recovery=0, value=0)}\n```")
    assert isinstance(parsed, JudgeAnswer)
    assert parsed.values["AE"] is None and parsed.values["PF"] is None and parsed.values["FG"] == 0
    assert parsed.justifications["gate:recovery"] == "gate:recovery seen at step 1."
    answered = {k: v for k, v in parsed.values.items() if v is not None}
    assert is_complete(answered) and not is_complete({**answered, "gate:recovery": 1})


def test_the_rater_name_is_derived_from_the_model_string() -> None:
    assert rater_name(MODEL) == RATER and rater_name("ollama/llama3.2:3b") == "ollama-llama3.2-3b"
    assert record_path(Path("r"), "judge", RATER) == Path("r/diagnostics/judge/openai-gpt-4o-mini.jsonl")
    assert log_path(Path("r"), RATER) == Path("r/diagnostics/judge-logs/openai-gpt-4o-mini.jsonl")
    with pytest.raises(ConfigError, match="--name"):
        rater_name("//:")
