"""The baseline's packing of the basket track: the objects it reads from the instruction, the order it
takes them in and the slot each goes to."""

from __future__ import annotations

from actloop.suites.vabench.baseline.packing import COLUMN_SLOTS, LYING_SLOTS, packing_order
from actloop.suites.vabench.baseline.recipes import Recipe, packing_list, recipe_for
from actloop.suites.vabench.task import get_task

INSTRUCTION = get_task("place_five_objects_in_basket").instruction


def into_basket(shape: str, colour: str) -> Recipe:
    return Recipe("place", shape, colour, goal="basket", goal_colour="brown")  # type: ignore[arg-type]


def test_the_instruction_lists_five_placements_into_the_brown_basket() -> None:
    assert recipe_for(INSTRUCTION) == Recipe("pack", "basket", "brown")
    assert packing_list(INSTRUCTION) == [
        into_basket("cube", "red"),
        into_basket("cube", "yellow"),
        into_basket("lying", "blue"),
        into_basket("lying", "cyan"),
        into_basket("upright", "purple"),
    ]


def test_long_objects_go_first_side_by_side_and_the_standing_bottle_last_in_the_column() -> None:
    order = packing_order(packing_list(INSTRUCTION))
    assert [(r.colour, slot) for r, slot in order] == [
        ("blue", LYING_SLOTS[0]),
        ("cyan", LYING_SLOTS[1]),
        ("red", COLUMN_SLOTS[0]),
        ("yellow", COLUMN_SLOTS[1]),
        ("purple", COLUMN_SLOTS[2]),
    ]
    assert all(x >= 0 for x, _ in LYING_SLOTS) and all(x < 0 for x, _ in COLUMN_SLOTS)


def test_an_instruction_without_a_list_or_with_an_unknown_object_is_not_a_packing() -> None:
    assert packing_list("Put the red cube into the brown basket.") == []
    assert packing_list("Put both objects into the basket: the red cube and a live goldfish.") == []
    assert recipe_for("Put both objects into the basket: the red cube and a live goldfish.") != Recipe(
        "pack", "basket", None
    )
