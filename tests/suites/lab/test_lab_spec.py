"""The experiment catalogue, specifications, instances and task cards."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from actloop.suites.lab.card import task_card
from actloop.suites.lab.catalog import CATALOG, PLATFORMS, entry
from actloop.suites.lab.experiments import experiment, experiment_keys
from actloop.suites.lab.experiments.hookes_law import SPEC as HOOKE
from actloop.suites.lab.instance import draw, quantile
from actloop.suites.lab.spec import choice, log_uniform, uniform


def test_the_catalogue_is_table_6() -> None:
    assert [e.number for e in CATALOG] == list(range(1, 31))
    assert len({e.key for e in CATALOG}) == 30
    assert Counter(e.tier for e in CATALOG) == {"basic": 18, "advanced": 12}
    assert Counter(e.dimension for e in CATALOG) == {
        "manipulation": 7,
        "long-horizon": 7,
        "reading": 7,
        "data": 9,
    }
    assert all((e.tier == "advanced") == bool(e.decisions) for e in CATALOG)
    platforms = Counter(e.platform for e in CATALOG)
    assert set(platforms) == set(PLATFORMS) and len(PLATFORMS) == 14
    assert platforms["circuit_board"] == 6 and platforms["optical_rail"] == 5
    assert {e.number for e in CATALOG if e.refit} == {1, 2, 4, 6}
    assert entry("cantilever").quantities[1].tolerance == 0.005
    assert entry("dye_absorptivity").quantities[0].tolerance_text == "1 nm"
    with pytest.raises(KeyError, match="no lab experiment 'nope'"):
        entry("nope")


def test_distributions_map_quantiles_into_their_range() -> None:
    assert uniform(2.0, 4.0).value(0.25) == 2.5
    assert log_uniform(1.0, 100.0).value(0.5) == pytest.approx(10.0, rel=1e-12)
    assert choice(1.0, 2.0, 3.0).value(0.999999) == 3.0 and choice(1.0, 2.0).value(0.0) == 1.0
    for bad in (lambda: uniform(3.0, 3.0), lambda: log_uniform(0.0, 1.0), lambda: choice()):
        with pytest.raises(ValueError):
            bad()


def test_instances_are_seeded_and_parameters_independent() -> None:
    a, b = draw(HOOKE, 1), draw(HOOKE, 2)
    assert draw(HOOKE, 1) == a and a.hidden != b.hidden and a.instance_id != b.instance_id
    for p in HOOKE.hidden:
        lo, hi = p.distribution.low, p.distribution.high
        assert lo <= a.hidden[p.name] < hi
    assert set(a.public) == {"weight_mass"} and a.public["weight_mass"] in (0.02, 0.025, 0.03)
    # a parameter's value depends only on its own key, never on which others exist
    assert a.hidden["k"] == uniform(18.0, 45.0).value(quantile("hookes_law", 1, "k"))
    assert 0.0 <= quantile("x", 1) < 1.0 and quantile("x", 1) != quantile("x", 2)


def test_the_same_instance_in_another_process() -> None:
    code = (
        "from actloop.suites.lab.experiments.hookes_law import SPEC\n"
        "from actloop.suites.lab.instance import draw\n"
        "print(draw(SPEC, 7).instance_id)"
    )
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert other == draw(HOOKE, 7).instance_id


SEED_SHOWN_NOWHERE = 918273
"""A seed whose digits no card text could contain by chance (a small seed's digit turns up in any number)."""


def test_the_card_names_every_part_and_hides_every_hidden_value() -> None:
    instance = draw(HOOKE, 3)
    card = task_card(HOOKE, instance)
    for part in HOOKE.parts:
        assert f"**{part.name}**: {part.function}" in card
    assert "`k`: spring stiffness in N/m; scored within 2 %" in card
    assert f"{instance.public['weight_mass']:.6g} kg" in card
    assert "Budget: 600 s of simulated time" in card and "weight_1, weight_2" in card
    numbers = set(re.findall(r"\d+\.\d+", card))
    for value in instance.hidden.values():
        for digits in range(2, 9):
            assert f"{value:.{digits}f}" not in numbers
    assert "seed" not in card.lower() and str(SEED_SHOWN_NOWHERE) not in task_card(
        HOOKE, draw(HOOKE, SEED_SHOWN_NOWHERE)
    )


def test_cards_prescribe_no_method() -> None:
    card = task_card(HOOKE, draw(HOOKE, 1)).lower()
    for word in ("procedure", "step 1", "first,", "then ", "plot ", "slope", "regression", "hang the"):
        assert word not in card


@pytest.mark.parametrize("key", experiment_keys())
def test_every_registered_card_names_its_parts_hides_its_hidden_values_and_prescribes_no_method(
    key: str,
) -> None:
    spec = experiment(key).spec
    for seed in (1, 2, 3):
        instance = draw(spec, seed)
        card = task_card(spec, instance)
        assert all(f"**{part.name}**" in card for part in spec.parts)
        numbers = set(re.findall(r"\d+\.\d+", card))
        for value in instance.hidden.values():
            assert not any(f"{value:.{digits}g}" in numbers for digits in range(3, 9)), key  # 3+ significant
        for word in ("procedure", "step 1", "first,", "then ", "plot ", "slope", "regression"):
            assert word not in card.lower(), (key, word)


def test_the_lab_suite_is_registered_and_refuses_a_level_it_lacks_before_any_episode(tmp_path: Path) -> None:
    from actloop.cli import main
    from actloop.core.suite import get_suite

    lab = get_suite("lab")
    assert lab.task_names()[0] == "hookes_law" and lab.task_info("hookes_law").arms == 1
    assert lab.protocols == ("T0", "T1", "T2") and "lab-reference" in lab.builtin_models()
    argv = [
        "run",
        "--suite",
        "lab",
        "--tasks",
        "hookes_law",
        "--seeds",
        "1",
        "--model",
        "actloop/lab-reference",
    ]
    assert main([*argv, "--protocol", "T3", "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("key", experiment_keys())
def test_the_card_lists_every_instrument_with_its_unit_resolution_and_readable_size(key: str) -> None:
    chosen = experiment(key)
    instance = draw(chosen.spec, 1)
    instruments = chosen.platform(instance).instruments()
    card = task_card(chosen.spec, instance, instruments)
    for spec in instruments:
        line = next(line for line in card.splitlines() if line.startswith(f"- **{spec.name}** ({spec.unit})"))
        assert f"within {spec.resolution:g} {spec.unit}" in line and " px " in line
