"""``actloop lab serve``: the workspace an agent starts from, a real connection, and the scored record."""

from __future__ import annotations

import importlib.util
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from actloop.suites.lab.experiments.hookes_law import SPEC
from actloop.suites.lab.instance import draw
from actloop.suites.lab.record import Record


def _serve(workspace: Path) -> subprocess.Popen[str]:
    """``lab serve`` of hookes_law seed 4 into ``workspace``, once the workspace is written."""
    command = [
        sys.executable,
        "-m",
        "actloop.cli",
        "lab",
        "serve",
        "--experiment",
        "hookes_law",
        "--seed",
        "4",
    ]
    server = subprocess.Popen(
        [*command, "--workspace", str(workspace)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while not (workspace / "lab.json").exists() and time.monotonic() < deadline and server.poll() is None:
        time.sleep(0.2)
    return server


def test_serve_writes_the_workspace_serves_the_bench_and_scores_the_submission(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    server = _serve(workspace)
    try:
        assert sorted(p.name for p in workspace.iterdir()) == [
            "README.md",
            "card.md",
            "lab.json",
            "lab_client.py",
        ]
        hidden = draw(SPEC, 4).hidden
        for path in workspace.iterdir():
            text = path.read_text()
            numbers = set(re.findall(r"-?\d+\.\d+", text))
            for value in hidden.values():
                assert not any(f"{value:.{d}g}" in numbers for d in range(3, 9)), path.name  # 3+ significant
        spec = importlib.util.spec_from_file_location("agent_client", workspace / "lab_client.py")
        assert spec is not None and spec.loader is not None
        client = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(client)
        lab = client.Lab()  # from lab.json beside the client, as an agent would
        seen = lab.observe()
        lab.submit(
            {"k": 30.0}, [{"observation_id": seen["observation_id"], "instrument": "ruler", "value": 1.0}]
        )
        lab.close()
        out, _ = server.communicate(timeout=60)
    finally:
        server.kill()
    assert server.returncode == 1  # a wrong answer with a fabricated reading
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["success"] is False and summary["stop_stage"] == "act"
    assert summary["failure_cause"] == "acting: motion"  # the robot never moved
    record_dir = tmp_path / "ws.record"
    scored = json.loads((record_dir / "score.json").read_text())
    assert scored["score"]["gate_evidence"] is False
    Record.load(record_dir / "record.jsonl").verify()


def test_sigterm_ends_serve_as_ctrl_c_does_with_the_record_and_the_score(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    server = _serve(workspace)
    try:
        server.send_signal(signal.SIGTERM)
        out, err = server.communicate(timeout=60)
    finally:
        server.kill()
    assert "stopped before a submission" in out, err
    assert json.loads(out.strip().splitlines()[-1])["success"] is False
    record_dir = tmp_path / "ws.record"
    assert (record_dir / "score.json").exists() and (record_dir / "record.jsonl").stat().st_size > 0
