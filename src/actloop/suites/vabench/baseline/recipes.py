"""Task procedures the baseline knows, chosen from the instruction's words.

A recipe names the kind of procedure and the objects it involves by colour and noun, as the
instruction states them ("the red cube", "the blue pad"). It carries no positions: those come from
the images.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from actloop.suites.vabench.baseline.vision import COLOUR_WORDS

Procedure = Literal["grasp", "place", "press", "strike", "handover", "lift_pot", "place_shoe", "pack"]
Shape = Literal["cube", "lying", "upright", "leaning", "bell", "hammer", "block", "pot", "shoe", "basket"]
Goal = Literal["pad", "bowl", "cube", "block", "mat", "basket"]


@dataclass(frozen=True)
class Recipe:
    """What to do: ``procedure`` on the ``shape`` object of ``colour``, towards the ``goal`` object."""

    procedure: Procedure
    shape: Shape
    colour: str | None
    goal: Goal | None = None
    goal_colour: str | None = None
    support_colour: str | None = None
    """For a leaning object: the colour of what it leans on; for a hammer: the colour of its head; for a
    mat: the colour of the end the object must point to."""


def colours_of(instruction: str, noun: str) -> list[str]:
    """The colour words directly before ``noun``, in order (``the red cube on the green cube``)."""
    adjectives = (m.group(1) for m in re.finditer(rf"\b(\w+)\s+{noun}s?\b", instruction.lower()))
    return [word for word in adjectives if word in COLOUR_WORDS]


def colour_of(instruction: str, noun: str) -> str | None:
    """The first colour word directly before ``noun`` (``the red cube`` -> ``red``)."""
    return next(iter(colours_of(instruction, noun)), None)


def _pad_colour(text: str) -> str | None:
    return colour_of(text, "pad") or colour_of(text, "target")


def recipe_for(instruction: str) -> Recipe | None:
    """The procedure an instruction asks for, or None if the baseline has none for it."""
    text = instruction.lower()
    words = set(re.findall(r"[a-z]+", text))
    if "basket" in words and packing_list(instruction):
        return Recipe("pack", "basket", colour_of(text, "basket"))
    if "handover" in words or re.search(r"\bhand (it|the \w+) over\b", text):
        return Recipe("handover", "block", colour_of(text, "block"))
    if "pot" in words and words & {"handle", "handles"}:
        return Recipe("lift_pot", "pot", colour_of(text, "pot"))
    if "shoe" in words and "mat" in words:
        return Recipe(
            "place_shoe",
            "shoe",
            colour_of(text, "shoe"),
            goal="mat",
            goal_colour=colour_of(text, "mat"),
            support_colour=colour_of(text, "end"),
        )
    if "hammer" in words:
        return Recipe(
            "strike",
            "hammer",
            colour_of(text, "handle") or colour_of(text, "hammer"),
            goal="block",
            goal_colour=colour_of(text, "block"),
            support_colour=colour_of(text, "head"),
        )
    if "bell" in words:
        return Recipe("press", "bell", colour_of(text, "bell"))
    if "pen" in words:
        if words & {"leaning", "leans", "lean"}:
            return Recipe("grasp", "leaning", colour_of(text, "pen"), support_colour=colour_of(text, "cube"))
        return Recipe("grasp", "lying", colour_of(text, "pen"))
    if "bottle" in words:
        colour = colour_of(text, "bottle")
        upright = bool(words & {"upright", "standing", "stands"})
        if words & {"pad", "target"}:
            return Recipe("place", "upright", colour, goal="pad", goal_colour=_pad_colour(text))
        return Recipe("grasp", "upright" if upright else "lying", colour)
    if "cube" in words:
        colours = colours_of(text, "cube")
        first = colours[0] if colours else None
        if "bowl" in words:
            return Recipe("place", "cube", first, goal="bowl", goal_colour=colour_of(text, "bowl"))
        if words & {"pad", "target"}:
            return Recipe("place", "cube", first, goal="pad", goal_colour=_pad_colour(text))
        if len(colours) >= 2:
            return Recipe("place", "cube", first, goal="cube", goal_colour=colours[1])
        return Recipe("grasp", "cube", first)
    return None


def packing_list(instruction: str) -> list[Recipe]:
    """The objects a packing instruction lists after its colon ("Put all five objects into the brown basket:
    the red cube, ..., the purple bottle standing upright."), each as a placement into the container."""
    match = re.search(r"\binto the (?:(\w+) )?basket\b[^:]*:(?P<items>.+)", instruction.lower(), re.S)
    if match is None:
        return []
    colour = match.group(1) if match.group(1) in COLOUR_WORDS else None
    items = [p.strip() for p in re.split(r",|\band\b", match.group("items").strip().rstrip(".")) if p.strip()]
    found = []
    for item in items:
        grasp = recipe_for(f"pick up {item}")
        if grasp is None or grasp.procedure != "grasp":
            return []
        found.append(Recipe("place", grasp.shape, grasp.colour, goal="basket", goal_colour=colour))
    return found
