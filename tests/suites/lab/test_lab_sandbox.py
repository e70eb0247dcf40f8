"""The agent's sandbox: nothing of the evaluator is reachable from inside, and ``actloop lab run-agent``
serves, runs, limits and scores an agent's command."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from actloop.errors import ConfigError
from actloop.suites.lab import sandbox as sandbox_module
from actloop.suites.lab import sandbox_namespaces
from actloop.suites.lab.experiments import experiment, experiment_keys
from actloop.suites.lab.instance import draw
from actloop.suites.lab.sandbox import Limits, Sandbox, agent_python_dir


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
    with pytest.raises(ConfigError, match=r"bubblewrap is not installed.*--allow-unsandboxed"):
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
    run = json.loads((record / "run.json").read_text())
    assert run["isolation"] == "bubblewrap" and run["network"] == "none" and run["limits_hit"] == []
    assert run["limits"]["memory_mb"] == 4096


def test_run_agent_refuses_a_workspace_whose_card_is_a_link(agent_python: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    target = tmp_path / "elsewhere.txt"
    target.write_text("not the card\n")
    (workspace / "card.md").symlink_to(target)
    command = [sys.executable, "-m", "actloop.cli", "lab", "run-agent", "--experiment", "hookes_law"]
    command += ["--seed", "1", "--workspace", str(workspace), "--", "true"]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=120)
    said = " ".join((ran.stdout + ran.stderr).split())
    assert ran.returncode != 0 and "card.md is a symbolic link" in said
    assert target.read_text() == "not the card\n"


def test_run_agent_ends_a_run_at_its_wall_clock_limit(agent_python: Path, tmp_path: Path) -> None:
    returncode, summary, _ = _run_agent(tmp_path, "import time\ntime.sleep(60)\n", "--wall-limit-s", "2")
    assert returncode == 1
    assert summary["agent"] == "killed at the wall-clock limit" and summary["stop_stage"] == "act"


ROOT_PROBE = r"""
import ctypes, errno, json, os, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
report = {}
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
report["CapEff"] = status["CapEff"].strip()
report["CapBnd"] = status["CapBnd"].strip()
report["NoNewPrivs"] = status["NoNewPrivs"].strip()
report["session"] = os.getsid(0)  # 0 when its leader lies outside the sandbox's process namespace


def failure(result):
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]


class Handle(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_uint), ("type", ctypes.c_int), ("f", ctypes.c_ubyte * 128)]


handle, mount_id = Handle(bytes=128), ctypes.c_int()
libc.name_to_handle_at(-100, b"/workspace", ctypes.byref(handle), ctypes.byref(mount_id), 0)
directory = os.open("/workspace", os.O_RDONLY)
report["open_by_handle_at"] = failure(libc.open_by_handle_at(directory, ctypes.byref(handle), os.O_RDONLY))
report["mount"] = failure(libc.mount(b"none", b"/workspace", b"tmpfs", 0, None))
report["mknod"] = failure(libc.mknod(b"/workspace/null", 0o20666, os.makedev(1, 3)))
report["unshare_user"] = failure(libc.unshare(0x10000000))
for path in ("/x", "/dev/x"):  # the sandbox's own file system, outside its bounded tmpfs
    try:
        open(path, "wb").close()
        report[path] = "ok"
    except OSError as err:
        report[path] = errno.errorcode[err.errno]
listener = int(sys.argv[1])
probe = socket.socket()
probe.settimeout(2)
report["host_loopback"] = probe.connect_ex(("127.0.0.1", listener))
print(json.dumps(report))
"""


def test_a_root_caller_gives_the_agent_no_power_and_no_host_network(
    agent_python: Path, tmp_path: Path
) -> None:
    """We run as root: inside, the agent has no capability, cannot decode file handles (the host's whole
    file system through the workspace's mount), mount, make devices or a user namespace, and a service on
    the host's 127.0.0.1 is out of reach."""
    assert os.geteuid() == 0, "these checks mean something only for a root caller (as our runs are)"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    (tmp_path / "probe.py").write_text(ROOT_PROBE)
    box = Sandbox(tmp_path, agent_python)
    ran = subprocess.run(
        box.command(["python", "probe.py", str(listener.getsockname()[1])]),
        capture_output=True, text=True, timeout=60, env={},
    )  # fmt: skip
    listener.close()
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    assert report["CapEff"] == report["CapBnd"] == "0000000000000000"
    assert report["NoNewPrivs"] == "1" and report["session"] != 0  # a session of its own
    assert report["open_by_handle_at"] == "EPERM" and report["mount"] == "EPERM"
    assert report["mknod"] == "EPERM" and report["unshare_user"] in ("EPERM", "ENOSPC")
    assert report["/x"] == report["/dev/x"] == "EROFS"
    assert report["host_loopback"] == errno.ECONNREFUSED  # its own loopback, where nothing listens
    assert not (tmp_path / "null").exists()


LIMITED = Limits(memory_mb=200, cpu_s=1, processes=20, file_mb=2, tmp_mb=1, workspace_mb=5)


@pytest.mark.parametrize(
    ("program", "said"),
    [
        ("b = bytearray(400 * 2**20)", "memory limit (200 MB per process) reached"),
        ("while True: pass", "CPU time limit (1 s per process) reached: killed by SIGXCPU"),
        (
            "open('big', 'wb').write(b'x' * 3 * 2**20)",
            "file size limit (2 MB) reached: a write failed (EFBIG)",
        ),
        (
            "with open('/tmp/big', 'wb') as out:\n    out.write(b'x' * 3 * 2**19)",
            "a file system is full (ENOSPC)",
        ),
        (
            "with open('/dev/shm/big', 'wb') as out:\n    out.write(b'x' * 3 * 2**19)",
            "a file system is full (ENOSPC)",
        ),
        (
            "import subprocess\nfor _ in range(40): subprocess.Popen(['sleep', '5'])",
            "process limit (20) reached",
        ),
        (
            "import time\nfor i in range(4): open(f'part{i}', 'wb').write(b'x' * 2 * 2**20)\ntime.sleep(20)",
            "workspace size limit (5 MB) exceeded: the run was stopped",
        ),
    ],
    ids=["memory", "cpu", "file", "tmp", "shm", "processes", "workspace"],
)
def test_each_limit_stops_the_agent_and_the_result_says_which(
    agent_python: Path, tmp_path: Path, program: str, said: str
) -> None:
    ran = Sandbox(tmp_path, agent_python, limits=LIMITED).run(["python", "-c", program], 30)
    if said.startswith("process limit") and ran.not_enforced:
        pytest.skip(f"this host does not let the sandbox limit processes: {ran.not_enforced}")
    assert not ran.timed_out and ran.wall_s < 15
    assert any(hit.startswith(said) for hit in ran.limits_hit), ran.limits_hit
    assert said in ran.ended()


def test_the_limits_are_stated_on_the_card_and_in_the_help() -> None:
    from actloop.suites.lab.card import task_card

    spec = experiment("hookes_law").spec
    assert sandbox_module.sandbox_rule() in task_card(spec, draw(spec, 1))
    helped = subprocess.run(
        [sys.executable, "-m", "actloop.cli", "lab", "run-agent", "--help"], capture_output=True, text=True
    )
    assert " ".join(Limits().text().split()) in " ".join(helped.stdout.split())


def test_model_api_network_has_a_route_out_but_not_the_hosts_services(
    agent_python: Path, tmp_path: Path
) -> None:
    """No traffic leaves the host here: the probe reads its routes and its resolver and tries a service of
    the host on every address the host has (its loopback directly and through slirp4netns's host address,
    and its own addresses)."""
    if not shutil.which("slirp4netns"):
        if os.environ.get("ACTLOOP_REQUIRE_SANDBOX") == "1":
            pytest.fail("slirp4netns is missing: scripts/setup-lab-sandbox.sh")
        pytest.skip("no slirp4netns here")
    listener = socket.socket()
    listener.bind(("0.0.0.0", 0))
    listener.listen()
    port = listener.getsockname()[1]
    hosts = ["127.0.0.1", "10.0.2.2", *sandbox_namespaces.host_addresses()]
    probe = f"""
import json, socket
routes = open("/proc/net/route").read().split("\\n")[1:]
reached = {{}}
for host in {hosts!r}:
    s = socket.socket()
    s.settimeout(2)
    reached[host] = s.connect_ex((host, {port}))
route = any(r.split()[1:2] == ["00000000"] for r in routes if r)
print(json.dumps({{"default_route": route, "reached": reached, "resolver": open("/etc/resolv.conf").read()}}))
"""
    (tmp_path / "probe.py").write_text(probe)
    out = tmp_path / "out.txt"
    with out.open("wb") as stdout:
        ran = Sandbox(tmp_path, agent_python, network="model-api").run(
            ["python", "probe.py"], 30, stdout.fileno()
        )
    listener.close()
    assert ran.returncode == 0 and ran.network == "model-api"
    report = json.loads(out.read_text())
    assert report["default_route"] and report["resolver"] == "nameserver 10.0.2.3\n"
    assert len(report["reached"]) >= 3 and 0 not in report["reached"].values(), report


def test_a_link_where_the_evaluator_writes_is_refused_and_never_followed(tmp_path: Path) -> None:
    from actloop.suites.lab.workspace_files import write_workspace

    host_file = tmp_path / "host.txt"
    host_file.write_text("the host's\n")
    for name in ("card.md", "lab.json", "README.md", "lab_client.py"):
        workspace = tmp_path / name.replace(".", "_")
        workspace.mkdir()
        (workspace / name).symlink_to(host_file)
        with pytest.raises(ConfigError, match=f"{name} is a symbolic link"):
            write_workspace(workspace, "the card", "http://127.0.0.1:1", "token")
        assert host_file.read_text() == "the host's\n"
        assert not (workspace / "lab.json").is_file() or name == "lab.json"  # refused before any write
    hard = tmp_path / "hard"
    hard.mkdir()
    os.link(host_file, hard / "card.md")
    with pytest.raises(ConfigError, match="other hard links"):
        write_workspace(hard, "the card", "http://127.0.0.1:1", "token")
    assert host_file.read_text() == "the host's\n"


def test_a_limit_is_named_when_standard_error_goes_to_a_file(agent_python: Path, tmp_path: Path) -> None:
    """The code tool sends the program's standard error to a file: the limit is read from its end."""
    with (tmp_path / "err.txt").open("wb") as err:
        ran = Sandbox(tmp_path, agent_python, limits=LIMITED).run(
            ["python", "-c", "b = bytearray(400 * 2**20)"], 30, stderr=err.fileno()
        )
    assert ran.limits_hit == ("memory limit (200 MB per process) reached: an allocation failed",)


def _running(marker: str) -> list[int]:
    """The processes whose command line starts with ``marker`` (the agent's own, not a wrapper naming it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().startswith(marker.encode()):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_the_agent_dies_with_the_evaluator(agent_python: Path, tmp_path: Path) -> None:
    marker = f"{os.getpid()}.{time.monotonic_ns() % 10**6}"
    evaluator = subprocess.Popen([sys.executable, "-c", (
        "from pathlib import Path; from actloop.suites.lab.sandbox import Sandbox; "
        f"Sandbox(Path({str(tmp_path)!r}), Path({str(agent_python)!r})).run(['sleep', '{marker}'], 60)"
    )])  # fmt: skip
    deadline = time.monotonic() + 20
    while not _running(f"sleep\0{marker}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _running(f"sleep\0{marker}")
    if not sandbox_namespaces.reaped():  # then bubblewrap alone guards it, from a moment after its start
        time.sleep(1)
    evaluator.kill()
    evaluator.wait()
    deadline = time.monotonic() + 5
    while _running(f"sleep\0{marker}") and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _running(f"sleep\0{marker}")
    assert not left


def test_sigterm_ends_run_agent_with_the_record_and_the_score(agent_python: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    command = [sys.executable, "-m", "actloop.cli", "lab", "run-agent", "--experiment", "hookes_law"]
    command += ["--seed", "1", "--workspace", str(workspace), "--", "sleep", "60"]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (workspace / "lab.json").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=60)
    record = tmp_path / "ws.record"
    assert json.loads((record / "run.json").read_text())["agent"].startswith("stopped by the evaluator"), err
    assert (record / "score.json").exists() and (record / "record.jsonl").exists()


def test_the_code_tool_never_writes_or_reads_through_a_link_the_agent_made(
    agent_python: Path, tmp_path: Path
) -> None:
    from actloop.suites.lab.agent_env import LabAgentEnv

    host_dir = tmp_path / "host"
    host_dir.mkdir()
    (host_dir / "secret.png").write_bytes(b"\x89PNG the host's")
    host_file = tmp_path / "host.py"
    host_file.write_text("the host's\n")
    env = LabAgentEnv("hookes_law", 1)
    try:
        env.reset()
        plant = (
            f"import os; os.symlink({str(host_dir)!r}, 'show'); os.symlink({str(host_file)!r}, 'run_002.py')"
        )
        env.step({"code": "import shutil; shutil.rmtree('show')\n" + plant})
        second = env.step({"code": "print('second')"})
    finally:
        env.close()
    assert second.result.run is not None and second.result.run.stdout == "second\n"
    assert second.result.run.images == [] and (host_dir / "secret.png").exists()
    assert host_file.read_text() == "the host's\n"
