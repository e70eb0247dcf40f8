"""The diagnostic rubric (the seed's appendix C.9) as data: nine criteria in three modules, their gates,
evidence rules, and a versioned, fingerprinted document for annotators and judges."""

from __future__ import annotations

import json

import pytest

from actloop.suites.vabench.diagnostics.rubric import (
    AMBIGUITY,
    CRITERIA,
    RECOVERY,
    RUBRIC_VERSION,
    criterion,
    module_criteria,
    rubric_digest,
    rubric_document,
)

TABLE_28 = [  # module, criterion, in the table's order
    ("SPU", "TL"), ("SPU", "AE"), ("SPU", "SR"),
    ("RM", "MS"), ("RM", "MP"), ("RM", "FG"),
    ("ER", "ED"), ("ER", "OC"), ("ER", "PF"),
]  # fmt: skip


def test_nine_criteria_in_three_modules_in_the_seed_order() -> None:
    assert [(c.module, c.code) for c in CRITERIA] == TABLE_28
    assert [c.code for c in module_criteria("ER")] == ["ED", "OC", "PF"]


def test_the_recovery_gate_is_shared_and_only_ae_has_the_ambiguity_gate() -> None:
    gates = {c.code: c.gate for c in CRITERIA}
    assert gates["ED"] is gates["OC"] is gates["PF"] is RECOVERY
    assert gates["AE"] is AMBIGUITY
    assert {code for code, gate in gates.items() if gate.kind == "always"} == {"TL", "SR", "MS", "MP", "FG"}
    assert RECOVERY.question and AMBIGUITY.question


def test_every_criterion_states_what_counts_for_and_against_it() -> None:
    for c in CRITERIA:
        assert c.name and c.definition.endswith(".") and c.positive and c.negative, c.code


def test_fg_scores_every_episode_and_counts_a_missed_opportunity_as_zero() -> None:
    fg = criterion("FG")
    assert "Every episode is scored." in fg.notes
    assert any("scored 0" in rule for rule in fg.negative)


def test_an_unknown_code_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="TL, AE, SR, MS, MP, FG, ED, OC, PF"):
        criterion("XX")


def test_the_document_is_versioned_json_and_its_digest_follows_its_content() -> None:
    document = rubric_document()
    assert document["version"] == RUBRIC_VERSION
    assert json.loads(json.dumps(document)) == document
    assert [c["code"] for c in document["criteria"]] == [code for _, code in TABLE_28]
    assert len(rubric_digest()) == 16 and rubric_digest() == rubric_digest(rubric_document())
    edited = rubric_document()
    edited["criteria"][5]["negative"] = []
    assert rubric_digest(edited) != rubric_digest()
