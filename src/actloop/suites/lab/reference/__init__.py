"""Reference solutions: scripted experimenters that act only through the public client and read every
value from the instruments, as the seed requires of the solutions that prove each experiment solvable.

Discovered by module: the reference of an experiment is the module named after its key, whose
``solve(lab, public)`` measures through the connected client ``lab``, given the card's public values, and
submits (returning the submission's answer). The other modules are the references' shared tools (motion,
reading displays and scales, each platform's operator).

Nothing here may import the bench, its physics or its evaluator, nor anything outside this package (it is
copied into an agent's workspace to run there): only the client, the published calibration (with the
bench's published layout) and what any experimenter may know from the card.
"""

import importlib
from collections.abc import Callable, Mapping
from typing import Any

Solver = Callable[[Any, Mapping[str, float]], dict[str, Any]]
"""A reference: given a connected client and the card's public values, solve and submit."""


def reference(experiment: str) -> Solver:
    """The reference experimenter of ``experiment``."""
    try:
        module = importlib.import_module(f"{__name__}.{experiment}")
    except ModuleNotFoundError as err:
        if err.name != f"{__name__}.{experiment}":
            raise
        raise KeyError(f"no reference experimenter for {experiment!r}") from None
    solve = getattr(module, "solve", None)
    if not callable(solve):
        raise KeyError(f"no reference experimenter for {experiment!r} ({module.__name__} has no solve)")
    return solve  # type: ignore[no-any-return]
