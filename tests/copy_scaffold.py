"""Lab tests that go on from one measurement taken once per module: each test gets its own deep copy (its
bench first, closed after the test). Only benches built with ``render=False`` copy (a renderer does not)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any, TypeVar

Measured = TypeVar("Measured", bound=tuple[Any, ...])


def own_copy(measured: Measured) -> Iterator[Measured]:
    """The test's own copy of ``measured`` (a tuple whose first item is the bench), for a fixture to yield
    from."""
    own = copy.deepcopy(measured)
    yield own
    own[0].close()
