"""``actloop annotate``: the server's guards and records (HTTP on 127.0.0.1), then the page in headless
Chromium driven by the keyboard alone."""

from __future__ import annotations

import http.client
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from actloop.cli import main
from actloop.errors import ConfigError
from actloop.suites.vabench.diagnostics.annotate import AnnotationServer
from actloop.suites.vabench.diagnostics.records import (
    CRITERION_ITEMS,
    Judgment,
    append_judgment,
    read_judgments,
    record_path,
)

sys.path.insert(0, str(Path(__file__).parents[2] / "report"))
from report_records import row, write_dir, write_record

UNTRUSTED = '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
EPISODES = [f"grasp_single_cube__seed{seed}__run1__active" for seed in (1, 2, 3)]


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A run of three recorded episodes (two observations, one action each)."""
    directory = write_dir(tmp_path / "run", [row("grasp_single_cube", s, 1, "fail") for s in (1, 2, 3)])
    for seed, name in zip((1, 2, 3), EPISODES, strict=True):
        write_record(directory / "episodes" / name, row("grasp_single_cube", seed, 1, "fail"), 3, UNTRUSTED)
    return directory


@pytest.fixture
def server(run: Path) -> Iterator[AnnotationServer]:
    with AnnotationServer(run, "alice") as served:
        yield served


def request(
    server: AnnotationServer, method: str, path: str, body: Any = None, **headers: str
) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    if method == "POST":
        headers = {"Origin": server.url.rstrip("/"), "Content-Type": "application/json", **headers}
    connection.request(method, path, data, {k.replace("_", "-"): v for k, v in headers.items()})
    response = connection.getresponse()
    status, found, content = response.status, dict(response.getheaders()), response.read()
    connection.close()
    return status, found, content


def post(server: AnnotationServer, body: Any, **headers: str) -> tuple[int, Any]:
    status, _, content = request(server, "POST", "/api/judgments", body, **headers)
    return status, json.loads(content)


def judge(run: Path, rater: str, episode: str, item: str, value: int | None) -> None:
    append_judgment(run, Judgment(rater, "human", episode, item, value))


def test_bad_answers_get_400_and_nothing_is_written(server: AnnotationServer, run: Path) -> None:
    good = {"episode": EPISODES[0], "item": "TL", "value": 1}
    bad = [
        {**good, "item": "XX"},
        {**good, "value": 2},
        {**good, "value": True},
        {**good, "episode": "../results.jsonl"},
        {**good, "episode": "grasp_single_cube__seed9__run1__active"},
        {**good, "rater": "mallory"},
        {**good, "justification": 7},
        {**good, "justification": "x" * 501},
        ["TL", 1],
    ]
    for body in bad:
        status, reply = post(server, body)
        assert status == 400 and reply["error"], body
    assert post(server, b"{not json")[0] == 400
    assert post(server, json.dumps(good).encode(), Content_Type="text/plain")[0] == 400
    assert post(server, b"")[0] == 400
    assert not record_path(run, "human", "alice").exists()


def test_every_malformed_body_gets_400_saying_what_is_wrong(server: AnnotationServer, run: Path) -> None:
    good = {"episode": EPISODES[0], "item": "TL", "value": 1}
    deep = b"[" * 5000 + b"]" * 5000
    for body, problem in [
        (b"{}", "missing field(s) episode, item, value"),
        (b'{"episode": []}', "missing field(s) item, value"),
        ({**good, "episode": []}, "episode is text (an episode record's name), not a JSON array"),
        ({**good, "item": {"TL": 1}}, "unknown item a JSON object"),
        ({**good, "value": 1.0}, "a judgment's value is 0, 1 or null, not 1.0"),
        ({**good, "value": "1"}, "a judgment's value is 0, 1 or null, not '1'"),
        ({"episode": EPISODES[0], "item": "TL"}, "missing field(s) value"),
        (deep, "JSON nested too deeply"),
        (b'{"episode": ' + deep + b', "item": "TL", "value": 1}', "JSON nested too deeply"),
        (b'{"episode": "caf\xe9"}', "the body is not JSON"),
    ]:
        status, reply = post(server, body)
        assert status == 400 and problem in reply["error"], body
    assert not record_path(run, "human", "alice").exists()
    assert post(server, good)[0] == 200  # the server still answers


def test_a_lone_surrogate_in_a_reply_is_served_and_in_a_justification_refused(
    server: AnnotationServer, run: Path
) -> None:
    events = run / "episodes" / EPISODES[0] / "events.jsonl"
    lines = events.read_text().splitlines()
    reply = json.loads(lines[2])
    reply["data"]["text"] = "I see \ud800 a cube"
    events.write_text("\n".join([*lines[:2], json.dumps(reply), *lines[3:]]) + "\n")
    status, _, content = request(server, "GET", f"/api/episodes/{EPISODES[0]}")
    assert status == 200 and "I see \ufffd a cube" in content.decode("utf-8")
    answer = {"episode": EPISODES[0], "item": "TL", "value": 1, "justification": "saw \udfff it"}
    status, refused = post(server, answer)
    assert status == 400 and "lone surrogate" in refused["error"]
    assert not record_path(run, "human", "alice").exists()
    assert request(server, "GET", f"/api/episodes/{EPISODES[0]}")[0] == 200


def test_only_records_inside_the_run_are_served(tmp_path: Path, run: Path) -> None:
    outside = write_record(tmp_path / "outside", row("grasp_single_cube", 7, 1, "fail"))
    (run / "episodes" / "link").symlink_to(outside)
    write_dir(run, [{**row("grasp_single_cube", 7, 1, "fail"), "record_dir": "episodes/link"}], records=False)
    with AnnotationServer(run, "alice") as served:
        assert [e.name for e in served.episodes] == EPISODES
        assert request(served, "GET", "/api/episodes/link")[0] == 404


def test_an_answer_is_appended_at_once_and_the_state_comes_back(server: AnnotationServer, run: Path) -> None:
    status, reply = post(server, {"episode": EPISODES[0], "item": "gate:recovery", "value": 1})
    assert status == 200
    assert reply["state"]["activated"]["ED"] == "own" and "ED" in reply["state"]["required"]
    assert reply["progress"] == {"complete": 0, "total": 3}
    status, reply = post(server, {"episode": EPISODES[0], "item": "TL", "value": 0, "justification": " far "})
    lines = record_path(run, "human", "alice").read_text().splitlines()
    assert [json.loads(line)["item"] for line in lines] == ["gate:recovery", "TL"]
    assert json.loads(lines[1])["justification"] == "far" and reply["state"]["justifications"] == {
        "TL": "far"
    }


def test_only_the_evidence_frames_are_served(server: AnnotationServer, run: Path) -> None:
    frames = f"/frames/{EPISODES[0]}/frames"
    status, headers, content = request(server, "GET", f"{frames}/step001_active.png")
    assert (status, headers["Content-Type"]) == (200, "image/png") and content.startswith(b"\x89PNG")
    outside = run / "secret.png"
    outside.write_bytes(content)
    linked = run / "episodes" / EPISODES[0] / "frames" / "step002_active.png"
    linked.unlink()
    linked.symlink_to(outside)  # a frame the evidence shows, but a link out of the record
    for path in [
        f"/frames/{EPISODES[0]}/events.jsonl",  # the checker's state is in there
        f"/frames/{EPISODES[0]}/result.json",
        f"{frames}/../events.jsonl",
        f"{frames}/%2e%2e/%2e%2e/secret.png",
        f"/frames/{EPISODES[0]}/../../secret.png",
        f"{frames}/step002_active.png",
        f"{frames}/step009_active.png",
        "/frames/nobody/frames/step001_active.png",
        "/frames/..%2Fsecret.png",
        "/api/episodes/nobody",
        "/etc/passwd",
    ]:
        assert request(server, "GET", path)[0] == 404, path


def test_a_record_gone_unreadable_is_a_json_error(server: AnnotationServer, run: Path) -> None:
    (run / "episodes" / EPISODES[2] / "events.jsonl").unlink()
    status, _, content = request(server, "GET", f"/api/episodes/{EPISODES[2]}")
    assert status == 500 and "events.jsonl" in json.loads(content)["error"]


def test_a_foreign_host_or_origin_is_refused(server: AnnotationServer, run: Path) -> None:
    answer = {"episode": EPISODES[0], "item": "TL", "value": 1}
    assert request(server, "GET", "/api/episodes", Host=f"attacker.example:{server.port}")[0] == 403
    assert request(server, "GET", "/", Host="127.0.0.1:1")[0] == 403
    assert post(server, answer, Origin="http://attacker.example")[0] == 403
    assert post(server, answer, Origin="null")[0] == 403
    assert post(server, answer, Host=f"attacker.example:{server.port}")[0] == 403
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("POST", "/api/judgments", json.dumps(answer), {"Content-Type": "application/json"})
    assert connection.getresponse().status == 403  # no Origin at all
    connection.close()
    assert not record_path(run, "human", "alice").exists()
    assert request(server, "GET", "/api/episodes", Host=f"localhost:{server.port}")[0] == 200


def test_the_page_has_a_strict_policy_with_its_nonce(server: AnnotationServer) -> None:
    status, headers, content = request(server, "GET", "/")
    policy = headers["Content-Security-Policy"]
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert status == 200 and "default-src 'none'" in policy and "connect-src 'self'" in policy
    assert f'<script nonce="{nonce}">' in content.decode() and "frame-ancestors 'none'" in policy


def test_a_reopened_page_gets_the_previous_answers(run: Path) -> None:
    judge(run, "alice", EPISODES[1], "gate:ambiguity", 0)
    judge(run, "alice", EPISODES[1], "gate:recovery", 0)
    for code in ("TL", "SR", "MS", "MP", "FG"):
        judge(run, "alice", EPISODES[1], code, 1)
    judge(run, "alice", EPISODES[1], "MP", 0)  # changed: the latest line counts
    judge(run, "alice", EPISODES[2], "TL", 1)
    judge(run, "alice", EPISODES[2], "TL", None)  # withdrawn
    with AnnotationServer(run, "alice") as server:
        _, _, content = request(server, "GET", "/api/episodes")
        listing = json.loads(content)
        assert [(e["complete"], e["answered"], e["required"]) for e in listing["episodes"]] == [
            (False, 0, 7),
            (True, 7, 7),
            (False, 0, 7),
        ]
        assert listing["progress"] == {"complete": 1, "total": 3}
        _, _, content = request(server, "GET", f"/api/episodes/{EPISODES[1]}")
        episode = json.loads(content)
        assert episode["state"]["answers"]["MP"] == 0 and episode["state"]["activated"]["ED"] is None
        assert episode["signals"][0]["name"] == "refused_actions"
        assert "evaluation" not in json.dumps(episode["evidence"])  # the checker's state stays hidden


def test_the_majority_gate_activates_criteria_for_an_annotator_who_said_no(run: Path) -> None:
    judge(run, "bob", EPISODES[0], "gate:recovery", 1)
    judge(run, "bob", EPISODES[0], "ED", 0)  # another annotator's criterion answer is never shown
    judge(run, "alice", EPISODES[0], "gate:recovery", 0)
    with AnnotationServer(run, "alice") as server:
        state = json.loads(request(server, "GET", f"/api/episodes/{EPISODES[0]}")[2])["state"]
        assert state["gates"]["gate:recovery"] == 0 and state["activated"]["ED"] is None  # 1 of 2: no
        judge(run, "carol", EPISODES[0], "gate:recovery", 1)  # while the server runs
        for _ in range(50):
            state = json.loads(request(server, "GET", f"/api/episodes/{EPISODES[0]}")[2])["state"]
            if state["activated"]["ED"] is not None:
                break
            time.sleep(0.1)
        assert state["activated"] == {
            **dict.fromkeys(("TL", "SR", "MS", "MP", "FG"), "always"),
            "AE": None,
            **dict.fromkeys(("ED", "OC", "PF"), "majority"),
        }
        assert state["answers"] == {"gate:recovery": 0} and "ED" in state["required"]


def test_one_server_per_annotator_and_run(run: Path, server: AnnotationServer) -> None:
    with pytest.raises(ConfigError, match="already serving alice"):
        AnnotationServer(run, "alice")
    AnnotationServer(run, "bob").close()


def test_an_annotator_name_is_letters_digits_and_dot_dash_underscore(
    run: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def stop(self: AnnotationServer) -> None:
        raise KeyboardInterrupt  # a name that is accepted ends the command at once (exit 0)

    monkeypatch.setattr(AnnotationServer, "serve_forever", stop)
    for name in ("alice\n", "al ice", "-alice", "a" * 65, "alïce"):
        assert main(["annotate", str(run), f"--annotator={name}", "--no-browser"]) == 2, name
        assert "error: a rater's name is 1-64 ASCII letters" in capsys.readouterr().out
    assert not (run / "diagnostics" / "human").exists() or not list((run / "diagnostics" / "human").iterdir())


def test_the_command_refuses_what_it_cannot_serve(tmp_path: Path, run: Path) -> None:
    assert main(["annotate", str(tmp_path), "--annotator", "alice", "--no-browser"]) == 2  # not a run
    assert main(["annotate", str(run), "--annotator", "../alice", "--no-browser"]) == 2
    empty = write_dir(tmp_path / "empty", [row("grasp_single_cube", 1, 1, "fail")], records=False)
    assert main(["annotate", str(empty), "--annotator", "alice", "--no-browser"]) == 2


def test_annotating_three_episodes_with_the_keyboard(browser: Any, run: Path) -> None:
    """Every answer by shortcut, a reload half-way through the second episode, a failed save shown; the
    record then holds every individual judgment in order and the page counts three complete episodes."""
    judge(run, "bob", EPISODES[0], "gate:recovery", 1)
    judge(run, "carol", EPISODES[0], "gate:recovery", 1)
    given: list[tuple[str, str, int | None]] = []
    with AnnotationServer(run, "alice") as server:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        problems: list[str] = []
        page.on("pageerror", lambda err: problems.append(str(err)))
        page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)

        def ready() -> None:
            page.wait_for_selector("body[data-ready='1']")

        def focused() -> str:
            return str(page.get_attribute(".question.focused", "data-item"))

        def press(key: str, episode: int) -> None:
            item = focused()
            page.keyboard.press(key)
            given.append((EPISODES[episode], item, {"y": 1, "n": 0, "x": None}[key]))
            page.wait_for_function(
                "(item) => document.getElementById('save-status').className === 'saved'"
                " && document.getElementById('save-status').textContent.startsWith('saved ' + item)",
                arg=item,
            )

        def questions() -> list[str]:
            return [str(q) for q in page.eval_on_selector_all(".question", "n => n.map(q => q.dataset.item)")]

        page.goto(server.url)
        ready()
        assert "grasp_single_cube · seed 1" in (page.text_content("#title") or "")
        assert page.evaluate("window.__pwned") is None and UNTRUSTED in (page.text_content("#actions") or "")
        page.keyboard.press("]")
        assert page.text_content("#step-number") == "1"
        page.wait_for_function("() => document.querySelector('#frames img').complete")  # loaded, or failed to
        assert page.evaluate("document.querySelector('#frames img').naturalWidth") == 16
        page.keyboard.press("?")
        assert page.is_visible("#help") and "Shift+n" in (page.text_content("#help") or "")
        page.keyboard.press("Escape")

        # episode 1: ambiguity no, recovery no; ED/OC/PF stay, activated by bob's and carol's gates
        assert focused() == "gate:ambiguity"
        press("n", 0)
        press("n", 0)
        assert questions() == [
            "gate:ambiguity",
            "gate:recovery",
            "TL",
            "SR",
            "MS",
            "MP",
            "FG",
            "ED",
            "OC",
            "PF",
        ]
        assert page.locator(".question[data-item='ED'] .tag").text_content() == (
            "activated by the majority of annotators"
        )
        page.keyboard.press("e")
        page.keyboard.type("the cube stays in view")
        page.keyboard.press("Enter")  # no answer yet: kept and saved with the answer
        for key in "yyynyyyn":
            press(key, 0)
        assert page.is_visible("#complete") and page.text_content("#progress-text") == (
            "1 / 3 episodes fully labelled"
        )

        # episode 2: a failed save is shown, then half of it, a reload, the rest
        page.keyboard.press("N")
        page.wait_for_function("() => document.getElementById('title').textContent.startsWith('2 / 3')")
        page.route("**/api/judgments", lambda route: route.fulfill(status=500, body='{"error": "disk full"}'))
        page.keyboard.press("y")
        page.wait_for_function("() => document.getElementById('save-status').className === 'failed'")
        assert "disk full" in (page.text_content("#save-status") or "")
        assert page.text_content(".question[data-item='gate:ambiguity'] .state") == "not saved: disk full"
        page.unroute("**/api/judgments")
        page.keyboard.press("k")
        assert focused() == "gate:ambiguity"
        press("y", 1)
        press("y", 1)
        for key in "yyy":
            press(key, 1)
        page.reload()
        ready()
        assert "2 / 3" in (page.text_content("#title") or "")
        assert focused() == "MS"  # the first open question
        for key in "ynyyyy":
            press(key, 1)

        # episode 3: change an earlier answer with k, withdraw one with x and answer it again
        page.keyboard.press("N")
        page.wait_for_function("() => document.getElementById('title').textContent.startsWith('3 / 3')")
        for key in "nynnn":  # the gates, then TL, SR, MS
            press(key, 2)
        for key in ("k", "ArrowUp", "k"):
            page.keyboard.press(key)
        assert focused() == "TL"
        press("y", 2)
        assert focused() == "MP"  # the next open question
        page.keyboard.press("k")
        press("x", 2)
        assert focused() == "MS" and not page.is_visible("#complete")
        page.keyboard.press("j")
        page.keyboard.press("ArrowUp")
        for key in "yyyyyy":  # MS again, then MP, FG, ED, OC, PF
            press(key, 2)
        page.wait_for_function(
            "() => document.getElementById('progress-text').textContent === '3 / 3 episodes fully labelled'"
        )
        assert problems and all("status of 500" in problem for problem in problems)  # the failed save
        page.close()

    found = read_judgments(run)
    mine = [(j.episode, j.item, j.value) for j in found.judgments if j.rater == "alice"]
    assert mine == given and found.problems == []
    assert next(j for j in found.judgments if j.item == "TL").justification == "the cube stays in view"
    answers = found.current()[("human", "alice", 0)]
    assert set(answers[EPISODES[0]]) == {"gate:ambiguity", "gate:recovery", *CRITERION_ITEMS} - {"AE"}
    assert len(answers[EPISODES[1]]) == 11 and len(answers[EPISODES[2]]) == 10
    assert (answers[EPISODES[2]]["TL"], answers[EPISODES[2]]["SR"], answers[EPISODES[2]]["MS"]) == (1, 0, 1)
