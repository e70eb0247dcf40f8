"""The private instance set: drawn under a key only the evaluator holds, which never reaches the agent; and
noise keyed by the experiment as well as the seed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from actloop.cli import main
from actloop.core.suite import get_suite
from actloop.errors import ConfigError
from actloop.suites.lab import manifests
from actloop.suites.lab.experiments import experiment, experiment_keys
from actloop.suites.lab.instance import INSTANCE_KEY_ENV, INSTANCE_KEY_FILE_ENV, InstanceKey, draw
from actloop.suites.lab.physics.noise import seeded_normal
from actloop.suites.lab.sandbox import Sandbox, agent_python_dir

SECRET = "lab-test-instance-key-7c1e9d04b2"


def test_the_same_seed_gives_other_values_under_a_key_and_the_public_set_is_unchanged() -> None:
    key, other = InstanceKey(SECRET.encode()), InstanceKey(b"another-key-of-enough-bytes")
    for name in experiment_keys():
        spec = experiment(name).spec
        public, private, elsewhere = draw(spec, 1), draw(spec, 1, key), draw(spec, 1, other)
        assert public.instance_set == "public" and private.instance_set == "private"
        assert private.key_fingerprint == key.fingerprint != elsewhere.key_fingerprint
        for parameter in spec.hidden:
            assert public.hidden[parameter.name] != private.hidden[parameter.name], (name, parameter.name)
            assert private.hidden[parameter.name] != elsewhere.hidden[parameter.name], (name, parameter.name)
        assert draw(spec, 1, key) == private  # the same key draws the same instance again
        assert len({public.instance_id, private.instance_id, elsewhere.instance_id}) == 3
        manifest = manifests.load(name)
        assert manifest.instance_set == "public" and manifest.key_fingerprint is None
        released = manifest.instances[0]  # the public set keeps its released draws
        assert draw(spec, int(released["seed"])).instance_id == released["instance_id"]


def test_a_key_shows_only_its_fingerprint_and_short_or_doubled_keys_are_refused(tmp_path: Path) -> None:
    key = InstanceKey(SECRET.encode())
    assert SECRET not in repr(key) and key.fingerprint in repr(key) and len(key.fingerprint) == 12
    assert SECRET not in key.noise_key("hookes_law", 1)
    with pytest.raises(ConfigError, match="at least 16 bytes"):
        InstanceKey(b"short")
    path = tmp_path / "key"
    path.write_text(SECRET + "\n")
    assert InstanceKey.from_environment({INSTANCE_KEY_FILE_ENV: str(path)}) == key
    assert InstanceKey.from_environment({INSTANCE_KEY_ENV: SECRET}) == key
    assert InstanceKey.from_environment({}) is None
    with pytest.raises(ConfigError, match="not both"):
        InstanceKey.from_environment({INSTANCE_KEY_ENV: SECRET, INSTANCE_KEY_FILE_ENV: str(path)})
    with pytest.raises(ConfigError, match="cannot read the instance key file"):
        InstanceKey.from_file(tmp_path / "missing")


def test_noise_differs_between_experiments_on_one_seed_and_between_sets() -> None:
    key = InstanceKey(SECRET.encode())
    hooke, box = (draw(experiment(name).spec, 3) for name in ("hookes_law", "black_box_resistor"))
    private = draw(experiment("hookes_law").spec, 3, key)
    assert len({hooke.noise_key, box.noise_key, private.noise_key}) == 3
    draws = {
        instance.noise_key: [seeded_normal(instance.noise_key, "meter/display", k) for k in range(5)]
        for instance in (hooke, box, private)
    }
    assert len({tuple(values) for values in draws.values()}) == 3
    with pytest.raises(ValueError, match="no '/'"):
        seeded_normal("a/b", "meter/display", 0)


def test_the_check_follows_the_key_and_refuses_a_manifest_of_the_other_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = InstanceKey(SECRET.encode())
    spec = experiment("lens_focal_length").spec
    entries = [{"seed": s, "instance_id": draw(spec, s, key).instance_id} for s in (1, 2, 3)]
    private = manifests.InstanceManifest(
        "lens_focal_length", entries, instance_set="private", key_fingerprint=key.fingerprint
    )
    private.save(tmp_path)
    monkeypatch.setenv(INSTANCE_KEY_ENV, SECRET)
    suite = get_suite("lab")
    assert suite.check_seeds("lens_focal_length", tmp_path).problems == []
    assert manifests.manifest_dir(key) == manifests.PRIVATE_MANIFEST_ROOT / key.fingerprint
    (problem,) = suite.check_seeds("lens_focal_length", manifests.MANIFEST_DIR).problems
    assert "public set" in problem and key.fingerprint in problem
    with pytest.raises(ConfigError, match="never go into the package"):
        suite.screen_seeds("lens_focal_length", manifests.MANIFEST_DIR)
    monkeypatch.delenv(INSTANCE_KEY_ENV)
    key_file = tmp_path / "key"
    key_file.write_text(SECRET)
    command = ["verify-instances", "--suite", "lab", "--task", "lens_focal_length", "--check", "--ids-only"]
    try:
        assert main([*command, "--instance-key-file", str(key_file), "--out", str(tmp_path)]) == 0
        assert os.environ[INSTANCE_KEY_FILE_ENV] == str(key_file.resolve())
    finally:
        os.environ.pop(INSTANCE_KEY_FILE_ENV, None)  # the option put it in this process's environment


def test_no_response_workspace_file_card_or_sandboxed_environment_holds_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from actloop.suites.lab.episode import served_episode
    from actloop.suites.lab.workspace_files import load_client

    monkeypatch.setenv(INSTANCE_KEY_ENV, SECRET)
    key = InstanceKey(SECRET.encode())
    noise_secret = key.noise_key("black_box_resistor", 3).rsplit(":", 1)[1]
    workspace = tmp_path / "workspace"
    with served_episode("black_box_resistor", 3, workspace, out=tmp_path / "record") as episode:
        instance = episode.env.instance
        assert instance.instance_set == "private" and instance.key_fingerprint == key.fingerprint
        assert instance.hidden != draw(experiment("black_box_resistor").spec, 3).hidden
        lab = load_client().Lab(episode.server.url, episode.server.token)
        responses: list[object] = [lab.state(), lab.calibration(), lab.wait(0.5)]
        seen = lab.observe()
        seen.pop("images")
        responses += [seen, lab.submit({"R": 100.0}, [])]
        lab.close()
        episode.finish(tmp_path / "record")
    files = [p.read_text(errors="replace") for p in workspace.rglob("*") if p.is_file()]
    text = json.dumps(responses) + "".join(files)
    for secret in (SECRET, SECRET.encode().hex(), noise_secret):
        assert secret not in text
    for name, value in instance.hidden.items():
        assert repr(value) not in text, name
    if not (shutil.which("bwrap") and (agent_python_dir() / ".complete").exists()):
        pytest.skip("no sandbox here: run scripts/setup-lab-sandbox.sh")
    box = Sandbox(workspace, agent_python_dir())
    code = "import os; print(repr(dict(os.environ)))"
    ran = subprocess.run(box.command(["python", "-c", code]), capture_output=True, text=True, env=os.environ)
    assert ran.returncode == 0, ran.stderr
    assert SECRET not in ran.stdout and INSTANCE_KEY_ENV not in ran.stdout


def test_run_agent_refuses_to_pass_the_key_into_the_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(INSTANCE_KEY_ENV, SECRET)
    command = ["lab", "run-agent", "--experiment", "hookes_law", "--seed", "1"]
    workspace = ["--workspace", str(tmp_path / "workspace"), "--pass-env", INSTANCE_KEY_ENV, "--", "true"]
    try:
        code = main([*command, *workspace])
    except ConfigError as err:
        message = str(err)
    else:
        assert code != 0
        message = capsys.readouterr().out
    assert "holds the instance key" in message and SECRET not in message
    assert not (tmp_path / "workspace").exists()
