"""The collision timer of the air track's photogates, and its judgement of what it timed.

ARM clears the timer. From then, each gate times the passages of the flags that enter its beam: how long
each blocked it. A gate's first two passages fill its two LCDs (``first``, ``second``) and stay there until
ARM is pressed again.

A timing is *clean* when it recorded one collision of cart_b at rest, hit by cart_a, with no outside force on
either cart while it mattered, in the order the momentum balance needs:

1. the timer's first passage is cart_a through gate 1 to the right (entering after the arming);
2. the carts collide after that passage ended and before any other began, cart_b at rest (under
   :data:`REST_M_S`);
3. after the collision, cart_b's first passage is through gate 2 to the right and cart_a's back through
   gate 1 to the left, each through the beam without turning;
4. from cart_a's entry into gate 1 until both passages of 3 ended, the robot touches neither cart, the air
   stays on, no other passage or collision happens, and a cart runs into a buffer only after its own
   passage of 3 ended.

Then gate 1's LCDs show cart_a's passages before and after the collision and gate 2's first shows cart_b's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from actloop.suites.lab.physics.collision import Collision, Edge, Event, Stop

REST_M_S = 1e-4
"""cart_b counts as at rest below this speed (0.1 mm/s: its momentum then moves the balance by under a fifth
of the tolerance)."""
CARTS = ("cart_a", "cart_b")
GATES = ("gate 1", "gate 2")
SLOTS = 2
"""Passages each gate shows."""


@dataclass
class Passage:
    """One flag's passage through one gate's beam: when it entered and left, and its direction (+1 to the
    right) at each."""

    gate: int
    cart: int
    entered_s: float
    direction: int
    left_s: float | None = None
    left_direction: int = 0

    @property
    def blocked_s(self) -> float | None:
        """How long the flag blocked the beam (None while it still does)."""
        return None if self.left_s is None else self.left_s - self.entered_s

    @property
    def through(self) -> bool:
        """Whether the flag left on the side it was heading for."""
        return self.left_s is not None and self.left_direction == self.direction

    def is_(self, cart: int, gate: int, direction: int) -> bool:
        return self.cart == cart and self.gate == gate and self.direction == direction


class Phase(Enum):
    WAITING = "waiting for cart_a to enter gate 1"
    INCOMING = "cart_a in gate 1"
    APPROACHING = "cart_a on its way to cart_b"
    AFTER = "timing the carts after the collision"
    CLEAN = "a clean collision timed"
    SPOILED = "spoiled"


@dataclass
class Timing:
    """What the timer recorded since arming number ``index`` at ``armed_s``, and its judgement."""

    index: int
    armed_s: float
    passages: list[Passage] = field(default_factory=list)
    phase: Phase = Phase.WAITING
    problem: str = ""
    """Why the timing was spoiled."""
    collision: Collision | None = None
    incoming: Passage | None = None
    b_out: Passage | None = None
    a_back: Passage | None = None

    @property
    def clean(self) -> bool:
        return self.phase is Phase.CLEAN

    @property
    def timing(self) -> bool:
        """Whether the carts are being timed (cart_a has entered gate 1 and the timing is not judged yet)."""
        return self.phase in (Phase.INCOMING, Phase.APPROACHING, Phase.AFTER)

    def shown(self, gate: int) -> list[float]:
        """The blocked times (s) gate ``gate``'s LCDs show, first first."""
        done = [p.blocked_s for p in self.passages if p.gate == gate and p.blocked_s is not None]
        return [t for t in done if t is not None][:SLOTS]

    def spoil(self, problem: str) -> None:
        if self.timing or self.phase is Phase.WAITING:
            self.phase, self.problem = Phase.SPOILED, problem

    # --- events, in time order ---
    def event(self, event: Event) -> None:
        if isinstance(event, Edge):
            self._edge(event)
        elif isinstance(event, Collision):
            self._collision(event)
        elif isinstance(event, Stop):
            self._stop(event)

    def disturbed(self, problem: str) -> None:
        """An outside force acts on the carts (the robot's touch, the air off): ``problem`` says which."""
        if self.timing:
            self.spoil(problem)

    def _edge(self, edge: Edge) -> None:
        direction = 1 if edge.velocity > 0 else -1
        if edge.entering:
            if edge.time_s < self.armed_s:
                return
            self.passages.append(Passage(edge.gate, edge.cart, edge.time_s, direction))
            self._entered(self.passages[-1])
            return
        open_ = next(
            (p for p in reversed(self.passages) if p.gate == edge.gate and p.cart == edge.cart), None
        )
        if open_ is None or open_.left_s is not None:
            return  # it entered before the arming
        open_.left_s, open_.left_direction = edge.time_s, direction
        self._left(open_)

    def _entered(self, passage: Passage) -> None:
        what = f"{CARTS[passage.cart]} entered {GATES[passage.gate]}"
        if self.phase is Phase.WAITING:
            if passage.is_(0, 0, 1):
                self.phase, self.incoming = Phase.INCOMING, passage
            else:
                self.spoil(f"the first passage timed was not cart_a's through gate 1 to the right ({what})")
        elif self.phase in (Phase.INCOMING, Phase.APPROACHING):
            self.spoil(f"{what} before the collision")
        elif self.phase is Phase.AFTER:
            if self.b_out is None and passage.is_(1, 1, 1):
                self.b_out = passage
            elif self.a_back is None and passage.is_(0, 0, -1):
                self.a_back = passage
            else:
                self.spoil(f"{what} before both carts were timed after the collision")

    def _left(self, passage: Passage) -> None:
        if not passage.through and self.timing:
            self.spoil(f"{CARTS[passage.cart]} turned back inside {GATES[passage.gate]}")
        elif passage is self.incoming and self.phase is Phase.INCOMING:
            self.phase = Phase.APPROACHING
        elif self.phase is Phase.AFTER and self._done(self.a_back) and self._done(self.b_out):
            self.phase = Phase.CLEAN

    @staticmethod
    def _done(passage: Passage | None) -> bool:
        return passage is not None and passage.through

    def _collision(self, collision: Collision) -> None:
        if self.phase is Phase.INCOMING:
            self.spoil("the carts collided while cart_a's flag was still in gate 1")
        elif self.phase is Phase.APPROACHING:
            speed = abs(collision.before[1])
            if speed >= REST_M_S:
                self.spoil(f"cart_b was moving at {1000 * speed:.2f} mm/s when cart_a hit it")
            else:
                self.phase, self.collision = Phase.AFTER, collision
        elif self.phase is Phase.AFTER:
            self.spoil("the carts collided again before both were timed")

    def _stop(self, stop: Stop) -> None:
        own = self.a_back if stop.cart == 0 else self.b_out
        if self.timing and not self._done(own):
            self.spoil(f"{CARTS[stop.cart]} ran into a buffer before its passage after the collision ended")
