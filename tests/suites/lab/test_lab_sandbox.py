"""The agent's sandbox: nothing of the evaluator is reachable from inside, and ``actloop lab run-agent``
serves, runs, limits and scores an agent's command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from actloop.errors import ConfigError
from actloop.suites.lab import sandbox as sandbox_module
from actloop.suites.lab.experiments import experiment, experiment_keys
from actloop.suites.lab.instance import draw
from actloop.suites.lab.sandbox import Sandbox, agent_python_dir


@pytest.fixture(scope="module")
def agent_python() -> Path:
    """The agents' Python; the sandbox tests need it and bubblewrap (required in ``make test``)."""
    directory = agent_python_dir()
    ready = shutil.which("bwrap") and (directory / ".complete").exists()
    if not ready:
        if os.environ.get("ACTLOOP_REQUIRE_SANDBOX") == "1":
            pytest.fail(
                f"bubblewrap or the agents' Python ({directory}) is missing: scripts/setup-lab-sandbox.sh"
            )
        pytest.skip("no sandbox here: run scripts/setup-lab-sandbox.sh")
    return directory


def _inside(box: Sandbox, code: str) -> subprocess.CompletedProcess[str]:
    command = box.command(["python", "-c", code])
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env={})


def test_inside_the_sandbox_actloop_and_records_are_out_of_reach(agent_python: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "card.md").write_text("the card\n")
    records = tmp_path / "ws.record"
    records.mkdir()
    (records / "record.jsonl").write_text('{"hidden": 1}\n')
    box = Sandbox(workspace, agent_python)
    probe = f"""
import json, os, sys
report = {{"cwd": os.getcwd(), "files": sorted(os.listdir("."))}}
try:
    import actloop
    report["actloop"] = actloop.__file__
except ImportError:
    report["actloop"] = None
report["records"] = os.path.exists({str(records)!r})
report["evaluator_source"] = os.path.exists({str(Path(sandbox_module.__file__).parent)!r})
report["evaluator_python"] = os.path.exists({sys.prefix!r})
report["processes"] = [open(f"/proc/{{p}}/cmdline", "rb").read().decode(errors="replace")
                       for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]
import numpy, scipy, httpx, PIL
print(json.dumps(report))
"""
    ran = _inside(box, probe)
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    assert report["cwd"] == "/workspace" and report["files"] == ["card.md"]
    assert report["actloop"] is None
    assert not report["records"] and not report["evaluator_source"] and not report["evaluator_python"]
    # the only other process in view is the sandbox's own init: no evaluator process, no command line
    assert [cmdline.split("\0")[0] for cmdline in report["processes"]] == ["bwrap"]


def test_an_installed_actloop_under_a_mounted_directory_is_hidden(agent_python: Path, tmp_path: Path) -> None:
    """Even when the agents' Python shares its base installation with the evaluator's, or the host mounts a
    directory holding actloop, the package's own directory is masked."""
    import actloop

    package = Path(actloop.__file__).resolve().parent
    box = Sandbox(tmp_path, agent_python, read_only=(package.parent,))
    ran = _inside(box, f"import os; print(sorted(os.listdir({str(package)!r})))")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"


def test_no_workspace_file_or_environment_variable_holds_a_hidden_value(
    agent_python: Path, tmp_path: Path
) -> None:
    from actloop.suites.lab.card import task_card
    from actloop.suites.lab.workspace_files import write_workspace

    for key in experiment_keys():
        spec = experiment(key).spec
        instance = draw(spec, 3)
        workspace = tmp_path / key
        write_workspace(workspace, task_card(spec, instance), "http://127.0.0.1:1", "token")
        box = Sandbox(workspace, agent_python)
        code = (
            "import os, pathlib; print(repr(dict(os.environ)));"
            "[print(p.read_text()) for p in pathlib.Path('.').rglob('*') if p.is_file()]"
        )
        ran = _inside(box, code)
        assert ran.returncode == 0, ran.stderr
        for name, value in instance.hidden.items():
            for text in (repr(value), f"{value:.6g}", f"{value:.4g}"):
                assert text not in ran.stdout, f"{key}: hidden {name} = {text} readable in the sandbox"
        assert "seed" not in ran.stdout.lower()


def test_without_bubblewrap_nothing_runs_unless_an_unsandboxed_run_is_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sandbox_module.shutil, "which", lambda name: None)
    with pytest.raises(ConfigError, match="bubblewrap is not installed.*--allow-unsandboxed"):
        Sandbox(tmp_path).run(["true"], 30)
    box = Sandbox(tmp_path, Path(sys.base_prefix), allow_unsandboxed=True)
    assert box.command(["python3", "-c", "pass"])[-3:] == ["python3", "-c", "pass"]
    ran = box.run(["python3", "-c", "import os; print(os.environ['HOME'])"], 30)
    assert ran.isolation == "none" and ran.returncode == 0
    out, err = capfd.readouterr()
    assert "WITHOUT a sandbox" in err and out.strip() == str(tmp_path.resolve())


def test_the_wall_clock_limit_kills_the_whole_command(agent_python: Path, tmp_path: Path) -> None:
    ran = Sandbox(tmp_path, agent_python).run(["sh", "-c", "sleep 30 & sleep 30"], 1.0)
    assert ran.timed_out and ran.wall_s < 15


def _run_agent(tmp_path: Path, script: str, *extra: str) -> tuple[int, dict[str, object], str]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "agent.py").write_text(script)
    command = [sys.executable, "-m", "actloop.cli", "lab", "run-agent", "--experiment", "hookes_law"]
    command += ["--seed", "1", "--workspace", str(workspace), *extra, "--", "python", "agent.py"]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=300)
    summary = json.loads([line for line in ran.stdout.splitlines() if line.startswith("{")][-1])
    return ran.returncode, summary, ran.stdout


def test_run_agent_scores_a_wrong_submission_and_names_the_failing_gate(
    agent_python: Path, tmp_path: Path
) -> None:
    script = """
from lab_client import Lab
lab = Lab()
seen = lab.observe()
lab.submit({"k": 30.0}, [{"observation_id": seen["observation_id"], "instrument": "ruler", "value": 123.0}])
"""
    returncode, summary, stdout = _run_agent(tmp_path, script)
    assert returncode == 1
    assert summary["success"] is False and summary["agent"] == "exited with 0"
    assert summary["isolation"] == "bubblewrap"
    assert "failed gate evidence:" in stdout
    record = tmp_path / "ws.record"
    assert (record / "record.jsonl").exists() and json.loads((record / "run.json").read_text())[
        "command"
    ] == [
        "python",
        "agent.py",
    ]
    assert not (tmp_path / "ws" / "record.jsonl").exists()


def test_run_agent_ends_a_run_at_its_wall_clock_limit(agent_python: Path, tmp_path: Path) -> None:
    returncode, summary, _ = _run_agent(tmp_path, "import time\ntime.sleep(60)\n", "--wall-limit-s", "2")
    assert returncode == 1
    assert summary["agent"] == "killed at the wall-clock limit" and summary["stop_stage"] == "act"
