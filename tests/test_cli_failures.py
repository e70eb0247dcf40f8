"""Mistakes a user makes on the command line get a clear one-line error and exit 2, before any episode."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from actloop.cli import main, parser
from actloop.cli.common import model_args
from actloop.cli.run import plan_from
from actloop.runs.layout import CONDITION_FILE, output_lock

TASK = ["--tasks", "grasp_single_cube", "--seeds", "1"]
NEITHER = "the decisions file is neither a JSON list nor JSON Lines"


def _stop_file(tmp_path: Path) -> Path:
    path = tmp_path / "stop.json"
    path.write_text(json.dumps([{"stop": True, "reason": "done"}]))
    return path


def _run(out: Path, *extra: str, model: str = "actloop/replay", decisions: Path | None = None) -> list[str]:
    argv = ["run", *TASK, "--model", model, "--out", str(out), *extra]
    return argv + (["-M", f"decisions={decisions}"] if decisions else [])


@pytest.mark.parametrize(
    ("model", "unset", "missing"),
    [
        ("openai/gpt-4o", ["OPENAI_API_KEY", "AZUREAI_OPENAI_API_KEY"], "OPENAI_API_KEY"),
        ("anthropic/claude-sonnet-4-5", ["ANTHROPIC_API_KEY"], "ANTHROPIC_API_KEY"),
        ("openai-api/local/some-model", ["LOCAL_BASE_URL"], "LOCAL_BASE_URL"),
    ],
)
def test_a_missing_provider_variable_is_named_before_any_episode(
    model: str,
    unset: list[str],
    missing: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in unset:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOCAL_API_KEY", "dummy")
    assert main(_run(tmp_path / "out", model=model)) == 2
    out = capsys.readouterr().out
    assert f"error: model {model}" in out and missing in out
    assert not (tmp_path / "out").exists()


def test_model_arguments_are_read_as_yaml_scalars() -> None:
    args = model_args(["responses_api=false", "n=3", "t=0.5", "path=runs/a.json", "empty=", "x=[1, 2]"])
    assert args == {
        "responses_api": False,
        "n": 3,
        "t": 0.5,
        "path": "runs/a.json",
        "empty": None,
        "x": "[1, 2]",
    }


def test_zero_workers_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(_run(tmp_path, "--workers", "0"))
    assert exit_.value.code == 2
    assert "--workers: must be at least 1" in capsys.readouterr().err


def test_every_environment_call_has_a_deadline_stated_in_the_help(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--env-timeout SECONDS how long one environment call (build, reset, step) may take" in help_text
    default = help_text.split("(default: the suite's, ", 1)[1].split(")", 1)[0]
    assert {"lab 3900 s", "vabench 300 s"} <= set(default.split(", "))
    args = parser().parse_args(_run(tmp_path, "--env-timeout", "2.5"))
    assert plan_from(args).env_timeout == 2.5
    assert plan_from(parser().parse_args(_run(tmp_path))).env_timeout is None  # the suite's default


def test_another_condition_in_the_same_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, stop = tmp_path / "out", _stop_file(tmp_path)
    assert main(_run(out, decisions=stop)) == 0
    recorded = json.loads((out / CONDITION_FILE).read_text())
    assert (recorded["model"], recorded["protocol"], recorded["summary"]) == (
        "actloop/replay",
        "active",
        "none",
    )
    capsys.readouterr()
    assert main(_run(out, "--protocol", "passive", decisions=stop)) == 2
    assert "holds the results of another condition (protocol: 'active' there, 'passive' now)" in (
        " ".join(capsys.readouterr().out.split())  # undo the console's line wrapping
    )
    assert main(_run(out, "--temperature", "0.3", decisions=stop)) == 2  # generation settings count too
    assert main(_run(out, decisions=stop)) == 0  # the same condition resumes
    assert "1 episode(s) already recorded" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "cannot read the decisions file {path}: No such file or directory"),
        ("dir", "cannot read the decisions file {path}: Is a directory"),
        ('{"stop": true}\n{"stop": tr\n', f"{NEITHER}: {{path}}:2: unreadable line"),
        (b"\xff\n", f"{NEITHER}: {{path}}:1: unreadable line"),
    ],
)
def test_an_unreadable_decisions_file_is_an_error_line(
    content: str | bytes | None, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "decisions.jsonl"
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    assert main(_run(tmp_path / "out", decisions=path)) == 2
    printed = " ".join(capsys.readouterr().out.split())
    assert printed.startswith(f"error: {problem.format(path=path)}") and "Traceback" not in printed
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"model": "actloop/re', "it is unreadable (Unterminated string"),
        ("[1, 2]\n", "it holds list, not a JSON object"),
    ],
)
def test_a_torn_or_foreign_condition_file_is_an_error_line(
    content: str, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, stop = tmp_path / "out", _stop_file(tmp_path)
    assert main(_run(out, decisions=stop)) == 0
    (out / CONDITION_FILE).write_text(content)
    capsys.readouterr()
    assert main(_run(out, decisions=stop)) == 2
    printed = " ".join(capsys.readouterr().out.split())
    assert f"error: {out / CONDITION_FILE} records which condition the directory holds, but {problem}" in (
        printed
    )
    assert "delete it to have the directory judged by its result rows" in printed
    (out / CONDITION_FILE).unlink()
    assert main(_run(out, decisions=stop)) == 0  # judged by its rows, then recorded again
    assert json.loads((out / CONDITION_FILE).read_text())["model"] == "actloop/replay"


def test_a_matrix_and_a_single_condition_never_share_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    single, matrix, stop = tmp_path / "single", tmp_path / "matrix", _stop_file(tmp_path)
    assert main(_run(single, "--workers", "1", decisions=stop)) == 0
    assert main(_run(matrix, "--workers", "1", "--protocol", "active,passive", decisions=stop)) == 0
    capsys.readouterr()
    assert main(_run(single, "--protocol", "active,passive", decisions=stop)) == 2
    assert main(_run(matrix, "--protocol", "passive", decisions=stop)) == 2
    printed = [" ".join(line.split()) for line in capsys.readouterr().out.split("error: ")[1:]]
    assert printed[0].startswith(
        f"{single} holds the results of one condition (actloop/replay (active)): a run matrix needs a "
        "directory of its own; choose another --out"
    )
    conditions = "actloop__replay__active__none, actloop__replay__passive__none"
    assert printed[1].startswith(
        f"{matrix} holds a run matrix ({conditions}): run this condition into "
        f"{matrix / 'actloop__replay__passive__none'}, or give the matrix's values to resume it"
    )
    assert (
        not (single / "actloop__replay__passive__none").exists() and not (matrix / "results.jsonl").exists()
    )


def test_a_directory_from_before_condition_files_is_judged_by_its_rows(tmp_path: Path) -> None:
    out, stop = tmp_path / "out", _stop_file(tmp_path)
    assert main(_run(out, decisions=stop)) == 0
    (out / CONDITION_FILE).unlink()
    assert main(_run(out, "--protocol", "passive", decisions=stop)) == 2
    assert main(_run(out, decisions=stop)) == 0


def test_a_second_run_on_the_same_directory_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    with output_lock(out):
        assert main(_run(out, decisions=_stop_file(tmp_path))) == 2
    assert "another actloop run is writing to" in capsys.readouterr().out
    assert not (out / "results.jsonl").exists()


def test_an_unwritable_output_directory_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(_run(blocker / "out", decisions=_stop_file(tmp_path))) == 2
    assert "cannot write to the output directory" in capsys.readouterr().out


def test_an_unreachable_ray_address_fails_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    assert main(_run(tmp_path / "out", "--ray", f"127.0.0.1:{port}", decisions=_stop_file(tmp_path))) == 2
    assert time.monotonic() - started < 30
    assert f"cannot reach the Ray cluster at 127.0.0.1:{port}" in " ".join(capsys.readouterr().out.split())


def test_a_user_mistake_is_one_line_and_a_bug_keeps_its_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tasks", "--suite", "nope"]) == 2
    printed = capsys.readouterr().out.strip()
    assert printed.startswith("error: unknown suite 'nope'; installed suites: ") and "vabench" in printed
    assert "\n" not in printed

    def broken(*args: object) -> list[str]:
        raise KeyError("an internal bug")

    monkeypatch.setattr("actloop.suites.vabench.suite.VABench.task_names", broken)
    with pytest.raises(KeyError, match="an internal bug"):
        main(["tasks", "--suite", "vabench"])
