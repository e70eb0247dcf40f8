"""``actloop lab check``: every built experiment passes its cheap checks (a new one is covered as soon as its
module exists), a copy leaking a hidden value into its card fails with the reason, the hidden-value scanner
finds a value in its usual spellings and nothing on clean cards, and ``actloop lab card`` prints the card
the workspace holds."""

from __future__ import annotations

import dataclasses

import pytest

from actloop.cli import main
from actloop.suites.lab.card import task_card
from actloop.suites.lab.check import (
    QUICK_AUDIT_INSTANCES,
    QUICK_SKIPS,
    Served,
    calibration_constants,
    check,
    check_citations,
    check_served,
    check_spec,
)
from actloop.suites.lab.episode import served_episode
from actloop.suites.lab.experiments import experiment, experiment_keys, unreleased
from actloop.suites.lab.instance import draw
from actloop.suites.lab.leaks import find_leaks, significant_digits
from actloop.suites.lab.workspace_files import CARD
from catalog_scaffold import SPARE, spare_row

R = 1467.7431322177658
K = 42.73467115520869


@pytest.mark.parametrize("key", experiment_keys())
def test_every_built_experiment_passes_the_cheap_checks(key: str) -> None:
    outcomes = check(key, 1, skip=QUICK_SKIPS, audit_designs=QUICK_AUDIT_INSTANCES)
    assert [o.name for o in outcomes] == ["spec", "card", "idle", "served", "citations", "audit"]
    assert all(o.passed for o in outcomes), "\n".join(o.line() for o in outcomes)


def test_a_copy_leaking_a_hidden_value_into_a_part_fails_the_card_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    built = experiment("hookes_law")
    spec = dataclasses.replace(built.spec, key="leaky_spring")
    k = draw(spec, 2).hidden["k"]  # the draw is keyed by experiment, seed and parameter: parts do not move it
    parts = tuple(
        dataclasses.replace(p, function=f"{p.function}; about {k:.4g} N/m stiff") if p.name == "spring" else p
        for p in spec.parts
    )
    leaky = dataclasses.replace(built, spec=dataclasses.replace(spec, parts=parts))
    with unreleased(leaky):
        assert main(["lab", "check", "leaky_spring", "--seed", "2", "--quick"]) == 1
    lines = capsys.readouterr().out.splitlines()
    card = next(line for line in lines if " card " in line)
    assert card.split()[0] == "FAIL"
    assert f"k = {k!r} written as {k:.4g}" in card and "stiff" in card
    assert "FAIL spec       table 6 (catalog.py) has no row 'leaky_spring'" in lines[1]


def test_a_spec_that_strays_from_its_table_6_row_fails_naming_the_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = experiment("air_track_collision")
    stray = dataclasses.replace(built, spec=dataclasses.replace(built.spec, key=spare_row(monkeypatch)))
    with unreleased(stray):
        outcome = check_spec(SPARE, 1)
    assert not outcome.passed
    assert (
        "differs from table 6 in number: spec 6, table 31;" in outcome.fact and "quantities:" in outcome.fact
    )
    assert check_spec("hookes_law", 1).passed


def test_an_experiment_not_built_fails_once_saying_so(monkeypatch: pytest.MonkeyPatch) -> None:
    (outcome,) = check(spare_row(monkeypatch), 1, skip=QUICK_SKIPS)
    assert not outcome.passed and "catalogued but not built yet" in outcome.fact


def test_a_hidden_value_in_an_answer_or_a_workspace_file_fails_the_served_check() -> None:
    clean = Served({"state": '{"joints": [0.1, 1.2345]}'}, {"card.md": "# card"}, [], {"k": K})
    assert check_served(clean).passed
    in_answer = Served(
        {**clean.answers, "wait": '{"extension_mm": 42.735}'}, clean.workspace_files, [], {"k": K}
    )
    assert "the wait answer leaks k" in check_served(in_answer).fact and not check_served(in_answer).passed
    in_file = Served(clean.answers, {"log.csv": f"time_s,k\n0.0,{K}\n"}, [], {"k": K})
    assert "workspace file log.csv leaks k" in check_served(in_file).fact


def test_a_bench_constant_a_hidden_value_rounds_to_passes_only_in_the_calibration() -> None:
    """A camera 1.25 m high is written so in every instance's calibration; a hidden 1.2457 rounds to it by
    chance. Written in any other answer, the same number is still a leak."""
    hidden = {"offset": 1.2457010804308606}
    calibration = '{"front": {"position": [0.85, 0.15, 1.25]}}'
    coincidence = Served({"calibration": calibration}, {}, [], hidden, frozenset({"0.85", "0.15", "1.25"}))
    assert check_served(coincidence).passed
    assert not check_served(dataclasses.replace(coincidence, constants=frozenset())).passed
    elsewhere = dataclasses.replace(coincidence, answers={"wait": '{"offset": 1.25}'})
    assert "the wait answer leaks offset" in check_served(elsewhere).fact
    assert calibration_constants("hookes_law", 1) >= {"1.25", "0.85"}  # from seed 2's calibration


def test_an_accepted_fabricated_citation_fails_the_citations_check() -> None:
    refused = [(False, "observation x was never served"), (False, "value 987654.321 was never shown")]
    assert check_citations(Served({}, {}, refused, {})).passed
    accepted = [refused[0], (True, "matches what ruler showed")]
    assert not check_citations(Served({}, {}, accepted, {})).passed


def test_the_scanner_finds_a_hidden_value_in_its_usual_spellings() -> None:
    hidden = {"R": R, "k": K}
    spellings = {
        f"R = {R!r} ohm": ("R", 1.0),
        "R is 1.468 kΩ": ("R", 1e-3),
        "R = 1467.74 Ω": ("R", 1.0),
        "about 1.4677e3 ohm": ("R", 1.0),
        "k = 42.7 N/m": ("k", 1.0),
        "k = 0.042735 kN/m": ("k", 1e-3),
        "stiffness 42735 mN/m": ("k", 1e3),
        "k=4.2735e+01": ("k", 1.0),
        "[-42.73, 3]": ("k", 1.0),
    }
    for text, (name, scale) in spellings.items():
        leaks = find_leaks(text, hidden)
        assert [(leak.name, leak.scale) for leak in leaks] == [(name, scale)], text


def test_the_scanner_passes_over_short_numbers_words_and_near_misses() -> None:
    hidden = {"R": R, "k": K, "offset": 0.002014379003285529}
    clean = [
        "a 43 N/m spring, 1.5 kΩ, 2 mm",  # two significant digits say too little
        "k = 42.8 N/m, R = 1466 ohm, 1.469 kΩ",  # near, but not the value rounded
        "token a1467e7431 and 0x42734 and id 3f9a01c2-1467",  # inside words and hex strings
        "2000 samples, 0.0020 s",  # trailing zeros of a whole number are no digits; 0.0020 has two
        "hash 123e512abc, 123e-999",  # out of range both ways
    ]
    for text in clean:
        assert find_leaks(text, hidden) == [], text
    assert find_leaks("an offset of 2.01 mm", hidden)[0].name == "offset"
    assert [significant_digits(m) for m in ("0.00201", "2000", "2000.", "20.10", "0.0020")] == [3, 1, 4, 4, 2]


@pytest.mark.parametrize("key", experiment_keys())
def test_no_clean_card_of_a_built_experiment_is_taken_for_a_leak(key: str) -> None:
    built = experiment(key)
    for seed in range(1, 21):
        instance = draw(built.spec, seed)
        platform = built.platform(instance)
        card = task_card(built.spec, instance, platform.instruments(), platform.loggers())
        assert find_leaks(card, instance.hidden) == [], seed


def test_the_card_command_prints_the_workspaces_card(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lab", "card", "thermistor_b", "--seed", "4", "--level", "T1"]) == 0
    printed = capsys.readouterr().out
    with served_episode("thermistor_b", 4, tmp_path / "workspace", None, "T1"):
        assert printed == (tmp_path / "workspace" / CARD).read_text()
    assert printed.startswith("# ") and "`B`" in printed
