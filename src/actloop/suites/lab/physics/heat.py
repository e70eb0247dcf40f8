"""Lumped thermal networks advanced exactly, read through lagging thermometers and self-heated thermistors.

Bodies have heat capacities C (J/K) and exchange heat through conductances G (W/K) with each other and with
the room (a fixed temperature); heaters put in power P (W). Temperatures are in kelvin. The state obeys
``C dT/dt = Σ G (T_other − T) + P``, linear, so :class:`~.linear.ExactStepper` advances it exactly at any
step. A thermometer reads its body through its own first-order lag ``dT_th/dt = (T_body − T_th) / τ`` and
draws no heat. A thermistor is a small body of its own in a body's well, heated by the meter's test current
(``I² R(T)``, evaluated where each step starts) and read as its resistance by the B law, through its leads:
a two-wire ohmmeter reads the thermistor and the leads' resistance in series (the leads' Joule heat warms
the leads, not the bead).
"""

from __future__ import annotations

from dataclasses import dataclass

from actloop.suites.lab.physics.linear import ExactStepper, exp

ROOM = "room"
T25 = 298.15  # K, the reference temperature of a thermistor's R25


@dataclass
class Thermistor:
    """A bead thermistor on two leads: the B law, what a two-wire ohmmeter reads, its self-heating."""

    r25: float  # Ω at 25 °C
    b_constant: float  # K
    lead_resistance: float = 0.0  # Ω, both leads together, in series with the thermistor
    test_current: float = 0.0  # A, while an ohmmeter drives it

    def resistance(self, kelvin: float) -> float:
        # The B (beta) law: R(T) = R25 exp(B (1/T − 1/T25)).
        return self.r25 * exp(self.b_constant * (1.0 / kelvin - 1.0 / T25))

    def two_wire(self, kelvin: float) -> float:
        """What a two-wire ohmmeter reads: the thermistor and its leads in series (Ω)."""
        return self.resistance(kelvin) + self.lead_resistance

    def joule_heat(self, kelvin: float) -> float:
        """The test current's dissipation I² R (W) at the bead's temperature."""
        return self.test_current * self.test_current * self.resistance(kelvin)


class ThermalNetwork:
    """Bodies, links, heaters, thermometers and thermistors, stepped by ``dt`` (s)."""

    def __init__(self, dt: float, room_temperature: float = 293.15) -> None:
        self.dt = dt
        self.time = 0.0
        self._room = room_temperature
        # The state holds temperatures less this reference: small numbers keep the per-step rounding (about
        # one ulp of the state) far below what any thermometer resolves, even over hours of steps.
        self._reference = room_temperature
        self._capacity: dict[str, float] = {}  # body → J/K
        self._links: dict[frozenset[str], float] = {}  # {a, b} → W/K
        self._heaters: dict[str, tuple[str, float, bool]] = {}  # name → (body, W, on)
        self._thermometers: dict[str, tuple[str, float]] = {}  # name → (body, τ)
        self._thermistors: dict[str, Thermistor] = {}  # each is also a body of the same name
        self._state: dict[str, float] = {}  # body and thermometer temperatures − reference (K)
        self._stepper: ExactStepper | None = None
        self._forcing: list[float] | None = None

    # -- building -------------------------------------------------------------------------------------------
    def _new_name(self, name: str) -> None:
        if name == ROOM or name in self._state or name in self._heaters:
            raise ValueError(f"{name!r} already exists")

    def _body(self, name: str) -> None:
        if name not in self._capacity:
            raise ValueError(f"no body named {name!r}")

    def add_body(self, name: str, heat_capacity: float, temperature: float) -> None:
        self._new_name(name)
        self._capacity[name] = heat_capacity
        self._state[name] = temperature - self._reference
        self._stepper = None

    def set_link(self, a: str, b: str, conductance: float) -> None:
        """Set the conductance (W/K) between two bodies or a body and ``ROOM``; 0 removes the link."""
        for end in (a, b):
            if end != ROOM:
                self._body(end)
        if a == b:
            raise ValueError("a link needs two different ends")
        key = frozenset((a, b))
        if conductance:
            self._links[key] = conductance
        else:
            self._links.pop(key, None)
        self._stepper = None

    def add_heater(self, name: str, body: str, watts: float, on: bool = False) -> None:
        self._new_name(name)
        self._body(body)
        self._heaters[name] = (body, watts, on)
        self._forcing = None

    def set_heater(self, name: str, on: bool | None = None, watts: float | None = None) -> None:
        body, old_watts, old_on = self._heaters[name]
        self._heaters[name] = (body, old_watts if watts is None else watts, old_on if on is None else on)
        self._forcing = None

    def add_thermometer(
        self, name: str, body: str, time_constant: float, temperature: float | None = None
    ) -> None:
        """A thermometer on ``body`` with lag τ (s), reading ``temperature`` at first (default: the room)."""
        self._new_name(name)
        self._body(body)
        self._thermometers[name] = (body, time_constant)
        self._state[name] = (self._room if temperature is None else temperature) - self._reference
        self._stepper = None

    def move_thermometer(self, name: str, body: str) -> None:
        self._body(body)
        self._thermometers[name] = (body, self._thermometers[name][1])
        self._stepper = None

    def add_thermistor(
        self,
        name: str,
        body: str,
        *,
        r25: float,
        b_constant: float,
        heat_capacity: float,
        conductance: float,
        temperature: float | None = None,
        lead_resistance: float = 0.0,
    ) -> None:
        """A thermistor bead (heat capacity J/K) in ``body``'s well, coupled to it by ``conductance`` (W/K):
        its self-heating raises it ``I² R / conductance`` above the body at steady state. Its two leads
        together have ``lead_resistance`` (Ω), in series with it for an ohmmeter (a resistance alloy's,
        the same at any temperature)."""
        self.add_body(name, heat_capacity, self.temperature(body) if temperature is None else temperature)
        self.set_link(name, body, conductance)
        self._thermistors[name] = Thermistor(r25, b_constant, lead_resistance)

    def set_test_current(self, thermistor: str, amps: float) -> None:
        """The current an ohmmeter drives through the thermistor (0 when no meter is connected)."""
        self._thermistors[thermistor].test_current = amps

    @property
    def room_temperature(self) -> float:
        return self._room

    @room_temperature.setter
    def room_temperature(self, kelvin: float) -> None:
        self._room = kelvin
        self._forcing = None

    def set_temperature(self, body: str, kelvin: float) -> None:
        """Set a body's temperature (K), e.g. a sample taken out of a bath."""
        self._body(body)
        self._state[body] = kelvin - self._reference

    # -- time -----------------------------------------------------------------------------------------------
    def _order(self) -> list[str]:
        return [*self._capacity, *self._thermometers]

    def _build(self) -> ExactStepper:
        if self._stepper is not None:
            return self._stepper
        order = self._order()
        index = {name: i for i, name in enumerate(order)}
        a = [[0.0] * len(order) for _ in order]
        for key, g in self._links.items():
            ends = sorted(key)
            for this, other in (ends, ends[::-1]):
                if this == ROOM:
                    continue
                i = index[this]
                a[i][i] -= g / self._capacity[this]
                if other != ROOM:
                    a[i][index[other]] += g / self._capacity[this]
        for name, (body, tau) in self._thermometers.items():
            i = index[name]
            a[i][i] -= 1.0 / tau
            a[i][index[body]] += 1.0 / tau
        self._stepper = ExactStepper(a, self.dt)
        self._forcing = None
        return self._stepper

    def _heating(self) -> list[float]:
        """b: the room's and the heaters' (not the thermistors') contributions to dT/dt, in K/s."""
        if self._forcing is None:
            power = dict.fromkeys(self._order(), 0.0)
            for key, g in self._links.items():
                if ROOM in key:
                    (body,) = key - {ROOM}
                    power[body] += g * (self._room - self._reference)
            for body, watts, on in self._heaters.values():
                if on:
                    power[body] += watts
            self._forcing = [p / self._capacity[n] if n in self._capacity else 0.0 for n, p in power.items()]
        return self._forcing

    def step(self, n: int = 1) -> None:
        """Advance n steps of ``dt``: one exact map when no thermistor is self-heating, else step by step
        (the Joule heat follows the thermistor's resistance)."""
        stepper = self._build()
        order = self._order()
        heating = self._heating()
        self.time += n * self.dt
        hot = {name: t for name, t in self._thermistors.items() if t.test_current}
        if not hot:
            self._state.update(
                zip(order, stepper.advance([self._state[k] for k in order], heating, n), strict=True)
            )
            return
        rows = {name: order.index(name) for name in hot}
        for _ in range(n):
            b = list(heating)
            for name, thermistor in hot.items():
                joule = thermistor.joule_heat(self._state[name] + self._reference)
                b[rows[name]] += joule / self._capacity[name]
            self._state.update(zip(order, stepper.step([self._state[k] for k in order], b), strict=True))

    # -- reading --------------------------------------------------------------------------------------------
    def temperature(self, name: str) -> float:
        """A body's temperature, or what a thermometer reads (its lagged temperature), in K."""
        if name not in self._state:
            raise ValueError(f"no body or thermometer named {name!r}")
        return self._state[name] + self._reference

    def resistance(self, thermistor: str) -> float:
        """What an ideal two-wire ohmmeter reads across the probe's terminals: the thermistor at its bead's
        temperature and its leads in series (Ω)."""
        return self._thermistors[thermistor].two_wire(self.temperature(thermistor))
